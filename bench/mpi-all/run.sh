#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi-all/run.sh [STEP...]: bench/mpi-all/guest.sh (Open MPI and MPICH
# oversubscribed, a SCHED_IDLE co-runner, a hog in another autogroup) in
# guests of both kernels under QEMU -icount (guest time = executed
# instructions, see vm/run.sh), one guest at a time, then their tables and
# figures (bench/mpi-all/report.sh; the committed ones are in
# Documentation/results/mpi.md).
# STEPs (default 6.1-patched 6.1-patched-lat4tcg 6.12-stock 6.12-patched;
# 6.1-stock is a further possible one). 6.1 hangs bringing up a second vCPU
# under -icount, so its guests get one vCPU and skip the 4-rank part; 6.12
# guests get two. KVER-FLAVOR-lat4tcg runs that 4-rank part alone (PARTS
# lat4, REPS default 3, ITER default 50) in a guest with 2 vCPUs under plain
# multi-threaded TCG instead, into results/bench-mpi-all-KVER-FLAVOR-lat4tcg:
# its times are the host's, they depend on its load; the report puts it in a
# table of its own.
# The report of a measurement goes to results/mpi-all-report/.
# --report: no guests, only the report from the STEPs' existing results,
# into Documentation/results/mpi-all.*.
# Environment: REPS (default 1), ITER (default 100), PARTS (default
# "lat idle coloc lat4"), LIBS (default all wait strategies: see
# bench/mpi-all/guest.sh; given, only these run and their rows are
# added to the step's existing mpi-all.csv), MPICH_POLLS (default 1:
# mpich-ch3-y1's MPIR_CVAR_POLLS_BEFORE_YIELD), RESULTS, ICOUNT (default 0).
# The report covers the STEPS given only: for the tables of several
# invocations, --report with all of their STEPS. Before the guests,
# bench/mpi-all/build-mpich-ch3.sh builds MPICH with ch3:nemesis (the mpich-ch3-*
# strategies) if it is not built yet and LIBS asks for them, once (the
# README says how long).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

R=${RESULTS:-$SCY_REPO/results}
report_only=0
[[ ${1:-} == --report ]] && { report_only=1; shift; }
steps=("$@")
((${#steps[@]})) || steps=(6.1-patched 6.1-patched-lat4tcg 6.12-stock 6.12-patched)
# step_parse STEP: kver, flavor and variant of a STEP, or die
step_parse() {
	IFS=- read -r kver flavor variant <<<"$1"
	kver_check "$kver"
	case $flavor in
	patched | stock) ;;
	*) die "bench/mpi-all/run.sh: '$1' is not KVER-patched, KVER-stock or KVER-FLAVOR-lat4tcg" ;;
	esac
	[[ -z $variant || $variant == lat4tcg ]] ||
		die "bench/mpi-all/run.sh: '$1': the only variant is lat4tcg"
}
# every step is checked before anything is built or booted
for s in "${steps[@]}"; do step_parse "$s"; done
if ((!report_only)); then
	# MPICH ch3 only for the strategies that use it
	if [[ -z ${LIBS:-} || " $LIBS " == *" mpich-ch3-"* ]]; then
		bash "$SCY_REPO/bench/mpi-all/build-mpich-ch3.sh" >/dev/null
	fi
	make -s -C "$SCY_REPO" userspace RESULTS="$R" >&2
fi
dirs=()
for s in "${steps[@]}"; do
	step_parse "$s"
	dirs+=("$R/bench-mpi-all-$s")
	((report_only)) && continue
	if [[ $variant == lat4tcg ]]; then
		log "=== $s: 2 vCPUs, plain multi-threaded TCG (times depend on the host's load) ==="
		(SCY_ICOUNT=off SCY_CPUS=2 REPS=${REPS:-3} ITER=${ITER:-50} PARTS=lat4 RESULTS=$R \
			SCY_BENCH_OUT=$R/bench-mpi-all-$s bash "$SCY_REPO/bench/run.sh" mpi-all "$kver-$flavor")
		continue
	fi
	cpus=2
	[[ $kver == 6.1 ]] && cpus=1
	log "=== $s: $cpus vCPU(s), -icount shift=${ICOUNT:-0} ==="
	SCY_ICOUNT=${ICOUNT:-0} SCY_CPUS=$cpus REPS=${REPS:-1} ITER=${ITER:-100} \
		PARTS=${PARTS:-lat idle coloc lat4} RESULTS=$R \
		bash "$SCY_REPO/bench/run.sh" mpi-all "$kver-$flavor"
done
# A measurement reports into results/; --report makes the committed page's
# tables and figures from the results already there.
if ((report_only)); then
	bash "$SCY_REPO/bench/mpi-all/report.sh" "$SCY_REPO/Documentation/results/mpi-all" "${dirs[@]}"
else
	mkdir -p "$R/mpi-all-report"
	bash "$SCY_REPO/bench/mpi-all/report.sh" "$R/mpi-all-report/mpi-all" "${dirs[@]}"
	log "the committed tables: bash bench/mpi-all/run.sh --report STEP... (every step of Documentation/results/mpi.md)"
fi
