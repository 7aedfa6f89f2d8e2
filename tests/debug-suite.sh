#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a debug guest (tests/debug.sh boots it): checks that the
# kernel carries the debug options, runs the kselftests, fuzzes the knob,
# writes it from concurrent processes, runs a SCHED_BATCH yielder alone in
# its autogroup, then stresses the scheduler for SCY_STRESS_SECONDS
# (default 60) with everything that touches the yield path or the groups it
# walks at once:
#   - stress-ng yield and cpu workers, one per stress-ng instance so that
#     each worker's bogo-ops can be checked;
#   - a knob toggler (knob-fuzz toggle: 1, 0, 1, ... as fast as it can);
#   - the yield_stats module loaded and unloaded in a loop;
#   - cpu cgroups created, workers moved into them and back, removed;
#   - CPU 1 taken offline and back online (with SCY_STRESS_HOTPLUG=1);
#   - workers switched between SCHED_OTHER, SCHED_BATCH, SCHED_IDLE and
#     SCHED_FIFO and reniced while they run.
# Pass: every worker made progress, every churn loop ran without a failed
# round (churn skips workers that exited), the toggler kept writing (its
# rate is reported), kmemleak reports nothing; the host side fails the run
# on any WARNING/BUG/KASAN/UBSAN/lockdep/hung-task report in dmesg and when
# the guest does not shut down by itself (vm/run.sh).
set -u
: "${SCY_BIN:?}" "${SCY_KVER:?}" "${SCY_STRESS_SECONDS:=60}" "${SCY_SHARE_DURATION:=4}"
ST=$SCY_BIN/selftests
TT=$SCY_BIN/tests
knob=/sys/kernel/sched_compat_yield
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# The plan, first: 12 checks of the guest and its configuration, the ABI
# kselftest, 12 share checks, 1 of the matrix, 7 of the knob; of the stress: 2 of the
# stress-ng instances, one per worker (6), the knob toggler's 2 (1 with the
# knob held), one per churn (4; 3 without CPU hotplug), CPU 1 left online
# by the hotplug churn (none without it) and kmemleak.
tests=$((12 + 1 + 12 + 1 + 7 + 2 + 6 + 2 + 4 + 1 + 1))
hotplug=${SCY_STRESS_HOTPLUG:-0}
[[ ${SCY_STRESS_KNOB:-toggle} == toggle ]] || tests=$((tests - 1))
[[ $hotplug == 1 ]] || tests=$((tests - 2))
# SCY_FLAVOR: debug (default), or patched: the same suite on a kernel
# without the debug options, whose checks of them are skipped.
flavor=${SCY_FLAVOR:-debug}
plan $tests
echo "# debug guest: kernel $(uname -r), $(nproc) CPUs, $(cut -d' ' -f1 /proc/uptime) s up"
config=$(zcat /proc/config.gz 2>/dev/null)
for opt in CONFIG_SCHED_COMPAT_YIELD=y CONFIG_KASAN=y CONFIG_PROVE_LOCKING=y \
	CONFIG_PROVE_RCU=y CONFIG_DEBUG_ATOMIC_SLEEP=y CONFIG_UBSAN=y \
	CONFIG_DEBUG_KMEMLEAK=y CONFIG_SCHED_DEBUG=y CONFIG_DEBUG_LIST=y \
	CONFIG_DETECT_HUNG_TASK=y CONFIG_HOTPLUG_CPU=y; do
	case $flavor:$opt in
	debug:* | *:CONFIG_SCHED_COMPAT_YIELD=y | *:CONFIG_HOTPLUG_CPU=y)
		check "the kernel has $opt" grep -qx "$opt" <<<"$config" ;;
	*) skip "the kernel has $opt" "a $flavor kernel, not a debug one" ;;
	esac
done
check "guest sees 2 CPUs" test "$(nproc)" = 2
# kmemleak: stop its periodic scans, scan now and forget what boot left
# (its false positives included), so that the scan at the end reports what
# the tests leaked.
K=/sys/kernel/debug/kmemleak
if [[ -w $K ]]; then
	echo scan=off >$K
	echo scan >$K
	echo clear >$K
fi
echo 1 >/proc/sys/kernel/sched_autogroup_enabled

