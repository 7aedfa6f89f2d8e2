# SPDX-License-Identifier: GPL-2.0
#
# median.awk: the median of the numbers in a blank-separated string, for
# the benchmarks' summary tables (awk -f bench/median.awk -f TABLE.awk).
# median(S) returns the median of S (0 for an empty S) and sets
# median_lo and median_hi to the smallest and the largest number of S.
function median(s,    v, n, i, j, x) {
	n = split(s, v, " ")
	if (!n) {
		median_lo = median_hi = 0
		return 0
	}
	for (i = 1; i <= n; i++)
		v[i] += 0
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
	median_lo = v[1]
	median_hi = v[n]
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
