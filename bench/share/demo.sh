#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the kernel K (default: the patched 6.12, 6.12-patched;
# KVER=6.1 makes it 6.1-patched), boot it in QEMU and run the seed paper's
# yield/getppid share benchmark in every scenario with the knob at 0 and at
# 1 (plus the getppid/getppid baseline): bench/run.sh share, into
# results/demo-K/ (CSV, PNG and the table, with a title and the command).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

k=${K:-${KVER:-6.12}-patched}
duration=${DURATION:-30}
out=$RESULTS/demo-$k
[[ $duration =~ ^[0-9]+$ && $duration -ge 1 ]] || die "DURATION must be a whole number of seconds >= 1"
log "12 runs of $duration s each (6 scenarios x knob 0/1), about $(( duration * 12 / 60 + 1 )) min"
SCY_BENCH_OUT=$out DURATION=$duration bash "$SCY_REPO/bench/run.sh" share "$k" >/dev/null
{
	echo "# yield/getppid CPU shares, Linux $(cut -d, -f3 "$out/share.csv" | sed -n 2p) ($k), QEMU $(cat "$out/accel"), 2 vCPUs, pinned to one CPU"
	echo
	cat "$out/share.md"
	echo
	echo "Reproduce: make demo K=$k DURATION=$duration"
} >"$out/demo.md"
mv "$out/demo.md" "$out/share.md"
cat "$out/share.md"
log "CSV: ${out#"$SCY_REPO"/}/share.csv  PNG: ${out#"$SCY_REPO"/}/share.png  table: ${out#"$SCY_REPO"/}/share.md"