# share_debug DIR SECONDS: the share kselftest under the debug kernel. Its
# own limits (baseline 50 +- 3 points, yielder <= 1% of the iterations at
# knob 1) are made for production configs and are asserted in the guest
# stage (the baseline's CPU share in the starve stage, under -icount). Under KASAN, lockdep and kmemleak a system call costs several
# times more, and softirq work (the KASAN quarantine, RCU callbacks) is
# charged to whichever task runs, so both shares drift by several points
# (Documentation/results/reliability.md has the figures). So its TAP is
# kept as comments and the same properties are checked with debug
# tolerances: it
# ran every scenario at both knob values, the baseline within 0.50 +- 0.10
# (counter and CPU time), the yielder <= 5% of the iterations at knob 1.
share_debug() {
	local dir=$1 d=$2 t=compat_yield_share tap rc k kind sc v
	tap=$SCY_RESULTS/$t.tap
	if [[ ! -x $dir/$t ]]; then
		not_ok "kselftest $t was not built"
		return
	fi
	echo "# running $t -d $d (its TAP as comments, checked with debug tolerances below)"
	"$dir/$t" -d "$d" >"$tap" 2>&1
	rc=$?
	sed 's/^/#   /' "$tap"
	check "$t ran to completion (exit status $rc: 0 or 1)" test "$rc" -le 1
	result() { grep "^# result scenario=$2 knob=$1 " "$tap"; } # KNOB SCENARIO
	for k in 0 1; do
		check "$t knob=$k: all 6 scenarios ran" \
			test "$(grep -c "^# result .* knob=$k " "$tap")" = 6
		for kind in counter cpu; do
			v=$(field yielder_${kind}_share "$(result $k baseline)")
			check "$t baseline knob=$k: worker 0 $kind share ${v:-missing} within 0.50 +- 0.10" \
				in_range "$v" 0.40 0.60
		done
	done
	# Knob 1 is judged where the same run's knob 0 (the stock yield) gave
	# the yielder more than the limit; where it gave less (6.12 inside one
	# group), the limit cannot tell compat from stock: a SKIP that says so.
	for sc in yield-1hog yield-3hogs yield-session yield-cgroup yield-cgroup-session; do
		v=$(field yielder_counter_share "$(result 1 $sc)")
		v0=$(field yielder_counter_share "$(result 0 $sc)")
		if is_number "$v0" && ! in_range "$v0" 0 0.05; then
			check "$t $sc knob=1: yielder counter share ${v:-missing} <= 0.05, knob 0 gave $v0" in_range "$v" 0 0.05
		elif is_number "$v0"; then
			skip "$t $sc knob=1: yielder counter share ${v:-missing} <= 0.05" \
				"the stock yield already gave $v0 <= 0.05 here, the limit cannot tell compat from stock"
		else
			not_ok "$t $sc knob=1: no knob-0 figure to judge it against (${v0:-missing})"
		fi
	done
}

# matrix_debug DIR: compat_yield_matrix's default set (every placement,
# event and weight: flips of nice, cpu.weight and cpu.idle, sleeping
# rivals, migrations, cgroup trees seven levels deep) under the debug
# options. Its time-away verdicts are for production configs (a debug
# kernel's system calls cost several times more), so its TAP is kept as
# comments; checked: it ended (exit status 0 or 1) with a line for every
# sub-check of its plan. Kernel reports fail the run on the host side, as for
# the whole suite.
matrix_debug() {
	local dir=$1 t=compat_yield_matrix tap rc plan lines
	tap=$SCY_RESULTS/$t.tap
	if [[ ! -x $dir/$t ]]; then
		not_ok "kselftest $t was not built"
		return
	fi
	echo "# running $t -U -d 0.6 (its TAP as comments)"
	"$dir/$t" -U -d 0.6 >"$tap" 2>&1
	rc=$?
	sed 's/^/#   /' "$tap"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | head -1)
	lines=$(grep -cE '^(not )?ok [0-9]+ ' "$tap")
	check "$t: ran to completion (exit status $rc: 0 or 1), a line for each of its ${plan:-?} sub-checks ($lines)" \
		test "$rc" -le 1 -a -n "$plan" -a "$lines" = "${plan:-x}" -a "${plan:-0}" -gt 0
}

# kselftests, as in the normal guest (the share test with debug tolerances)
run_kselftest "$ST" compat_yield_abi
share_debug "$ST" "$SCY_SHARE_DURATION"
matrix_debug "$ST"

# knob fuzzing under KASAN: 2 x SCY_FUZZ_WRITES (default 10000; the normal
# guests do 2 x 10000 too). Each valid write flips the static key, which
# patches kernel text: the slow part here.
knob_fuzz "$TT" "${SCY_FUZZ_WRITES:-10000}"
# SCY_STORM_WRITES (default 10000) concurrent writes of 1 and 0 from 4
# processes, sysfs and sysctl mixed: all succeed, the last written is read
# back, no new kernel report in the kernel log.
knob_storm "$TT" "${SCY_STORM_WRITES:-10000}"
# A SCHED_BATCH yielder alone in its autogroup beside a hog, knob 1: the
# compat yield updates the level above the autogroup, where SCHED_DEBUG
# checks that the rq clock was updated.
yield_own_autogroup "$TT" 2 batch

