#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: host checks, static checks of the series, then for each
# kernel (the two side by side, below) its Debian packages, the selftests
# in a QEMU guest of the patched kernel, the one-CPU -icount guest
# (starvation, time away per yield), and a guest of Debian's own binary
# kernel (the module's stock-kernel path, the kselftests' SKIPs). A stage
# prints a TAP document (a guest's suite and the kselftests nested in it),
# which tests/tap-stage.pl parses: a document without a plan or with a
# short one fails; so does a stage that exits non-zero without a failed
# test. Ends with a table of the stages and "N passed, N failed, N
# skipped".
#
# SCY_CHECK_STAGES selects the stage groups: default "host deb guest starve
# faults debian livepatch"; `make check-full` adds "debug", the KASAN/lockdep
# guests (two more kernels to build, about 20 minutes each from scratch:
# more than make check's time allows on a fresh machine), and "update", a
# node with the livepatch on at boot updated from Debian's 6.1 kernel to
# its 6.12 and rebooted (tests/livepatch-update.sh, about 8 minutes), and
# `make check-debug` runs them alone. "debconfig" runs the guest suite on
# the series built with Debian's own configuration (thousands of files to
# compile on first use): when named, and with "livepatch" for the kernels
# that are in the cache already. SCY_CHECK_KVERS="6.12 6.1" selects the kernels;
# SCY_SHARE_DURATION the seconds of each share benchmark run in the guests
# (2 here, 4 in `make check-full`; the full 30 s runs are `make demo` and
# the results pages); SCY_MODULE_CYCLES the module load/unload cycles (below);
# SCY_CHECK_LANES=1 runs the two kernels' stages one after the other
# instead of side by side (below). The
# debug guests do 2 x SCY_FUZZ_WRITES fuzzed knob writes (2000 here) and a
# stress of SCY_STRESS_SECONDS (60 s here; `make check-debug`: 10000 and
# 300 s).
set -uo pipefail
cd "$(dirname "$0")/.."
. vm/lib.sh

export SCY_SHARE_DURATION=${SCY_SHARE_DURATION:-2}
# The latency kselftest's windows in the -icount guests: 1 s here (each
# holds hundreds of yields beside a hog, a yield a tick), 2 s in `make
# check-full` and in tests/starve.sh alone.
export SCY_LATENCY_SECONDS=${SCY_LATENCY_SECONDS:-1}
# The guest suite loads and unloads yield_stats SCY_MODULE_CYCLES times
# while stress-ng --yield keeps both vCPUs busy: 5 here, 100 in
# `make check-full` (each probe registration patches static keys with
# IPIs, which a busy vCPU under single-threaded TCG answers only in its
# time slice: the cycles are slow there, about 4 s each). The guests of
# Debian's binary kernels (stage "debian": the module's other
# path, on sys_enter/sys_exit, and the kselftests' SKIPs) do
# SCY_STOCK_MODULE_CYCLES, 10 here, 100 in `make check-full`: that path
# has no static key of its own to flip, its cycles take about 4 s.
export SCY_MODULE_CYCLES=${SCY_MODULE_CYCLES:-5}
# The guests of Debian's kernels with the livepatch (stage "livepatch")
# disable and unload the running build under stress-ng --yield, then do
# SCY_LIVEPATCH_CYCLES cycles of load, knob 1, disable and unload under
# it: none here, 20 in `make check-full` (every combination of the
# initial knob and sysctl=1). Each cycle waits for two livepatch
# transitions, slow on 6.12 under single-threaded TCG with both vCPUs
# busy: the disable and one cycle, three transitions, took 136 s on an
# idle host and 208 s beside stress-ng --cpu 2 (tests/guest-livepatch.sh;
# times in Documentation/results/livepatch.md). The load with sysctl=1
# is checked without the stress, when the guest loads the livepatch
# again for its kselftests.
export SCY_LIVEPATCH_CYCLES=${SCY_LIVEPATCH_CYCLES:-0}
SCY_STOCK_MODULE_CYCLES=${SCY_STOCK_MODULE_CYCLES:-10}
# The livepatch guests' yield_stats takes the same stock-kernel path as the
# debian guests' (the livepatch adds no tracepoint), whose cycles cover
# it: SCY_LIVEPATCH_MODULE_CYCLES, 5 here, 100 in `make check-full`.
SCY_LIVEPATCH_MODULE_CYCLES=${SCY_LIVEPATCH_MODULE_CYCLES:-5}
# The Slurm plugin is user space and the same on every kernel: make check
# runs its check (tests/guest-spank.sh, about 2-3 minutes of a guest) in
# the guest of Debian's 6.1 with the livepatch, the livepatch's
# cpu.compat_yield; the jobs stages run real Slurm jobs started with
# srun --compat-yield on both patched kernels, the series' file.
# `make check-full` runs it in every guest that has cpu.compat_yield
# (SCY_SPANK_GUESTS=all).
export SCY_SPANK_GUESTS=${SCY_SPANK_GUESTS:-6.1-livepatch}
kvers=${SCY_CHECK_KVERS:-6.12 6.1}
mkdir -p "$RESULTS/check"
pass=0 fail=0 skip=0 start=$(date +%s)

