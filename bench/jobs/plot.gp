# SPDX-License-Identifier: GPL-2.0
#
# The figure of bench/jobs/report.py: a pair's makespan as a multiple of
# one job alone, a panel per runtime (the blocks of the .dat file, each
# with its heading line; names: their runtimes, in order), a cluster per
# placement, a bar per kernel and knob value (the median over the runs;
# columns 2, 5, 8, ...: median, fastest run, slowest run) with the runs'
# spread as error bars, the ideal and the goal (ideal + 10%) as lines, the
# key of the bars above the panels.
#
#   gnuplot -e "in='jobs.dat'; out='jobs.png'; n=10; blocks=13; names='libomp ...'; ideal=1.125; ymax=4; runs='2'; colours='#969696 ...'; titles=\"'6.12-stock' ...\"" bench/jobs/plot.gp
#
# n: kernel and knob columns; ymax: the top of the y axis; runs: the runs
# per cell (a range "2-3" where they differ); colours: a bar colour per
# column, in order; titles: the columns' names, in order, each in single quotes.
rows = int((blocks + 1) / 2)
width = 1500
panel = 340
# the key: the kernel and knob columns, 6 at most to a line, in the order
# of the columns line by line (so that each version gets a line of its own
# when it has 5 columns at most)
keyrows = int((n + 5) / 6)
keycols = int((n + keyrows - 1) / keyrows)
head = 46 + 22 * keyrows
foot = 40
height = head + rows * panel + foot
set terminal pngcairo noenhanced size width, height font ",10"
set output out
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.85 border -1
set errorbars small
set grid ytics
set yrange [0:ymax]
set ytics 0.5
set xtics scale 0
do for [i=1:n] {
	set linetype i lc rgb word(colours, i)
}
set multiplot
set label 1 sprintf("Two co-scheduled jobs on 2 CPUs: makespan of the pair / one job alone; bar: the median of %s runs, whisker: the fastest and the slowest run; dashed: the ideal, %.3f; dotted: the goal, ideal + 10%%", runs, ideal) at screen 0.5, 1 - 16.0 / height center font ",11"
# each panel's borders, in pixels from the top left: room for the tick
# labels and for the panel title above it
set key off
do for [b=0:blocks-1] {
	x0 = (b % 2) * width / 2 + 50
	x1 = (b % 2) * width / 2 + width / 2 - 20
	y0 = head + int(b / 2) * panel + 35
	y1 = head + int(b / 2) * panel + panel - 25
	set lmargin at screen x0 * 1.0 / width
	set rmargin at screen x1 * 1.0 / width
	set tmargin at screen 1 - y0 * 1.0 / height
	set bmargin at screen 1 - y1 * 1.0 / height
	set title word(names, b + 1) offset 0, -0.5
	# a cell without data (NaN: that runtime did not run there) is drawn
	# as 0, a bar on the axis: a panel where a whole column has none
	# would otherwise stop gnuplot
	plot for [i=0:n-1] in index b using (valid(2 + 3 * i) ? column(2 + 3 * i) : 0):(valid(3 + 3 * i) ? column(3 + 3 * i) : 0):(valid(4 + 3 * i) ? column(4 + 3 * i) : 0):xtic(1) title columnheader(2 + 3 * i) lt i + 1, \
		ideal with lines dashtype 2 lw 2 lc rgb "black" title "ideal", \
		1.1 * ideal with lines dashtype 3 lw 2 lc rgb "red" title "goal"
	unset label 1
}
# the key, alone in the band under the title, over the whole width
set lmargin at screen 0.02
set rmargin at screen 0.98
set tmargin at screen 1 - 30.0 / height
set bmargin at screen 1 - (head - 8.0) / height
unset title
unset border
unset tics
unset grid
# (gnuplot fills a key column by column: entry k shows column e(k); and a
# curve out of range beside the key entries: a plot of key entries alone
# stops gnuplot 5.4)
e(k) = (k % keyrows) * keycols + int(k / keyrows)
set xrange [0:1]
set yrange [0:1]
set key inside center center vertical maxrows keyrows samplen 2 width 2 font ",10"
plot -1 notitle, for [k=0:keyrows * keycols - 1] keyentry with boxes lt (e(k) < n ? e(k) + 1 : 1) title (e(k) < n ? word(titles, e(k) + 1) : "")
unset multiplot