# the stress
D=$SCY_STRESS_SECONDS
W=$SCY_RESULTS/stress
mkdir -p "$W"
stopf=$W/stop
rm -f "$stopf"
echo "# stress for $D s"
st0=$(cut -d' ' -f1 /proc/uptime)
# stress-ng names its workers stress-ng-yield / stress-ng-cpu (the
# instances' parents keep the plain command line).
# pgrep -f does not find them by those names in the guests (ps lists
# them): read ps's table instead.
workers() { ps -eo pid=,args= | awk -v re="^stress-ng-(${1:-yield|cpu}) " '{ pid = $1; sub(/^ *[0-9]+ /, "") } $0 ~ re { print pid }'; }
running() { # how many of the instances PIDS... have forked a worker
	ps -eo ppid=,args= | awk -v list=" $* " '$2 ~ /^stress-ng-(yield|cpu)$/ && index(list, " " $1 " ") && !seen[$1]++ { n++ } END { print n + 0 }'
}
pids=()
# The instances run until the churn is over and are then stopped with
# SIGINT (stress-ng then prints its metrics and exits with 0); --timeout is
# only a cap. Their own timeout would count from each worker's start, and
# in a debug guest the six take longer to start than a short stress lasts:
# the first ones would end before the last one started, and the churn
# would find no yield worker.
cap=$((D + 900))
for i in 1 2 3 4; do
	stress-ng --yield 1 --timeout "${cap}s" --metrics-brief --temp-path /tmp >"$W/yield-$i.log" 2>&1 &
	pids+=($!)
done
for i in 1 2; do
	stress-ng --cpu 1 --timeout "${cap}s" --metrics-brief --temp-path /tmp >"$W/cpu-$i.log" 2>&1 &
	pids+=($!)
done
# CPU hotplug and the other churn start once every instance has forked its
# worker and stop before the instances are stopped: stress-ng 0.15.06 reads
# /sys/devices/system/cpu at start-up and exit, and a CPU going away under
# it crashed an instance's parent (a user-space segfault in
# stress_dirent_list_free(), on 6.12 with the churn running from the
# start).
for _ in $(seq 240); do
	ready=$(running "${pids[@]}")
	[[ $ready == "${#pids[@]}" ]] && break
	sleep 0.5
done
st1=$(cut -d' ' -f1 /proc/uptime)
CD=$D
echo "# $ready of ${#pids[@]} stress-ng instances running after $(awk -v a="$st0" -v b="$st1" 'BEGIN { printf "%.1f", b - a }') s; churn for $CD s"
# SCY_STRESS_KNOB=0 or 1 holds the knob at that value instead of toggling
# it (to tell whether a report needs the compat path: at 0 the yield path
# is the stock code).
knobmode=${SCY_STRESS_KNOB:-toggle}
if [[ $knobmode == toggle ]]; then
	"$TT/knob-fuzz" toggle -d "$CD" >"$W/toggle.log" 2>&1 &
else
	echo "$knobmode" >$knob
	echo "# knob held at $(cat $knob) during the stress"
	sleep "$CD" &
fi
toggler=$!

# The churn loops write "ROUNDS OPS FAILED" to $W/<name>.count: rounds that
# completed, the operations they did (a round function adds to ops: module
# loads) and rounds that failed; churn adds GONE, the operations skipped
# because the worker had exited.
loop() { # loop NAME CMD...: run CMD until the stop file appears
	local name=$1 c=0 f=0
	ops=0
	shift
	while [[ ! -e $stopf ]]; do
		if "$@" >>"$W/$name.err" 2>&1; then
			c=$((c + 1))
		else
			f=$((f + 1))
		fi
	done
	echo "$c $ops $f" >"$W/$name.count"
}
module_round() {
	[[ -f ${SCY_MODULE:-} ]] || return 1
	insmod "$SCY_MODULE" || return 1
	ops=$((ops + 1))
	cat /sys/kernel/yield_stats/yields >/dev/null && rmmod yield_stats
}
hotplug_round() {
	echo 0 >/sys/devices/system/cpu/cpu1/online && echo 1 >/sys/devices/system/cpu/cpu1/online
}
echo "+cpu" >/sys/fs/cgroup/cgroup.subtree_control
loop module module_round &
loops=($!)
# SCY_STRESS_HOTPLUG=1 adds CPU hotplug (not by default: Debian's 6.12 has
# warned under it with the stock yield, Documentation/results/reliability.md).
if [[ $hotplug == 1 ]]; then
	loop hotplug hotplug_round &
	loops+=($!)
