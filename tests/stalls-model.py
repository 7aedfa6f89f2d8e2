#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A model of the stalls stage's "-S keeps a genuine wait" check.

tests/stalls.sh runs a matrix cell with -S in a guest whose kernel keeps
every compat yield 50 ms of its rivals' running time longer
(scy_fault=delay:1), while the host stops QEMU for 60 ms every 600 ms.
The 50 ms are guest time, which a stall is part of, so -S, which takes out
of each sample the stalls it spans, leaves 50 ms less those. The check:
the knob-1 median net of the stalls >= half of the 50 ms times the part
of the knob-1 window QEMU's vCPU thread was on a CPU, as the host
measures it.

This model lays 54-ms samples (50 ms and a tick) end to end over a
1.2-s window with the host's stops and a busy host's short stalls
(exponential, mean 3 ms) taking 2-30% of the time, and checks, over
many seeded runs: the check holds with -S as it is, and fails on -S that
takes out whole samples (or every wait of the fault). A stop lasts some
65 ms (the host's signals and timer around its 60), and -S sees it 20 ms
longer than it was: the probe's vCPU wakes late after QEMU resumes,
while the measured vCPU already runs (seen in the stalls stage's guests:
stops of 80-90 ms as -S saw them); those 20 ms are no stall but -S
takes them out. So are 20-60 late wake-ups of the probe per window, of
1-9 ms each, while the guest ran (the stalls stage's 6.1 guest, host
otherwise idle: 25-55 per 1.2-s window, many of 4.3 ms, and samples of
the fault that spanned 15 ms of them no longer than the others): the
half is for them. At the whole part the check fails in about half the
runs of the model, which has more of those wake-ups than most of the
guests' windows, and it failed in make check (the median 39 ms against
41 kept). It
reports, as comments, those runs and the smaller errors the median does
not see: -S that takes out twice the stall time a sample spans, or 4 ms
more. Prints TAP.
"""
import random
import statistics
import sys

WINDOW = 1200.0       # ms
SAMPLE = 54.0         # the fault's 50 ms and a tick, ms
WAIT = 50.0           # ms
STOP, PERIOD = 65.0, 665.0
LAG = 20.0            # after a stop, seen by -S as a stall, the guest ran
LATE = (20, 60)       # the probe's late wake-ups per window, the guest ran
LATE_MS = (1.0, 9.0)  # their lengths, ms
KEEP = 0.5            # the part of the wait the check keeps
RUNS = 400


def stalls(rnd, busy):
    """([(start, end)] of the stops and of the busy host's stalls, ms,
    the same as -S sees them)"""
    out, seen = [], []
    t = rnd.uniform(-PERIOD, 0)
    while t < WINDOW:
        out.append((t, t + STOP))
        seen.append((t, t + STOP + LAG))
        t += PERIOD + rnd.uniform(-5, 5)
    mean = 3.0
    rate = busy / (mean * (1 - busy))
    t = 0.0
    while t < WINDOW:
        t += rnd.expovariate(rate)
        length = rnd.expovariate(1 / mean)
        out.append((t, t + length))
        seen.append((t, t + length))
        t += length
    for _ in range(rnd.randint(*LATE)):
        t = rnd.uniform(0, WINDOW)
        seen.append((t, t + rnd.uniform(*LATE_MS)))
    return out, merged(seen)


def merged(lst):
    """the intervals of lst, overlaps joined: -S keeps its stalls disjoint"""
    out = []
    for a, b in sorted(lst):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def run(seed, busy, take):
    """one window: (median net, the limit); take(sample, spanned) -> taken"""
    rnd = random.Random(seed)
    st, seen = stalls(rnd, busy)

    def spanned(lst, t):
        return sum(max(0.0, min(b, t + SAMPLE) - max(a, t)) for a, b in lst)

    nets, t, stalled = [], 0.0, 0.0
    while t + SAMPLE < WINDOW:
        nets.append(max(0.0, SAMPLE - take(SAMPLE, spanned(seen, t))))
        stalled += spanned(st, t)
        t += SAMPLE
    # the host's measure: the part of the time QEMU's vCPU thread ran
    return statistics.median(nets), WAIT * (1 - stalled / t)


def main():
    cases = [
        ("-S as it is: a sample loses the stall time it spans",
         lambda s, x: x, True),
        ("-S that takes out whole samples", lambda s, x: s, False),
    ]
    unseen = [
        ("-S that takes out twice the stall time a sample spans",
         lambda s, x: 2 * x),
        ("-S that takes out 4 ms more than a sample spans",
         lambda s, x: x + 4),
    ]
    levels = (0.02, 0.1, 0.18, 0.3)

    def held(take, busy, keep=KEEP):
        return sum(1 for i in range(RUNS)
                   if (lambda m, part: m >= keep * part)(*run(i, busy, take)))

    print("1..%d" % (len(cases) * len(levels)))
    n = 0
    for name, take, must_hold in cases:
        for busy in levels:
            h = held(take, busy)
            n += 1
            ok = h == RUNS if must_hold else h == 0
            want = "holds in all" if must_hold else "fails in all"
            print("%s %d - %s, a busy host's stalls %d%% of the time: the check %s %d runs (held in %d)"
                  % ("ok" if ok else "not ok", n, name, round(100 * busy),
                     want, RUNS, h))
    print("# at the whole part, -S as it is: the check holds in %s of %d runs (busy host 2/10/18/30%%)"
          % ("/".join(str(held(cases[0][1], b, 1.0)) for b in levels), RUNS))
    for name, take in unseen:
        print("# not seen by the check: %s: it holds in %s of %d runs (busy host 2/10/18/30%%)"
              % (name, "/".join(str(held(take, b)) for b in levels), RUNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
