#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/jobs/run.sh [KERNEL...]: co-scheduled parallel jobs of real
# runtimes (bench/jobs/guest.sh: OpenMP with libomp and libgomp, oneTBB,
# Open MPI) in a 2-vCPU guest of each KERNEL (a kernel name, kernel_parse
# in vm/lib.sh; default: 6.12-patched 6.1-patched), knob 0 and 1
# alternating in one boot where the kernel has the knob, with the
# yield_stats module loaded to count the yields. Writes
# $RESULTS/bench-jobs/jobs.{csv,csv.info,md,png}: a row per job and run,
# and the report of bench/jobs/report.py (makespan per set against one job
# alone and against the ideal, per kernel, runtime, placement and knob).
# REPS (default 3), STEPS (default 400), WORK=HEAVY,LIGHT (default
# 1000,125), RUNTIMES and PLACEMENTS (default: all of bench/jobs/guest.sh).
# ICOUNT=N: the guests under QEMU -icount shift=N, where guest time counts
# executed instructions and a host stall moves no figure (single-threaded
# TCG; the second vCPU put online after boot, as tests/jobs.sh does:
# Debian's 6.1 stops at boot bringing it up under -icount). A unit of work
# then takes 2^N ns per instruction: WORK=50,6 makes a step about as long
# as 1000,125 under plain TCG (a tick).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

out=$RESULTS/bench-jobs
kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=(6.12-patched 6.1-patched)
reps=${REPS:-3} steps=${STEPS:-400} work=${WORK:-1000,125}
mkdir -p "$out"
csv=$out/jobs.csv
# APPEND=1: add the rows of this run to an earlier jobs.csv (other
# kernels) instead of starting anew
append=0
[[ ${APPEND:-0} != 1 || ! -s $csv ]] || append=1
# a set is named by kernel, knob, run, runtime and placement: a second run
# of a runtime on a kernel in the same CSV would mix its sets (and its
# "alone" baseline) with the first one's, as would a word given twice;
# other runtimes of that kernel (RUNTIMES) may be added
for list in "${kernels[*]}" "${RUNTIMES:-}" "${PLACEMENTS:-}"; do
	twice=$(tr ' ' '\n' <<<"$list" | sed '/^$/d' | sort | uniq -d | paste -sd ' ')
	[[ -z $twice ]] || die "given twice: $twice (each set would hold the jobs of both)"
done
# has_rows KERNEL [RUNTIME]: the CSV has rows of KERNEL (and RUNTIME)
has_rows() {
	awk -F, -v k="$1" -v rt="${2:-}" '$1 == k && (rt == "" || $5 == rt) { f = 1; exit } END { exit !f }' "$csv"
}
for k in "${kernels[@]}"; do
	[[ $append == 1 ]] || break
	if [[ -z ${RUNTIMES:-} ]]; then
		! has_rows "$k" ||
			die "$csv has rows of $k already: APPEND=1 adds other kernels, or runtimes (RUNTIMES) $k has no rows of"
		continue
	fi
	for rt in $RUNTIMES; do
		! has_rows "$k" "$rt" ||
			die "$csv has rows of $rt on $k already: APPEND=1 adds other kernels or runtimes (start a new RESULTS for another run of it)"
	done
done
make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
[[ $append == 1 ]] || : >"$csv"
for k in "${kernels[@]}"; do
	kernel_parse "$k"
	kdir=$(kernel_get "$k")
	mod=$out/module-$k
	bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$k" >&2 ||
		die "yield_stats.ko did not build against $k"
	g=$out/guest-$k
	mkdir -p "$g"
	rm -f "$g/jobs.csv"
	cp "$mod/yield_stats.ko" "$g/"
	log "$k: bench/jobs/guest.sh -r $reps -n $steps -w $work"
	online=()
	if [[ -n ${ICOUNT:-} ]]; then
		export SCY_ICOUNT=$ICOUNT SCY_TCG_THREAD=single
		online=(--append maxcpus=1)
	fi
	bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$g" --timeout "${SCY_TIMEOUT:-7200}" "${online[@]}" \
		-- env SCY_BIN="$RESULTS/bin" bash -c "${ICOUNT:+echo 1 >/sys/devices/system/cpu/cpu1/online && }"'exec bash bench/jobs/guest.sh "$@"' - \
		-r "$reps" -n "$steps" -w "$work" \
		${RUNTIMES:+-R "$RUNTIMES"} ${PLACEMENTS:+-P "$PLACEMENTS"} \
		-m /tmp/results/yield_stats.ko -o /tmp/results/jobs.csv \
		|| die "$k: the jobs failed (see $g/job.log)"
	[[ -s $g/jobs.csv ]] || die "$k: no jobs.csv from the guest (see $g/job.log)"
	csv_add_kernel "$csv" "$g/jobs.csv" "$k"
done
# the commands of earlier runs whose rows this one added to
prior=
[[ $append != 1 ]] || prior=$(info_prior "$csv.info")
{
	[[ -z $prior ]] || echo "$prior"
	info_head "${ICOUNT:+ICOUNT=$ICOUNT }REPS=$reps STEPS=$steps WORK=$work${RUNTIMES:+ RUNTIMES=\"$RUNTIMES\"}${PLACEMENTS:+ PLACEMENTS=\"$PLACEMENTS\"} make bench-jobs KERNELS=\"${kernels[*]}\""
	if [[ -n ${ICOUNT:-} ]]; then
		echo "guest=2 vCPUs, QEMU TCG -icount shift=$ICOUNT (guest time = executed instructions), single-threaded"
	else
		echo "guest=2 vCPUs, QEMU TCG (multi-threaded)"
	fi
} >"$csv.info"
python3 "$SCY_REPO/bench/jobs/report.py" "$csv" "$out"
log "results in $out: jobs.csv, jobs.md (its tables), jobs.png; the committed page:"
log "  cp $out/jobs.{csv,csv.info,png} Documentation/results/, then"
log "  python3 bench/jobs/report.py Documentation/results/jobs.md and the same with Documentation/results.md (their tables made anew)"
