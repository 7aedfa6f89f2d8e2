# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/guest-suite.sh in the guests of Debian's kernels with
# the livepatch (KVER-livepatch; vm/guest-init loaded it): what the
# livepatch adds to the suite.
#   - the taint it leaves: K (livepatch), O (out of tree), E (unsigned),
#     and no other flag;
#   - the builds that must be refused (livepatch/build.sh with
#     SCY_LIVEPATCH_TESTS=1): another kernel and a second copy beside this
#     one while it is loaded, a missing symbol when it is not (the second
#     copy's check comes first): each fails with its errno, says so in one
#     dmesg line, and changes nothing;
#   - SCY_LIVEPATCH_CYCLES (20) cycles of load, knob 1, disable, unload
#     while stress-ng yields on both CPUs: each load and unload works, each
#     disable removes the knob's files. A transition on 6.12 ends by
#     rewriting the kernel's cond_resched() call sites (the livepatch
#     core's sched_dynamic_klp_enable/disable), a text patch with IPIs per
#     site, slow under single-threaded TCG (the transition times are in
#     Documentation/results/livepatch.md), hence waits of up to 5 minutes;
#   - after the patch is disabled and unloaded, the stock yield is back (a
#     yielder in its own autogroup next to a hog gets its 50% again on
#     6.12, where the patched yield gives it a few percent);
#   - the livepatch loaded again for the kselftests that follow.
# Uses check/ok/not_ok/skip/field/in_range of tests/tap.sh and $knob, $SCY_BIN, $SCY_KVER,
# $SCY_RESULTS of the suite.

lp=/sys/kernel/livepatch/livepatch_compat_yield
lpko=$SCY_RESULTS/livepatch.ko
cycles=${SCY_LIVEPATCH_CYCLES:-20}
plan 15

# Taint flags (Documentation/admin-guide/tainted-kernels.rst): O 4096,
# E 8192, K 32768.
taint=$(cat /proc/sys/kernel/tainted)
check "taint $taint: K (livepatch) set, nothing but K, O and E" \
	test $((taint & 32768)) != 0 -a $((taint & ~(4096 | 8192 | 32768))) = 0

# refused KO ERRNO_TEXT DMESG_TEXT DESCRIPTION: insmod KO fails with
# ERRNO_TEXT, the kernel logs exactly one line, containing DMESG_TEXT,
# besides the module loader's taint notices, and the knob (absent or its
# value) and the loaded livepatches are as they were.
refused() {
	local ko=$1 err=$2 msg=$3 desc=$4 before out lines k0 lps
	k0=$(cat $knob 2>/dev/null)
	lps=$(ls /sys/kernel/livepatch)
	before=$(dmesg | wc -l)
	out=$(insmod "$ko" 2>&1)
	local rc=$?
	lines=$(dmesg | tail -n +$((before + 1)) |
		grep -vE 'tainting kernel|module verification failed|out-of-tree module taints')
	echo "# insmod ${ko##*/}: status $rc: $out"
	sed 's/^/# dmesg: /' <<<"$lines"
	check "$desc: refused ($err), one dmesg line saying so, knob and patch unchanged" \
		test $rc != 0 -a "$(grep -c . <<<"$lines")" = 1 \
		-a "$(grep -cF -- "$msg" <<<"$lines")" = 1 \
		-a "$(grep -cE -- "$err" <<<"$out")" = 1 \
		-a "$(cat $knob 2>/dev/null)" = "$k0" -a "$(ls /sys/kernel/livepatch)" = "$lps"
}
T=$SCY_RESULTS/livepatch-test
echo 1 >$knob
refused "$T/other-kernel.ko" 'Invalid module format|Exec format error' \
	'built for the kernel "#1 SMP PREEMPT_DYNAMIC Debian 0.0-0 (test)"' \
	"a build for another kernel"
refused "$T/livepatch_compat_yield_again.ko" 'File exists' \
	'already has /sys/kernel/sched_compat_yield' "a second livepatch beside this one"
echo 0 >$knob

