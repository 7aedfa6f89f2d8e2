#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh KVER [small|debian] [OUTDIR]: Debian packages (linux-image,
# linux-headers; 6.12 adds linux-libc-dev, and linux-image-dbg when the
# config has debug info) of the patched kernel, made by the kernel's own
# `make bindeb-pkg` from Debian's linux-source-KVER plus the series.
#
#   small   tinyconfig + vm/guest.config + vm/patched.config, the guest
#           kernel's config (what make check packages: minutes with ccache)
#   debian  Debian's own config of that version, from the linux-config-KVER
#           package (/usr/src/linux-config-KVER/config.amd64_none_amd64.xz),
#           plus CONFIG_SCHED_COMPAT_YIELD=y; SCY_DEB_CONFIG=FILE takes
#           another base config instead (e.g. /boot/config-$(uname -r))
#
# The kernel release is <version>-compat-yield (debian) or
# <version>-compat-yield-small (small), so the packages never clash with
# Debian's linux-image-*-amd64; the package version is Debian's source
# version plus "+scy1". The work tree is $SCY_CACHE/work/KVER-deb-CONFIG
# (kept, with ccache, so a second build only redoes what changed); the
# .deb files go to OUTDIR (default results/deb-KVER-CONFIG), whose path is
# printed on stdout. SCY_JOBS sets make's -j (default: nproc).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=${1:?usage: build-deb.sh KVER [small|debian] [OUTDIR]}
debconfig=${2:-small}
kver_check "$kver"
case $debconfig in
small | debian) ;;
*) die "DEBCONFIG must be small or debian (got '$debconfig')" ;;
esac
out=${3:-$RESULTS/deb-$kver-$debconfig}
jobs=${SCY_JOBS:-$(nproc)}
ensure_deps
for t in dpkg-buildpackage dpkg-deb dh_listpackages fakeroot; do
	command -v "$t" >/dev/null 2>&1 ||
		die "$t not found: bindeb-pkg needs dpkg-dev, debhelper and fakeroot (run make deps as root)"
done

localversion=-compat-yield
[[ $debconfig == small ]] && localversion=-compat-yield-small
debver=$(debian_version "$kver")
pkgversion=$debver+scy1

# The base config and the fragments that must hold after olddefconfig.
frags=()
base=
if [[ $debconfig == small ]]; then
	frags=("$SCY_REPO/vm/guest.config" "$SCY_REPO/vm/patched.config")
else
	base=${SCY_DEB_CONFIG:-/usr/src/linux-config-$kver/config.amd64_none_amd64.xz}
	[[ -f $base ]] || die "$base missing: Debian's config of $kver comes with the package linux-config-$kver (apt-get install linux-config-$kver), or set SCY_DEB_CONFIG=FILE"
	frags=("$SCY_REPO/vm/patched.config")
fi

