# SPDX-License-Identifier: GPL-2.0
#
# The figure of bench/neutral/report.py: a panel per metric (the blocks of
# the .dat file, each with its heading line; t1, t2, ...: their titles,
# y1, y2, ...: the tops of their y axes), a cluster per kernel (a row), a
# bar per setting (n settings, three columns each: the median, the
# smallest and the largest value, drawn as the bar and its error bar).
#
#   gnuplot -e "in='neutral.dat'; out='neutral.png'; panels=3; n=3; t1='...'; y1=2; ..." bench/neutral/plot.gp
set terminal pngcairo noenhanced size 1500, 480 font ",10"
set output out
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.85 border -1
set grid ytics
set key outside bottom center horizontal font ",9"
# off grey, the job's switch at 1 light blue, the machine's at 1 dark blue
colours = "#969696 #9ecae1 #08519c"
do for [i=1:words(colours)] {
	set linetype i lc rgb word(colours, i)
}
set multiplot layout 1, panels title "Beside a yield loop in a job's cgroup: no switch at 1 (off), the job's cpu.compat_yield at 1 (job-optin), the machine's switch at 1 (machine); median, min-max"
do for [b=0:panels-1] {
	set title value(sprintf("t%d", b + 1))
	set yrange [0:value(sprintf("y%d", b + 1))]
	plot for [i=0:n-1] in index b using (column(2 + 3 * i)):(column(3 + 3 * i)):(column(4 + 3 * i)):xtic(1) \
		title columnheader(2 + 3 * i)
}
unset multiplot
