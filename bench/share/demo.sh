#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the patched kernel (KVER, default 6.12), boot it in QEMU
# and run the seed paper's yield/getppid share benchmark in every scenario
# with the knob at 0 and at 1 (plus the getppid/getppid baseline). Prints
# a table, writes CSV + PNG to results/demo-KVER/.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kver=${KVER:-6.12}
duration=${DURATION:-30}
RESULTS=${RESULTS:-$SCY_REPO/results}
out=$RESULTS/demo-$kver
[[ $duration =~ ^[0-9]+$ && $duration -ge 1 ]] || die "DURATION must be a whole number of seconds >= 1"
kdir=$(kernel_get "$kver-patched")
log "10 runs of $duration s each (5 scenarios x knob 0/1), about $(( duration * 10 / 60 + 1 )) min"
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout $(( duration * 12 + 300 )) \
	-- bash -c "'$RESULTS/bin/selftests/compat_yield_share' -d $duration -o \"\$SCY_RESULTS/share.csv\" | tee \"\$SCY_RESULTS/share.tap\""
accel=$(cat "$out/accel")
{
	echo "# yield/getppid CPU shares, Linux $(cut -d, -f3 "$out/share.csv" | sed -n 2p) + sched_compat_yield, QEMU $accel, 2 vCPUs, pinned to one CPU"
	echo
	bash "$SCY_REPO/bench/share/table.sh" "$out/share.csv"
	echo
	echo "Reproduce: make demo KVER=$kver DURATION=$duration"
} >"$out/share.md"
gnuplot -e "in='$out/share.csv'; out='$out/share.png'" "$SCY_REPO/bench/share/plot.gp"
cat "$out/share.md"
log "CSV: ${out#$SCY_REPO/}/share.csv  PNG: ${out#$SCY_REPO/}/share.png  table: ${out#$SCY_REPO/}/share.md"
