#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/placement/run.sh [KERNEL...]: a job in a cgroup on a busy host. The
# yielder in a cpu cgroup of its own beside a hog in a session of its own,
# against the yielder in a session of its own, knob 1, in 2-vCPU guests of
# each KERNEL under plain TCG (bench/placement/guest.sh: the placements
# alternate window by window), BOOTS boots per kernel, while
# `stress-ng --cpu BUSY` keeps the host busy. KERNEL is a kernel name
# (VERSION-FLAVOR, kernel_parse in vm/lib.sh; default: 6.12-patched
# 6.1-patched 6.12-livepatch 6.1-livepatch). Writes
# $RESULTS/bench-placement/placement.{csv,csv.info,md,png}
# (bench/placement/report.py): every window, the host's load average when
# each boot began and ended, and per boot the ratio of the yielder's CPU
# share in the two placements.
# Environment: BOOTS (default 3), ROUNDS (windows per placement and boot,
# default 3), DURATION (seconds per window, default 8), BUSY (stress-ng
# CPU workers on the host, default 2; 0: none), PLACEMENT (where the hog
# is beside the yielder's cgroup: cgroup-session, the default, a session
# of its own; cgroup-root, a plain task of the root group, as every task
# outside a cgroup on a host without systemd; its results go to
# bench-placement-cgroup-root).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kernels=("$@")
((${#kernels[@]})) || kernels=(6.12-patched 6.1-patched 6.12-livepatch 6.1-livepatch)
for k in "${kernels[@]}"; do kernel_parse "$k"; done
boots=${BOOTS:-3} rounds=${ROUNDS:-3} dur=${DURATION:-8} busy=${BUSY:-2}
place=${PLACEMENT:-cgroup-session}
case $place in
cgroup-session | cgroup-root) ;;
*) die "bench/placement/run.sh: PLACEMENT must be cgroup-session or cgroup-root (got '$place')" ;;
esac
for v in boots rounds busy; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "bench/placement/run.sh: ${v^^} must be a number (got '${!v}')"
done
((boots >= 1 && rounds >= 1)) || die "bench/placement/run.sh: BOOTS and ROUNDS must be at least 1"
[[ $dur =~ ^[1-9][0-9]*$ ]] || die "bench/placement/run.sh: DURATION must be whole seconds, at least 1 (got '$dur')"
out=$RESULTS/bench-placement
[[ $place == cgroup-session ]] || out+=-$place
mkdir -p "$out"
make -s -C "$SCY_REPO" userspace RESULTS="$RESULTS" >&2
kdirs=()
for k in "${kernels[@]}"; do kdirs+=("$(kernel_get "$k")"); done

stress=
stop_stress() { [[ -z $stress ]] || { kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null || true; }; }
trap stop_stress EXIT
if ((busy)); then
	command -v stress-ng >/dev/null || die "bench/placement/run.sh: stress-ng not found (make deps), or BUSY=0"
	stress-ng --cpu "$busy" --quiet &
	stress=$!
fi
load1() { cut -d' ' -f1 /proc/loadavg; }

csv=$out/placement.csv
: >"$csv"
for i in "${!kernels[@]}"; do
	k=${kernels[$i]}
	for ((b = 1; b <= boots; b++)); do
		g=$out/guest-$k-$b
		rm -rf "$g"
		mkdir -p "$g"
		l0=$(load1)
		log "$k, boot $b/$boots: $rounds rounds of $dur-s windows (host load $l0)"
		bash "$SCY_REPO/vm/run.sh" --kernel "${kdirs[$i]}" --out "$g" --timeout 1500 -- \
			bash "$SCY_REPO/bench/placement/guest.sh" "$RESULTS/bin" /tmp/results/placement.csv \
			"$rounds" "$dur" "$place" || die "$k, boot $b: the guest failed (see $g/job.log)"
		[[ -s $g/placement.csv ]] || die "$k, boot $b: no placement.csv from the guest (see $g/job.log)"
		l1=$(load1)
		# kernel name, boot, the host's load at its start and end, then the rows
		[[ -s $csv ]] || head -n 1 "$g/placement.csv" | sed 's/^/kernel_name,boot,load_start,load_end,/' >"$csv"
		tail -n +2 "$g/placement.csv" | sed "s/^/$k,$b,$l0,$l1,/" >>"$csv"
	done
done
stop_stress
stress=
{
	info_head "BOOTS=$boots ROUNDS=$rounds DURATION=$dur BUSY=$busy${PLACEMENT:+ PLACEMENT=$place} make bench-placement KERNELS=\"${kernels[*]}\""
	echo "accel=$(cat "$out/guest-${kernels[0]}-1/accel")"
	echo "busy=$busy"
} >"$csv.info"
python3 "$SCY_REPO/bench/placement/report.py" "$csv" "$out"
log "results in $out: placement.csv, placement.md, placement.png (the committed page:"
page=Documentation/results/
[[ $place == cgroup-session ]] || page+=placement-$place/
log "  cp $out/placement.{csv,csv.info,md,png} $page)"
