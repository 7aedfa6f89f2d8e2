#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test guest (vm/guest-init starts it through vm/run.sh).
# Checks the guest itself, the series' knob and tracepoint and the yield
# statistics module, then runs the kselftests. Output is TAP, plan first:
# each block below is a nested document with its own plan first and one
# test of the suite (tap.sh's subtest), each kselftest is nested too.
set -u
: "${SCY_BIN:?}" "${SCY_KVER:?}" "${SCY_FLAVOR:=patched}" "${SCY_SHARE_DURATION:=4}"
# SCY_FLAVOR: patched, debconfig (the series with Debian's configuration),
# stock, debian or livepatch (Debian's kernel with the livepatch, which
# vm/guest-init loaded): the knob's checks run where the knob is (patched,
# debconfig, livepatch), the tracepoint's where the series is built in.
has_knob=0 tp=0
case $SCY_FLAVOR in
patched | debconfig) has_knob=1 tp=1 ;;
livepatch) has_knob=1 ;;
esac
ST=$SCY_BIN/selftests
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

echo "# guest: kernel $(uname -r), $(nproc) CPUs, $(cut -d' ' -f1 /proc/uptime) s up"
# The kernel's configuration: /proc/config.gz, or the file the host names
# (Debian's kernels have no /proc/config.gz).
config=$(zcat /proc/config.gz 2>/dev/null || cat "${SCY_KCONFIG:-/dev/null}" 2>/dev/null)
has() { grep -qx "$1" <<<"$config"; }
knob=/sys/kernel/sched_compat_yield
event=/sys/kernel/tracing/events/sched/sched_yield_fair
# the blocks and the three kselftest runs
plan 10

guest_block() {
	plan 11
	check "guest sees at least 2 CPUs" test "$(nproc)" -ge 2
	check "kernel is Debian's $SCY_KVER" test "${SCY_KVER}" = "$(uname -r | cut -d. -f1,2)"
	for opt in CONFIG_HZ_250=y CONFIG_PREEMPT_VOLUNTARY=y CONFIG_PREEMPT_DYNAMIC=y \
		CONFIG_FAIR_GROUP_SCHED=y CONFIG_SCHED_AUTOGROUP=y CONFIG_SCHEDSTATS=y; do
		check "config has $opt" has "$opt"
	done
	check "autogroup sysctl present" test -f /proc/sys/kernel/sched_autogroup_enabled
	check "cgroup v2 offers the cpu controller" grep -qw cpu /sys/fs/cgroup/cgroup.controllers
	check "loopback is up" bash -c "ip -o link show lo | grep -q UP"
}

