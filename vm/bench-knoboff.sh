#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-knoboff.sh [KVER]: what the series costs with the knob at 0, against
# Debian's stock kernel. Boots the stock and the patched kernel alternately
# (ROUNDS times each, default 3) and in each boot measures the loop cost of
# sched_yield() alone on a CPU and of getppid() (yield-cost, REPS runs of
# DURATION s). Writes results/bench-knoboff-KVER/knoboff.csv and prints the
# medians per kernel and the patched/stock ratio.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=${1:-6.12}
rounds=${ROUNDS:-3}
reps=${REPS:-5}
dur=${DURATION:-2}
RESULTS=${RESULTS:-$SCY_REPO/results}
out=$RESULTS/bench-knoboff-$kver
mkdir -p "$out"
make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
stock=$(bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 0)
patched=$(bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 1)
csv=$out/knoboff.csv
echo "flavor,round,kernel,knob,mode,threads,tasks,cpu,run,seconds,calls,calls_per_s,ns_per_call" >"$csv"
for r in $(seq 1 "$rounds"); do
	for flavor in stock patched; do
		k=$stock
		[[ $flavor == patched ]] && k=$patched
		bash "$SCY_REPO/vm/run.sh" --kernel "$k" --out "$out/$flavor-$r" --timeout 600 -- bash -c \
			"for m in yield getppid; do '$RESULTS/bin/yield-cost' -m \$m -n 1 -d $dur -r $reps -f csv | tail -n +2; done >\$SCY_RESULTS/cost.csv"
		sed "s/^/$flavor,$r,/" "$out/$flavor-$r/cost.csv" >>"$csv"
	done
done
for mode in yield getppid; do
	for flavor in stock patched; do
		awk -F, -v f=$flavor -v m=$mode 'NR > 1 && $1 == f && $5 == m { print $13 }' "$csv" |
			sort -g | awk -v f=$flavor -v m=$mode '{ v[++n] = $1 }
			END { printf "%s %s %.1f %.1f %.1f %d\n", m, f, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n], n }'
	done
done | awk '{ med[$1 "," $2] = $3; lo[$1 "," $2] = $4; hi[$1 "," $2] = $5; n = $6 }
END {
	for (i = 1; i <= 2; i++) {
		m = i == 1 ? "yield" : "getppid"
		printf "%-8s stock %8.1f ns (%.0f-%.0f)  patched, knob 0 %8.1f ns (%.0f-%.0f)  ratio %.3f  (%d runs each)\n",
			m, med[m ",stock"], lo[m ",stock"], hi[m ",stock"], med[m ",patched"],
			lo[m ",patched"], hi[m ",patched"], med[m ",patched"] / med[m ",stock"], n
	}
}' | tee "$out/summary.txt"
