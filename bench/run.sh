#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh share|mpi|mpi-all|cost|module KERNEL: boot that kernel (a
# name such as 6.12-patched, 6.1-stock or 6.12-debian; kernel_parse in
# vm/lib.sh) and run one benchmark in the guest, side by side at knob 0 and
# 1 when the kernel has the knob. Results in
# results/bench-WHAT-KVER-FLAVOR/.
#   share: compat_yield_share, DURATION s per run (table, CSV, PNG)
#   mpi:   Open MPI ping-pong, 2 ranks on one CPU, 50 us straggler (REPS runs)
#   mpi-all: Open MPI (yield_when_idle 0 and 1) and MPICH, 2 ranks on one CPU,
#          4 on two, a SCHED_IDLE co-runner, a hog in another autogroup
#          (bench/mpi-all/guest.sh; REPS runs, ITER ping-pongs, PARTS;
#          LIBS: only these wait strategies, their rows added to the
#          existing mpi-all.csv; MPICH_POLLS: mpich-ch3-y1's polls per yield).
#          Run it under -icount (SCY_ICOUNT=0; 6.1 needs SCY_CPUS=1 there):
#          bench/mpi-all/run.sh does.
#   cost:  yield-cost, 2 vs 100 vs 1000 runnable tasks, loop throughput
#   module: yield-cost with the yield_stats module not loaded and loaded,
#          alternating in one boot (ROUNDS on-phases, REPS runs per phase)
# SCY_BENCH_OUT=DIR: results in DIR instead.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"

usage="usage: bench/run.sh share|mpi|mpi-all|cost|module KERNEL (e.g. 6.12-patched)"
what=${1:?$usage}
name=${2:?$usage}
case $what in
share | mpi | mpi-all | cost | module) ;;
*) die "bench/run.sh: unknown benchmark '$what' (share, mpi, mpi-all, cost or module)" ;;
esac
kernel_parse "$name"
duration=${DURATION:-30}
reps=${REPS:-5}
out=${SCY_BENCH_OUT:-$RESULTS/bench-$what-$kver-$flavor}
bin=$RESULTS/bin
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
kdir=$(kernel_get "$name")
case $what in
share)
	cmd="'$bin/selftests/compat_yield_share' -d $duration -o \$SCY_RESULTS/share.csv"
	tmo=$(( duration * 12 + 300 )) ;;
mpi)
	cmd="SCY_BIN='$bin' bash bench/mpi/guest.sh -r $reps -n ${ITER:-2000} -o \$SCY_RESULTS/mpi.csv"
	tmo=$(( reps * 240 + 300 )) ;;
mpi-all)
	cmd="SCY_BIN='$bin' bash bench/mpi-all/guest.sh -r $reps -n ${ITER:-100} -P '${PARTS:-lat idle coloc lat4}' -Y ${MPICH_POLLS:-1}${LIBS:+ -a -L '$LIBS'} -o \$SCY_RESULTS"
	tmo=$(( reps * 1200 + 600 )) ;;
cost)
	cmd="SCY_BIN='$bin' bash bench/cost/guest.sh -r $reps -d ${DURATION:-1} -o \$SCY_RESULTS/cost.csv"
	tmo=$(( reps * 200 + 300 )) ;;
module)
	# yield_stats.ko for this kernel, built as tests/guest.sh does
	mod=$out/module
	bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$kver-$flavor" >&2 ||
		die "bench/run.sh: yield_stats.ko did not build against $kver-$flavor"
	rounds=${ROUNDS:-2}
	cmd="SCY_BIN='$bin' bash bench/module/guest.sh -m '$mod/yield_stats.ko' -R $rounds -r $reps -d ${DURATION:-1} -o \$SCY_RESULTS/module.csv"
	tmo=$(( (2 * rounds + 1) * reps * 4 * 30 + 300 )) ;;
esac
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout "$tmo" -- bash -c "$cmd"
cat "$out/job.log"
if [[ $what == share ]]; then
	python3 "$SCY_REPO/bench/share/table.py" "$out/share.csv" >"$out/share.md"
	gnuplot -e "in='$out/share.csv'; out='$out/share.png'" "$SCY_REPO/bench/share/plot.gp"
	cat "$out/share.md"
fi
log "results in ${out#$SCY_REPO/}/ (accelerator: $(cat "$out/accel"))"
