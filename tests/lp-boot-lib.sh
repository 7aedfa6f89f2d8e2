# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the tests that boot Debian's kernels with systemd as PID 1 and
# the livepatch on at boot (tests/livepatch-boot.sh,
# tests/livepatch-update.sh): the admin guide's recipes, as written there,
# and what a boot is asked about.
#   guide_para TITLE RE  the indented lines matching RE of the admin guide's
#                        paragraph that starts with **TITLE**, unindented
#   lp_facts             a bash script for the guest: waits until the
#                        livepatch's transition is over, then writes the
#                        boot's facts as KEY=VALUE lines to
#                        /tmp/results/facts (and the boot's journal lines
#                        of the module to /tmp/results/journal.txt)
#   fact KEY             the value of KEY in $o/facts
guide_para() {
	awk -v p="$1" -v re="$2" 'index($0, "**" p "**") == 1 { on = 1; next }
		on && /^\*\*/ { exit }
		on && $0 ~ re { sub(/^    /, ""); print }' "$SCY_REPO/Documentation/admin-guide.md"
}
lp_facts() {
	cat <<'EOF'
lp=/sys/kernel/livepatch/livepatch_compat_yield
for _ in $(seq 600); do
	[[ -e $lp ]] || break
	[[ $(cat $lp/transition 2>/dev/null) == 0 ]] && break
	sleep 0.5
done
u=compat-yield-check.service
{
	echo "release=$(uname -r)"
	echo "pid1=$(cat /proc/1/comm)"
	echo "modules_load=$(systemctl show -P ActiveState systemd-modules-load.service)/$(systemctl show -P Result systemd-modules-load.service)"
	# what the boot logged so far, written out first
	journalctl --sync
	journalctl -b -o short-monotonic --no-pager 2>&1 | grep -E -i "modules-load|livepatch|compat-yield" >/tmp/results/journal.txt
	echo "loaded_by=$(journalctl -b -o cat -t systemd-modules-load 2>/dev/null | grep -c "Inserted module .livepatch_compat_yield.")"
	echo "enabled=$(cat $lp/enabled 2>/dev/null)"
	echo "transition=$(cat $lp/transition 2>/dev/null)"
	echo "knob=$(cat /sys/kernel/sched_compat_yield 2>/dev/null)"
	echo "param=$(cat /sys/module/livepatch_compat_yield/parameters/sched_compat_yield 2>/dev/null)"
	echo "check=$(systemctl show -P ActiveState $u)/$(systemctl show -P Result $u)"
	echo "check_said=$(journalctl -b -o cat -u $u --no-pager 2>/dev/null | grep "^compat-yield-check: " | tail -n 1)"
} | tee /tmp/results/facts
EOF
}
fact() { sed -n "s/^$1=//p" "$o/facts" 2>/dev/null; }
