#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/pingpong/run.sh KERNEL: the LIBRA figures of the seed paper with
# userspace/pingpong in guests of that kernel (a name such as 6.12-patched
# or 6.1-stock; kernel_parse in vm/lib.sh), the knob at 0 and 1 side by
# side in each boot when the kernel has it (bench/pingpong/guest.sh). Results in
# results/bench-pingpong-KVER-FLAVOR/{fig2,fig7}/pingpong.csv and samples/,
# a summary in .../report/ (bench/pingpong/report.sh).
#
#   fig2  one CPU, 50 us straggler, 1 B, every wait strategy, rank 0 polling
#         and both ranks waiting alike. Runs under QEMU's -icount (ICOUNT,
#         default 0, see vm/run.sh): guest time is the number of executed
#         instructions, repeatable and blind to the host's load, which is
#         what a one-CPU comparison needs. ICOUNT=off: plain TCG. The
#         guest gets one vCPU (CPUS2, default 1): 6.1 does not boot with two
#         under -icount (it hangs bringing up CPU 1), and one vCPU on both
#         kernels keeps the scheduler's CPU-count scaling of slices alike.
#   fig7  two CPUs, delays 0..1000 us x sizes 1 B..8 MiB, poll vs block.
#         Also under -icount by default (ICOUNT7, default 0): the two vCPUs
#         then take turns on one host thread, switching at every PAUSE of a
#         polling loop, and guest time counts the instructions of both, so
#         a latency is the work both CPUs did in between (no overlap) -
#         repeatable, but not a parallel machine. ICOUNT7=off: plain
#         TCG with a host thread per vCPU, truly parallel only while the
#         host has two idle cores; on a loaded host polling across vCPUs
#         waits for the host to schedule the other vCPU's thread (ms).
#         6.1 needs ICOUNT7=off (see fig2).
#
# bench/pingpong/run.sh all: fig2 on both kernels, patched and stock (one
# repeat: the knob at 0 is the stock yield), fig7 on 6.12 under -icount,
# and fig7 on both kernels under plain TCG (one repeat, in results/tcg/),
# then the tables and figures of Documentation/results/pingpong.md:
# Documentation/results/pingpong-fig{2,7}.* (-icount) and
# pingpong-tcg-fig7.* (plain TCG), whose tables the page includes.
#
# Environment: FIGS (default "fig2 fig7"), REPS (runs per point and knob
# value, default 2), ITER2 (ping-pongs per fig2 run, default 60), ITER7
# (per fig7 run up to 1 KiB, default 60; fewer for larger messages). Under
# -icount a polling loop runs ~100x slower than real time (every PAUSE
# leaves QEMU's execution loop), so a ping-pong that costs a slice of
# polling costs minutes of wall-clock time per guest second: the defaults
# keep "all" at about 20 minutes on a 2-core host.
# The guest's progress lines are shown on stderr as they come.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

