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
# task through the transition, the switch came up at 1, and the boot's
# check (the guide's compat-yield-check.service, "Told at boot when the
# switch is missing") succeeded. Then a boot of the same kernel with the
# same configuration but no module for it, as after an update to a kernel
# for which no build was made: that check fails, naming the kernel.
# Prints TAP.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
. "$SCY_REPO/tests/tap.sh"
. "$SCY_REPO/tests/lp-boot-lib.sh"
# Single-threaded TCG: loading a livepatch patches text (vm/run.sh).
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}

kver=${1:?usage: livepatch-boot.sh KVER}
out=$RESULTS/livepatch-boot-$kver
kdir=$(kernel_get "$kver-debian")
lpdir=$(kernel_get "$kver-livepatch")
krel=$(cat "$kdir/release")

plan 10
# The admin guide's recipes: the indented echo lines of its "On at boot"
# paragraph, and the indented lines of its "Told at boot when the switch
# is missing" one.
recipe=$(guide_para "On at boot." '^    echo ')
n_lines=$(grep -c . <<<"$recipe" || true)
check "the admin guide's boot recipe: $n_lines lines (modules-load.d, modprobe.d)" \
	test "$n_lines" = 2 -a -n "$(grep modules-load.d <<<"$recipe")" -a -n "$(grep modprobe.d <<<"$recipe")"
unit=$(guide_para "Told at boot when the switch is missing." '^    [a-z]')
n_unit=$(grep -c . <<<"$unit" || true)
check "the admin guide's boot check: $n_unit lines (the script, the unit, systemctl enable)" \
	test "$n_unit" = 3 -a -n "$(grep 'systemctl enable compat-yield-check.service' <<<"$unit")"

# boot NAME MODULE: boot the kernel with systemd as PID 1 after install.sh
# (the module installed where DKMS puts it if MODULE is 1, the recipes);
# its files in $out-NAME ($out for "lp"), its facts in $o/facts. Two
# checks (guest_verdict).
boot() {
	local name=$1 mod=$2 rc=0
	o=$out
	[[ $name == lp ]] || o=$out-$name
	mkdir -p "$o"
	rm -f "$o/install.sh" "$o/install.log" "$o/facts"
	cp "$lpdir/livepatch.ko" "$o/livepatch_compat_yield.ko"
	{
		echo 'set -eux'
		echo 'rel=$(uname -r)'
		echo 'mkdir -p "/lib/modules/$rel/updates"'
		if [[ $mod == 1 ]]; then
			echo 'cp /tmp/results/livepatch_compat_yield.ko "/lib/modules/$rel/updates/"'
		fi
		echo 'depmod "$rel"'
		echo "$recipe"
		echo "$unit"
	} >"$o/install.sh"
	echo "# install.sh ($name), run before systemd starts:"
	sed 's/^/#   /' "$o/install.sh"
	bash "$SCY_REPO/vm/run.sh" --kernel "$kdir" --out "$o" --timeout 900 --append "SCY_INIT=systemd fstab=no" -- \
		bash -c "$(lp_facts)" || rc=$?
	sed 's/^/# /' "$o/install.log" 2>/dev/null || true
	guest_verdict "$o" "$rc" "a guest of $kver-debian booted by systemd${3:+ $3}"
}

boot lp 1
check "systemd was PID 1 ($(fact pid1)); systemd-modules-load.service $(fact modules_load), its journal: 'Inserted module' $(fact loaded_by) time(s)" \
	test "$(fact pid1)" = systemd -a "$(fact modules_load)" = active/success -a "$(fact loaded_by)" = 1
check "the livepatch is enabled ($(fact enabled)), its transition done ($(fact transition))" \
	test "$(fact enabled)" = 1 -a "$(fact transition)" = 0
check "the switch came up at 1 (/sys/kernel/sched_compat_yield $(fact knob), parameter $(fact param)); compat-yield-check.service $(fact check): $(fact check_said)" \
	test "$(fact knob)" = 1 -a "$(fact check)" = active/success

# No build for this kernel: the configuration as above, no module.
boot nobuild 0 "(no module for it)"
check "no module: the switch is absent ($(fact knob)), compat-yield-check.service $(fact check): $(fact check_said)" \
	test -z "$(fact knob)" -a "$(fact check)" = failed/exit-code \
	-a -n "$(fact check_said | grep -F "is missing on kernel $krel,")"
