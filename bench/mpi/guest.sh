#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi/guest.sh [-r REPS] [-n ITER] [-D DELAY_US] [-s SIZE] [-o CSV]
#
# Open MPI ping-pong, 2 ranks pinned to one CPU, rank 0 a straggler by
# DELAY_US, --mca mpi_yield_when_idle 1, with the sched_compat_yield knob at
# 0 and at 1 (alternating, REPS runs each) when the knob exists, else once
# per rep as "stock". Prints one CSV row per run and a median summary.
# Run as root (in the test guest: vm/run.sh ... -- bash bench/mpi/guest.sh).
set -euo pipefail
reps=5 iters=2000 delay=50 size=1 out=/dev/null
usage_text="usage: bench/mpi/guest.sh [-r REPS] [-n ITER] [-D DELAY_US] [-s SIZE] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps n:iters D:delay s:size o:out" "$@"
posint -r "$reps"
posint -n "$iters"
[[ $delay =~ ^[0-9]{1,7}$ ]] || bad "-D: '$delay' is not a delay of 0..9999999 us"
posint -s "$size"
pp=$(tool mpi-pingpong "make userspace; needs mpicc")
command -v mpirun >/dev/null || die "mpirun not found"
cpu=$(( $(nproc) - 1 ))
knob_sweep_init
echo "kernel,knob,rep,mean_us,stddev_us,median_us,p99_us,iterations,size,delay_us" | tee "$out"
for r in $(seq 1 "$reps"); do
	for k in $(knob_order "$r"); do
		knob_set "$k"
		line=$(taskset -c "$cpu" mpirun --allow-run-as-root --oversubscribe -np 2 \
			--bind-to none --mca mpi_yield_when_idle 1 \
			"$pp" -n "$iters" -D "$delay" -s "$size" | grep '^mean_us=')
		eval "$(tr ' ' '\n' <<<"$line" | sed 's/^/local_/')"
		# shellcheck disable=SC2154
		echo "$(uname -r),$k,$r,$local_mean_us,$local_stddev_us,$local_median_us,$local_p99_us,$local_iterations,$local_size,$local_delay_us" | tee -a "$out"
	done
done
