#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# jobs.sh KVER: boot the patched KVER kernel on two CPUs under QEMU -icount
# (shift 2: 4 guest ns per instruction, SCY_JOBS_ICOUNT), where a host
# stall moves no guest figure, and run tests/guest-jobs.sh: two OpenMP jobs
# sharing the CPUs as real Slurm jobs, the heavy threads' share of their
# CPU time at knob 0, at knob 1 and with both jobs started as srun
# --compat-yield, and the harvest beside SCHED_IDLE work; on 6.12 (no
# FAULT), a second such guest judges the matrix's migrate cells, the
# default cells the one-CPU guest of the starve stage cannot run (time and
# the loop-counter share: no -U; the CPU shares, of which each CPU's turn
# on the host thread they share is charged to the task on the other, are
# reported only). Both at shift 2 (SCY_JOBS_ICOUNT), the speed the jobs
# pair's steps are sized to. Prints TAP.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"

kver=${1:?usage: jobs.sh KVER [FAULT]}
# FAULT: boot with scy_fault=FAULT (vm/fault-patches), where the checks
# must turn red
fault=${2:-}
out=$RESULTS/jobs-$kver${fault:+-$fault}
kdir=$(kernel_get "$kver-patched")
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
migrate=0
if [[ $kver == 6.12 && -z $fault ]]; then migrate=1; fi
plan $((2 + 2 * migrate))
rc=0
# The second CPU comes up after boot: with two vCPUs under -icount the 6.1
# kernel stops at boot while bringing it up ("x86: Booting SMP
# configuration:", 6.1.192 under QEMU 7.2), and comes up when it is put
# online later.
SCY_ICOUNT=$SCY_JOBS_ICOUNT SCY_CPUS=2 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout 900 \
	--append "maxcpus=1${fault:+ scy_fault=$fault}" \
	-- env SCY_BIN="$RESULTS/bin" bash -c 'echo 1 >/sys/devices/system/cpu/cpu1/online && exec bash tests/guest-jobs.sh' || rc=$?
guest_verdict "$out" "$rc" "a two-CPU -icount guest of $kver-patched${fault:+ booted with scy_fault=$fault}"
if ((migrate)); then
	grc=0
	SCY_ICOUNT=$SCY_JOBS_ICOUNT SCY_CPUS=2 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out-migrate" --timeout 900 \
		--append maxcpus=1 \
		-- bash -c 'echo 1 >/sys/devices/system/cpu/cpu1/online &&
			exec "$0/selftests/compat_yield_matrix" -d 0.6 -c "event=migrate\$" -o /tmp/results/matrix-migrate.csv' "$RESULTS/bin" || grc=$?
	guest_verdict "$out-migrate" "$grc" "a two-CPU -icount guest of $kver-patched judging the matrix's migrate cells"
	((grc)) && rc=$grc
fi
exit "$rc"
