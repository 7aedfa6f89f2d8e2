#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# starve.sh KVER: boot the patched KVER kernel on one CPU under QEMU -icount
# (shift 3: 8 guest ns per instruction, SCY_STARVE_ICOUNT, vm/lib.sh)
# and run tests/starve-suite.sh: a yielder still gets the CPU when alone or
# when its rivals sleep, and never delays a non-yielding task by more than a
# scheduling period; the time away per yield (kselftest
# compat_yield_latency); the contract over the matrix's cells, time judged
# (kselftest compat_yield_matrix). Prints TAP.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"

kver=${1:?usage: starve.sh KVER}
out=$RESULTS/starve-$kver
kdir=$(kernel_get "$kver-patched")
make -s -C "$SCY_REPO/tests/tools" OUTPUT="$RESULTS/bin/tests" >&2
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
mod=$RESULTS/module-$kver-patched
bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$kver-patched" >&2 ||
	log "yield_stats.ko did not build against $kver-patched"
plan 2
rc=0
# 20 minutes; the full product of the matrix (SCY_MATRIX=full), 4 hours
tmo=1200
[[ ${SCY_MATRIX:-} == full ]] && tmo=14400
SCY_ICOUNT=$SCY_STARVE_ICOUNT SCY_CPUS=1 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout "$tmo" \
	-- env SCY_BIN="$RESULTS/bin" SCY_KVER="$kver" SCY_STARVE_SECONDS="${SCY_STARVE_SECONDS:-2}" \
	SCY_LATENCY_SECONDS="${SCY_LATENCY_SECONDS:-2}" SCY_MODULE="$mod/yield_stats.ko" \
	SCY_MATRIX="${SCY_MATRIX:-}" \
	bash tests/starve-suite.sh || rc=$?
guest_verdict "$out" "$rc" "a one-CPU -icount guest of $kver-patched"
exit "$rc"
