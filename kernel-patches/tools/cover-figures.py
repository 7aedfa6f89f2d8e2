#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cover-figures.py KVER: the measurements paragraph of the cover letter of
kernel-patches/vKVER, made from the committed CSVs of Documentation/results/
(export-series.sh puts it where cover.in has the line @MEASURED@):

  - the seed paper's share benchmark (bench-share-KVER-{stock,patched}.csv):
    the yielder's CPU-time share and, in brackets, its loop-iteration share,
    per placement, medians over the runs;
  - the Open MPI ping-pong and its SCHED_IDLE co-runner (mpi-all-runs.csv:
    parts lat and idle, lib openmpi-y1), medians of the runs' medians, the
    co-runner's CPU time as a share of the ranks' wait, per run;
  - the cost in instructions (bench-knoboff-KVER.csv: stock against the
    series at 0; bench-cost-KVER-patched.csv: 1000 runnable threads against
    2), medians over the runs.

Each figure names its CSV; nothing is typed in by hand.
"""
import csv
import os
import statistics
import sys

RES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                   'Documentation', 'results')


def rows(name):
    with open(os.path.join(RES, name)) as f:
        return list(csv.DictReader(f))


def med(xs):
    xs = [float(x) for x in xs]
    if not xs:
        sys.exit('cover-figures.py: no data for a figure')
    return statistics.median(xs)


def shares(kver):
    stock = rows('bench-share-%s-stock.csv' % kver)
    patched = rows('bench-share-%s-patched.csv' % kver)
    places = [('baseline', 'getppid vs getppid'),
              ('yield-1hog', 'same group, 1 hog'),
              ('yield-3hogs', 'same group, 3 hogs'),
              ('yield-session', 'own session (autogroup)'),
              ('yield-cgroup', 'own cpu cgroup')]

    def cell(data, scen, knob):
        sel = [r for r in data if r['scenario'] == scen and r['knob'] == knob]
        return '%6.2f%% (%6.3f%%)' % (
            100 * med(r['yielder_cpu_share'] for r in sel),
            100 * med(r['yielder_counter_share'] for r in sel))

    out = ['  %-24s %18s %18s %18s' % ('placement of the yielder', 'stock',
                                      'knob 0', 'knob 1')]
    for scen, label in places:
        out.append('  %-24s %18s %18s %18s' % (
            label, cell(stock, scen, 'stock'), cell(patched, scen, '0'),
            cell(patched, scen, '1')))
    return out


def mpi(kver):
    data = [r for r in rows('mpi-all-runs.csv')
            if r['kver'] == kver and r['lib'] == 'openmpi-y1']

    def sel(flavor, part, knob):
        return [r for r in data if r['flavor'] == flavor and
                r['part'] == part and r['knob'] == knob]
    lat1 = med(r['median_us'] for r in sel('patched', 'lat', '1'))
    lat0 = med(r['median_us'] for r in sel('patched', 'lat', '0'))
    stock = med(r['median_us'] for r in sel('stock', 'lat', 'stock'))
    idle = sel('patched', 'idle', '1')
    idle_lat = med(r['median_us'] for r in idle)
    co = [100 * float(r['co_cpu_ns']) / float(r['wait_ns']) for r in idle]
    return lat1, lat0, stock, idle_lat, min(co), max(co), len(co)


def costs(kver):
    ko = rows('bench-knoboff-%s.csv' % kver)

    def k(flavor, test):
        return med(r['ns_per_op'] for r in ko
                   if r['flavor'] == flavor and r['test'] == test)
    c = rows('bench-cost-%s-patched.csv' % kver)

    def thr(knob, tasks):
        return med(r['ns_per_call'] for r in c if r['knob'] == knob and
                   r['mode'] == 'yield' and r['threads'] == '1' and
                   r['tasks'] == tasks)
    ratio = {knob: thr(knob, '1000') / thr(knob, '2') for knob in '01'}
    return (k('stock', 'yield-n1'), k('patched', 'yield-n1'),
            k('stock', 'yield-n2'), k('patched', 'yield-n2'),
            k('stock', 'getppid-n1'), k('patched', 'getppid-n1'), ratio)


def pct(a, b):
    return '%+.2f%%' % (100 * (b - a) / a)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ('6.1', '6.12'):
        sys.exit('usage: cover-figures.py 6.1|6.12')
    kver = sys.argv[1]
    lat1, lat0, lats, idle_lat, co_lo, co_hi, co_n = mpi(kver)
    a1, b1, a2, b2, g0, g1, ratio = costs(kver)
    out = [
        'Measured on this revision in QEMU (TCG) guests of this kernel (the',
        'stock column: Debian\'s source without the series); the tables, their',
        'commands and CSVs are in the project\'s Documentation/results.md.',
        '',
        'The seed paper\'s benchmark, 30-second runs, a task calling',
        'sched_yield() in a loop against CPU hogs calling getppid(), all pinned',
        'to one CPU of two: CPU-time share of the yielder (share of its loop',
        'iterations in brackets; bench-share-%s-{stock,patched}.csv):' % kver,
        '',
    ] + shares(kver) + [
        '',
        'Open MPI 4.1 ping-pong, 2 ranks on one CPU, mpi_yield_when_idle 1, a',
        '50 us straggler, under QEMU -icount (times in executed instructions,',
        'medians of the runs\' medians; mpi-all-runs.csv): %.2f us with the' % lat1,
        'switch at 1, %.2f us at 0 and %.2f us on the stock kernel; with a' % (lat0, lats),
        'SCHED_IDLE loop on the CPU, %.2f us at 1, the loop getting %.1f-%.1f%%' % (idle_lat, co_lo, co_hi),
        'of the ranks\' wait over %d runs.' % co_n,
        '',
        'Cost in instructions (QEMU -icount, medians; bench-knoboff-%s.csv):' % kver,
        'with the switch at 0, a sched_yield() alone on the CPU %.1f -> %.1f' % (a1, b1),
        '(%s), a sched_yield() between two processes %.1f -> %.1f (%s),' % (pct(a1, b1), a2, b2, pct(a2, b2)),
        'getppid() %.1f -> %.1f. A yield among 1000 runnable threads on one' % (g0, g1),
        'CPU costs %.2f (switch at 0) and %.2f (at 1) times a yield between 2' % (ratio['0'], ratio['1']),
        '(bench-cost-%s-patched.csv).' % kver,
    ]
    print('\n'.join(out))


main()
