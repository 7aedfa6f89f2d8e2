#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables and figure data of the MPI benchmarks.

usage: report.py PREFIX DIR...

Reads DIR/mpi-all.csv (and accel, calibration.csv, mpich-ch3-polls) of
each result directory (bench-mpi-all-KVER-FLAVOR); writes PREFIX-runs.csv,
PREFIX.md (a first sentence from the latency table, the figures, the
tables, the commands and accelerators at the end) and the gnuplot data
PREFIX-latency.dat, PREFIX-harvest.dat.
SCY_REPORT_UNIT names the time unit (instructions under -icount or plain
TCG time). bench/mpi-all/report.sh runs it and draws the figures.
"""
import csv, os, statistics, sys

prefix, dirs = sys.argv[1], sys.argv[2:]
rows, cols, accel, cal, polls = [], [], {}, {}, {}
for d in dirs:
    name = os.path.basename(d.rstrip('/')).replace('bench-mpi-all-', '')
    kver, flavor = name.split('-', 1)
    try:
        polls[name] = open(os.path.join(d, 'mpich-ch3-polls')).read().strip()
    except OSError:
        pass
    try:
        accel[name] = open(os.path.join(d, 'accel')).read().strip()
    except OSError:
        accel[name] = 'unknown'
    try:
        cal[name] = open(os.path.join(d, 'calibration.csv')).read().strip().split(',')[-1]
    except OSError:
        cal[name] = ''
    with open(os.path.join(d, 'mpi-all.csv')) as f:
        for r in csv.DictReader(f):
            r['flavor'] = flavor
            r['kver'] = kver
            r['accel'] = accel[name]
            rows.append(r)
            col = (kver, flavor, r['knob'])
            if col not in cols:
                cols.append(col)

fields = ['kver', 'flavor'] + [k for r in rows for k in r.keys()
                               if k not in ('kver', 'flavor', 'accel')] + ['accel']
fields = list(dict.fromkeys(fields))
# plain-TCG columns (the lat4tcg steps) are kept apart from the -icount ones
def is_tcg(c):
    return c[1].endswith('-lat4tcg')
tcg_cols = [c for c in cols if is_tcg(c)]
cols = [c for c in cols if not is_tcg(c)]
with open(prefix + '-runs.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction='ignore')
    w.writeheader()
    w.writerows(rows)

libs = ['openmpi-y0', 'openmpi-y1', 'mpich']
# the ch3:nemesis MPICH (bench/mpi-all/build-mpich-ch3.sh) only where it ran
libs += [l for l in ('mpich-ch3-y0', 'mpich-ch3-y1') if any(r['lib'] == l for r in rows)]
pv = sorted(set(polls.values()))
libname = {'openmpi-y0': 'Open MPI, yield_when_idle 0',
           'openmpi-y1': 'Open MPI, yield_when_idle 1',
           'mpich': 'MPICH 4.0 (ch4:ucx, polls)',
           'mpich-ch3-y0': 'MPICH 4.0 ch3:nemesis, POLLS_BEFORE_YIELD 0 (polls)',
           'mpich-ch3-y1': 'MPICH 4.0 ch3:nemesis, POLLS_BEFORE_YIELD '
                           + (pv[0] if len(pv) == 1 else '(see the runs)') + ' (yields)'}

def colname(c):
    k, fl, knob = c
    fl = fl.replace('-lat4tcg', '')
    return f'{k} {fl}' + ('' if knob == 'stock' else f', knob {knob}')

def sel(part, lib, col):
    return [r for r in rows if r['part'] == part and r['lib'] == lib
            and (r['kver'], r['flavor'], r['knob']) == col]

def fmt(x):
    x = float(x)
    return f'{x:.0f}' if x >= 100 else f'{x:.2f}' if x < 10 else f'{x:.1f}'

def med(rs, key):
    return statistics.median(float(r[key]) for r in rs)

def spread(rs, key):
    v = [float(r[key]) for r in rs]
    return f'{fmt(min(v))}-{fmt(max(v))}' if len(v) > 1 else ''

out = []
def table(title, desc, part, cell, cols=cols):
    present = [c for c in cols if any(sel(part, l, c) for l in libs)]
    if not present:
        return
    out.append(f'**{title}:** {desc}\n')
    out.append('| wait strategy | ' + ' | '.join(colname(c) for c in present) + ' |')
    out.append('|---|' + '---:|' * len(present))
    for l in libs:
        cells = []
        for c in present:
            rs = sel(part, l, c)
            cells.append(cell(rs, part, l, c) if rs else 'n/a')
        out.append(f'| {libname[l]} | ' + ' | '.join(cells) + ' |')
    out.append('')

def shared(rs):
    # ranks 2k and 2k+1 are a pair: on one CPU at the loop's start, its end
    st = en = n = 0
    for r in rs:
        cpus = [x.split(':') for x in (r.get('rank_cpus') or '').split('/') if x]
        for k in range(0, len(cpus) - 1, 2):
            n += 1
            st += cpus[k][0] == cpus[k + 1][0]
            en += cpus[k][1] == cpus[k + 1][1]
    return f'; pairs on one CPU at start/end {st}/{en} of {n}' if n else ''

def lat_cell(rs, part, l, c):
    s = spread(rs, 'median_us')
    return f"{fmt(med(rs, 'median_us'))} ({'run medians ' + s + '; ' if s else ''}p99 {fmt(med(rs, 'p99_us'))}; mean {fmt(med(rs, 'mean_us'))}{shared(rs) if part == 'lat4' else ''})"

def co_cell(rs, part, l, c):
    base = sel('lat', l, c)
    h = 100 * med(rs, 'harvest')
    sh = 100 * med(rs, 'co_share')
    hv = [100 * float(r['harvest']) for r in rs]
    rng = f' [runs {min(hv):.1f}-{max(hv):.1f}]' if len(hv) > 1 else ''
    txt = f'{h:.1f}%{rng} of wait ({sh:.1f}% of loop)'
    if base:
        per = lambda x: statistics.median(float(r['window_ns']) / float(r['iterations']) for r in x)
        ovh = 100 * (per(rs) / per(base) - 1)
        txt += f'; loop {ovh:+.1f}%, median {fmt(med(rs, "median_us"))} us'
    return txt

main = [r for r in rows if not r['flavor'].endswith('-lat4tcg')] or rows
n = sorted({r['rep'] for r in main})
it = sorted({r['iterations'] for r in main})
dl = sorted({r['delay_us'] for r in main})
# The commands that reproduce these runs, from the data themselves: one
# per set of kernels run with the same REPS, ITER and PARTS. A 6.1 kernel's
# plain-TCG 4-rank results (DIR-lat4tcg) come from the same command as its
# -icount ones when PARTS has lat4 and REPS and ITER are the same.
def conf(name):
    rs = [r for r in rows if f"{r['kver']}-{r['flavor']}" == name]
    a = accel[name]
    ic = a.split('icount shift=')[1].split(' ')[0] if 'icount shift=' in a else None
    return (ic, max((r['rep'] for r in rs), key=int),
            ','.join(sorted({r['iterations'] for r in rs})),
            list(dict.fromkeys(r['part'] for r in rs)),
            ' '.join(l for l in ALL_LIBS if any(r['lib'] == l for r in rs)))
ALL_LIBS = ('openmpi-y0', 'openmpi-y1', 'mpich', 'mpich-ch3-y0', 'mpich-ch3-y1')
names = [os.path.basename(d.rstrip('/')).replace('bench-mpi-all-', '') for d in dirs]
groups = {}
for name in names:
    if name.endswith('-lat4tcg') and name[:-len('-lat4tcg')] in names:
        continue
    ic, reps, iters, parts, strategies = conf(name)
    kernel = name
    if name.endswith('-lat4tcg'):
        kernel, ic = name[:-len('-lat4tcg')], 'tcg'
    elif name + '-lat4tcg' in names:
        t = conf(name + '-lat4tcg')
        if t[1:3] + t[4:] == (reps, iters, strategies):
            parts = parts + ['lat4']
        else:
            groups.setdefault(('tcg',) + t[1:3] + ('lat4', t[4]), []).append(name)
    groups.setdefault((ic, reps, iters, ' '.join(parts), strategies), []).append(kernel)
cmds = []
for (ic, reps, iters, parts, strategies), ks in groups.items():
    if ',' in iters or ic is None:
        cmds.append(f'{" ".join(ks)}: not one configuration (accelerator {ic}, ITER {iters}); see the runs\' CSV')
    else:
        cmds.append(('' if ic == 'tcg' else f'ICOUNT={ic} ')
                    + f'REPS={reps} ITER={iters} PARTS="{parts}" '
                    + ('' if strategies == ' '.join(ALL_LIBS) else f'LIBS="{strategies}" ')
                    + f'KERNELS="{" ".join(ks)}" make bench-mpi-all')
# The page: its title, the first sentence (from the latency tables),
# the figures (report.sh draws them where they have data), the tables,
# and how it was measured at the end
def words(xs):
    return xs[0] if len(xs) == 1 else ', '.join(xs[:-1]) + ' and ' + xs[-1]

def conclusion():
    part = next((p for p in ('lat', 'lat4') if any(sel(p, l, c) for l in libs for c in cols)), None)
    if part is None:
        return 'No latency part ran.'
    where = {'lat': '2 ranks on one CPU', 'lat4': '4 ranks (2 pairs) on 2 CPUs'}[part]
    yielding = {'openmpi-y1': 'Open MPI with yield_when_idle 1',
                'mpich-ch3-y1': 'MPICH ch3:nemesis yielding'}
    said = []
    for l, name in yielding.items():
        cells = []
        for (k, fl, knob) in cols:
            r1, r0 = sel(part, l, (k, fl, '1')), sel(part, l, (k, fl, '0'))
            if knob != '1' or not r1:
                continue
            cells.append(f"{fmt(med(r1, 'median_us'))} us"
                         + ('' if cells or said else ' per ping-pong at knob 1') + f' on {k} {fl}'
                         + (f" (knob 0: {fmt(med(r0, 'median_us'))} us)" if r0 else ''))
        if cells:
            said.append(f'{name}{"" if said else " takes"} {words(cells)}')
    polls = [med(sel(part, l, c), 'median_us') for l in ('openmpi-y0', 'mpich', 'mpich-ch3-y0')
             for c in cols if sel(part, l, c)]
    if polls:
        lo, hi = fmt(min(polls)), fmt(max(polls))
        said.append(f'the polling ones {lo if lo == hi else lo + "-" + hi} us on every kernel and knob')
    if not said:
        return f'Latency per ping-pong with {where}.'
    return (f'With {where}, ' + ', '.join(said[:-1]) + (', and ' if len(said) > 2 else ' and ')
            + said[-1] + ' (medians).') if len(said) > 1 else f'With {where}, {said[0]} (medians).'

kernels = list(dict.fromkeys(f'{k}-{fl}' for k, fl, _ in cols))
out.append(f'# Open MPI and MPICH with oversubscribed ranks: {words(kernels)}\n')
out.append(conclusion() + '\n')
base = os.path.basename(prefix)
if any(sel(p, l, c) for p in ('lat', 'lat4') for l in libs for c in cols):
    out.append(f'![latency]({base}-latency.png)\n')
if any(sel(p, l, c) for p in ('idle', 'coloc') for l in libs for c in cols):
    out.append(f'![harvest]({base}-harvest.png)\n')
out.append(f'Rank 0 a {",".join(dl)} us straggler, 1-byte messages, empty reply; '
           f'{",".join(it)} timed ping-pongs per run (a tenth more untimed first), '
           f'up to {len(n)} run(s) per point and knob value (REPS). ' +
           ('Times in guest us: under QEMU -icount shift=0 one guest ns is one executed instruction.\n'
            if 'icount' in os.environ.get('SCY_REPORT_UNIT', 'icount') else
            'Times in us of guest time under plain TCG: they depend on the host\'s load.\n'))
table('Latency, 2 ranks on one CPU', 'median of the samples in us '
      '(p99, mean)', 'lat', lat_cell)
table('Latency, 4 ranks (2 pairs) on 2 CPUs, placed by the scheduler',
      'median of all pairs\' samples in us (p99, mean)', 'lat4', lat_cell)
table('Latency, 4 ranks (2 pairs) on 2 CPUs, placed by the scheduler, '
      'under plain multi-threaded TCG (no -icount: the guest boots with 2 '
      'vCPUs then; these times depend on the host\'s load and do not compare '
      'with the tables of instructions)',
      'median of all pairs\' samples in us of guest time (p99, mean; how many '
      'pairs ran on one CPU at the start and the end of the timed loop, over '
      'all runs, where recorded)', 'lat4', lat_cell, cols=tcg_cols)
table('SCHED_IDLE co-runner (cpu-work -i) on the ranks\' CPU', 'the CPU '
      'time it got, as a share of the ranks\' wait time (timed loop - ITER x '
      'delay) and of the whole timed loop; the slowdown of one loop iteration '
      '(delay + ping-pong) against the same point without it; the '
      'ping-pong\'s median', 'idle', co_cell)
table('CPU hog in its own session (setsid, another autogroup; '
      'kernel.sched_autogroup_enabled=1) on the ranks\' CPU',
      'the same columns', 'coloc', co_cell)
# How far repeated runs of one point are apart
pts = {}
for r in rows:
    if r['flavor'].endswith('-lat4tcg'):
        continue
    pts.setdefault((r['part'], r['lib'], r['kver'], r['flavor'], r['knob']), []).append(r)
multi = {k: v for k, v in pts.items() if len(v) > 1}
if multi:
    def rel(v):
        v = [float(x) for x in v]
        m = statistics.median(v)
        return (max(v) - min(v)) / m if m else 0.0
    worst_med = max(multi.items(), key=lambda kv: rel(r['median_us'] for r in kv[1]))
    worst_win = max(multi.items(), key=lambda kv: rel(r['window_ns'] for r in kv[1]))
    exact = sum(1 for v in multi.values() if len({r['median_us'] for r in v}) == 1)
    out.append(f'Repeatability: {len(multi)} points ran more than once; the run '
               f'medians agree to the printed digit in {exact} of them. Largest '
               f'spread of the run medians: {100 * rel(r["median_us"] for r in worst_med[1]):.1f}% '
               f'({" ".join(worst_med[0])}); of the timed loop: '
               f'{100 * rel(r["window_ns"] for r in worst_win[1]):.1f}% ({" ".join(worst_win[0])}).\n')
out.append('## How this was measured\n')
out.append('Reproduce (one guest at a time; 6.1 guests get one vCPU, and its lat4 part'
           ' runs in a second guest under plain TCG):\n')
out.append('\n'.join('    ' + c for c in cmds) + '\n')
out.append('Accelerator: ' + '; '.join(f'{k}: {v}' for k, v in accel.items()) + '.\n')
out.append('cpu-work alone on the CPU (calibration, ns per unit of work): '
           + '; '.join(f'{k}: {v}' for k, v in cal.items()) + '\n')
open(prefix + '.md', 'w').write('\n'.join(out))

# figure data: one line per wait strategy, one column per kernel/knob
# (a column without a single value would make gnuplot's histogram fail)
present = [c for c in cols if any(sel(p, l, c) for p in ('lat', 'lat4') for l in libs)]
with open(prefix + '-latency.dat', 'w') as f:
    f.write('strategy ' + ' '.join('"' + colname(c) + '"' for c in present) + '\n')
    for part in ('lat', 'lat4'):
        if not any(sel(part, l, c) for l in libs for c in present):
            continue
        for l in libs:
            f.write(f'"{part} {l}" ' + ' '.join(
                f"{med(sel(part, l, c), 'median_us'):.3f}" if sel(part, l, c) else 'NaN'
                for c in present) + '\n')
present = [c for c in cols if any(sel(p, l, c) for p in ('idle', 'coloc') for l in libs)]
with open(prefix + '-harvest.dat', 'w') as f:
    f.write('strategy ' + ' '.join('"' + colname(c) + '"' for c in present) + '\n')
    for part in ('idle', 'coloc'):
        for l in libs:
            f.write(f'"{part} {l}" ' + ' '.join(
                f"{100 * med(sel(part, l, c), 'harvest'):.2f}" if sel(part, l, c) else 'NaN'
                for c in present) + '\n')
