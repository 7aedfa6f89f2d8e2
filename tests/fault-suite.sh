#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a guest of a patched kernel (tests/faults.sh, make check's
# faults stage): checks of make check, each run with what it guards broken,
# must fail. Each test here passes when the check it names fails ("not
# ok"); the failing lines are printed as comments.
#
# fault-suite.sh rule FAULT: the kernel was booted with scy_fault=FAULT
# (vm/fault-patches), which breaks the compat yield's rule; the checks that
# guard the rule, as make check runs them on one CPU under -icount (the
# starve stage), must turn red (tests/faults.sh lists what each fault
# turns red).
#
# fault-suite.sh jobs FAULT: as rule, in a two-CPU guest: the jobs check
# (tests/guest-jobs.sh, the pair at knob 0 and 1) must turn red.
#
# fault-suite.sh harness: the harness's own checks, each with what it
# guards broken in a test-only way, in a mount namespace of its own so that
# nothing else sees the fault:
#   - a knob that ignores writes (a plain file bound over the sysfs file):
#     the share kselftest's knob-1 tests of the placements where the stock
#     yield gives the yielder more than the limit fail, the others SKIP;
#   - a cgroup hierarchy where mkdir fails (cgroup2 bound read-only): the
#     cgroup placements of the share and latency kselftests fail instead of
#     skipping;
#   - a refused knob write that zeroes the value: the guest suite's
#     "writing 2 fails and leaves the value as it was" fails;
#   - a lone yielder that makes no yield, after runs that left ineffective
#     yields in yield_stats' counters (SCY_MODULE): the guest suite's "a
#     lone yielder's yields are ineffective" fails.
set -u
: "${SCY_BIN:?}"
ST=$SCY_BIN/selftests
knob=/sys/kernel/sched_compat_yield
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
d=${SCY_FAULT_SECONDS:-1}
work=$(mktemp -d)
mode=${1:-}

# the lines of TAP FILE that match RE, as comments
show() { grep -E "$2" "$1" | sed 's/^/#   /'; }

# red FILE WHAT N: the matrix's TAP in FILE has N "not ok" lines of the
# sub-check WHAT (time away, G1, shares, ...), one per cell run, and no
# "ok" one, N at least 1; WHAT "time away p50" (p99, max): N time away
# lines whose median (p99, maximum) is over its limit
red() {
	local what=$2 stat= bad good
	if [[ $what =~ ^(time\ away)\ (p50|p99|max)$ ]]; then
		what=${BASH_REMATCH[1]}
		stat=${BASH_REMATCH[2]}
	fi
	if [[ -n $stat ]]; then
		bad=$(grep -cE "^not ok [0-9]+ cell .*: $what at knob 1 (.* )?$stat [0-9.]+ > " "$1")
	else
		bad=$(grep -cE "^not ok [0-9]+ cell .*: $what" "$1")
	fi
	good=$(grep -cE "^ok [0-9]+ cell .*: $what" "$1")
	[[ $3 -gt 0 && $bad == "$3" && $good == 0 ]]
}

# matrix_red FAULT WHATS CELLS ARGS...: run compat_yield_matrix ARGS
# (0.6-s windows) once on the cells CELLS (a -c regular expression); a
# check per sub-check WHAT of WHATS (separated by ";"): every cell's WHAT
# line is red
matrix_red() {
	local f=$1 cells=$3 out ncells what whats
	IFS=';' read -ra whats <<<"$2"
	shift 3
	out=$work/matrix-$RANDOM.tap
	"$ST/compat_yield_matrix" -d 0.6 -c "$cells" "$@" >"$out" 2>&1
	ncells=$("$ST/compat_yield_matrix" -l -c "$cells" "$@" | grep -c .)
	show "$out" "^(not )?ok [0-9]+ cell .*: ($(sed -E 's/ (p50|p99|max)(;|$)/\2/g; s/;/|/g' <<<"$2"))"
	for what in "${whats[@]}"; do
		check "scy_fault=$f: compat_yield_matrix's $what lines are red in all $ncells cells of '$cells'" \
			red "$out" "$what" "$ncells"
	done
}

