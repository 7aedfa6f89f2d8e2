#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/pingpong/guest.sh -F fig2|fig7 [-r REPS] [-n ITER] [-o DIR]
#
# The sweeps of the seed paper's LIBRA figures with userspace/pingpong (two
# processes over shared memory), with the sched_compat_yield knob at 0 and
# at 1 when the kernel has it (else the kernel as is, "stock"). Within a
# repeat every point runs at both knob values back to back, the order of the
# knob values alternating from one repeat to the next.
#
#   fig2  one CPU, rank 0 a 50 us straggler, 1-byte messages, every wait
#         strategy of rank 1 (poll, yield, block, adaptive, sleep), once with
#         rank 0 polling for the reply (LIBRA's measuring side) and once with
#         rank 0 waiting with the same strategy (--rank0-wait same, as both
#         ranks do in an MPI library); ITER ping-pongs per run (default 200)
#   fig7  two CPUs, delays 0, 10, 50, 100, 500, 1000 us x sizes 1 B, 1 KiB,
#         64 KiB, 1 MiB, 8 MiB, rank 1 polls or blocks, rank 0 polls;
#         ITER ping-pongs per run (default 100) up to 1 KiB, ITER/2 at
#         64 KiB, ITER/5 at 1 MiB, ITER/10 at 8 MiB (at least 10)
#
# Writes DIR/pingpong.csv (a fig and a rep column, then pingpong -f csv's
# columns) and every sample of every run to DIR/samples/ (ns, one a line).
# Progress on stderr: the point, how many are done and left, the median.
# Run as root (in the test guest: bench/pingpong/run.sh). pingpong is taken
# from $SCY_BIN (default: userspace/ of the checkout).
set -euo pipefail
fig= reps=3 iters= out=.
usage_text="usage: bench/pingpong/guest.sh -F fig2|fig7 [-r REPS] [-n ITER] [-o DIR]"
. "$(dirname "$0")/../guest-lib.sh"
opts "F:fig r:reps n:iters o:out" "$@"
[[ $fig == fig2 || $fig == fig7 ]] || bad "-F: '$fig' is not fig2 or fig7"
posint -r "$reps" 9999
if [[ -z $iters ]]; then
	iters=200
	[[ $fig == fig7 ]] && iters=100
fi
posint -n "$iters" 9999999
pp=$(tool pingpong)
mkdir -p "$out/samples" || die "cannot create $out/samples"
knob_sweep_init

# The points: "placement strategy rank0_wait size delay_us iterations"
points=()
if [[ $fig == fig2 ]]; then
	for s in poll yield block adaptive sleep; do
		points+=("one $s poll 1 50 $iters")
		# poll with rank 0 waiting "the same" is the row above
		[[ $s == poll ]] || points+=("one $s same 1 50 $iters")
	done
else
	for size in 1 1024 65536 1048576 8388608; do
		n=$iters
		case $size in
		65536) n=$((iters / 2)) ;;
		1048576) n=$((iters / 5)) ;;
		8388608) n=$((iters / 10)) ;;
		esac
		((n >= 10)) || n=10
		for d in 0 10 50 100 500 1000; do
			for s in poll block; do
				points+=("two $s poll $size $d $n")
			done
		done
	done
fi
total=$((reps * ${#points[@]} * ${#knob_values[@]}))
csv=$out/pingpong.csv
header=
done_runs=0
start=$(date +%s)
for ((r = 1; r <= reps; r++)); do
	for p in "${points[@]}"; do
		read -r place s w size d n <<<"$p"
		warm=$((n / 10))
		((warm >= 2)) || warm=2
		for k in $(knob_order "$r"); do
			knob_set "$k"
			tag=$fig-k$k-$place-$s-r0$w-s$size-d$d-rep$r
			args=(-p "$place" -S "$s" --rank0-wait "$w" -s "$size" -D "$d"
			      -n "$n" -w "$warm" -o "$out/samples/$tag.txt" -f csv)
			res=$("$pp" "${args[@]}") || die "pingpong ${args[*]} failed"
			if [[ -z $header ]]; then
				header=$(head -n 1 <<<"$res")
				echo "fig,rep,$header" >"$csv"
			fi
			[[ $(head -n 1 <<<"$res") == "$header" ]] || die "pingpong's CSV header changed"
			row=$(tail -n 1 <<<"$res")
			got=$(cut -d, -f2 <<<"$row")
			want=$k
			[[ $k == stock ]] && want=absent
			[[ $got == "$want" ]] || die "pingpong ran with the knob at '$got', not $want"
			echo "$fig,$r,$row" >>"$csv"
			done_runs=$((done_runs + 1))
			med=$(awk -F, -v h="$header" 'BEGIN { n = split(h, f, ","); for (i = 1; i <= n; i++) if (f[i] == "median_us") c = i }
				{ print $c }' <<<"$row")
			el=$(($(date +%s) - start))
			printf 'bench-pingpong: %s %d/%d (%d left, %d guest s): knob %s, %s, rank 1 %s, rank 0 %s, %s B, %s us delay, rep %d: median %s us\n' \
				"$fig" "$done_runs" "$total" $((total - done_runs)) "$el" "$k" "$place" "$s" "$w" "$size" "$d" "$r" "$med" >&2
		done
	done
done
echo "bench-pingpong: $fig done, $total runs in $(($(date +%s) - start)) s; $csv" >&2
