#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cost/knoboff-guest.sh -r REPS -d SECONDS -l LOOPS -o CSV: the guest
# part of bench/cost/knoboff.sh. With the knob at 0 where the kernel has it:
# the loop cost of sched_yield() alone on a CPU, of sched_yield() between
# two processes on one CPU and of getppid() (yield-cost, REPS runs of
# SECONDS each), then REPS runs of `perf bench sched pipe` (LOOPS round
# trips) on the last CPU. One CSV row per run, no header:
#   kernel,knob,test,run,ns_per_op
# Run as root, in a guest; yield-cost from $SCY_BIN.
set -euo pipefail
reps=5 dur=1 loops=50000 out=
usage_text="usage: bench/cost/knoboff-guest.sh -r REPS -d SECONDS -l LOOPS -o CSV"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps d:dur l:loops o:out" "$@"
posint -r "$reps"
seconds -d "$dur"
posint -l "$loops"
[[ -n $out ]] || bad "-o CSV is required"
yc=$(tool yield-cost)
k=()
if [[ -e $knob_file ]]; then
	k=(-k 0)
	echo 0 >"$knob_file"
fi
for t in yield:1 yield:2 getppid:1; do
	"$yc" "${k[@]}" -m "${t%:*}" -n "${t#*:}" -d "$dur" -r "$reps" -f csv | tail -n +2 |
		awk -F, -v t="${t%:*}-n${t#*:}" '{ print $1 "," $2 "," t "," $7 "," $11 }'
done >"$out"
knob=$(cat "$knob_file" 2>/dev/null || echo absent)
for r in $(seq 1 "$reps"); do
	us=$(taskset -c $(($(nproc) - 1)) perf bench sched pipe -l "$loops" | awk '/usecs\/op/ { print $1 }')
	[[ -n $us ]] || die "perf bench sched pipe printed no usecs/op"
	echo "$(uname -r | cut -d- -f1),$knob,pipe,$r,$(awk -v u="$us" 'BEGIN { printf "%.1f", u * 1000 }')"
done >>"$out"
