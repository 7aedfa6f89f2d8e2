# SPDX-License-Identifier: GPL-2.0
#
# The figure of bench/jobs/report.py: a pair's makespan as a multiple of
# one job alone, a panel per runtime (the blocks of the .dat file, each
# with its heading line; names: their runtimes, in order), a cluster per placement, a bar per kernel and
# knob value (columns 2..n), the ideal and the goal (ideal + 10%) as lines.
#
#   gnuplot -e "in='jobs.dat'; out='jobs.png'; n=11; blocks=8; names='libomp ...'; ideal=1.125" bench/jobs/plot.gp
rows = int((blocks + 1) / 2)
set terminal pngcairo noenhanced size 1500, 330 * rows + 60 font ",10"
set output out
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set yrange [0:2.6]
set ytics 0.5
set key off
# the bars in the order of the columns: as many colours as a page has
# kernel and knob columns (stock, patched 0 and 1, livepatch 0 and 1, per
# version: light for knob 0, dark for knob 1)
colours = "#969696 #9ecae1 #08519c #a1d99b #006d2c #525252 #fdae6b #d94801 #fcbba1 #a50f15 #dadaeb #54278f"
do for [i=1:words(colours)] {
	set linetype i lc rgb word(colours, i)
}
set multiplot layout rows, 2 title sprintf("Two co-scheduled jobs on 2 CPUs: makespan of the pair / one job alone (median over the runs); ideal %.3f, goal ideal + 10%%", ideal)
do for [b=0:blocks-1] {
	if (b == blocks - 1) {
		set key outside right center vertical font ",8"
	}
	set title word(names, b + 1)
	# a cell without data (NaN: that runtime did not run there) is drawn
	# as 0, a bar on the axis: a panel where a whole column has none
	# would otherwise stop gnuplot
	plot for [i=2:n] in index b using (valid(i) ? column(i) : 0):xtic(1) title columnheader(i), \
		ideal with lines dashtype 2 lw 2 lc rgb "black" title "ideal", \
		1.1 * ideal with lines dashtype 3 lw 2 lc rgb "red" title "goal"
}
unset multiplot
