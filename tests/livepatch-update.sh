#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# livepatch-update.sh FROM TO: the admin guide's kernel update (section 7)
# on a node that has the livepatch on at boot, in two real boots of one
# disk. First boot: Debian's binary FROM kernel (6.1), systemd as PID 1,
# its root an overlay on a disk image (vm/run.sh --disk) that keeps what
# the guest writes; the livepatch installed where DKMS puts it with the
# admin guide's own lines (on at boot, the boot's check, the package
# hook). There the switch must read 1; then `dpkg -i` installs Debian's
# TO kernel package (6.12) as apt would (the host's own TO image and
# headers, which the guest sees below its overlay, purged in the guest
# first), its hooks run (the initramfs, the guide's hook, which must say
# that TO has no build of the module),
# and the livepatch built for TO on the host (livepatch/build.sh TO, what
# `make livepatch KVER=TO` builds) is installed for TO where DKMS puts it.
# Then the reboot: GRUB would boot the newest kernel; here the host boots
# the kernel image the package installed on the disk, with the initramfs
# of vm/debian-kernel.sh (Debian's own cannot mount this root), and the
# same disk. There the switch must read 1 again, loaded by
# systemd-modules-load.service, and the boot's check succeed. About 8
# minutes under single-threaded TCG; make check-full runs it. Prints TAP.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
. "$SCY_REPO/tests/lp-boot-lib.sh"
# Single-threaded TCG: loading a livepatch patches text (vm/run.sh).
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

from=${1:?usage: livepatch-update.sh FROM TO}
to=${2:?usage: livepatch-update.sh FROM TO}
out=$RESULTS/livepatch-update-$from-$to
kfrom=$(kernel_get "$from-debian")
lpfrom=$(kernel_get "$from-livepatch")
kto=$(kernel_get "$to-debian")
lpto=$(kernel_get "$to-livepatch")
relfrom=$(cat "$kfrom/release")
relto=$(cat "$kto/release")
deb=$(ls "$kto"/deb/linux-image-*.deb)

plan 10
rm -rf "$out"
mkdir -p "$out"
disk=$out/disk.img
truncate -s 4G "$disk"
mkfs.ext4 -q -F "$disk"
recipe=$(guide_para "On at boot." '^    echo ')
unit=$(guide_para "Told at boot when the switch is missing." '^    [a-z]')
hook=$(guide_para "Told when a new kernel is installed." '^    install ')
[[ -n $recipe && -n $unit && -n $hook ]] || die "the admin guide's recipes were not found"

# First boot: FROM with the livepatch on at boot, then the update.
o=$out/from
mkdir -p "$o"
cp "$lpfrom/livepatch.ko" "$o/livepatch-from.ko"
cp "$lpto/livepatch.ko" "$o/livepatch-to.ko"
cp "$deb" "$o/"
{
	echo 'set -eux'
	echo 'rel=$(uname -r)'
	echo 'mkdir -p "/lib/modules/$rel/updates"'
	echo 'cp /tmp/results/livepatch-from.ko "/lib/modules/$rel/updates/livepatch_compat_yield.ko"'
	echo 'depmod "$rel"'
	echo "$recipe"
	echo "$unit"
	echo "$hook"
} >"$o/install.sh"
echo "# install.sh, run before systemd starts on $relfrom:"
sed 's/^/#   /' "$o/install.sh"
# the update, as apt runs it: the package and its hooks; then the build
# for the new kernel, installed where DKMS puts it. A host that has the
# package installed (its root is the guest's lower layer; Debian's 6.12
# headers depend on it) has it and its headers purged first, in the guest
# only: the node runs 6.1 and has no 6.12.
cat >"$o/update.sh" <<EOF
export DEBIAN_FRONTEND=noninteractive
# The package's initramfs-tools hook builds an initramfs of the modules
# /etc/initramfs-tools/modules lists only: its default, most modules, had
# not finished after 15 minutes of single-threaded TCG here, and the
# reboot below boots vm/debian-kernel.sh's initramfs, not this one.
sed -i 's/^MODULES=.*/MODULES=list/' /etc/initramfs-tools/initramfs.conf
r=0
for p in linux-headers-$relto linux-image-$relto; do
	if dpkg-query -W -f='\${Status}' \$p 2>/dev/null | grep -q installed; then
		dpkg --purge \$p >>/tmp/results/purge.log 2>&1 || r=\$?
	fi
