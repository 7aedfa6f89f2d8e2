# SPDX-License-Identifier: GPL-2.0
#
# Sourced by bench/jobs/guest.sh: Slurm 22.05 (Debian's slurmctld, slurmd,
# munge) on this machine alone, its files under $slurm_dir, so that the
# jobs of the "slurm" placement are real Slurm jobs: srun starts them, and
# slurmd's cgroup v2 plugin puts each in its own tree
# (system.slice/slurmstepd.scope/job_N/step_0/user/task_0). The partition
# oversubscribes (OverSubscribe=FORCE:2): two jobs of two CPUs each share
# the machine's two CPUs, as on a cluster whose admin lets jobs share
# nodes. IgnoreSystemd=yes: there is no systemd here to create the scope,
# slurmd makes it itself. With slurm_spank set to the path of
# compat_yield.so (userspace/spank_compat_yield.c), plugstack.conf loads it
# with default=$slurm_spank_default (0 if unset): srun --compat-yield.
#   slurm_up      start munged, slurmctld and slurmd; wait until the node
#                 takes jobs (or die with their logs)
#   slurm_down    stop them
#   slurm_run NAME CMD...   run CMD as the job NAME (srun, 1 task, 2 CPUs,
#                 no binding by Slurm: the job binds its own workers)
#   slurm_batch SECONDS SBATCH-OPTION...   sbatch a job, wait until it ends

slurm_dir=/tmp/scy-slurm
export SLURM_CONF=$slurm_dir/slurm.conf

