#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""handover.py TRACE.dat JOBS.csv: after a job's worker yields its CPU to
the harvest placements' extra work (cpu-work), how long the extra work
keeps that CPU, per knob value and placement.

handover.py --turns TRACE.dat JOBS.csv: per set of jobs (knob, runtime,
placement) and CPU, each thread's share of the CPU in the set's window
and its turns on it (how long it kept the CPU each time it got it: p50,
p90, max): where a job waits, and for whom.

TRACE.dat is a trace-cmd recording with the monotonic clock (-C mono) of
sched:sched_switch during bench/jobs/guest.sh; JOBS.csv the rows that run
wrote (-o), whose start_ns and end_ns (the same clock) tell which set,
and so which knob value, a switch belongs to. A hand-over is a switch
from a runnable job-libomp thread (it yielded) to cpu-work; it ends at
cpu-work's next switch away on that CPU.
"""
import csv
import re
import subprocess
import sys

SWITCH = re.compile(r'^\s*\S+\s+\[(\d+)\]\s+([\d.]+):\s+sched_switch:\s+(.*?:\d+) \[-?\d+\] (\S+) ==> (.*?:\d+) \[-?\d+\]')


def switches(trace):
    """(cpu, t_ns, prev, prev_state, next) of each sched_switch, in order"""
    rep = subprocess.run(['trace-cmd', 'report', '-t', '-i', trace],
                         capture_output=True, text=True, check=True).stdout
    for line in rep.splitlines():
        m = SWITCH.match(line)
        if m:
            yield (int(m.group(1)), int(round(float(m.group(2)) * 1e9)),
                   m.group(3), m.group(4), m.group(5))


def quantile(d, p):
    return d[min(len(d) - 1, int(p * len(d)))]


def handovers(trace, rows):
    wins = [(int(r['start_ns']), int(r['end_ns']), (r['knob'], r['placement']))
            for r in rows if r['placement'].startswith('harvest')]
    held, spans = {}, {}
    for cpu, t, prev, state, nxt in switches(trace):
        if cpu in held and prev.startswith('cpu-work'):
            t0, key = held.pop(cpu)
            spans.setdefault(key, []).append((t - t0) / 1e6)
        if prev.startswith('job-libomp') and state.startswith('R') and nxt.startswith('cpu-work'):
            key = next((w[2] for w in wins if w[0] <= t <= w[1]), None)
            if key is not None:
                held[cpu] = (t, key)
    for (knob, placement), d in sorted(spans.items()):
        d.sort()
        print(f'knob {knob}, {placement}: {len(d)} hand-overs from a yielding job thread to cpu-work; '
              f'cpu-work kept the CPU p50 {quantile(d, 0.5):.2f} ms, p90 {quantile(d, 0.9):.2f} ms, '
              f'p99 {quantile(d, 0.99):.2f} ms, max {d[-1]:.2f} ms, {sum(d):.0f} ms in all')


def turns(trace, rows):
    sets = {}
    for r in rows:
        key = (r['knob'], r['rep'], r['runtime'], r['placement'])
        s, e = sets.get(key, (None, None))
        a, b = int(r['start_ns']), int(r['end_ns'])
        sets[key] = (a if s is None else min(s, a), b if e is None else max(e, b))
    wins = sorted((s, e, key) for key, (s, e) in sets.items())
    # per set, per (cpu, thread): the lengths of its turns (ms)
    got, on = {}, {}
    for cpu, t, prev, _state, nxt in switches(trace):
        if cpu in on:
            t0, who = on[cpu]
            for s, e, key in wins:
                a, b = max(s, t0), min(e, t)
                if a < b:
                    got.setdefault(key, {}).setdefault((cpu, who), []).append((b - a) / 1e6)
        on[cpu] = (t, nxt)
    for s, e, key in wins:
        knob, rep, rt, pl = key
        print(f'knob {knob}, run {rep}, {rt} {pl}: {(e - s) / 1e6:.0f} ms')
        for (cpu, who), d in sorted(got.get(key, {}).items()):
            d.sort()
            share = sum(d) / ((e - s) / 1e6)
            if share < 0.01:
                continue
            print(f'  CPU {cpu} {who}: {100 * share:.0f}% in {len(d)} turns, '
                  f'p50 {quantile(d, 0.5):.2f} ms, p90 {quantile(d, 0.9):.2f} ms, max {d[-1]:.2f} ms')


def main():
    args = sys.argv[1:]
    mode = handovers
    if args[:1] == ['--turns']:
        mode, args = turns, args[1:]
    if len(args) != 2:
        sys.exit('usage: handover.py [--turns] TRACE.dat JOBS.csv')
    mode(args[0], list(csv.DictReader(open(args[1]))))


main()