done
echo "purge_rc=\$r" >>/tmp/results/facts
echo "before=\$(ls /boot/vmlinuz-$relto 2>/dev/null)" >>/tmp/results/facts
dpkg -i /tmp/results/$(basename "$deb") >/tmp/results/dpkg.log 2>&1 || r=\$?
{
	echo "dpkg_rc=\$r"
	echo "dpkg_status=\$(dpkg-query -W -f='\${Status}' linux-image-$relto)"
	echo "initrd=\$(ls /boot/initrd.img-$relto 2>/dev/null)"
} >>/tmp/results/facts
mkdir -p /lib/modules/$relto/updates
cp /tmp/results/livepatch-to.ko /lib/modules/$relto/updates/livepatch_compat_yield.ko
depmod $relto
sync
EOF
rc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$kfrom" --disk "$disk" --out "$o" --timeout 2400 \
	--append "SCY_INIT=systemd fstab=no" -- bash -c "$(lp_facts)
bash /tmp/results/update.sh" || rc=$?
sed 's/^/# /' "$o/install.log" 2>/dev/null || true
sed 's/^/# dpkg: /' "$o/dpkg.log" 2>/dev/null || true
guest_verdict "$o" "$rc" "a guest of $from-debian ($relfrom) booted by systemd on its disk, which installed $relto"
check "on $relfrom the switch came up at 1 (/sys/kernel/sched_compat_yield $(fact knob)), loaded by systemd-modules-load ($(fact loaded_by)); compat-yield-check.service $(fact check)" \
	test "$(fact knob)" = 1 -a "$(fact loaded_by)" = 1 -a "$(fact check)" = active/success
check "before the update the guest had no $relto (dpkg --purge exit status $(fact purge_rc); /boot/vmlinuz-$relto: '$(fact before)')" \
	test "$(fact purge_rc)" = 0 -a -z "$(fact before)"
check "dpkg -i installed linux-image-$relto (exit status $(fact dpkg_rc), '$(fact dpkg_status)') and its hooks made /boot/initrd.img-$relto ($(fact initrd))" \
	test "$(fact dpkg_rc)" = 0 -a "$(fact dpkg_status)" = "install ok installed" -a -n "$(fact initrd)"
said=$(grep -F "compat-yield: no build of livepatch_compat_yield is installed for kernel $relto," "$o/dpkg.log" 2>/dev/null || true)
check "the package's installation said that $relto had no build of the module: ${said:-nothing}" test -n "$said"

# The reboot into the kernel the package installed on the disk.
k2=$out/kernel-to
mkdir -p "$k2"
debugfs -R "dump /upper/boot/vmlinuz-$relto $k2/bzImage" "$disk" 2>/dev/null || true
check "the disk holds the package's kernel image, /boot/vmlinuz-$relto" cmp -s "$k2/bzImage" "$kto/bzImage"
ln -sfn "$kto/initrd" "$k2/initrd"
echo "$relto" >"$k2/release"
o=$out/to
mkdir -p "$o"
rc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$k2" --disk "$disk" --out "$o" --timeout 1200 \
	--append "SCY_INIT=systemd fstab=no" -- bash -c "$(lp_facts)" || rc=$?
guest_verdict "$o" "$rc" "the guest rebooted into $relto on its disk"
check "after the reboot into $(fact release) the switch is at 1 again (/sys/kernel/sched_compat_yield $(fact knob), parameter $(fact param)), the module loaded by systemd-modules-load ($(fact loaded_by)), its transition done ($(fact transition)); compat-yield-check.service $(fact check)" \
	test "$(fact release)" = "$relto" -a "$(fact knob)" = 1 -a "$(fact loaded_by)" = 1 \
	-a "$(fact transition)" = 0 -a "$(fact check)" = active/success
rm -f "$disk"
