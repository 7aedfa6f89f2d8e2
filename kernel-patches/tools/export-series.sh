#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export-series.sh KVER: write the commits of the dev tree (kernel-patches/tools/dev-tree.sh)
# back to kernel-patches/vKVER as a `git format-patch` series with a cover
# letter whose subject and text come from kernel-patches/vKVER/cover.in
# (first line: subject; rest: text; its line @MEASURED@ becomes the
# figures kernel-patches/tools/cover-figures.py makes from the committed
# CSVs).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kver=${1:?usage: export-series.sh KVER}
kver_check "$kver"
dir=$SCY_CACHE/dev/$kver
pdir=$SCY_REPO/kernel-patches/v$kver
[[ -d $dir/.git ]] || die "no dev tree at $dir: run kernel-patches/tools/dev-tree.sh $kver"
[[ -f $pdir/cover.in ]] || die "$pdir/cover.in is missing"
rm -f "$pdir"/0*.patch
# Index lines with 9 hex digits whatever the tree's size, so that an export
# changes only what changed.
git -C "$dir" -c core.abbrev=9 format-patch -q --zero-commit --cover-letter --no-signature \
	--subject-prefix="PATCH $kver" -o "$pdir" base
python3 "$SCY_REPO/kernel-patches/tools/cover-figures.py" "$kver" >"$pdir/.measured"
python3 - "$pdir/0000-cover-letter.patch" "$pdir/cover.in" "$pdir/.measured" <<'PY'
import sys
cl, cin, measured = sys.argv[1], sys.argv[2], sys.argv[3]
subject, _, blurb = open(cin).read().partition('\n')
blurb = blurb.replace('@MEASURED@', open(measured).read().strip('\n'))
s = open(cl).read()
s = s.replace('*** SUBJECT HERE ***', subject.strip())
s = s.replace('*** BLURB HERE ***', blurb.strip('\n'))
open(cl, 'w').write(s)
PY
rm -f "$pdir/.measured"
(cd "$pdir" && ls | grep -E '^0*[1-9][0-9]*-.*\.patch$' >series)
log "exported $(wc -l <"$pdir/series") patches + cover letter to kernel-patches/v$kver"
