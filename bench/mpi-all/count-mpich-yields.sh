#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# count-mpich-yields.sh [-c CPU] [-y "POLLS..."] [-n "ITER..."]: how often
# the ch3:nemesis MPICH (bench/mpi-all/build-mpich-ch3.sh, mpi-pingpong-mpich-ch3)
# calls sched_yield() in the MPI ping-pong (2 ranks pinned to CPU, default
# 0, 50 us straggler, 5 untimed ping-pongs first) for every
# MPIR_CVAR_POLLS_BEFORE_YIELD in POLLS (default "0 1 1000") and every ITER
# (default "50 250"): strace -f -c around mpiexec, one line per run:
#   polls=P iter=N sched_yield=CALLS mean_us=.. (the ping-pong's line)
# MPI_Init's and MPI_Finalize's shared-memory barrier yields whatever the
# variable says; the difference between two ITER values is the timed
# loop's. strace stops the ranks at every call: the times it prints are
# not the benchmark's. At the knob's current value, on the host or in a
# guest (bash vm/run.sh ... -- bash bench/mpi-all/count-mpich-yields.sh).
# Binaries from $SCY_BIN (default: userspace/ of the checkout).
set -euo pipefail
cpu=0 polls="0 1 1000" iters="50 250"
usage_text='usage: count-mpich-yields.sh [-c CPU] [-y "POLLS..."] [-n "ITER..."]'
. "$(dirname "$0")/../guest-lib.sh"
opts "c:cpu y:polls n:iters" "$@"
command -v strace >/dev/null || die "strace not found"
tool mpi-pingpong-mpich-ch3 "bash bench/mpi-all/build-mpich-ch3.sh, then make userspace" >/dev/null
# hydra finds its proxy next to the real mpiexec.hydra, not next to the link
mx=$(readlink -f "$bin/mpiexec-mpich-ch3")
st=$(mktemp)
trap 'rm -f "$st"' EXIT
for y in $polls; do
	for n in $iters; do
		line=$(taskset -c "$cpu" strace -f -c -e trace=sched_yield -o "$st" "$mx" -launcher fork -iface lo -np 2 \
			-genv MPIR_CVAR_POLLS_BEFORE_YIELD "$y" "$bin/mpi-pingpong-mpich-ch3" -n "$n" -w 5 -D 50 | grep '^mean_us=')
		c=$(awk '$NF == "sched_yield" { print $4 }' "$st")
		echo "polls=$y iter=$n sched_yield=${c:-0} $line"
	done
done
