#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# share-table.sh CSV: the share benchmark's CSV as a Markdown table.
set -euo pipefail
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	if (!hdr++) {
		print "| scenario | knob | yielder counter share | yielder CPU-time share | hog(s) CPU-time share | duration |"
		print "|---|---|---:|---:|---:|---:|"
	}
	printf "| %s | %s | %.2f%% | %.2f%% | %.2f%% | %s s |\n", $col["scenario"], $col["knob"],
		100 * $col["yielder_counter_share"], 100 * $col["yielder_cpu_share"],
		100 * $col["hog_cpu_share"], $col["duration_s"]
}' "$1"
