#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# livepatch-boot.sh KVER: the admin guide's recipe to have the livepatch on
# at boot, in a real boot. A guest of Debian's binary KVER kernel gets the
# livepatch installed where DKMS puts it (/lib/modules/RELEASE/updates,
# depmod) and the admin guide's own lines (section "On at boot", taken from
# Documentation/admin-guide.md as they are written there), then boots with
# systemd as PID 1 (vm/guest-init, SCY_INIT=systemd). Checks that
# systemd-modules-load.service loaded it, the patch is enabled with every
# task through the transition, and the switch came up at 1. Prints TAP.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
# Single-threaded TCG: loading a livepatch patches text (vm/run.sh).
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

kver=${1:?usage: livepatch-boot.sh KVER}
out=$RESULTS/livepatch-boot-$kver
kdir=$(kernel_get "$kver-debian")
lpdir=$(kernel_get "$kver-livepatch")
mkdir -p "$out"
rm -f "$out/install.sh" "$out/install.log" "$out/facts"
cp "$lpdir/livepatch.ko" "$out/livepatch_compat_yield.ko"

plan 6
# The admin guide's recipe: the indented echo lines of its "On at boot"
# paragraph.
recipe=$(awk '/^\*\*On at boot\.\*\*/ { on = 1; next }
	on && /^\*\*/ { exit }
	on && /^    echo / { sub(/^    /, ""); print }' "$SCY_REPO/Documentation/admin-guide.md")
n_lines=$(grep -c . <<<"$recipe" || true)
check "the admin guide's boot recipe: $n_lines lines (modules-load.d, modprobe.d)" \
	test "$n_lines" = 2 -a -n "$(grep modules-load.d <<<"$recipe")" -a -n "$(grep modprobe.d <<<"$recipe")"
{
	echo 'set -eux'
	echo 'rel=$(uname -r)'
	echo 'mkdir -p "/lib/modules/$rel/updates"'
	echo 'cp /tmp/results/livepatch_compat_yield.ko "/lib/modules/$rel/updates/"'
	echo 'depmod "$rel"'
	echo "$recipe"
} >"$out/install.sh"
echo "# install.sh, run before systemd starts:"
sed 's/^/#   /' "$out/install.sh"

rc=0
bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$out" --timeout 900 --append "SCY_INIT=systemd fstab=no" -- \
	bash -c 'lp=/sys/kernel/livepatch/livepatch_compat_yield
		for _ in $(seq 600); do
			[[ $(cat $lp/transition 2>/dev/null) == 0 ]] && break
			sleep 0.5
		done
		{
			echo "pid1=$(cat /proc/1/comm)"
			echo "modules_load=$(systemctl show -P ActiveState systemd-modules-load.service)/$(systemctl show -P Result systemd-modules-load.service)"
			# what the boot logged so far, written out first
			journalctl --sync
			journalctl -b -o short-monotonic --no-pager 2>&1 | grep -E -i "modules-load|livepatch" >/tmp/results/journal.txt
			echo "loaded_by=$(journalctl -b -o cat -t systemd-modules-load 2>/dev/null | grep -c "Inserted module .livepatch_compat_yield.")"
			echo "enabled=$(cat $lp/enabled 2>/dev/null)"
			echo "transition=$(cat $lp/transition 2>/dev/null)"
			echo "knob=$(cat /sys/kernel/sched_compat_yield 2>/dev/null)"
			echo "param=$(cat /sys/module/livepatch_compat_yield/parameters/sched_compat_yield 2>/dev/null)"
		} | tee /tmp/results/facts' || rc=$?
sed 's/^/# /' "$out/install.log" 2>/dev/null || true
guest_verdict "$out" "$rc" "a guest of $kver-debian booted by systemd"
fact() { sed -n "s/^$1=//p" "$out/facts" 2>/dev/null; }
check "systemd was PID 1 ($(fact pid1)); systemd-modules-load.service $(fact modules_load), its journal: 'Inserted module' $(fact loaded_by) time(s)" \
	test "$(fact pid1)" = systemd -a "$(fact modules_load)" = active/success -a "$(fact loaded_by)" = 1
check "the livepatch is enabled ($(fact enabled)), its transition done ($(fact transition))" \
	test "$(fact enabled)" = 1 -a "$(fact transition)" = 0
check "the switch came up at 1 (/sys/kernel/sched_compat_yield $(fact knob), parameter $(fact param))" \
	test "$(fact knob)" = 1
