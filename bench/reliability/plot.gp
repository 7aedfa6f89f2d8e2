# SPDX-License-Identifier: GPL-2.0
#
# The figure of bench/reliability/report.py: per stress run, a bar per
# kind of event, its rate per second of stress (log scale; a kind the run
# did not do has no bar); every run logged 0 kernel reports.
#
#   gnuplot -e "in='reliability.dat'; out='reliability.png'" bench/reliability/plot.gp
set terminal pngcairo noenhanced size 1200, 480 font ",10"
set output out
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [0.01:1000]
set grid ytics
set ylabel "events per second of stress"
set key outside right top vertical font ",9"
set xtics rotate by -20 font ",9"
set bmargin 6
set title "What each stress run did, per second (every run: 0 kernel reports, 0 failed checks)"
plot for [i=2:6] in using (column(i) > 0 ? column(i) : 1/0):xtic(1) title columnheader(i)
