#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stalls.sh KVER: the matrix's time away, net of the guest's stalls. Boots
# the patched KVER kernel under single-threaded TCG, as make check's guests
# run, and measures one matrix cell of the full set (the same group as a
# nice-0 rival, no event: a yield waits a tick or two on either kernel)
# with compat_yield_matrix -G -S while the host stops QEMU for
# SCY_STALL_MS (default 60) every SCY_STALL_PERIOD_MS (default 240): a
# descheduled QEMU, made on purpose. Checks that the stalls reached the
# samples (the knob-1 max as measured holds one), that -S took them out
# (the longest knob-1 sample judged is shorter than the longest measured
# by at least half a stall: a stall is seen from when the main process was
# due to wake, so up to its 5-ms period of each stays in) and that the cell
# passes. Prints TAP. Not a cell with a SCHED_IDLE rival: one that runs
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
mkdir -p "$out"
rm -f "$out/inject" "$out/stalls.csv" "$out/stalls.tap" "$out/injected"

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

plan 5
inject &
ipid=$!
cell='same rivals=nice0 event=none$'
rc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout 600 -- \
	bash -c 'touch /tmp/results/inject
		"$1" -F -G -S -d 0.6 -c "$2" -o /tmp/results/stalls.csv >/tmp/results/stalls.tap 2>&1
		r=$?
		rm -f /tmp/results/inject
		cat /tmp/results/stalls.tap
		exit $r' - "$RESULTS/bin/selftests/compat_yield_matrix" "$cell" || rc=$?
kill "$ipid" 2>/dev/null || true
wait "$ipid" 2>/dev/null || true
echo "# QEMU stopped for ${stall_ms} ms every ${period_ms} ms: $(cat "$out/injected" 2>/dev/null || echo 0) stops"
guest_verdict "$out" "$rc" "a guest of $kver-patched stopped by the host"
# the knob-1 window: p99, max (net), max as measured, time taken out (us)
k1=$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["window"] == "k1":
        print(r["p99_us"], r["max_us"], r["max_raw_us"], r["stalled_us"])
        break
' "$out/stalls.csv" 2>/dev/null || true)
if [[ -z $k1 ]]; then
	fail_to 5 "no knob-1 window in $out/stalls.csv"
	exit 1
fi
read -r p99 mx raw stalled <<<"$k1"
check "the stalls reached the samples: knob-1 max as measured ${raw} us >= 3/4 of a stall ($stall_ms ms), ${stalled} us taken out" \
	awk -v r="$raw" -v s="$stall_ms" -v t="$stalled" 'BEGIN { exit !(r >= 750 * s && t > 0) }'
check "-S took them out: knob-1 max ${mx} us (p99 ${p99} us) <= the max as measured minus half a stall" \
	awk -v m="$mx" -v r="$raw" -v s="$stall_ms" 'BEGIN { exit !(m <= r - 500 * s) }'
check "the cell's verdict line is ok" grep -qE '^ok [0-9]+ cell ' "$out/stalls.tap"
