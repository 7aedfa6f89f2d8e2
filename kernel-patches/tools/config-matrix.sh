#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# config-matrix.sh [KVER...]: compile the files the series touches
# (kernel/sched/, which includes the trace header) with W=1, in the patched
# work tree, for CONFIG_SCHED_COMPAT_YIELD=y, =n, and =y without
# FAIR_GROUP_SCHED (and so without SCHED_AUTOGROUP), and in the stock tree
# for comparison. A configuration fails if the patched tree warns more than
# the stock one. TAP output. Needs the work trees of KVER-stock and
# KVER-patched (make kernel K=KVER-stock, K=KVER-patched).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

. "$SCY_REPO/tests/tap.sh"
fail=0
[[ $# -gt 0 ]] || set -- 6.12 6.1
# The plan first: three configurations per kernel.
plan $((3 * $#))
for kver in "$@"; do
	for variant in y n nofgs; do
		counts=()
		for flavor in stock patched; do
			src=$SCY_CACHE/work/$kver-$flavor/src
			obj=$SCY_CACHE/matrix/$kver-$flavor-$variant
			[[ -f $src/Makefile ]] || die "no $flavor tree of $kver: run make kernel K=$kver-$flavor"
			mkdir -p "$obj"
			cp "$SCY_CACHE/work/$kver-$flavor/obj/.config" "$obj/.config"
			case $variant in
			y) echo CONFIG_SCHED_COMPAT_YIELD=y ;;
			n) echo "# CONFIG_SCHED_COMPAT_YIELD is not set" ;;
			nofgs) printf '%s\n' CONFIG_SCHED_COMPAT_YIELD=y "# CONFIG_SCHED_AUTOGROUP is not set" \
				"# CONFIG_FAIR_GROUP_SCHED is not set" ;;
			esac >>"$obj/.config"
			make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null 2>&1
			rm -rf "$obj/kernel/sched"
			make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" -j"${SCY_JOBS:-$(nproc)}" W=1 \
				kernel/sched/ >"$obj/build.log" 2>&1 || { counts+=(error); continue; }
			counts+=("$(grep -c 'warning:' "$obj/build.log" || true)")
		done
		desc="$kver, COMPAT_YIELD=$variant: W=1 warnings in kernel/sched/ stock ${counts[0]}, patched ${counts[1]}"
		if [[ ${counts[1]} != error && ${counts[0]} != error && ${counts[1]} -le ${counts[0]} ]]; then
			ok "$desc"
		else
			not_ok "$desc"
			fail=1
		fi
	done
done
exit $fail