# matrix_red_any FAULT WHAT CELLS ARGS...: as matrix_red, but one check
# that at least one of the cells' WHAT lines is red (for a fault whose
# effect needs an event that comes at a time -icount does not fix: a guest
# that idles runs on host time)
matrix_red_any() {
	local f=$1 what=$2 cells=$3 out ncells nred
	shift 3
	out=$work/matrix-${what%% *}-$RANDOM.tap
	"$ST/compat_yield_matrix" -d 0.6 -c "$cells" "$@" >"$out" 2>&1
	ncells=$("$ST/compat_yield_matrix" -l -c "$cells" "$@" | grep -c .)
	nred=$(grep -cE "^not ok [0-9]+ cell .*: $what" "$out")
	show "$out" "^(not )?ok [0-9]+ cell .*: $what"
	check "scy_fault=$f: compat_yield_matrix's $what line is red in at least one of the $ncells cells of '$cells' ($nred red)" \
		test "$nred" -ge 1
}

if [[ $mode == rule ]]; then
	f=${2:?usage: fault-suite.sh rule FAULT}
	echo "# fault guest: kernel $(uname -r), $(nproc) CPU(s), scy_fault=$f"
	# one group, another autogroup, another cgroup, a Slurm-deep tree: a
	# nice -10, a nice-0 and a nice-19 rival, no event; and each task
	# placed on its own, a cgroup, a Slurm job's tree and (autogroups
	# off) a session beside a nice-0 rival in a cgroup and one of the
	# root task group
	cells='^(0|12|25|42) |^[0-9]+ entity autogroup=(on yielder=(cgroup|nested)|off yielder=session) rivals=nice0@cgroup,nice0@task '
	case $f in
	delay:1) plan 6 ;;
	delay:20) plan 3 ;;
	nocap | double) plan 2 ;;
	nomove) plan 6 ;;
	leak) plan 5 ;;
	*) plan 1; not_ok "unknown fault $f"; exit 1 ;;
	esac
	check "the kernel says scy_fault=$f breaks the rule" \
		bash -c 'dmesg | grep -qF "scy_fault=$1: the compat yield'"'"'s rule is broken on purpose"' - "$f"
	case $f in
	delay:1)
		matrix_red "$f" "time away p50;time away p99;time away max" "$cells"
		# the starve stage's time away beside the hog alone, which the
		# yield_away tests measure too (their rival=none windows): the
		# other fixtures, whose yields are as slow here, are left out
		"$ST/compat_yield_latency" -d 1 -f yield_away -o "$work/latency.csv" >"$work/latency.tap" 2>&1
		out=$( (n=0 && hog_alone_p50 "$work/latency.csv" "$(guest_tick_ms)") 2>&1)
		sed 's/^/#   /' <<<"$out"
		check "scy_fault=$f: the starve stage's 'a yield waits one tick' beside the hog alone is red" \
			grep -q '^not ok' <<<"$out"
		show "$work/latency.tap" '^(not )?ok [0-9]+ yield_away'
		check "scy_fault=$f: compat_yield_latency's yield_away tests (knob 1 against the contract's bound) all fail" \
			bash -c 'grep -qE "^not ok [0-9]+ yield_away" "$1" &&
				! grep -qE "^ok [0-9]+ yield_away" "$1"' - "$work/latency.tap"
		;;
	delay:20)
		# every 20th yield: the median stays, the tail does not
		matrix_red "$f" "time away p99;time away max" "$cells"
		;;
	nocap)
		# the starve stage's long-slice cells (tests/tap.sh): once the
		# 100-ms rival has run, the uncapped move keeps the yielder
		# away a long turn (p50 36-96 ms against bounds of 16 and 20).
		# That turn comes at a time a guest that idles takes from the
		# host, and one 6-s window of five had none (p50 4 ms): at
		# least one cell is red.
		matrix_red_any "$f" "time away" "$LONG_SLICE_CELLS" -F -d "$LONG_SLICE_SECONDS"
		;;
	double)
		# the starve stage's cells of two or three nice -10 rivals in
		# the yielder's group (tests/tap.sh): a move that is a part of
		# a tick shows in the median, 40-60 ms against bounds of
		# 28-40 (beside one nice -10 and one of nice 0 the median
		# moves by one tick)
		matrix_red "$f" "time away p50" "$HEAVY_RIVALS_CELLS" -F
		;;
	nomove)
		matrix_red "$f" "G1;shares" "$cells"
		"$ST/compat_yield_share" -d "$d" >"$work/share.tap" 2>&1
		show "$work/share.tap" '^(not )?ok .*knob=1'
		check "scy_fault=$f: no knob-1 test of compat_yield_share passes, and some fail" \
			bash -c '! grep -qE "^ok [0-9]+ yield-[a-z0-9-]+ knob=1: " "$1" &&
				grep -qE "^not ok [0-9]+ yield-[a-z0-9-]+ knob=1: " "$1"' - "$work/share.tap"
		out=$(bash "$(dirname "${BASH_SOURCE[0]}")/guest-livepatch-icount.sh" shares 2>&1)
		show /dev/stdin '(^ *(not )?ok |yield-loop )' <<<"$out"
		check "scy_fault=$f: the livepatch-icount stage's checks of a yield loop in a cgroup at 1 beside a busy loop's cgroup, and in its own autogroup with the machine's switch at 1, are red" \
			test "$(grep -cE "^not ok [0-9]+ - one CPU under -icount, (the switch at 0: a yield loop in a cgroup|the machine's switch: a yield loop in its own autogroup)" <<<"$out")" = 2
		# the starve stage's effective yields (yield_stats)
		out=$( (n=0 && effective_yields "${SCY_MODULE:-}") 2>&1)
		show /dev/stdin '^(not )?ok |yield-share: |knob 1: >= 99% effective' <<<"$out"
		check "scy_fault=$f: the starve stage's two effective-yield checks (yield_stats) are red" \
			bash -c '[[ $(grep -cE "^not ok [0-9]+ - (yield_stats, knob 1, 1 hog: >= 99%|yield-stats-test -n 500 -k 1: exact counts)" <<<"$1") == 2 ]] &&
				! grep -q "did not load" <<<"$1"' - "$out"
		;;
	leak)
		"$ST/compat_yield_share" -d "$d" >"$work/share.tap" 2>&1
		show "$work/share.tap" '^(not )?ok .*(optin|outside)'
		check "scy_fault=$f: compat_yield_share's tests of a yielder outside the groups at 1, and of one whose only rival is above its group at 1, all fail" \
			test "$(grep -cE "^not ok [0-9]+ (outside-optin-[a-z]+|optin-yielder-hog-above) knob=0: yielder counter share" "$work/share.tap")" = 3
		"$ST/compat_yield_latency" -d 1 -t stock_beside_optin >"$work/latency.tap" 2>&1
		show "$work/latency.tap" '(^(not )?ok .*stock_beside_optin|yields/s)'
		check "scy_fault=$f: compat_yield_latency's yielder outside the groups at 1, beside one at 1, fails (stock_beside_optin)" \
			grep -qE "^not ok [0-9]+ yield_outside\.stock_beside_optin" "$work/latency.tap"
		# the matrix's yielder outside beside its rivals' group at 1
		# (-R, G5), in a cgroup and in a Slurm-deep tree
		matrix_red "$f" "G5, yields that returned;G5 shares" '^(25|42) ' -R
		;;
	esac
	rm -rf "$work"
	exit 0
