#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-selftests.sh OUTDIR: build selftests/sched_compat_yield the kselftest
# way, with lib.mk and kselftest.h of Debian's 6.12 tree, into OUTDIR/selftests.
# The series also adds the directory to the kernel tree, where
# `make -C tools/testing/selftests TARGETS=sched_compat_yield run_tests` works.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: build-selftests.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ref=$(ref_tree 6.12)
tree=$SCY_CACHE/kselftest
ks=$tree/tools/testing/selftests
mkdir -p "$ks" "$tree/scripts" "$out/selftests"
rsync -a "$ref/tools/testing/selftests/lib.mk" "$ref/tools/testing/selftests/kselftest.h" \
	"$ref/tools/testing/selftests/kselftest_harness.h" "$ref/tools/testing/selftests/kselftest" "$ks/"
rsync -a "$ref/scripts/subarch.include" "$tree/scripts/"
rsync -a --delete "$SCY_REPO/selftests/sched_compat_yield/" "$ks/sched_compat_yield/"
make -s -C "$ks/sched_compat_yield" OUTPUT="$out/selftests"
