# SPDX-License-Identifier: GPL-2.0
#
# Run by tests/jobs.sh in a two-CPU guest of a patched kernel under QEMU
# -icount, where guest time is executed instructions (and runnable on its
# own: SCY_BIN=... SCY_RESULTS=... bash tests/guest-jobs.sh): two OpenMP
# jobs (LLVM libomp, unmodified, its default wait policy) sharing the two
# CPUs, each a real Slurm job (bench/jobs/slurm.sh: Debian's slurmctld,
# slurmd and munge in the guest, the cpu controller on in the jobs'
# trees): bench/jobs/guest.sh, knob 0 and 1, and at knob 0 with both jobs
# started as srun --compat-yield (the plugin compat_yield.so sets
# cpu.compat_yield of each job_N to 1). A job's light thread waits in
# libomp's barrier, spinning and yielding, on the CPU of the other job's
# heavy thread. What the switch must change is judged on CPU time: the
# share of the pair's CPU time that goes to the heavy threads, at knob 1
# and opted in against the same boot's knob 0 (where the two jobs share
# each CPU 50/50, to within a point). The margin, 3 points, is three
# times what a switch that does nothing leaves. Under -icount a host
# stall moves neither figure: under plain TCG on a busy host it did (knob
# 0 itself drifted to 0.70, because libomp's 200-ms spin before it
# sleeps runs on the guest's clock, which a stalled host advances without
# the guest doing work). The harvest's instrument: beside SCHED_IDLE
# extra work on each CPU (seed 002's case), a job of libomp told to block
# (KMP_BLOCKTIME=0) leaves the extra work the time its light worker
# sleeps, about 43% of the two CPUs at either knob value; what the
# benchmark reads from the extra work's logs must be >= 5% at both, and
# the reading must raise no complaint (a log read before it is written
# whole is cut short and read as 0).
# With SCY_JOBS_PAIR=1 only the pair at knob 0 and 1, in cgroup trees laid
# out as Slurm's without Slurm, and its check (the
# faults stage runs that on a kernel whose compat yield does not move the
# yielder, where it must be red).
# Uses plan/check/ge of tests/tap.sh and $SCY_BIN, $SCY_RESULTS.
[[ $(type -t plan) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
jobs_csv=$SCY_RESULTS/jobs.csv
if [[ ! -x $SCY_BIN/job-libomp ]]; then
	plan 1
	not_ok "userspace/job-libomp was not built (clang, libomp-dev)"
	return 0 2>/dev/null || exit 0
fi
# the placements, the jobs they run, the settings judged and the plan
if [[ ${SCY_JOBS_PAIR:-} == 1 ]]; then
	jobs_pl=cgroup jobs_base=cgroup jobs_n=4 jobs_sets="0,cgroup 1,cgroup"
	plan 2
else
	jobs_pl="slurm slurm-optin" jobs_base=slurm jobs_n=6 jobs_sets="0,slurm 1,slurm 0,slurm-optin"
	plan 4
fi
# A step of 50 and 6 units of work: about 4.7 ms of guest time for the
# heavy worker alone, as the benchmark's 1000 and 125 units take under
# plain TCG (4.3 ms), about a tick. The benchmark's own units take 190 ms
# under -icount (shift 2: 250 million instructions a second), near
# libomp's 200-ms spin before it sleeps: a light worker that sleeps hands
# its CPU over at either knob value (knob 0 gave 0.53-0.62, not 0.50).
SCY_BIN=$SCY_BIN bash "$(dirname "${BASH_SOURCE[0]}")/../bench/jobs/guest.sh" -r 1 \
	-n 400 -w 50,6 -R libomp -P "$jobs_pl" -o "$jobs_csv" >"$SCY_RESULTS/jobs.log" 2>&1
jobs_rc=$?
sed 's/^/# /' "$SCY_RESULTS/jobs.log"
check "bench/jobs/guest.sh -R libomp -P '$jobs_pl' ran, $jobs_n jobs (exit status $jobs_rc)" \
	test "$jobs_rc" = 0 -a "$(grep -c ',libomp,' "$jobs_csv" 2>/dev/null)" = "$jobs_n"
# per setting (knob 0, knob 1, opted in at knob 0): the pair's makespan
# (ms) and the heavy threads' share of the pair's CPU time
declare -A jobs_ms jobs_heavy
for set in $jobs_sets; do
	read -r jobs_ms[$set] jobs_heavy[$set] < <(awk -F, -v k="${set%,*}" -v p="${set#*,}" '
		$2 == k && $5 == p { if (!s || $11 < s) s = $11; if ($12 > e) e = $12; c += $8; hc += $9 }
		END { if (c > 0 && e > s) printf "%.1f %.3f\n", (e - s) / 1e6, hc / c; else print "x x" }' "$jobs_csv" 2>/dev/null)
	echo "# knob ${set%,*}, ${set#*,}: pair makespan ${jobs_ms[$set]} ms, heavy threads' CPU share ${jobs_heavy[$set]}"
done
# both figures must be there: a missing one (x) fails, not counts as 0
b=$jobs_base
jobs_gain() {
	is_number "${jobs_heavy[0,$b]}" && is_number "${jobs_heavy[$1]}" &&
		ge "$(awk -v a="${jobs_heavy[$1]}" -v b="${jobs_heavy[0,$b]}" 'BEGIN { print a - b }')" 0.03
}
check "knob 1 gives the heavy threads >= 3 points more of the pair's CPU time than knob 0 ($b: ${jobs_heavy[1,$b]} vs ${jobs_heavy[0,$b]})" \
	jobs_gain "1,$b"
[[ ${SCY_JOBS_PAIR:-} != 1 ]] || return 0 2>/dev/null || exit 0
check "both jobs run with srun --compat-yield, knob 0, give them >= 3 points more too (${jobs_heavy[0,slurm-optin]} vs ${jobs_heavy[0,$b]})" \
	jobs_gain 0,slurm-optin
echo "# makespan against knob 0: knob 1 $(awk -v a="${jobs_ms[1,$b]}" -v b="${jobs_ms[0,$b]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'), opted in $(awk -v a="${jobs_ms[0,slurm-optin]}" -v b="${jobs_ms[0,$b]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')"
# the extra work's share of the two CPUs' time during a blocking job,
# per knob
SCY_BIN=$SCY_BIN bash "$(dirname "${BASH_SOURCE[0]}")/../bench/jobs/guest.sh" -r 1 \
	-n 100 -R libomp-sleep -P harvest-idle -o "$SCY_RESULTS/jobs-harvest.csv" >"$SCY_RESULTS/jobs-harvest.log" 2>&1
harvest_rc=$?
sed 's/^/# /' "$SCY_RESULTS/jobs-harvest.log"
jobs_harvest=()
for k in 0 1; do
	jobs_harvest[k]=$(awk -F, -v k=$k '$2 == k && $5 == "harvest-idle" && $17 != "" && $12 > $11 {
		printf "%.3f", $17 / (2 * ($12 - $11) / 1e6) }' "$SCY_RESULTS/jobs-harvest.csv" 2>/dev/null)
done
harvest_said=$(grep -c '^cpu-work:' "$SCY_RESULTS/jobs-harvest.log")
harvest_ok() {
	[[ $harvest_rc == 0 && $harvest_said == 0 ]] &&
		ge "${jobs_harvest[0]:-}" 0.05 && ge "${jobs_harvest[1]:-}" 0.05
}
check "beside SCHED_IDLE extra work a blocking libomp job leaves it >= 5% of the CPUs at knob 0 and 1, as read from its logs (${jobs_harvest[0]:-?}, ${jobs_harvest[1]:-?}; exit status $harvest_rc, $harvest_said complaints of cpu-work reading them)" \
	harvest_ok
