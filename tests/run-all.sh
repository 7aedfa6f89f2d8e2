#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: host checks, static checks of the series, the Debian packages,
# then the selftests in QEMU guests of both patched kernels, the one-CPU
# -icount guests (starvation, time away per yield), and guests of Debian's
# own binary kernels (the module's stock-kernel path, the kselftests'
# SKIPs). Every stage prints TAP lines ("ok ..." / "not ok ..."); a stage
# that fails without saying why counts as one failure. Ends with a table of
# the stages and "N passed, N failed, N skipped".
#
# SCY_CHECK_STAGES selects the stage groups: default "host deb guest starve
# debian"; `make check-full` adds "debug", the KASAN/lockdep guests (two
# more kernels to build, about 20 minutes each from scratch: more than
# make check's time allows on a fresh machine), and `make check-debug` runs
# them alone. SCY_CHECK_KVERS="6.12 6.1" selects the kernels;
# SCY_SHARE_DURATION the seconds of each share benchmark run in the guests
# (default 4 here; the full 30 s runs are `make demo` and the results
# pages); SCY_MODULE_CYCLES the module load/unload cycles (below). The
# debug guests do 2 x SCY_FUZZ_WRITES fuzzed knob writes (2000 here) and a
# stress of SCY_STRESS_SECONDS (60 s here; `make check-debug`: 10000 and
# 300 s).
set -uo pipefail
cd "$(dirname "$0")/.."
. vm/lib.sh

RESULTS=${RESULTS:-$SCY_REPO/results}
export SCY_SHARE_DURATION=${SCY_SHARE_DURATION:-4}
# Single-threaded TCG for the tests: see vm/run.sh.
export SCY_TCG_THREAD=${SCY_TCG_THREAD:-single}
# The guest suite loads and unloads yield_stats SCY_MODULE_CYCLES times
# (100) while stress-ng --yield keeps both vCPUs busy.
# Under single-threaded TCG a cycle then takes about 4 s instead of 0.7 s
# (measured on 6.12; all cross-CPU work slows alike: 100 runs of /bin/true
# took 9 s idle and 74 s under the stress, as a busy vCPU answers an IPI
# only in its time slice, and each probe registration patches static keys
# with IPIs). The guests of Debian's binary kernels (stage "debian": the
# module's other path, on sys_enter/sys_exit, and the kselftests' SKIPs) do
# SCY_STOCK_MODULE_CYCLES, 20 unless told.
export SCY_MODULE_CYCLES=${SCY_MODULE_CYCLES:-100}
SCY_STOCK_MODULE_CYCLES=${SCY_STOCK_MODULE_CYCLES:-20}
kvers=${SCY_CHECK_KVERS:-6.12 6.1}
mkdir -p "$RESULTS/check"
pass=0 fail=0 skip=0 start=$(date +%s)

# stage NAME CMD...: run, echo its TAP lines, add them up.
stage() {
	local name=$1 log=$RESULTS/check/$1.log rc p=0 f=0 s=0 t0=$(date +%s)
	shift
	echo "== $name"
	"$@" >"$log" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"* | "ok "*"# skip"*) s=$((s + 1)); echo "  $line" ;;
		"ok "*) p=$((p + 1)) ;;
		"not ok "*) f=$((f + 1)); echo "  $line" ;;
		esac
	done < <(sed -n 's/^[[:space:]]*\(\(not \)\{0,1\}ok [0-9]*.*\)/\1/p' "$log")
	if [[ $rc != 0 && $f == 0 ]]; then
		f=1
		echo "  not ok - $name exited with status $rc; last lines of $log:"
		tail -n 25 "$log" | sed 's/^/    /'
	fi
	local secs=$(($(date +%s) - t0)) built
	# what the stage built or fetched: kernels (vm/build-kernel.sh),
	# Debian's binary kernels (vm/debian-kernel.sh), packages (vm/build-deb.sh)
	built=$(grep -oE '^\[scy\] (building [^ ]+|downloading linux-image[^ ]*|bindeb-pkg of [^ ]+)' "$log" |
		sed 's/^\[scy\] //; s/^building //; s/^downloading //; s/^bindeb-pkg of /package /' |
		sort -u | tr '\n' ' ')
	echo "   $name: $p passed, $f failed, $s skipped ($secs s)"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	table+=("$(printf '%-12s %6d %6d %6d %6d  %s' "$name" "$p" "$f" "$s" "$secs" "${built:--}")")
}
table=()

stages=${SCY_CHECK_STAGES:-host deb guest starve debian}
want() { [[ " $stages " == *" $1 "* ]]; }
export SCY_STRESS_SECONDS=${SCY_STRESS_SECONDS:-60}
export SCY_FUZZ_WRITES=${SCY_FUZZ_WRITES:-2000}

stage deps bash vm/deps.sh
if want host; then
	stage host bash tests/host.sh
	stage checkpatch bash vm/checkpatch.sh
fi
# Debian packages of both kernels (small config), extracted into a scratch
# root and used by DKMS (tests/deb.sh).
want deb && stage deb bash tests/deb.sh $kvers
for kver in $kvers; do
	want guest && stage "guest-$kver" bash tests/guest.sh "$kver" 1
	want starve && stage "starve-$kver" bash tests/starve.sh "$kver"
done
for kver in $kvers; do
	want debian && SCY_MODULE_CYCLES=$SCY_STOCK_MODULE_CYCLES stage "debian-$kver" bash tests/guest.sh "$kver" debian
done
for kver in $kvers; do
	want debug && stage "debug-$kver" bash tests/debug.sh "$kver"
done

echo
printf '%-12s %6s %6s %6s %6s  %s\n' stage passed failed skipped secs "built or fetched"
printf '%s\n' "${table[@]}"
echo "total time $(( $(date +%s) - start )) s; logs in ${RESULTS#$SCY_REPO/}/check/"
echo "$pass passed, $fail failed, $skip skipped"
[[ $fail == 0 ]]
