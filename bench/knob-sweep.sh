# SPDX-License-Identifier: GPL-2.0
#
# knob-sweep.sh: sourced by the guest benchmark drivers that run every point
# at sched_compat_yield 0 and 1.
#
#   knob_sweep_init    knob_values=(0 1) when the kernel has the knob (its
#                      value is put back when the script exits; root only),
#                      else knob_values=(stock)
#   knob_order REP     the values for repeat REP: 0 1 in odd repeats, 1 0 in
#                      even ones, so that neither value always runs first
#   knob_set VALUE     write VALUE to the knob (nothing for stock)
knob_file=/sys/kernel/sched_compat_yield

knob_sweep_init() {
	if [[ -e $knob_file ]]; then
		[[ -w $knob_file ]] || { echo "${0##*/}: $knob_file is not writable (run as root)" >&2; exit 1; }
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
