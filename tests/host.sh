#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side checks: the series against its single sources of truth (root
# Kconfig, sysfs-abi/), patch hygiene, that the series applies to Debian's
# trees with patch(1) and git apply, the repo's own hygiene, that the
# tools build without warnings and reject bad input, and that the module
# builds against Debian's linux-headers and with DKMS. TAP output.
set -uo pipefail
cd "$(dirname "$0")/.."
. vm/lib.sh

. tests/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# added_file PATCH PATH: the content a patch gives a file it creates.
added_file() {
	awk -v path="$2" '
		/^diff --git / { on = ($3 == "a/" path) }
		on && /^@@/ { body = 1; next }
		on && body && /^\+/ { print substr($0, 2) }
	' "$1"
}
# added_lines PATCH PATH: the lines a patch adds to an existing file.
added_lines() { added_file "$@"; }

# Bad input for the tools and the benchmarks' guest parts: TOOL|EXIT|ARGS,
# one case a line. TOOL is a binary built below (under $tmp/bin) or a
# bench/ script; EXIT is 2, or "non-zero" where the tool's option parser
# chooses the status. Each must exit so and say why on stderr, before
# touching anything.
refusals="tests/knob-fuzz|2|
tests/knob-fuzz|2|fuzz -n 0
tests/knob-fuzz|2|fuzz -n x
tests/knob-fuzz|2|toggle
tests/knob-fuzz|2|toggle -d 0
tests/knob-fuzz|2|nonroot extra
tests/knob-fuzz|2|spin
tests/knob-fuzz|2|storm -p 1
tests/knob-fuzz|2|storm -p 65
tests/knob-fuzz|2|storm -n 0
tests/knob-fuzz|2|storm -r x
tests/knob-fuzz|2|storm extra
selftests/compat_yield_matrix|non-zero|-l -c no-such-cell
tests/starve|2|
tests/starve|2|alone -n 2
tests/starve|2|probe -n 0
tests/starve|2|sleepers -d x
tests/starve|2|probe -c -1
tests/starve|2|nap
tests/churn|2|
tests/churn|2|policy
tests/churn|2|policy -d 0
tests/churn|2|cgroup -d x
tests/churn|2|policy -d 1 -c /tmp
tests/churn|2|move -d 1
tests/yield-loop|2|-p fifo
tests/yield-loop|2|-d 0
tests/yield-loop|2|-H 17
tests/yield-loop|2|-c x
tests/yield-loop|2|-s extra
tests/yield-loop|2|-g
tests/yield-loop|non-zero|-H 1 -g /nonexistent -d 1
bench/cost/guest.sh|2|-r 0
bench/cost/guest.sh|2|-d 0
bench/cost/guest.sh|2|extra
bench/cost/group-guest.sh|2|-r 0
bench/cost/group-guest.sh|2|extra
yield-top|2|-n 0
yield-top|2|-c 3
yield-top|2|-i 0
yield-top|2|extra
yield-top|non-zero|-f /nonexistent
bench/module/guest.sh|2|
bench/module/guest.sh|2|-m tests/host.sh -R x
bench/mpi/guest.sh|2|-n x
bench/mpi/guest.sh|2|-D -1
bench/mpi-all/guest.sh|2|-r 1000
bench/pingpong/guest.sh|2|-F fig3
bench/pingpong/guest.sh|2|-F fig2 -n 0
bench/cost/knoboff-guest.sh|2|-l 0 -o /dev/null
bench/cost/knoboff-guest.sh|2|-r 2
bench/jobs/guest.sh|2|-r 0
bench/placement/guest.sh|2|results/bin /dev/null 0 8
bench/placement/guest.sh|2|results/bin /dev/null 3 0.5
bench/jobs/guest.sh|2|-w 5
bench/jobs/guest.sh|2|-P nowhere
bench/jobs/guest.sh|2|-R nothing
bench/jobs/guest.sh|2|-R openmpi-slurm -P cgroup
yield-share|non-zero|-d -1
yield-share|non-zero|-d abc
yield-share|non-zero|-p nowhere
yield-share|non-zero|-n -2
yield-share|non-zero|-m sleep
yield-share|non-zero|-k 2
yield-share|non-zero|-f xml
yield-share|non-zero|--bogus
pingpong|2|-S spin
pingpong|2|-s 0
pingpong|2|-s 8388609
pingpong|2|-D -1
pingpong|2|-n abc
pingpong|2|-p three
pingpong|2|--rank0-wait spin
pingpong|2|--bogus
cpu-work|2|-d 0
cpu-work|2|-u x
cpu-work|2|-c -1
cpu-work|2|-W 5
cpu-work|2|-r $tmp/none
cpu-work|2|extra
cpu-work|2|-U 0 -W 1,2
cpu-work|2|-U 5 -d 1
cpu-work|2|-R 1
job-gomp|2|-n 0
job-gomp|2|-w 7
job-gomp|2|-N a=b
job-gomp|2|extra"
pp_strategies="poll yield block adaptive sleep"
pp_reports=(Documentation/results/pingpong-fig[0-9].md Documentation/results/pingpong-tcg-fig[0-9].md)

