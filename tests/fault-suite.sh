#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a guest of a patched kernel (make check-faults): the checks of
# make check that guard a property, each run once with that property broken
# in a test-only way, in a mount namespace of its own so that nothing else
# sees the fault. Each test here passes when the check it names fails
# ("not ok") on its fault; the failing lines are printed as comments.
#   - a knob that ignores writes (a plain file bound over the sysfs file):
#     the share kselftest's knob-1 tests of the placements where the stock
#     yield gives the yielder more than the limit fail, the others SKIP;
#   - a cgroup hierarchy where mkdir fails (cgroup2 bound read-only): the
#     cgroup placements of the share and latency kselftests fail instead of
#     skipping;
#   - a refused knob write that zeroes the value: the guest suite's
#     "writing 2 fails and leaves the value as it was" fails;
#   - a lone yielder that makes no yield, after runs that left ineffective
#     yields in yield_stats' counters (SCY_MODULE): the guest suite's "a
#     lone yielder's yields are ineffective" fails.
set -u
: "${SCY_BIN:?}"
ST=$SCY_BIN/selftests
knob=/sys/kernel/sched_compat_yield
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
d=${SCY_FAULT_SECONDS:-1}
work=$(mktemp -d)

plan 7
echo "# fault guest: kernel $(uname -r), knob $(cat $knob 2>/dev/null || echo absent)"

# faulted FAULT CMD...: run CMD in a mount namespace with FAULT applied
faulted() {
	local fault=$1
	shift
	unshare -m --propagation private bash -c "$fault && exec \"\$@\"" - "$@"
}
ignore_writes="echo 0 >$work/knob && mount --bind $work/knob $knob"
ro_cgroup="mount -o remount,bind,ro /sys/fs/cgroup"

# the lines of TAP FILE that match RE, as comments
show() { grep -E "$2" "$1" | sed 's/^/#   /'; }

faulted "$ignore_writes" "$ST/compat_yield_share" -d "$d" >"$work/share-knob.tap" 2>&1
show "$work/share-knob.tap" '^(not )?ok .*knob=1'
for sc in yield-session yield-cgroup yield-cgroup-session; do
	check "a knob that ignores writes: compat_yield_share fails $sc at knob 1" \
		grep -qE "^not ok [0-9]+ $sc knob=1: yielder counter share" "$work/share-knob.tap"
done
check "a knob that ignores writes: no knob-1 test of compat_yield_share passes" \
	bash -c '! grep -qE "^ok [0-9]+ yield-[a-z0-9]+ knob=1: " "$1"' - "$work/share-knob.tap"
check "the knob is what it was after the fault runs ($(cat $knob))" test "$(cat $knob)" = 0

faulted "$ro_cgroup" "$ST/compat_yield_share" -d "$d" >"$work/share-cg.tap" 2>&1
faulted "$ro_cgroup" "$ST/compat_yield_latency" -d "$d" >"$work/latency-cg.tap" 2>&1
show "$work/share-cg.tap" 'yield-cgroup(-session)? knob=1'
show "$work/latency-cg.tap" '^(not )?ok .*(cgroup|cgidle)'
# kselftest_harness names a test FIXTURE.VARIANT.TEST: the variants with a
# cpu cgroup or a cpu.idle group
fails=$(grep -cE '^not ok [0-9]+ [a-z_]+\.[a-z0-9_]*(cgroup|cgidle)' "$work/latency-cg.tap")
skips=$(grep -cE '^ok [0-9]+ [a-z_]+\.[a-z0-9_]*(cgroup|cgidle).*# SKIP' "$work/latency-cg.tap")
check "a cgroup mkdir that fails: compat_yield_share fails yield-cgroup and yield-cgroup-session, compat_yield_latency fails its group variants ($fails failed, $skips skipped)" \
	test "$(grep -cE '^not ok [0-9]+ yield-cgroup(-session)? knob=1: run failed: cannot' "$work/share-cg.tap")" = 2 -a "$fails" -gt 0 -a "$skips" = 0

# tap.sh's checks of the guest suite, in a subshell each with the fault in
# place; their TAP line printed as a comment
out=$( (n=0 && knob_write() { echo 0 >"$1" && return 1; } && knob_refuses $knob 2 "a faulty knob") 2>&1)
sed 's/^/#   /' <<<"$out"
check "a refused knob write that zeroes the value: the refusal check fails" grep -q '^not ok' <<<"$out"
if [[ -f ${SCY_MODULE:-} ]] && insmod "$SCY_MODULE"; then
	# ineffective yields left by a run before: a lone yielder's
	"$SCY_BIN/yield-share" -d 0.5 -n 0 -f kv >/dev/null 2>&1
	echo "# yield_stats before the faulty run: $(cat /sys/kernel/yield_stats/ineffective) ineffective yields"
	out=$( (n=0 && lone_yields_ineffective /sys/kernel/yield_stats true) 2>&1)
	sed 's/^/#   /' <<<"$out"
	check "a lone yielder that makes no yield: the ineffective-yields check fails" grep -q '^not ok' <<<"$out"
	rmmod yield_stats
else
	not_ok "a lone yielder that makes no yield: yield_stats (SCY_MODULE=${SCY_MODULE:-}) did not load"
fi
rm -rf "$work"
