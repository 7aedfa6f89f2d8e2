#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh KVER: make check's faults stage (make check-faults runs it
# alone). The checks of make check that guard the compat yield's rule,
# each shown red on a kernel that breaks the rule on purpose, and the
# checks that guard the harness itself, each shown red with what it guards
# broken in a test-only way; tests/fault-suite.sh runs them in the guest.
#
# The rule's faults are boot parameters of the patched guest kernels
# (scy_fault=, vm/fault-patches: inert without it), so no kernel is built
# for them; each boots the KVER-patched kernel on one CPU under QEMU
# -icount, where the time the checks judge is executed instructions, as in
# the starve stage whose checks they run:
#   delay:1   every compat yield 50 ms longer: the matrix's time lines
#             (each at its p50, p99 and max) and the starve stage's time
#             away beside the hog;
#   delay:20  one compat yield in 20 (5%) 50 ms longer: the matrix's time
#             lines (each at its p99 and max);
#   nocap     (6.12) the move without its span cap, the rule that kept a
#             yielder 128 ms beside a 100-ms slice: one of the starve
#             stage's long-slice cells (tests/tap.sh);
#   double    (6.1) the move twice as long: the median of the starve
#             stage's cells with two or three nice -10 rivals;
#   nomove    a compat yield that does not move the yielder: the matrix's
#             G1 and shares lines, the starve stage's effective yields
#             (yield_stats), the share kselftest's knob-1 limits,
#             the jobs stage's check (two CPUs, tests/guest-jobs.sh),
#             and the livepatch-icount stage's shares of a yield loop in a
#             cgroup at 1 and in an autogroup at knob 1
#             (tests/guest-livepatch-icount.sh);
#   leak      every task's yield a compat one, up to the root, while a
#             cgroup is at 1 (cpu.compat_yield): the share kselftest's
#             tests of a yielder outside the groups at 1 and of one whose
#             only rival is above its group at 1, the latency kselftest's
#             yielder outside, and the matrix's G5 lines of a yielder
#             outside beside its rivals' group at 1 (-R).
# The harness's faults (a knob that ignores writes, a cgroup tree that
# refuses mkdir, a refusal that zeroes the value, a lone yielder that makes
# no yield) run in a guest of the plain kernel under TCG. The livepatch's
# upgrade check is shown red in the livepatch stage, on a build of the
# livepatch that leaves a window of stock yields (tests/guest-livepatch.sh).
# Prints TAP: per guest, the suite's (nested), its shutdown and dmesg.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

kver=${1:?usage: faults.sh KVER}
kver_check "$kver"
name=$kver-patched
kdir=$(kernel_get "$name")
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
make -s -C "$SCY_REPO/tests/tools" OUTPUT="$RESULTS/bin/tests" >&2
mod=$RESULTS/module-$name
bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$name" >&2 || die "yield_stats.ko did not build against $name"
faults=(delay:1 delay:20 nomove leak)
case $kver in
6.12) faults+=(nocap) ;;
6.1) faults+=(double) ;;
esac
plan $((2 + 2 * ${#faults[@]} + 2))
rc=0
out=$RESULTS/faults-$kver
# The harness's kselftest runs are judged by whether they fail, not by
# their figures: half-second windows (SCY_FAULT_SECONDS) are enough, where
# the rule's guests below run 1-s ones.
grc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out-harness" --timeout 1200 \
	-- env SCY_BIN="$RESULTS/bin" SCY_MODULE="$mod/yield_stats.ko" SCY_FAULT_SECONDS="${SCY_FAULT_SECONDS:-0.5}" \
	bash tests/fault-suite.sh harness || grc=$?
guest_verdict "$out-harness" "$grc" "a guest of $name (the harness's faults)"
((grc)) && rc=$grc
for f in "${faults[@]}"; do
	grc=0
	SCY_ICOUNT=$SCY_STARVE_ICOUNT SCY_CPUS=1 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" \
		--out "$out-${f/:/}" --timeout 900 --append "scy_fault=$f" \
		-- env SCY_BIN="$RESULTS/bin" SCY_KVER="$kver" SCY_MODULE="$mod/yield_stats.ko" \
		bash tests/fault-suite.sh rule "$f" || grc=$?
	guest_verdict "$out-${f/:/}" "$grc" "a one-CPU -icount guest of $name booted with scy_fault=$f"
	((grc)) && rc=$grc
done
# nomove on two CPUs: the jobs stage's check (tests/jobs.sh, whose guest
# brings its second CPU up after boot)
grc=0
SCY_ICOUNT=$SCY_JOBS_ICOUNT SCY_CPUS=2 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" \
	--out "$out-jobs-nomove" --timeout 900 --append "maxcpus=1 scy_fault=nomove" \
	-- env SCY_BIN="$RESULTS/bin" bash -c 'echo 1 >/sys/devices/system/cpu/cpu1/online &&
		exec bash tests/fault-suite.sh jobs nomove' || grc=$?
guest_verdict "$out-jobs-nomove" "$grc" "a two-CPU -icount guest of $name booted with scy_fault=nomove"
((grc)) && rc=$grc
exit "$rc"
