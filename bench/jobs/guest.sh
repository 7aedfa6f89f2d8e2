#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/jobs/guest.sh [-r REPS] [-n STEPS] [-w HEAVY,LIGHT] [-R RUNTIMES]
#                     [-P PLACEMENTS] [-m YIELD_STATS_KO] [-o CSV]
#
# Two parallel jobs sharing the machine's first two CPUs, as a batch system
# that oversubscribes places them, and each job alone. A job is a
# bulk-synchronous program of a real runtime, used unmodified with its
# default wait policy (userspace/job-*): two workers, one per CPU, the
# heavy one doing HEAVY units of work per step and the other LIGHT, then
# the runtime's barrier, allreduce or join. Job A's heavy worker is on CPU
# 0, job B's on CPU 1, so each CPU holds one job's heavy worker and the
# other's light one, which waits there for most of each step: whatever its
# runtime does while it waits decides how much of the CPU the heavy worker
# gets. With the knob at 1 (both values, alternating, where the kernel has
# the knob) a sched_yield() of the waiting worker hands the CPU over.
#
# RUNTIMES (default all that are built): libomp (LLVM OpenMP, spins and
# yields), libgomp (GNU OpenMP, spins then sleeps), libomp-sleep and
# libgomp-passive (the same runtimes told to block at once: KMP_BLOCKTIME=0,
# OMP_WAIT_POLICY=passive), onetbb (oneTBB),
# openmpi-auto (Open MPI with one slot per job and --oversubscribe, so
# that Open MPI itself picks mpi_yield_when_idle as it does when
# oversubscribed), openmpi-y0, openmpi-y1 (mpi_yield_when_idle 0, 1 given
# explicitly, with --oversubscribe, without which a Slurm job of one task
# cannot start two ranks); openmpi-slurm, openmpi-slurm-y1 (Open MPI as a
# Slurm batch job of two tasks runs it: sbatch --ntasks=2, mpirun without
# --host or --oversubscribe, which does not yield unless told, and with
# mpi_yield_when_idle 1 told; in the placements alone and slurm* only);
# libomp-backoff, onetbb-backoff, openmpi-backoff
# (libomp, oneTBB and Open MPI with mpi_yield_when_idle 1, each with
# yield-backoff.so preloaded: every sched_yield() of the runtime becomes a
# sleep that grows within a wait, the sleep back-off between polls: 1 us
# more each time, up to 1 ms); libomp-backoff-fast, openmpi-backoff-fast
# (the same growing by 100 us, up to 2 ms).
# PLACEMENTS (default "alone cgroup session same"): alone: job A alone in
# its job's cgroup; cgroup: each job in a cgroup tree of its own as
# Slurm's cgroup v2 plugin lays it out
# (system.slice/slurmstepd.scope/job_N/step_0/user/task_0, the cpu
# controller on at every level); session: each job in a session, hence an
# autogroup, of its own (kernel.sched_autogroup_enabled=1 for the run), as
# on a login node; slurm: each job a real Slurm job (srun; Debian's
# slurmctld, slurmd and munge started here by bench/jobs/slurm.sh, the
# partition oversubscribed), in the tree slurmd's cgroup v2 plugin makes,
# with the cpu controller on in its scope (each job_N a task group);
# same: both in one group; cgroup-optin, slurm-optin: as cgroup and
# slurm, each job opted in (cpu.compat_yield of its job_N at 1; srun
# --compat-yield through compat_yield.so, userspace/spank_compat_yield.c),
# run at knob 0 only (at 1 they are the same as cgroup and slurm);
# cgroup-optin-a, slurm-optin-a: the same with job A opted in and job B
# not, as on a shared node where one job asks for it (knob 0 only);
# harvest-idle, harvest-cgidle:
# job A in its job's cgroup beside extra work that takes what the job
# leaves (seed 002's cycle harvesting): a cpu-work task on each CPU,
# SCHED_IDLE (harvest-idle) or in a cgroup with cpu.idle=1
# (harvest-cgidle); its CPU time within the job's run is the harvest.
#
# Each set of jobs starts its timed steps together (the jobs' start gate,
# userspace/job.h). One CSV row per job: its wall time, the CPU time of
# its workers and of its heavy worker, its cgroup's cpu.stat usage (cgroup
# and alone placements), the sched_yield() calls of the whole set (with
# -m, from the yield_stats module), and the CPU time of the extra work
# within the job's run (harvest placements). Run as root in a guest.
set -euo pipefail
reps=3 steps=400 work=1000,125 runtimes= placements="alone cgroup session slurm same harvest-idle harvest-cgidle" module= out=/dev/null
usage_text="usage: bench/jobs/guest.sh [-r REPS] [-n STEPS] [-w HEAVY,LIGHT] [-R RUNTIMES] [-P PLACEMENTS] [-m YIELD_STATS_KO] [-o CSV]"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps n:steps w:work R:runtimes P:placements m:module o:out" "$@"
posint -r "$reps"
posint -n "$steps"
[[ $work =~ ^[0-9]{1,8},[0-9]{1,8}$ ]] || bad "-w: '$work' is not HEAVY,LIGHT (units)"
all_runtimes="libomp libgomp libomp-sleep libgomp-passive onetbb openmpi-auto openmpi-y0 openmpi-y1 openmpi-slurm openmpi-slurm-y1 libomp-backoff onetbb-backoff openmpi-backoff libomp-backoff-fast openmpi-backoff-fast"
# job_binary RUNTIME: the program of that runtime's jobs
job_binary() {
	case $1 in
	libomp | libomp-sleep | libomp-backoff*) echo job-libomp ;;
	libgomp | libgomp-passive) echo job-gomp ;;
	onetbb | onetbb-backoff) echo job-tbb ;;
	openmpi-*) echo job-openmpi ;;
	*) return 1 ;;
	esac
}
# the arguments first (bad: exit 2), then what the machine must have
for p in $placements; do
	[[ " alone cgroup cgroup-optin cgroup-optin-a session slurm slurm-optin slurm-optin-a same harvest-idle harvest-cgidle " == *" $p "* ]] ||
		bad "-P: unknown placement '$p' (alone cgroup cgroup-optin cgroup-optin-a session slurm slurm-optin slurm-optin-a same harvest-idle harvest-cgidle)"
