# SPDX-License-Identifier: GPL-2.0
#
# guest-lib.sh: sourced by the benchmarks' guest parts (bench/NAME/guest.sh),
# which set usage_text (their usage line) first.
#
#   usage              print usage_text, exit 2
#   die MSG            print "SCRIPT: MSG", exit 1
#   bad MSG            print "SCRIPT: MSG" and the usage, exit 2 (bad input)
#   posint FLAG VALUE [MAX]   VALUE is an integer of 1..MAX (default: no
#                      upper bound), else bad
#   seconds FLAG VALUE VALUE is a positive number of seconds, else bad
#   bin                the tools: $SCY_BIN, default userspace/ of the checkout
#
# The knob sweep of the drivers that run every point at sched_compat_yield
# 0 and 1:
#   knob_sweep_init    knob_values=(0 1) when the kernel has the knob (its
#                      value is put back when the script exits; root only),
#                      else knob_values=(stock)
#   knob_order REP     the values for repeat REP: 0 1 in odd repeats, 1 0 in
#                      even ones, so that neither value always runs first
#   knob_set VALUE     write VALUE to the knob (nothing for stock)
me=${usage_text#usage: }
me=${me%% *}
bin=${SCY_BIN:-$(dirname "${BASH_SOURCE[0]}")/../userspace}
knob_file=/sys/kernel/sched_compat_yield

usage() {
	echo "$usage_text" >&2
	exit 2
}
die() {
	echo "$me: $*" >&2
	exit 1
}
bad() {
	echo "$me: $*" >&2
	usage
}
posint() {
	[[ $2 =~ ^[1-9][0-9]{0,8}$ ]] && { [[ -z ${3:-} ]] || (($2 <= $3)); } && return
	if [[ -n ${3:-} ]]; then
		bad "$1: '$2' is not an integer of 1..$3"
	fi
	bad "$1: '$2' is not a positive integer"
}
seconds() {
	[[ $2 =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ && ! $2 =~ ^[0.]+$ ]] ||
		bad "$1: '$2' is not a positive number of seconds"
}

knob_sweep_init() {
	if [[ -e $knob_file ]]; then
		[[ -w $knob_file ]] || die "$knob_file is not writable (run as root)"
		knob_prior=$(<"$knob_file")
		trap 'echo "$knob_prior" >"$knob_file"' EXIT
		knob_values=(0 1)
	else
		knob_values=(stock)
	fi
}

knob_order() {
	if ((${#knob_values[@]} == 2 && $1 % 2 == 0)); then
		echo "${knob_values[1]} ${knob_values[0]}"
	else
		echo "${knob_values[*]}"
	fi
}

knob_set() {
	[[ $1 == stock ]] || echo "$1" >"$knob_file"
}
