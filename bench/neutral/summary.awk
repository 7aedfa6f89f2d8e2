# SPDX-License-Identifier: GPL-2.0
#
# summary.awk: the summary of bench/neutral/guest.sh's rows
# (kernel,setting,rep,metric,value): per setting and metric the median of
# the repeats, with the smallest and the largest value.
#   awk -F, -f bench/median.awk -f bench/neutral/summary.awk
{ v[$2 "," $4] = v[$2 "," $4] " " $5 }
END {
	printf "%-10s %-18s %s\n", "setting", "metric", "median (min-max)"
	ns = split("off job-optin machine", s, " ")
	nm = split("hackbench_root_s hackbench_cgroup_s other_share", m, " ")
	for (i = 1; i <= ns; i++)
		for (j = 1; j <= nm; j++) {
			k = s[i] "," m[j]
			if (!(k in v))
				continue
			x = median(v[k])
			printf "%-10s %-18s %.4f (%.4f-%.4f)\n", s[i], m[j], x, median_lo, median_hi
		}
}