# Packages already built from the same series and configuration are
# copied from the cache: the same input gives the same packages.
key=$kver-$debconfig-$(patch_hash "$kver")-$(cat "${frags[@]}" ${base:+"$base"} | sha256sum | cut -c1-12)
cache=$SCY_CACHE/debs/$key
if [[ -f $cache/.done ]]; then
	log "packages of $kver ($debconfig config) are cached ($key)"
	mkdir -p "$out"
	rm -f "$out"/*.deb
	cp "$cache"/*.deb "$cache/config" "$cache/build-info" "$out/"
	echo "$out"
	exit 0
fi

work=$SCY_CACHE/work/$kver-deb-$debconfig
src=$work/src obj=$work/obj
mkdir -p "$work"
exec 9>"$work.lock"
if ! flock -n 9; then
	log "waiting for another package build in $work"
	flock 9
fi
ref=$(ref_tree "$kver")

# 1. Work tree = pristine Debian source + series (patched_tree, as
# vm/build-kernel.sh): only files whose content changed get a fresh mtime.
# A new tree keeps the pristine mtimes, older than the objects a seed
# brings (below), except the files the series touches: those, and all
# that depends on them, are compiled again.
log "syncing work tree $src"
list=$(series_patches "$SCY_REPO/kernel-patches/v$kver")
mapfile -t patches <<<"$list"
patched_tree "$ref" "$src" "$obj" "${patches[@]}"

# 2. Configuration, redone when the base config or a fragment changed.
chash=$( (if [[ -n $base ]]; then xzcat -f "$base"; else echo tinyconfig; fi
	cat "${frags[@]}") | sha256sum | cut -c1-12)
# The small config is the patched guest kernel's but for its test options
# (vm/sysctl.config): a first build seeds its object tree from
# vm/build-kernel.sh's ($SCY_CACHE/work/KVER-patched), when that was
# configured from the same fragments, rewriting the tree's path in
# kbuild's .cmd files, and then configures it as below. make then rebuilds
# only what the series, the options that differ, the guest's test-only
# patches (vm/fault-patches) or the release string touch, instead of the
# whole kernel (ccache cannot help: its entries name the other tree's
# paths).
seed=$SCY_CACHE/work/$kver-patched
if [[ $debconfig == small && ! -f $obj/.config ]]; then
	# the guest kernel (cached, or built now: make check boots it anyway)
	bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 1 >/dev/null ||
		log "the guest kernel did not build: packaging without a seed"
fi
if [[ $debconfig == small && ! -f $obj/.config && -f $seed/obj/.config && -f $seed/obj/vmlinux &&
	$(cat "$seed/obj/.scy-config-hash" 2>/dev/null) == "$(config_hash "$SCY_REPO/vm/patched.config" "$SCY_REPO/vm/sysctl.config")" ]]; then
	log "seeding $obj from the guest kernel's tree $seed/obj"
	rm -rf "$obj" "$obj.seed"
	# Its objects may come from another state of the series: every source
	# file whose content differs from the seed's gets a fresh mtime, so
	# make rebuilds what was compiled from a different text; so does every
	# file the seed's tree changed after its last vmlinux (a build that
	# stopped half-way leaves objects older than their sources). The copy
	# becomes $obj only when all that is done: a seeding cut short leaves
	# no object tree to trust.
	(
		flock 8
		cp -a "$seed/obj" "$obj.seed"
		rsync -rlcn --out-format='%n' --exclude=/.extracted "$seed/src/" "$src/" >"$work/seed-diff"
		find "$seed/src" -type f -newer "$seed/obj/vmlinux" -printf '%P\n' >>"$work/seed-diff"
	) 8>"$seed.lock" || die "copying $seed/obj failed"
	while IFS= read -r f; do
		if [[ -f $src/$f && ! -L $src/$f ]]; then touch -- "$src/$f"; fi
	done <"$work/seed-diff"
	log "  $(wc -l <"$work/seed-diff") source files differ from the seed's"
	find "$obj.seed" -name '*.cmd' -type f -print0 |
		xargs -0 -r sed -i "s#$seed/#$work/#g"
	# The object tree's Makefile names its source tree too. 6.12's
	# bindeb-pkg builds through dpkg-buildpackage, which runs make in the
	# object tree: with the seed's source tree named there, every command
	# differs from the rewritten .cmd files and the whole kernel is
	# compiled again.
	sed -i "s#$seed/#$work/#g" "$obj.seed/Makefile"
	ln -sfn "$src" "$obj.seed/source"
	# the guest's configuration: configured again below
	rm -f "$obj.seed/.scy-config-hash"
	mv "$obj.seed" "$obj"
fi
mkdir -p "$obj"
kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		LOCALVERSION="$localversion" "$@"
}
if [[ ! -f $obj/.config || $(cat "$obj/.scy-config-hash" 2>/dev/null) != "$chash" ]]; then
	if [[ $debconfig == small ]]; then
		log "configuring: tinyconfig + ${frags[*]##*/}"
		kmake -s tinyconfig >/dev/null
	else
		log "configuring: $base + ${frags[*]##*/}"
		xzcat -f "$base" >"$obj/.config"
	fi
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${frags[@]}" >"$work/merge.log" 2>&1
	# A config taken from an installed Debian kernel names Debian's
	# certificates, which are not in linux-source: build without them
	# (the build makes its own module signing key).
	"$src/scripts/config" --file "$obj/.config" \
		--set-str SYSTEM_TRUSTED_KEYS '' --set-str SYSTEM_REVOCATION_KEYS ''
	kmake -s olddefconfig >/dev/null
	echo "$chash" >"$obj/.scy-config-hash"
fi
fragments_hold "$obj/.config" "${frags[@]}" ||
	die "configuration check failed (see $work/merge.log)"
krel=$(kmake -s kernelrelease)
[[ $krel == *"$localversion" ]] || die "kernel release '$krel' does not end in $localversion"

# 3. make bindeb-pkg; the packages land in $work (the parent of O=).
export CCACHE_DIR=${CCACHE_DIR:-$SCY_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
rm -f "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes
blog=$work/build.log
log "make bindeb-pkg: $kver, $debconfig config, release $krel, version $pkgversion, $jobs jobs (log: $blog)"
make_progress "$kver-deb-$debconfig" "$blog" kmake -j"$jobs" KDEB_PKGVERSION="$pkgversion" bindeb-pkg
secs=$build_secs
log "bindeb-pkg of $kver ($debconfig config) took $secs s"

shopt -s nullglob
debs=("$work"/*.deb)
[[ ${#debs[@]} -gt 0 ]] || die "make bindeb-pkg made no .deb in $work"
mkdir -p "$out"
rm -f "$out"/*.deb
mv "${debs[@]}" "$out/"
cp "$obj/.config" "$out/config"
printf 'kver=%s\ndebconfig=%s\nkrel=%s\npkgversion=%s\nseconds=%s\njobs=%s\n' \
	"$kver" "$debconfig" "$krel" "$pkgversion" "$secs" "$jobs" >"$out/build-info"
for d in "$out"/*.deb; do log "  ${d##*/} ($(du -h "$d" | cut -f1))"; done
rm -rf "$cache"
mkdir -p "$cache"
cp "$out"/*.deb "$out/config" "$out/build-info" "$cache/"
touch "$cache/.done"
echo "$out"
