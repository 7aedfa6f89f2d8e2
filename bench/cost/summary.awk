# SPDX-License-Identifier: GPL-2.0
#
# bench/cost/summary.awk: the summary of bench/cost/guest.sh, from its CSV
# rows (kernel,knob,mode,threads,tasks,rep,seconds,calls,ns_per_call) on
# stdin: per knob value the medians of the ns per call of every
# configuration and the ratios n1000/n2 for threads and for processes.
#   awk -F, -v reps=N -v dur=SECONDS -f bench/median.awk -f bench/cost/summary.awk
function med(k, mode, threads, tasks) {
	return median(val[k SUBSEP mode SUBSEP threads SUBSEP tasks])
}
{
	kernel = $1
	if (!($2 in seen)) {
		seen[$2] = 1
		knobs[++nk] = $2
	}
	key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
	val[key] = val[key] " " $9
}
END {
	printf "yield-cost medians, ns per call (%d runs of %s s each), kernel %s\n",
		reps, dur, kernel
	printf "thr: threads of one process, proc: processes; <=2x: is the threads ratio n1000/n2 at most 2 (proc ratio alongside)\n"
	printf "%-6s %9s %11s %9s %9s %10s %9s %10s %11s %10s %11s %5s\n", "knob",
		"yield n=1", "getppid n=1", "thr n=2", "thr n=100", "thr n=1000",
		"proc n=2", "proc n=100", "proc n=1000", "thr 1000/2",
		"proc 1000/2", "<=2x"
	for (i = 1; i <= nk; i++) {
		k = knobs[i]
		y1 = med(k, "yield", 0, 1)
		g1 = med(k, "getppid", 0, 1)
		t2 = med(k, "yield", 1, 2)
		t100 = med(k, "yield", 1, 100)
		t1000 = med(k, "yield", 1, 1000)
		p2 = med(k, "yield", 0, 2)
		p100 = med(k, "yield", 0, 100)
		p1000 = med(k, "yield", 0, 1000)
		printf "%-6s %9.1f %11.1f %9.1f %9.1f %10.1f %9.1f %10.1f %11.1f %10.2f %11.2f %5s\n",
			k, y1, g1, t2, t100, t1000, p2, p100, p1000,
			t1000 / t2, p1000 / p2, t1000 <= 2 * t2 ? "yes" : "no"
	}
}
