#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dev-tree.sh KVER [DIR]: make a git tree of Debian's linux-source-KVER with
# the series from kernel-patches/vKVER applied by `git am`, for working on the
# patches (re-export them with `git format-patch`) and to check that the series
# applies with git am. Default DIR: $SCY_CACHE/dev/KVER.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kver=${1:?usage: dev-tree.sh KVER [DIR]}
kver_check "$kver"
dir=${2:-$SCY_CACHE/dev/$kver}
debver=$(debian_version "$kver")
ref=$(ref_tree "$kver")

if [[ ! -d $dir/.git ]]; then
	log "creating git tree $dir from Debian $debver (a few minutes)"
	rm -rf "$dir"
	mkdir -p "$dir"
	rsync -a --exclude=/.extracted "$ref/" "$dir/"
	git -C "$dir" init -q
	git -C "$dir" add -A -f
	git -C "$dir" -c user.name=scy -c user.email=scy@localhost \
		commit -q -m "Debian linux-source-$kver $debver"
	git -C "$dir" tag base
fi
git -C "$dir" am --abort >/dev/null 2>&1 || true
git -C "$dir" reset -q --hard base
git -C "$dir" clean -qfdx
for p in $(series_patches "$SCY_REPO/kernel-patches/v$kver"); do
	git -C "$dir" am -q "$p" || die "git am of ${p#"$SCY_REPO"/} failed"
done
log "$dir: base + $(git -C "$dir" rev-list --count base..HEAD) patches"
