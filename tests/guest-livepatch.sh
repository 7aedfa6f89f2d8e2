# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/guest-suite.sh in the guests of Debian's kernels with
# the livepatch (KVER-livepatch; vm/guest-init loaded it): what the
# livepatch adds to the suite.
#   - the taint it leaves: K (livepatch), O (out of tree), E (unsigned),
#     and no other flag;
#   - the builds that must be refused (livepatch/build.sh with
#     SCY_LIVEPATCH_TESTS=1): another kernel (by UTS_VERSION, by build
#     ID), a missing symbol: each fails
#     with its errno, says so in one dmesg line, and changes nothing;
#   - beside other livepatches (lp_test_other.c): a cumulative one that
#     does not carry the switch's state is refused by the livepatch core;
#     one of another function loads beside this one, before it or after
#     it; one that replaces
#     yield_to_task_fair() makes this one refuse to load;
#   - upgrades to the same build under another name: replacing the running
#     build, and stacked on it (replace=0, the way beside another
#     livepatch, where replacing is refused), the knob at 1 throughout and
#     a yielder next to a hog kept at a few percent of the CPU across the
#     transition (the stock yield gives it half) with no window of stock
#     yields (judged by its shape: a run of yields that return at once), a
#     write of 0 reaching the yield afterwards; a stack's later build
#     disabled first hands the knob back, and a write of 0 while its
#     roll-back runs reaches the tasks already back on the build below
#     (a test build holds the roll-back open; red on one that keeps such
#     writes to itself); the same check red on a build
#     that leaves a window of stock yields; a livepatch with this one's
#     state id but not its data makes this one refuse to load; loaded
#     after this one, a cumulative one with that state id at this one's
#     version replaces it, and its files then answer ENODEV;
#   - a write held in the knob's handler (a test build) while an upgrade
#     takes the files over, and while a stacked build is disabled and
#     hands them back: the removal waits for the write, and the next
#     owner has its value; the upgrade's check red on a build that copies
#     the value before it removes the earlier build's files;
#   - an upgrade held in its transition by a test build (a thread of the
#     running build asleep in a function the upgrade takes away): reversed
#     there, the running build keeps the files (the sysctl too) and the
#     values, and its yields follow them; let go after a write of 0, the
#     new build has it, and the sysctl, though loaded without sysctl=1;
#   - while stress-ng yields on both CPUs: the running build disabled and
#     unloaded while a writer flips the knob, then SCY_LIVEPATCH_CYCLES
#     (20; make check 0) cycles of load (the initial knob value by the
#     module parameter, 0 or 1), knob 1, disable, unload with that
#     writer: each load and unload works, each disable removes the
#     knob's files. A
#     transition on 6.12 ends by rewriting the kernel's cond_resched() call
#     sites (the livepatch core's sched_dynamic_klp_enable/disable), a
#     text patch with IPIs per site, slow under single-threaded TCG (the
#     transition times are in Documentation/results/livepatch.md), hence
#     waits of up to 5 minutes;
#   - cpu.compat_yield, a group's own switch: a yield loop alone in a
#     cgroup beside a busy loop in another, on one CPU, the machine's
#     switch at 0, keeps a few percent of the CPU with its group at 1 and
#     yields in the stock yield's shape at 0 (long runs of yields that
#     return at once; its share at 0 is judged under -icount,
#     tests/livepatch-icount.sh); the group's 1 is carried through every
#     upgrade above and back down a stack; three builds stacked, the
#     middle one disabled first, then the last: the first owns the files
#     again, with the switch's value and the group's, and its yields
#     follow the group's; no group has the file once the patch is gone;
#   - after the patch is disabled and unloaded, the stock yield is back (a
#     yielder in its own autogroup next to a hog gets its 50% again on
#     6.12, where the patched yield gives it a few percent);
#   - the admin guide's boot recipe (modules-load.d and modprobe.d) run by
#     systemd-modules-load, as at boot: the knob comes up at 1;
#   - the livepatch loaded again for the kselftests that follow, with
#     sysctl=1: the sysctl follows the knob both ways.
# Uses check/ok/not_ok/skip/field/in_range of tests/tap.sh and $knob, $SCY_BIN, $SCY_KVER,
# $SCY_RESULTS of the suite.

lp=/sys/kernel/livepatch/livepatch_compat_yield
lpko=$SCY_RESULTS/livepatch.ko
cycles=${SCY_LIVEPATCH_CYCLES:-20}
plan 43

# Taint flags (Documentation/admin-guide/tainted-kernels.rst): O 4096,
# E 8192, K 32768.
taint=$(cat /proc/sys/kernel/tainted)
check "taint $taint: K (livepatch) set, nothing but K, O and E" \
	test $((taint & 32768)) != 0 -a $((taint & ~(4096 | 8192 | 32768))) = 0

