#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stalls.sh KVER: the matrix's time away, net of the guest's stalls. Boots
# the patched KVER kernel under single-threaded TCG, as make check's guests
# run, and measures one matrix cell of the full set (the same group as a
# nice-0 rival, no event: a yield waits a tick or two on either kernel)
# with compat_yield_matrix -S while the host stops QEMU for
# SCY_STALL_MS (default 60), lets it run SCY_STALL_PERIOD_MS (default
# 240), and so on: a descheduled QEMU, made on purpose. Checks that the stalls reached the
# samples of the knob-1 window (its longest sample as measured holds
# one), that -S took them out (that window's longest sample judged is
# shorter than the longest measured by at least half a stall: a stall is
# seen from when the main process was due to wake, so up to its 5-ms
# period of each stays in) and that the cell's time passes. The knob-1
# window: there the yielder runs about 1% of the time, so a stop seldom
# falls while it runs. One that does is charged to it and paid back by a
# later wait that spans no stall; -S leaves that sample out (the yielder
# reads its run time after each yield); then, in a guest whose kernel
# spins in some compat yields (scy_fault=spin:20), charged to the yielder
# as such a stop, that the samples paying it back are left out and the
# cell passes; and, in a guest whose kernel keeps every compat
# yield 50 ms longer (scy_fault=delay:1), that -S keeps that wait and the
# cell fails. The fault's 50 ms are its rivals' running time in guest
# time, which a stall of the guest is part of (the task that ran through
# it is charged it): -S takes out of a sample the stalls it spans, so its
# net is 50 ms less those. The host measures the part of the knob-1
# window (the matrix's -M marks it) that QEMU's vCPU thread was on a CPU
# (/proc/PID/task/TID/schedstat against the time that passed), and the
# knob-1 p50 net of the stalls must keep half of that part of the 50 ms.
# The window's own part, not the run's: a busy host's load comes and
# goes, and the run's average can stop QEMU less than the window's
# samples saw. Half: -S also takes out its probe's late wake-ups while
# the guest ran (compat_yield_matrix.c says why it cannot tell them from
# stalls): in the 6.1 guest, host otherwise idle, 25-55 wake-ups of
# 1-9 ms per 1.2-s window, and a fault's sample that spanned 15 ms of
# them lasted no longer than the others; 293 ms taken out of a window in
# which the vCPU thread was off a CPU for 65 ms, and the median 46.5 ms
# against 47.2 at the whole part. A median: a sample across one of the
# 60-ms stops loses most of its wait, and tests/stalls-model.py (run by
# tests/host.sh) shows the check holding beside a busy host's short
# stalls and those late wake-ups, and failing on -S that takes out whole
# samples; smaller errors of -S it does not see. Prints TAP. Not a cell with a SCHED_IDLE rival:
# one that runs through a stall is charged all of it, 341 times over in
# its vruntime, and moves the rivals' average vruntime by about the
# stall's length; the 6.12 compat yield gives up at most a turn of each
# rival of it, but the cell is here to test -S, not the rule.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
# TCG wherever KVM works too: under KVM the host's preemption of a vCPU
# would be a stall -S takes out, which this stage does not model.
export SCY_ACCEL=tcg SCY_TCG_THREAD=single
# QEMU at nice -10: the probe of -S wakes on a timer that QEMU's main-loop
# thread delivers. Where the host's other load delays that thread while
# the vCPU thread runs, -S takes the late wake-up for a stall of the
# whole guest and takes genuine wait out (stress-ng --fork 2 beside this
# stage at nice 0: 405 ms taken out of a 1.2-s knob-1 window in which
# the vCPU thread was off a CPU for 180 ms, and check 8 red). The stage
# tests -S against the stops it makes; that weakness of -S is stated in
# compat_yield_matrix.c.
export SCY_QEMU_NICE=-10

kver=${1:?usage: stalls.sh KVER}
stall_ms=${SCY_STALL_MS:-60}
period_ms=${SCY_STALL_PERIOD_MS:-240}
[[ $stall_ms =~ ^[1-9][0-9]*$ && $period_ms =~ ^[1-9][0-9]*$ ]] ||
	die "SCY_STALL_MS and SCY_STALL_PERIOD_MS must be numbers of milliseconds"
out=$RESULTS/stalls-$kver
kdir=$(kernel_get "$kver-patched")
make -s -C "$SCY_REPO" selftests RESULTS="$RESULTS" >&2

# oncpu PID: the time the vCPU thread of QEMU process PID has been on a
# CPU, ns: "ALL CPUs/TCG" under single-threaded TCG (vm/run.sh names
# QEMU's threads). The guest runs there and nowhere else; QEMU's main
# loop and I/O workers run beside it, on the host's other CPU, and their
# time is not the guest's.
oncpu() {
	local t c ns s=0
	for t in /proc/"$1"/task/*; do
		read -r c <"$t/comm" 2>/dev/null || continue
		[[ $c == */TCG ]] || continue
		read -r ns _ <"$t/schedstat" 2>/dev/null || continue
		s=$((s + ns))
	done
	echo "$s"
}