# run_stage NAME CMD...: run CMD, its output in check/NAME.log; count its
# TAP lines into check/NAME.row ("passed failed skipped seconds built") and
# write what to show of it (the failures and skips, a summary line) to
# check/NAME.out. Safe to run in the background: it changes no variable.
run_stage() {
	local name=$1 dir=$RESULTS/check rc p=0 f=0 s=0 t0=$(date +%s)
	local log=$dir/$1.log out=$dir/$1.out
	shift
	rm -f "$dir/$name.row" "$out"
	"$@" >"$log" 2>&1
	rc=$?
	{
		echo "== $name"
		# the failed and skipped tests, plan errors, then the counts
		perl tests/tap-stage.pl "$log" >"$dir/$name.tap-summary" 2>&1
		sed '$d' "$dir/$name.tap-summary"
		read -r p f s < <(tail -n 1 "$dir/$name.tap-summary")
		if ! [[ $p =~ ^[0-9]+$ && $f =~ ^[0-9]+$ && $s =~ ^[0-9]+$ ]]; then
			p=0 f=1 s=0
			echo "  not ok - tests/tap-stage.pl could not read $log"
		fi
		if [[ $rc != 0 && $f == 0 ]]; then
			f=1
			echo "  not ok - $name exited with status $rc; last lines of $log:"
			tail -n 25 "$log" | sed 's/^/    /'
		fi
		local secs=$(($(date +%s) - t0)) built
		# what the stage built or fetched: kernels (vm/build-kernel.sh),
		# Debian's binary kernels (vm/debian-kernel.sh), packages
		# (vm/build-deb.sh), livepatches (livepatch/build.sh)
		built=$(grep -oE '^\[scy\] (building the livepatch for [^ ]+|building [^ ]+|downloading linux-image[^ ]*|bindeb-pkg of [^ ]+)' "$log" |
			sed 's/^\[scy\] //; s/^building the livepatch for /livepatch /; s/^building //; s/^downloading //; s/^bindeb-pkg of /package /' |
			sort -u | tr '\n' ' ')
		echo "   $name: $p passed, $f failed, $s skipped ($secs s)"
		echo "$p $f $s $secs ${built:--}" >"$dir/$name.row"
	} >"$out"
}