# refused KO ERRNO_TEXT DMESG_TEXT DESCRIPTION [ARGS]: insmod KO [ARGS]
# fails with ERRNO_TEXT, the kernel logs DMESG_TEXT once and, of the lines
# of the livepatch core and of the livepatches, nothing else but the core's
# lines about a patch it did not enable (lines of the rest of the kernel,
# such as "hrtimer: interrupt took N ns" on a busy host, are not the
# refusal's), and the knob (absent or its value) and the loaded livepatches
# are as they were.
refused() {
	local ko=$1 err=$2 msg=$3 desc=$4 before out lines other k0 lps
	shift 4
	k0=$(cat $knob 2>/dev/null)
	lps=$(ls /sys/kernel/livepatch)
	before=$(dmesg | wc -l)
	out=$(insmod "$ko" "$@" 2>&1)
	local rc=$?
	lines=$(dmesg | tail -n +$((before + 1)) |
		grep -vE 'tainting kernel|module verification failed|out-of-tree module taints')
	other=$(grep -vF -- "$msg" <<<"$lines" | grep -E 'livepatch|lp_test' |
		grep -vE "livepatch: (enabling patch|pre-patch callback failed|failed to enable patch|'[a-z_]+': unpatching complete)" |
		grep -c .)
	echo "# insmod ${ko##*/} $*: status $rc: $out"
	sed 's/^/# dmesg: /' <<<"$lines"
	check "$desc: refused ($err), said once in dmesg, knob and patches unchanged" \
		test $rc != 0 -a "$(grep -cF -- "$msg" <<<"$lines")" = 1 -a "$other" = 0 \
		-a "$(grep -cE -- "$err" <<<"$out")" = 1 \
		-a "$(cat $knob 2>/dev/null)" = "$k0" -a "$(ls /sys/kernel/livepatch)" = "$lps"
}
. "$(dirname "${BASH_SOURCE[0]}")/guest-lp-lib.sh"
# share PLACEMENT [SECONDS]: the yielder's CPU share next to one hog,
# 2 s by default, knob as is
share() {
	field yielder_cpu_share "$("$SCY_BIN/yield-share" -d "${2:-2}" -n 1 -p "$1" -k keep -f kv 2>/dev/null)"
}
T=$SCY_RESULTS/livepatch-test
echo 1 >$knob
refused "$T/other-kernel.ko" 'Invalid module format|Exec format error' \
	'built for the kernel "#1 SMP PREEMPT_DYNAMIC Debian 0.0-0 (test)"' \
	"a build for another kernel"
refused "$T/other-build-id.ko" 'Invalid module format|Exec format error' \
	'built for the kernel of build ID 0123456789abcdef0123456789abcdef01234567, this one' \
	"a build for another image of this kernel's UTS_VERSION"
refused "$T/lp_test_replace.ko" 'Invalid parameters|Invalid argument' \
	'is not compatible with the already installed livepatches' \
	"another vendor's cumulative livepatch (replace) without the switch's state"

# gshare: group_share (tests/tap.sh) of a yield loop in the cgroup $gy
# beside a busy loop in $gh: "SHARE RUN". The share at 1 is judged here
# (at most a tenth; a host stall charged to the yield loop can only raise
# it). At 0 what shows that the write reached the yield is the stock
# yield's shape, runs of at least AT_ONCE_RUN_MAX yields that return at
# once (see upgrade() below; compat yields return at once one or two in a
# row); the share at 0 is judged in the livepatch-icount stage, under
# -icount, where a host stall moves no CPU time: under plain TCG, where a
# stall counts as the running task's CPU time, the stock yield's share
# beside another cgroup on 6.12 is not steady from run to run (figures in
# Documentation/results/livepatch.md).
cg=/sys/fs/cgroup gy=/sys/fs/cgroup/scy-lp-yielder gh=/sys/fs/cgroup/scy-lp-hog
cg_ctl=$(cat $cg/cgroup.subtree_control)
gshare() { group_share "$SCY_BIN/tests" $gy $gh; }
AT_ONCE_RUN_MAX=100
# gval: the yielder's group's cpu.compat_yield, "none" without the file
gval() {
	cat $gy/cpu.compat_yield 2>/dev/null || echo none
}
echo +cpu >$cg/cgroup.subtree_control && mkdir -p $gy $gh
echo 0 >$knob
echo 1 >$gy/cpu.compat_yield
read -r g1 r1 <<<"$(gshare)"
echo 0 >$gy/cpu.compat_yield
read -r g0 r0 <<<"$(gshare)"
check "knob 0, cpu.compat_yield of the yielder's cgroup at 1: cpu share ${g1:-missing} <= 0.10 beside a busy loop's cgroup (runs of yields that returned at once up to ${r1:-missing}); at 0: the stock yield's runs, up to ${r0:-missing} >= $AT_ONCE_RUN_MAX (cpu share ${g0:-missing})" \
	test -n "$(in_range "$g1" 0 0.10 && echo y)" -a -n "$(is_number "$r0" && ((r0 >= AT_ONCE_RUN_MAX)) && echo y)"
# the group stays at 1 through the upgrades below, the machine's switch too
echo 1 >$gy/cpu.compat_yield
echo 1 >$knob

s1=$(share session)
check "knob 1, yielder in its own autogroup next to a hog: cpu share $s1 <= 0.10" \
	in_range "$s1" 0 0.10

# Another vendor's livepatch of another function, beside this one.
insmod "$T/lp_test_stack.ko" && lp_on lp_test_stack
sb=$(share session)
check "beside a livepatch of another function (/proc/cmdline: $(cat /proc/cmdline)): knob $(cat $knob), cpu share $sb <= 0.10" \
	test "$(cat /proc/cmdline)" = lp_test_other -a "$(cat $knob)" = 1 -a -n "$(in_range "$sb" 0 0.10 && echo y)"

