# SPDX-License-Identifier: GPL-2.0
#
# awk -F, -f bench/median.awk -f bench/ratio-table.awk -v test=N -v phase=N -v value=N \
#     -v a=NAME -v b=NAME -v alabel=TEXT -v blabel=TEXT -v ratio=TEXT [CSV]
#
# A two-phase comparison of a benchmark's CSV rows (header lines, whose
# value column is not a number, are skipped): for each test (column test,
# in the order of first appearance) the median, min and max of the values
# (column value) of the rows whose column phase is a, the same for b, and
# the ratio of the medians b / a.
$value ~ /^[0-9.]+$/ {
	vals[$test "," $phase] = vals[$test "," $phase] " " $value
	if (!($test in seen)) { seen[$test] = 1; tests[++nt] = $test }
}
END {
	printf "%-10s %26s %26s %8s\n", "test", alabel " (min-max)", blabel " (min-max)", ratio
	for (i = 1; i <= nt; i++) {
		ma = median(vals[tests[i] "," a]); al = median_lo; ah = median_hi
		mb = median(vals[tests[i] "," b]); bl = median_lo; bh = median_hi
		printf "%-10s %8.1f (%7.1f-%7.1f) %8.1f (%7.1f-%7.1f) %8.4f\n",
			tests[i], ma, al, ah, mb, bl, bh, ma ? mb / ma : 0
	}
}
