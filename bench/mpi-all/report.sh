#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi-all/report.sh PREFIX DIR...: the tables and figures of the MPI
# benchmarks (bench/mpi-all/guest.sh) from the result directories DIR
# (results/bench-mpi-all-KVER-FLAVOR, in the order of the table columns).
# Writes PREFIX-runs.csv (every run, a column for the kernel flavour and the
# accelerator added), PREFIX.md (the tables) and PREFIX-latency.png,
# PREFIX-harvest.png (gnuplot). Directories whose runs were not under
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
lat_plot="plot for [i=2:$nlat] \"$prefix-latency.dat\" using i:xtic(1) title columnheader(i)"
if ((nlat < 2)); then
	lat_plot=
	rm -f "$prefix-latency.dat" "$prefix-latency.png"
fi
harv_plot="plot for [i=2:$nharv] \"$prefix-harvest.dat\" using i:xtic(1) title columnheader(i)"
if ((nharv < 2)); then
	harv_plot=
	rm -f "$prefix-harvest.dat" "$prefix-harvest.png"
fi
gnuplot <<EOF
set terminal pngcairo noenhanced size 1000,520 font ",10"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set xtics rotate by -20
$([[ -n $lat_plot ]] && echo "set output \"$prefix-latency.png\"")
set title "MPI ping-pong, 50 us straggler (lat: 2 ranks/1 CPU, lat4: 4 ranks/2 CPUs)\nmedian latency, median over the runs, $unit"
set logscale y
set ylabel "median latency (us, log scale)"
$lat_plot
$([[ -n $harv_plot ]] && echo "set output \"$prefix-harvest.png\"")
set title "Co-runner on the ranks' CPU (idle: SCHED_IDLE, coloc: hog in another session)\nits CPU time as % of the ranks' wait time, median over the runs"
unset logscale y
set ylabel "% of wait time"
set yrange [0:*]
$harv_plot
EOF
log "wrote $prefix.md, $prefix-runs.csv, $prefix-latency.png, $prefix-harvest.png"
