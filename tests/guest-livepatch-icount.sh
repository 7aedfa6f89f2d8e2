#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-livepatch-icount.sh [shares]: run by tests/livepatch-icount.sh in
# a one-CPU -icount guest of Debian's kernel with the livepatch loaded
# (vm/guest-init loaded it), where guest time is executed instructions and
# a host stall moves no CPU time; with "shares", the second check alone
# (tests/fault-suite.sh shows it red on a kernel whose compat yield does
# not move the yielder). Prints TAP.
#   - kselftest compat_yield_latency, yield_outside: a yielder outside
#     every group at 1 keeps the stock yield (its time away per yield
#     against the same yielder with no group at 1), the machine's switch
#     at 0;
#   - cpu.compat_yield: a yield loop alone in a cgroup beside a busy loop
#     in another (group_share of tests/tap.sh), the switch at 0, keeps at
#     most a tenth of the CPU with its group at 1 (compat yields give the
#     busy loop's group its turn; the stock yield across groups gives it
#     half) and gets half of it, 0.40 to 0.60, with its group at 0;
#   - the machine's switch: a yield loop in a session (an autogroup) of
#     its own beside a busy loop (session_share of tests/tap.sh) keeps at
#     most a tenth of the CPU with the switch at 1 and gets 0.40 to 0.60
#     with it at 0 (the plain-TCG livepatch lane judges the write of 0 by
#     the stock yield's shape; here its share is judged);
#   - kselftest compat_yield_matrix, the entity placement's cells (the
#     yielder and each rival placed on their own, autogroups on and off):
#     the contract's time, G1 and shares, on Debian's kernel with the
#     livepatch.
#   - kselftest compat_yield_matrix, the flip cells with the tasks
#     together (a rival flipped between nice 19, or SCHED_IDLE, and nice 0
#     in the yielder's group): Debian's own reweight_entity() keeps the
#     flipped rival's light request, a term of the bound on this kernel;
#   - kselftest compat_yield_matrix with the switch at 0 and groups at 1,
#     the cgroup and Slurm-deep cells without a flip: the yielder's job and
#     its rivals' group at 1 (-O -R), judged as at knob 1; the rivals'
#     group alone (-R), the yielder outside judged against knob 0 (G5).
# Uses $SCY_BIN (the tools and kselftests).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. tests/tap.sh

knob=/sys/kernel/sched_compat_yield
cg=/sys/fs/cgroup gy=/sys/fs/cgroup/scy-icount-yielder gh=/sys/fs/cgroup/scy-icount-hog
if [[ ${1:-} == shares ]]; then
	plan 2
else
	plan 7
	run_kselftest "$SCY_BIN/selftests" compat_yield_latency -d "${SCY_LATENCY_SECONDS:-2}" -f yield_outside
	run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -d 0.6 -c '^[0-9]+ entity '
	run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -d 0.6 \
		-c '^[0-9]+ (same|cgroup-root) .*event=(nice-flip|policy-flip)$'
	run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -O -R -d 0.6 \
		-c '^[0-9]+ (cgroup|nested) .*event=(none|sleep-wake|sibling)$'
	run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -R -d 0.6 \
		-c '^[0-9]+ (cgroup|nested) .*event=(none|sleep-wake|sibling)$'
fi
what="one CPU under -icount, the switch at 0: a yield loop in a cgroup beside a busy loop's cgroup"
if [[ ! -w $knob ]] || ! echo +cpu >$cg/cgroup.subtree_control || ! mkdir -p $gy $gh ||
	[[ ! -w $gy/cpu.compat_yield ]]; then
	not_ok "$what: the livepatch's switch and a cgroup's cpu.compat_yield are writable"
	exit 0
fi
echo 0 >$knob
echo 1 >$gy/cpu.compat_yield
read -r g1 _ <<<"$(group_share "$SCY_BIN/tests" $gy $gh)"
echo 0 >$gy/cpu.compat_yield
read -r g0 _ <<<"$(group_share "$SCY_BIN/tests" $gy $gh)"
check "$what: with the group at 1, cpu share ${g1:-missing} <= 0.10; at 0, ${g0:-missing} in [0.40, 0.60]" \
	test -n "$(in_range "$g1" 0 0.10 && echo y)" -a -n "$(in_range "$g0" 0.40 0.60 && echo y)"
rmdir $gy $gh
# Autogroups on for the session's own group (Debian's 6.1 boots with
# them off), as they were after.
ag=/proc/sys/kernel/sched_autogroup_enabled
ag0=$(cat $ag 2>/dev/null)
[[ -n $ag0 ]] && echo 1 >$ag
echo 1 >$knob
read -r s1 _ <<<"$(session_share "$SCY_BIN/tests")"
echo 0 >$knob
read -r s0 _ <<<"$(session_share "$SCY_BIN/tests")"
[[ -n $ag0 ]] && echo "$ag0" >$ag
check "one CPU under -icount, the machine's switch: a yield loop in its own autogroup beside a busy loop, cpu share ${s1:-missing} <= 0.10 with the switch at 1; ${s0:-missing} in [0.40, 0.60] at 0" \
	test -n "$(in_range "$s1" 0 0.10 && echo y)" -a -n "$(in_range "$s0" 0.40 0.60 && echo y)"
