# SPDX-License-Identifier: GPL-2.0
#
# guest-lib.sh: sourced by the benchmarks' guest parts (bench/NAME/guest.sh,
# bench/mpi-all/count-mpich-yields.sh),
# which set usage_text (their usage line) first.
#
#   opts SPEC ARGS...  parse the script's arguments with getopts: SPEC is a
#                      list of LETTER:VAR (the option takes a value, stored
#                      in VAR) and LETTER=VAR (a flag, VAR=1); -h, an
#                      unknown option, a missing value or an argument that
#                      is not an option prints the usage
#   tool NAME [HINT]   print the path of the built tool $bin/NAME, or die
#                      saying how to build it (HINT, default make userspace)
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
opts() {
	local _spec=$1 _item _letters=h _o
	local -A _var=() _flag=()
	shift
	for _item in $_spec; do
		case $_item in
		?:*) _var[${_item:0:1}]=${_item:2} _letters+=${_item:0:1}: ;;
		?=*) _var[${_item:0:1}]=${_item:2} _flag[${_item:0:1}]=1 _letters+=${_item:0:1} ;;
		*) die "opts: bad item '$_item' in '$_spec'" ;;
		esac
	done
	local OPTIND=1
	while getopts ":$_letters" _o; do
		[[ $_o != [?:h] && -n ${_var[$_o]:-} ]] || usage
		if [[ -n ${_flag[$_o]:-} ]]; then
			printf -v "${_var[$_o]}" 1
		else
			printf -v "${_var[$_o]}" %s "$OPTARG"
		fi
	done
	shift $((OPTIND - 1))
	(($# == 0)) || usage
}
tool() {
	[[ -x $bin/$1 ]] || die "$bin/$1 not built (${2:-make userspace})"
	echo "$bin/$1"
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

# yc_run ARGS...: one run of yield-cost ARGS... -f kv; sets yc_kernel,
# yc_knob, yc_threads, yc_seconds, yc_calls and yc_ns from its "run" line
yc_run() {
	local line w words
	line=$("$yc" "$@" -f kv | grep '^run ') || die "yield-cost $* failed"
	yc_kernel='' yc_knob='' yc_threads='' yc_seconds='' yc_calls='' yc_ns=''
	read -ra words <<<"$line"
	for w in "${words[@]}"; do
		case $w in
		kernel=*) yc_kernel=${w#*=} ;;
		knob=*) yc_knob=${w#*=} ;;
		threads=*) yc_threads=${w#*=} ;;
		seconds=*) yc_seconds=${w#*=} ;;
		calls=*) yc_calls=${w#*=} ;;
		ns_per_call=*) yc_ns=${w#*=} ;;
		esac
	done
}
