#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh [--cached] KVER PATCHED [debug|debconfig]: build a small
# guest kernel from Debian's linux-source-KVER, with the series from
# kernel-patches/vKVER (and the test-only vm/fault-patches/vKVER) applied
# when PATCHED=1, on top of tinyconfig plus vm/guest.config (and
# vm/patched.config and vm/sysctl.config). "debug" adds vm/debug.config (KASAN, lockdep, UBSAN,
# KMEMLEAK, ...) to a patched kernel, applies vm/debug-patches/vKVER (fixes of
# kernel bugs that only the debug options expose) and builds it in a work
# tree of its own. "debconfig" builds the patched kernel with Debian's own
# configuration of KVER (linux-config-KVER) plus vm/patched.config and
# vm/debconfig.config instead of tinyconfig: the bzImage and what builds of
# out-of-tree modules need (modules_prepare, and vmlinux's exports as
# Module.symvers), no in-tree modules.
#
# Work trees live outside the checkout in $SCY_CACHE/work/KVER-{stock,patched}
# so that ccache and make see the same paths each time; only files whose
# content changed are rebuilt. The finished kernel is stored under
# $SCY_CACHE/kernels/<key>, key = version + patch hash + config hash, and its
# path is printed on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# --cached: build nothing; print the kernel's directory and exit 0 when it
# is in the cache, exit 1 when it is not.
query=0
[[ ${1:-} == --cached ]] && { query=1; shift; }
kver=${1:?usage: build-kernel.sh [--cached] KVER PATCHED [debug|debconfig]}
patched=${2:-1}
variant=${3:-}
kver_check "$kver"
[[ $patched == 0 || $patched == 1 ]] || die "PATCHED must be 0 or 1"
case $variant in
'' | debug | debconfig) ;;
*) die "build-kernel.sh: unknown variant '$variant' (debug or debconfig)" ;;
esac
[[ -z $variant || $patched == 1 ]] || die "$variant kernels are patched ones (PATCHED=1)"
ensure_deps

flavor=stock
frags=("$SCY_REPO/vm/guest.config")
if [[ $patched == 1 ]]; then
	flavor=patched
	frags+=("$SCY_REPO/vm/patched.config" "$SCY_REPO/vm/sysctl.config")
fi
# The patched guest kernels (and the debug ones) also get
# vm/fault-patches/vKVER: the boot parameter scy_fault=, with which make
# check breaks the compat yield's rule on purpose to show its checks turn
# red. Inert without the parameter (a static key; the compat path has one
# more NOP, the default path none); not in the packages (vm/build-deb.sh)
# nor the debconfig kernels, which carry the series alone. Debug kernels
# also get vm/debug-patches/vKVER: fixes of kernel bugs that only the debug
# options expose (none touches the scheduler). Both are part of the
# kernel's key.
dpatches=()
if [[ $patched == 1 && -z $variant || $variant == debug ]]; then
	list=$(series_patches "$SCY_REPO/vm/fault-patches/v$kver")
	mapfile -t dpatches <<<"$list"
fi
if [[ $variant == debug ]]; then
	flavor=debug
	frags+=("$SCY_REPO/vm/debug.config")
	ddir=$SCY_REPO/vm/debug-patches/v$kver
	if [[ -f $ddir/series ]]; then
		list=$(series_patches "$ddir")
		mapfile -t -O "${#dpatches[@]}" dpatches <<<"$list"
	fi
fi
debver=$(debian_version "$kver")
base=
if [[ $variant == debconfig ]]; then
	flavor=debconfig
	base=/usr/src/linux-config-$kver/config.amd64_none_amd64.xz
	[[ -f $base ]] || die "$base missing: Debian's config of $kver comes with the package linux-config-$kver (make deps)"
	frags=("$SCY_REPO/vm/patched.config" "$SCY_REPO/vm/debconfig.config")
	chash=$( (xzcat "$base" && cat "${frags[@]}") | sha256sum | cut -c1-12)
	key=$kver-$debver-$(patch_hash "$kver")-debconfig-$chash
