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
# samples (the knob-1 max as measured holds one), that -S took them out
# (the longest knob-1 sample judged is shorter than the longest measured
# by at least half a stall: a stall is seen from when the main process was
# due to wake, so up to its 5-ms period of each stays in) and that the
# cell's time passes; then, in a guest whose kernel keeps every compat
# yield 50 ms longer (scy_fault=delay:1), that -S keeps that wait: the
# knob-1 p50 net of the stalls is still 50 ms or more, and the cell fails.
# Prints TAP. Not a cell with a SCHED_IDLE rival: one that runs
# through a stall is charged all of it, 341 times over in its vruntime,
# and moves the rivals' average vruntime by about the stall's length; the
# 6.12 compat yield gives up at most a turn of each rival of it, but the
# cell is here to test -S, not the rule.
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

# inject: while the guest's marker file exists, stop QEMU for stall_ms
# every period_ms; counts the stops into $out/injected.
inject() {
	local pid stops=0
	while [[ ! -s $out/qemu.pid ]]; do
		sleep 0.1
	done
	pid=$(cat "$out/qemu.pid")
	while kill -0 "$pid" 2>/dev/null; do
		if [[ -e $out/inject ]]; then
			kill -STOP "$pid" 2>/dev/null || break
			sleep "$(awk -v m="$stall_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
			kill -CONT "$pid" 2>/dev/null || break
			stops=$((stops + 1))
			echo "$stops" >"$out/injected"
			sleep "$(awk -v m="$period_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
		else
			sleep 0.05
		fi
	done
}

# run_stalled NAME APPEND: the cell in a guest booted with APPEND on the
# kernel's command line, QEMU stopped as above; its files in $out-NAME.
# Two checks (the guest's verdict); sets k1 to the knob-1 window's "p50
# p99 max max_raw stalled" (us), empty when there is none.
run_stalled() {
	local o=$out-$1 rc=0 ipid
	mkdir -p "$o"
	rm -f "$o/inject" "$o/stalls.csv" "$o/stalls.tap" "$o/injected"
	out=$o inject &
	ipid=$!
	bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$o" --timeout 600 --append "$2" -- \
		bash -c 'touch /tmp/results/inject
			"$1" -F -S -d 0.6 -c "$2" -o /tmp/results/stalls.csv >/tmp/results/stalls.tap 2>&1
			r=$?
			rm -f /tmp/results/inject
			cat /tmp/results/stalls.tap
			exit $r' - "$RESULTS/bin/selftests/compat_yield_matrix" "$cell" || rc=$?
	kill "$ipid" 2>/dev/null || true
	wait "$ipid" 2>/dev/null || true
	echo "# QEMU stopped for ${stall_ms} ms every ${period_ms} ms: $(cat "$o/injected" 2>/dev/null || echo 0) stops"
	guest_verdict "$o" "$rc" "a guest of $kver-patched${2:+ ($2)} stopped by the host"
	k1=$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["window"] == "k1":
        print(r["p50_us"], r["p99_us"], r["max_us"], r["max_raw_us"], r["stalled_us"])
        break
' "$o/stalls.csv" 2>/dev/null || true)
}

plan 9
cell='same rivals=nice0 event=none$'
run_stalled plain ""
if [[ -z $k1 ]]; then
	fail_to 5 "no knob-1 window in $out-plain/stalls.csv"
else
	read -r p50 p99 mx raw stalled <<<"$k1"
	check "the stalls reached the samples: knob-1 max as measured ${raw} us >= 3/4 of a stall ($stall_ms ms), ${stalled} us taken out" \
		awk -v r="$raw" -v s="$stall_ms" -v t="$stalled" 'BEGIN { exit !(r >= 750 * s && t > 0) }'
	check "-S took them out: knob-1 max ${mx} us (p99 ${p99} us) <= the max as measured minus half a stall" \
		awk -v m="$mx" -v r="$raw" -v s="$stall_ms" 'BEGIN { exit !(m <= r - 500 * s) }'
	check "the cell's time line is ok" grep -qE '^ok [0-9]+ cell .*: time away' "$out-plain/stalls.tap"
fi
# -S keeps a genuine wait: with every compat yield kept 50 ms longer by the
# kernel (scy_fault=delay:1, vm/fault-patches), the stalls are taken out
# and the 50 ms stay.
run_stalled delay "scy_fault=delay:1"
if [[ -z $k1 ]]; then
	fail_to 9 "no knob-1 window in $out-delay/stalls.csv"
else
	read -r p50 p99 mx raw stalled <<<"$k1"
	check "-S keeps a genuine wait: with every compat yield 50 ms longer (scy_fault=delay:1) the knob-1 p50 net of ${stalled} us of stalls is ${p50} us >= 50 ms" \
		awk -v p="$p50" -v t="$stalled" 'BEGIN { exit !(p >= 50000 && t > 0) }'
	check "... and the cell's time line is red" grep -qE '^not ok [0-9]+ cell .*: time away' "$out-delay/stalls.tap"
fi
