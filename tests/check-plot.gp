# SPDX-License-Identifier: GPL-2.0
#
# The figure of Documentation/results/check.md (tests/check-report.py):
# per make check run, a bar per kernel lane, its stages' seconds stacked
# by group, in minutes; the lanes run side by side, so a run's wall time
# is about its longer lane plus the stages before and after the lanes.
#
#   gnuplot -e "in='check-lanes.dat'; out='check.png'" tests/check-plot.gp
set terminal pngcairo noenhanced size 1200, 520 font ",10"
set output out
set style data histogram
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set grid ytics
set ylabel "minutes"
set xtics rotate by -35
set key outside right top vertical font ",9"
set title "make check: each lane's stages (the two lanes run side by side)"
plot for [i=2:8] in using (column(i) / 60.0):xtic(1) title columnheader(i)
