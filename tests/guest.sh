#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh KERNEL: get that kernel (a name such as 6.12-patched, 6.1-stock,
# 6.12-debian, Debian's own binary kernel, 6.12-livepatch, that kernel
# with the livepatch loaded, or 6.12-debconfig, the series with Debian's
# configuration; kernel_parse in vm/lib.sh), build
# the selftests, the tools and the module for it, boot it in QEMU and run
# tests/guest-suite.sh inside. Prints TAP: the module build, the guest's
# suite (its TAP nested), and the guest's dmesg.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
# Single-threaded TCG: the suite flips static keys, and QEMU 7.2's
# multi-threaded TCG can execute a stale int3 while the kernel patches
# text (vm/run.sh).
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

name=${1:?usage: guest.sh KERNEL (6.12-patched, 6.1-stock, 6.12-debian, ...)}
kernel_parse "$name"
case $flavor in
patched | debconfig | livepatch | stock | debian) ;;
*) die "guest.sh: the guest suite runs on patched, debconfig, stock, debian and livepatch kernels (the debug ones: tests/debug.sh)" ;;
esac
out=$RESULTS/guest-$kver-$flavor
kdir=$(kernel_get "$name")
make -s -C "$SCY_REPO" userspace selftests RESULTS="$RESULTS" >&2
make -s -C "$SCY_REPO/tests/tools" OUTPUT="$RESULTS/bin/tests" >&2

plan 3
# The yield statistics module, built against this kernel (W=1).
mod=$RESULTS/module-$kver-$flavor
mrc=0
bash "$SCY_REPO/vm/build-module.sh" "$kdir/kdir" "$mod" "$kver-$flavor" || mrc=$?
check "module/yield_stats.c builds against $kver-$flavor with W=1 and no warnings" test $mrc = 0
rc=0
# The kernel's config, for a kernel without /proc/config.gz (Debian's): in
# the results share, which the guest mounts at /tmp/results.
mkdir -p "$out"
cp "$kdir/.config" "$out/kconfig"
# The livepatch's test builds, which must be refused, for the guest.
rm -rf "$out/livepatch-test"
if [[ $flavor == livepatch ]]; then
	mkdir -p "$out/livepatch-test"
	cp "$kdir"/test/*.ko "$out/livepatch-test/"
fi
# The 6.1 guest of the patched kernel boots with the knob on, to test the
# boot parameter (a livepatch has none: it is loaded after boot).
append=
[[ $kver == 6.1 && $flavor == patched ]] && append=sched_compat_yield=1
# 25 minutes, plus up to 3 per livepatch cycle (two transitions of about a
# minute each on 6.12 under single-threaded TCG)
tmo=1500
[[ $flavor == livepatch ]] && tmo=$((tmo + 180 * ${SCY_LIVEPATCH_CYCLES:-20}))
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout "$tmo" \
	--append "$append" \
	-- env SCY_BIN="$RESULTS/bin" SCY_KVER="$kver" SCY_FLAVOR="$flavor" SCY_MODULE="$mod/yield_stats.ko" \
	SCY_KCONFIG=/tmp/results/kconfig \
	SCY_SHARE_DURATION="${SCY_SHARE_DURATION:-4}" SCY_MODULE_CYCLES="${SCY_MODULE_CYCLES:-20}" \
	SCY_STORM_WRITES="${SCY_STORM_WRITES:-10000}" SCY_LIVEPATCH_CYCLES="${SCY_LIVEPATCH_CYCLES:-20}" \
	SCY_SPANK_GUESTS="${SCY_SPANK_GUESTS:-all}" SCY_GUEST_MATRIX="${SCY_GUEST_MATRIX:-}" \
	bash tests/guest-suite.sh || rc=$?
guest_verdict "$out" "$rc" "a guest of $kver-$flavor"
exit "$rc"
