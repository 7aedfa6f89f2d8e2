# SPDX-License-Identifier: GPL-2.0
#
# The figures of the MPI benchmarks, from the .dat files that
# bench/mpi-all/report.py writes (a column of labels, then one column per
# kernel and knob value, headings quoted):
#
#   gnuplot -e "prefix='P'; unit='U'; nlat=N; nharv=N" bench/mpi-all/plot.gp
#
# P-latency.png: the median latency of every ping-pong part, from
# P-latency.dat (nlat columns); P-harvest.png: the co-runner's CPU time as
# a share of the ranks' wait time, from P-harvest.dat (nharv columns). A
# figure whose file has no data column (nlat or nharv below 2) is not drawn.

set terminal pngcairo noenhanced size 1000,520 font ",10"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set xtics rotate by -20

if (nlat >= 2) {
	set output prefix . "-latency.png"
	set title "MPI ping-pong, 50 us straggler (lat: 2 ranks/1 CPU, lat4: 4 ranks/2 CPUs)\nmedian latency, median over the runs, " . unit
	set logscale y
	set ylabel "median latency (us, log scale)"
	plot for [i=2:nlat] prefix . "-latency.dat" using i:xtic(1) title columnheader(i)
	unset logscale y
}
if (nharv >= 2) {
	set output prefix . "-harvest.png"
	set title "Co-runner on the ranks' CPU (idle: SCHED_IDLE, coloc: hog in another session)\nits CPU time as % of the ranks' wait time, median over the runs"
	set ylabel "% of wait time"
	set yrange [0:*]
	plot for [i=2:nharv] prefix . "-harvest.dat" using i:xtic(1) title columnheader(i)
}