# show NAME [noheader]: print a finished stage's lines; add it to the totals
# and the table.
show() {
	local name=$1 p= f= s= secs= built=
	if [[ ${2:-} == noheader ]]; then
		tail -n +2 "$RESULTS/check/$name.out" 2>/dev/null
	else
		cat "$RESULTS/check/$name.out" 2>/dev/null
	fi
	read -r p f s secs built 2>/dev/null <"$RESULTS/check/$name.row"
	# a stage that left no complete record failed
	if ! [[ $p =~ ^[0-9]+$ && $f =~ ^[0-9]+$ && $s =~ ^[0-9]+$ && $secs =~ ^[0-9]+$ ]]; then
		echo "  not ok - $name left no complete record (see ${RESULTS#"$SCY_REPO"/}/check/$name.log)"
		p=${p//[!0-9]/} s=${s//[!0-9]/} secs=${secs//[!0-9]/}
		p=${p:-0} f=$((${f//[!0-9]/0} + 1)) s=${s:-0} secs=${secs:-0} built=${built:--}
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	local b over=
	b=$(budget "$name")
	((secs <= b)) || over=" (over its budget)"
	table+=("$(printf '%-19s %6d %6d %6d %6d %6d  %s' "$name" "$p" "$f" "$s" "$secs" "$b" "$built$over")")
	csv+=("$name,$p,$f,$s,$secs,${built% }")
	names+=("$name")
}

# budget NAME: the seconds a stage of NAME may take in a make check that
# must end within 30 minutes on a warm 2-core machine with nothing else
# running (the lanes run side by side): the warm run's stage times with
# 10-30% to spare, adding up to 30 minutes along a lane with the stages
# before and after the lanes (deps 30, host 75 beside checkpatch, tools
# 20, a warm deb stage about 15, a lane's other stages 1620, then
# livepatch-dkms 40). The deb stages' budget is their cold one: they build
# the patched guest kernel and its packages on a fresh machine (about 35
# minutes for both lanes, within the 75 minutes of a cold run), where the
# stages beside the other lane's build take longer than here. A stage over
# its budget is named in the table, not failed: its time depends on the
# host.
budget() {
	case $1 in
	deps) echo 30 ;;
	tools) echo 20 ;;
	livepatch-dkms) echo 40 ;;
	host) echo 75 ;;
	checkpatch) echo 90 ;;
	deb-*) echo 2700 ;;
	guest-*) echo 185 ;;
	debconfig-*) echo 600 ;;
	stalls-*) echo 40 ;;
	livepatch-icount-*) echo 95 ;;
	jobs-*) echo 130 ;;
	livepatch-boot-*) echo 90 ;;
	livepatch-update) echo 900 ;;
	starve-*) echo 195 ;;
	faults-*) echo 205 ;;
	debian-*) echo 100 ;;
	livepatch-*) echo 580 ;;
	debug-*) echo 3600 ;;
	*) echo 600 ;;
	esac
}
stage() {
	echo "== $1"
	run_stage "$@"
	show "$1" noheader
}
table=() csv=() names=()

stages=${SCY_CHECK_STAGES:-host deb guest starve faults debian livepatch}
want() { [[ " $stages " == *" $1 "* ]]; }
export SCY_STRESS_SECONDS=${SCY_STRESS_SECONDS:-60}
export SCY_FUZZ_WRITES=${SCY_FUZZ_WRITES:-2000}

stage deps bash -c '. tests/tap.sh && plan 1 &&
	check "the Debian packages the project needs are installed (vm/deps.sh)" bash vm/deps.sh'
# The host checks and checkpatch side by side: neither waits for the other
# (both read Debian's extracted sources, ref_tree() extracts them once).
# checkpatch, which takes longer, runs on beside the lanes' first stages;
# its lines come after the lanes'.
checkpatch_pid=
if want host; then
	echo "== host and checkpatch side by side (checkpatch's lines come after the lanes')"
	run_stage checkpatch bash kernel-patches/tools/checkpatch.sh &
	checkpatch_pid=$!
	run_stage host bash tests/host.sh
	show host
