#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/placement/guest.sh BIN OUT ROUNDS DURATION [PLACEMENT]: in a guest,
# the yielder (yield-share, knob 1, one nice-0 hog on one CPU) in a cpu
# cgroup of its own beside the hog, which PLACEMENT puts (yield-share -p:
# cgroup-session, the default, a session of its own; cgroup-root, a plain
# task of the root group), against the yielder in a session of its own
# (session), one window of DURATION seconds each per round, ROUNDS rounds. The placements alternate, and which one
# goes first alternates from round to round, so that a host whose load
# changes during the boot, and the boot's own warm-up, weigh on both alike.
# Appends yield-share's CSV rows to OUT with the round in front (the header
# once).
set -euo pipefail
bin=${1:?usage: guest.sh BIN OUT ROUNDS DURATION [PLACEMENT]}
out=${2:?} rounds=${3:?} dur=${4:?} place=${5:-cgroup-session}
case $place in
cgroup-session | cgroup-root) ;;
*) echo "guest.sh: PLACEMENT must be cgroup-session or cgroup-root (got '$place')" >&2; exit 2 ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "guest.sh: ROUNDS must be a positive integer (got '$rounds')" >&2; exit 2; }
[[ $dur =~ ^[1-9][0-9]*$ ]] || { echo "guest.sh: DURATION must be whole seconds, at least 1 (got '$dur')" >&2; exit 2; }
share=$bin/yield-share
[[ -x $share ]] || { echo "guest.sh: $share not found (make userspace)" >&2; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for ((r = 1; r <= rounds; r++)); do
	order="$place session"
	((r % 2)) || order="session $place"
	for p in $order; do
		"$share" -k 1 -d "$dur" -r 1 -p "$p" -f csv -o "$tmp"
		[[ -s $out ]] || head -n 1 "$tmp" | sed 's/^/round,/' >"$out"
		tail -n +2 "$tmp" | sed "s/^/$r,/" >>"$out"
		echo "round $r/$rounds, $p: $(tail -n +2 "$tmp" | cut -d, -f16,17)"
	done
done
