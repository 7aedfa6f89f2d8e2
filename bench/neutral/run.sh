#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/neutral/run.sh [KERNEL...]: does one job's switch hurt anyone
# else? In a guest of each KERNEL (a kernel name, kernel_parse in
# vm/lib.sh; default: 6.12-patched 6.1-patched) of 2 vCPUs under plain TCG
# (hackbench needs two CPUs to mean anything; without -icount),
# bench/neutral/guest.sh: an opted-in job's yield loop beside hackbench
# (in the root group and in a cgroup of its own) and beside a yield loop
# in no opted-in group, with no switch at 1, the job's cgroup at 1 and the
# machine's switch at 1, alternating within each of REPS repeats (default
# 3). Writes $RESULTS/bench-neutral/neutral.{csv,csv.info,md,dat,png}: a
# row per measurement and the report of bench/neutral/report.py.
# ICOUNT=N: the guests under QEMU -icount shift=N instead (guest time
# counts executed instructions: the host's load moves no figure;
# single-threaded TCG, the second vCPU put online after boot as the jobs
# stage does).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

out=$RESULTS/bench-neutral
kernels=("$@")
((${#kernels[@]})) || kernels=(6.12-patched 6.1-patched)
reps=${REPS:-3}
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "bench/neutral/run.sh: REPS must be a positive integer (got '$reps')"
twice=$(printf '%s\n' "${kernels[@]}" | sort | uniq -d | paste -sd ' ')
[[ -z $twice ]] || die "bench/neutral/run.sh: given twice: $twice"
for k in "${kernels[@]}"; do kernel_parse "$k"; done
command -v hackbench >/dev/null || die "bench/neutral/run.sh: hackbench not found (rt-tests; make deps)"
mkdir -p "$out"
make -s -C "$SCY_REPO/tests/tools" OUTPUT="$RESULTS/bin/tests" >&2
kdirs=()
for k in "${kernels[@]}"; do kdirs+=("$(kernel_get "$k")"); done
csv=$out/neutral.csv
: >"$csv"
for i in "${!kernels[@]}"; do
	k=${kernels[$i]}
	g=$out/guest-$k
	mkdir -p "$g"
	rm -f "$g/neutral.csv"
	log "$k: bench/neutral/guest.sh -r $reps"
	# under -icount a guest is one host thread: four times the time
	online=() tmul=1
	[[ -z ${ICOUNT:-} ]] || online=(--append maxcpus=1) tmul=4
	SCY_CPUS=2 SCY_ICOUNT=${ICOUNT:-off} bash "$SCY_REPO/vm/run.sh" --kernel "${kdirs[$i]}" --out "$g" \
		--timeout $(((300 + 60 * reps) * tmul)) "${online[@]}" \
		-- env SCY_BIN="$RESULTS/bin" bash -c "${ICOUNT:+echo 1 >/sys/devices/system/cpu/cpu1/online && }"'exec bash bench/neutral/guest.sh "$@"' - \
		-r "$reps" -k "$k" -o /tmp/results/neutral.csv || die "$k: the guest failed (see $g/job.log)"
	[[ -s $g/neutral.csv ]] || die "$k: no neutral.csv from the guest (see $g/job.log)"
	# the guest's rows carry the kernel's name already; the header once
	[[ -s $csv ]] || head -n 1 "$g/neutral.csv" >"$csv"
	tail -n +2 "$g/neutral.csv" >>"$csv"
done
{
	info_head "${ICOUNT:+ICOUNT=$ICOUNT }REPS=$reps make bench-neutral KERNELS=\"${kernels[*]}\""
	echo "guest=2 vCPUs, QEMU $(cat "$out/guest-${kernels[0]}/accel")"
} >"$csv.info"
python3 "$SCY_REPO/bench/neutral/report.py" "$csv" "$out"
log "results in $out: neutral.csv, neutral.md (its table), neutral.png; the committed page:"
log "  cp $out/neutral.{csv,csv.info,png} Documentation/results/, then"
log "  python3 bench/neutral/report.py Documentation/results/neutral.md (its table made anew)"