fi
# The stages of one kernel, a lane: its Debian packages (deb: small config,
# extracted into a scratch root and used by DKMS; building them builds the
# patched guest kernel first), its patched kernel in a guest (guest, and a
# guest the host stops on purpose: the matrix's figures net of the guest's
# stalls, tests/stalls.sh), the one-CPU -icount guest (starve), Debian's
# binary kernel (debian), the same kernel with the livepatch (livepatch,
# a boot of that kernel with systemd as PID 1 that turns the livepatch on
# with the admin guide's recipe: livepatch-boot, and a one-CPU -icount
# guest of it that times a yielder outside a group at 1: livepatch-icount),
# and the series with
# Debian's configuration (debconfig, below). With two kernels and
# SCY_CHECK_LANES=2 (the default on two or more cores) the two
# lanes run side by side: each guest runs on one host thread
# (single-threaded TCG), and the kernel builds' serial parts (linking,
# packaging) leave a core to the other lane. The guest checks are made to
# hold on a busy host. The tools the lanes share are built first, once.
lane() {
	local kver=$1
	if want deb; then lane_stage "deb-$kver" bash tests/deb.sh "$kver"; fi
	if want guest; then
		lane_stage "guest-$kver" bash tests/guest.sh "$kver-patched"
		lane_stage "stalls-$kver" bash tests/stalls.sh "$kver"
		lane_stage "jobs-$kver" bash tests/jobs.sh "$kver"
	fi
	if want starve; then lane_stage "starve-$kver" bash tests/starve.sh "$kver"; fi
	if want faults; then lane_stage "faults-$kver" bash tests/faults.sh "$kver"; fi
	if want debian; then
		SCY_MODULE_CYCLES=$SCY_STOCK_MODULE_CYCLES lane_stage "debian-$kver" bash tests/guest.sh "$kver-debian"
	fi
	if want livepatch; then
		SCY_MODULE_CYCLES=$SCY_LIVEPATCH_MODULE_CYCLES lane_stage "livepatch-$kver" bash tests/guest.sh "$kver-livepatch"
		lane_stage "livepatch-boot-$kver" bash tests/livepatch-boot.sh "$kver"
		lane_stage "livepatch-icount-$kver" bash tests/livepatch-icount.sh "$kver"
	fi
	if want_debconfig "$kver"; then lane_stage "debconfig-$kver" bash tests/guest.sh "$kver-debconfig"; fi
}
# The series with Debian's configuration is the livepatch's like-for-like
# reference: its guest suite runs when "debconfig" is named, or with
# "livepatch" when that kernel is in the cache (a fresh machine would have
# to build Debian's whole configuration first). Decided once, before the
# lanes.
debconfig_kvers=
# optional stages that were not run: the table lists them, without counts
notrun=()
for kver in $kvers; do
	if want debconfig; then
		debconfig_kvers+=" $kver"
	elif want livepatch; then
		if bash vm/build-kernel.sh --cached "$kver" 1 debconfig >/dev/null 2>&1; then
			debconfig_kvers+=" $kver"
		else
			echo "# debconfig-$kver: not run, $kver-debconfig is not in the cache (SCY_CHECK_STAGES with debconfig builds it)"
			notrun+=("debconfig-$kver|not run: $kver-debconfig is not in the cache")
		fi
	fi
