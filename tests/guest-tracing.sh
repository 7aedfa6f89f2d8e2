# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/guest-suite.sh in patched guests: runs the trace-cmd
# recipe of Documentation/tracing.md as written there (yield_stats loaded,
# which defines the sched:sched_yield_fair event on the kernel's bare
# sched_yield_fair_tp tracepoint; the yielder and the hog in two sessions,
# trace-cmd record of sched_yield_fair and sched_switch) and checks what
# the page says the report shows:
#   knob 1: every yield traced at level=1 while the hog runs beside it
#           (nr_running 2 or more; the yielder is alone in its autogroup,
#           so its group's entity yields; with nr_running=1, before the
#           hog runs, nothing competes: level=-1), nearly every one
#           with compat=1 (moved; compat=0 where the entity was not
#           eligible), its vruntime never moved backwards, and nearly every
#           one followed on its CPU by a switch away from the still runnable
#           yielder (effective);
#   knob 0: only compat=0 level=-1 events.
# A stall of the guest charged to the yielder leaves it not eligible at its
# next yield (compat=0), once per stall; on EEVDF one charged to the hog
# leaves it more lag than a compat yield gives up (picked again at once):
# in this guest, whose host can stall it, both shares ("nearly every one")
# are reported and SKIP; the one-CPU -icount guest judges the effective
# share (tests/starve-suite.sh, with yield_stats).
# Uses check/ok/not_ok/skip of tests/tap.sh and $knob, $SCY_BIN,
# $SCY_MODULE, $SCY_RESULTS of the suite.

# trace_report KNOB OUT [SECONDS]: record the recipe's run at KNOB (for
# SECONDS, 2 as on the page), report into OUT
trace_report() {
	local dat=/tmp/yield-$1.dat
	echo "$1" >$knob
	trace-cmd record -e sched:sched_yield_fair -e sched:sched_switch \
		-o "$dat" "$SCY_BIN/yield-share" -d "${3:-2}" -n 1 -p session -k keep \
		>"$2.record" 2>&1 &&
		trace-cmd report -i "$dat" >"$2" 2>"$2.err"
	local rc=$?
	rm -f "$dat"
	return $rc
}

if ! command -v trace-cmd >/dev/null; then
	plan 1
	skip "Documentation/tracing.md recipe" "trace-cmd is not installed"
elif [[ ! -f ${SCY_MODULE:-} ]]; then
	plan 1
	skip "Documentation/tracing.md recipe" "module/yield_stats.ko was not built"
elif ! insmod "$SCY_MODULE"; then
	plan 1
	not_ok "Documentation/tracing.md recipe: insmod yield_stats.ko"
else
	plan 8
	prior_knob=$(cat $knob)
	prior_ag=$(cat /proc/sys/kernel/sched_autogroup_enabled)
	echo 1 >/proc/sys/kernel/sched_autogroup_enabled
	R1=$SCY_RESULTS/tracing-knob1.txt R0=$SCY_RESULTS/tracing-knob0.txt
	check "tracing.md recipe at knob 1: trace-cmd record and report succeed" trace_report 1 "$R1"
	# Per CPU, the event after each compat yield: a switch away from the
	# yielder, which stays runnable (state R)?
	res=$(awk '
		{
			if (!match($0, /\[[0-9]+\]/))
				next
			cpu = substr($0, RSTART, RLENGTH)
		}
		/sched_yield_fair:/ {
			if (/ nr_running=1( |$)/) {
				# alone on the CPU: nothing to yield to
				if (/compat=0 level=-1 /)
					alone++
				else
					y0++
				pend[cpu] = ""
				next
			}
			if (/ level=1 /) {
				y1++
				if (/compat=1 level=1 /)
					m1++
				match($0, /pid=[0-9]+/)
				pend[cpu] = substr($0, RSTART + 4, RLENGTH - 4)
				match($0, /vruntime_before=[0-9]+/)
				b = substr($0, RSTART + 16, RLENGTH - 16)
				match($0, /vruntime_after=[0-9]+/)
				a = substr($0, RSTART + 15, RLENGTH - 15)
				# never backwards (an entity that is not eligible,
				# or already far enough behind, stays where it
				# is: compat=0); within 2^53
				# both are exact, a wrapped (negative) vruntime is
				# far beyond and counts as a failure
				if (a + 0 >= b + 0 && a + 0 < 2^53)
					fwd++
			} else {
				y0++
				pend[cpu] = ""
			}
			next
		}
		/sched_switch:/ {
			# "prev_comm:prev_pid [prio] R ==> next_comm:next_pid [prio]"
			split($0, side, "==>")
			if (pend[cpu] != "" && index(side[1], ":" pend[cpu] " [") &&
			    side[1] ~ / R *$/)
				eff++
			pend[cpu] = ""
			next
		}
		{ pend[cpu] = "" }
		END { printf "%d %d %d %d %d %d\n", y1, m1, y0, eff, fwd, alone }' "$R1")
	read -r y1 m1 y0 eff fwd alone <<<"$res"
	echo "# knob 1: $y1 events level=1 ($m1 of them compat=1), $y0 other; $eff followed by a switch away (R); vruntime not backwards in $fwd; $alone with the yielder alone on its CPU (nr_running=1, level=-1)"
	# yield-share's table: "guest stalls seen from CPU C: N, X ms ..."
	sline=$(grep 'guest stalls seen from CPU' "$R1.record")
	echo "# yield-share:${sline:- no stall probe}"
	stalled="guest time can stall here (${sline:-stalls not probed}); the share of effective compat yields is judged in the one-CPU -icount guest (yield_stats)"
	check "tracing.md, knob 1: yields traced at level=1 only while the hog runs ($y1; $y0 other)" \
		test "${y1:-0}" -gt 0 -a "${y0:-1}" = 0
	skip "tracing.md, knob 1: >= 90% of the level=1 yields with compat=1 ($m1 of $y1)" "$stalled"
	check "tracing.md, knob 1: vruntime_after >= vruntime_before in every event ($fwd of $y1)" \
		test "${fwd:-0}" = "${y1:-x}"
	skip "tracing.md, knob 1: >= 90% of the yields followed by a switch away from the yielder ($eff of $y1)" "$stalled"
	# knob 0: the stock yield returns at once, 181306 events in 2 s in
	# a guest of 6.12, slow to record and report under TCG; a fifth of
	# a second holds thousands, all the check needs
	check "tracing.md recipe at knob 0: trace-cmd record and report succeed" trace_report 0 "$R0" 0.2
	c0=$(grep -c 'sched_yield_fair:.*compat=0 level=-1 ' "$R0")
	c1=$(grep -c 'sched_yield_fair:.*compat=1' "$R0")
	echo "# knob 0: $c0 events compat=0 level=-1, $c1 compat=1"
	check "tracing.md, knob 0: yields traced with compat=0 level=-1 only" \
		test "$c0" -gt 0 -a "$c1" = 0
	echo "$prior_knob" >$knob
	echo "$prior_ag" >/proc/sys/kernel/sched_autogroup_enabled
	check "tracing.md: rmmod yield_stats removes the sched:sched_yield_fair event" \
		bash -c 'rmmod yield_stats && test ! -e /sys/kernel/tracing/events/sched/sched_yield_fair'
fi