# qemu_pid: QEMU's pid, once vm/run.sh has written it
qemu_pid() {
	while [[ ! -s $out/qemu.pid ]]; do
		sleep 0.1
	done
	cat "$out/qemu.pid"
}

# inject: while the guest's marker file exists, stop QEMU for stall_ms,
# then let it run for period_ms, one stop after the other; counts the
# stops into $out/injected. The loop runs at QEMU's nice and times each
# stop from the start of the one before it: at nice 0, its sleeps' ends
# and forks late beside a busy host's load, it made 12-13 stops in 6 s
# instead of 20 (stress-ng --cpu 6 beside it), and a 0.6-s knob-1
# window held a single stop, which fell while the yielder ran.
inject() {
	local pid stops=0 next now
	[[ -z ${no_stops:-} ]] || return 0
	renice -n "$SCY_QEMU_NICE" -p "$BASHPID" >/dev/null
	pid=$(qemu_pid)
	next=
	while kill -0 "$pid" 2>/dev/null; do
		if [[ -e $out/inject ]]; then
			now=${EPOCHREALTIME/./}
			[[ -n $next ]] && ((next > now)) || next=$now
			kill -STOP "$pid" 2>/dev/null || break
			usleep_until $((next + stall_ms * 1000))
			kill -CONT "$pid" 2>/dev/null || break
			stops=$((stops + 1))
			echo "$stops" >"$out/injected"
			next=$((next + (stall_ms + period_ms) * 1000))
			usleep_until "$next"
		else
			next=
			sleep 0.05
		fi
	done
}
# usleep_until T: sleep until EPOCHREALTIME, in microseconds, reaches T
usleep_until() {
	local d=$(($1 - ${EPOCHREALTIME/./})) us
	((d > 0)) || return 0
	printf -v us '%06d' $((d % 1000000))
	sleep "$((d / 1000000)).$us"
}

# oncpu_k1: while the matrix's knob-1 marker (-M) exists, the vCPU thread's
# time on a CPU and the time that passed; their sums over the knob-1 windows (ns)
# into $out/ran as "wall oncpu". Polls every 10 ms: a few ms at each edge
# of a window of a second or more.
oncpu_k1() {
	local pid t0='' c0='' wall=0 cpu=0 t1 c1
	pid=$(qemu_pid)
	while kill -0 "$pid" 2>/dev/null; do
		if [[ -e $out/k1 && -z $t0 ]]; then
			t0=$(date +%s%N)
			c0=$(oncpu "$pid")
		elif [[ ! -e $out/k1 && -n $t0 ]]; then
			t1=$(date +%s%N)
			c1=$(oncpu "$pid")
			if ((c1 >= c0)); then
				wall=$((wall + t1 - t0))
				cpu=$((cpu + c1 - c0))
				echo "$wall $cpu" >"$out/ran"
			fi
			t0=''
		fi
		sleep 0.01
	done
}

# run_stalled NAME SECONDS APPEND [red]: the cell, windows of SECONDS, in a
# guest booted with APPEND on the kernel's command line, QEMU stopped as
# above; its files in $out-NAME. Two checks (the guest's verdict); with "red" the cell must
# fail, its TAP is shown as comments and the guest's suite passes when the
# matrix failed its tests (exit status 1). Sets k1 to the knob-1 window's
# "p50 p99 max max_raw stalled" (us), empty when there is none, and ran to
# "wall oncpu" (ns) of QEMU while the knob-1 window measured.
run_stalled() {
	local o=$out-$1 dur=$2 rc=0 ipid mpid
	shift
	mkdir -p "$o"
	rm -f "$o/inject" "$o/k1" "$o/stalls.csv" "$o/stalls.tap" "$o/injected" "$o/ran"
	out=$o inject &
	ipid=$!
	out=$o oncpu_k1 &
	mpid=$!
	bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$o" --timeout 600 --append "$2" -- \
		bash -c 'touch /tmp/results/inject
			"$1" -F -S -d "$4" -c "$2" -M /tmp/results/k1 -o /tmp/results/stalls.csv >/tmp/results/stalls.tap 2>&1
			r=$?
			rm -f /tmp/results/inject
			if [[ $3 == red ]]; then
				sed "s/^/# /" /tmp/results/stalls.tap
				echo "# compat_yield_matrix exit status $r (1: a test failed)"
				[[ $r == 1 ]]
				exit
			fi
			cat /tmp/results/stalls.tap
			exit $r' - "$RESULTS/bin/selftests/compat_yield_matrix" "$cell" "${3:-}" "$dur" || rc=$?
	kill "$ipid" "$mpid" 2>/dev/null || true
	wait "$ipid" "$mpid" 2>/dev/null || true
	echo "# QEMU stopped for ${stall_ms} ms, then run for ${period_ms} ms, in turn: $(cat "$o/injected" 2>/dev/null || echo 0) stops"
	guest_verdict "$o" "$rc" "a guest of $kver-patched${2:+ ($2)} stopped by the host${3:+ (its cell must fail)}"
	# line 1: the knob-1 window; line 2: the window whose longest sample
	# as measured is the longest, with its name
	local wins
	wins=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
f = ("p99_us", "max_us", "max_raw_us", "stalled_us", "repaid")
for r in rows:
    if r["window"] == "k1":
        print(r["p50_us"], *(r.get(k, "-") for k in f))
if rows:
    r = max(rows, key=lambda r: float(r["max_raw_us"]))
    print(r["window"], *(r.get(k, "-") for k in f))
' "$o/stalls.csv" 2>/dev/null || true)
	k1=
	if (($(wc -l <<<"$wins") == 2)); then k1=$(sed -n 1p <<<"$wins"); fi
	caught=
	[[ -z $k1 ]] || caught="k1 $(cut -d' ' -f2- <<<"$k1")"
	ran=$(cat "$o/ran" 2>/dev/null || true)
}