done
for rt in $runtimes; do
	job_binary "$rt" >/dev/null || bad "-R: unknown runtime '$rt' ($all_runtimes)"
	# sbatch starts these jobs, also alone
	[[ $rt != openmpi-slurm* ]] && continue
	for p in $placements; do
		[[ $p == alone || $p == slurm* ]] ||
			bad "-P: runtime $rt runs in the placements alone and slurm* only, not '$p'"
	done
done
[[ -z $module || -f $module ]] || bad "-m: no file '$module'"
if [[ -z $runtimes ]]; then
	for rt in $all_runtimes; do
		[[ -x $bin/$(job_binary "$rt") ]] && runtimes+=" $rt"
	done
fi
[[ -n $runtimes ]] || die "no job built in $bin (make userspace)"
for rt in $runtimes; do
	tool "$(job_binary "$rt")" >/dev/null
	[[ $rt != *-backoff* ]] || tool yield-backoff.so >/dev/null
	[[ $rt != openmpi-* ]] || command -v mpirun >/dev/null || die "mpirun not found"
done
((($(nproc) >= 2))) || die "needs 2 CPUs, this machine has $(nproc)"
uses_slurm=
[[ " $placements " != *" slurm"* && " $runtimes " != *" openmpi-slurm"* ]] || uses_slurm=1
if [[ -n $uses_slurm ]]; then
	for c in srun slurmctld slurmd munged; do
		command -v $c >/dev/null || die "placement slurm: $c not found (slurm-client, slurmctld, slurmd, munge)"
	done
fi
# slurm-optin, slurm-optin-a: jobs ask for it through the SPANK plugin
[[ " $placements " != *" slurm-optin"* ]] || slurm_spank=$(tool compat_yield.so)
# the cgroup placements need cgroup v2 with the cpu controller
for p in $placements; do
	[[ $p == session || $p == same ]] && continue
	grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
		die "placement $p: no cgroup v2 with the cpu controller at /sys/fs/cgroup"
