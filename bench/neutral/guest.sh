#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/neutral/guest.sh [-r REPS] [-k KERNEL] [-o CSV]
#
# Does one job's switch hurt anyone else? An opted-in job, a yield loop
# (tests/tools' yield-loop) in the cgroup scy-neutral-job pinned to the
# first CPU, runs through each setting's measurement; three settings
# alternate within each repeat, each one first in turn from repeat to
# repeat:
#   off        the machine's switch 0, the job's cpu.compat_yield 0 (no
#              group at 1; the job's yield loop still runs, so that only
#              the switches differ from the other settings)
#   job-optin  the machine's switch 0, the job's cpu.compat_yield 1
#   machine    the machine's switch 1, the job's cpu.compat_yield 1
# In each setting, outside the job:
#   hackbench_root_s    the Time hackbench (rt-tests) reports for
#                       $HACKBENCH (processes talking over sockets, on
#                       every CPU; about 1 s in a 2-vCPU TCG guest), run
#                       in the root cgroup: plain tasks, as on a node
#                       without systemd (to the job's group they are
#                       rivals above it, which its switch never yields to)
#   hackbench_cgroup_s  the same in a cgroup of its own beside the job's,
#                       scy-neutral-bench: another job
#   other_share         the CPU share of a yield loop that is in no
#                       opted-in group (yield-loop -H 0, in the cgroup
#                       scy-neutral-other) pinned to the last CPU beside a
#                       busy loop in the cgroup scy-neutral-hog, over 2 s:
#                       its CPU time over the run's (the busy loop keeps
#                       the CPU busy)
# One hackbench run before the repeats warms up and is not recorded.
# Prints one CSV row per measurement, kernel,setting,rep,metric,value
# (also written to CSV; KERNEL: the kernel's name in the rows, default
# uname -r), then the medians (min-max) per setting. The switches, the
# cgroups and the root's cgroup.subtree_control (+cpu, when this script
# added it) are put back at exit, also on an error.
# Run as root in a guest of a kernel with both switches, at least 2 CPUs
# (bench/neutral/run.sh: make bench-neutral).
# the sh -c scripts expand $$ and their arguments themselves
# shellcheck disable=SC2016
set -euo pipefail
reps=3 kname=$(uname -r) out=/dev/null
usage_text="usage: bench/neutral/guest.sh [-r REPS] [-k KERNEL] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps k:kname o:out" "$@"
posint -r "$reps"
[[ $kname =~ ^[A-Za-z0-9._+~-]+$ ]] || bad "-k: '$kname' is not a kernel name"
yl=$(tool tests/yield-loop "make -C tests/tools OUTPUT=\$SCY_BIN/tests")
command -v hackbench >/dev/null || die "hackbench not found (Debian's rt-tests; make deps)"
# tuned once: about 1 s in a 2-vCPU guest under plain TCG
HACKBENCH=(-g 2 -l 100 -s 100)
share_s=2
ncpu=$(nproc)
((ncpu >= 2)) || die "needs 2 CPUs at least: the job on the first, the share measured on the last ($ncpu online)"
job_cpu=0 share_cpu=$((ncpu - 1))
cg=/sys/fs/cgroup
job=$cg/scy-neutral-job other=$cg/scy-neutral-other hog=$cg/scy-neutral-hog
bench=$cg/scy-neutral-bench
groups=("$job" "$other" "$hog" "$bench")
[[ -f $knob_file ]] || die "$knob_file missing: the kernel has no sched_compat_yield"
[[ -w $knob_file ]] || die "$knob_file is not writable (run as root)"
grep -qw cpu $cg/cgroup.controllers || die "no cgroup v2 cpu controller in $cg"
for g in "${groups[@]}"; do
	[[ ! -e $g ]] || die "$g exists already (an earlier run's? rmdir it)"
done

