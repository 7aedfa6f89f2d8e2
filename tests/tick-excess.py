#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tick-excess.py TICK_US DUMP[:CSV]...: how far the knob-1 samples of time
away lie past their whole ticks, from compat_yield_matrix -D DUMP (and the
same run's -o CSV, for each cell's event).

A sample of a compat yield is whole ticks of its rivals' turns plus the
path from the tick that ends the last turn back into the yielder, less the
path back from the tick before: the spread of that path is what the time
limits' slack covers (selftests/sched_compat_yield/contract.h,
CT_SLACK_NS). Counted: the knob-1 samples of at least half a tick, each
window's first left out (it starts with the window, not after a tick);
their excess is the sample less the nearest whole number of ticks. Printed
per kernel file and event: how many, how many lie 0-100, 100-200, 200-400
and over 400 us past, the largest under 400 us, and of those over 400 us
how many are a window's last sample (it spans the test's own wake-up at the
window's end).
"""
import collections
import csv
import sys

csv.field_size_limit(1 << 30)


def events(path):
    ev = {}
    if not path:
        return ev
    with open(path) as f:
        for r in csv.DictReader(f):
            ev[r['cell']] = r['event']
    return ev


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    q = float(sys.argv[1])
    bins = (100, 200, 400)
    rows = collections.OrderedDict()
    for arg in sys.argv[2:]:
        dump, _, cpath = arg.partition(':')
        ev = events(cpath)
        with open(dump) as f:
            for r in csv.DictReader(f):
                if r['knob'] != '1' or not r['samples_us']:
                    continue
                s = [float(x) for x in r['samples_us'].split()]
                key = (dump, ev.get(r['cell'], '?'))
                st = rows.setdefault(key, {'n': 0, 'bins': [0] * 4,
                                           'top': 0.0, 'last': 0,
                                           'windows': 0})
                st['windows'] += 1
                for i, x in enumerate(s):
                    if i == 0 or x < q / 2:
                        continue
                    e = x - round(x / q) * q
                    st['n'] += 1
                    if e <= 0:
                        continue
                    b = sum(1 for t in bins if e > t)
                    st['bins'][b] += 1
                    if e <= bins[-1]:
                        st['top'] = max(st['top'], e)
                    elif i == len(s) - 1:
                        st['last'] += 1
    print('dump,event,windows,samples,past_0_100,past_100_200,'
          'past_200_400,past_over_400,largest_under_400_us,'
          'over_400_last_of_window')
    for (dump, e), st in rows.items():
        print('%s,%s,%d,%d,%s,%.1f,%d' % (dump, e, st['windows'], st['n'],
                                         ','.join(map(str, st['bins'])),
                                         st['top'], st['last']))


if __name__ == '__main__':
    main()
