#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR OUTDIR NAME: build module/yield_stats.c against the
# kernel build tree KDIR with W=1, in OUTDIR (a copy of module/), and print
# one TAP line: ok when it built without a warning. Exit status 0 when the
# .ko exists.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: build-module.sh KDIR OUTDIR NAME} mod=${2:?} name=${3:?}
rm -rf "$mod"
mkdir -p "$mod"
cp "$SCY_REPO"/module/* "$mod/"
if bout=$(make -s -C "$mod" KDIR="$kdir" W=1 2>&1) && [[ -f $mod/yield_stats.ko ]]; then
	if grep -q 'warning:' <<<"$bout"; then
		echo "not ok - module/yield_stats.c builds against $name with W=1 and no warnings"
		echo "$bout" | sed 's/^/#   /'
	else
		echo "ok - module/yield_stats.c builds against $name with W=1 and no warnings"
	fi
	exit 0
fi
echo "not ok - module/yield_stats.c builds against $name"
echo "$bout" | sed 's/^/#   /'
exit 1
