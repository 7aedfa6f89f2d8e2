#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi-all/report.sh PREFIX DIR...: the tables and figures of the MPI
# benchmarks (bench/mpi-all/guest.sh) from the result directories DIR
# (results/bench-mpi-all-KVER-FLAVOR, in the order of the table columns).
# Writes PREFIX-runs.csv (every run, a column for the kernel flavour and the
# accelerator added), PREFIX.md (the tables) and PREFIX-latency.png,
# PREFIX-harvest.png (bench/mpi-all/plot.gp). Directories whose runs were not under
# -icount (results/bench-mpi-all-KVER-FLAVOR-lat4tcg: flavour
# FLAVOR-lat4tcg) get tables of their own, labelled plain TCG, and are left
# out of the figures. The MPICH ch3 rows appear where such runs exist.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"
prefix=${1:?usage: bench/mpi-all/report.sh PREFIX DIR...}
shift
(($#)) || die "bench/mpi-all/report.sh: no result directories"
for d in "$@"; do
	[[ -f $d/mpi-all.csv ]] || die "bench/mpi-all/report.sh: $d/mpi-all.csv missing"
done
mkdir -p "$(dirname "$prefix")"
# Times are instructions only when every run was under -icount (the
# plain-TCG directories, in tables of their own, aside).
unit="guest us (-icount: 1 us = 1000 instructions)"
for d in "$@"; do
	[[ $d == *-lat4tcg || $d == *-lat4tcg/ ]] && continue
	grep -q 'icount' "$d/accel" 2>/dev/null ||
		unit="us of guest time under plain TCG (depends on the host's load)"
done
export SCY_REPORT_UNIT=$unit
python3 "$SCY_REPO/bench/mpi-all/report.py" "$prefix" "$@"
ncols() { # the data columns of a .dat file: 1 + its quoted headings
	local q
	q=$(head -n 1 "$1" | grep -o '"' | wc -l)
	echo $((q / 2 + 1))
}
nlat=$(ncols "$prefix-latency.dat") nharv=$(ncols "$prefix-harvest.dat")
# a figure without data columns (e.g. no co-runner part run, or only a
# plain-TCG step) is left out
((nlat >= 2)) || rm -f "$prefix-latency.dat" "$prefix-latency.png"
((nharv >= 2)) || rm -f "$prefix-harvest.dat" "$prefix-harvest.png"
gnuplot -e "prefix='$prefix'; unit='$unit'; nlat=$nlat; nharv=$nharv" "$SCY_REPO/bench/mpi-all/plot.gp"
log "wrote $prefix.md, $prefix-runs.csv, $prefix-latency.png, $prefix-harvest.png"
