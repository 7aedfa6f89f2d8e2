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
reps=5 dur=2 out=/dev/null
usage_text="usage: bench/cost/guest.sh [-r REPS] [-d SECONDS] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
while getopts "r:d:o:h" o; do
	case $o in
	r) reps=$OPTARG ;;
	d) dur=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# == 0)) || usage
posint -r "$reps"
seconds -d "$dur"
yc=$bin/yield-cost
[[ -x $yc ]] || { echo "bench/cost/guest.sh: $yc not built (make -C userspace)" >&2; exit 2; }
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
			args=(-m "$m" -n "$n" -d "$dur" -f kv)
			((t)) && args+=(-t)
			[[ $k == stock ]] || args+=(-k "$k")
			line=$("$yc" "${args[@]}" | grep '^run ') ||
				die "yield-cost ${args[*]} failed"
			kernel='' kv='' tv='' seconds='' calls='' ns=''
			read -ra words <<<"$line"
			for w in "${words[@]}"; do
				case $w in
				kernel=*) kernel=${w#*=} ;;
				knob=*) kv=${w#*=} ;;
				threads=*) tv=${w#*=} ;;
				seconds=*) seconds=${w#*=} ;;
				calls=*) calls=${w#*=} ;;
				ns_per_call=*) ns=${w#*=} ;;
				esac
			done
			want=$k
			[[ $k == stock ]] && want=absent
			[[ $kv == "$want" ]] || die "yield-cost ran with the knob at '$kv', not $want"
			[[ $tv == "$t" ]] || die "yield-cost ran with threads=$tv, not $t"
			row="$kernel,$k,$m,$t,$n,$r,$seconds,$calls,$ns"
			echo "$row" | tee -a "$out"
			rows+=$row$'\n'
		done
	done
done

echo
printf '%s' "$rows" | awk -F, -v reps="$reps" -v dur="$dur" '
function median(key,    m, i, j, t, a) {
	m = cnt[key]
	for (i = 1; i <= m; i++)
		a[i] = val[key, i] + 0
	for (i = 2; i <= m; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
{
	kernel = $1
	if (!($2 in seen)) {
		seen[$2] = 1
		knobs[++nk] = $2
	}
	key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
	val[key, ++cnt[key]] = $9
}
END {
	printf "yield-cost medians, ns per call (%d runs of %s s each), kernel %s\n",
		reps, dur, kernel
	printf "thr: threads of one process, proc: processes; <=2x: is the threads ratio n1000/n2 at most 2 (proc ratio alongside)\n"
	printf "%-6s %9s %11s %9s %9s %10s %9s %10s %11s %10s %11s %5s\n", "knob",
		"yield n=1", "getppid n=1", "thr n=2", "thr n=100", "thr n=1000",
		"proc n=2", "proc n=100", "proc n=1000", "thr 1000/2",
		"proc 1000/2", "<=2x"
	for (i = 1; i <= nk; i++) {
		k = knobs[i]
		y1 = median(k SUBSEP "yield" SUBSEP 0 SUBSEP 1)
		g1 = median(k SUBSEP "getppid" SUBSEP 0 SUBSEP 1)
		t2 = median(k SUBSEP "yield" SUBSEP 1 SUBSEP 2)
		t100 = median(k SUBSEP "yield" SUBSEP 1 SUBSEP 100)
		t1000 = median(k SUBSEP "yield" SUBSEP 1 SUBSEP 1000)
		p2 = median(k SUBSEP "yield" SUBSEP 0 SUBSEP 2)
		p100 = median(k SUBSEP "yield" SUBSEP 0 SUBSEP 100)
		p1000 = median(k SUBSEP "yield" SUBSEP 0 SUBSEP 1000)
		printf "%-6s %9.1f %11.1f %9.1f %9.1f %10.1f %9.1f %10.1f %11.1f %10.2f %11.2f %5s\n",
			k, y1, g1, t2, t100, t1000, p2, p100, p1000,
			t1000 / t2, p1000 / p2, t1000 <= 2 * t2 ? "yes" : "no"
	}
}'
