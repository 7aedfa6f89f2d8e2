#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict on every patch of every series, run in a copy of
# Debian's tree with the series applied (so that the checks that look at the
# tree, e.g. documented boot parameters and MAINTAINERS, run too). Any
# error, warning or check fails. TAP output.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$SCY_REPO/tests/tap.sh"
fail=0
# The plan first: every patch of every series, of the debug kernels' fixes
# and of the guests' test-only faults, and the module's two files.
planned=2
for pdir in "$SCY_REPO"/kernel-patches/v*/ "$SCY_REPO"/vm/debug-patches/v*/ "$SCY_REPO"/vm/fault-patches/v*/; do
	[[ -f $pdir/series ]] && planned=$((planned + $(series_patches "${pdir%/}" | wc -l)))
done
plan $planned
# checkpatch_ok TREE NAME ARGS...: checkpatch.pl --strict --quiet ARGS run in
# TREE; one TAP line for NAME, the messages under it when there are any.
checkpatch_ok() {
	local tree=$1 name=$2 out
	shift 2
	# The trees are Debian's sources, without upstream's git history: an
	# upstream commit named in a message (Fixes:, "commit ... (...)") is
	# unknown to them, so that lookup is left out; the form of such a
	# reference (12+ hex digits, the subject in quotes) is still checked.
	if out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --quiet \
		--ignore UNKNOWN_COMMIT_ID "$@" 2>&1) &&
		[[ -z $out ]]; then
		ok "checkpatch --strict $name"
	else
		not_ok "checkpatch --strict $name"
		echo "$out" | sed 's/^/#   /'
		fail=1
	fi
}
for pdir in "$SCY_REPO"/kernel-patches/v*/; do
	kver=$(basename "$pdir")
	kver=${kver#v}
	ref=$(ref_tree "$kver")
	tree=$tmp/$kver
	# A tree of symlinks to the pristine files, with real copies of the
	# files the series touches, patched.
	cp -as "$ref" "$tree"
	mapfile -t patches < <(series_patches "${pdir%/}")
	for f in $(series_files "${patches[@]}"); do
		rm -f "$tree/$f"
		[[ -f $ref/$f ]] && cp "$ref/$f" "$tree/$f"
	done
	for p in "${patches[@]}"; do
		patch -d "$tree" -p1 -s <"$p" >/dev/null
	done
	for p in "${patches[@]}"; do
		checkpatch_ok "$tree" "v$kver/${p##*/}" "$p"
	done
done
# The debug kernels' fixes (vm/debug-patches) are kernel patches too.
for pdir in "$SCY_REPO"/vm/debug-patches/v*/; do
	[[ -f $pdir/series ]] || continue
	kver=$(basename "$pdir")
	ref=$(ref_tree "${kver#v}")
	for p in $(series_patches "${pdir%/}"); do
		checkpatch_ok "$ref" "debug-patches/$kver/${p##*/}" "$p"
	done
done
# The guest kernels' test-only faults (vm/fault-patches), applied on top
# of the series in the tree made above (the files they touch are copies
# there: the series touches them too).
for pdir in "$SCY_REPO"/vm/fault-patches/v*/; do
	[[ -f $pdir/series ]] || continue
	kver=$(basename "$pdir")
	for p in $(series_patches "${pdir%/}"); do
		patch -d "$tmp/${kver#v}" -p1 -s <"$p" >/dev/null
		checkpatch_ok "$tmp/${kver#v}" "fault-patches/$kver/${p##*/}" "$p"
	done
done
# The module is not part of the series but follows kernel style too.
for f in yield_stats.c yield_stats_trace.h; do
	checkpatch_ok "$(ref_tree 6.12)" "-f module/$f" --no-tree -f "$SCY_REPO/module/$f"
done
exit $fail