# wait_for CMD...: poll until CMD succeeds, at most 60 s (status 1 then)
wait_for() {
	local i
	for ((i = 0; i < 1200; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	echo "$me: timed out waiting for: $*" >&2
	return 1
}
# nprocs_is GROUP N: GROUP holds N processes
nprocs_is() {
	local n
	n=$(wc -l <"$1/cgroup.procs")
	((n == $2))
}
# empty GROUP: kill what GROUP holds, wait until it is empty
empty() {
	[[ -d $1 ]] || return 0
	if [[ -e $1/cgroup.kill ]]; then
		echo 1 >"$1/cgroup.kill"
	else
		xargs -r kill -KILL <"$1/cgroup.procs" 2>/dev/null
	fi
	wait_for nprocs_is "$1" 0
}
# remove GROUP: empty GROUP and remove it; again while a process that was
# started for it (by the sh -c scripts below) joins it meanwhile
remove() {
	local i
	for ((i = 0; i < 100; i++)); do
		empty "$1" || break
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "$me: could not remove $1" >&2
	return 1
}

knob_prior=$(<"$knob_file")
ctl_added=0
made=()
jobpid=''
cleanup() {
	local rc=$? g
	set +e
	# the job's process, also where it has not joined its group yet
	[[ -z $jobpid ]] || kill -KILL "$jobpid" 2>/dev/null
	for g in "${made[@]}"; do
		remove "$g"
	done
	echo "$knob_prior" >"$knob_file"
	if ((ctl_added)); then
		echo -cpu >$cg/cgroup.subtree_control ||
			echo "$me: could not take -cpu out of $cg/cgroup.subtree_control" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if ! grep -qw cpu $cg/cgroup.subtree_control; then
	echo +cpu >$cg/cgroup.subtree_control
	ctl_added=1
fi
for g in "${groups[@]}"; do
	mkdir "$g"
	made+=("$g")
done
[[ -f $job/cpu.compat_yield ]] || die "the kernel has no cpu.compat_yield"

# The job: a yield loop on the first CPU through each setting's
# measurement; yield-loop's parent, which sleeps, and its yielder are in
# the group. It is started after the switches are set and stopped before
# they change: under multi-threaded TCG, QEMU 7.2 can execute a stale
# int3 while the kernel patches a static key (the switches turn one on
# and off) on a vCPU that runs through the site, here the job's yields
# (vm/run.sh).
job_start() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -H 0 -c "$3" -d 3600' - \
		"$job" "$yl" "$job_cpu" >/dev/null &
	jobpid=$!
	# no "Killed" notice when it is killed
	disown "$jobpid"
	wait_for nprocs_is "$job" 2 || die "the job's yield loop did not start"
}
job_stop() {
	empty "$job" || die "the job's yield loop did not stop"
	jobpid=''
}
job_alive() {
	if ! kill -0 "$jobpid" 2>/dev/null || ! nprocs_is "$job" 2; then
		die "the job's yield loop is gone"
	fi
}

setting() {
	case $1 in
	off) echo 0 >"$knob_file" && echo 0 >"$job/cpu.compat_yield" ;;
	job-optin) echo 0 >"$knob_file" && echo 1 >"$job/cpu.compat_yield" ;;
	machine) echo 1 >"$knob_file" && echo 1 >"$job/cpu.compat_yield" ;;
	esac
}

# hackbench_s [GROUP]: hackbench's time, in GROUP (default: here, the
# root group)
hackbench_s() {
	local o t
	o=$(sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" && shift && exec hackbench "$@"' - \
		"${1:-}" "${HACKBENCH[@]}") || die "hackbench ${HACKBENCH[*]}${1:+ in $1} failed"
	t=$(sed -n 's/^Time: *\([0-9.]*\)$/\1/p' <<<"$o")
	[[ -n $t ]] || die "no Time in hackbench's output: $o"
	echo "$t"
}

# other_share: the share of the CPU of a yield loop in $other beside a
# busy loop in $hog, both on the last CPU
other_share() {
	local o y s hogpid
	# not on the command substitution's pipe: it would keep it open
	taskset -c "$share_cpu" sh -c 'echo $$ >"$1/cgroup.procs" && while :; do :; done' - "$hog" >/dev/null &
	hogpid=$!
	wait_for grep -qx "$hogpid" "$hog/cgroup.procs" || die "the busy loop did not start"
	o=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -H 0 -c "$3" -d "$4"' - \
		"$other" "$yl" "$share_cpu" "$share_s" | grep '^yield-loop ') ||
		die "the yield loop in $other failed"
	kill "$hogpid"
	wait "$hogpid" 2>/dev/null || true
	[[ $o == *" ok=1"* ]] || die "the yield loop in $other failed: $o"
	y=$(sed -n 's/.* yielder_cpu=\([^ ]*\).*/\1/p' <<<"$o")
	s=$(sed -n 's/.* seconds=\([^ ]*\).*/\1/p' <<<"$o")
	awk -v y="$y" -v s="$s" 'BEGIN { if (s > 0) printf "%.4f\n", y / s; else exit 1 }' ||
		die "no share from: $o"
}

settings=(off job-optin machine)
echo "# $kname, $ncpu CPUs: the job on CPU $job_cpu, the share on CPU $share_cpu; hackbench ${HACKBENCH[*]}" >&2
hackbench_s >/dev/null
echo kernel,setting,rep,metric,value | tee "$out"
rows=
for ((r = 1; r <= reps; r++)); do
	for ((i = 0; i < ${#settings[@]}; i++)); do
		s=${settings[(i + r - 1) % ${#settings[@]}]}
		setting "$s"
		job_start
		for m in hackbench_root_s hackbench_cgroup_s other_share; do
			case $m in
			hackbench_root_s) v=$(hackbench_s) ;;
			hackbench_cgroup_s) v=$(hackbench_s "$bench") ;;
			other_share) v=$(other_share) ;;
			esac
			job_alive
			row="$kname,$s,$r,$m,$v"
			echo "$row" | tee -a "$out"
			rows+=$row$'\n'
		done
		job_stop
	done
done

echo
printf '%s' "$rows" | awk -F, -f "$(dirname "$0")/../median.awk" \
	-f "$(dirname "$0")/summary.awk"