done

. "$(dirname "${BASH_SOURCE[0]}")/slurm.sh"
knob_sweep_init
tmp=$(mktemp -d)
cgroot=/sys/fs/cgroup
ag=/proc/sys/kernel/sched_autogroup_enabled
ag_prior=$(cat $ag 2>/dev/null || echo)
ys=/sys/kernel/yield_stats
extra_pids=() gate_pids=()
cleanup() {
	# what a run stopped midway leaves: the extra work, jobs at the gate
	kill "${extra_pids[@]}" "${gate_pids[@]}" 2>/dev/null || true
	[[ -z $ag_prior ]] || echo "$ag_prior" >$ag
	[[ -z $module ]] || rmmod yield_stats 2>/dev/null || true
	slurm_trees_remove
	[[ -z $uses_slurm ]] || slurm_down
	rm -rf "$tmp"
	[[ ${knob_values[0]} == stock ]] || echo "$knob_prior" >"$knob_file"
}

# Slurm's cgroup v2 layout: the job's tasks in
# system.slice/slurmstepd.scope/job_N/step_0/user/task_0, job N = 1 + the
# job's index, the cpu controller enabled at every level above the leaf.
slurm_leaf() { echo "$cgroot/system.slice/slurmstepd.scope/job_$(($1 + 1))/step_0/user/task_0"; }
# slurm_tree IDX: make job IDX's tree; its leaf in cg_leaf
slurm_tree() {
	local d
	cg_leaf=$(slurm_leaf "$1")
	d=$cgroot
	for part in system.slice slurmstepd.scope job_$(($1 + 1)) step_0 user task_0; do
		grep -qw cpu "$d/cgroup.subtree_control" || echo +cpu >"$d/cgroup.subtree_control" ||
			die "cannot enable the cpu controller in $d"
		d=$d/$part
		[[ -d $d ]] || mkdir "$d" || die "cannot create $d"
	done
}
slurm_trees_remove() {
	local i d
	for i in 0 1; do
		d=$(slurm_leaf "$i")
		while [[ $d != "$cgroot/system.slice" && -d $d ]]; do
			rmdir "$d" 2>/dev/null || break
			d=$(dirname "$d")
		done
	done
	rmdir "$cgroot/system.slice/slurmstepd.scope" "$cgroot/system.slice" "$cgroot/harvest" 2>/dev/null || true
}
# extra_start KIND: a cpu-work task on each of CPUs 0 and 1, SCHED_IDLE
# (idle) or in the cgroup harvest with cpu.idle=1 (cgidle), logging its
# work to $tmp/extra-CPU.log; their PIDs in extra_pids
extra_start() {
	local c cw
	cw=$(tool cpu-work)
	extra_pids=()
	rm -f "$tmp"/extra-*.log
	if [[ $1 == cgidle ]]; then
		grep -qw cpu "$cgroot/cgroup.subtree_control" || echo +cpu >"$cgroot/cgroup.subtree_control"
		mkdir -p "$cgroot/harvest"
		echo 1 >"$cgroot/harvest/cpu.idle" || die "cannot write 1 to $cgroot/harvest/cpu.idle"
	fi
	for c in 0 1; do
		if [[ $1 == cgidle ]]; then
			(echo "$BASHPID" >"$cgroot/harvest/cgroup.procs" && exec "$cw" -c $c -l "$tmp/extra-$c.log") >/dev/null &
		else
			"$cw" -c $c -i -l "$tmp/extra-$c.log" >/dev/null &
		fi
		extra_pids+=($!)
	done
}
# extra_stop START_NS END_NS: stop the extra work and set extra to its CPU
# time (ms) in the window, both CPUs together. Called in the shell that
# started it: wait returns once each task has written its whole log (a
# subshell's wait does not wait, and a log read while it is being written
# ends early or in the middle of a line).
extra_stop() {
	local c sum=0 v p
	# one that ended by itself (its record buffer full) is waited for too
	kill -TERM "${extra_pids[@]}" 2>/dev/null || true
	for p in "${extra_pids[@]}"; do
		wait "$p" || die "the extra work failed (status $?)"
	done
	extra_pids=()
	for c in 0 1; do
		v=$("$(tool cpu-work)" -r "$tmp/extra-$c.log" -W "$1,$2") ||
			die "cpu-work -r $tmp/extra-$c.log -W $1,$2 failed"
		v=$(sed -n 's/.*win_cpu_ns=\([0-9]*\).*/\1/p' <<<"$v")
		[[ -n $v ]] || die "cpu-work -r $tmp/extra-$c.log printed no win_cpu_ns"
		sum=$((sum + v))
	done
	extra=$(awk -v s="$sum" 'BEGIN { printf "%.3f", s / 1e6 }')
}
cg_usage() { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"; }

# job_cmd RUNTIME IDX: the command line of job IDX (0: A, 1: B) of RUNTIME
# into the array cmd, and how many of its processes pass the start gate
# into nprocs. Every job binds its worker i to CPU i; job B's heavy worker
# is its worker 1.
job_cmd() {
	local rt=$1 idx=$2 b args preload mpix=() e
	b=$bin/$(job_binary "$rt")
	jname=$([[ $idx == 0 ]] && echo A || echo B)
	args=(-N "$jname" -n "$steps" -w "$work" -H "$idx" -g "$tmp/gate")
	nprocs=1
	# the back-off's library and, for -fast, its step and bound
	preload=("LD_PRELOAD=$bin/yield-backoff.so")
	[[ $rt != *-backoff-fast ]] || preload+=(YIELD_BACKOFF_STEP_US=100 YIELD_BACKOFF_MAX_US=2000)
	for e in "${preload[@]}"; do
		mpix+=(-x "$e")
	done
	case $rt in
	libomp | libgomp)
		cmd=(env OMP_NUM_THREADS=2 "OMP_PLACES={0},{1}" OMP_PROC_BIND=true "$b" "${args[@]}") ;;
	libomp-sleep)
		cmd=(env OMP_NUM_THREADS=2 "OMP_PLACES={0},{1}" OMP_PROC_BIND=true KMP_BLOCKTIME=0 "$b" "${args[@]}") ;;
	libomp-backoff | libomp-backoff-fast)
		cmd=(env OMP_NUM_THREADS=2 "OMP_PLACES={0},{1}" OMP_PROC_BIND=true "${preload[@]}" "$b" "${args[@]}") ;;
	libgomp-passive)
		cmd=(env OMP_NUM_THREADS=2 "OMP_PLACES={0},{1}" OMP_PROC_BIND=true OMP_WAIT_POLICY=passive "$b" "${args[@]}") ;;
	onetbb)
		cmd=(env JOB_THREADS=2 JOB_CPUS=0,1 "$b" "${args[@]}") ;;
	onetbb-backoff)
		cmd=(env JOB_THREADS=2 JOB_CPUS=0,1 "${preload[@]}" "$b" "${args[@]}") ;;
	# Open MPI over lo, the guest's one interface (with bench/jobs/slurm.sh's
	# second loopback address it would find none to use)
	openmpi-auto)
		nprocs=2
		cmd=(env OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo mpirun --allow-run-as-root --oversubscribe --host localhost:1 -np 2 --bind-to none
			-x JOB_CPUS=0,1 "$b" "${args[@]}") ;;
	openmpi-y0 | openmpi-y1)
		nprocs=2
		cmd=(env OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca mpi_yield_when_idle "${rt#openmpi-y}"
			-x JOB_CPUS=0,1 "$b" "${args[@]}") ;;
	# Open MPI as a Slurm batch job of two tasks runs it: mpirun in the
	# batch step finds two slots (not oversubscribed: left to itself,
	# Open MPI polls without yielding) and starts both ranks there, in
	# the job's cgroup; -y1 gives mpi_yield_when_idle 1 by hand. cmd is
	# the batch script's command (run_set submits it)
	openmpi-slurm | openmpi-slurm-y1)
		nprocs=2
		cmd=(env OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo mpirun --allow-run-as-root -np 2 --bind-to none)
		[[ $rt != *-y1 ]] || cmd+=(--mca mpi_yield_when_idle 1)
		cmd+=(-x JOB_CPUS=0,1 "$b" "${args[@]}") ;;
	# the library in the ranks only, not in mpirun
	openmpi-backoff | openmpi-backoff-fast)
		nprocs=2
		cmd=(env OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca mpi_yield_when_idle 1
			-x JOB_CPUS=0,1 "${mpix[@]}" "$b" "${args[@]}") ;;
	esac
}

