#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/module/guest.sh -m MODULE.ko [-R ROUNDS] [-r REPS] [-d SECONDS] [-o CSV]
#
# What the yield_stats module costs the tasks it watches: the loop cost of
# sched_yield() and of getppid() (yield-cost -m yield|getppid), with 1 task
# and with 2 tasks on one CPU, with the module not loaded and loaded, in one
# boot. The phases alternate, not loaded first and last:
#   off, on, off, on, ..., off    (ROUNDS on-phases, default 2)
# and each phase runs every configuration REPS times (default 3) for
# SECONDS each (default 1), so drift hits both states alike. The knob
# sched_compat_yield, when the kernel has it, is 0 for every run.
#
# Prints one CSV row per run (also written to CSV):
#   kernel,state,phase,test,run,ns_per_call
# then per test the medians with the module off and on, min-max, and the
# ratio on/off. In each on-phase the module must count the yields (its
# yields counter grows), or the script fails: an unloaded or idle module
# would measure nothing.
# Run as root (in a guest: make bench-module KVER=.., bench/run.sh module).
# yield-cost is taken from $SCY_BIN (default: userspace/ of the checkout).
set -euo pipefail
rounds=2 reps=3 dur=1 out=/dev/null mod=
usage_text="usage: bench/module/guest.sh -m MODULE.ko [-R ROUNDS] [-r REPS] [-d SECONDS] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
opts "m:mod R:rounds r:reps d:dur o:out" "$@"
[[ -n $mod ]] || bad "-m MODULE.ko is required"
[[ -f $mod ]] || die "-m: no module file '$mod'"
posint -R "$rounds"
posint -r "$reps"
seconds -d "$dur"
yc=$(tool yield-cost)
[[ $(id -u) == 0 ]] || die "run as root: the module is loaded and unloaded"
S=/sys/kernel/yield_stats
[[ ! -e $S ]] || die "yield_stats is loaded already: rmmod yield_stats first"
knob=()
[[ -e /sys/kernel/sched_compat_yield ]] && knob=(-k 0)
trap '[[ -e $S ]] && rmmod yield_stats' EXIT

tests=(yield:1 yield:2 getppid:1 getppid:2)
header=kernel,state,phase,test,run,ns_per_call
echo "$header" | tee "$out"
rows=
for ((p = 1; p <= 2 * rounds + 1; p++)); do
	state=off
	((p % 2)) || state=on
	if [[ $state == on ]]; then
		insmod "$mod" || die "insmod $mod failed"
		y0=$(<"$S/yields")
	fi
	for t in "${tests[@]}"; do
		m=${t%:*} n=${t#*:}
		csv=$("$yc" "${knob[@]}" -m "$m" -n "$n" -d "$dur" -r "$reps" -f csv) ||
			die "yield-cost -m $m -n $n failed"
		while IFS=, read -r kernel _ _ _ _ _ run _ _ _ ns; do
			row="$kernel,$state,$p,$m-n$n,$run,$ns"
			echo "$row" | tee -a "$out"
			rows+=$row$'\n'
		done <<<"$(tail -n +2 <<<"$csv")"
	done
	if [[ $state == on ]]; then
		y1=$(<"$S/yields")
		((y1 > y0)) || die "phase $p: the module counted no yield ($y0 -> $y1)"
		echo "# phase $p: the module counted $((y1 - y0)) yields" >&2
		rmmod yield_stats || die "rmmod yield_stats failed"
	fi
done

echo
kernel=$(head -n 1 <<<"$rows" | cut -d, -f1)
echo "yield_stats module overhead, kernel $kernel: ns per call, medians (min-max)"
echo "$rounds on-phases between $((rounds + 1)) off-phases, $reps runs of $dur s per test and phase"
printf '%s' "$rows" | awk -F, -f "$(dirname "$0")/../median.awk" -f "$(dirname "$0")/../ratio-table.awk" -v test=4 -v phase=2 -v value=6 \
	-v a=off -v b=on -v alabel="module off" -v blabel="module on" -v ratio=on/off
