#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cost/guest.sh [-r REPS] [-d SECONDS] [-o CSV]
#
# Cost of one loop iteration "counter++; syscall" with every task pinned to
# one CPU (yield-cost): sched_yield() with 2, 100 and 1000 runnable tasks,
# both as threads of one process (yield-cost -t: a switch keeps the address
# space, so the ratio of 1000 to 2 tasks is the scheduler's own cost) and as
# processes (each switch also changes the address space), plus sched_yield()
# and getppid() alone, REPS runs of SECONDS each, with the sched_compat_yield
# knob at 0 and at 1 when the kernel has it (else the kernel as is, "stock").
# Within a repeat each configuration runs at both knob values back to back,
# the order of the knob values alternating from one repeat to the next, so
# drift hits both alike. Prints one CSV row per run (also written to CSV;
# the threads column is 1 for yield-cost -t) and a summary of the medians
# with the ratio ns(1000 tasks)/ns(2 tasks) for threads and for processes;
# the <=2x verdict is on the threads ratio.
# Run as root (in the test guest: bench/run.sh cost KVER PATCHED).
# yield-cost is taken from $SCY_BIN (default: userspace/ of the checkout).
set -euo pipefail
reps=5 dur=1 out=/dev/null
usage_text="usage: bench/cost/guest.sh [-r REPS] [-d SECONDS] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps d:dur o:out" "$@"
posint -r "$reps"
seconds -d "$dur"
yc=$(tool yield-cost)
# yield-cost -k sets and restores the knob itself; this covers the gaps
knob_sweep_init
# mode:tasks:threads, cheapest first
configs=(yield:1:0 yield:2:1 yield:2:0 yield:100:1 yield:100:0
	yield:1000:1 yield:1000:0 getppid:1:0)

header=kernel,knob,mode,threads,tasks,rep,seconds,calls,ns_per_call
echo "$header" | tee "$out"
rows=
for ((r = 1; r <= reps; r++)); do
	for c in "${configs[@]}"; do
		IFS=: read -r m n t <<<"$c"
		for k in $(knob_order "$r"); do
			args=(-m "$m" -n "$n" -d "$dur")
			((t)) && args+=(-t)
			[[ $k == stock ]] || args+=(-k "$k")
			yc_run "${args[@]}"
			want=$k
			[[ $k == stock ]] && want=absent
			[[ $yc_knob == "$want" ]] || die "yield-cost ran with the knob at '$yc_knob', not $want"
			[[ $yc_threads == "$t" ]] || die "yield-cost ran with threads=$yc_threads, not $t"
			row="$yc_kernel,$k,$m,$t,$n,$r,$yc_seconds,$yc_calls,$yc_ns"
			echo "$row" | tee -a "$out"
			rows+=$row$'\n'
		done
	done
done

echo
printf '%s' "$rows" | awk -F, -v reps="$reps" -v dur="$dur" \
	-f "$(dirname "$0")/../median.awk" -f "$(dirname "$0")/summary.awk"