# run_set KNOB REP RUNTIME PLACEMENT: one set of jobs, a CSV row per job
run_set() {
	local k=$1 r=$2 rt=$3 pl=$4 f idx njobs=2 want=0 pids=() jpids=() cgs=() u0=() line y= cg extra= p part optin
	[[ $pl == alone || $pl == harvest-* ]] && njobs=1
	[[ $pl != harvest-* ]] || extra_start "${pl#harvest-}"
	rm -f "$tmp/gate"
	mkfifo "$tmp/gate"
	# held open read-write: the jobs' opens never block, and no line is lost
	exec 3<>"$tmp/gate"
	[[ $pl != session ]] || echo 1 >$ag
	for ((idx = 0; idx < njobs; idx++)); do
		job_cmd "$rt" "$idx"
		want=$((want + nprocs))
		if [[ $rt == openmpi-slurm* ]]; then
			# a batch job of two tasks, opted in by the option; its
			# output (the job's report) into jobN.out
			optin=()
			[[ $pl == slurm-optin || ($pl == slurm-optin-a && $idx == 0) ]] && optin=(--compat-yield)
			slurm_batch 1800 --job-name="$jname" --ntasks=2 --cpus-per-task=1 "${optin[@]}" \
				--output="$tmp/job$idx.out" --wrap="$(printf '%q ' "${cmd[@]}")" >"$tmp/job$idx.err" 2>&1 &
			jpids+=($!)
			continue
		fi
		case $pl in
		alone | cgroup | cgroup-optin | cgroup-optin-a | harvest-*)
			slurm_tree "$idx"
			cgs[idx]=$cg_leaf
			# the trees outlive a set: each set gives its jobs its value
			f=$cgroot/system.slice/slurmstepd.scope/job_$((idx + 1))/cpu.compat_yield
			if [[ $pl == cgroup-optin || ($pl == cgroup-optin-a && $idx == 0) ]]; then
				echo 1 >"$f" || die "cannot opt job_$((idx + 1)) in ($f)"
			elif [[ -e $f ]]; then
				echo 0 >"$f" || die "cannot write 0 to $f"
			fi
			(echo "$BASHPID" >"${cgs[idx]}/cgroup.procs" && exec "${cmd[@]}") >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" & ;;
		session) setsid "${cmd[@]}" >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" & ;;
		slurm) slurm_run "$jname" "${cmd[@]}" >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" & ;;
		slurm-optin) slurm_run "$jname" --compat-yield "${cmd[@]}" >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" & ;;
		slurm-optin-a)
			if [[ $idx == 0 ]]; then
				slurm_run "$jname" --compat-yield "${cmd[@]}" >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" &
			else
				slurm_run "$jname" "${cmd[@]}" >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" &
			fi ;;
		same) "${cmd[@]}" >"$tmp/job$idx.out" 2>"$tmp/job$idx.err" & ;;
		esac
		jpids+=($!)
	done
	# every process of every job is up and waits at the gate; a job that
	# ends before that (a runtime's refusal) stops the run at once, with
	# what it said. No limit in the guest's seconds: under -icount the
	# clock of a guest that waits for a 9p read of the host's files jumps
	# ahead (a jobs guest beside a busy host ran 99 s and showed 88521 s
	# of uptime), so a job that never becomes ready is left to the
	# guest's own timeout, which the host keeps in its time.
	part=
	while ((${#pids[@]} < want)); do
		if read -r -t 5 line <&3; then
			line=$part$line part=
			pids+=("${line#ready }")
			gate_pids=("${pids[@]}")
			continue
		fi
		# a read that times out in the middle of a line keeps what it
		# read ("r" of "ready PID"): the rest comes with the next read
		part+=$line
		for p in "${jpids[@]}"; do
			if ! kill -0 "$p" 2>/dev/null; then
				kill "${jpids[@]}" "${pids[@]}" 2>/dev/null || true
				cat "$tmp"/job*.err >&2
				die "$rt $pl: only ${#pids[@]} of $want job processes became ready (a job ended)"
			fi
		done
	done
	for ((idx = 0; idx < njobs; idx++)); do
		[[ -z ${cgs[idx]:-} ]] || u0[idx]=$(cg_usage "${cgs[idx]}")
	done
	if [[ $pl == slurm* ]]; then
		# where Slurm put the job, and which controllers the levels above
		# it enable (the cpu controller makes a level a task group)
		for p in "${pids[@]}"; do
			cg=$(sed -n 's/^0:://p' "/proc/$p/cgroup")
			echo "# $rt slurm, knob $k: PID $p in cgroup $cg; cpu controller enabled in: $(d=$cgroot$cg
				while [[ $d != "$cgroot" ]]; do d=${d%/*}; grep -qw cpu "$d/cgroup.subtree_control" && echo -n "${d#"$cgroot"}/ "; done)" >&2
		done
		cg=
	fi
	[[ -z $module ]] || echo 1 >$ys/reset
	kill -USR1 "${pids[@]}"
	gate_pids=()
	for ((idx = 0; idx < njobs; idx++)); do
		wait "${jpids[idx]}" || { cat "$tmp/job$idx.err" >&2; die "$rt $pl: job $idx failed"; }
	done
	[[ -z $module ]] || y=$(cat $ys/yields)
	# the set's yields per cgroup, as yield-top shows them, to the log
	[[ -z $module || ! -r /sys/kernel/debug/yield_stats/cgroups ]] ||
		sed "s/^/# yields per cgroup, $rt $pl knob $k rep $r: /" /sys/kernel/debug/yield_stats/cgroups >&2
	exec 3<&-
	if [[ $pl == harvest-* ]]; then
		line=$(grep '^job ' "$tmp/job0.out") || die "$rt $pl: job 0 printed no report"
		extra_stop "$(field start_ns "$line")" "$(field end_ns "$line")"
	fi
	[[ $pl != session || -z $ag_prior ]] || echo "$ag_prior" >$ag
	for ((idx = 0; idx < njobs; idx++)); do
		line=$(grep '^job ' "$tmp/job$idx.out") || die "$rt $pl: job $idx printed no report"
		cg=
		[[ -z ${cgs[idx]:-} ]] || cg=$(awk -v a="${u0[idx]}" -v b="$(cg_usage "${cgs[idx]}")" 'BEGIN { printf "%.3f", (b - a) / 1000 }')
		echo "$(uname -r),$k,$r,$rt,$pl,$(field name "$line"),$(field wall_ms "$line"),$(field cpu_ms "$line"),$(field heavy_cpu_ms "$line"),$cg,$(field start_ns "$line"),$(field end_ns "$line"),$y,$steps,${work%,*},${work#*,},$extra" |
			tee -a "$out"
	done
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# every function cleanup calls is defined from here on
trap cleanup EXIT
if [[ -n $module ]]; then
	insmod "$module" || die "cannot load $module"
fi
[[ -z $uses_slurm ]] || slurm_up
echo "kernel,knob,rep,runtime,placement,job,wall_ms,cpu_ms,heavy_cpu_ms,cg_cpu_ms,start_ns,end_ns,set_yields,steps,heavy,light,extra_cpu_ms" | tee "$out"
for r in $(seq 1 "$reps"); do
	for k in $(knob_order "$r"); do
		knob_set "$k"
		for rt in $runtimes; do
			for pl in $placements; do
				[[ $pl != *-optin* || $k == 0 ]] || continue
				run_set "$k" "$r" "$rt" "$pl"
			done
		done
	done
done
