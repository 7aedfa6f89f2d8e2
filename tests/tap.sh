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