done
want_debconfig() { [[ " $debconfig_kvers " == *" $1 "* ]]; }
# lane_stage NAME CMD...: run_stage, then a line of progress (the stage's
# full lines come when both lanes are done).
lane_stage() {
	run_stage "$@"
	echo "   ... $(tail -n 1 "$RESULTS/check/$1.out" 2>/dev/null | sed 's/^ *//')"
}
lane_stages() {
	local kver=$1 g
	for g in deb guest starve faults debian livepatch; do
		if want $g; then echo "$g-$kver"; fi
		if [[ $g == guest ]] && want guest; then
			echo "stalls-$kver"
			echo "jobs-$kver"
		fi
		if [[ $g == livepatch ]] && want livepatch; then
			echo "livepatch-boot-$kver"
			echo "livepatch-icount-$kver"
		fi
	done
	if want_debconfig "$kver"; then echo "debconfig-$kver"; fi
}
# tree_pids PID: PID and all its descendants.
tree_pids() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree_pids "$c"; done
}
lanes=${SCY_CHECK_LANES:-$(($(nproc) >= 2 ? 2 : 1))}
[[ $lanes =~ ^[0-9]+$ ]] || { echo "SCY_CHECK_LANES must be a number (got '$lanes')" >&2; exit 2; }
if want deb || want guest || want starve || want faults || want debian || want livepatch || [[ -n $debconfig_kvers ]]; then
	stage tools bash -c '. tests/tap.sh && plan 2 &&
		check "the tools and the kselftests build (make userspace selftests)" make -s -C "$1" userspace selftests RESULTS="$2" &&
		check "the test tools build (tests/tools)" make -s -C "$1/tests/tools" OUTPUT="$2/bin/tests"' - "$SCY_REPO" "$RESULTS"
	# Lanes that would each build the tools again run one after the other.
	[[ $(cut -d' ' -f2 "$RESULTS/check/tools.row" 2>/dev/null) == 0 ]] || lanes=1
	if [[ $lanes -ge 2 && $(wc -w <<<"$kvers") -ge 2 ]]; then
		echo "== the stages of $(sed 's/ / and /g' <<<"$kvers") side by side (logs in ${RESULTS#"$SCY_REPO"/}/check/)"
		pids=()
		# Stopped with SIGTERM or SIGINT, take the lanes' guests and
		# builds down too, and checkpatch: they run in the background.
		trap 'trap - TERM INT; kill -TERM $(for p in "${pids[@]}" $checkpatch_pid; do tree_pids "$p"; done) 2>/dev/null; exit 143' TERM INT
		for kver in $kvers; do
			lane "$kver" &
			pids+=($!)
		done
		wait "${pids[@]}"
		trap - TERM INT
		for kver in $kvers; do
			for name in $(lane_stages "$kver"); do show "$name"; done
		done
	else
		for kver in $kvers; do
			lane "$kver"
			for name in $(lane_stages "$kver"); do show "$name"; done
		done
	fi
fi
if [[ -n $checkpatch_pid ]]; then
	wait "$checkpatch_pid"
	show checkpatch
fi
# The livepatch's DKMS trees of both kernels side by side (host only).
if want livepatch; then
	stage livepatch-dkms bash tests/livepatch-dkms.sh $kvers
fi
# A node's update from Debian's 6.1 to its 6.12 (both kernels' builds).
if want update; then
	if [[ " $kvers " == *" 6.1 "* && " $kvers " == *" 6.12 "* ]]; then
		stage livepatch-update bash tests/livepatch-update.sh 6.1 6.12
	else
		notrun+=("livepatch-update|not run: it needs both kernels (SCY_CHECK_KVERS)")
	fi
fi
for kver in $kvers; do
	want debug && stage "debug-$kver" bash tests/debug.sh "$kver-debug"
done

echo
printf '%-19s %6s %6s %6s %6s %6s  %s\n' stage passed failed skipped secs budget "built or fetched"
printf '%s\n' "${table[@]}"
for r in "${notrun[@]}"; do
	printf '%-19s %6s %6s %6s %6s %6s  %s\n' "${r%%|*}" - - - - - "${r#*|}"
done
total=$(($(date +%s) - start))
echo "total time $total s; logs in ${RESULTS#"$SCY_REPO"/}/check/"
{
	echo "stage,passed,failed,skipped,seconds,built"
	printf '%s\n' "${csv[@]}"
	echo "total,$pass,$fail,$skip,$total,"
} >"$RESULTS/check/stages.csv"
# The failures once more, last: a reader of the run's last lines (a CI
# page that shows its tail) sees which checks failed, not only how many.
if ((fail)); then
	echo "the failed checks, by stage:"
	for name in "${names[@]}"; do
		grep -E '^ *not ok' "$RESULTS/check/$name.out" 2>/dev/null | cut -c1-240 | sed "s/^ */  $name: /"
	done | head -n 20
fi
echo "$pass passed, $fail failed, $skip skipped"
[[ $fail == 0 ]]
