#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/latency/run.sh [KERNEL...]: the time away per sched_yield(), the
# kselftest compat_yield_latency, in a one-CPU guest of each KERNEL under
# QEMU -icount (guest time = executed instructions, free of the host's
# load), knob 0 and 1 alternating in one boot. KERNEL is a kernel name
# (VERSION-FLAVOR, kernel_parse in vm/lib.sh; default: 6.12-patched
# 6.1-patched). Writes
# $RESULTS/bench-latency/latency.{csv,md,png}: every window's yields, p50,
# p99 and max, per kernel, placement and light rival.
# DURATION: seconds per window (default 5).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

out=$RESULTS/bench-latency
kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=(6.12-patched 6.1-patched)
dur=${DURATION:-5}
mkdir -p "$out"
make -s -C "$SCY_REPO" selftests RESULTS="$RESULTS" >&2
csv=$out/latency.csv
: >"$csv"
for k in "${kernels[@]}"; do
	kdir=$(kernel_get "$k")
	g=$out/guest-$k
	log "$k: compat_yield_latency -d $dur in a one-CPU guest under -icount"
	SCY_ICOUNT=2 SCY_CPUS=1 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$g" \
		--timeout 3600 -- "$RESULTS/bin/selftests/compat_yield_latency" -d "$dur" \
		-o /tmp/results/latency.csv || log "$k: some checks failed (see $g/job.log)"
	[[ -s $g/latency.csv ]] || die "$k: no latency.csv from the guest (see $g/job.log)"
	csv_add_kernel "$csv" "$g/latency.csv" "$k"
done
{
	info_head "DURATION=$dur make bench-latency KERNELS=\"${kernels[*]}\""
	echo "duration=$dur"
} >"$csv.info"
python3 "$SCY_REPO/bench/latency/report.py" "$csv" "$out"
log "results in $out: latency.csv, latency.md, latency.png (the committed page:"
log "  cp $out/latency.{csv,csv.info,md,png} Documentation/results/)"
