# SPDX-License-Identifier: GPL-2.0
#
# The figure of bench/jobs/report.py: a pair's makespan as a multiple of
# one job alone, per kernel, runtime and placement, one bar per knob value
# (columns 2..n of the .dat file, headings quoted), the ideal and the goal
# (ideal + 10%) as lines.
#
#   gnuplot -e "in='jobs.dat'; out='jobs.png'; n=3; ideal=1.125" bench/jobs/plot.gp
set terminal pngcairo noenhanced size 1200,560 font ",10"
set output out
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set xtics rotate by -35 font ",8"
set yrange [0:*]
set ylabel "makespan of the pair / one job alone"
set title sprintf("Two co-scheduled jobs on 2 CPUs: makespan / one job alone (median over the runs); ideal %.3f", ideal)
plot for [i=2:n] in using i:xtic(1) title columnheader(i), \
	ideal with lines dashtype 2 lw 2 lc rgb "black" title "ideal", \
	1.1 * ideal with lines dashtype 3 lw 2 lc rgb "red" title "goal: ideal + 10%"