knob_block() {
	if [[ $has_knob == 1 ]]; then
		plan 16
		if [[ $SCY_FLAVOR == livepatch ]]; then
			check "the livepatch is enabled and every task runs it" \
				test "$(cat /sys/kernel/livepatch/livepatch_compat_yield/enabled 2>/dev/null)$(cat /sys/kernel/livepatch/livepatch_compat_yield/transition 2>/dev/null)" = 10
		else
			check "config has CONFIG_SCHED_COMPAT_YIELD=y" has CONFIG_SCHED_COMPAT_YIELD=y
		fi
		# The boot parameter sets the initial value (tests/guest.sh boots the
		# 6.1 guest with sched_compat_yield=1); nothing has changed it yet.
		boot=$(sed -n 's/.*sched_compat_yield=\([01]\).*/\1/p' /proc/cmdline)
		check "knob $knob exists, ${boot:-0} at boot (sched_compat_yield=${boot:-absent})" \
			test "$(cat $knob 2>/dev/null)" = "${boot:-0}"
		# The sysctl is there with CONFIG_SCHED_COMPAT_YIELD_SYSCTL=y (the
		# small patched guests), or the livepatch loaded with sysctl=1;
		# otherwise it must be absent, as on a stock kernel.
		sysctl=0
		has CONFIG_SCHED_COMPAT_YIELD_SYSCTL=y && sysctl=1
		[[ $SCY_FLAVOR != livepatch ]] ||
			sysctl=$(tr YN 10 </sys/module/livepatch_compat_yield/parameters/sysctl)
		if [[ $sysctl == 1 ]]; then
			check "sysctl kernel.sched_compat_yield agrees" \
				test "$(cat /proc/sys/kernel/sched_compat_yield 2>/dev/null)" = "${boot:-0}"
		else
			check "no sysctl kernel.sched_compat_yield (CONFIG_SCHED_COMPAT_YIELD_SYSCTL is not set)" \
				test ! -e /proc/sys/kernel/sched_compat_yield
		fi
		echo 0 >$knob
		# Documentation/admin-guide.md, sections 2 and 5, as an admin types them.
		echo 1 > /sys/kernel/sched_compat_yield
		check "admin guide: echo 1 > /sys/kernel/sched_compat_yield turns it on" test "$(cat $knob)" = 1
		echo 0 > /sys/kernel/sched_compat_yield
		check "admin guide: echo 0 > /sys/kernel/sched_compat_yield rolls back" test "$(cat $knob)" = 0
		if [[ $sysctl == 0 ]]; then
			skip "admin guide: sysctl -w kernel.sched_compat_yield=1 turns it on" "this kernel has no kernel.sched_compat_yield"
			skip "admin guide: a sysctl.d file is read by sysctl -p" "this kernel has no kernel.sched_compat_yield"
		elif command -v sysctl >/dev/null 2>&1; then
			sysctl -q -w kernel.sched_compat_yield=1
			check "admin guide: sysctl -w kernel.sched_compat_yield=1 turns it on" test "$(cat $knob)" = 1
			# the line the guide puts in /etc/sysctl.d/90-compat-yield.conf
			echo 'kernel.sched_compat_yield = 0' >/tmp/90-compat-yield.conf
			sysctl -q -p /tmp/90-compat-yield.conf
			check "admin guide: 'kernel.sched_compat_yield = 0' in a sysctl.d file is read by sysctl -p" \
				test "$(cat $knob)" = 0
		else
			skip "admin guide: sysctl -w kernel.sched_compat_yield=1 turns it on" "no sysctl command"
			skip "admin guide: a sysctl.d file is read by sysctl -p" "no sysctl command"
		fi
		knob_refuses $knob 2 "admin guide"
		# 2 x 10000 random writes (valid values, near misses, random bytes up
		# to a page) to the sysfs file and the sysctl, and non-root writes.
		knob_fuzz "$SCY_BIN/tests" 10000
		# SCY_STORM_WRITES (default 10000) writes of 1 and 0 from 4 processes
		# at once, two through the sysfs file and two through the sysctl: every
		# write succeeds, the last one written is what both files read, and the
		# kernel logs no warning (the setter serialises its static key flips).
		knob_storm "$SCY_BIN/tests" "${SCY_STORM_WRITES:-10000}"
		# A SCHED_BATCH yielder alone in its autogroup: stock yield_task_fair()
		# updates neither the rq clock nor curr for SCHED_BATCH, and the compat
		# yield acts at the level above the autogroup, beside a hog.
		yield_own_autogroup "$SCY_BIN/tests" 2 batch
		# The series adds a bare tracepoint, without a trace event (no tracefs
		# ABI); yield_stats defines the event (checked below).
		check "no trace event sched:sched_yield_fair without yield_stats (the tracepoint is bare)" \
			test ! -e $event
	else
		plan 1
		check "stock kernel has no knob" test ! -e $knob
	fi
}

