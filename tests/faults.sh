#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh [KERNEL]: make check-faults. Boots KERNEL (default
# 6.12-patched) and runs tests/fault-suite.sh there: checks of make check,
# each with the property it guards broken in a test-only way, must fail.
# Prints TAP: the suite's (nested), the guest's shutdown and dmesg.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

name=${1:-6.12-patched}
kernel_parse "$name"
[[ $flavor == patched ]] || die "faults.sh: a patched kernel (6.12-patched or 6.1-patched)"
kdir=$(kernel_get "$name")
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
out=$RESULTS/faults-$name
mod=$RESULTS/module-$name
bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$name" >&2 || die "yield_stats.ko did not build against $name"
plan 2
rc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout 1500 \
	-- env SCY_BIN="$RESULTS/bin" SCY_MODULE="$mod/yield_stats.ko" SCY_FAULT_SECONDS="${SCY_FAULT_SECONDS:-1}" \
	bash tests/fault-suite.sh || rc=$?
guest_verdict "$out" "$rc" "a guest of $name"
exit "$rc"