# upgrade DESC NEW_NAME [ARGS]: with knob 1, load the next build (NEW_NAME)
# while a yielder in its own autogroup and a hog share a CPU for
# UPGRADE_WINDOW seconds from the load on (tests/tools/yield-loop -s); the
# yielder runs the new build's code from its first return to user space
# after the transition starts, within the window's first second, and a
# build that leaves a window of stock yields keeps it until its
# post_patch callback, after the transition's end (6.1: 7-14 s; 6.12: the
# window's end, see below) plus a second, so that the window holds
# seconds of it on both kernels; the transition ends, the knob is 1 and
# writable afterwards, and no window of stock yields showed, judged by
# its shape (the yielder's share of the CPU is printed): the longest run of yields that returned at once (no other
# task ran), one after another, is under AT_ONCE_RUN_MAX. The stock yield
# across groups leaves the yielder's group its turn: a window of it is a
# tick of yields that return at once, hundreds of them (a yield returns in
# tens of us under TCG; thousands in a row on the host). A compat yield
# returns at once only while the yielder has more lag than the turn of
# its rival it gives up per yield (a tick and a slice), which a stall of
# the guest charged to the hog gives it: one at-once yield per turn the
# stall covers, a run of AT_ONCE_RUN_MAX after a stall of half a second.
# A build that leaves a window of stock yields in an upgrade (the faults
# stage's LP_TEST_STOCK_WINDOW build) shows runs of thousands. The
# yielder switches to the new build at its first return to user space
# after the transition starts. On 6.12 under single-threaded TCG the
# transition ends only after the window: the livepatch core also rewrites
# the kernel's cond_resched() call sites, with IPIs that the busy vCPU
# answers once per TCG time slice; that end (the files taken over)
# changes no yield path. AT_ONCE_RUN_MAX is set above.
# UPGRADE_WINDOW: 6.12's transition ends only after the window, whatever
# its length (10.9-13.2 s into a 10-s one, busy host too), so the
# stock-window build's window always overlaps it; 6.1's does not wait
# for it, and on a busy host the load and the transition took 12.6-13.7 s
# from insmod, after which the stock window of that build fell outside a
# 10-s window (its check stayed green): at most 30 s there, where they
# took 6.7-8.6 s, and the window ends UPGRADE_TAIL seconds after the
# transition's end (SIGUSR1 to yield-loop). The stock-window build's
# window ends within the transition (its post_patch callback runs before
# the transition shows done), so the tail only has to hold the yields
# that were in flight then.
UPGRADE_WINDOW=10 UPGRADE_TAIL=2
if [[ $SCY_KVER == 6.1 ]]; then UPGRADE_WINDOW=30; fi
upgrade() {
	local desc=$1 name=$2 ko t0 t1 out sh rc=0 v run
	shift 2
	ko=$T/livepatch_compat_yield_next.ko
	[[ $name == livepatch_compat_yield ]] && ko=$lpko
	[[ -n ${LP_UPGRADE_KO:-} ]] && ko=$LP_UPGRADE_KO
	t0=$(date +%s.%N)
	out=$(mktemp)
	"$SCY_BIN/tests/yield-loop" -s -H 1 -d "$UPGRADE_WINDOW" >"$out" 2>&1 &
	local yp=$!
	insmod "$ko" "$@" && lp_on "$name" || rc=1
	t1=$(date +%s.%N)
	sleep "$UPGRADE_TAIL"
	kill -USR1 $yp 2>/dev/null
	wait $yp || rc=1
	out=$(grep '^yield-loop ' "$out")
	echo "# $out"
	sh=$(awk -v y="$(field yielder_cpu "$out")" -v h="$(field hog_cpu "$out")" \
		'BEGIN { if (y + h > 0) printf "%.4f", y / (y + h) }')
	run=$(field at_once_run_max "$out")
	v=$(cat $knob 2>/dev/null)
	knob_reaches || rc=1
	# The window is judged by its shape alone: its CPU share (printed)
	# grows with the host's load under plain TCG, where a yield's round
	# trip costs more guest time (0.1003 beside stress-ng --cpu 2 on
	# 6.12); the livepatch-icount stage judges the share at 1.
	check "$desc: transition done $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s into the $(field seconds "$out")-s window, knob $v after, writable, 0 reaches the yield ($s0w); longest run of yields that returned at once ${run:-missing} < $AT_ONCE_RUN_MAX ($(field at_once "$out") of $(field yields "$out"); yielder's cpu share ${sh:-missing})" \
		test $rc = 0 -a "$v" = 1 \
		-a -n "$(is_number "$run" && ((run < AT_ONCE_RUN_MAX)) && echo y)"
}
# knob_reaches: a write of 0 to the knob reaches the yield that runs: a
# yield loop in its own autogroup next to a hog (session_share, tests/
# tap.sh, 2 s) shows the stock yield's shape, its yields returning at
# once in runs of at least AT_ONCE_RUN_MAX (its CPU share, which a host
# stall moves here, is printed; the livepatch-icount stage judges it);
# "share run" in s0w. Then the knob goes back to 1.
knob_reaches() {
	local r
	s0w=
	echo 0 >$knob && [[ $(cat $knob) == 0 ]] || return 1
	s0w=$(session_share "$SCY_BIN/tests")
	r=${s0w#* }
	s0w="share ${s0w% *}, runs up to ${r:-missing}"
	echo 1 >$knob && [[ $(cat $knob) == 1 ]] && is_number "$r" && ((r >= AT_ONCE_RUN_MAX))
}
# Beside another vendor's livepatch, replacing would remove it too.
refused "$T/livepatch_compat_yield_next.ko" 'Device or resource busy' \
	'replacing the running build would remove the livepatch lp_test_stack too' \
	"an upgrade that replaces, beside another vendor's livepatch"
upgrade "an upgrade stacked on the running build (replace=0) beside another vendor's livepatch" \
	livepatch_compat_yield_next replace=0
lp_off livepatch_compat_yield
rc=$?
check "the earlier build disabled and unloaded by hand (status $rc); the next build's knob $(cat $knob), the group's $(gval); the other vendor's livepatch still on" \
	test $rc = 0 -a "$(cat $knob)" = 1 -a "$(gval)" = 1 -a "$(cat /proc/cmdline)" = lp_test_other
check "another vendor's livepatch disabled and unloaded" lp_off lp_test_stack
upgrade "an upgrade that replaces the running build" livepatch_compat_yield
lp_gone livepatch_compat_yield_next
rc=$?
check "the replaced build unloaded (status $rc); knob $(cat $knob), the group's $(gval)" \
	test $rc = 0 -a "$(cat $knob)" = 1 -a "$(gval)" = 1
# rollback_write NAME: disable NAME, the later build of a stack and a
# test build whose roll-back holds (hold-rollback, no-follow: see
# livepatch_compat_yield.c, LP_TEST_HOLD_ROLLBACK): in its post_unpatch
# every task runs the build below's code while NAME still owns the
# knob's files, until the knob was written twice. Write 0 there, take the
# yield's shape (session_share: its yield loop runs the build below's
# code), write 0 again to let the roll-back go on; then wait for NAME's
# removal and unload it. A build's write reaches the build below from its
# pre_unpatch on (lp_below_follow()). rw_rc: 0 done, 1 a step failed;
# rw_open: 1 when the transition was still open as the measurement
# ended, so that the whole of it ran in the window; rw_share, rw_run: what
# session_share gave.
rollback_write() {
	local d=/sys/kernel/livepatch/$1 before dp
	rw_rc=1 rw_open= rw_share= rw_run=
	before=$(dmesg | wc -l)
	# the write of enabled returns when the transition has ended
	echo 0 >"$d/enabled" &
	dp=$!
	if lp_wait "dmesg | tail -n +$((before + 1)) | grep -q 'test build: the roll-back holds'" &&
		echo 0 >$knob; then
		read -r rw_share rw_run <<<"$(session_share "$SCY_BIN/tests")"
		[[ $(cat "$d/transition" 2>/dev/null) == 1 ]] && rw_open=1
		echo 0 >$knob
	fi
	wait $dp && lp_gone "$1" && rw_rc=0
}
# rollback_check EXPECT DESC: the TAP line of rollback_write's measurement:
# EXPECT "follows", the stock yield's runs (>= AT_ONCE_RUN_MAX) after the
# write of 0; "stays", shorter ones (the build below kept its 1); a SKIP
# when the transition ended before the measurement did.
rollback_check() {
	local desc="$2 (status $rw_rc; longest run of yields that returned at once ${rw_run:-missing}, cpu share ${rw_share:-missing})"
	local follows=
	is_number "$rw_run" && ((rw_run >= AT_ONCE_RUN_MAX)) && follows=y
	if [[ $rw_rc == 0 && -z $rw_open ]]; then
		skip "$desc" "the roll-back's transition ended before the measurement did: the test build holds it for at most 60 s"
	elif [[ $1 == follows ]]; then
		check "$desc" test "$rw_rc" = 0 -a "$follows" = y
	else
		check "$desc" test "$rw_rc" = 0 -a -z "$follows" -a -n "$(is_number "$rw_run" && echo y)"
	fi
}
# Stacked, then the later build disabled first: it hands the files and
# the value back to the build below, also a value written during its
# roll-back, which reaches the tasks already back on the build below.
LP_UPGRADE_KO=$T/hold-rollback.ko upgrade "an upgrade stacked on the running build (replace=0)" \
	livepatch_compat_yield_next replace=0
rollback_write livepatch_compat_yield_next
rc=$rw_rc
rollback_check follows "a write of 0 while the later build of a stack rolls back reaches the tasks already back on the build below: the stock yield's runs (>= $AT_ONCE_RUN_MAX)"
kv=$(cat $knob 2>/dev/null)
knob_reaches
kr=$?
sb=$(share session)
check "the later build of a stack disabled and unloaded first: knob $kv with the build below (the 0 written during the roll-back), the group's $(gval), 0 reaches the yield ($s0w), at 1 the yielder's cpu share $sb <= 0.10" \
	test $rc = 0 -a $kr = 0 -a "$kv" = 0 -a "$(cat $knob 2>/dev/null)" = 1 -a "$(gval)" = 1 \
	-a -n "$(in_range "$sb" 0 0.10 && echo y)"
# The same on a build that keeps a write during its roll-back to itself
# (LP_TEST_NO_FOLLOW): the tasks back on the build below keep its 1.
if insmod "$T/no-follow.ko" replace=0 && lp_on livepatch_compat_yield_next; then
	rollback_write livepatch_compat_yield_next
else
	rw_rc=1 rw_open= rw_share= rw_run=
fi
rollback_check stays "a build that keeps a write during its roll-back to itself (no-follow test build): the check above is red, the tasks back on the build below keep its 1 (runs < $AT_ONCE_RUN_MAX)"
echo 1 >$knob
# Three builds stacked (replace=0), the middle one disabled first, then
# the last: the first, still enabled, owns the files again, with the
# values the last one had, and its yields follow them.
lp_stack=0
insmod "$T/livepatch_compat_yield_next.ko" replace=0 && lp_on livepatch_compat_yield_next &&
	insmod "$T/livepatch_compat_yield_third.ko" replace=0 && lp_on livepatch_compat_yield_third &&
	lp_off livepatch_compat_yield_next && lp_off livepatch_compat_yield_third || lp_stack=1
echo 0 >$knob
read -r g3 r3 <<<"$(gshare)"
echo 0 >$gy/cpu.compat_yield
read -r g30 r30 <<<"$(gshare)"
check "three builds stacked, the middle one disabled first, then the last (status $lp_stack): the first owns the files, knob 0 and group 0 written there; the group at 1 kept the yielder at ${g3:-missing} <= 0.10 (runs up to ${r3:-missing}), at 0 its yields returned at once in runs up to ${r30:-missing} >= $AT_ONCE_RUN_MAX (cpu share ${g30:-missing})" \
	test $lp_stack = 0 -a "$(cat $knob 2>/dev/null)" = 0 -a "$(gval)" = 0 \
	-a -n "$(in_range "$g3" 0 0.10 && echo y)" -a -n "$(is_number "$r30" && ((r30 >= AT_ONCE_RUN_MAX)) && echo y)"
echo 1 >$gy/cpu.compat_yield
echo 1 >$knob
# A build that leaves a window of stock yields in its upgrade (the
# stock-window test build of livepatch/build.sh: it takes the switch's
# value over only at the end of the transition): the upgrade check above
# must be red on it, its line quoted. It replaces the running build; the
# build under test then takes over again.
fault=$( (n=0 && LP_UPGRADE_KO=$T/stock-window.ko upgrade \
	"an upgrade by a build with a window of stock yields" livepatch_compat_yield_next) 2>&1)
sed 's/^/#   /' <<<"$fault"
# red for the window, not for another reason: the knob was 1 after the
# transition and the longest run of yields that returned at once is what
# failed
stock_run=$(sed -nE 's/^not ok [0-9]+ - an upgrade by a build with a window of stock yields: transition done .* knob 1 after, writable, .* longest run of yields that returned at once ([0-9]+) < .*/\1/p' <<<"$fault")
check "a build that leaves a window of stock yields in an upgrade: the upgrade check is red, the knob at 1 after it, by a run of ${stock_run:-no} yields that returned at once (>= $AT_ONCE_RUN_MAX)" \
	test -n "$(is_number "$stock_run" && ((stock_run >= AT_ONCE_RUN_MAX)) && echo y)"
lp_gone livepatch_compat_yield
insmod "$lpko" && lp_on livepatch_compat_yield && lp_gone livepatch_compat_yield_next ||
	echo "# the build under test did not take over again"
echo 0 >$knob

# the load/knob/disable/unload cycles, under stress, with a writer
# flipping the knob while the patch is disabled and unloaded
setsid stress-ng --temp-path /tmp --yield 2 --timeout $((cycles * 180 + 900)) --metrics-brief >"$SCY_RESULTS/stress-ng-livepatch.log" 2>&1 &
sp=$!
bad=0 gone=0 t0=$(date +%s.%N)
disable_unload() {
	local wp rc=0
	(while :; do
		echo 1 >$knob
		echo 0 >/proc/sys/kernel/sched_compat_yield
		echo 0 >$knob
	done) 2>/dev/null &
	wp=$!
	echo 0 >$lp/enabled && lp_wait "[[ ! -d $lp ]]" &&
		{ [[ ! -e $knob && ! -e /proc/sys/kernel/sched_compat_yield ]] || rc=1; } &&
		rmmod livepatch_compat_yield || rc=1
	kill $wp
	wait $wp 2>/dev/null
	return $rc
}
disable_unload || bad=$((bad + 1))
# odd cycles load it with sysctl=1 (the sysctl follows the knob), even ones
# without (no sysctl, the default); every other pair of cycles with the
# knob at 1 from the start (sched_compat_yield=1)
has_sysctl() {
	if [[ $1 == 1 ]]; then
		[[ $(cat /proc/sys/kernel/sched_compat_yield) == 1 ]]
	else
		[[ ! -e /proc/sys/kernel/sched_compat_yield ]]
	fi
}
for i in $(seq "$cycles"); do
	init=$((i / 2 % 2))
	if insmod "$lpko" sysctl=$((i % 2)) sched_compat_yield=$init && lp_on livepatch_compat_yield &&
		[[ $(cat $knob) == "$init" ]] && echo 1 >$knob && has_sysctl $((i % 2)) &&
		disable_unload; then
		gone=$((gone + 1))
	else
		bad=$((bad + 1))
		echo "# cycle $i failed"
	fi
done
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "stress-ng --yield ran through the livepatch cycles" kill -0 $sp
kill -- -$sp 2>/dev/null
wait $sp 2>/dev/null
sed 's/^/# /' "$SCY_RESULTS/stress-ng-livepatch.log"
check "the running build disabled and unloaded, then $cycles cycles of load (knob 0 or 1 by sched_compat_yield=, with and without sysctl=1), knob 1, disable and unload, with a writer on the knob, under stress-ng --yield in $secs s ($bad failed)" \
	test $bad = 0 -a $gone = "$cycles"
check "unloaded: no livepatch, no /sys/kernel/sched_compat_yield, no kernel.sched_compat_yield, no cpu.compat_yield in a cgroup" \
	test -z "$(ls /sys/kernel/livepatch)" -a ! -e $knob -a ! -e /proc/sys/kernel/sched_compat_yield \
	-a "$(gval)" = none
rmdir $gy $gh
[[ " $cg_ctl " == *" cpu "* ]] || echo -cpu >$cg/cgroup.subtree_control
check "unloaded: the module is gone" bash -c "! grep -q '^livepatch_compat_yield ' /proc/modules"
refused "$T/missing-symbol.ko" 'Invalid parameters|Invalid argument' \
	"symbol 'lp_test_missing_symbol' not found" "a build that needs a symbol the kernel lacks"

# Another vendor's livepatch with this one's state id (data of its own, a
# value that points nowhere) first: this one refuses to take over from
# it, having read no byte at that value (a read would oops).
insmod "$T/lp_test_state.ko" && lp_on lp_test_state
refused "$lpko" 'Invalid parameters|Invalid argument' \
	'another livepatch carries the state 0x73637900 without this one' \
	"this livepatch after another vendor's livepatch with its state id"
check "that livepatch disabled and unloaded" lp_off lp_test_state
# Another vendor's livepatch of yield_to_task_fair() first: this one
# refuses to load (loaded after this one, such a livepatch would take
# precedence: the livepatch core runs the newest).
insmod "$T/lp_test_yield.ko" && lp_on lp_test_yield
refused "$lpko" 'Device or resource busy' \
	'the livepatch lp_test_yield already replaces yield_to_task_fair()' \
	"this livepatch after another vendor's livepatch of yield_to_task_fair()"
check "that livepatch disabled and unloaded" lp_off lp_test_yield
# Another vendor's livepatch of another function first: this one loads
# beside it, and its knob reaches the yield.
rc=0
insmod "$T/lp_test_stack.ko" && lp_on lp_test_stack && insmod "$lpko" &&
	lp_on livepatch_compat_yield && echo 1 >$knob || rc=1
sb=$(share session)
check "this livepatch after another vendor's livepatch of another function (/proc/cmdline: $(cat /proc/cmdline)): knob $(cat $knob 2>/dev/null), 1, yielder in its own autogroup next to a hog: cpu share $sb <= 0.10 (status $rc)" \
	test $rc = 0 -a "$(cat /proc/cmdline)" = lp_test_other -a "$(cat $knob 2>/dev/null)" = 1 \
	-a -n "$(in_range "$sb" 0 0.10 && echo y)"
for m in livepatch_compat_yield lp_test_stack; do
	[[ -d /sys/kernel/livepatch/$m ]] && lp_off $m
	grep -q "^$m " /proc/modules && rmmod $m
done

# Another vendor's cumulative livepatch with this one's state id at its
# version (2) after this one: the livepatch core lets it replace this one
# without running this one's callbacks, so the files stay up until this
# module is unloaded; they must say that the switch is not in effect
# (ENODEV, and one line in dmesg) rather than read 1 while the stock yield
# runs. Then the stock yield runs (the yielder's runs of yields that
# return at once), and unloading this module takes the files away.
foreign_cumulative() {
	local before out1 out2 out3 out4 lines run
	insmod "$lpko" sched_compat_yield=1 && lp_on livepatch_compat_yield &&
		mkdir -p $gy && echo +cpu >$cg/cgroup.subtree_control && echo 1 >$gy/cpu.compat_yield || return 1
	before=$(dmesg | wc -l)
	insmod "$T/lp_test_state2.ko" && lp_on lp_test_state2 || return 1
	out1=$(cat $knob 2>&1)
	out2=$( (echo 0 >$knob) 2>&1)
	out3=$(cat $gy/cpu.compat_yield 2>&1)
	out4=$( (echo 0 >$gy/cpu.compat_yield) 2>&1)
	lines=$(dmesg | tail -n +$((before + 1)) | grep -c 'replaced by a cumulative livepatch that does not carry this switch')
	read -r _ run <<<"$(session_share "$SCY_BIN/tests")"
	echo "# after lp_test_state2 replaced it: read '$out1', write '$out2', cpu.compat_yield read '$out3', write '$out4'; $lines dmesg line(s); the yielder's longest run of yields that returned at once ${run:-missing}"
	[[ $out1 == *"No such device"* && $out2 == *"No such device"* && $out3 == *"No such device"* &&
		$out4 == *"No such device"* && $lines == 1 ]] &&
		is_number "$run" && ((run >= AT_ONCE_RUN_MAX)) || return 1
	lp_gone livepatch_compat_yield || return 1
	[[ ! -e $knob && ! -e $gy/cpu.compat_yield ]] || return 1
	lp_off lp_test_state2 && rmdir $gy
}
foreign_cumulative
rc=$?
# what a failure left
if ((rc)); then
	[[ -d /sys/kernel/livepatch/lp_test_state2 ]] && lp_off lp_test_state2
	grep -q '^lp_test_state2 ' /proc/modules && rmmod lp_test_state2
	[[ -d /sys/kernel/livepatch/livepatch_compat_yield ]] && lp_off livepatch_compat_yield
	grep -q '^livepatch_compat_yield ' /proc/modules && rmmod livepatch_compat_yield
fi
check "another vendor's cumulative livepatch with this one's state id (version 2) replaces this one: its files answer No such device and say so once in dmesg, the stock yield runs, unloading it takes the files away (status $rc)" \
	test $rc = 0 -a "$(ls /sys/kernel/livepatch)" = "" -a ! -e $knob
rmdir $gy 2>/dev/null
[[ " $cg_ctl " == *" cpu "* ]] || echo -cpu >$cg/cgroup.subtree_control

# A write held in the knob's handler while the files change owner
# (livepatch/build.sh's hold-write test build, LP_TEST_HOLD_WRITE: the
# write holds until the removal of the file has begun): the removal waits
# for it, and the next owner of the files has what it wrote. An upgrade
# that replaces the held build takes the files over in its post_patch; the
# held build stacked on the running one and disabled hands them back in
# its post_unpatch. Each writes the value the yield then follows.
hold=livepatch_compat_yield_hold
# held_write VALUE CMD...: write VALUE to the knob in the background, wait
# until the handler holds it, run CMD; the write's exit status in hw_rc
held_write() {
	local v=$1 before wp
	shift
	hw_rc=
	before=$(dmesg | wc -l)
	(echo "$v" >$knob) 2>/dev/null &
	wp=$!
	if ! lp_wait "dmesg | tail -n +$((before + 1)) | grep -q 'a write to the switch held'"; then
		kill $wp 2>/dev/null
		wait $wp
		return 1
	fi
	"$@"
	local rc=$?
	wait $wp
	hw_rc=$?
	return $rc
}
# the upgrade: HELD_KO named HELD_NAME (default: the build under test)
upgrade_over_hold() {
	insmod "${HELD_KO:-$lpko}" && lp_on "${HELD_NAME:-livepatch_compat_yield}" && lp_gone $hold
}
held_upgrade() {
	insmod "$T/$hold.ko" && lp_on $hold && [[ $(cat $knob) == 0 ]] || return 1
	held_write 1 upgrade_over_hold || return 1
	# the yield follows by its shape, as in upgrade(): no run of yields
	# that return at once as long as the stock yield's (its CPU share,
	# which a host stall moves here, is printed)
	read -r hs hrun <<<"$(session_share "$SCY_BIN/tests")"
	[[ $hw_rc == 0 && $(cat $knob) == 1 ]] && is_number "$hrun" && ((hrun < AT_ONCE_RUN_MAX))
}
held_rollback() {
	insmod "$T/$hold.ko" replace=0 && lp_on $hold && [[ $(cat $knob) == 1 ]] || return 1
	held_write 0 lp_off $hold || return 1
	read -r hs hrun <<<"$(session_share "$SCY_BIN/tests")"
	[[ $hw_rc == 0 && $(cat $knob) == 0 ]] && is_number "$hrun" && ((hrun >= AT_ONCE_RUN_MAX))
}
hs= hrun=
held_upgrade
rc=$?
check "a write of 1 held in the handler of a build's knob while an upgrade replaces that build: the write returns (status ${hw_rc:-none}), the upgrade's knob reads $(cat $knob 2>/dev/null), the yield follows (yielder in its own autogroup next to a hog: longest run of yields that returned at once ${hrun:-missing} < $AT_ONCE_RUN_MAX, cpu share ${hs:-missing}) (status $rc)" \
	test $rc = 0
hs= hrun=
held_rollback
rc=$?
check "a write of 0 held in the handler of a build stacked on the running one while it is disabled: the write returns (status ${hw_rc:-none}), the build below owns the knob again and reads $(cat $knob 2>/dev/null), the yield follows (the stock yield's runs: up to ${hrun:-missing} >= $AT_ONCE_RUN_MAX, cpu share ${hs:-missing}) (status $rc)" \
	test $rc = 0
for m in $hold livepatch_compat_yield; do
	[[ -d /sys/kernel/livepatch/$m ]] && lp_off $m
	grep -q "^$m " /proc/modules && rmmod $m
done

# The held upgrade's check red on a build that copies the value before it
# removes the earlier build's files (livepatch/build.sh's copy-early test
# build, LP_TEST_COPY_EARLY): the held write lands in the files of the
# build that goes, and the knob reads 0 after it returned.
hs= hrun=
HELD_KO=$T/copy-early.ko HELD_NAME=livepatch_compat_yield_next held_upgrade
rc=$?
v=$(cat $knob 2>/dev/null)
check "fault: the check above red on an upgrade that copies the knob before it removes the replaced build's files (status $rc, not 0): the held write of 1 returned (status ${hw_rc:-none}), the knob reads ${v:-missing}, 0" \
	test $rc != 0 -a "$hw_rc" = 0 -a "$v" = 0
for m in $hold livepatch_compat_yield_next; do
	[[ -d /sys/kernel/livepatch/$m ]] && lp_off $m
	grep -q "^$m " /proc/modules && rmmod $m
done

# An upgrade held in its transition (livepatch/build.sh's hold-transition
# test build, LP_TEST_HOLD_TRANSITION, is the running build: a kernel
# thread of it sleeps where the replacing build's transition must switch
# it, and that transition stays open until the thread wakes), while every
# other task already runs the new build's code. Reversed there, the
# running build keeps the files, the switch's value and the group's, and
# its yields follow them. Let go after a write of 0, the new build takes
# that 0 over at the transition's end and its yields follow it.
held=livepatch_compat_yield_held ctl=/proc/sys/kernel/sched_compat_yield
hold_param=/sys/module/$held/parameters/hold_transition_ms
# holder: the PID of the test build's holding thread
holder() {
	local d
	for d in /proc/[0-9]*; do
		[[ $(cat "$d/comm" 2>/dev/null) == lp_test_hold ]] && echo "${d#/proc/}" && return 0
	done
	return 1
}
# held_upgrade_start [ARGS]: the holding thread asleep, the build under
# test loaded (with ARGS) to replace the running one, its transition open
# with every task switched but the holder (this shell's patch state 1,
# the holder's 0); "transition/holder/shell" in mid
held_upgrade_start() {
	local p
	mid=
	echo 30000 >$hold_param && p=$(holder) && insmod "$lpko" "$@" || return 1
	lp_wait "[[ \$(cat /proc/$$/patch_state) == 1 || \$(cat $lp/transition) != 1 ]]"
	mid=$(cat $lp/transition)/$(cat /proc/$p/patch_state)/$(cat /proc/$$/patch_state)
	[[ $mid == 1/0/1 ]]
}
# holder_woke: the holder's sleep ended (the dmesg lines after line $1)
holder_woke() {
	dmesg | tail -n +$(($1 + 1)) | grep -q 'the thread that held transitions is awake'
}
reversed_upgrade() {
	echo +cpu >$cg/cgroup.subtree_control && mkdir -p $gy &&
		insmod "$T/$held.ko" sysctl=1 && lp_on $held &&
		echo 1 >$knob && echo 1 >$gy/cpu.compat_yield || return 1
	local before
	before=$(dmesg | wc -l)
	held_upgrade_start || return 1
	echo 0 >$lp/enabled && lp_wait "[[ ! -d $lp ]]" && rmmod livepatch_compat_yield || return 1
	# reversed while the holder still slept
	! holder_woke "$before" || return 1
	after=$(cat /sys/kernel/livepatch/$held/enabled)$(cat /sys/kernel/livepatch/$held/transition)
	read -r hs hrun <<<"$(session_share "$SCY_BIN/tests")"
	echo 0 >$hold_param || return 1
	[[ $after == 10 && $(cat $knob) == 1 && $(gval) == 1 && $(cat $ctl) == 1 ]] &&
		is_number "$hrun" && ((hrun < AT_ONCE_RUN_MAX))
}
write_in_upgrade() {
	local before
	before=$(dmesg | wc -l)
	# loaded with sched_compat_yield=1, which an upgrade does not take:
	# a build that carried nothing over would read 1, or 0 from the
	# default without the parameter
	held_upgrade_start sched_compat_yield=1 || return 1
	echo 0 >$knob && [[ $(cat $knob) == 0 ]] || return 1
	# the transition still held when the write was made
	! holder_woke "$before" && [[ $(cat $lp/transition) == 1 ]] || return 1
	echo 0 >$hold_param || return 1
	lp_on livepatch_compat_yield && lp_gone $held || return 1
	read -r hs hrun <<<"$(session_share "$SCY_BIN/tests")"
	[[ $(cat $knob) == 0 && $(gval) == 1 && $(cat $ctl) == 0 ]] && is_number "$hrun" && ((hrun >= AT_ONCE_RUN_MAX))
}
mid= after= hs= hrun=
reversed_upgrade
rc=$?
check "an upgrade reversed while its transition is held open (transition/holder's patch state/this shell's: ${mid:-none}, 1/0/1): the running build stays (enabled, transition: ${after:-none}, 10) with knob $(cat $knob 2>/dev/null), the sysctl $(cat $ctl 2>/dev/null) and the group's $(gval), all 1, and the yield follows (yielder in its own autogroup next to a hog: longest run of yields that returned at once ${hrun:-missing} < $AT_ONCE_RUN_MAX, cpu share ${hs:-missing}) (status $rc)" \
	test $rc = 0
mid= hs= hrun=
write_in_upgrade
rc=$?
check "a write of 0 while an upgrade's transition is held open (${mid:-none}, 1/0/1): once let go, the new build (loaded with sched_compat_yield=1, without sysctl=1) has knob $(cat $knob 2>/dev/null) and the sysctl $(cat $ctl 2>/dev/null), both 0, the group's $(gval), 1, and the yield follows (the stock yield's runs: up to ${hrun:-missing} >= $AT_ONCE_RUN_MAX, cpu share ${hs:-missing}) (status $rc)" \
	test $rc = 0
[[ -e $hold_param ]] && echo 0 >$hold_param
for m in livepatch_compat_yield $held; do
	[[ -d /sys/kernel/livepatch/$m ]] && lp_off $m
	grep -q "^$m " /proc/modules && rmmod $m
done
rmdir $gy 2>/dev/null
[[ " $cg_ctl " == *" cpu "* ]] || echo -cpu >$cg/cgroup.subtree_control

# The stock yield is back: a yielder in its own autogroup next to a hog
# keeps its group's turn, its yields returning at once in runs the
# upgrades' check would see as a stock window (its CPU share, about half
# where guest time is deterministic, is printed: a host stall moves it
# here).
read -r s0 run <<<"$(session_share "$SCY_BIN/tests")"
check "unloaded, yielder in its own autogroup next to a hog: longest run of yields that returned at once ${run:-missing} >= $AT_ONCE_RUN_MAX (stock; cpu share ${s0:-missing})" \
	test -n "$(is_number "$run" && ((run >= AT_ONCE_RUN_MAX)) && echo y)"

# The admin guide's boot recipe, run as at boot: the module installed
# where DKMS puts it, the modules-load.d and modprobe.d files, and
# systemd-modules-load (the boot's systemd-modules-load.service). The
# guest's root is read-only: tmpfs mounts stand in for /lib/modules and
# /etc/modprobe.d.
boot_recipe() {
	local rel m
	rel=$(uname -r)
	m=$(mktemp -d)
	mkdir -p "$m/lib/$rel/updates" "$m/modprobe.d"
	cp "$lpko" "$m/lib/$rel/updates/livepatch_compat_yield.ko"
	echo "options livepatch_compat_yield sched_compat_yield=1" >"$m/modprobe.d/livepatch-compat-yield.conf"
	echo livepatch_compat_yield >"$m/livepatch-compat-yield.conf"
	mount --bind "$m/lib" /lib/modules && mount --bind "$m/modprobe.d" /etc/modprobe.d &&
		depmod "$rel" && /lib/systemd/systemd-modules-load "$m/livepatch-compat-yield.conf" &&
		lp_on livepatch_compat_yield
	local rc=$?
	umount /etc/modprobe.d 2>/dev/null
	umount /lib/modules 2>/dev/null
	rm -rf "$m"
	return $rc
}
boot_recipe
br=$?
check "the boot recipe (modules-load.d, modprobe.d options sched_compat_yield=1, systemd-modules-load): status $br, knob $(cat $knob 2>/dev/null)" \
	test $br = 0 -a "$(cat $knob 2>/dev/null)" = 1
check "disabled and unloaded after the boot recipe" lp_off livepatch_compat_yield

# Loaded again, for the kselftests, with sysctl=1 (the guest's boot loads
# it without; make check runs no load cycle above): knob 0, enabled,
# transition done, the sysctl there and following the knob both ways.
check "loaded again (sysctl=1)" insmod "$lpko" sysctl=1
check "enabled again, every task patched" lp_on livepatch_compat_yield
sc=/proc/sys/kernel/sched_compat_yield
sysctl_follows() {
	local a b c
	a=$(cat $knob $sc 2>&1 | paste -sd ' ')
	echo 1 >$knob && b=$(cat $sc 2>&1)
	echo 0 >$sc && c=$(cat $knob 2>&1)
	echo "# knob and sysctl after loading: $a; the sysctl after a knob write of 1: $b; the knob after a sysctl write of 0: $c"
	[[ $a == "0 0" && $b == 1 && $c == 0 ]]
}
check "knob 0 after loading; kernel.sched_compat_yield there with sysctl=1, 0, and it follows the knob both ways" \
	sysctl_follows
check "knob file has the series' mode (0644)" \
	test "$(stat -c %a $knob)" = 644
check "the livepatch's vermagic is the running kernel's release" \
	test "$(modinfo -F vermagic "$lpko" | cut -d' ' -f1)" = "$(uname -r)"