else
	chash=$(config_hash "${frags[@]:1}")
	key=$(basename "$(build_dir "$kver" "$patched" "${frags[@]:1}" "${dpatches[@]}")")
fi
out=$SCY_CACHE/kernels/$key
if [[ -f $out/bzImage && -f $out/.done ]]; then
	((query)) || log "kernel $kver-$flavor is cached ($key)"
	echo "$out"
	exit 0
fi
((!query)) || exit 1

work=$SCY_CACHE/work/$kver-$flavor
mkdir -p "$work" "$SCY_CACHE/kernels"
# One build per work tree at a time (several checkouts share the cache);
# whoever waited may find the kernel built by the one before.
exec 9>"$work.lock"
if ! flock -n 9; then
	log "waiting for another build in $work"
	flock 9
fi
if [[ -f $out/bzImage && -f $out/.done ]]; then
	log "kernel $kver-$flavor was built meanwhile ($key)"
	echo "$out"
	exit 0
fi
ref=$(ref_tree "$kver")

# 2. Work tree = pristine + series (+ debug fixes); only files whose
# content changed get a fresh mtime (patched_tree).
src=$work/src
log "syncing work tree $src"
patches=()
if [[ $patched == 1 ]]; then
	list=$(series_patches "$SCY_REPO/kernel-patches/v$kver")
	mapfile -t patches <<<"$list"
fi
patched_tree "$ref" "$src" "$work/obj" "${patches[@]}" "${dpatches[@]}"

# 3. Configuration: tinyconfig (or Debian's) + fragments, checked.
obj=$work/obj
mkdir -p "$obj"
# MAKEFLAGS of a calling make (make -s kernel) would silence the build's
# log, which the progress lines count.
kmake() { MAKEFLAGS= make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
if [[ ! -f $obj/.config || $(cat "$obj/.scy-config-hash" 2>/dev/null) != "$chash" ]]; then
	if [[ -n $base ]]; then
		log "configuring: ${base##*/} + ${frags[*]##*/}"
		xzcat "$base" >"$obj/.config"
	else
		log "configuring: tinyconfig + ${frags[*]##*/}"
		kmake -s tinyconfig >/dev/null
	fi
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${frags[@]}" >"$work/merge.log" 2>&1
	# Debian's config names Debian's certificates, which are not in
	# linux-source (nothing is signed with them here).
	[[ -z $base ]] || "$src/scripts/config" --file "$obj/.config" \
		--set-str SYSTEM_TRUSTED_KEYS '' --set-str SYSTEM_REVOCATION_KEYS ''
	kmake -s olddefconfig >/dev/null
	echo "$chash" >"$obj/.scy-config-hash"
fi
fragments_hold "$obj/.config" "${frags[@]}" || die "configuration check failed"

# 4. Build, with progress.
export CCACHE_DIR=${CCACHE_DIR:-$SCY_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
blog=$work/build.log
jobs=${SCY_JOBS:-$(nproc)}
log "building $kver-$flavor with $jobs jobs (log: $blog)"
targets=(all)
if [[ $variant == debconfig ]]; then
	targets=(bzImage modules_prepare)
	# A one-off build of thousands of files: a cold ccache would only add
	# a preprocessor pass to each (the work tree keeps the objects).
	export CCACHE_DISABLE=1
fi
make_progress "$kver-$flavor" "$blog" kmake -j"$jobs" "${targets[@]}"
# No in-tree modules: the exports of vmlinux are all an out-of-tree
# module (yield_stats) can link against.
[[ $variant != debconfig ]] || cp "$obj/vmlinux.symvers" "$obj/Module.symvers"
log "built $kver-$flavor in $build_secs s; warnings: $(grep -c 'warning:' "$blog" || true)"

rm -rf "$out"
mkdir -p "$out"
cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$obj/System.map" "$blog" "$out/"
ln -sfn "$obj" "$out/kdir"
echo "$debver" >"$out/debian-version"
touch "$out/.done"
echo "$out"