# The plan, counted from what the checks below go through: per series
# 8 checks and 2 per patch; 3 on the ABI entry and the repository; 3
# builds; a refusal each; the ping-pong strategies and rank 0's wait;
# cpu-work's 4; yield-backoff.so's 2; 2 per MPI library; the module's 3 (W=1, DKMS install and
# remove); links and variables; the latency report, one per ping-pong
# report and the ping-pong and MPI pages that show reports, the livepatch
# page's cost and share tables and the check report; a relative RESULTS
# made absolute by vm/lib.sh and by the Makefile; kernel reports read from
# a pipe, 2; the checks' machinery, 3, and how a plan of no tests and
# a skipped kselftest count, the matrix's judge on synthetic windows and
# the EEVDF bound in a model, the stalls check in a model, machinery_counts;
# the jobs tables of the results
# page and the results index, 2; the neutrality page's table and the costs page's scaling table, 2; the prose figures and two injected faults, 3; the results index's list of pages, the reliability page's counts and the costs page's group tables, 3; livepatch/extract.py and a stock variable, 1;
# bench-jobs' refusals to mix runs and the .info of an appended CSV, 3;
# one per matrix page (bench-matrix's default run, -icount, the full
# product); the placement report and the shares page
# that shows it, where there is one, and the cgroup-root placement's
# report; the share tables of the shares and
# livepatch pages, 2.
machinery_counts=5
# livepatch/compat-yield-check's cases (cyc_case below): STATUS|TEXT|KNOB|
# CMDLINE|OPTION|INSTALLED|LOADED, the status and the text it must print
cyc_cases="0|reads 1 on kernel .*, as the modprobe option of livepatch_compat_yield says|1|quiet|1|1|0
1|reads 0 on kernel .*, the modprobe option of livepatch_compat_yield says 1|0|quiet|1|1|0
1|reads 0 on kernel .*, the kernel command line says 1|0|quiet sched_compat_yield=1|-|0|0
0|reads 0 on kernel .*, as the default says|0|quiet|-|0|0
1|is missing on kernel .*: livepatch_compat_yield is installed for .* but did not load|-|quiet|1|1|0
1|is missing on kernel .*: no livepatch_compat_yield is installed for .*: build it for this kernel|-|quiet|1|0|0
1|is missing on kernel .*: livepatch_compat_yield is loaded but its patch is not enabled|-|quiet|1|1|1"
cyc_count=$(grep -c . <<<"$cyc_cases")
# livepatch/compat-yield-postinst's cases (cpi_case below): TEXT|LOAD|OPTION|
# BUILT, the text it must print (- none) on either stream; LOAD a file of
# modules-load.d that names the module, or -; OPTION 1 when modprobe's
# configuration has options for it; BUILT 1 when the new kernel has a build
cpi_cases="^compat-yield: no build of livepatch_compat_yield is installed for kernel 9.9.9-test, which this host loads at boot \(/etc/modules-load.d/lp.conf\)|lp.conf|0|0
^compat-yield: no build of livepatch_compat_yield is installed for kernel 9.9.9-test, which this host loads at boot \(modprobe's options for livepatch_compat_yield\)|-|1|0
^compat-yield: livepatch_compat_yield is installed for kernel 9.9.9-test \(/lib/modules/9.9.9-test/updates/livepatch_compat_yield.ko\)|lp.conf|1|1
-|-|0|0"
cpi_count=$(grep -c . <<<"$cpi_cases")
matrix_pages=()
for md in Documentation/results/matrix.md Documentation/results/matrix{-icount,-full}/matrix.md; do
	[[ -f $md ]] && matrix_pages+=("$md")
done
placement_page=0
[[ ! -f Documentation/results/placement.csv ]] || placement_page=2
[[ ! -f Documentation/results/placement-cgroup-root/placement.csv ]] || placement_page=$((placement_page + 1))
planned=0
for pdir in kernel-patches/v*/; do
	planned=$((planned + 8 + 2 * $(series_patches "${pdir%/}" | wc -l)))
done
plan $((planned + 3 + 3 + $(grep -c . <<<"$refusals") + $(wc -w <<<"$pp_strategies") + 1 + 4 + 2 * 2 + 3 + 2 +
	1 + ${#pp_reports[@]} + 2 + 1 + 2 + 3 + 2 + 2 + 3 + 2 + 1 + 1 + 3 + ${#matrix_pages[@]} + 1 + 2 + placement_page + 2 +
	machinery_counts + cyc_count + cpi_count + 3 + 1 + 1 + 1 + 1 + 1))

for pdir in kernel-patches/v*/; do
	v=$(basename "$pdir")
	kver=${v#v}
	patches=$(series_patches "${pdir%/}" | sed 's#.*/##')
	check "$v: series lists every patch file" \
		test "$(ls "$pdir" | grep -E '^0*[1-9][0-9]*-.*\.patch$')" = "$patches"
	check "$v: has a cover letter" test -f "$pdir/0000-cover-letter.patch"
	for p in $patches; do
		f=$pdir/$p
		check "$v/$p: Signed-off-by" grep -q '^Signed-off-by: .* <.*@.*>' "$f"
		body=$(awk '/^Subject:/ { s = 1; next } s && /^---$/ { exit } s && NF { n++ } END { print n + 0 }' "$f")
		check "$v/$p: commit message has a body ($body lines)" test "$body" -ge 4
	done
	kpatch=$(grep -l '^+++ b/init/Kconfig' $(sed "s#^#$pdir#" <<<"$patches") | head -1)
	check "$v: the series adds exactly the root Kconfig text to init/Kconfig" \
		diff <(added_lines "$kpatch" init/Kconfig | sed '${/^$/d}') Kconfig
	apatch=$(grep -l 'sysfs-kernel-sched_compat_yield' $(sed "s#^#$pdir#" <<<"$patches") | head -1)
	# the same entry, with the series' own kernel version
	check "$v: Documentation/ABI entry is sysfs-abi/sysfs-kernel-sched_compat_yield (KernelVersion $kver)" \
		diff <(added_file "$apatch" Documentation/ABI/testing/sysfs-kernel-sched_compat_yield) \
		<(sed "s/^KernelVersion:\t.*/KernelVersion:\t$kver/" sysfs-abi/sysfs-kernel-sched_compat_yield)
	# The cover letter's figures are those the committed CSVs give
	# (kernel-patches/tools/cover-figures.py; export-series.sh puts them in).
	figures=$(python3 kernel-patches/tools/cover-figures.py "$kver" 2>&1)
	check "$v: the cover letter's figures are the CSVs' (kernel-patches/tools/cover-figures.py $kver; stale: run kernel-patches/tools/export-series.sh $kver)" \
		python3 -c 'import sys; sys.exit(open(sys.argv[1]).read().find(sys.argv[2]) < 0)' \
		"$pdir/0000-cover-letter.patch" "$figures"

	spatch=$(grep -l '^+++ b/tools/testing/selftests/sched_compat_yield/' $(sed "s#^#$pdir#" <<<"$patches") | head -1)
	differ=$(for f in $(git ls-files selftests/sched_compat_yield); do
		added_file "$spatch" "tools/testing/$f" | cmp -s - "$f" || echo "${f##*/}"
	done)
	check "$v: the series adds exactly selftests/sched_compat_yield${differ:+ (differs: $differ; run kernel-patches/tools/selftests-commit.sh $kver)}" \
		test -n "$spatch" -a -z "$differ"

	# Apply to a copy of the touched files of Debian's tree, both ways.
	ref=$(ref_tree "$kver")
	files=$(series_files $(sed "s#^#$pdir#" <<<"$patches"))
	for how in patch git; do
		d=$tmp/$kver-$how
		mkdir -p "$d"
		for f in $files; do
			[[ -f $ref/$f ]] && install -D -m 644 "$ref/$f" "$d/$f"
		done
		good=1
		for p in $patches; do
			if [[ $how == patch ]]; then
				patch -d "$d" -p1 -s -f --dry-run <"$pdir/$p" >/dev/null &&
					patch -d "$d" -p1 -s -f <"$pdir/$p" >/dev/null || good=0
			else
				(cd "$d" && git apply --check "$SCY_REPO/$pdir/$p" &&
					git apply "$SCY_REPO/$pdir/$p") || good=0
			fi
		done
		check "$v: series applies to Debian $(debian_version "$kver") with $how" test $good = 1
	done
done

check "sysfs-abi: entry has the Documentation/ABI fields" \
	bash -c 'for k in What: Date: KernelVersion: Contact: Description: Users:; do
		grep -q "^$k" sysfs-abi/sysfs-kernel-sched_compat_yield || exit 1; done'

# Repository hygiene
srcs=$(git ls-files | grep -E '(\.(c|h|sh|gp|config|py|pl|awk)|Makefile|/run|guest-init)$')
missing=$(for f in $srcs; do head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' || echo "$f"; done)
check "every source file has an SPDX GPL-2.0 header${missing:+ (missing: $missing)}" test -z "$missing"
abs=$(git grep -lE '(^|[[:space:]"'\''=:(])/(root|home|work)/[A-Za-z]' -- . ':!LICENSE' ':!tests/host.sh' || true)
check "no absolute paths of this machine in the repo${abs:+ ($abs)}" test -z "$abs"

# Tools: warning-free builds, clear errors on bad input
make -s -C userspace clean >/dev/null 2>&1
if out=$(make -s -C userspace OUTPUT="$tmp/bin" 2>&1); then
	check "userspace builds with -Wall -Wextra and no warnings${out:+: $out}" test -z "$out"
else
	not_ok "userspace builds: $out"
fi
if out=$(bash vm/build-selftests.sh "$tmp/bin" 2>&1 >/dev/null); then
	check "selftests build with no warnings${out:+: $out}" lacks "$out" warning:
else
	not_ok "selftests build: $out"
fi
if out=$(make -s -C tests/tools OUTPUT="$tmp/bin/tests" 2>&1 &&
	gcc -O2 -Wall -Wextra -o "$tmp/bin/tsc-khz" vm/tsc-khz.c 2>&1); then
	check "tests/tools and vm/tsc-khz.c build with -Wall -Wextra and no warnings${out:+: $out}" test -z "$out"
else
	not_ok "tests/tools and vm/tsc-khz.c build: $out"
fi
# The matrix's judge on synthetic windows: its limits come from the
# contract's bound and knob 0, never from the knob-1 window they judge
# (tests/tools/contract-check.c; its TAP nested).
contract_block() { "$tmp/bin/tests/contract-check"; }
subtest "the matrix's judge, compiled here: limits from the bound and knob 0 stay put while only knob-1 samples grow, and the cell fails" \
	contract_block
# The EEVDF bound against a tick-level model of the pick with the compat
# yield (tests/contract-model.py), every rival list of the matrix.
model_block() { python3 tests/contract-model.py "$tmp/bin/tests/contract-check"; }
subtest "the EEVDF bound holds in a tick-level model of the pick with the compat yield" model_block
# The stalls stage's check that -S keeps a genuine wait, in a model of a
# guest stopped by the host (tests/stalls-model.py).
subtest "the stalls stage's check that -S keeps a genuine wait holds in a model of a stopped guest, and fails on -S that takes out whole samples" \
	python3 tests/stalls-model.py
# tests/tick-excess.py on a made-up dump: a window's first sample left out,
# one sample in each bin of excess past the ticks, the last one a window's
# last, a knob-0 window and samples under half a tick not counted.
printf '%s\n' 'cell,window,knob,samples_us' '3,k0,0,9000.0 8500.0' \
	'3,k1,1,7000.0 8050.0 1000.0 8150.0 4300.0 12900.0' >"$tmp/excess.D"
printf '%s\n' 'cell,event' '3,policy-flip' >"$tmp/excess.csv"
out=$(python3 tests/tick-excess.py 4000 "$tmp/excess.D:$tmp/excess.csv" | tail -n 1 | cut -d, -f2-)
check "tick-excess.py counts the knob-1 samples past their ticks by bin (got '$out')" \
	test "$out" = "policy-flip,1,4,1,1,1,1,300.0,1"
while IFS='|' read -r tool want args; do
	case $tool in
	bench/*) cmd=(bash "$tool") ;;
	*) cmd=("$tmp/bin/$tool") ;;
	esac
	# shellcheck disable=SC2086
	err=$("${cmd[@]}" $args 2>&1 >/dev/null)
	rc=$?
	if [[ $want == 2 ]]; then
		check "${tool#tests/} ${args:-(no arguments)}: exit status 2 ($rc) with a message" \
			test $rc -eq 2 -a -n "$err"
	else
		check "${tool#tests/} ${args:-(no arguments)}: exit status non-zero ($rc) with a message" \
			test $rc -ne 0 -a -n "$err"
	fi
done <<<"$refusals"
pp=$tmp/bin/pingpong
for st in $pp_strategies; do
	out=$("$pp" -S $st -p one -n 200 -w 20 -D 0 -f kv 2>&1)
	rc=$?
	if grep -q 'iterations=200' <<<"$out"; then
		ok "pingpong -S $st -p one: 200 ping-pongs reported"
	else
		not_ok "pingpong -S $st -p one: 200 ping-pongs reported"
		echo "# exit status $rc: ${out:0:300}"
	fi
done
out=$("$pp" -S yield --rank0-wait same -p one -n 200 -w 20 -D 0 -f kv 2>&1)
check "pingpong --rank0-wait same: rank 0 waits with yield" grep -q 'rank0_wait=yield' <<<"$out"
# cpu-work: its own records, and that SCHED_IDLE really yields
# the CPU to a normal task (same CPU: while the idle one runs, -d 1, it
# gets < 10% of the CPU time the normal one gets meanwhile; weights 3 and
# 1024 give about 0.3%). The normal one runs first and until the idle
# one is done (stopped then), so that a busy host delaying either start or
# end does not give the idle one the CPU alone.
cw=$tmp/bin/cpu-work
c=$(( $(nproc) - 1 ))
"$cw" -c $c -d 60 >/dev/null &
normal_pid=$!
sched_ns() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
until [[ $(sched_ns $normal_pid) -gt 0 ]] || ! kill -0 $normal_pid 2>/dev/null; do :; done
n0=$(sched_ns $normal_pid)
"$cw" -c $c -i -d 1 -l "$tmp/cw-idle.log" >"$tmp/cw-idle.out"
n1=$(sched_ns $normal_pid)
kill $normal_pid
wait $normal_pid 2>/dev/null
idle_cpu=$(sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' "$tmp/cw-idle.out")
normal_cpu=$((n1 - n0))
check "cpu-work -i (SCHED_IDLE) gets < 10% of a normal task's CPU on one CPU (${idle_cpu:-?} vs ${normal_cpu:-?} ns, while the idle one ran)" \
	test -n "$idle_cpu" -a "${normal_cpu:-0}" -gt 0 -a $(( ${idle_cpu:-1} * 10 )) -lt "${normal_cpu:-0}"
t0=$(head -n 1 "$tmp/cw-idle.log" | cut -d' ' -f1)
units=$(sed -n 's/.*units=\([0-9]*\) .*/\1/p' "$tmp/cw-idle.out")
out=$("$cw" -r "$tmp/cw-idle.log" -W "$((t0 + 100000000)),$((t0 + 600000000))")
check "cpu-work -r -W: a 0.5 s window of its records, no more units than in all ($out; $units)" \
	awk -v o="$out" -v u="${units:-0}" 'BEGIN { split(o, a, /[ =]/); exit !(a[6] == 500000000 && a[2] >= 0 && a[2] <= u) }'
# cpu-work -U: a window's CPU time counted by its work (win_run_ns), where
# the accounted CPU time lags by a tick. Records of 25-us units with a 2-ms
# wait after every 40th, CPU time accounted in 4-ms steps; the window holds
# 100 units, 2.5 ms of running, and no step of the accounting.
awk 'BEGIN { t = 1000000000; run = 0; acct = 0
	for (u = 0; u < 400; u++) {
		print t, acct, u; t += 25000; run += 25000
		if (u % 40 == 39) t += 2000000
		if (run - acct >= 4000000) acct += 4000000 } }' >"$tmp/cw-synth.log"
out=$("$cw" -r "$tmp/cw-synth.log" -W 1003250000,1009750000 -U 25000)
check "cpu-work -r -W -U: win_run_ns counts the 2.5 ms of running in a window shorter than the accounting's step ($out)" \
	grep -q '^win_units=100.0 win_cpu_ns=0 .* win_run_ns=2500000$' <<<"$out"
# cpu-work -R: a co-runner that fills its records works on, keeping the
# last RECORDS: it runs its whole -d, the file holds RECORDS consecutive
# units ending at its total, and a window inside them reads back
"$cw" -u 64 -d 1 -R 1000 -l "$tmp/cw-ring.log" >"$tmp/cw-ring.out" 2>"$tmp/cw-ring.err"
rc=$?
units=$(sed -n 's/.*units=\([0-9]*\) .*/\1/p' "$tmp/cw-ring.out")
wall=$(sed -n 's/.*wall_ns=\([0-9]*\) .*/\1/p' "$tmp/cw-ring.out")
ring=$(awk 'NR == 1 { f = $3 } { l = $3 } END { print NR, f, l }' "$tmp/cw-ring.log")
out=$("$cw" -r "$tmp/cw-ring.log" -W "$(sed -n '100s/ .*//p' "$tmp/cw-ring.log"),$(sed -n '900s/ .*//p' "$tmp/cw-ring.log")" 2>&1)
check "cpu-work -R 1000: works its whole second past 1000 records and keeps the last 1000 (status $rc, wall_ns ${wall:-?}, units ${units:-?}; records, first and last unit: $ring; a window of them: $out)" \
	bash -c '[[ $1 == 0 && ${2:-0} -ge 1000000000 && ${3:-0} -gt 1000 && $4 == "1000 $(($3 - 999)) $3" && $5 == win_units=800.0\ * ]]' - "$rc" "$wall" "$units" "$ring" "$out"
# cpu-work's records leave the scheduler alone: reading CLOCK_THREAD_CPUTIME_ID
# on the running task runs update_curr(), which on EEVDF hands the CPU on at
# the end of the slice, not at a tick, as a program that only computes does;
# CLOCK_MONOTONIC comes from the vDSO, so no clock_gettime() call at all
calls=$(strace -f -c -e trace=clock_gettime,getrusage "$cw" -c $c -d 1 2>&1 >/dev/null |
	awk '$NF == "clock_gettime" || $NF == "getrusage" { printf "%s%s=%s", s, $NF, $4; s = " " }')
check "cpu-work reads its CPU time without clock_gettime() (strace: ${calls:-no such calls})" \
	bash -c '[[ $1 != *clock_gettime* && $1 == *getrusage=* ]]' - "$calls"
# yield-backoff.so: sched_yield() becomes a sleep of STEP, 2 STEP, ... up
# to MAX within one wait, STEP again after a call more than GAP after the
# previous one; the kernel's sched_yield() is never called. Four calls in
# a row, a pause longer than GAP, one more (GAP 1 s: a busy host does not
# stretch a loop step so far).
bo=$tmp/bin/yield-backoff.so
sleeps=$(YIELD_BACKOFF_STEP_US=1000 YIELD_BACKOFF_MAX_US=2500 YIELD_BACKOFF_GAP_US=1000000 \
	strace -E LD_PRELOAD="$bo" -e trace=sched_yield,clock_nanosleep,nanosleep \
	python3 -c 'import os, time; [os.sched_yield() for _ in range(4)]; time.sleep(1.1); os.sched_yield()' 2>&1 |
	awk '/^sched_yield/ { printf "%syield", s; s = " " }
	     /^(clock_)?nanosleep\(CLOCK_REALTIME, 0,|^nanosleep\(/ { sub(/.*tv_nsec=/, ""); sub(/}.*/, ""); printf "%s%s", s, $0; s = " " }')
check "yield-backoff.so sleeps 1, 2, 2.5, 2.5 ms in one wait and 1 ms after a pause, never yields (strace: ${sleeps:-nothing})" \
	test "$sleeps" = "1000000 2000000 2500000 2500000 1000000"
out=$(YIELD_BACKOFF_MAX_US=0 LD_PRELOAD="$bo" python3 -c 'import os; os.sched_yield(); print("ran")' 2>&1)
rc=$?
check "yield-backoff.so refuses YIELD_BACKOFF_MAX_US=0 before the program runs (exit status $rc: ${out:0:120})" \
	bash -c '[[ $1 == 2 && $2 == *YIELD_BACKOFF_MAX_US* && $2 != *ran* ]]' - "$rc" "$out"
# The MPI ping-pong with pairs of ranks, with each MPI library installed
for lib in openmpi mpich; do
	mp=$tmp/bin/mpi-pingpong-$lib
	if [[ ! -x $mp ]]; then
		fail_to $((n + 2)) "mpi-pingpong-$lib is built (run make deps: mpicc.$lib)"
		continue
	fi
	run=(mpirun.mpich -launcher fork)
	[[ $lib == openmpi ]] && run=(mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none)
	out=$(timeout 120 "${run[@]}" -np 4 "$mp" -n 50 -w 5 -D 0 -o "$tmp/mp-$lib.txt" 2>&1)
	check "mpi-pingpong-$lib, 4 ranks: 2 pairs x 50 samples, a time window${out:+ ($(grep mean_us <<<"$out"))}" \
		awk -v o="$(grep '^mean_us=' <<<"$out")" -v n="$(wc -l <"$tmp/mp-$lib.txt")" \
			'BEGIN { if (split(o, a, /[ =]/) < 20) exit 1; exit !(a[16] == 4 && a[10] == 50 && n == 100 && a[20] > a[18]) }'
	timeout 60 "${run[@]}" -np 3 "$mp" -n 5 >/dev/null 2>&1
	rc=$?
	check "mpi-pingpong-$lib refuses 3 ranks (exit status $rc)" test $rc -ne 0 -a $rc -ne 124
done
# The module against Debian's installed linux-headers (vm/deps.sh installs
# linux-headers-amd64 and dkms): a W=1 build, then DKMS add, build, install
# and remove with module/dkms.conf, all in private trees under $tmp
# (--no-depmod, signing key in $tmp): the system is left as it was.
hdrs=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
if [[ -n $hdrs && -f $hdrs/Makefile ]]; then
	krel=${hdrs#/usr/src/linux-headers-}
	out=$(bash vm/build-module.sh "$hdrs" "$tmp/module-debian" "linux-headers-$krel")
	case $? in
	0 | 1) check "module builds against Debian's linux-headers-$krel with W=1 and no warnings" test -z "$out" ;;
	*) not_ok "module builds against Debian's linux-headers-$krel" ;;
	esac
	[[ -z $out ]] || echo "$out"
	. tests/dkms.sh
	if command -v dkms >/dev/null 2>&1 && [[ -n $DKMS_NAME && -n $DKMS_VER ]]; then
		dkms_install "$tmp/dkms" "$krel"
		# Debian compresses the modules of its newer kernels (.ko.xz)
		check "dkms add, build and install $DKMS_NAME/$DKMS_VER for $krel with module/dkms.conf" \
			bash -c 'ls "$1"/yield_stats.ko* >/dev/null 2>&1' _ "$tmp/dkms/inst/$krel/updates/dkms"
		check "dkms remove $DKMS_NAME/$DKMS_VER leaves no module behind" \
			dkms_uninstall "$tmp/dkms" "$krel"
	else
		fail_to $((n + 2)) "dkms is installed and module/dkms.conf names the package (run make deps)"
	fi
else
	fail_to $((n + 3)) "Debian's linux-headers-amd64 is installed (run make deps)"
fi
links=$(python3 tests/mdlinks.py .)
check "Markdown links resolve: $(tail -n 1 <<<"$links")$(grep -m 3 'broken link' <<<"$links" | sed 's/^/; /' | tr -d '\n')" \
	grep -q ', 0 broken$' <<<"$links"
# livepatch/extract.py on a small fair.c: the branch the config selects,
# the definitions a change touches, and a name it cannot find.
lx=$tmp/extract
mkdir -p "$lx/out"
printf 'CONFIG_A=y\n' >"$lx/config"
cat >"$lx/stock.c" <<'EOF2'
#ifdef CONFIG_A
/* a helper */
static int helper(int x)
{
	return x + 1;
}
#else
static int helper(int x)
{
	return x;
}
#endif
static void other(void);
static int kept(void) { return 0; }
static int counter;
static void other(void)
{
}
EOF2
sed 's/return x + 1;/return x + 2;/' "$lx/stock.c" >"$lx/fair.c"
printf 'static int helper(int x);\n' >"$lx/sched.h"
printf 'copy helper\nklp other\n' >"$lx/list"
check "livepatch/extract.py copies the definition under the configured branch, with its comment and #line" \
	bash -c 'python3 livepatch/extract.py "$1/config" "$1/fair.c" "$1/sched.h" "$1/list" "$1/out" &&
		grep -qx "#line 2 \"kernel/sched/fair.c\"" "$1/out/compat_yield.c" &&
		grep -q "return x + 2;" "$1/out/compat_yield.c" && ! grep -q "return x;" "$1/out/compat_yield.c" &&
		grep -qx "extern void other(void) __weak;" "$1/out/klp-syms.h"' - "$lx"
check "livepatch/extract.py --changed names what differs and nothing else" \
	test "$(python3 livepatch/extract.py --changed "$lx/config" "$lx/stock.c" "$lx/fair.c")" = helper

# livepatch/compat-yield-check, the boot unit's check, on each of its
# paths: run in a mount namespace of its own where /sys/kernel and
# /sys/module are empty but for the case's files, /proc/cmdline is the
# case's, and modprobe and modinfo are stubs that print the case's
# configuration and say whether a module is installed.
# cyc_case STATUS TEXT KNOB CMDLINE OPTION INSTALLED LOADED: KNOB the
# switch's value or - (no file); OPTION the modprobe option's value or -;
# INSTALLED, LOADED 0 or 1. Prints what the check printed and its status.
cyc_case() {
	local d=$tmp/cyc
	rm -rf "$d" && mkdir -p "$d/bin"
	printf '%s\n' "$4" >"$d/cmdline"
	if [[ $5 == - ]]; then
		printf '#!/bin/sh\nexit 0\n' >"$d/bin/modprobe"
	else
		printf '#!/bin/sh\necho "options livepatch_compat_yield sched_compat_yield=%s"\n' "$5" >"$d/bin/modprobe"
	fi
	printf '#!/bin/sh\nexit %d\n' $((1 - $6)) >"$d/bin/modinfo"
	chmod +x "$d/bin/modprobe" "$d/bin/modinfo"
	unshare -m bash -c 'mount --make-rprivate / && mount -t tmpfs none /sys/kernel &&
		mount -t tmpfs none /sys/module && mount --bind "$1/cmdline" /proc/cmdline || exit 99
		[[ $2 == - ]] || echo "$2" >/sys/kernel/sched_compat_yield
		[[ $3 == 0 ]] || mkdir /sys/module/livepatch_compat_yield
		PATH=$1/bin:$PATH sh livepatch/compat-yield-check 2>&1
		echo "status=$?"' - "$d" "$3" "$7"
}
while IFS='|' read -r want text knob cmdline opt inst loaded; do
	if ((EUID != 0)) || ! command -v unshare >/dev/null; then
		skip "livepatch/compat-yield-check: $text" "needs root and unshare(1) for a mount namespace"
		continue
	fi
	out=$(cyc_case "$want" "$text" "$knob" "$cmdline" "$opt" "$inst" "$loaded")
	check "livepatch/compat-yield-check exits $want and says so: switch ${knob/-/absent}, command line '$cmdline', modprobe option ${opt/-/none}, installed $inst, loaded $loaded ($(head -n 1 <<<"$out"); $(tail -n 1 <<<"$out"))" \
		bash -c '[[ $(tail -n 1 <<<"$1") == "status=$2" ]] && grep -qE "^compat-yield-check: /sys/kernel/sched_compat_yield $3" <<<"$1"' - "$out" "$want" "$text"
done <<<"$cyc_cases"
# livepatch/compat-yield-postinst, the kernel packages' hook, on each of
# its paths: in a mount namespace of its own where modules-load.d,
# /etc/modules and /lib/modules hold only the case's files, and modprobe
# is a stub that prints the case's configuration. Its status must be 0.
# cpi_case LOAD OPTION BUILT: prints what the hook printed and its status.
cpi_case() {
	local d=$tmp/cpi
	rm -rf "$d" && mkdir -p "$d/bin"
	if [[ $2 == 1 ]]; then
		printf '#!/bin/sh\necho "options livepatch_compat_yield sched_compat_yield=1"\n' >"$d/bin/modprobe"
	else
		printf '#!/bin/sh\nexit 0\n' >"$d/bin/modprobe"
	fi
	chmod +x "$d/bin/modprobe"
	: >"$d/modules"
	unshare -m bash -c 'mount --make-rprivate / || exit 99
		for m in /etc/modules-load.d /usr/lib/modules-load.d /lib/modules-load.d /lib/modules; do
			[[ ! -d $m ]] || mount -t tmpfs none "$m" || exit 99
		done
		mount --bind "$1/modules" /etc/modules || exit 99
		[[ $2 == - ]] || echo livepatch_compat_yield >"/etc/modules-load.d/$2"
		mkdir -p /lib/modules/9.9.9-test/updates
		[[ $3 == 0 ]] || : >/lib/modules/9.9.9-test/updates/livepatch_compat_yield.ko
		PATH=$4/bin:$PATH sh livepatch/compat-yield-postinst 9.9.9-test /boot/vmlinuz-9.9.9-test 2>&1
		echo "status=$?"' - "$d" "$1" "$3" "$d"
}
while IFS='|' read -r text load opt built; do
	if ((EUID != 0)) || ! command -v unshare >/dev/null; then
		skip "livepatch/compat-yield-postinst: ${text/-/says nothing}" "needs root and unshare(1) for a mount namespace"
		continue
	fi
	out=$(cpi_case "$load" "$opt" "$built")
	check "livepatch/compat-yield-postinst exits 0 and ${text/#-/says nothing}: modules-load.d ${load/-/none}, modprobe option $opt, a build for the new kernel $built ($(head -n 1 <<<"$out"))" \
		bash -c '[[ $(tail -n 1 <<<"$1") == status=0 ]] || exit 1
			if [[ $2 == - ]]; then [[ $(wc -l <<<"$1") == 1 ]]; else grep -qE "$2" <<<"$1"; fi' - "$out" "$text"
done <<<"$cpi_cases"
printf 'copy helper\ncopy counter\n' >"$lx/list"
check "livepatch/extract.py, given the stock fair.c, refuses to copy a stock variable and copies a changed function" \
	bash -c '! python3 livepatch/extract.py "$1/config" "$1/fair.c" "$1/sched.h" "$1/list" "$1/out" "$1/stock.c" 2>/dev/null &&
		printf "copy helper\n" >"$1/list" &&
		python3 livepatch/extract.py "$1/config" "$1/fair.c" "$1/sched.h" "$1/list" "$1/out" "$1/stock.c"' - "$lx"
printf 'copy missing_one\n' >"$lx/list"
check "livepatch/extract.py fails on a name the active code does not define" \
	bash -c '! python3 livepatch/extract.py "$1/config" "$1/fair.c" "$1/sched.h" "$1/list" "$1/out" 2>/dev/null' - "$lx"
# A relative RESULTS names a directory under the caller's working
# directory; the harness makes it absolute, as builds with make -C and the
# guests need it.
check "vm/lib.sh makes a relative RESULTS absolute" \
	test "$(cd "$tmp" && RESULTS=rel/x bash -c '. "$1/vm/lib.sh"; echo "$RESULTS"' - "$SCY_REPO")" = "$(cd "$tmp" && pwd -P)/rel/x"
check "make makes a relative RESULTS absolute" \
	test "$(cd "$tmp" && make -s -f "$SCY_REPO/Makefile" --no-print-directory -p RESULTS=rel/x -q help 2>/dev/null | sed -n 's/^RESULTS := //p' | head -n 1)" = "$(cd "$tmp" && pwd)/rel/x"
# The guests' checks for new kernel reports read dmesg through a pipe:
# kernel_reports on standard input finds a report line, also where /dev
# has no stdin (a fresh devtmpfs, as in a guest before its init adds the
# links; tried in a mount namespace of its own).
check "kernel_reports reads a report line from standard input" \
	test "$(printf 'booting\nWARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x0/0x1\n' | kernel_reports)" = "WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x0/0x1"
what="live_reports finds a report in dmesg where /dev has no stdin"
if unshare -m true 2>/dev/null; then
	check "$what" test "$(unshare -m bash -c 'mount -t tmpfs none /dev && . tests/tap.sh &&
		dmesg() { printf "[ 1.0] booting\n[ 2.0] BUG: x\n"; } && live_reports' 2>&1)" = "[ 2.0] BUG: x"
else
	skip "$what" "unshare -m is not permitted here"
fi
# The checks' own machinery cannot turn a failure into a pass:
# tests/tap-stage.pl counts "not ok # SKIP" and any TODO as failed, the
# comparisons of tap.sh fail on a missing value, and the warning check
# fails on compiler output with quotes in it.
printf '1..4\nok 1 - a\nnot ok 2 - b # SKIP c\nnot ok 3 - d # TODO e\nok 4 - f # TODO g\n' >"$tmp/todo.log"
check "tests/tap-stage.pl counts a not-ok SKIP and any TODO as failed" \
	test "$(perl tests/tap-stage.pl "$tmp/todo.log" | tail -n 1)" = "1 3 0"
# A plan of no tests counts as a failure unless it says why it skips
# (a -c filter that matches no cell after a rename); a kselftest that
# exits with 4 (it skipped everything) is a skip, not a pass.
printf '1..3\n  1..0\nok 1 - a\n  1..0 # SKIP\nok 2 - b\n  1..0 # SKIP no knob here\nok 3 - c\n' >"$tmp/empty.log"
check "tests/tap-stage.pl fails a nested 1..0 without a reason to skip, and only that" \
	test "$(perl tests/tap-stage.pl "$tmp/empty.log" 2>&1 | tail -n 1)" = "3 2 0"
printf '#!/bin/sh\necho 1..1\necho "ok 1 - x # SKIP y"\nexit 4\n' >"$tmp/ksft_skip"
chmod +x "$tmp/ksft_skip"
check "tests/tap.sh: run_kselftest counts a kselftest that exits with 4 as a skip" \
	bash -c '. tests/tap.sh && SCY_RESULTS=$1 run_kselftest "$1" ksft_skip | grep -qE "^ok 1 - kselftest ksft_skip # SKIP "' - "$tmp"
check "tests/tap.sh: ge and in_range fail on a missing value" \
	bash -c '. tests/tap.sh && ! ge "" 1 && ! ge 1 "" && ! in_range "" 0 1 && ! in_range x 0 1 && ge 2 1.5 && in_range 0.5 0 1'
check "tests/tap.sh: lacks finds a warning in compiler output with quotes" \
	bash -c '. tests/tap.sh && ! lacks "a.c:1:2: warning: '\''struct foo'\'' declared \"x\"" warning: && lacks "all clean" warning:'
# Every SCY_* variable a script or the Makefile reads is in the variables page.
undoc=$(grep -rhoE 'SCY_[A-Z][A-Z0-9_]*' Makefile vm tests bench userspace kernel-patches/tools livepatch --include='*.sh' --include=Makefile --include='*.py' --include=guest-init |
	sort -u | while read -r v; do grep -q "\`$v\`" Documentation/variables.md || echo "$v"; done | tr '\n' ' ')
check "Documentation/variables.md lists every SCY_* variable the harness reads${undoc:+ (missing: $undoc)}" test -z "$undoc"
# Committed reports are generated from their committed data: regenerate
# and compare (a stale copy fails).
# report_current NAME: bench/NAME/report.py makes of
# Documentation/results/NAME.csv the NAME.md committed beside it
report_current() {
	local d=$tmp/$1-report
	mkdir -p "$d"
	if python3 "bench/$1/report.py" "Documentation/results/$1.csv" "$d" --no-plot; then
		check "Documentation/results/$1.md is what bench/$1/report.py makes of $1.csv beside it" \
			diff -q "$d/$1.md" "Documentation/results/$1.md"
	else
		not_ok "bench/$1/report.py reads Documentation/results/$1.csv"
	fi
}
report_current latency
# the busy-host placement page, where one is committed
if [[ -f Documentation/results/placement.csv ]]; then
	report_current placement
	check "Documentation/results/shares.md: the busy-host placement table it shows is placement.md beside it" \
		python3 bench/pageblock.py --check Documentation/results/shares.md
fi
# the same with the hog a plain task of the root group (PLACEMENT=cgroup-root)
if [[ -f Documentation/results/placement-cgroup-root/placement.csv ]]; then
	d=$tmp/placement-cgroup-root-report
	mkdir -p "$d"
	if python3 bench/placement/report.py Documentation/results/placement-cgroup-root/placement.csv "$d" --no-plot; then
		check "Documentation/results/placement-cgroup-root/placement.md is what bench/placement/report.py makes of placement.csv beside it" \
			diff -q "$d/placement.md" Documentation/results/placement-cgroup-root/placement.md
	else
		not_ok "bench/placement/report.py reads Documentation/results/placement-cgroup-root/placement.csv"
	fi
fi
# the matrix pages: bench-matrix's default run, and the -icount runs and
# the full product in folders of their own
for md in "${matrix_pages[@]}"; do
	d=$(dirname "$md")
	mat=$tmp/matrix-report-$(basename "$d")
	mkdir -p "$mat"
	cp "$d/matrix.csv.info" "$d"/matrix-*.tap "$mat/" 2>/dev/null
	if python3 bench/matrix/report.py "$mat" --no-plot; then
		check "$md is what bench/matrix/report.py makes of the TAP files beside it" \
			diff -q "$mat/matrix.md" "$md"
	else
		not_ok "bench/matrix/report.py reads $d/matrix.csv.info and matrix-*.tap"
	fi
done
ppr=$tmp/pingpong-report
mkdir -p "$ppr"
for runs in pingpong pingpong-tcg; do
	if python3 bench/pingpong/report.py --runs "Documentation/results/$runs" "$ppr/$runs" --no-plot; then
		for md in Documentation/results/"$runs"-fig[0-9].md; do
			fig=$(basename "$md" .md)
			check "Documentation/results/$fig.{md,csv} are what bench/pingpong/report.py makes of $fig-runs.csv" \
				bash -c 'diff -q "$1.md" "$2.md" && diff -q "$1.csv" "$2.csv"' - "$ppr/$fig" "Documentation/results/$fig"
		done
	else
		for md in Documentation/results/"$runs"-fig[0-9].md; do
			not_ok "bench/pingpong/report.py reads Documentation/results/$(basename "$md" .md)-runs.csv"
		done
	fi
done
check "Documentation/results/livepatch.md: the cost table is what bench/cost/compare.py makes of the CSVs beside it" \
	python3 bench/cost/compare.py --check Documentation/results/livepatch.md
check "Documentation/results/livepatch.md: the like-for-like share table is what bench/share/compare.py makes of the CSVs beside it" \
	python3 bench/share/compare.py --check Documentation/results/livepatch.md
for page in shares livepatch; do
	check "Documentation/results/$page.md: each run's share table is what bench/share/table.py makes of its CSV" \
		python3 bench/share/table.py --check "Documentation/results/$page.md"
done
check "Documentation/results/pingpong.md: the tables it shows are the ping-pong reports beside it" \
	python3 bench/pageblock.py --check Documentation/results/pingpong.md
check "Documentation/results/mpi.md: the tables it shows are the MPI report beside it" \
	python3 bench/pageblock.py --check Documentation/results/mpi.md
for page in Documentation/results/jobs.md Documentation/results.md; do
	check "$page: the jobs table is what bench/jobs/report.py makes of Documentation/results/jobs.csv" \
		python3 bench/jobs/report.py --check "$page"
done
check "Documentation/results/costs.md: the tables of a yield outside a group at 1 are what bench/cost/group-table.py makes of the CSVs beside it" \
	python3 bench/cost/group-table.py --check Documentation/results/costs.md
check "Documentation/results/reliability.md: its table of what each stress run did and its plot's data are what bench/reliability/report.py makes of the CSV beside it" \
	python3 bench/reliability/report.py --check Documentation/results/reliability.md
check "Documentation/results.md: its list of pages opens each with the page's own conclusion (bench/results-index.py)" \
	python3 bench/results-index.py --check Documentation/results.md
check "Documentation/results/costs.md: the table of a yield among 2 to 1000 tasks is what bench/cost/scaling.py makes of the CSVs beside it" \
	python3 bench/cost/scaling.py --check Documentation/results/costs.md
check "Documentation/results/neutral.md: its table is what bench/neutral/report.py makes of the CSV beside it" \
	python3 bench/neutral/report.py --check Documentation/results/neutral.md
# The figures of the prose (Documentation/figures.txt): each as its source
# gives it, and none in the files of its scope left unnamed; then the same
# files with one figure changed, and with a figure added that nothing
# names, must fail.
check "Documentation/figures.txt: the prose's figures are what their sources give, and every figure of its scope is named there" \
	bash -c 'python3 tests/figures.py >"$1/figures.tap"; rc=$?; grep "^not ok" "$1/figures.tap" | sed "s/^/# /"; exit $rc' _ "$tmp"
mkdir -p "$tmp/figures"
for f in $({ sed -n 's/^scope: //p' Documentation/figures.txt | tr ' ' '\n' | sed 's/#.*//'
	sed -n 's/^\([^# :][^ :]*\): ".*/\1/p' Documentation/figures.txt; } | sort -u); do
	mkdir -p "$tmp/figures/$(dirname "$f")"
	cp "$f" "$tmp/figures/$f"
done
sed -i '0,/take 1\.19x one job alone/s//take 1.18x one job alone/' "$tmp/figures/README.md"
check "... README.md with its headline's 1.19x made 1.18x: figures.py fails on that figure" \
	bash -c 'out=$(python3 tests/figures.py --root "$1") && exit 1; grep -q "^not ok .*the text says 1.18x, jobs .* gives 1.19x" <<<"$out"' _ "$tmp/figures"
cp README.md "$tmp/figures/README.md"
printf '\nA yield costs 12.5%% more here.\n' >>"$tmp/figures/README.md"
check "... README.md with a sentence whose figure nothing names: figures.py fails on it" \
	bash -c 'out=$(python3 tests/figures.py --root "$1") && exit 1; grep -q "^not ok .*every figure of its prose.*not: line [0-9]*: 12.5%" <<<"$out"' _ "$tmp/figures"
# bench-jobs APPEND=1 refuses a runtime a kernel already has rows of, before
# building or booting anything, and leaves the CSV as it was
mkdir -p "$tmp/jobs/bench-jobs"
printf 'kernel_name,kernel,knob,rep,runtime\n6.12-patched,6.12.117,1,1,libomp\n' >"$tmp/jobs/bench-jobs/jobs.csv"
cp "$tmp/jobs/bench-jobs/jobs.csv" "$tmp/jobs/before.csv"
# (a make that fails stands in for the build it must not reach)
mkdir -p "$tmp/nomake"
printf '#!/bin/sh\necho "make: not to be reached" >&2\nexit 1\n' >"$tmp/nomake/make"
chmod +x "$tmp/nomake/make"
rc=0
out=$(PATH=$tmp/nomake:$PATH APPEND=1 RUNTIMES="onetbb libomp" RESULTS="$tmp/jobs" bash bench/jobs/run.sh 6.12-patched 2>&1) || rc=$?
check "bench-jobs APPEND=1 refuses a runtime the kernel has rows of (status $rc: $(tail -n 1 <<<"$out" | sed "s|$tmp/jobs|RESULTS|")), CSV unchanged" \
	bash -c "[[ $rc -ne 0 ]] && grep -q 'rows of libomp on 6.12-patched' <<<\"\$1\" && cmp -s '$tmp/jobs/before.csv' '$tmp/jobs/bench-jobs/jobs.csv'" _ "$out"
rc=0
out=$(PATH=$tmp/nomake:$PATH RUNTIMES="libomp onetbb libomp" RESULTS="$tmp/jobs" bash bench/jobs/run.sh 6.1-patched 2>&1) || rc=$?
check "bench-jobs refuses a runtime given twice (status $rc: $(tail -n 1 <<<"$out" | sed "s|$tmp/jobs|RESULTS|")), CSV unchanged" \
	bash -c "[[ $rc -ne 0 ]] && grep -q 'given twice: libomp' <<<\"\$1\" && cmp -s '$tmp/jobs/before.csv' '$tmp/jobs/bench-jobs/jobs.csv'" _ "$out"
# An appended CSV's .info carries the commands of the runs before it over
# as also= lines; a CSV copied without its .info carries nothing over, and
# the run that appended to it goes on to write its .info and report.
info_prior_holds() {
	local got none
	printf 'also=A\ncommand=B\ndate=2026-01-01\n' >"$tmp/jobs/earlier.info"
	got=$(set -e; info_prior "$tmp/jobs/earlier.info") &&
		[[ $got == $'also=A\nalso=B' ]] &&
		none=$(set -e; info_prior "$tmp/jobs/absent.info") &&
		[[ -z $none ]]
}
check "bench .info: an appended CSV's earlier commands become also= lines; without its .info, none and no error" \
	info_prior_holds
check "Documentation/results/check.md and the time table of times.md are what tests/check-report.py makes of the runs' CSV files" \
	python3 tests/check-report.py --check