fi
# Cgroup moves and policy changes act on workers that churn finds in /proc
# at each round; it runs as SCHED_FIFO so that a round is short and its
# list of workers still current beside the busy stress-ng processes.
for l in cgroup policy; do
	"$TT/churn" $l -d "$CD" >"$W/$l.count" 2>"$W/$l.err" &
	loops+=($!)
done

# The churn window is the toggler's; then stop the loops, wait for the workers.
wait $toggler
trc=$?
touch "$stopf"
wait "${loops[@]}"
# read before anything puts CPU 1 back: the hotplug churn must have left
# it online (checked below; with hotplug off nothing took it offline)
cpu1_online=$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null)
echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
echo "# churn window: $(awk -v a="$st1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s (guest clock)"
still=0
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null && still=$((still + 1))
done
check "stress: all 6 stress-ng instances still ran when the churn ended ($still)" test $still = 6
kill -INT "${pids[@]}" 2>/dev/null
bad=0
for p in "${pids[@]}"; do
	wait "$p" || bad=$((bad + 1))
done
echo "# stress window: $(awk -v a="$st0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s (guest clock, stress-ng start to exit)"
check "stress: all 6 stress-ng instances exited cleanly" test $bad = 0
for f in "$W"/yield-*.log "$W"/cpu-*.log; do
	ops=$(awk '$4 ~ /^(yield|cpu)$/ && $5 ~ /^[0-9]+$/ { print $5; exit }' "$f")
	name=$(basename "$f" .log)
	echo "# $name: ${ops:-?} bogo-ops"
	check "stress: worker $name made progress (${ops:-0} bogo-ops)" test "${ops:-0}" -gt 0 2>/dev/null
done
if [[ $knobmode == toggle ]]; then
	tog=$(cat "$W/toggle.log")
	echo "# $tog"
	check "stress: knob toggler ran without a failed write" test $trc = 0
	# Each write flips the static key, which patches kernel text and syncs
	# every CPU; a KASAN kernel under TCG manages a few to some tens of
	# flips/s (1000/s would need KVM or hardware). Reported, and checked to
	# be > 0.
	wps=$(sed -n 's/.*writes_per_s=\([0-9]*\).*/\1/p' "$W/toggle.log")
	echo "# knob toggler: ${wps:-0} writes/s"
	check "stress: knob toggler kept writing (${wps:-0} writes/s)" test "${wps:-0}" -gt 0
else
	check "stress: knob still $knobmode after the stress" test "$(cat $knob)" = "$knobmode"
fi
what_module="module loads" what_cgroup="task moves" what_hotplug="offline+online rounds"
what_policy="policy/nice changes"
churns="module cgroup hotplug policy"
if [[ $hotplug != 1 ]]; then
	churns="module cgroup policy"
	echo "# CPU hotplug left out of the stress (SCY_STRESS_HOTPLUG=0)"
fi
for l in $churns; do
	c=0 o=0 f=0 g=
	[[ -f $W/$l.count ]] && read -r c o f g <"$W/$l.count"
	what=what_$l
	[[ $l == hotplug ]] && o=$c
	echo "# $l churn: ${c:-0} rounds, ${o:-0} ${!what}, ${f:-0} failed rounds${g:+, $g skipped (worker gone)}; first errors: $(head -c 300 "$W/$l.err" 2>/dev/null | tr '\n' ' ')"
	check "stress: $l churn ran (${c:-0} rounds, ${o:-0} ${!what}, ${f:-0} failed)" \
		test "${c:-0}" -gt 0 -a "${o:-0}" -gt 0 -a "${f:-0}" = 0
done
if [[ $hotplug == 1 ]]; then
	check "stress: the hotplug churn left CPU 1 online (${cpu1_online:-unreadable})" test "${cpu1_online:-}" = 1
fi

if [[ -w $K ]]; then
	echo scan >$K
	echo scan >$K
	leaks=$(grep -c 'unreferenced object' $K)
	[[ $leaks == 0 ]] || head -n 40 $K | sed 's/^/# /'
	check "kmemleak: no unreferenced objects ($leaks)" test "$leaks" = 0
elif [[ $flavor == debug ]]; then
	not_ok "kmemleak: $K missing"
else
	skip "kmemleak: no unreferenced objects" "a $flavor kernel, without kmemleak"
fi