fi
if [[ $mode == jobs ]]; then
	plan 1
	SCY_JOBS_PAIR=1 bash "$(dirname "${BASH_SOURCE[0]}")/guest-jobs.sh" >"$work/jobs.tap" 2>&1
	show "$work/jobs.tap" '^(not )?ok |^# knob'
	check "scy_fault=$2: the jobs check is red (knob 1 gives the heavy threads less than 3 points more than knob 0)" \
		grep -qE '^not ok [0-9]+ - knob 1 gives the heavy threads' "$work/jobs.tap"
	rm -rf "$work"
	exit 0
fi
[[ $mode == harness ]] || { echo "usage: fault-suite.sh rule FAULT | jobs FAULT | harness" >&2; exit 2; }

plan 8
echo "# fault guest: kernel $(uname -r), knob $(cat $knob 2>/dev/null || echo absent)"

# faulted FAULT CMD...: run CMD in a mount namespace with FAULT applied
faulted() {
	local fault=$1
	shift
	unshare -m --propagation private bash -c "$fault && exec \"\$@\"" - "$@"
}
ignore_writes="echo 0 >$work/knob && mount --bind $work/knob $knob"
ro_cgroup="mount -o remount,bind,ro /sys/fs/cgroup"

faulted "$ignore_writes" "$ST/compat_yield_share" -d "$d" >"$work/share-knob.tap" 2>&1
show "$work/share-knob.tap" '^(not )?ok .*knob=1'
for sc in yield-session yield-cgroup yield-cgroup-session; do
	check "a knob that ignores writes: compat_yield_share fails $sc at knob 1" \
		grep -qE "^not ok [0-9]+ $sc knob=1: yielder counter share" "$work/share-knob.tap"
