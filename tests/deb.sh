#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh [KVER...]: the packaging checks of make check. For each kernel
# (default: SCY_CHECK_KVERS, else 6.12 6.1) build the Debian packages of the
# patched kernel with the small config (vm/build-deb.sh KVER small: make
# bindeb-pkg), then check them without touching the system:
#   - dpkg-deb -I / -c: names, versions, the files an install needs;
#   - apt-get --simulate install: their dependencies resolve here (root);
#   - dpkg -x of image and headers into a scratch root: /boot/config-* has
#     CONFIG_SCHED_COMPAT_YIELD=y, the kernel in /boot/vmlinuz-* carries the
#     knob (sysfs/sysctl name, boot parameter, embedded config), System.map
#     has its symbols, the headers' auto.conf and autoconf.h have the option;
#   - DKMS: add, build, install and remove module/ against the extracted
#     headers package (--kernelsourcedir), in private trees.
# TAP output; the build time of each bindeb-pkg is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
. vm/lib.sh
. tests/tap.sh

kvers=${*:-${SCY_CHECK_KVERS:-6.12 6.1}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# debfield DEB FIELD: one control field of a package.
debfield() { dpkg-deb -f "$1" "$2" 2>/dev/null; }
# has_path LISTING PATH: the dpkg-deb -c listing has that path (file or link).
has_path() { awk -v p="./$2" '$6 == p { f = 1 } END { exit !f }' "$1"; }

. tests/dkms.sh

# 17 checks per kernel: the build, the packages, 2 control fields, 2
# listings, the install simulation, 3 config checks, 2 System.map checks, 2
# in the compressed kernel, 3 DKMS steps. A failed step fails the checks
# after it.
per_kernel=17
for kver in $kvers; do kver_check "$kver"; done
plan $(($(wc -w <<<"$kvers") * per_kernel))

for kver in $kvers; do
	end=$((n + per_kernel))
	out=$RESULTS/deb-$kver-small
	blog=$tmp/build-$kver.log
	bash vm/build-deb.sh "$kver" small "$out" >"$tmp/out-$kver" 2>"$blog"
	rc=$?
	# what it built, for make check's stage table (tests/run-all.sh)
	grep -E '^\[scy\] (building |bindeb-pkg of )' "$blog" >&2
	if ((rc)); then
		tail -n 30 "$blog" | sed 's/^/#   /'
		fail_to $end "$kver: make bindeb-pkg of the patched kernel (small config)"
		continue
	fi
	ok "$kver: make bindeb-pkg of the patched kernel (small config)"
	info() { sed -n "s/^$1=//p" "$out/build-info"; }
	krel=$(info krel) pkgversion=$(info pkgversion) seconds=$(info seconds) jobs=$(info jobs)
	echo "# $kver: bindeb-pkg took $seconds s with $jobs jobs (release $krel, version $pkgversion)"
	image=$out/linux-image-${krel}_${pkgversion}_amd64.deb
	headers=$out/linux-headers-${krel}_${pkgversion}_amd64.deb
	check "$kver: linux-image and linux-headers packages of $krel made ($(cd "$out" && echo *.deb))" \
		test -f "$image" -a -f "$headers"
	if [[ ! -f $image || ! -f $headers ]]; then
		fail_to $end "$kver: the packages were not made"
		continue
	fi

	for deb in "$image" "$headers"; do
		pkg=$(basename "$deb" | cut -d_ -f1)
		got="$(debfield "$deb" Package) $(debfield "$deb" Version) $(debfield "$deb" Architecture)"
		check "$kver: dpkg-deb -I $pkg: '$got' is '$pkg $pkgversion amd64'" \
			test "$got" = "$pkg $pkgversion amd64"
	done
	dpkg-deb -c "$image" >"$tmp/image.list" && dpkg-deb -c "$headers" >"$tmp/headers.list"
	absent=
	for p in boot/vmlinuz-$krel boot/config-$krel boot/System.map-$krel lib/modules/$krel/modules.order; do
		has_path "$tmp/image.list" "$p" || absent+=" $p"
	done
	check "$kver: linux-image has the kernel, its config, System.map, modules${absent:+ (absent:$absent)}" \
		test -z "$absent"
	absent=
	hdir=usr/src/linux-headers-$krel
	for p in $hdir/Makefile $hdir/include/config/auto.conf $hdir/Module.symvers $hdir/scripts/mod/modpost \
		$hdir/include/generated/autoconf.h lib/modules/$krel/build; do
		has_path "$tmp/headers.list" "$p" || absent+=" $p"
	done
	check "$kver: linux-headers has what out-of-tree modules need${absent:+ (absent:$absent)}" \
		test -z "$absent"

	if [[ $(id -u) == 0 ]]; then
		if sim=$(apt-get --simulate -q install "$image" "$headers" 2>&1); then
			check "$kver: apt-get --simulate install of both packages resolves their dependencies" \
				grep -q "^Inst linux-image-$krel " <<<"$sim"
		else
			not_ok "$kver: apt-get --simulate install of both packages resolves their dependencies"
			tail -n 10 <<<"$sim" | sed 's/^/#   /'
		fi
	else
		skip "$kver: apt-get --simulate install of both packages" "needs root"
	fi

	# Extract into a scratch root, as dpkg would install them.
	root=$tmp/root-$kver
	mkdir -p "$root"
	dpkg -x "$image" "$root" && dpkg -x "$headers" "$root"
	check "$kver: /boot/config-$krel of the image has CONFIG_SCHED_COMPAT_YIELD=y" \
		grep -qx CONFIG_SCHED_COMPAT_YIELD=y "$root/boot/config-$krel"
	check "$kver: the headers' include/config/auto.conf has CONFIG_SCHED_COMPAT_YIELD=y" \
		grep -qx CONFIG_SCHED_COMPAT_YIELD=y "$root/$hdir/include/config/auto.conf"
	check "$kver: the headers' autoconf.h defines CONFIG_SCHED_COMPAT_YIELD" \
		grep -qx '#define CONFIG_SCHED_COMPAT_YIELD 1' "$root/$hdir/include/generated/autoconf.h"
	absent=
	for s in sched_compat_yield_attr sched_compat_yield_store \
		setup_sched_compat_yield yield_task_fair_compat_path; do
		grep -q " $s\$" "$root/boot/System.map-$krel" || absent+=" $s"
	done
	check "$kver: System.map-$krel has the knob's code${absent:+ (absent:$absent)}" test -z "$absent"
	# The package leaves the kernel.sched_compat_yield sysctl out, as the
	# option's default does (Documentation/admin-guide.md)
	check "$kver: CONFIG_SCHED_COMPAT_YIELD_SYSCTL is not set, System.map-$krel has no sysctl handler" \
		bash -c "! grep -q '^CONFIG_SCHED_COMPAT_YIELD_SYSCTL=y' '$root/boot/config-$krel' &&
			! grep -q ' sched_compat_yield_sysctl\$' '$root/boot/System.map-$krel'"
	# The compressed kernel itself: the knob's names are in it.
	vmlinux=$tmp/vmlinux-$kver
	ref=$(ref_tree "$kver")
	if sh "$ref/scripts/extract-vmlinux" "$root/boot/vmlinuz-$krel" >"$vmlinux" 2>/dev/null &&
		[[ -s $vmlinux ]]; then
		strings -n 8 "$vmlinux" >"$tmp/strings"
		# the sysfs attribute's name and the boot parameter
		check "$kver: vmlinuz-$krel has the knob (sched_compat_yield, sched_compat_yield=)" \
			bash -c "grep -qx sched_compat_yield '$tmp/strings' && grep -q '^sched_compat_yield=' '$tmp/strings'"
		if grep -qx CONFIG_IKCONFIG=y "$root/boot/config-$krel"; then
			check "$kver: the config built into vmlinuz-$krel has CONFIG_SCHED_COMPAT_YIELD=y" \
				bash -c "sh '$ref/scripts/extract-ikconfig' '$vmlinux' | grep -qx CONFIG_SCHED_COMPAT_YIELD=y"
		else
			skip "$kver: the config built into vmlinuz-$krel" "CONFIG_IKCONFIG is not set"
		fi
	else
		fail_to $((n + 2)) "$kver: scripts/extract-vmlinux unpacks /boot/vmlinuz-$krel"
	fi

	# DKMS against the extracted headers package, in private trees: the
	# system's /var/lib/dkms and /lib/modules stay as they are.
	if ! command -v dkms >/dev/null 2>&1 || [[ -z $DKMS_NAME || -z $DKMS_VER ]]; then
		fail_to $end "$kver: dkms is installed and module/dkms.conf names the package (run make deps)"
		continue
	fi
	d=$tmp/dkms-$kver
	dkms_install "$d" "$krel" "$root/$hdir"
	ko=$d/inst/$krel/updates/dkms/yield_stats.ko
	check "$kver: dkms add, build, install $DKMS_NAME/$DKMS_VER against the extracted linux-headers-$krel" \
		test -f "$ko"
	vm=$( [[ -f $ko ]] && modinfo -F vermagic "$ko")
	check "$kver: the DKMS-built yield_stats.ko is for $krel (vermagic '${vm%% *}')" \
		test "${vm%% *}" = "$krel"
	check "$kver: dkms remove $DKMS_NAME/$DKMS_VER leaves no module behind" \
		dkms_uninstall "$d" "$krel"
done
