#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/matrix/run.sh [KERNEL...]: the contract of the compat yield over
# the generated matrix of topologies (kselftest compat_yield_matrix), each
# cell's knob-1 window against the limits of the contract's bound, in a
# guest of each KERNEL (default: 6.12-patched 6.1-patched), 2 vCPUs under
# QEMU's single-threaded TCG, net of the guest's stalls (-S). Writes
# $RESULTS/bench-matrix/matrix.{csv,md,png} (bench-matrix-icount with
# ICOUNT, bench-matrix-full with MATRIX=full): every window (CSV, the
# kernel's name in front), and per cell the verdict line's figures (p99
# and max time away per yield at knob 1 against the limit, the shares),
# from each guest's TAP (matrix-KERNEL.tap).
# DURATION: seconds per window (default 2); MATRIX=full: the full product
# (2353 cells, about 100 minutes per kernel at 0.6-s windows) instead of the
# default set. ICOUNT=SHIFT: one-vCPU guests under QEMU -icount (vm/run.sh's
# SCY_ICOUNT; guest time is executed instructions): figures free of the
# host's load, as make check judges them (tests/starve-suite.sh); the
# migrate cells SKIP there (one CPU). One vCPU: the 6.1 guest kernel does
# not bring a second one up under QEMU 7.2's -icount (the boot waits in
# native_cpu_up() for minutes), and with two the vCPUs take turns on one
# host thread, which a migrate cell's samples span.
# Without -icount the vCPUs share one host thread and stall together when
# the host does not run it, which the matrix sees from its main process's
# late wake-ups on the other CPU and takes out of the samples (-S; in the
# migrate cells a watcher per CPU), so that the host's load stays out of
# the figures as far as the stalls are seen (from 1 ms); what a stall
# still moves (the time away, G1, the CPU shares) is reported, not judged
# (-U), and the loop-counter shares are judged.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=(6.12-patched 6.1-patched)
dur=${DURATION:-2}
set_args=() full=
case ${MATRIX:-default} in
default) ;;
full) set_args=(-F) full=1 ;;
*) die "MATRIX must be default or full, not '$MATRIX'" ;;
esac
icount=${ICOUNT:-}
[[ -z $icount || $icount =~ ^[0-9]$ ]] || die "ICOUNT must be a shift of 0..9 (got '$icount')"
# Without -icount: -S, the guest's stalls out of the samples, and -U, only
# what a stall shorter than a window cannot move judged (the loop-counter
# shares), as make check
# judges its plain guests; under -icount, whose guest time does not run on
# while the host stalls, every sub-check
stalls="-S -U"
[[ -z $icount ]] || stalls=
# the -icount runs and the full product have pages of their own
out=$RESULTS/bench-matrix${icount:+-icount}${full:+-full}
page=Documentation/results${icount:+/matrix-icount}${full:+/matrix-full}
mkdir -p "$out"
make -s -C "$SCY_REPO" selftests RESULTS="$RESULTS" >&2
csv=$out/matrix.csv
: >"$csv"
for k in "${kernels[@]}"; do
	kdir=$(kernel_get "$k")
	g=$out/guest-$k
	log "$k: compat_yield_matrix -d $dur ${set_args[*]} in a guest"
	SCY_ICOUNT=${icount:-off} SCY_CPUS=${icount:+1} SCY_TCG_THREAD=single \
		bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$g" --timeout 5400 -- \
		bash -c '"$1" -d "$2" $3 $4 -o /tmp/results/matrix.csv >/tmp/results/matrix.tap 2>&1' - \
		"$RESULTS/bin/selftests/compat_yield_matrix" "$dur" "${set_args[*]}" "$stalls" ||
		log "$k: some cells failed (see $g/matrix.tap)"
	[[ -s $g/matrix.csv && -s $g/matrix.tap ]] || die "$k: no matrix.csv or matrix.tap from the guest (see $g/job.log)"
	csv_add_kernel "$csv" "$g/matrix.csv" "$k"
	cp "$g/matrix.tap" "$out/matrix-$k.tap"
done
{
	info_head "DURATION=$dur${MATRIX:+ MATRIX=$MATRIX}${icount:+ ICOUNT=$icount} make bench-matrix KERNELS=\"${kernels[*]}\""
	echo "duration=$dur"
	echo "accel=$(cat "$out/guest-${kernels[0]}/accel")"
	[[ -n $icount ]] ||
		echo "note=The two vCPUs share one host thread (single-threaded TCG) and stall together while the host does not run it: the main process of the matrix, SCHED_FIFO on the other CPU, sees such a stall from a wake-up that comes late and every sample loses the stall time it spans (-S; in the migrate cells, where both vCPUs are busy, a watcher per CPU sees that CPU's own stalls and the other vCPU's turns on the thread). A stall seen only in part still moves the time away, G1 and the CPU shares: they are reported against the contract's limits, not judged (-U, as in make check's plain guests); the loop-counter shares are judged. The -icount page judges every sub-check."
	[[ -z $icount ]] ||
		echo "note=One vCPU under -icount: guest time is the instructions the guest executed, so no host load reaches the figures; the migrate cells, which need a second CPU, SKIP."
	echo "kernels=${kernels[*]}"
} >"$csv.info"
python3 "$SCY_REPO/bench/matrix/report.py" "$out"
log "results in $out: matrix.csv, matrix-KERNEL.tap, matrix.md, matrix.png (the committed page:"
log "  cp $out/matrix.{csv,csv.info,md,png} $out/matrix-*.tap $page/)"