plan 13
cell='same rivals=nice0 event=none$'
run_stalled plain 0.6 ""
if [[ -z $k1 || -z $caught ]]; then
	fail_to 5 "no knob-1 window in $out-plain/stalls.csv"
else
	# the knob-1 window's: 0.6 s, two stops or more
	read -r win p99 mx raw stalled _ <<<"$caught"
	check "the stalls reached the samples: the $win window's max as measured ${raw} us >= 3/4 of a stall ($stall_ms ms), ${stalled} us taken out" \
		awk -v r="$raw" -v s="$stall_ms" -v t="$stalled" 'BEGIN { exit !(r >= 750 * s && t > 0) }'
	check "-S took them out: the $win window's max ${mx} us (p99 ${p99} us) <= the max as measured minus half a stall" \
		awk -v m="$mx" -v r="$raw" -v s="$stall_ms" 'BEGIN { exit !(m <= r - 500 * s) }'
	check "the cell's time line is ok" grep -qE '^ok [0-9]+ cell .*: time away' "$out-plain/stalls.tap"
fi
# -S keeps a genuine wait: with every compat yield kept 50 ms longer by the
# kernel (scy_fault=delay:1, vm/fault-patches), the stalls are taken out
# and at least half the part of the 50 ms that QEMU ran stays (see the
# top). Windows of 1.2 s: some 20 samples of the fault's wait for the
# median. A stop every 600 ms there (as -S sees one, with the guest's lag
# after it, some 80 ms): a stop reaches two or three samples of about
# 55 ms, and the median must fall among those that no stop reached, as
# it does in tests/stalls-model.py.
period_ms=600 run_stalled delay 1.2 "scy_fault=delay:1" red
if [[ -z $k1 || -z $ran ]]; then
	fail_to 9 "no knob-1 window in $out-delay/stalls.csv, or no time of QEMU on a CPU in $out-delay/ran"
else
	read -r p50 p99 mx raw stalled _ <<<"$k1"
	read -r wall oncpu <<<"$ran"
	keep=$(awk -v w="$wall" -v c="$oncpu" 'BEGIN { f = c / w; if (f > 1) f = 1; printf "%.1f", 25000 * f }')
	check "-S keeps a genuine wait: with every compat yield 50 ms longer (scy_fault=delay:1) the knob-1 p50 net of ${stalled} us of stalls is ${p50} us >= ${keep} us, half the 50 ms times the part of the knob-1 window QEMU's vCPU thread was on a CPU ($oncpu of $wall ns)" \
		awk -v p="$p50" -v k="$keep" -v t="$stalled" -v c="$oncpu" 'BEGIN { exit !(p >= k && t > 0 && c > 0) }'
	check "... and the cell's time line is red" grep -qE '^not ok [0-9]+ cell .*: time away' "$out-delay/stalls.tap"
fi
# -S leaves out the wait that pays back a stall charged to the yielder: in
# a guest whose kernel spins 60 ms with the runqueue locked in every 20th
# compat yield, before the yielder's run time is updated
# (scy_fault=spin:20, vm/fault-patches), the yielder is charged 60 ms it
# did not run, as by a host stop that falls while it runs, inside a yield
# before it leaves the CPU; the yield then waits while its nice-0 rival
# runs those 60 ms off. The host does not stop QEMU here: the spins are
# the stalls. Some 3 spins in a 0.6-s window of 60-odd samples: the
# spin and its payback in the p99 and max.
no_stops=1 run_stalled spin 0.6 "scy_fault=spin:20"
if [[ -z $k1 ]]; then
	fail_to 13 "no knob-1 window in $out-spin/stalls.csv"
else
	read -r p50 p99 mx raw stalled repaid <<<"$k1"
	check "-S left the samples paying back a stall charged to the yielder out: $repaid of the knob-1 window's (scy_fault=spin:20; max as measured $raw us, net $mx us)" \
		awk -v r="$repaid" -v m="$raw" 'BEGIN { exit !(r > 0 && m >= 60000) }'
	check "... and the cell's time line is ok (knob-1 p99 $p99 us, max $mx us)" \
		grep -qE '^ok [0-9]+ cell .*: time away' "$out-spin/stalls.tap"
fi
