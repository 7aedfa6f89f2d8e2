#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cost/knoboff.sh [KVER]: what the series costs with the knob at 0, against
# Debian's stock kernel. Boots the stock and the patched kernel alternately
# (ROUNDS times each, default 2) and in each boot measures, REPS runs each
# (default 5): the loop cost of sched_yield() alone on a CPU, of sched_yield()
# between two processes on one CPU and of getppid() (yield-cost, DURATION s
# per run, default 1), and `perf bench sched pipe` with both processes on one
# CPU (PIPE_LOOPS round trips, default 50000). Writes
# results/bench-knoboff-KVER/knoboff.csv and summary.txt: medians per kernel,
# min-max, and the patched/stock ratio.
#
# By default the guests run under QEMU's -icount (SCY_ICOUNT=0, see
# vm/run.sh): guest time is then the number of executed instructions, so a
# cost is an instruction count, repeatable and independent of the host's
# load, which wall-clock time under TCG is not.
# SCY_ICOUNT=off measures wall-clock time under plain TCG instead.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kver=${1:-6.12}
kver_check "$kver"
rounds=${ROUNDS:-2}
reps=${REPS:-5}
dur=${DURATION:-1}
loops=${PIPE_LOOPS:-50000}
export SCY_ICOUNT=${SCY_ICOUNT:-0}
# Under -icount QEMU runs the vCPUs in turn on one thread and the guest
# clock advances with the instructions of any of them: a second CPU's
# activity would show up as time on the measured one. One vCPU then.
[[ $SCY_ICOUNT != off ]] && export SCY_CPUS=${SCY_CPUS:-1}
out=$RESULTS/bench-knoboff-$kver
mkdir -p "$out"
make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
stock=$(kernel_get "$kver-stock")
patched=$(kernel_get "$kver-patched")
bin=$RESULTS/bin
# One CSV row per run: flavor,round,kernel,knob,test,run,ns_per_op; the
# guest part (bench/cost/knoboff-guest.sh) sets the knob to 0 where it is.
guest_cmd="SCY_BIN='$bin' bash bench/cost/knoboff-guest.sh -r $reps -d $dur -l $loops -o \$SCY_RESULTS/cost.csv"
csv=$out/knoboff.csv
echo "flavor,round,kernel,knob,test,run,ns_per_op" >"$csv"
for r in $(seq 1 "$rounds"); do
	for flavor in stock patched; do
		k=$stock
		[[ $flavor == patched ]] && k=$patched
		bash "$SCY_REPO/vm/run.sh" --kernel "$k" --out "$out/$flavor-$r" --timeout 1200 -- \
			bash -c "$guest_cmd"
		sed "s/^/$flavor,$r,/" "$out/$flavor-$r/cost.csv" >>"$csv"
	done
done
accel=$(cat "$out/stock-1/accel")
unit="ns per op"
[[ $SCY_ICOUNT != off ]] && unit="guest ns per op (icount shift $SCY_ICOUNT: instructions x $((1 << SCY_ICOUNT)))"
{
	echo "knob-0 cost, $kver, $unit; $rounds boots per kernel x $reps runs; $accel"
	awk -F, -f "$SCY_REPO/bench/median.awk" -f "$SCY_REPO/bench/ratio-table.awk" -v test=5 -v phase=1 -v value=7 \
		-v a=stock -v b=patched -v alabel=stock -v blabel="patched k0" -v ratio=ratio "$csv"
} | tee "$out/summary.txt"
