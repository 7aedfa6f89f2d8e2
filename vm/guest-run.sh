#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-run.sh KERNEL CMD: boot KERNEL (a kernel name such as 6.12-patched,
# 6.1-stock, 6.12-debug or 6.1-debian; see kernel_parse in vm/lib.sh) in a
# QEMU guest, run the shell command CMD there as root, in the repository
# (read-only), and print its output; the exit status is CMD's (1 if the
# guest hung or logged a kernel warning). The host's root file system is
# the guest's, read-only; /tmp/results in the guest is RESULTS/run-KERNEL on
# the host (writable), where console.log and dmesg.txt land too. CMD
# finds the programs of RESULTS/bin through SCY_BIN.
# SCY_TCG_THREAD, SCY_ICOUNT, SCY_CPUS, SCY_MEM: see vm/run.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: guest-run.sh KERNEL CMD (e.g. guest-run.sh 6.12-patched 'cat /sys/kernel/sched_compat_yield')}
cmd=${2:?usage: guest-run.sh KERNEL CMD}
kernel_parse "$name"
kdir=$(kernel_get "$name")
out=$RESULTS/run-$name
# the programs `make userspace` built (RESULTS/bin), for the guest's
# scripts that run them (SCY_BIN, bench/guest-lib.sh)
bin=${SCY_BIN:-}
[[ -n $bin || ! -d $RESULTS/bin ]] || bin=$RESULTS/bin
rc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout 1500 \
	-- env ${bin:+SCY_BIN="$bin"} bash -c "$cmd" || rc=$?
cat "$out/job.log" 2>/dev/null || true
exit "$rc"
