#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a one-CPU guest under QEMU -icount (tests/starve.sh), so that
# guest time is executed instructions and no host load shows up as a gap.
# With the knob at 1 (and at 0, for comparison), for SCY_STARVE_SECONDS each:
#   alone:    a task yielding in a loop, alone, gets >= 90% of the CPU;
#   sleepers: with 2 tasks that run 1 ms and sleep 3 ms, the yielder gets
#             >= 90% of the time they leave;
#   probe:    a task that never yields, sharing the CPU with 3 yielders,
#             never waits longer than one scheduling period (6.1: the
#             latency sysctl; 6.12: base slice x runnable tasks; at least
#             one tick). Checked at knob 1 only: at knob 0 the yield is the
#             stock one, and stock 6.1 fails it (reported).
# Then the kselftest compat_yield_latency (time away per sched_yield()
# next to a hog and a light task, the oversleep after a yield, the empty
# yields next to a sleeping sibling), whose p99 comparisons need a guest
# clock free of host load; compat_yield_share's baselines (CPU time split
# 50/50 between two busy loops); and the contract over the matrix's cells
# (compat_yield_matrix), its time away judged against the contract's
# bound, G1 and the CPU shares, all of which host load would move
# elsewhere: the default set but its migrate cells (one CPU; each task
# placed on its own, autogroups on and off, among them), its cgroup
# and nested cells without a flip in the opt-in form (-O), and the cells
# of the full product that witness the size of the move (tests/tap.sh).
set -u
: "${SCY_BIN:?}" "${SCY_KVER:?}" "${SCY_STARVE_SECONDS:=2}"
S=$SCY_BIN/tests/starve
knob=/sys/kernel/sched_compat_yield
D=$SCY_STARVE_SECONDS
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# The plan: the knob, 5 checks at knob 1 and 4 at knob 0, the kselftest,
# its time away beside the hog alone at knob 1, compat_yield_share's
# baselines, the matrix's six runs (three with groups at 1: -O, -O -R,
# -R), yield_stats' effective yields (2).
plan 21
echo "# starvation guest: kernel $(uname -r), $(nproc) CPU(s)"
check "knob present" test -w $knob
dbg=/sys/kernel/debug/sched
tick_ms=$(guest_tick_ms)
if [[ -r $dbg/latency_ns ]]; then
	period_ms=$(awk -v l="$(cat $dbg/latency_ns)" 'BEGIN { print l / 1e6 }')
	what="sched latency"
else
	period_ms=$(awk -v b="$(cat $dbg/base_slice_ns)" 'BEGIN { print 4 * b / 1e6 }')
	what="4 x base slice"
fi
ge "$period_ms" "$tick_ms" || period_ms=$tick_ms
echo "# scheduling period: $period_ms ms ($what; one tick is $tick_ms ms)"

for k in 1 0; do
	echo $k >$knob
	r=$("$S" alone -d "$D" -c 0)
	echo "# knob $k: $r"
	check "knob $k: a lone yielder gets >= 90% of the CPU ($(field share0 "$r"))" \
		ge "$(field share0 "$r")" 0.90
	r=$("$S" sleepers -n 2 -d "$D" -c 0)
	echo "# knob $k: $r"
	left=$(awk -v o="$(field others "$r")" 'BEGIN { print 0.9 * (1 - o) }')
	check "knob $k: with sleeping rivals the yielder gets >= 90% of what they leave ($(field share0 "$r") >= $left)" \
		ge "$(field share0 "$r")" "$left"
	check "knob $k: the sleepers made progress" test "$(field all_progressed "$r")" = 1
	r=$("$S" probe -n 3 -d "$D" -c 0)
	echo "# knob $k: $r"
	if [[ $k == 1 ]]; then
		check "knob 1: a non-yielding task waits at most one period behind 3 yielders ($(field max_gap_ms "$r") <= $period_ms ms)" \
			ge "$period_ms" "$(field max_gap_ms "$r")"
	else
		# The default yield is the stock kernel's: on 6.1 the yielders
		# keep their fair share and the probe waits several slices.
		echo "# knob 0 (stock yield, not checked): the probe got $(field share0 "$r") of the CPU, waited at most $(field max_gap_ms "$r") ms"
	fi
	check "knob $k: the yielders made progress" test "$(field all_progressed "$r")" = 1
