# SPDX-License-Identifier: GPL-2.0
#
# awk -F, -f bench/share/table.awk CSV: the share benchmark's CSV
# (compat_yield_share -o, yield-share -f csv) as a Markdown table. The
# column "vs 1-hog CPU share" relates the yielder's CPU-time share to that
# of the same-group 1-hog run at the same knob value (the floor: one loop
# iteration per slice).
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	n++
	sc[n] = $col["scenario"]; kn[n] = $col["knob"]
	yc[n] = $col["yielder_counter_share"]; yt[n] = $col["yielder_cpu_share"]
	ht[n] = $col["hog_cpu_share"]; d[n] = $col["duration_s"]
	if (sc[n] == "yield-1hog")
		floor[kn[n]] = yt[n]
}
END {
	print "| scenario | knob | yielder counter share | yielder CPU-time share | vs 1-hog CPU share | hogs CPU-time share | duration |"
	print "|---|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		r = (sc[i] ~ /^yield/ && floor[kn[i]] > 0) ? sprintf("%.2fx", yt[i] / floor[kn[i]]) : "-"
		printf "| %s | %s | %.3f%% | %.2f%% | %s | %.2f%% | %s s |\n", sc[i], kn[i],
			100 * yc[i], 100 * yt[i], r, 100 * ht[i], d[i]
	}
}
