# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/guest-suite.sh in the patched guests: the Slurm SPANK
# plugin (userspace/spank_compat_yield.c) end to end, with Debian's
# slurmctld, slurmd and munge started in the guest (bench/jobs/slurm.sh,
# the cpu controller on in the jobs' trees) and the machine's switch at 0.
# A job run with --compat-yield has 1 in cpu.compat_yield of its job_N
# cgroup, as its own task reads it, and a job without the option has 0
# (site default 0); so does a batch job (sbatch --compat-yield) in its
# batch step, also with --export=NONE, and in a step it starts with srun,
# which takes the option from the job's environment. A step without the
# option beside a running job that has it (srun --overlap) leaves it at 1.
# A bad value of the option is refused with a message. Their
# yields behave accordingly: a yield loop alone in its job, on the CPU of
# a getppid() loop of another job (yield-share, 2 s; two jobs side by side
# in slurmstepd.scope, of equal weight) gets at least a quarter of that
# CPU, half its job's fair share, where its job did not opt in (the
# default yield of a task alone in its group gives nothing away), and
# makes at most a tenth of that loop's yields where it did: each of its
# yields waits for a turn of the other job, while those of a loop
# without the option return at once. The yields are counted, not timed:
# under plain TCG a stalled host moves how much CPU time a yield seems
# to take (a yield loop with --compat-yield was charged 5.5% of the CPU
# beside a busy host, 0.77% on an idle one), not how many turns of the
# other job fit in 2 s of guest time. The time away per compat yield is
# judged under -icount (the starve stage's matrix, its cells with the
# groups at 1). Then the site default: plugstack.conf at default=1 gives
# a job 1 without the option and 0 with --compat-yield=0, and default=2
# is refused with a message, and default=0 again gives 0. The switch is
# back at its value and Slurm is stopped at the end, the cgroup root's
# controllers as they were.
# Uses plan/check/skip of tests/tap.sh and $SCY_BIN.
[[ $(type -t plan) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
spank_so=$SCY_BIN/compat_yield.so
spank_missing=
[[ -f $spank_so ]] || spank_missing="userspace/compat_yield.so was not built (libslurm-dev)"
for c in srun sbatch slurmctld slurmd munged; do
	command -v $c >/dev/null || spank_missing+="${spank_missing:+; }$c not found"
done
if [[ -n $spank_missing ]]; then
	plan 1
	not_ok "the Slurm plugin: $spank_missing"
	return 0 2>/dev/null || exit 0
fi
plan 17
. "$(dirname "${BASH_SOURCE[0]}")/../bench/jobs/slurm.sh"
slurm_spank=$spank_so
slurm_spank_default=0
spank_knob=/sys/kernel/sched_compat_yield
spank_knob_was=$(cat $spank_knob)
spank_ctl_was=$(cat /sys/fs/cgroup/cgroup.subtree_control)
echo 0 >$spank_knob
# slurm_up in a subshell: its die() ends that, not the suite
spank_up=$( (die() { echo "$*"; exit 1; }; slurm_up) 2>&1)
spank_rc=$?
check "slurmctld and slurmd started, compat_yield.so in plugstack.conf (default=0)${spank_up:+: $spank_up}" \
	test "$spank_rc" = 0
# what a job's task reads from cpu.compat_yield of its job_N cgroup
spank_read='cg=$(sed -n "s|^0::\(.*/job_[0-9][0-9]*\)/.*|\1|p" /proc/self/cgroup)
cat "/sys/fs/cgroup$cg/cpu.compat_yield"'
echo "$spank_read" >"$slurm_dir/read.sh"
# spank_run SECONDS NAME [SRUN OPTION...] CMD...: slurm_run, ended after
# SECONDS
spank_run() {
	timeout "$1" bash -c '. "$1"; shift; slurm_run "$@"' - \
		"$(dirname "${BASH_SOURCE[0]}")/../bench/jobs/slurm.sh" "${@:2}"
}
# spank_value NAME [OPTION...]: that value, in the job NAME (srun)
spank_value() { spank_run 120 "$@" bash "$slurm_dir/read.sh" 2>&1; }
# spank_settle: wait (up to 60 s) until no job is left, those being
# cancelled (state CG) included: a job started right after a scancel
# waited 16-30 s for its node, where one started on an empty node runs
# within seconds
spank_settle() {
	local t=$((SECONDS + 60))
	while [[ -n $(timeout 10 squeue -h -o %i 2>&1) ]] && ((SECONDS < t)); do
		sleep 0.2
	done
}
# spank_cpu NAME [OPTION...]: the part of the last CPU a yield loop alone
# in the job NAME gets in 2 s while a getppid() loop of another job runs
# there, and how many yields it made: "SHARE YIELDS", or "x (why)" when it
# cannot tell
spank_cpu() {
	local name=$1 marker=$slurm_dir/hog-$1 hpid out t overlap y w c
	shift
	rm -f "$marker"
	spank_settle
	# it runs until cancelled once the yield loop's job is done
	spank_run 300 "hog-$name" bash -c 'touch "$1"; exec "$2/yield-share" -m getppid -n 0 -d 200 -f kv' - \
		"$marker" "$SCY_BIN" >/dev/null 2>&1 &
	hpid=$!
	# the other job runs from when its task makes the marker
	t=$((SECONDS + 60))
	while [[ ! -e $marker ]] && ((SECONDS < t)) && kill -0 "$hpid" 2>/dev/null; do
		sleep 0.1
	done
	out=$(spank_run 120 "$name" "$@" "$SCY_BIN/yield-share" -n 0 -d 2 -f kv 2>&1)
	overlap=0
	if [[ -e $marker ]] && kill -0 "$hpid" 2>/dev/null; then overlap=1; fi
	scancel --name="hog-$name" 2>/dev/null
	wait "$hpid"
	if ((!overlap)); then
		echo "x (the getppid() job did not run all through the yield loop's)"
		return
	fi
	y=$(field yielder_cpu_ns "$out")
	w=$(field wall_s "$out")
	c=$(field yielder_counter "$out")
	awk -v y="$y" -v w="$w" -v c="$c" 'BEGIN { if (w > 0 && y != "" && c ~ /^[0-9]+$/) printf "%.4f %d\n", y / (w * 1e9), c }' | grep . ||
		echo "x ($out)"
}
if [[ $spank_rc != 0 ]]; then
	fail_to 16 "Slurm did not start"
else
	v=$(spank_value cy-on --compat-yield)
	check "srun --compat-yield: the job's cgroup reads 1 in cpu.compat_yield ($v)" test "$v" = 1
	v=$(spank_value cy-off)
	check "srun without the option, site default 0: it reads 0 ($v)" test "$v" = 0
	v=$(spank_value cy-zero --compat-yield=0)
	check "srun --compat-yield=0: it reads 0 ($v)" test "$v" = 0
	v=$(timeout 120 srun --quiet --job-name=cy-bad --compat-yield=2 true 2>&1)
	rc=$?
	check "srun --compat-yield=2 is refused with a message (exit status $rc: $(head -n 1 <<<"$v"))" \
		bash -c '[[ $1 != 0 && $2 == *"takes 0 or 1"* ]]' - "$rc" "$v"
	rm -f "$slurm_dir/batch.out"
	v=$(slurm_batch 120 --job-name=cy-batch --compat-yield \
		--output="$slurm_dir/batch.out" --wrap="$spank_read")
	rc=$?
	b=$(cat "$slurm_dir/batch.out" 2>/dev/null)
	check "sbatch --compat-yield: the batch step reads 1 (status $rc, $b${v:+; $v})" \
		test "$rc" = 0 -a "$b" = 1
	rm -f "$slurm_dir/batch.out"
	v=$(slurm_batch 120 --job-name=cy-steps --compat-yield \
		--output="$slurm_dir/batch.out" \
		--wrap="srun --quiet bash $slurm_dir/read.sh; bash $slurm_dir/read.sh")
	rc=$?
	b=$(paste -sd ' ' "$slurm_dir/batch.out" 2>/dev/null)
	check "... a step it starts with srun reads 1, and so does the batch step after it (status $rc, $b${v:+; $v})" \
		test "$rc" = 0 -a "$b" = "1 1"
	rm -f "$slurm_dir/batch.out"
	v=$(slurm_batch 120 --job-name=cy-noexport --export=NONE --compat-yield \
		--output="$slurm_dir/batch.out" --wrap="bash $slurm_dir/read.sh")
	rc=$?
	b=$(cat "$slurm_dir/batch.out" 2>/dev/null)
	check "sbatch --export=NONE --compat-yield: the batch step reads 1 (status $rc, $b${v:+; $v})" \
		test "$rc" = 0 -a "$b" = 1
	# a job that has it, running until cancelled, and a step without the
	# option beside it.  The job's value is set when its batch step's task
	# starts, which is after squeue shows the job running: the steps
	# beside it start once the batch step has read its value.
	rm -f "$slurm_dir/keep.out"
	jid=$(sbatch --parsable --job-name=cy-keep --compat-yield \
		--output="$slurm_dir/keep.out" \
		--wrap="bash $slurm_dir/read.sh; sleep 300" 2>&1)
	t=$((SECONDS + 120))
	while [[ ! -s $slurm_dir/keep.out ]] && ((SECONDS < t)); do
		sleep 0.2
	done
	b=$(cat "$slurm_dir/keep.out" 2>/dev/null)
	v=$(timeout 120 srun --quiet --jobid="$jid" --overlap bash "$slurm_dir/read.sh" 2>&1)
	v2=$(timeout 120 srun --quiet --jobid="$jid" --overlap bash "$slurm_dir/read.sh" 2>&1)
	scancel "$jid" 2>/dev/null
	check "srun --overlap without the option in a job with --compat-yield leaves it at 1 (job $jid: batch step $b, then $v, then $v2)" \
		test "$b" = 1 -a "$v" = 1 -a "$v2" = 1
	on=$(spank_cpu ys-on --compat-yield)
	off=$(spank_cpu ys-off)
	echo "# a yield loop alone in its job, a getppid() loop of another job on its CPU: the yield loop's part of the CPU and its yields in 2 s, with --compat-yield $on, without $off"
	check "a yield loop in a job without the option gets >= 25% of a CPU it shares with another job, half its job's fair share (${off%% *})" \
		awk -v s="$off" 'BEGIN { split(s, f, " "); exit !(f[1] ~ /^[0-9.]+$/ && f[1] >= 0.25) }'
	check "... one in a job with --compat-yield makes <= a tenth of its yields (${on#* } vs ${off#* })" \
		awk -v s="$on" -v r="$off" 'BEGIN { split(s, a, " "); split(r, b, " "); exit !(a[2] ~ /^[0-9]+$/ && b[2] ~ /^[0-9]+$/ && a[2] <= b[2] / 10) }'
	check "the machine's switch stayed at 0" test "$(cat $spank_knob)" = 0
	slurm_plugstack 1
	v=$(spank_value cy-site)
	check "plugstack.conf default=1: a job without the option reads 1 ($v)" test "$v" = 1
	v=$(spank_value cy-site-off --compat-yield=0)
	check "... and one with --compat-yield=0 reads 0 ($v)" test "$v" = 0
	slurm_plugstack 2
	v=$(timeout 120 srun --quiet --job-name=cy-badconf true 2>&1)
	rc=$?
	check "plugstack.conf default=2 is refused with a message (exit status $rc: $(grep -m1 compat_yield <<<"$v"))" \
		bash -c '[[ $1 != 0 && $2 == *"default=0 or default=1"* ]]' - "$rc" "$v"
	slurm_plugstack 0
	v=$(spank_value cy-after)
	check "default=0 again: a job reads 0 ($v)" test "$v" = 0
fi
# puts back what slurm_up changed: the cgroup root's controllers too
slurm_down
echo "$spank_knob_was" >$spank_knob
# Slurm enables cpuset at the root; left there, a 6.1 task moved into a
# new cgroup loses the CPU it pinned itself to, and the suite's later
# cgroup placements run their workers on two CPUs
check "Slurm stopped, the cgroup root enables what it did before ($(cat /sys/fs/cgroup/cgroup.subtree_control); before: $spank_ctl_was)" \
	test "$(cat /sys/fs/cgroup/cgroup.subtree_control)" = "$spank_ctl_was"