done
check "a knob that ignores writes: no knob-1 test of compat_yield_share passes" \
	bash -c '! grep -qE "^ok [0-9]+ yield-[a-z0-9]+ knob=1: " "$1"' - "$work/share-knob.tap"
check "the knob is what it was after the fault runs ($(cat $knob))" test "$(cat $knob)" = 0

faulted "$ro_cgroup" "$ST/compat_yield_share" -d "$d" >"$work/share-cg.tap" 2>&1
faulted "$ro_cgroup" "$ST/compat_yield_latency" -d "$d" >"$work/latency-cg.tap" 2>&1
show "$work/share-cg.tap" 'yield-cgroup(-session)? knob=1'
show "$work/latency-cg.tap" '^(not )?ok .*(cgroup|cgidle)'
# kselftest_harness names a test FIXTURE.VARIANT.TEST: the variants with a
# cpu cgroup or a cpu.idle group
fails=$(grep -cE '^not ok [0-9]+ [a-z_]+\.[a-z0-9_]*(cgroup|cgidle)' "$work/latency-cg.tap")
skips=$(grep -cE '^ok [0-9]+ [a-z_]+\.[a-z0-9_]*(cgroup|cgidle).*# SKIP' "$work/latency-cg.tap")
check "a cgroup mkdir that fails: compat_yield_share fails yield-cgroup and yield-cgroup-session, compat_yield_latency fails its group variants ($fails failed, $skips skipped)" \
	test "$(grep -cE '^not ok [0-9]+ yield-cgroup(-session)? knob=1: run failed: cannot' "$work/share-cg.tap")" = 2 -a "$fails" -gt 0 -a "$skips" = 0

# tap.sh's checks of the guest suite, in a subshell each with the fault in
# place; their TAP line printed as a comment
out=$( (n=0 && knob_write() { echo 0 >"$1" && return 1; } && knob_refuses $knob 2 "a faulty knob") 2>&1)
sed 's/^/#   /' <<<"$out"
check "a refused knob write that zeroes the value: the refusal check fails" grep -q '^not ok' <<<"$out"
if [[ -f ${SCY_MODULE:-} ]] && insmod "$SCY_MODULE"; then
	# ineffective yields left by a run before: a lone yielder's
	"$SCY_BIN/yield-share" -d 0.5 -n 0 -f kv >/dev/null 2>&1
	echo "# yield_stats before the faulty run: $(cat /sys/kernel/yield_stats/ineffective) ineffective yields"
	out=$( (n=0 && lone_yields_ineffective /sys/kernel/yield_stats true) 2>&1)
	sed 's/^/#   /' <<<"$out"
	check "a lone yielder that makes no yield: the ineffective-yields check fails" grep -q '^not ok' <<<"$out"
	rmmod yield_stats
else
	not_ok "a lone yielder that makes no yield: yield_stats (SCY_MODULE=${SCY_MODULE:-}) did not load"
fi
rm -rf "$work"