usage() {
	echo "usage: bench/pingpong/run.sh KERNEL (e.g. 6.12-patched, 6.1-stock) | all" >&2
	exit 2
}
if [[ $# == 1 && $1 == all ]]; then
	R=$RESULTS
	# KERNEL FIGS REPS RESULTS ICOUNT7
	steps=("6.12-patched fig2,fig7 ${REPS:-2} $R 0" "6.1-patched fig2 ${REPS:-2} $R 0"
	       "6.12-stock fig2 1 $R 0" "6.1-stock fig2 1 $R 0"
	       "6.12-patched fig7 1 $R/tcg off" "6.1-patched fig7 1 $R/tcg off")
	for i in "${!steps[@]}"; do
		read -r k f r res ic <<<"${steps[$i]}"
		log "=== step $((i + 1))/${#steps[@]}: $k, ${f/,/ }, $r repeats, ICOUNT7=$ic ==="
		FIGS=${f/,/ } REPS=$r RESULTS=$res ICOUNT7=$ic bash "$0" "$k"
	done
	bash "$SCY_REPO/bench/pingpong/report.sh" "$SCY_REPO/Documentation/results/pingpong" \
		"$R/bench-pingpong-6.12-patched" "$R/bench-pingpong-6.1-patched" \
		"$R/bench-pingpong-6.12-stock" "$R/bench-pingpong-6.1-stock"
	bash "$SCY_REPO/bench/pingpong/report.sh" "$SCY_REPO/Documentation/results/pingpong-tcg" \
		"$R/tcg/bench-pingpong-6.12-patched" "$R/tcg/bench-pingpong-6.1-patched"
	# the page shows the three reports' tables as they are
	python3 "$SCY_REPO/bench/pageblock.py" "$SCY_REPO/Documentation/results/pingpong.md"
	exit 0
fi
(($# == 1)) || usage
kernel_parse "$1"
figs=${FIGS:-fig2 fig7}
for f in $figs; do
	[[ $f == fig2 || $f == fig7 ]] || { echo "bench/pingpong/run.sh: FIGS: '$f' is not fig2 or fig7" >&2; usage; }
done
reps=${REPS:-2}
iter2=${ITER2:-60}
iter7=${ITER7:-60}
icount=${ICOUNT:-0}
icount7=${ICOUNT7:-0}
[[ $icount == off ]] && icount=
[[ $icount7 == off ]] && icount7=
cpus2=${CPUS2:-1}
[[ $cpus2 =~ ^[12]$ ]] || { echo "bench/pingpong/run.sh: CPUS2 '$cpus2' is not 1 or 2" >&2; usage; }
if [[ $kver == 6.1 && -n $icount7 && " $figs " == *" fig7 "* ]]; then
	echo "bench/pingpong/run.sh: 6.1 hangs bringing up its second vCPU under -icount: run fig7 with ICOUNT7=off (plain TCG)" >&2
	exit 2
fi
if [[ $kver == 6.1 && -n $icount && $cpus2 == 2 && " $figs " == *" fig2 "* ]]; then
	echo "bench/pingpong/run.sh: 6.1 hangs bringing up its second vCPU under -icount: CPUS2=1 or ICOUNT=off" >&2
	exit 2
fi
out=$RESULTS/bench-pingpong-$kver-$flavor
bin=$RESULTS/bin
make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
kdir=$(kernel_get "$1")

tailpid=
stop_tail() {
	if [[ -n $tailpid ]]; then
		kill "$tailpid" 2>/dev/null || true
		wait "$tailpid" 2>/dev/null || true
		tailpid=
	fi
}
trap stop_tail EXIT

for f in $figs; do
	iters=$iter2 tmo=$((reps * 900 + 300)) ic=$icount ncpu=$cpus2
	if [[ $f == fig7 ]]; then
		iters=$iter7 tmo=$((reps * 900 + 300)) ic=$icount7 ncpu=2
	fi
	mkdir -p "$out/$f"
	rm -f "$out/$f/job.log" "$out/$f/pingpong.csv"
	rm -rf "$out/$f/samples"
	echo "$ncpu" >"$out/$f/vcpus"
	log "$kver-$flavor $f: $reps repeats, $iters ping-pongs per run (progress below)"
	# the guest writes job.log over 9p as it goes
	# (grep's redirection first: it takes tail's stderr as it is then)
	tail -n +1 -F "$out/$f/job.log" > >(grep --line-buffered '^bench-pingpong' >&2) 2>/dev/null &
	tailpid=$!
	cmd="SCY_BIN='$bin' bash bench/pingpong/guest.sh -F $f -r $reps -n $iters -o \$SCY_RESULTS"
	rc=0
	SCY_CPUS=$ncpu SCY_ICOUNT=$ic SCY_TCG_THREAD=multi bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" \
		--out "$out/$f" --timeout "$tmo" -- bash -c "$cmd" || rc=$?
	sleep 1
	stop_tail
	if ((rc)); then
		tail -n 20 "$out/$f/job.log" >&2 || true
		die "$kver-$flavor $f: the guest run failed (exit status $rc); see ${out#"$SCY_REPO"/}/$f/"
	fi
done
bash "$SCY_REPO/bench/pingpong/report.sh" "$out/report/pingpong" "$out"
log "results in ${out#"$SCY_REPO"/}/ (fig2: $(cat "$out/fig2/accel" 2>/dev/null || echo not run); fig7: $(cat "$out/fig7/accel" 2>/dev/null || echo not run))"