done
echo 0 >$knob
run_kselftest "$SCY_BIN/selftests" compat_yield_latency -d "${SCY_LATENCY_SECONDS:-2}" \
	-o "$SCY_RESULTS/latency-$SCY_KVER.csv"
# One CPU, a nice-0 hog and nothing else: a compat yield waits for the
# hog's turn, which ends at the next tick (hog_alone_p50, tests/tap.sh).
hog_alone_p50 "$SCY_RESULTS/latency-$SCY_KVER.csv" "$tick_ms"
# compat_yield_share's baselines, two busy loops that split the CPU time
# 50/50 at either knob value: their CPU share is judged here, where a
# stall of the host charges no worker (the plain guests run the rest of
# compat_yield_share with -U).
run_kselftest "$SCY_BIN/selftests" compat_yield_share -B -d "$D"
# The matrix's default cells but the migrate ones, 0.6-s windows: here
# guest time is executed instructions, so time is judged (no -U). With
# SCY_MATRIX=full (make check-full) the full product's.
run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -d 0.6 \
	-c 'event=(none|nice-flip|policy-flip|weight-flip|idle-flip|sleep-wake|long-slice|sibling)$' \
	-o "$SCY_RESULTS/matrix-$SCY_KVER.csv"
# The opt-in form (-O): the machine's switch stays 0 and the knob-1
# windows set cpu.compat_yield of the yielder's job group, beside its
# rivals' group; judged as at knob 1, in the cells of a cgroup and of a
# Slurm-deep tree without a flip (a rival that sleeps, a light sibling).
run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -O -d 0.6 \
	-c '^[0-9]+ (cgroup|nested) .*event=(none|sleep-wake|sibling)$' \
	-o "$SCY_RESULTS/matrix-optin-$SCY_KVER.csv"
# The rivals' group opted in as well (-O -R): judged as at knob 1. Only
# the rivals' group (-R): the yielder outside every group at 1, beside one
# that is, judged against its knob-0 window (G5): time away within a tick,
# as many yields that return at once, at least half its loop share.
run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -O -R -d 0.6 \
	-c '^[0-9]+ (cgroup|nested) .*event=(none|sleep-wake|sibling)$' \
	-o "$SCY_RESULTS/matrix-optin-both-$SCY_KVER.csv"
run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -R -d 0.6 \
	-c '^[0-9]+ (cgroup|nested) .*event=(none|sleep-wake|sibling)$' \
	-o "$SCY_RESULTS/matrix-outside-$SCY_KVER.csv"
# The full product's cells that witness the size of the move (tests/tap.sh;
# the faults stage shows them red with a move uncapped or doubled): a
# nice-19 rival with a 100-ms slice beside a nice -10 or nice-0 hog, whose
# turns leave the yielder more lag than a turn of each rival; two or three
# nice -10 rivals in the yielder's group.
run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -F -d "$LONG_SLICE_SECONDS" \
	-c "$LONG_SLICE_CELLS" -o "$SCY_RESULTS/matrix-long-slice-$SCY_KVER.csv"
run_kselftest "$SCY_BIN/selftests" compat_yield_matrix -F -d 0.6 \
	-c "$HEAVY_RIVALS_CELLS" -o "$SCY_RESULTS/matrix-heavy-rivals-$SCY_KVER.csv"
# yield_stats' effective yields, judged here where a stall cannot move
# them (tests/tap.sh)
effective_yields "${SCY_MODULE:-}"
