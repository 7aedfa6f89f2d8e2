# SPDX-License-Identifier: GPL-2.0
#
# Bar chart of the yielder's shares from a sched_compat_yield result CSV
# (compat_yield_share -o FILE, or yield-share -f csv):
#
#   gnuplot -e "in='x.csv'; out='x.png'" bench/share/plot.gp
#
# For every scenario (x axis, in order of appearance) and every value of the
# knob column (0, 1, or "stock" for a kernel without the knob; whichever
# values the file has), two bars: worker 0's share of the CPU time and its
# share of the loop iterations.  The y axis is logarithmic; shares below
# 0.001% are drawn at 0.001%, the printed value is the real one.  Rows with
# the same scenario and knob value (repeated runs) are drawn on top of each
# other: plot one run per scenario and knob value, e.g. compat_yield_share's.

if (!exists("in")) in = "share.csv"
if (!exists("out")) out = "share.png"

set datafile separator comma
set datafile columnheaders

# Scenarios, knob values and kernels, in order of first appearance.
scen = " "
knobs = " "
kernels = " "
addw(list, w) = (strstrt(list, " ".w." ") ? list : list.w." ")
collect(s, k, r) = (scen = addw(scen, s), knobs = addw(knobs, k), \
		    kernels = addw(kernels, r), 0)
stats in using (collect(strcol("scenario"), strcol("knob"), \
			strcol("kernel"))) nooutput

ns = words(scen)
nk = words(knobs)
if (ns < 1) { print "bench/share/plot.gp: no data rows in ".in; exit }
nser = 2 * nk				# bars per scenario
bw = 0.8 / nser				# bar width

sidx(s) = sum [i=1:ns] (word(scen, i) eq s ? i : 0)
# series j = 0..nser-1: knob word(knobs, j/2 + 1), metric j%2 (0 CPU, 1 iter)
xpos(s, j) = sidx(s) + (j - (nser - 1) / 2.0) * bw
knobof(j) = word(knobs, int(j / 2) + 1)
metric(j) = (j % 2) ? "yielder_counter_share" : "yielder_cpu_share"
ymin = 1e-5
clamp(y) = (y < ymin) ? ymin : y
sel(j) = (strcol("knob") eq knobof(j))
knobname(k) = (k eq "stock") ? "stock kernel (no knob)" : "knob ".k
title(j) = ((j % 2) ? "iterations, " : "CPU time, ") . knobname(knobof(j))
# knob 0: blues, knob 1: reds, stock: greys; CPU time dark, iterations light
color(j) = (knobof(j) eq "0") ? word("#2166ac #92c5de", j % 2 + 1) : \
	   (knobof(j) eq "1") ? word("#b2182b #f4a582", j % 2 + 1) : \
	   word("#404040 #bababa", j % 2 + 1)

if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
	set terminal pngcairo size 1200,700 font "sans,10"
} else {
	set terminal png size 1200,700
}
set output out

set title sprintf("sched_compat_yield: share of worker 0 (the yielder) on one CPU\nkernel%s %s", \
		  words(kernels) > 1 ? "s" : "", kernels[2:strlen(kernels) - 1]) noenhanced
set ylabel "share of worker 0 (log scale)"
set logscale y
set yrange [ymin:3]
set ytics ("0.001%%" 1e-5, "0.01%%" 1e-4, "0.1%%" 1e-3, "1%%" 0.01, \
	   "10%%" 0.1, "50%%" 0.5, "100%%" 1)
set mytics 10
set grid ytics
set xrange [0.5:ns + 0.5]
set xtics () scale 0 noenhanced
set for [i=1:ns] xtics add (word(scen, i) i)
set key outside bottom center horizontal noenhanced
set arrow 1 from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2 lc rgb "#606060"
set arrow 2 from graph 0, first 0.01 to graph 1, first 0.01 nohead dt 3 lc rgb "#b2182b"
set rmargin 14
set label 1 "50%" at graph 1.01, first 0.5 left font ",8" tc rgb "#606060"
set label 2 "1%: knob 1\nlimit" at graph 1.01, first 0.01 left font ",8" tc rgb "#b2182b"
set style fill solid 0.9 border rgb "#202020"

plot for [j=0:nser-1] in \
	using (sel(j) ? xpos(strcol("scenario"), j) : NaN) : \
	      (clamp(column(metric(j)))) : \
	      (xpos(strcol("scenario"), j) - bw / 2) : \
	      (xpos(strcol("scenario"), j) + bw / 2) : \
	      (ymin) : (clamp(column(metric(j)))) \
	with boxxyerror lc rgb color(j) title title(j), \
     for [j=0:nser-1] in \
	using (sel(j) ? xpos(strcol("scenario"), j) : NaN) : \
	      (clamp(column(metric(j))) * 1.25) : \
	      (sprintf("%.3g%%", 100 * column(metric(j)))) \
	with labels rotate by 90 left font ",7" notitle
