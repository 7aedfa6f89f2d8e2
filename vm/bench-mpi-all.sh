#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-mpi-all.sh [STEP...]: userspace/bench-mpi-all.sh (Open MPI and MPICH
# oversubscribed, a SCHED_IDLE co-runner, a hog in another autogroup) in
# guests of both kernels under QEMU -icount (guest time = executed
# instructions, see vm/run.sh), one guest at a time, then the tables and
# the figure of Documentation/results.md section 7 (vm/mpi-all-report.sh).
# STEPs (default 6.1-patched 6.12-stock 6.12-patched; 6.1-stock is the
# fourth possible one). 6.1 hangs bringing up a second vCPU under -icount,
# so its guests get one vCPU and skip the 4-rank part; 6.12 guests get two.
# --report: no guests, only the report from the STEPs' existing results.
# Environment: REPS (default 1), ITER (default 100), PARTS (default
# "lat idle coloc lat4"), RESULTS, ICOUNT (default 0). Under -icount with
# ITER=50 a run took 15-20 s of wall-clock time on 6.1 (one vCPU) and
# 20-40 s on 6.12 (two) here. The report covers the STEPS given only: for
# the tables of several invocations, --report with all of their STEPS.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

R=${RESULTS:-$SCY_REPO/results}
report_only=0
[[ ${1:-} == --report ]] && { report_only=1; shift; }
steps=("$@")
((${#steps[@]})) || steps=(6.1-patched 6.12-stock 6.12-patched)
dirs=()
for s in "${steps[@]}"; do
	kver=${s%-*} flavor=${s#*-}
	kver_check "$kver"
	case $flavor in
	patched) p=1 ;;
	stock) p=0 ;;
	*) die "bench-mpi-all.sh: '$s' is not KVER-patched or KVER-stock" ;;
	esac
	dirs+=("$R/bench-mpi-all-$kver-$flavor")
	((report_only)) && continue
	cpus=2
	[[ $kver == 6.1 ]] && cpus=1
	log "=== $s: $cpus vCPU(s), -icount shift=${ICOUNT:-0} ==="
	SCY_ICOUNT=${ICOUNT:-0} SCY_CPUS=$cpus REPS=${REPS:-1} ITER=${ITER:-100} \
		PARTS=${PARTS:-lat idle coloc lat4} RESULTS=$R \
		bash "$SCY_REPO/vm/bench.sh" mpi-all "$kver" "$p"
done
bash "$SCY_REPO/vm/mpi-all-report.sh" "$SCY_REPO/Documentation/results/mpi-all" "${dirs[@]}"