slurm_up() {
	local host
	host=$(hostname)
	rm -rf "$slurm_dir"
	mkdir -p "$slurm_dir/state" "$slurm_dir/spool" /run/munge
	# what slurm_down puts back, kept in files (slurm_up may run in a
	# subshell): the controllers the cgroup root enables (Slurm's cgroup
	# plugin adds cpuset there, and on 6.1 a task moved into a cpuset
	# cgroup loses the CPU affinity it set), whether system.slice was
	# there, and below the changes to /etc/hosts and lo
	cat /sys/fs/cgroup/cgroup.subtree_control >"$slurm_dir/root-controllers"
	[[ -d /sys/fs/cgroup/system.slice ]] || : >"$slurm_dir/made-system.slice"
	# Slurm's daemons and srun find each other by the host's name: where it
	# does not resolve (a guest, its /etc read-only), a hosts file that
	# names it, bound over /etc/hosts
	if ! getent hosts "$host" >/dev/null; then
		{ cat /etc/hosts; echo "127.0.0.1 $host"; } >"$slurm_dir/hosts"
		mount --bind "$slurm_dir/hosts" /etc/hosts || die "$host does not resolve and /etc/hosts cannot be replaced"
		: >"$slurm_dir/hosts-bound"
	fi
	# Slurm asks getaddrinfo() for the wildcard address with AI_ADDRCONFIG,
	# which finds no IPv4 on a machine whose only address is 127.0.0.1 (glibc
	# does not count that one): a second loopback address
	if ! ip -4 -o addr show | grep -qv ' 127\.0\.0\.1/'; then
		ip addr add 127.0.0.2/8 dev lo || die "cannot add 127.0.0.2 to lo"
		: >"$slurm_dir/lo-added"
	fi
	# a key of our own, for this machine alone
	head -c 1024 /dev/urandom >"$slurm_dir/munge.key"
	chmod 400 "$slurm_dir/munge.key"
	munged --force --key-file="$slurm_dir/munge.key" --log-file="$slurm_dir/munged.log" \
		--pid-file="$slurm_dir/munged.pid" --seed-file="$slurm_dir/munged.seed" ||
		die "munged did not start: $(tail -n 3 "$slurm_dir/munged.log" 2>/dev/null)"
	cat >"$slurm_dir/slurm.conf" <<-EOF
		ClusterName=scy
		SlurmctldHost=$host
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		StateSaveLocation=$slurm_dir/state
		SlurmdSpoolDir=$slurm_dir/spool
		SlurmctldPidFile=$slurm_dir/slurmctld.pid
		SlurmdPidFile=$slurm_dir/slurmd.pid
		SlurmctldLogFile=$slurm_dir/slurmctld.log
		SlurmdLogFile=$slurm_dir/slurmd.log
		ProctrackType=proctrack/cgroup
		TaskPlugin=task/cgroup
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		MpiDefault=none
		ReturnToService=2
		PlugStackConfig=$slurm_dir/plugstack.conf
		NodeName=$host CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 State=UNKNOWN
		PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
	EOF
	slurm_plugstack "${slurm_spank_default:-0}"
	cat >"$slurm_dir/cgroup.conf" <<-EOF
		CgroupPlugin=cgroup/v2
		IgnoreSystemd=yes
		CgroupAutomount=yes
		ConstrainCores=no
		ConstrainRAMSpace=no
	EOF
	# slurmd makes its scope below system.slice, where systemd would have
	# enabled the controllers; the cpu controller makes each job's tree
	# a task group of its own
	mkdir -p /sys/fs/cgroup/system.slice
	for c in cpu cpuset memory; do
		grep -qw $c /sys/fs/cgroup/cgroup.controllers || continue
		echo +$c >/sys/fs/cgroup/cgroup.subtree_control &&
			echo +$c >/sys/fs/cgroup/system.slice/cgroup.subtree_control ||
			die "cannot enable the $c controller for system.slice"
	done
	slurmctld || die "slurmctld did not start: $(tail -n 5 "$slurm_dir/slurmctld.log" 2>/dev/null)"
	slurmd || die "slurmd did not start: $(tail -n 5 "$slurm_dir/slurmd.log" 2>/dev/null)"
	# the node registers with the controller: wait for it to be idle, for
	# up to 240 looks. A count, not the guest's seconds: under -icount
	# the clock of a guest that waits for a 9p read of the host's files
	# jumps ahead (a jobs guest beside a busy host ran 99 s and showed
	# 88521 s of uptime), and a wait of 60 s of that clock ended while
	# the node came up: sinfo read "idle" in the message that followed.
	local n up=0 scope
	for ((n = 0; n < 240; n++)); do
		if [[ $(timeout 10 sinfo -h -o %t 2>/dev/null) == idle ]]; then
			up=1
			break
		fi
		sleep 0.5
	done
	((up)) || die "the Slurm node did not come up: $(sinfo 2>&1 | tail -n 2); $(tail -n 5 "$slurm_dir/slurmd.log" 2>/dev/null)"
	# Slurm 22.05's cgroup/v2 plugin enables in its scope only the
	# controllers its plugins use (cpuset here; cpu comes with
	# jobacct_gather/cgroup, which needs memory too): without cpu there,
	# every job's tasks share the scope's task group. Enabled here, as a
	# site does, each job_N is a task group of its own, with cpu.* files.
	for scope in /sys/fs/cgroup/system.slice/*slurmstepd.scope; do
		[[ -d $scope ]] || die "slurmd made no slurmstepd.scope in system.slice"
		echo +cpu >"$scope/cgroup.subtree_control" ||
			die "cannot enable the cpu controller in $scope"
	done
}

# slurm_plugstack DEFAULT: plugstack.conf, with compat_yield.so at
# default=DEFAULT where slurm_spank names it (empty otherwise). srun and
# slurmstepd read it at each job: a new default needs no restart.
slurm_plugstack() {
	if [[ -n ${slurm_spank:-} ]]; then
		echo "required $slurm_spank default=$1"
	else
		: # no plugin
	fi >"$slurm_dir/plugstack.conf"
}

# slurm_gone PID...: none of the PIDs, nor any slurmstepd, is left
slurm_gone() {
	local p
	for p in "$@"; do
		[[ ! -d /proc/$p ]] || return 1
	done
	! pgrep -x slurmstepd >/dev/null
}

slurm_down() {
	local f pids=() p d c until=$((SECONDS + 30))
	scancel -u root 2>/dev/null || true
	for f in slurmd slurmctld munged; do
		[[ -f $slurm_dir/$f.pid ]] || continue
		p=$(cat "$slurm_dir/$f.pid")
		kill "$p" 2>/dev/null && pids+=("$p")
	done
	# the daemons and the jobs' slurmstepd gone, their cgroups empty:
	# given 30 s to stop, then killed (a guest on a busy host can take
	# longer than that to stop them), and waited for
	while ! slurm_gone "${pids[@]}" && ((SECONDS < until)); do
		sleep 0.1
	done
	if ! slurm_gone "${pids[@]}"; then
		kill -KILL "${pids[@]}" 2>/dev/null
		pkill -KILL -x slurmstepd 2>/dev/null
		until=$((SECONDS + 120))
		while ! slurm_gone "${pids[@]}" && ((SECONDS < until)); do
			sleep 0.1
		done
	fi
	# slurmd's scope, then system.slice where slurm_up made it, then the
	# controllers enabled at the root since
	for d in /sys/fs/cgroup/system.slice/*slurmstepd.scope; do
		[[ -d $d ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	[[ ! -e $slurm_dir/made-system.slice ]] || rmdir /sys/fs/cgroup/system.slice 2>/dev/null
	if [[ -f $slurm_dir/root-controllers ]]; then
		for c in $(cat /sys/fs/cgroup/cgroup.subtree_control); do
			grep -qw "$c" "$slurm_dir/root-controllers" ||
				echo "-$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		done
	fi
	[[ ! -e $slurm_dir/hosts-bound ]] || umount /etc/hosts
	[[ ! -e $slurm_dir/lo-added ]] || ip addr del 127.0.0.2/8 dev lo
	return 0
}

slurm_run() {
	local name=$1
	shift
	srun --quiet --job-name="$name" --ntasks=1 --cpus-per-task=2 --cpu-bind=none \
		--export=ALL "$@"
}

# slurm_batch SECONDS SBATCH-OPTION...: sbatch a job and wait until it
# ends, at most SECONDS; status 0 when it completed, else 1 with its state
# and exit code on stdout. Polled every 0.2 s: sbatch --wait looks 2 s
# after the submission, then 8 s and 32 s later, which made each short
# batch job in a guest a wait of 10-42 s.
slurm_batch() {
	local jid st t=$((SECONDS + $1))
	shift
	jid=$(timeout 60 sbatch --parsable "$@" 2>&1) || { echo "sbatch: $jid"; return 1; }
	jid=${jid%%;*}
	while ((SECONDS < t)); do
		st=$(timeout 10 scontrol -o show job "$jid" 2>/dev/null)
		case $(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$st") in
		COMPLETED) return 0 ;;
		"" | PENDING | CONFIGURING | RUNNING | COMPLETING) sleep 0.2 ;;
		*)
			echo "job $jid: $(grep -oE '(JobState|ExitCode|Reason)=[^ ]*' <<<"$st" | paste -sd ' ')"
			return 1
			;;
		esac
	done
	echo "job $jid: not ended in time"
	return 1
}
