#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests-commit.sh KVER: (re)make the last commit of the dev tree
# (kernel-patches/tools/dev-tree.sh KVER) from selftests/sched_compat_yield, so that the series
# adds exactly the repo's selftests to tools/testing/selftests. Then run
# kernel-patches/tools/export-series.sh KVER. tests/host.sh checks that the two agree.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kver=${1:?usage: selftests-commit.sh KVER}
kver_check "$kver"
dir=$SCY_CACHE/dev/$kver
subject="selftests/sched: Add sched_compat_yield tests"
[[ -d $dir/.git ]] || die "no dev tree at $dir: run kernel-patches/tools/dev-tree.sh $kver"
if [[ $(git -C "$dir" log -1 --format=%s) == "$subject" ]]; then
	git -C "$dir" reset -q --hard HEAD~1
fi
dst=$dir/tools/testing/selftests/sched_compat_yield
rm -rf "$dst"
mkdir -p "$dst"
git -C "$SCY_REPO" ls-files selftests/sched_compat_yield | while read -r f; do
	cp "$SCY_REPO/$f" "$dst/"
done
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
f = d + '/tools/testing/selftests/Makefile'
s = open(f).read()
if 'TARGETS += sched_compat_yield\n' not in s:
    a = 'TARGETS += rtc\n'
    assert a in s
    s = s.replace(a, a + 'TARGETS += sched_compat_yield\n', 1)
    open(f, 'w').write(s)
f = d + '/MAINTAINERS'
s = open(f).read()
a = 'F:\tDocumentation/scheduler/sched-compat-yield.rst\n'
line = 'F:\ttools/testing/selftests/sched_compat_yield/\n'
assert a in s
if line not in s:
    s = s.replace(a, a + line, 1)
    open(f, 'w').write(s)
PY
git -C "$dir" add -A -f tools/testing/selftests/sched_compat_yield
git -C "$dir" add -A -f tools/testing/selftests/Makefile MAINTAINERS
git -C "$dir" commit -q -F - <<MSG
$subject

Add the tests that show what sched_compat_yield does, under
tools/testing/selftests/sched_compat_yield:

compat_yield_share runs the benchmark of the paper that reinstated
the switch: for a fixed time (30 s by default, -d SECONDS) workers
pinned to one CPU run "counter++" plus sched_yield() (the yielder) or
getppid() (the hogs) in a tight loop, and report their share of the
loop iterations and of the CPU time (/proc/PID/schedstat). Scenarios:
getppid against getppid (the 50/50 baseline), the yielder against one
and three hogs in its group, in its own session (autogroup), in its own
cpu cgroup beside the hog's, and in its own cpu cgroup with the hog in
the root cgroup in a session of its own. With the switch present each
runs at 0 and at 1; the baseline must split the CPU time 50/50 +- 3
points (loop counts drift when a hypervisor steals time from the
running worker; they are reported) and, at 1, the yielder must get at
most 1% of the iterations in every scenario where the run at 0 gave it
more (where the stock yield already stays below that, the check is
skipped and says why).
Without the switch the numbers are reported and the switch checks are
skipped.

compat_yield_latency measures what a waiting program feels: how long
each sched_yield() keeps the caller away from its CPU (p50, p99, max),
one CPU shared with a nice-0 hog alone and with the hog plus one light
task (SCHED_IDLE, nice 19, or a cpu.idle=1 cgroup), the yielder in the
hog's group, in an autogroup of its own or in a cpu cgroup of its own.
With the switch at 1 each window's median, p99 and maximum must stay
within the larger of the contract's bound for the yielder's rivals (the
rest of its request and a slice of its own, weighted by the rivals'
total weight over its own, rounded up to the tick, a tick more for the
p99 and maximum; the slices read from /sys/kernel/debug/sched) and the
same figure at 0; a yielder that gets fewer than 20 yields in a window
was stalled.
It also yields once and sleeps 1 ms, repeatedly: the p99 oversleep at
1 may exceed the one at 0 by at most one tick. And with the hog and a
sibling of the yielder in its group that runs 100 us and sleeps 1 ms,
no yield at 1 may return to the yielder with nothing else run
(counted with getrusage(): an empty yield adds no context switch);
the sibling's sleep leaves the group's entity as the next buddy above
it. The placement code
(autogroup, cgroups) is shared with the share benchmark (place.c).

compat_yield_matrix judges the switch's contract (what runs before the
yielder runs again, the time away per yield, never weaker than the
stock yield, a light sibling) over a generated matrix of topologies: a
yielder and one to three rivals of SCHED_IDLE, nice 19, nice 0 or nice
-10, in one group, in autogroups, in sibling cpu cgroups, in a cpu
cgroup beside plain tasks of the root group, in a batch system's
seven-level tree, or each placed on its own, with one event (none; a
rival flipping between light and heavy by nice, cpu.weight or cpu.idle
every 300 ms; a rival sleeping and waking; the yielder migrating; a
SCHED_IDLE sibling in the yielder's group). Per cell a window at 0 and
at 1, and a TAP line per check: at 1 the median, p99 and maximum time
away per yield within the contract's bound for the cell's weights,
slices, tick and event (contract.c; where the livepatch runs on a
kernel with its own reweight_entity(), a flipped rival's request of its
light state is a term of the flip cells' p99 and maximum), or the same
figure at 0 where that is larger; no yield returning before a rival
ran, the yielder's loop share at most 0.5% and its CPU share at most a
point above its share at 0, where a rival of its weight competes; with
the sibling at most twice its CPU share without it (plus a point).
With -U (a guest whose host may stop it) only the loop share is
judged. A default set covers every placement, event and weight
(3-wise); -F runs the full product. With -O the windows at 1 keep the
switch at 0 and set cpu.compat_yield of the yielder's job group
instead, with -R that of its rivals' group: with both they are judged
as at 1; with -R alone the yielder, outside every group at 1, must
yield as at 0 (its median and p99 time away within a tick of the
window at 0's, as many yields returning at once, at least half its
loop share).

compat_yield_abi checks the switch: sysfs and sysctl agree, every
invalid write fails with EINVAL and changes nothing, the file is 0644
and refuses non-root writers, and the prior value is restored.

Signed-off-by: $(git -C "$dir" config user.name) <$(git -C "$dir" config user.email)>
MSG
bash "$SCY_REPO/kernel-patches/tools/export-series.sh" "$kver"
