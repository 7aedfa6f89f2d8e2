#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cost/group-guest.sh [-r REPS] [-d SECONDS] [-o CSV]
#
# What a cgroup's own switch costs the yields outside it: yield-cost with
# the machine's switch at 0, with no cgroup at 1 ("none") and with one
# empty cgroup whose cpu.compat_yield is 1 ("other", the static key on: a
# yield of a task outside it takes the out-of-line path, reads its groups
# and yields by default), alternating within each repeat. sched_yield()
# alone on its CPU, between two threads and between two processes; the
# tasks stay in the caller's cgroup. Prints one CSV row per run (also
# written to CSV) and the medians (with min and max) and their
# difference in ns per call (group-summary.awk), which under QEMU -icount
# shift=0 are instructions.
# Run as root in a guest of a patched kernel (make run K=KVER-patched
# CMD='bash bench/cost/group-guest.sh' with SCY_ICOUNT=0 SCY_CPUS=1).
set -euo pipefail
reps=3 dur=1 out=/dev/null
usage_text="usage: bench/cost/group-guest.sh [-r REPS] [-d SECONDS] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps d:dur o:out" "$@"
posint -r "$reps"
seconds -d "$dur"
yc=$(tool yield-cost)
cg=/sys/fs/cgroup
grp=$cg/scy-cost-$$
grep -qw cpu $cg/cgroup.controllers || die "no cgroup v2 cpu controller in $cg"
echo +cpu >$cg/cgroup.subtree_control
mkdir "$grp"
trap 'echo 0 >"$grp/cpu.compat_yield" 2>/dev/null; rmdir "$grp"' EXIT
[[ -f $grp/cpu.compat_yield ]] || die "the kernel has no cpu.compat_yield"
# tasks:threads
configs=(1:0 2:1 2:0)

header=kernel,group_at_1,threads,tasks,rep,seconds,calls,ns_per_call
echo "$header" | tee "$out"
rows=
for ((r = 1; r <= reps; r++)); do
	for c in "${configs[@]}"; do
		IFS=: read -r n t <<<"$c"
		for g in none other; do
			v=0
			[[ $g == other ]] && v=1
			echo $v >"$grp/cpu.compat_yield"
			args=(-n "$n" -d "$dur" -k 0)
			((t)) && args+=(-t)
			yc_run "${args[@]}"
			[[ $yc_threads == "$t" ]] || die "yield-cost ran with threads=$yc_threads, not $t"
			row="$yc_kernel,$g,$t,$n,$r,$yc_seconds,$yc_calls,$yc_ns"
			echo "$row" | tee -a "$out"
			rows+=$row$'\n'
		done
	done
done

echo
printf '%s' "$rows" | awk -F, -f "$(dirname "$0")/../median.awk" \
	-f "$(dirname "$0")/group-summary.awk"
