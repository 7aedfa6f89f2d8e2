#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# livepatch-icount.sh KVER: Debian's binary KVER kernel with the livepatch
# (KVER-livepatch: the guest's init loads it) on one CPU under QEMU
# -icount, where guest time is executed instructions, the machine's switch
# at 0 (tests/guest-livepatch-icount.sh): the time away per yield of a
# yielder outside every group at 1, judged against the same yielder with
# no group at 1 (kselftest compat_yield_latency, yield_outside: the
# livepatch's cpu.compat_yield at 1 in the hog's group turns its static
# key on; the yielder must keep the stock yield); and the CPU share of a
# yield loop in a cgroup beside a busy loop's cgroup with its group's
# cpu.compat_yield at 1, then at 0, and of one in its own autogroup with
# the switch at 1, then at 0; the matrix's cells with each task placed on
# its own (compat_yield_matrix, entity). Prints TAP.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"

kver=${1:?usage: livepatch-icount.sh KVER}
out=$RESULTS/livepatch-icount-$kver
kdir=$(kernel_get "$kver-livepatch")
make -s -C "$SCY_REPO" selftests RESULTS="$RESULTS" >&2
make -s -C "$SCY_REPO/tests/tools" OUTPUT="$RESULTS/bin/tests" >&2
plan 2
rc=0
SCY_ICOUNT=$SCY_STARVE_ICOUNT SCY_CPUS=1 bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout 600 \
	-- env SCY_BIN="$RESULTS/bin" bash tests/guest-livepatch-icount.sh || rc=$?
guest_verdict "$out" "$rc" "a one-CPU -icount guest of $kver-livepatch"
exit "$rc"
