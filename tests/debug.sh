#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug.sh KERNEL: get KERNEL, a debug kernel (6.12-debug, 6.1-debug: the
# patched kernel with vm/debug.config, KASAN, lockdep, UBSAN, KMEMLEAK, ...)
# or a patched one (6.12-patched: the same suite without the debug checks),
# build the module against it, boot it and run tests/debug-suite.sh inside: kselftests, knob fuzzing
# and a stress of SCY_STRESS_SECONDS (default 60; SCY_STRESS_KNOB=0|1 holds
# the knob there instead of toggling it). Prints TAP: the module build, the
# suite's TAP nested, and guest_verdict's two tests (tests/tap.sh): the
# suite passed and the guest shut down by itself; no kernel report (KASAN,
# UBSAN, lockdep, hung tasks, WARNING, BUG) in its dmesg or console.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
# Single-threaded TCG: the suite flips static keys, and QEMU 7.2's
# multi-threaded TCG can execute a stale int3 while the kernel patches
# text (vm/run.sh).
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

name=${1:?usage: debug.sh KERNEL (6.12-debug, 6.1-debug, or a patched kernel)}
kernel_parse "$name"
[[ $flavor == debug || $flavor == patched ]] ||
	die "debug.sh: the stress suite runs on debug and patched kernels, not on '$name'"
stress=${SCY_STRESS_SECONDS:-60}
out=$RESULTS/debug-suite-$name

kdir=$(kernel_get "$name")
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
make -s -C "$SCY_REPO/tests/tools" OUTPUT="$RESULTS/bin/tests" >&2
# Under CPU hotplug in the stress Debian's 6.12 has warned in its
# deadline server (running_bw underflow in inactive_task_timer()) with the
# knob held at 0, the stock yield (Documentation/results/reliability.md),
# at random. The stress leaves hotplug out unless SCY_STRESS_HOTPLUG=1.
hotplug=${SCY_STRESS_HOTPLUG:-0}
plan 3
mod=$RESULTS/module-$name
mrc=0
bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$name" || mrc=$?
check "module/yield_stats.c builds against $name with W=1 and no warnings" test $mrc = 0
rc=0
start=$(date +%s)
# 1 GiB: KASAN's shadow and kmemleak's scans grow with memory, and the
# suite needs little. pci=noacpi: the guest kernels have no PCI MSI, so
# virtio needs INTx routing, and under TCG the KASAN-instrumented ACPI
# interpreter can run into AE_AML_LOOP_TIMEOUT evaluating _PRT on a loaded
# host: virtio then gets no IRQ and the 9p root mount waits for ever. The
# BIOS's $PIR table gives the same routing without AML.
SCY_MEM=${SCY_DEBUG_MEM:-1024} bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout $((stress + 3600)) \
	--append pci=noacpi \
	-- env SCY_BIN="$RESULTS/bin" SCY_KVER="$kver" SCY_FLAVOR="$flavor" SCY_MODULE="$mod/yield_stats.ko" \
	SCY_STRESS_SECONDS="$stress" SCY_SHARE_DURATION="${SCY_SHARE_DURATION:-4}" \
	SCY_STRESS_KNOB="${SCY_STRESS_KNOB:-toggle}" SCY_FUZZ_WRITES="${SCY_FUZZ_WRITES:-10000}" \
	SCY_STORM_WRITES="${SCY_STORM_WRITES:-10000}" \
	SCY_STRESS_HOTPLUG="$hotplug" \
	bash tests/debug-suite.sh || rc=$?
echo "# the guest ran $(($(date +%s) - start)) s"
guest_verdict "$out" "$rc" "a guest of $name"
exit "$rc"
