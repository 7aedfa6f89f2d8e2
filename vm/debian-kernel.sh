#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-kernel.sh KVER: Debian's own binary kernel of the version of
# linux-source-KVER (linux-image-6.1.0-N-amd64, linux-image-6.12.117+deb12-amd64),
# made bootable by vm/run.sh. Downloaded with apt-get download on first use,
# extracted, with an initramfs that loads the virtio and 9p modules the
# guest's root file system needs (Debian builds them as modules) and hands
# over to vm/guest-init. Its headers package is installed for module builds.
# Prints the kernel directory: bzImage, initrd, .config, System.map,
# kdir (the headers), modules (the extracted /lib/modules/RELEASE).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=${1:?usage: debian-kernel.sh KVER}
kver_check "$kver"
ensure_deps
debver=$(debian_version "$kver")

# The image package of exactly that version, named by its release
# (6.1.0-N-amd64, 6.12.117+deb12-amd64; not the -dbg, -unsigned, -rt or
# -cloud ones, nor the 6.12-amd64 meta package). awk reads all of apt-cache's
# output: leaving early would kill apt-cache with SIGPIPE, and pipefail
# would make that the pipeline's status.
pkg=$(apt-cache show $(apt-cache search --names-only \
	'^linux-image-[0-9]+\.[0-9]+\.[0-9]+[-+][^ ]*-amd64$' 2>/dev/null |
	awk '{ print $1 }' | grep -vE -- '-(dbg|unsigned|rt|cloud)-') 2>/dev/null |
	awk -v v="$debver" '/^Package: / { p = $2 } /^Version: / && $2 == v && !found { print p; found = 1 }')
if [[ -z $pkg ]]; then
	[[ -z ${SCY_APT_UPDATED:-} ]] ||
		die "the apt archive has no linux-image package of Debian $debver (the version of linux-source-$kver here)"
	log "no linux-image package of Debian $debver in the apt lists; running apt-get update"
	apt_locked apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null || die "apt-get update failed"
	SCY_APT_UPDATED=1 exec bash "$0" "$@"
fi
krel=${pkg#linux-image-}
out=$SCY_CACHE/debian/$krel-$debver
# the initramfs's recipe: this script
stamp=$(sha256sum <"$0" | cut -c1-16)
current() { [[ -f $out/.done && $(cat "$out/initrd.stamp" 2>/dev/null) == "$stamp" ]]; }
if current; then
	log "Debian kernel $krel ($debver) is cached"
	echo "$out"
	exit 0
fi
mkdir -p "$SCY_CACHE/debian"
exec 9>"$out.lock"
flock 9
if current; then
	echo "$out"
	exit 0
fi

# initramfs: busybox, the modules of the virtio 9p root and, in a second
# list, those of an overlay on the virtio disk's ext4; its /init.
# ird_modules LIST MODULE...: MODULE and what it needs, in dependency order,
# into the initramfs, and their names into LIST; not those there already
ird_modules() {
	local list=$1 m b mods
	shift
	mods=$(modprobe -d "$out/root" -S "$krel" --show-depends -a "$@" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p' | awk '!seen[$0]++')
	[[ -n $mods ]] || die "no modules for $* found in $pkg"
	: >"$ird/$list"
	for m in $mods; do
		# modprobe -d prints the paths with the base directory in front
		[[ $m == "$out/root/"* ]] || m=$out/root$m
		b=$(basename "$m")
		b=${b%.xz}
		b=${b%.zst}
		[[ ! -e $ird/lib/modules/$b ]] || continue
		case $m in
		*.ko.xz) xz -dc "$m" >"$ird/lib/modules/$b" ;;
		*.ko.zst) zstd -qdc "$m" >"$ird/lib/modules/$b" ;;
		*) cp "$m" "$ird/lib/modules/$b" ;;
		esac
		echo "$b" >>"$ird/$list"
	done
}
make_initramfs() {
	ird=$out/initramfs
	rm -rf "$ird"
	mkdir -p "$ird"/{bin,dev,proc,sys,newroot,lower,disk,lib/modules}
	cp /bin/busybox "$ird/bin/busybox"
	for a in sh mount umount insmod switch_root mkdir cat echo sleep; do
		ln -s busybox "$ird/bin/$a"
	done
	ird_modules modules virtio_pci 9pnet_virtio 9p
	ird_modules modules-overlay virtio_blk ext4 overlay
	cat >"$ird/init" <<'EOF'
#!/bin/sh
# Load the modules of the 9p root (in dependency order), mount it and run
# the init= program given on the kernel command line there. With
# scy_overlay=1: the root is an overlay, the 9p root read-only below, the
# directory upper/ of the ext4 file system on /dev/vda above, so that what
# the guest writes is on that disk at its next boot.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# a failure: a shell on the console; with the overlay (a test's job, which
# no one types into) the guest stops, so that the host sees it at once
fail() {
	echo "initramfs: $*"
	[ -z "$overlay" ] || /bin/busybox reboot -f
	exec sh
}
for m in $(cat /modules); do
	insmod /lib/modules/$m || echo "initramfs: insmod $m failed"
done
target=/sbin/init overlay=
for a in $(cat /proc/cmdline); do
	case $a in
	init=*) target=${a#init=} ;;
	scy_overlay=1) overlay=1 ;;
	esac
done
if [ -z "$overlay" ]; then
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro /dev/root /newroot ||
		fail "cannot mount the 9p root"
else
	for m in $(cat /modules-overlay); do
		insmod /lib/modules/$m || echo "initramfs: insmod $m failed"
	done
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro /dev/root /lower ||
		fail "cannot mount the 9p root"
	# the disk's node comes once its driver has probed it
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mount -t ext4 /dev/vda /disk || fail "cannot mount /dev/vda"
	mkdir -p /disk/upper /disk/work
	mount -t overlay overlay -o lowerdir=/lower,upperdir=/disk/upper,workdir=/disk/work /newroot ||
		fail "cannot mount the overlay"
fi
umount /dev /sys /proc
exec switch_root /newroot "$target"
EOF
	chmod +x "$ird/init"
	(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.new"
	mv "$out/initrd.new" "$out/initrd"
	echo "$stamp" >"$out/initrd.stamp"
}
# Downloaded and extracted before: only the initramfs's recipe changed.
if [[ -f $out/.done ]]; then
	make_initramfs
	log "Debian kernel $krel ($debver): its initramfs made again"
	echo "$out"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out/deb" "$out/root"
log "downloading $pkg ($debver)"
(cd "$out/deb" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$debver" >/dev/null) ||
	die "apt-get download $pkg=$debver failed"
dpkg-deb -x "$out"/deb/*.deb "$out/root"
hdr=linux-headers-$krel
if [[ $(dpkg-query -W -f='${Version} ${Status}' "$hdr" 2>/dev/null) != "$debver install ok installed" ]]; then
	log "installing $hdr ($debver) for module builds"
	apt_locked apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
		"$hdr=$debver" >/dev/null || die "apt-get install $hdr=$debver failed"
fi
depmod -b "$out/root" "$krel"
make_initramfs
ln -s "root/boot/vmlinuz-$krel" "$out/bzImage"
ln -s "root/boot/config-$krel" "$out/.config"
ln -s "root/boot/System.map-$krel" "$out/System.map"
ln -s "/usr/src/linux-headers-$krel" "$out/kdir"
ln -s "root/lib/modules/$krel" "$out/modules"
echo "$debver" >"$out/debian-version"
echo "$krel" >"$out/release"
touch "$out/.done"
log "Debian kernel $krel ($debver) ready: $(wc -l <"$ird/modules") modules in its initramfs"
echo "$out"