# lp_wait COND: wait (up to 300 s) until the shell test COND holds
lp_wait() {
	local i
	for i in $(seq 3000); do
		eval "$1" && return 0
		busybox usleep 100000
	done
	return 1
}
# share PLACEMENT: the yielder's CPU share next to one hog, 2 s, knob as is
share() {
	field yielder_cpu_share "$("$SCY_BIN/yield-share" -d 2 -n 1 -p "$1" -k keep -f kv 2>/dev/null)"
}

echo 1 >$knob
s1=$(share session)
check "knob 1, yielder in its own autogroup next to a hog: cpu share $s1 <= 0.10" \
	in_range "$s1" 0 0.10
echo 0 >$knob

# the load/knob/disable/unload cycles, under stress
setsid stress-ng --temp-path /tmp --yield 2 --timeout $((cycles * 180 + 900)) --metrics-brief >"$SCY_RESULTS/stress-ng-livepatch.log" 2>&1 &
sp=$!
bad=0 gone=0 t0=$(date +%s.%N)
disable_unload() {
	echo 0 >$lp/enabled && lp_wait "[[ ! -d $lp ]]" &&
		{ [[ ! -e $knob && ! -e /proc/sys/kernel/sched_compat_yield ]] || return 1; } &&
		rmmod livepatch_compat_yield
}
disable_unload || bad=$((bad + 1))
# odd cycles load it with sysctl=1 (the sysctl follows the knob), even ones
# without (no sysctl, the default)
has_sysctl() {
	if [[ $1 == 1 ]]; then
		[[ $(cat /proc/sys/kernel/sched_compat_yield) == 1 ]]
	else
		[[ ! -e /proc/sys/kernel/sched_compat_yield ]]
	fi
}
for i in $(seq "$cycles"); do
	if insmod "$lpko" sysctl=$((i % 2)) && lp_wait "[[ \$(cat $lp/transition 2>/dev/null) == 0 ]]" &&
		[[ $(cat $knob) == 0 ]] && echo 1 >$knob && has_sysctl $((i % 2)) &&
		disable_unload; then
		gone=$((gone + 1))
	else
		bad=$((bad + 1))
		echo "# cycle $i failed"
	fi
done
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "stress-ng --yield ran through the livepatch cycles" kill -0 $sp
kill -- -$sp 2>/dev/null
wait $sp 2>/dev/null
sed 's/^/# /' "$SCY_RESULTS/stress-ng-livepatch.log"
check "$cycles cycles of load (with and without sysctl=1), knob 1, disable, unload under stress-ng --yield in $secs s ($bad failed)" \
	test $bad = 0 -a $gone = "$cycles"
check "unloaded: no livepatch, no /sys/kernel/sched_compat_yield, no kernel.sched_compat_yield" \
	test -z "$(ls /sys/kernel/livepatch)" -a ! -e $knob -a ! -e /proc/sys/kernel/sched_compat_yield
check "unloaded: the module is gone" bash -c "! grep -q '^livepatch_compat_yield ' /proc/modules"
refused "$T/missing-symbol.ko" 'Invalid parameters|Invalid argument' \
	"symbol 'lp_test_missing_symbol' not found" "a build that needs a symbol the kernel lacks"

# The stock yield is back: on 6.12 a yielder in its own autogroup gets
# half of the CPU next to a hog (6.1 gives it half in every placement).
s0=$(share session)
check "unloaded, yielder in its own autogroup next to a hog: cpu share $s0 in [0.40, 0.60] (stock)" \
	in_range "$s0" 0.40 0.60

# Loaded again, for the kselftests: knob 0, enabled, transition done.
check "loaded again" insmod "$lpko"
check "enabled again, every task patched" lp_wait "[[ \$(cat $lp/enabled)\$(cat $lp/transition) == 10 ]]"
check "knob 0 after loading; no kernel.sched_compat_yield without sysctl=1" \
	test "$(cat $knob)" = 0 -a ! -e /proc/sys/kernel/sched_compat_yield
check "knob file has the series' mode (0644)" \
	test "$(stat -c %a $knob)" = 644
check "the livepatch's vermagic is the running kernel's release" \
	test "$(modinfo -F vermagic "$lpko" | cut -d' ' -f1)" = "$(uname -r)"
