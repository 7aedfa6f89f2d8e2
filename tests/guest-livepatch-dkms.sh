#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-livepatch-dkms.sh KO: run by tests/livepatch-dkms.sh in a guest of
# Debian's binary kernel (nothing of the project loaded): the livepatch as
# DKMS built and installed it for that kernel (stripped, as dkms leaves
# it) loads, and its transition ends; the switch it adds reads 0 and takes
# 1; at 1 a yield loop in an autogroup of its own beside a hog gets at most
# a tenth of the CPU (the stock yield leaves it half: a host stall charged
# to the loop can only raise its share); at 0 again the patch is disabled
# and the module unloads, its files gone. Uses $SCY_BIN (yield-share).
# Prints TAP.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
ko=${1:?usage: guest-livepatch-dkms.sh KO}
lp=/sys/kernel/livepatch/livepatch_compat_yield knob=/sys/kernel/sched_compat_yield
plan 6
. "$(dirname "${BASH_SOURCE[0]}")/guest-lp-lib.sh"
out=$(insmod "$ko" 2>&1)
rc=$?
check "insmod of the DKMS-built ${ko##*/} (status $rc${out:+: $out})" test $rc = 0
t0=$SECONDS
lp_on livepatch_compat_yield
check "its patch is enabled and its transition over ($((SECONDS - t0)) s)" \
	test "$(cat $lp/enabled 2>/dev/null)$(cat $lp/transition 2>/dev/null)" = 10
v0=$(cat $knob 2>/dev/null)
echo 1 >$knob 2>/dev/null
v1=$(cat $knob 2>/dev/null)
check "$knob reads 0 after loading, 1 after a write of 1 ($v0, $v1)" test "$v0$v1" = 01
s=$(field yielder_cpu_share "$("$SCY_BIN/yield-share" -d 2 -n 1 -p session -k keep -f kv 2>/dev/null)")
check "switch at 1: a yield loop in its own autogroup beside a hog gets ${s:-no} cpu share <= 0.10" \
	in_range "$s" 0 0.10
echo 0 >$knob
out=$(lp_off livepatch_compat_yield 2>&1)
rc=$?
check "disabled and unloaded (status $rc${out:+: $out})" test $rc = 0
check "no $knob and no livepatch left" test ! -e $knob -a -z "$(ls /sys/kernel/livepatch 2>/dev/null)"
