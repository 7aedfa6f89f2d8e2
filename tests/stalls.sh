#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stalls.sh KVER: the matrix's time away, net of the guest's stalls. Boots
# the patched KVER kernel under single-threaded TCG, as make check's guests
# run, and measures one matrix cell of the full set (the same group as a
# nice-0 rival, no event: a yield waits a tick or two on either kernel)
# with compat_yield_matrix -S while the host stops QEMU for
# SCY_STALL_MS (default 60) every SCY_STALL_PERIOD_MS (default 240): a
# descheduled QEMU, made on purpose. Checks that the stalls reached the
# samples (in the window, knob 0 or 1, whose longest sample as measured
# is the longest: it holds one), that -S took them out (that window's
# longest sample judged is shorter than the longest measured by at least
# half a stall: a stall is seen from when the main process was due to
# wake, so up to its 5-ms period of each stays in) and that the cell's
# time passes; then, in a guest whose kernel keeps every compat
# yield 50 ms longer (scy_fault=delay:1), that -S keeps that wait and the
# cell fails. The fault's 50 ms are its rivals' running time in guest
# time, which a stall of the guest is part of (the task that ran through
# it is charged it): -S takes out of a sample the stalls it spans, so its
# net is 50 ms less those. The host measures the part of the run QEMU was
# on a CPU (its threads' time on a CPU, /proc/PID/task/*/schedstat,
# against the time that passed), and the knob-1 p50 net of the stalls
# must keep that part of the 50 ms. A median: a sample across one of the
# 60-ms stops loses most of its wait, and tests/stalls-model.py (run by
# tests/host.sh) shows the check holding beside a busy host's short
# stalls and failing on -S that takes out whole samples; smaller errors
# of -S it does not see. Prints TAP. Not a cell with a SCHED_IDLE rival:
# one that runs through a stall is charged all of it, 341 times over in
# its vruntime, and moves the rivals' average vruntime by about the
# stall's length; the 6.12 compat yield gives up at most a turn of each
# rival of it, but the cell is here to test -S, not the rule.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
export SCY_TCG_THREAD=single

kver=${1:?usage: stalls.sh KVER}
stall_ms=${SCY_STALL_MS:-60}
period_ms=${SCY_STALL_PERIOD_MS:-240}
[[ $stall_ms =~ ^[1-9][0-9]*$ && $period_ms =~ ^[1-9][0-9]*$ ]] ||
	die "SCY_STALL_MS and SCY_STALL_PERIOD_MS must be numbers of milliseconds"
out=$RESULTS/stalls-$kver
kdir=$(kernel_get "$kver-patched")
make -s -C "$SCY_REPO" selftests RESULTS="$RESULTS" >&2

# oncpu PID: the time the threads of process PID have been on a CPU, ns
oncpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }

# inject: while the guest's marker file exists, stop QEMU for stall_ms
# every period_ms; counts the stops into $out/injected and writes the
# marker's time and QEMU's time on a CPU meanwhile (ns) into $out/ran.
inject() {
	local pid stops=0 t0='' c0='' t1 c1
	while [[ ! -s $out/qemu.pid ]]; do
		sleep 0.1
	done
	pid=$(cat "$out/qemu.pid")
	while kill -0 "$pid" 2>/dev/null; do
		if [[ -e $out/inject ]]; then
			if [[ -z $t0 ]]; then
				t0=$(date +%s%N)
				c0=$(oncpu "$pid")
			fi
			kill -STOP "$pid" 2>/dev/null || break
			sleep "$(awk -v m="$stall_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
			kill -CONT "$pid" 2>/dev/null || break
			stops=$((stops + 1))
			echo "$stops" >"$out/injected"
			# so far, in case QEMU is gone when the marker is
			echo "$(($(date +%s%N) - t0)) $(($(oncpu "$pid") - c0))" >"$out/ran"
			sleep "$(awk -v m="$period_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
		else
			if [[ -n $t0 ]]; then
				t1=$(date +%s%N)
				c1=$(oncpu "$pid")
				((c1 < c0)) || echo "$((t1 - t0)) $((c1 - c0))" >"$out/ran"
				t0=''
			fi
			sleep 0.05
		fi
	done
}

