# SPDX-License-Identifier: GPL-2.0
#
# group-summary.awk: the summary of bench/cost/group-guest.sh's rows
# (kernel,group_at_1,threads,tasks,rep,seconds,calls,ns_per_call): per
# threads and tasks, the median ns per call (min, max) with no group at 1
# and with one, and the difference. Needs median.awk.
{ k = $3 FS $4; v[k, $2] = v[k, $2] " " $8; keys[k] = 1 }
END {
	print "threads,tasks,ns_none,min,max,ns_other,min,max,diff,pct"
	for (k in keys) {
		a = median(v[k, "none"]); alo = median_lo; ahi = median_hi
		b = median(v[k, "other"])
		printf "%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%+.1f,%+.2f%%\n", k,
			a, alo, ahi, b, median_lo, median_hi, b - a, 100 * (b - a) / a
	}
}
