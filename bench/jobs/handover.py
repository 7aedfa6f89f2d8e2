#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""handover.py TRACE.dat JOBS.csv: after a job's worker yields its CPU to
the harvest placement's extra work (cpu-work), how long the extra work
keeps that CPU, per knob value.

TRACE.dat is a trace-cmd recording with the monotonic clock (-C mono) of
sched:sched_switch during bench/jobs/guest.sh with a harvest placement;
JOBS.csv the rows that run wrote (-o), whose start_ns and end_ns (the same
clock) tell which job window, and so which knob value, a switch belongs
to. A hand-over is a switch from a runnable job-libomp thread (it yielded)
to cpu-work; it ends at cpu-work's next switch away on that CPU.
"""
import csv
import re
import subprocess
import sys

SWITCH = re.compile(r'^\s*\S+\s+\[(\d+)\]\s+([\d.]+):\s+sched_switch:\s+(.*?):\d+ \[-?\d+\] (\S+) ==> (.*?):\d+ \[-?\d+\]')


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: handover.py TRACE.dat JOBS.csv')
    wins = [(int(r['start_ns']), int(r['end_ns']), r['knob'])
            for r in csv.DictReader(open(sys.argv[2])) if r['placement'].startswith('harvest')]
    rep = subprocess.run(['trace-cmd', 'report', '-t', '-i', sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    held, spans = {}, {}
    for line in rep.splitlines():
        m = SWITCH.match(line)
        if not m:
            continue
        cpu, t = int(m.group(1)), int(round(float(m.group(2)) * 1e9))
        prev, state, nxt = m.group(3), m.group(4), m.group(5)
        if cpu in held and prev.startswith('cpu-work'):
            t0, knob = held.pop(cpu)
            spans.setdefault(knob, []).append((t - t0) / 1e6)
        if prev.startswith('job-libomp') and state.startswith('R') and nxt.startswith('cpu-work'):
            knob = next((w[2] for w in wins if w[0] <= t <= w[1]), None)
            if knob is not None:
                held[cpu] = (t, knob)
    for knob, d in sorted(spans.items()):
        d.sort()

        def q(p):
            return d[min(len(d) - 1, int(p * len(d)))]
        print(f'knob {knob}: {len(d)} hand-overs from a yielding job thread to cpu-work; '
              f'cpu-work kept the CPU p50 {q(0.5):.2f} ms, p90 {q(0.9):.2f} ms, '
              f'p99 {q(0.99):.2f} ms, max {d[-1]:.2f} ms, {sum(d):.0f} ms in all')


main()
