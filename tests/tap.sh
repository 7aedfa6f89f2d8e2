# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the test scripts (sourced): ok, not_ok, skip, check.
# $n counts the tests; print "1..$n" at the end.
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # check DESCRIPTION CMD...: ok when CMD succeeds
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# field KEY LINE: the value of KEY=value in a "key=value ..." LINE
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# in_range VALUE LO HI: VALUE is a number in [LO, HI]
in_range() { [[ -n $1 ]] && awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# run_kselftest DIR NAME ARGS...: run the kselftest DIR/NAME, keep its TAP in
# $SCY_RESULTS/NAME.tap and echo it indented; one "not ok" of ours when it is
# missing or exits abnormally (neither 0 nor 4, "skip") without a "not ok"
# of its own.
run_kselftest() {
	local dir=$1 t=$2 rc
	shift 2
	if [[ ! -x $dir/$t ]]; then
		not_ok "kselftest $t was not built"
		return
	fi
	echo "# running $t $*"
	"$dir/$t" "$@" >"$SCY_RESULTS/$t.tap" 2>&1
	rc=$?
	sed 's/^/  /' "$SCY_RESULTS/$t.tap"
	if [[ $rc != 0 && $rc != 4 ]] && ! grep -q '^not ok' "$SCY_RESULTS/$t.tap"; then
		not_ok "kselftest $t exited with status $rc"
	fi
}

# knob_fuzz TOOLDIR WRITES: knob-fuzz's WRITES random writes, alternating
# sysfs and sysctl, starting from 0 and again from 1 (seeds 1 and 2), then
# the non-root writes; a check each. Leaves the knob at 0.
knob_fuzz() {
	local tt=$1 writes=$2 start out rc t0
	for start in 0 1; do
		echo $start >/sys/kernel/sched_compat_yield
		t0=$(cut -d' ' -f1 /proc/uptime)
		out=$("$tt/knob-fuzz" fuzz -n "$writes" -s $((start + 1)) 2>&1)
		rc=$?
		echo "# $out ($(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s)"
		check "knob fuzzing from $start: $writes writes, invalid ones EINVAL, value only changed by valid ones" \
			test $rc = 0
	done
	out=$("$tt/knob-fuzz" nonroot 2>&1)
	rc=$?
	echo "# $out"
	check "knob: writes as uid 65534 refused, value unchanged" test $rc = 0
	echo 0 >/sys/kernel/sched_compat_yield
}