# The yield statistics module (module/): counts, reset, load/unload.
S=/sys/kernel/yield_stats
module_block() {
	if [[ -f ${SCY_MODULE:-} ]]; then
		# yield-stats-test at each knob value there is
		knobs=(keep)
		[[ $has_knob == 1 ]] && knobs=(0 1)
		# 22 checks with the series' tracepoint, 12 without, and yield-stats-test
		if [[ $tp == 1 ]]; then plan $((22 + ${#knobs[@]})); else plan $((12 + ${#knobs[@]})); fi
		get() { cat $S/"$1" 2>/dev/null; }
		check "yield_stats loads" insmod "$SCY_MODULE"
		check "/sys/kernel/yield_stats holds exactly the files sysfs-abi/sysfs-kernel-yield_stats documents" \
			test "$(ls $S | sort | tr '\n' ' ')" = \
			"$(sed -n 's#^What:[[:space:]]*/sys/kernel/yield_stats/##p' sysfs-abi/sysfs-kernel-yield_stats | sort | tr '\n' ' ')"
		check "yield_stats sysfs modes: counters 0444, reset 0200, filter_pid 0644" \
			test "$(stat -c %a $S/yields $S/reset $S/filter_pid 2>/dev/null | tr '\n' ' ')" = "444 200 644 "
		if [[ $tp == 1 ]]; then
			check "yield_stats sees the sched_yield_fair_tp tracepoint" test "$(get compat_available)" = 1
			# The module's trace event reports each yield, with compat=1 only while
			# the knob is 1.
			check "yield_stats defines the trace event sched:sched_yield_fair" test -d $event
			if [[ -d $event && -x $SCY_BIN/yield-share ]]; then
				T=/sys/kernel/tracing
				for k in 0 1; do
					# the knob starts at the other value, which
					# yield-share must put back
					echo $((1 - k)) >$knob
					echo 0 >$T/tracing_on
					echo >$T/trace
					echo 1 >$event/enable
					echo 1 >$T/tracing_on
					"$SCY_BIN/yield-share" -d 1 -n 1 -k $k -f kv >/dev/null 2>&1
					echo 0 >$T/tracing_on
					echo 0 >$event/enable
					c1=$(grep -c 'sched_yield_fair:.* compat=1' $T/trace)
					c0=$(grep -c 'sched_yield_fair:.* compat=0' $T/trace)
					echo "# knob=$k: $c1 yields traced with compat=1, $c0 with compat=0"
					if [[ $k == 1 ]]; then
						check "knob 1: yields traced with compat=1" test "$c1" -gt 0
					else
						check "knob 0: yields traced, none with compat=1" test "$c0" -gt 0 -a "$c1" -eq 0
					fi
					check "yield-share -k $k put the knob back to $((1 - k))" test "$(cat $knob)" = $((1 - k))
				done
				echo 0 >$knob
			else
				for k in 0 1; do
					skip "knob $k: yields traced by the module's event" "no event directory $event or no yield-share"
					skip "yield-share -k $k put the knob back to $((1 - k))" "not run"
				done
			fi
			# yield-share reads the counters at the edges of its
			# measured window (after the warm-up): the counts below
			# are the window's, while the workers ran side by side
			echo 1 >$S/reset
			kv=$("$SCY_BIN/yield-share" -d 1 -n 1 -k 1 -f kv 2>&1)
			mline=$(grep '^module yields=' <<<"$kv")
			echo "# yield-share: $mline"
			y=$(field yields "$mline") e=$(field effective "$mline") c=$(field compat "$mline")
			yc=$(field yielder_counter "$(grep '^scenario=' <<<"$kv")")
			# The counters are files read one after another while the
			# yielder runs (yield-share reports the yields made
			# meanwhile, edge_yields), and a yield's outcome is counted
			# when the yielder runs again (one in flight at each edge).
			ey=$(field edge_yields "$mline")
			edge=$((2 + ${ey:-0}))
			# The yielder's loop counter and the module count the same
			# yields in the window: both are read at its edges, the
			# module's yields counter just before and after the loop
			# counters; other tasks of the guest seldom yield.
			check "the module's yields in yield-share's window match the yielder's loop count ($y against $yc, $edge at the edges)" \
				awk -v y="$y" -v n="$yc" -v d="$edge" 'BEGIN { exit !(n > 0 && y >= n - d - n / 50 && y <= n + d + n / 50) }'
			# The same with the module's counters read 60 ms late at the
			# window's end, as when the host stalls the measuring vCPU
			# while the yielder's runs: the edge counts the yields of
			# the gap (about 15 here), so the match holds.
			kv=$("$SCY_BIN/yield-share" -d 1 -n 1 -k 1 -f kv --late-edge 60 2>&1)
			lline=$(grep '^module yields=' <<<"$kv")
			echo "# yield-share --late-edge 60: $lline"
			ly=$(field yields "$lline") ley=$(field edge_yields "$lline")
			lyc=$(field yielder_counter "$(grep '^scenario=' <<<"$kv")")
			check "... and with the module read 60 ms after the window ($ly against $lyc, $((2 + ${ley:-0})) at the edges)" \
				awk -v y="$ly" -v n="$lyc" -v d="$((2 + ${ley:-0}))" 'BEGIN { exit !(n > 0 && y > 0 && y >= n - d - n / 50 && y <= n + d + n / 50) }'
			# The effective share is judged where guest time cannot
			# stall (the one-CPU -icount guest, tests/starve-suite.sh):
			# here a stall of the guest charged to the hog leaves the
			# yielder more lag than a compat yield gives up on EEVDF,
			# and it is picked again at once until that is spent.
			why="guest time can stall here ($(field stalls "$mline") stalls, $(field stall_ms "$mline") ms seen); judged in the one-CPU -icount guest"
			echo "# knob 1, 1 hog, since the reset: yields=$(get yields) effective=$(get effective) compat=$(get compat) ineffective=$(get ineffective) lost=$(get lost)"
			skip "yield-share reports the module's effective share, >= 0.99 ($(field effective_share "$mline"))" "$why"
			skip "knob 1, 1 hog: >= 99% of the yields were effective ($e of $y)" "$why"
			# These counters take every task's yields (no filter_pid).
			# yield-stats-test below checks exact counts for one task
			# against an always-runnable hog.
			check "knob 1: >= 99% of the window's yields applied compat less $edge at the edges ($c of $y)" \
				test "${y:-0}" -gt 0 -a $((100 * (${c:-0} + edge))) -ge $((99 * ${y:-1})) -a "${c:-0}" -le $((${y:-0} + edge))
		else
			check "yield_stats on a stock kernel: compat unavailable" test "$(get compat_available)" = 0
		fi
		# counted from zero: the runs above may have left ineffective yields
		lone_yields_ineffective $S "$SCY_BIN/yield-share" -d 1 -n 0 -f kv
		echo 1 >$S/reset
		check "reset zeroes the counters" test "$(get yields)$(get effective)$(get ineffective)" = 000
		check "reset refuses anything but 1" bash -c "! echo 2 >$S/reset"
		# Exact counts with filter_pid (alone, against a hog, against another
		# yielder, two threads), reset and filter_pid refused to uid 65534:
		# userspace/yield-stats-test, at each knob value.
		for k in "${knobs[@]}"; do
			echo "# running yield-stats-test -n 500 -k $k"
			"$SCY_BIN/yield-stats-test" -n 500 -k "$k" -U >"$SCY_RESULTS/yield-stats-test-$k.tap" 2>&1
			rc=$?
			sed 's/^/  /' "$SCY_RESULTS/yield-stats-test-$k.tap"
			check "yield-stats-test -k $k passed (exit status $rc)" test $rc = 0
		done
		# its last case's groups, per cgroup, as an admin sees them
		"$SCY_BIN/yield-top" -n 5 >"$SCY_RESULTS/yield-top.txt" 2>&1
		rc=$?
		sed 's/^/# /' "$SCY_RESULTS/yield-top.txt"
		check "yield-top lists the groups of yield-stats-test's last case, most yields first (exit status $rc)" \
			awk -v rc=$rc 'NR == 1 && /cgroup$/ { h = 1 } NR > 1 { n++; y[n] = $1 }
				END { exit !(rc == 0 && h && n >= 2 && y[1] >= y[2]) }' "$SCY_RESULTS/yield-top.txt"
		check "yield_stats unloads" rmmod yield_stats
		# Load and unload while stress-ng yields on both CPUs; the guest's dmesg
		# is checked for warnings and oopses by vm/run.sh. stress-ng writes its
		# temporary files to the working directory, read-only here: /tmp.
		cycles=${SCY_MODULE_CYCLES:-20}
		leak=/sys/kernel/debug/kmemleak
		kml=0
		if has CONFIG_DEBUG_KMEMLEAK=y && [[ -w $leak ]]; then
			kml=1
			echo clear >$leak
		fi
		stress-ng --temp-path /tmp --yield 2 --timeout 600 --metrics-brief >"$SCY_RESULTS/stress-ng.log" 2>&1 &
		sp=$!
		bad=0 t0=$(date +%s.%N)
		for i in $(seq "$cycles"); do
			insmod "$SCY_MODULE" && rmmod yield_stats || bad=$((bad + 1))
		done
		secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		check "stress-ng --yield ran through the load/unload cycles" kill -0 $sp
		kill $sp 2>/dev/null
		wait $sp 2>/dev/null
		sed 's/^/# /' "$SCY_RESULTS/stress-ng.log"
		check "$cycles load/unload cycles under stress-ng --yield in $secs s ($bad failed)" test $bad = 0
		if [[ $kml == 1 ]]; then
			# kmemleak reports objects at least 5 s old, after two scans
			echo scan >$leak
			echo scan >$leak
			leaks=$(grep -c 'unreferenced object' $leak)
			check "kmemleak: no leak after the load/unload cycles ($leaks)" test "$leaks" = 0
		else
			skip "kmemleak after the load/unload cycles" "kernel without CONFIG_DEBUG_KMEMLEAK (the debug guests have it)"
		fi
	else
		plan 1
		not_ok "module/yield_stats.ko was not built"
	fi
}

# The ping-pong sweep at its smallest (the figures: make bench-pingpong).
# It checks the script, not the kernel, and takes about 20 s under TCG on
# a loaded host: in the guest of the patched 6.12 only.
pingpong_block() {
	if [[ $SCY_KVER != 6.12 || $SCY_FLAVOR != patched ]]; then
		plan 1
		skip "bench/pingpong/guest.sh at its smallest" "it checks the script: run in the guest of the patched 6.12 only"
	elif [[ -x $SCY_BIN/pingpong ]]; then
		plan 2
		pp=$(mktemp -d)
		prior=$(cat $knob 2>/dev/null)
		want=9
		[[ -e $knob ]] && want=18
		SCY_BIN=$SCY_BIN bash "$(dirname "$0")/../bench/pingpong/guest.sh" -F fig2 -r 1 -n 5 \
			-o "$pp" 2>"$pp/err"
		rc=$?
		rows=$(($(wc -l <"$pp/pingpong.csv" 2>/dev/null || echo 1) - 1))
		check "bench/pingpong/guest.sh -F fig2 -r 1 -n 5: $want runs ($rows, exit status $rc)" \
			test "$rc" = 0 -a "$rows" = "$want"
		[[ $rc == 0 ]] || sed 's/^/# /' "$pp/err" | tail -n 5
		check "bench/pingpong/guest.sh put the knob back (${prior:-absent})" \
			test "$(cat $knob 2>/dev/null)" = "$prior"
		rm -rf "$pp"
	else
		plan 1
		not_ok "userspace/pingpong was not built"
	fi
}

# The trace-cmd recipe of Documentation/tracing.md, as written there.
tracing_block() {
	if [[ $tp == 1 && -e $knob ]]; then
		. "$(dirname "${BASH_SOURCE[0]}")/guest-tracing.sh"
	else
		plan 1
		skip "Documentation/tracing.md recipe" "a kernel without the series' tracepoint"
	fi
}

# The Slurm plugin, srun/sbatch --compat-yield (tests/guest-spank.sh), on
# the kernels with cpu.compat_yield: the series (patched, debconfig) and
# Debian's with the livepatch; of those, the guests SCY_SPANK_GUESTS names
# ("KVER-FLAVOR ...", or all).
spank_block() {
	if [[ $has_knob != 1 || ! $SCY_FLAVOR =~ ^(patched|debconfig|livepatch)$ ]]; then
		plan 1
		skip "the Slurm plugin: --compat-yield sets the job's cpu.compat_yield" "a kernel without cpu.compat_yield"
		return
	fi
	local guests=${SCY_SPANK_GUESTS:-all}
	if [[ $guests != all && " $guests " != *" $SCY_KVER-$SCY_FLAVOR "* ]]; then
		plan 1
		skip "the Slurm plugin: --compat-yield sets the job's cpu.compat_yield" \
			"run in the guests of $guests only (SCY_SPANK_GUESTS; make check-full: all)"
		return
	fi
	. "$(dirname "${BASH_SOURCE[0]}")/guest-spank.sh"
}

# The livepatch (livepatch/) in the guests of Debian's kernels with it.
livepatch_block() {
	if [[ $SCY_FLAVOR == livepatch ]]; then
		. "$(dirname "${BASH_SOURCE[0]}")/guest-livepatch.sh"
	else
		plan 1
		skip "the livepatch: refusals, load/disable/unload cycles" "not a livepatch guest"
	fi
}

subtest "the guest and its kernel's configuration" guest_block
subtest "the knob: sysfs, sysctl, admin guide, fuzzing, concurrent writers, SCHED_BATCH" knob_block
subtest "yield_stats: counts, trace event, reset, load/unload under stress" module_block
subtest "bench/pingpong/guest.sh at its smallest" pingpong_block
subtest "the Slurm plugin: srun and sbatch --compat-yield, a site default" spank_block
subtest "Documentation/tracing.md's trace-cmd recipe" tracing_block
subtest "the livepatch: taint, refusals, cycles under stress, stock yield after unloading" livepatch_block
# kselftests
run_kselftest "$ST" compat_yield_abi
# compat_yield_share's loop-counter shares; its baselines' CPU share, which
# a stall of the host moves (it is charged to the worker that ran through
# it), is a SKIP here (-U) and judged under -icount (the starve stage).
run_kselftest "$ST" compat_yield_share -U -d "$SCY_SHARE_DURATION" -o "$SCY_RESULTS/share-$SCY_KVER.csv"
# The contract over the matrix's default cells, 0.6-s windows (about 100 s
# in a guest of single-threaded TCG). Guest time here is the host's to
# stall: the time away, G1 and the CPU shares are reported, not judged
# (-U), and the loop-counter share, which a stall shorter than the window
# leaves far below its limit, is judged (a SKIP after a longer one). The patched kernels' one-CPU -icount guests judge all of it in
# every cell but the migrate ones (tests/starve.sh), so their plain guests
# run the migrate cells only; the others (Debian's configuration, the
# livepatch) run every cell, but the livepatch, in make check
# (SCY_GUEST_MATRIX unset), those of the session, cgroup and nested
# placements: its one-CPU -icount guest judges the entity placement's
# cells and the flips of the same-group and cgroup-root ones
# (tests/guest-livepatch-icount.sh); with SCY_GUEST_MATRIX=all (make
# check-full) every default cell. All SKIP without the knob.
matrix_cells=()
[[ $SCY_FLAVOR == patched ]] && matrix_cells=(-c 'event=migrate$')
if [[ $SCY_FLAVOR == livepatch ]]; then
	matrix_cells=(-c '^[0-9]+ (session|cgroup|nested) ')
	[[ ${SCY_GUEST_MATRIX:-} == all ]] && matrix_cells=(-c '^[0-9]+ (same|session|cgroup|nested|cgroup-root) ')
fi
run_kselftest "$ST" compat_yield_matrix -U -d 0.6 "${matrix_cells[@]}" -o "$SCY_RESULTS/matrix-$SCY_KVER.csv"
