# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the guest scripts that load livepatches (tests/guest-livepatch.sh,
# tests/guest-livepatch-dkms.sh): waiting on the livepatch core's sysfs.
#   lp_wait COND  wait (up to 300 s) until the shell test COND holds
#   lp_on NAME    the livepatch NAME is enabled and its transition is over
#   lp_off NAME   disable the livepatch NAME, wait until it is gone, unload it
#   lp_gone NAME  a replaced livepatch NAME is freed; unload it
lp_wait() {
	local i
	for i in $(seq 3000); do
		eval "$1" && return 0
		busybox usleep 100000
	done
	return 1
}
lp_on() {
	lp_wait "[[ \$(cat /sys/kernel/livepatch/$1/enabled 2>/dev/null)\$(cat /sys/kernel/livepatch/$1/transition 2>/dev/null) == 10 ]]"
}
lp_off() {
	echo 0 >"/sys/kernel/livepatch/$1/enabled" &&
		lp_wait "[[ ! -d /sys/kernel/livepatch/$1 ]]" && rmmod "$1"
}
lp_gone() {
	lp_wait "[[ ! -d /sys/kernel/livepatch/$1 ]]" && rmmod "$1"
}
