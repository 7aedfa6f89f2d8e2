#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi-all/run.sh [--report] [KERNEL...]: bench/mpi-all/guest.sh (Open
# MPI and MPICH oversubscribed, a SCHED_IDLE co-runner, a hog in another
# autogroup) in a guest of each KERNEL under QEMU -icount (guest time =
# executed instructions, see vm/run.sh), one guest at a time, then their
# tables and figures (bench/mpi-all/report.sh; the committed ones are in
# Documentation/results/mpi.md). KERNEL is a kernel name (VERSION-FLAVOR,
# kernel_parse in vm/lib.sh; default: 6.1-patched 6.12-stock 6.12-patched).
# 6.1 hangs bringing up a second vCPU under -icount, so its guests get one
# vCPU, and the 4-rank part (lat4, when PARTS has it) runs in a second guest
# of the same kernel with 2 vCPUs under plain multi-threaded TCG, into
# results/bench-mpi-all-KVER-FLAVOR-lat4tcg: its times are the host's,
# they depend on its load; the report puts them in a table of their own.
# 6.12 guests get two vCPUs and run every part under -icount.
# The report of a measurement goes to results/mpi-all-report/.
# --report: no guests, only the report from the KERNELs' existing results,
# into Documentation/results/mpi-all.*.
# Environment: REPS (default 1), ITER (default 100), PARTS (default
# "lat idle coloc lat4"), LIBS (default all wait strategies: see
# bench/mpi-all/guest.sh; given, only these run and their rows are
# added to the kernel's existing mpi-all.csv), MPICH_POLLS (default 1:
# mpich-ch3-y1's MPIR_CVAR_POLLS_BEFORE_YIELD), RESULTS, ICOUNT (default 0).
# The report covers the KERNELs given only: for the tables of several
# invocations, --report with all of their KERNELs. Before the guests,
# bench/mpi-all/build-mpich-ch3.sh builds MPICH with ch3:nemesis (the mpich-ch3-*
# strategies) if it is not built yet and LIBS asks for them, once (the
# README says how long).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

report_only=0
[[ ${1:-} == --report ]] && { report_only=1; shift; }
kernels=("$@")
((${#kernels[@]})) || kernels=(6.1-patched 6.12-stock 6.12-patched)
# every kernel name is checked before anything is built or booted
for k in "${kernels[@]}"; do kernel_parse "$k"; done
parts=${PARTS:-lat idle coloc lat4}
if ((!report_only)); then
	# MPICH ch3 only for the strategies that use it
	if [[ -z ${LIBS:-} || " $LIBS " == *" mpich-ch3-"* ]]; then
		bash "$SCY_REPO/bench/mpi-all/build-mpich-ch3.sh" >/dev/null
	fi
	make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
fi
# guest PARTS CPUS ICOUNT [DIR]: run the parts PARTS in a guest of the
# current kernel ($kver-$flavor)
guest() {
	(
		export SCY_ICOUNT=$3 SCY_CPUS=$2 REPS=${REPS:-1} ITER=${ITER:-100} PARTS=$1 RESULTS=$RESULTS
		[[ -z ${4:-} ]] || export SCY_BENCH_OUT=$4
		bash "$SCY_REPO/bench/run.sh" mpi-all "$kver-$flavor"
	)
}
dirs=()
for k in "${kernels[@]}"; do
	kernel_parse "$k"
	d=$RESULTS/bench-mpi-all-$k
	split=0
	[[ $kver == 6.1 && " $parts " == *" lat4 "* ]] && split=1
	if ((report_only)); then
		# the -icount results, and the plain-TCG 4-rank ones where they are
		[[ -d $d || ! -d $d-lat4tcg ]] && dirs+=("$d")
		[[ -d $d-lat4tcg ]] && dirs+=("$d-lat4tcg")
		continue
	fi
	if [[ $kver == 6.1 ]]; then
		p=$(sed 's/\<lat4\>//g; s/  */ /g; s/^ //; s/ $//' <<<"$parts")
		if [[ -n $p ]]; then
			log "=== $k: 1 vCPU, -icount shift=${ICOUNT:-0} ==="
			guest "$p" 1 "${ICOUNT:-0}"
			dirs+=("$d")
		fi
		if ((split)); then
			log "=== $k, lat4: 2 vCPUs, plain multi-threaded TCG (times depend on the host's load) ==="
			guest lat4 2 off "$d-lat4tcg"
			dirs+=("$d-lat4tcg")
		fi
	else
		log "=== $k: 2 vCPUs, -icount shift=${ICOUNT:-0} ==="
		guest "$parts" 2 "${ICOUNT:-0}"
		dirs+=("$d")
	fi
done
# A measurement reports into results/; --report makes the committed page's
# tables and figures from the results already there.
if ((report_only)); then
	bash "$SCY_REPO/bench/mpi-all/report.sh" "$SCY_REPO/Documentation/results/mpi-all" "${dirs[@]}"
	# the page shows the report's tables as they are
	python3 "$SCY_REPO/bench/pageblock.py" "$SCY_REPO/Documentation/results/mpi.md"
else
	mkdir -p "$RESULTS/mpi-all-report"
	bash "$SCY_REPO/bench/mpi-all/report.sh" "$RESULTS/mpi-all-report/mpi-all" "${dirs[@]}"
	log "the committed tables: bash bench/mpi-all/run.sh --report KERNEL... (every kernel of Documentation/results/mpi.md)"
fi
