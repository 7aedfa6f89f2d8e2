#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/pingpong/report.sh PREFIX DIR...: tables and figures of the ping-pong
# sweeps (bench/pingpong/run.sh) in the result directories DIR
# (.../bench-pingpong-KVER-FLAVOR, with fig2/ and/or fig7/ inside).
# Writes, for each figure that has data:
#   PREFIX-fig2-runs.csv  every run (fig2/pingpong.csv of each DIR, with the
#                         kernel label, e.g. "6.12 patched", and accelerator)
#   PREFIX-fig2.csv       per kernel, knob, strategy and rank 0's wait: the
#                         median over the runs of the per-run median, its
#                         min-max, the median p99, CPU time per ping-pong
#   PREFIX-fig2.md        Markdown tables, with the ratios against the goals
#   PREFIX-fig2.png       bar chart (gnuplot)
# and the same for fig7 (median latency per size, delay and strategy).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

(($# >= 2)) || { echo "usage: bench/pingpong/report.sh PREFIX DIR..." >&2; exit 2; }
prefix=$1
shift
for d in "$@"; do
	[[ -d $d ]] || { echo "bench/pingpong/report.sh: '$d' is not a directory" >&2; exit 2; }
	[[ $(basename "$d") =~ ^bench-pingpong-[0-9.]+-(patched|stock)$ ]] ||
		{ echo "bench/pingpong/report.sh: '$d' is not a bench-pingpong-KVER-FLAVOR directory" >&2; exit 2; }
done
mkdir -p "$(dirname "$prefix")"
python3 "$SCY_REPO/bench/pingpong/report.py" "$prefix" "$@"
for f in "$prefix"-fig2.md "$prefix"-fig7.md; do
	[[ -f $f ]] && log "wrote ${f%.md}.{csv,md,png} and ${f%.md}-runs.csv"
done
exit 0