# run_stalled NAME APPEND [red]: the cell in a guest booted with APPEND on
# the kernel's command line, QEMU stopped as above; its files in
# $out-NAME. Two checks (the guest's verdict); with "red" the cell must
# fail, its TAP is shown as comments and the guest's suite passes when the
# matrix failed its tests (exit status 1). Sets k1 to the knob-1 window's
# "p50 p99 max max_raw stalled" (us), empty when there is none, and ran to
# "wall oncpu" (ns) of QEMU while the guest's marker existed.
run_stalled() {
	local o=$out-$1 rc=0 ipid
	mkdir -p "$o"
	rm -f "$o/inject" "$o/stalls.csv" "$o/stalls.tap" "$o/injected" "$o/ran"
	out=$o inject &
	ipid=$!
	bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$o" --timeout 600 --append "$2" -- \
		bash -c 'touch /tmp/results/inject
			"$1" -F -S -d 0.6 -c "$2" -o /tmp/results/stalls.csv >/tmp/results/stalls.tap 2>&1
			r=$?
			rm -f /tmp/results/inject
			if [[ $3 == red ]]; then
				sed "s/^/# /" /tmp/results/stalls.tap
				echo "# compat_yield_matrix exit status $r (1: a test failed)"
				[[ $r == 1 ]]
				exit
			fi
			cat /tmp/results/stalls.tap
			exit $r' - "$RESULTS/bin/selftests/compat_yield_matrix" "$cell" "${3:-}" || rc=$?
	kill "$ipid" 2>/dev/null || true
	wait "$ipid" 2>/dev/null || true
	echo "# QEMU stopped for ${stall_ms} ms every ${period_ms} ms: $(cat "$o/injected" 2>/dev/null || echo 0) stops"
	guest_verdict "$o" "$rc" "a guest of $kver-patched${2:+ ($2)} stopped by the host${3:+ (its cell must fail)}"
	# line 1: the knob-1 window; line 2: the window whose longest sample
	# as measured is the longest, with its name
	local wins
	wins=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
f = ("p99_us", "max_us", "max_raw_us", "stalled_us")
for r in rows:
    if r["window"] == "k1":
        print(r["p50_us"], *(r[k] for k in f))
if rows:
    r = max(rows, key=lambda r: float(r["max_raw_us"]))
    print(r["window"], *(r[k] for k in f))
' "$o/stalls.csv" 2>/dev/null || true)
	k1=
	if (($(wc -l <<<"$wins") == 2)); then k1=$(sed -n 1p <<<"$wins"); fi
	caught=$(sed -n '$p' <<<"$wins")
	ran=$(cat "$o/ran" 2>/dev/null || true)
}

plan 9
cell='same rivals=nice0 event=none$'
run_stalled plain ""
if [[ -z $k1 || -z $caught ]]; then
	fail_to 5 "no knob-1 window in $out-plain/stalls.csv"
else
	# the window (knob 0 or 1) whose samples caught the longest stall: a
	# stop can fall where no sample of one window is, when its yielder
	# runs or between its windows
	read -r win p99 mx raw stalled <<<"$caught"
	check "the stalls reached the samples: the $win window's max as measured ${raw} us >= 3/4 of a stall ($stall_ms ms), ${stalled} us taken out" \
		awk -v r="$raw" -v s="$stall_ms" -v t="$stalled" 'BEGIN { exit !(r >= 750 * s && t > 0) }'
	check "-S took them out: the $win window's max ${mx} us (p99 ${p99} us) <= the max as measured minus half a stall" \
		awk -v m="$mx" -v r="$raw" -v s="$stall_ms" 'BEGIN { exit !(m <= r - 500 * s) }'
	check "the cell's time line is ok" grep -qE '^ok [0-9]+ cell .*: time away' "$out-plain/stalls.tap"
fi
# -S keeps a genuine wait: with every compat yield kept 50 ms longer by the
# kernel (scy_fault=delay:1, vm/fault-patches), the stalls are taken out
# and the part of the 50 ms that QEMU ran stays.
run_stalled delay "scy_fault=delay:1" red
if [[ -z $k1 || -z $ran ]]; then
	fail_to 9 "no knob-1 window in $out-delay/stalls.csv, or no time of QEMU on a CPU in $out-delay/ran"
else
	read -r p50 p99 mx raw stalled <<<"$k1"
	read -r wall oncpu <<<"$ran"
	keep=$(awk -v w="$wall" -v c="$oncpu" 'BEGIN { f = c / w; if (f > 1) f = 1; printf "%.1f", 50000 * f }')
	check "-S keeps a genuine wait: with every compat yield 50 ms longer (scy_fault=delay:1) the knob-1 p50 net of ${stalled} us of stalls is ${p50} us >= ${keep} us, the 50 ms times the part of the run QEMU was on a CPU ($oncpu of $wall ns)" \
		awk -v p="$p50" -v k="$keep" -v t="$stalled" -v c="$oncpu" 'BEGIN { exit !(p >= k && t > 0 && c > 0) }'
	check "... and the cell's time line is red" grep -qE '^not ok [0-9]+ cell .*: time away' "$out-delay/stalls.tap"
fi
