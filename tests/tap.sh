# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the test scripts (sourced): plan, ok, not_ok, skip, check.
# $n counts the tests; the plan comes first (tests/tap-stage.pl, which
# parses each stage's TAP in make check, fails a plan after the tests).
# kernel_reports (vm/lib.sh) tells a kernel report in a log, here too.
declare -F kernel_reports >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"
n=0
plan() { echo "1..$1"; }
# nest FILE: the TAP document FILE of another producer (a guest's suite),
# indented as a subtest of this one
nest() { sed 's/^/  /' "$1"; }
# host_ms: the host's clock, ms: the modification time the host gives a
# file touched on the results share (a guest's own clock runs at its own
# pace under -icount, and jumps while it idles)
host_ms() {
	local f=${SCY_RESULTS:-${TMPDIR:-/tmp}}/.host-clock t
	touch "$f" 2>/dev/null && t=$(stat -c %.3Y "$f" 2>/dev/null) || t=0.000
	echo "${t/./}"
}
# took T0 H0 NAME: the comment on how long a block took, by this clock
# and by the host's, from SECONDS T0 and host_ms H0
took() { echo "# took $((SECONDS - $1)) s (host $((($(host_ms) - $2) / 1000)) s): $3"; }
# subtest NAME CMD...: run CMD, a block of the suite that prints its own
# plan first and then its tests (numbered from 1), as a nested document;
# then one test of this document: ok when the block ran as many tests as
# it planned and none failed. CMD runs in a subshell: it changes no
# variable of the suite. A comment says how long the block took (for the
# stages' time budgets).
subtest() {
	local name=$1 f planned ran failed t0=$SECONDS h0
	h0=$(host_ms)
	shift
	f=$(mktemp)
	(n=0 && "$@") >"$f" 2>&1
	nest "$f"
	took "$t0" "$h0" "$name"
	# the plan, if it comes before the first test
	planned=$(awk '/^1\.\.[0-9]+$/ { sub(/^1\.\./, ""); print; exit }
		/^(not )?ok( |$)/ { exit }' "$f")
	ran=$(grep -cE '^(not )?ok( |$)' "$f")
	failed=$(grep -cE '^not ok( |$)' "$f")
	rm -f "$f"
	check "$name: $ran of ${planned:-(no plan first)} tests ran, $failed failed" \
		test -n "$planned" -a "$ran" = "${planned:-x}" -a "$failed" = 0
}
# guest_verdict OUT RC WHAT: after vm/run.sh ran a suite in WHAT (a guest)
# with its results in OUT and exit status RC: the suite's TAP nested, where
# it ran, then two tests: the suite ran and the guest shut down by itself;
# no kernel report (kernel_reports in vm/lib.sh) in the guest's dmesg, or,
# when it saved none (timed out, crashed), on its console.
guest_verdict() {
	local out=$1 rc=$2 what=$3
	nest "$out/job.log" 2>/dev/null || true
	echo "# accelerator: $(cat "$out/accel" 2>/dev/null); results in $out"
	check "$what ran the suite and shut down by itself (vm/run.sh status $rc)" test "$rc" = 0
	if [[ -f $out/dmesg.txt ]]; then
		check "no kernel report (WARNING, BUG, KASAN, lockdep, ...) in the guest's dmesg ($out/dmesg.txt)" \
			test ! -s "$out/dmesg-problems.txt"
	elif kernel_reports "$out/console.log" >"$out/dmesg-problems.txt" 2>/dev/null; then
		not_ok "kernel reports on the guest's console (see $out/console.log)"
	else
		not_ok "the guest saved no dmesg; none of its console lines is a kernel report"
	fi
}
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# fail_to END WHY: the tests up to number END, which cannot run after a
# failed step, each failed with WHY: the count stays what the plan says.
fail_to() { while ((n < $1)); do not_ok "$2"; done; }
check() { # check DESCRIPTION CMD...: ok when CMD succeeds
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# field KEY LINE: the value of KEY=value in a "key=value ..." LINE
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# is_number VALUE: VALUE is a decimal number (an empty or missing field is
# not, so that a check on it fails rather than comparing as 0)
is_number() { [[ $1 =~ ^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
# in_range VALUE LO HI: VALUE is a number in [LO, HI]
in_range() { is_number "$1" && awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'; }
# ge A B: A and B are numbers and A >= B
ge() { is_number "$1" && is_number "$2" && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
# lacks TEXT WORD: TEXT does not contain WORD (a compiler's "warning:");
# pattern matching, so that no quoting in TEXT can turn an error into a pass
lacks() { [[ $1 != *"$2"* ]]; }

# knob_refuses KNOB VALUE DESC: writing VALUE to the knob file KNOB fails
# and leaves the value as it was; from 1, so that a refused write that
# zeroes the value is seen. One check, DESC its description; leaves the
# knob at 0. knob_write KNOB VALUE does the write (make check-faults puts a
# faulty one in its place).
knob_write() { echo "$2" >"$1"; }
knob_refuses() {
	local k=$1 v=$2 rc
	echo 1 >"$k"
	knob_write "$k" "$v" 2>/dev/null
	rc=$?
	check "$3: writing $v fails ($rc) and leaves the value as it was (1: $(cat "$k"))" \
		test $rc -ne 0 -a "$(cat "$k")" = 1
	echo 0 >"$k"
}

# lone_yields_ineffective DIR CMD...: with the counters of yield_stats (its
# sysfs directory DIR) reset, CMD (a task yielding alone on its CPU) makes
# ineffective yields. One check.
lone_yields_ineffective() {
	local d=$1
	shift
	echo 1 >"$d/reset"
	"$@" >/dev/null 2>&1
	check "a lone yielder's yields are ineffective ($(cat "$d/ineffective") of $(cat "$d/yields"))" \
		test "$(cat "$d/ineffective")" -gt 0
}

# effective_yields MODULE: load yield_stats (MODULE) and check that the
# compat yields beside a hog are effective (another task ran before the
# yielder again), two checks; for a guest whose time a stall cannot move
# (-icount: the starve stage; the faults stage shows both red with
# nomove), as a stall charged to the hog leaves the yielder lag that some
# yields then spend at once (the plain guests report it). The module
# counts yield-share's window with 2 yields in flight at its edges and
# those made while its counters are read; yield-stats-test counts 500
# yields exactly. At least 99% effective: on EEVDF a kernel thread woken
# between ticks is placed at the average vruntime, which the yielder's
# lag holds back, and once it has run the yielder may yield once more
# before the hog runs (G1's exception, design.md).
effective_yields() {
	local mline y e ey edge rc
	if ! [[ -f $1 ]] || ! insmod "$1"; then
		not_ok "yield_stats (${1:-no module}) did not load"
		not_ok "yield-stats-test: yield_stats did not load"
		return
	fi
	echo 1 >/sys/kernel/yield_stats/reset
	mline=$("$SCY_BIN/yield-share" -d 1 -n 1 -k 1 -f kv 2>&1 | grep '^module yields=')
	echo "# yield-share: $mline"
	y=$(field yields "$mline") e=$(field effective "$mline")
	ey=$(field edge_yields "$mline")
	edge=$((2 + ${ey:-0}))
	check "yield_stats, knob 1, 1 hog: >= 99% of yield-share's yields were effective, $edge at the edges aside (${e:-missing} of ${y:-missing})" \
		test "${y:-0}" -gt 0 -a $((100 * (${e:-0} + edge))) -ge $((99 * ${y:-1}))
	"$SCY_BIN/yield-stats-test" -n 500 -k 1 >"$SCY_RESULTS/yield-stats-test.tap" 2>&1
	rc=$?
	sed 's/^/  /' "$SCY_RESULTS/yield-stats-test.tap"
	check "yield-stats-test -n 500 -k 1: exact counts and >= 99% effective against a hog (exit status $rc)" test $rc = 0
	rmmod yield_stats
}

# The full product's cells that witness the size of the compat yield's
# move, which the default set does not: the starve stage judges them and
# the faults stage shows them red on a kernel whose move is uncapped
# (nocap, 6.12) or twice as long (double, 6.1), with the same arguments
# (-F and these cells and windows).
# A nice-19 rival with a 100-ms custom slice beside a nice -10 or nice-0
# hog, in the yielder's group or beside its cgroup (SKIP on 6.1, which has
# no custom slices); 6-s windows, as the 100-ms rival's first long turn
# comes late, its light weight seldom making its deadline the earliest.
LONG_SLICE_CELLS='^[0-9]+ (same|cgroup-root) rivals=nice19,(nice-10|nice0) event=long-slice$'
LONG_SLICE_SECONDS=6
# Two or three nice -10 rivals in the yielder's group: their weight makes
# the move, a part of a tick, a median of several ticks, which a longer
# move lengthens by a tick or more; 0.6-s windows.
HEAVY_RIVALS_CELLS='^[0-9]+ same rivals=nice-10,nice-10[^ ]* event=none$'

# run_kselftest DIR NAME ARGS...: run the kselftest DIR/NAME, keep its TAP in
# $SCY_RESULTS/NAME.tap and echo it nested (indented), then one test of
# ours: ok when it exited with 0, a SKIP when it exited with 4 (kselftest's
# "skip": nothing it could judge here), not ok otherwise.
run_kselftest() {
	local dir=$1 t=$2 rc
	shift 2
	if [[ ! -x $dir/$t ]]; then
		not_ok "kselftest $t was not built"
		return
	fi
	echo "# running $t $*"
	local t0=$SECONDS h0
	h0=$(host_ms)
	"$dir/$t" "$@" >"$SCY_RESULTS/$t.tap" 2>&1
	rc=$?
	nest "$SCY_RESULTS/$t.tap"
	took "$t0" "$h0" "kselftest $t"
	if [[ $rc == 4 ]]; then
		skip "kselftest $t${*:+ $*}" "it skipped every test (exit status 4)"
	else
		check "kselftest $t${*:+ $*} (exit status $rc)" test $rc = 0
	fi
}

# knob_fuzz TOOLDIR WRITES: knob-fuzz's WRITES random writes, alternating
# sysfs and sysctl (sysfs only where the kernel has no sysctl), starting
# from 0 and again from 1 (seeds 1 and 2), then the non-root writes; a
# check each. Leaves the knob at 0.
knob_fuzz() {
	local tt=$1 writes=$2 start out rc t0
	for start in 0 1; do
		echo $start >/sys/kernel/sched_compat_yield
		t0=$(cut -d' ' -f1 /proc/uptime)
		out=$("$tt/knob-fuzz" fuzz -n "$writes" -s $((start + 1)) 2>&1)
		rc=$?
		echo "# $out ($(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s)"
		check "knob fuzzing from $start ($(knob_files)): $writes writes, invalid ones EINVAL, value only changed by valid ones" \
			test $rc = 0
	done
	out=$("$tt/knob-fuzz" nonroot 2>&1)
	rc=$?
	echo "# $out"
	check "knob: writes as uid 65534 refused, value unchanged" test $rc = 0
	echo 0 >/sys/kernel/sched_compat_yield
}

# live_reports: the running kernel's report lines so far (kernel_reports
# of dmesg, or of /dev/kmsg where dmesg is missing).
live_reports() {
	{ dmesg 2>/dev/null || dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null; } |
		kernel_reports
}
# new_reports COUNT: the report lines after the first COUNT (live_reports)
new_reports() { live_reports | tail -n +$(($1 + 1)); }

# knob_files: which files reach the knob here, for the checks' text
knob_files() {
	if [[ -e /proc/sys/kernel/sched_compat_yield ]]; then
		echo "sysfs and sysctl mixed"
	else
		echo "sysfs; no sysctl"
	fi
}

# knob_storm TOOLDIR WRITES [PROCS]: knob-fuzz storm: PROCS processes
# (default 4; half through the sysfs file, half through the sysctl where
# the kernel has it, else all through the sysfs file) write 1
# and 0 at once, WRITES in all, in rounds that each end with one write
# after all the others, which every process must then read from both
# files. Two checks: every write succeeded and every read showed the last
# value written; no new kernel report (kernel_reports) in the kernel log
# (writers racing on a static key without a lock of their own make
# static_key_disable_cpuslocked() warn). Leaves the knob at 0.
knob_storm() {
	local tt=$1 writes=$2 procs=${3:-4} k=/sys/kernel/sched_compat_yield
	local before out rc new what="concurrent knob writers"
	if [[ ! -w $k ]]; then
		skip "$what: $writes writes from $procs processes ($(knob_files))" "no writable $k"
		skip "no kernel warning during the concurrent knob writes" "no writable $k"
		return
	fi
	before=$(live_reports | wc -l)
	echo 0 >$k
	out=$("$tt/knob-fuzz" storm -p "$procs" -n "$writes" 2>&1)
	rc=$?
	sed 's/^/# /' <<<"$out"
	out=$(grep '^storm ' <<<"$out")
	if [[ -z $out ]]; then
		not_ok "$what: $writes writes from $procs processes ($(knob_files)): no summary (exit status $rc)"
	else
		check "$what: $(field writes "$out") writes from $procs processes ($(knob_files)), all succeeded, final value = last written ($(field failed "$out") failed, $(field wrong_reads "$out") wrong reads after $(field rounds "$out") rounds, $(field final_wrong "$out") wrong of $(field final_checks "$out") final checks, $(field seconds "$out") s)" \
			test "$rc" = 0
	fi
	new=$(new_reports "$before")
	[[ -z $new ]] || echo "# first new kernel report: $(head -n 1 <<<"$new")"
	check "no kernel warning during the concurrent knob writes ($(grep -c . <<<"$new") new kernel report lines)" \
		test -z "$new"
	echo 0 >$k
}

# yield_own_autogroup TOOLDIR SECONDS POLICY: knob 1 and autogroups on
# (kernel.sched_autogroup_enabled 1; both restored after); on the last CPU,
# a POLICY (other, batch, idle) task calling sched_yield() in a loop in a
# session, hence an autogroup, of its own and a hog in this shell's session,
# for SECONDS (yield-loop). Its compat yields then act at the level above
# its autogroup. Checks: the yielder ran, alone in an autogroup the hog is
# not in; no new kernel report line (kernel_reports) in the kernel log.
yield_own_autogroup() {
	local tt=$1 d=$2 pol=$3 k=/sys/kernel/sched_compat_yield
	local ag=/proc/sys/kernel/sched_autogroup_enabled prior_k prior_ag before out rc new
	local cpu what ya yg hg
	cpu=$(($(nproc) - 1))
	what="knob 1: SCHED_${pol^^} yielder in an autogroup of its own beside a hog on CPU $cpu"
	if [[ ! -w $k || ! -w $ag ]]; then
		skip "$what ran" "no writable $k or $ag"
		skip "$what: no kernel warning" "no writable $k or $ag"
		return
	fi
	prior_k=$(cat $k) prior_ag=$(cat $ag)
	echo 1 >$ag
	echo 1 >$k
	before=$(live_reports | wc -l)
	out=$("$tt/yield-loop" -p "$pol" -s -H 1 -c "$cpu" -d "$d" 2>&1)
	rc=$?
	new=$(new_reports "$before")
	echo "$prior_k" >$k
	echo "$prior_ag" >$ag
	sed 's/^/# /' <<<"$out"
	out=$(grep '^yield-loop ' <<<"$out")
	ya=$(field yields "$out") yg=$(field yielder_autogroup "$out") hg=$(field hog_autogroup "$out")
	check "$what ran (${ya:-0} yields in $(field seconds "$out") s; autogroups: yielder ${yg:-?}, hog ${hg:-?})" \
		test "$rc" = 0 -a "${ya:-0}" -gt 0 -a "${yg:-none}" != none -a "${yg:-none}" != root -a "${yg:-none}" != "${hg:-none}"
	[[ -z $new ]] || echo "# first new kernel report: $(head -n 1 <<<"$new")"
	check "$what: no kernel warning during its yields ($(grep -c . <<<"$new") new kernel report lines)" \
		test -z "$new"
}

# loop_share LINE: yield-loop's LINE as a comment on stderr, then "SHARE
# RUN": the yield loop's CPU time over its own and the busy loop's, and the
# longest run of its yields that returned at once.
loop_share() {
	echo "# $1" >&2
	awk -v y="$(field yielder_cpu "$1")" -v h="$(field hog_cpu "$1")" -v r="$(field at_once_run_max "$1")" \
		'BEGIN { if (y + h > 0 && r != "") printf "%.4f %d", y / (y + h), r }'
}

# group_share TOOLDIR YCG HCG: a yield loop alone in the cgroup YCG beside
# a busy loop in the cgroup HCG, both on the last CPU, for 2 s (yield-loop
# -g), the machine's switch and the groups' as they are. Prints "SHARE
# RUN": the yield loop's CPU time over its own and the busy loop's, both
# of the same window (CPU time that something else on that CPU takes, a
# kernel thread or the test's own processes, is not counted against the
# yield loop), and the longest run of its yields that returned at once
# (no other task ran: hundreds in a row for the stock yield across
# groups, which leaves the yielder's group its turn). yield-loop's line
# goes to stderr as a comment.
group_share() {
	local out
	out=$(sh -c "echo \$\$ >$2/cgroup.procs && exec $1/yield-loop -H 1 -g $3 -c $(($(nproc) - 1)) -d 2" 2>&1 |
		grep '^yield-loop ')
	loop_share "$out"
}

# session_share TOOLDIR: a yield loop in a session (an autogroup) of its
# own beside a busy loop, both on the last CPU, for 2 s (yield-loop -s),
# the machine's switch as it is. Prints "SHARE RUN" as group_share does,
# yield-loop's line to stderr as a comment.
session_share() {
	local out
	out=$("$1/yield-loop" -s -H 1 -c $(($(nproc) - 1)) -d 2 2>&1 | grep '^yield-loop ')
	loop_share "$out"
}

# guest_tick_ms: the running kernel's tick in ms (CONFIG_HZ, 250 when the
# kernel does not say)
guest_tick_ms() {
	local hz
	hz=$(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p')
	awk -v h="${hz:-250}" 'BEGIN { print 1000 / h }'
}

# hog_alone_p50 CSV TICK_MS: one check on compat_yield_latency's CSV: one
# CPU, a nice-0 hog and nothing else, a compat yield waits for the hog's
# turn, which ends at the next tick: the largest p50 of those windows at
# knob 1 is within 1.25 ticks (a second tick means the hog was kept on past
# the end of its slice). A missing figure fails.
hog_alone_p50() {
	local p50
	p50=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["measure"] == "away" && $c["rival"] == "none" && $c["knob"] == 1 &&
		$c["p50_us"] > m { m = $c["p50_us"] } END { if (m != "") printf "%.2f", m / 1000 }' \
		"$1" 2>/dev/null)
	check "knob 1, beside the hog alone: a yield waits one tick (largest p50 ${p50:-missing} ms <= 1.25 x $2 ms)" \
		awk -v p="${p50:-x}" -v t="$2" 'BEGIN { exit !(p + 0 == p && p <= 1.25 * t) }'
}
