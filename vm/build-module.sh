#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR OUTDIR NAME: build module/yield_stats.c against the
# kernel build tree KDIR with W=1, in OUTDIR (a copy of module/). Exit
# status 0 when the .ko built without a warning, 1 when it built with
# warnings, 2 when it did not build; the compiler's messages as "#" lines.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: build-module.sh KDIR OUTDIR NAME} mod=${2:?} name=${3:?}
rm -rf "$mod"
mkdir -p "$mod"
cp "$SCY_REPO"/module/* "$mod/"
if bout=$(make -s -C "$mod" KDIR="$kdir" W=1 2>&1) && [[ -f $mod/yield_stats.ko ]]; then
	if grep -q 'warning:' <<<"$bout"; then
		echo "# module/yield_stats.c built against $name with warnings:"
		echo "$bout" | sed 's/^/#   /'
		exit 1
	fi
	exit 0
fi
echo "# module/yield_stats.c did not build against $name:"
echo "$bout" | sed 's/^/#   /'
exit 2
