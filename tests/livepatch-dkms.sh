#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/livepatch-dkms.sh KVER...: the livepatch's DKMS trees of Debian's
# binary kernels (livepatch/build.sh KVER --kernel) side by side in one
# private DKMS tree, as on a host with several kernels installed: each
# added under its own package version, built and installed for its
# kernel against that kernel's headers, refused for another kernel
# (BUILD_EXCLUSIVE_KERNEL), and removed without leaving a module behind;
# and the build's check of what it relocates against a System.map.
# The system's /var/lib/dkms and /lib/modules stay as they are. TAP.
set -uo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"

kvers=("$@")
[[ ${#kvers[@]} -gt 0 ]] || kvers=(6.12 6.1)
# add, install and remove each; each refused for another kernel when there
# is one; the versions differ; a build against a broken System.map
# refused; then each kernel's module as DKMS installed it, loaded, switched
# and unloaded in a guest of that kernel (tests/guest-livepatch-dkms.sh,
# two tests per guest: the guests run side by side)
plan $((3 * ${#kvers[@]} + (${#kvers[@]} > 1 ? ${#kvers[@]} : 0) + 2 + 2 * ${#kvers[@]}))
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/src" "$d/tree" "$d/inst"
# the modules DKMS installs, for the guests (which see the host's /tmp
# not, $RESULTS yes)
dkout=$RESULTS/livepatch-dkms
rm -rf "$dkout"
mkdir -p "$dkout"
name=livepatch-compat-yield
declare -A ver krel kdir
for k in "${kvers[@]}"; do
	lp=$(bash "$SCY_REPO/livepatch/build.sh" "$k" --kernel) || die "the livepatch for $k did not build"
	krel[$k]=$(cat "$lp/release")
	kdir[$k]=$(readlink -f "$lp/kdir")
	ver[$k]=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$lp/src/dkms.conf")
	cp -r "$lp/src" "$d/src/$name-${ver[$k]}"
	mkdir -p "$d/inst/${krel[$k]}"
done
# dk STEP KVER [KREL]: dkms STEP of KVER's package (for KREL, default its
# own kernel) in the private trees; the log in $d/dkms.log
dk() {
	local step=$1 k=$2 r=${3:-${krel[$2]}} opts
	opts=(-m "$name" -v "${ver[$k]}" --dkmstree "$d/tree" --sourcetree "$d/src"
		--installtree "$d/inst" --no-depmod)
	[[ $step == add ]] || opts+=(-k "$r" --kernelsourcedir "${kdir[$k]}")
	echo "== dkms $step ${ver[$k]} ${3:+for $r}" >>"$d/dkms.log"
	mok_signing_key=$d/mok.key mok_certificate=$d/mok.pub dkms "$step" "${opts[@]}" >>"$d/dkms.log" 2>&1
}
for k in "${kvers[@]}"; do
	check "dkms add $name/${ver[$k]}" dk add "$k"
done
for k in "${kvers[@]}"; do
	dk build "$k" && dk install "$k"
	ko=$(ls "$d/inst/${krel[$k]}"/updates/dkms/livepatch_compat_yield.ko* 2>/dev/null | head -n 1)
	# the module as loaded: decompressed (Debian's 6.12 takes .ko.xz)
	xz -dcf "$ko" >"$d/m.ko" 2>/dev/null
	cp "$d/m.ko" "$dkout/dkms-$k.ko" 2>/dev/null
	klp=$(readelf -SW "$d/m.ko" 2>/dev/null | grep -c '\.klp\.rela\.vmlinux\.')
	check "dkms build and install $name/${ver[$k]} for ${krel[$k]}: ${ko:+${ko#"$d"/}}, vermagic $(modinfo -F vermagic "$d/m.ko" 2>/dev/null | cut -d' ' -f1), $klp livepatch relocation sections" \
		test -n "$ko" -a "$(modinfo -F vermagic "$d/m.ko" 2>/dev/null | cut -d' ' -f1)" = "${krel[$k]}" -a "$klp" -gt 0
done
# each package refuses the other kernel: nothing built or installed for it
for k in "${kvers[@]}"; do
	for o in "${kvers[@]}"; do
		[[ $o != "$k" ]] || continue
		dk build "$k" "${krel[$o]}"
		rc=$?
		check "dkms build $name/${ver[$k]} for ${krel[$o]} refused (status $rc), nothing built for it" \
			test $rc != 0 -a -z "$(find "$d/tree/$name/${ver[$k]}" -path "*/${krel[$o]}/*" -name '*.ko*' 2>/dev/null)"
		break
	done
done
for k in "${kvers[@]}"; do
	dk remove "$k"
	check "dkms remove $name/${ver[$k]}: no module of it left" \
		test -z "$(find "$d/tree/$name/${ver[$k]}" "$d/inst/${krel[$k]}" -name 'livepatch_compat_yield*.ko*' 2>/dev/null)"
done
check "the packages' versions differ: ${ver[*]}" test "$(printf '%s\n' "${ver[@]}" | sort -u | wc -l)" = ${#kvers[@]}
# The build checks the names it relocates against the target's System.map:
# with the first of its functions missing, the second defined twice and its
# variable __cfs_bandwidth_used in text (a copy of the real map, changed
# so), it stops before building and names all three.
k=${kvers[0]}
lp=$(readlink -f "$(bash "$SCY_REPO/livepatch/build.sh" "$k" --kernel)")
real=$(debian_system_map "${krel[$k]}" "$(cat "$lp/debian-version")")
read -r gone twice < <(grep -vx __cfs_bandwidth_used "$lp"/src/gen/*/klp-syms.list | head -n 2 | paste -sd ' ')
awk -v gone="$gone" -v twice="$twice" '$3 == gone { next } $3 == twice { print }
	$3 == "__cfs_bandwidth_used" { $2 = "T" } { print }' "$real" >"$d/System.map"
rc=0
out=$(SCY_SYSTEM_MAP=$d/System.map bash "$SCY_REPO/livepatch/build.sh" "$k" "$d/lp-badmap" 2>&1) || rc=$?
check "livepatch/build.sh $k with a System.map that lacks $gone, has $twice twice and __cfs_bandwidth_used in text: refused (status $rc), all three named, nothing built" \
	bash -c '[[ $1 != 0 ]] && grep -q "$4 is not in System.map" <<<"$2" &&
		grep -q "$5 is defined 2 times" <<<"$2" &&
		grep -q "__cfs_bandwidth_used is a variable here, T there" <<<"$2" &&
		[[ ! -e $3/livepatch_compat_yield.ko ]]' _ "$rc" "$out" "$d/lp-badmap" "$gone" "$twice"
echo "# $(tail -n 1 <<<"$out")"
sed 's/^/# /' "$d/dkms.log" | tail -n 40
# Each module as DKMS installed it (stripped), in a guest of its kernel,
# single-threaded TCG (the livepatch patches text): loaded, switched to 1
# and back, unloaded. The guests run side by side; their TAP after.
make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
declare -A grc
for k in "${kvers[@]}"; do
	(
		rc=0
		SCY_TCG_THREAD=single bash "$SCY_REPO/vm/run.sh" --kernel "$(kernel_get "$k-debian")" \
			--out "$dkout/guest-$k" --timeout 900 \
			-- env SCY_BIN="$RESULTS/bin" bash tests/guest-livepatch-dkms.sh "$dkout/dkms-$k.ko" || rc=$?
		echo "$rc" >"$dkout/guest-$k.rc"
	) >"$dkout/guest-$k.log" 2>&1 &
done
wait
for k in "${kvers[@]}"; do
	grc[$k]=$(cat "$dkout/guest-$k.rc" 2>/dev/null || echo x)
	guest_verdict "$dkout/guest-$k" "${grc[$k]}" "a guest of Debian's $k with the DKMS-built livepatch"
done
