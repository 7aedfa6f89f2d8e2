#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tick-level models of one EEVDF run queue (Linux 6.12) and one CFS run
queue (Linux 6.1) with the compat yield, against the bound the matrix
judges by (contract-check bound).

usage: contract-model.py CONTRACT_CHECK

The model: a yielder of nice 0 and rivals of the matrix's weights (SCHED_IDLE
3, nice 19 15, nice 0 1024, nice -10 9548) in one group, on one CPU whose
only scheduling points are the ticks and the yields. V is the weighted
average vruntime of all entities, the running one included; an entity is
eligible while its vruntime is at most V; a pick takes the eligible entity
with the earliest deadline (pick_eevdf(); RUN_TO_PARITY keeps the running
entity until its deadline). A rival runs to the next tick, where its
vruntime grows by tick * 1024 / w and, past its deadline, it gets a new
request of one slice (update_deadline()) and the CPU is picked again. The
yielder yields as soon as it runs, by the series' rule (yield_entity_compat():
vruntime := max(vruntime, min(V_r, vruntime + span)) + rest of its request,
deadline one vslice on), and its time away is the time until it is picked
again.

CFS: the running entity is preempted at a tick once it has run its
sched_slice() (period max(latency, entities * min_gran) times its share of
the weight, at least min_gran), or once its vruntime is that far past the
leftmost one's (check_preempt_tick()); a pick takes the lowest vruntime.
The yielder yields by the series' rule (vruntime := max(vruntime,
leftmost) + max(slice, wakeup granularity) in its virtual time, while it is
less than one such move ahead).

For every list of one to three rivals, with the parameters of a one-CPU
guest and of a two-CPU one, HZ=250, from two starting states: the median
and the longest time away must stay within the bound contract.c gives
(p50; max). Prints TAP, one line per kernel and setting.
"""
import itertools
import random
import subprocess
import sys

WEIGHTS = {"idle": 3, "nice19": 15, "nice0": 1024, "nice-10": 9548}
TICK = 4.0          # ms
TICKS = 3000        # per run
LONG_SLICE = 100.0  # ms, the long-slice cells' custom slice
SEEDS = 2


def model(weights, base, seed, long_slice=0.0):
    """The yielder's times away (ms) beside rivals of @weights; with
    @long_slice, the first rival's custom slice (ms)."""
    rnd = random.Random(seed)
    ws = [1024] + list(weights)
    n = len(ws)
    vs = [base * 1024 / w for w in ws]
    if long_slice:
        vs[1] = long_slice * 1024 / ws[1]
    v = [rnd.uniform(0, 0.5) for _ in range(n)]
    d = [v[i] + vs[i] for i in range(n)]
    prot = [None] * n

    def avg(excl=None):
        tw = sum(ws[i] for i in range(n) if i != excl)
        return sum(ws[i] * v[i] for i in range(n) if i != excl) / tw

    def eligible(i):
        return avg() >= v[i] - 1e-12

    def pick(curr):
        if curr is not None and eligible(curr) and prot[curr] == d[curr]:
            return curr
        return min((i for i in range(n) if eligible(i)), key=lambda i: (d[i], i))

    t, curr, waits, since = 0.0, 1, [], None
    prot[1] = d[1]
    for _ in range(TICKS):
        if curr:
            v[curr] += TICK * 1024 / ws[curr]
        t += TICK
        nxt = curr
        if v[curr] >= d[curr]:
            d[curr] = v[curr] + vs[curr]
            nxt = pick(curr)
        while nxt == 0:
            if since is not None:
                waits.append(t - since)
            prot[0] = None
            if eligible(0):
                if v[0] >= d[0]:
                    d[0] = v[0] + vs[0]
                rest = d[0] - v[0]
                vr, load, vv = avg(excl=0), sum(ws[1:]), v[0]
                if vr > vv:
                    span = (n - 1) * (base + TICK) * 1024 / load
                    vv += min(vr - vv, span)
                v[0] = vv + rest
                d[0] = v[0] + vs[0]
            since = t
            nxt = pick(None)
            if nxt == 0:
                # eligible again at once: counted as a wait of 0
                waits.append(0.0)
                break
        if nxt != curr:
            prot[nxt] = d[nxt]
        curr = nxt
    return sorted(waits)


def model_cfs(weights, latency, min_gran, wakeup_gran, seed):
    """The yielder's times away (ms) on CFS beside rivals of @weights."""
    rnd = random.Random(seed)
    ws = [1024] + list(weights)
    n = len(ws)
    # seed 0: every task at the same vruntime, as tasks forked together
    # start (rivals of equal weight then keep in step)
    v = [0.0] * n if seed == 0 else [rnd.uniform(0, 1) for _ in range(n)]

    def sched_slice(i):
        period = max(latency, n * min_gran)
        return max(period * ws[i] / sum(ws), min_gran)

    def leftmost(excl=None):
        return min((i for i in range(n) if i != excl), key=lambda i: (v[i], i))

    t, start, curr, waits, since = 0.0, 0.0, 1, [], None
    for _ in range(TICKS):
        if curr:
            v[curr] += TICK * 1024 / ws[curr]
        t += TICK
        ran, ideal = t - start, sched_slice(curr)
        if ran > ideal or (ran >= min_gran and v[curr] - v[leftmost(curr)] > ideal):
            nxt = leftmost()
            if nxt != curr:
                start = t
            curr = nxt
        while curr == 0:
            if since is not None:
                waits.append(t - since)
            first = leftmost(0)
            move = max(sched_slice(0), wakeup_gran)
            if v[0] - v[first] < move:
                v[0] = max(v[0], v[first]) + move
            since, start, curr = t, t, leftmost()
            if curr == 0:
                waits.append(0.0)
                break
    return sorted(waits)


def check(num, label, bound_args, run, lists, tool, by_name=False):
    over = []
    for combo in lists:
        ws = [WEIGHTS[c] for c in combo]
        args = list(combo) if by_name else [str(w) for w in ws]
        out = subprocess.run([tool] + bound_args + args,
                             capture_output=True, text=True, check=True).stdout
        b50, _, bmax = (int(x) / 1e6 for x in out.split())
        for seed in range(SEEDS):
            w = run(ws, seed)
            p50, mx = w[len(w) // 2], w[-1]
            if p50 > b50 or mx > bmax:
                over.append(f"{','.join(combo)}: p50 {p50:.0f} > {b50:.0f} "
                            f"or max {mx:.0f} > {bmax:.0f} ms")
    ok = "ok" if not over else "not ok"
    print(f"{ok} {num} - {label}, tick {TICK:.0f} ms: the model's median and "
          f"longest time away stay within the bound for all {len(lists)} "
          f"rival lists{': ' + '; '.join(over[:3]) if over else ''}")
    return not over


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: contract-model.py CONTRACT_CHECK")
    tool = sys.argv[1]
    lists = [c for nr in (1, 2, 3)
             for c in itertools.combinations_with_replacement(WEIGHTS, nr)]
    tick = str(int(TICK * 1e6))
    print("1..6")
    good = True
    for num, base in enumerate((0.70, 1.5), 1):
        good &= check(num, f"EEVDF, base slice {base:.2f} ms",
                      ["bound", "eevdf", str(int(base * 1e6)), tick],
                      lambda ws, seed, b=base: model(ws, b, seed), lists, tool)
    for num, (lat, mg, wg) in enumerate(((6.0, 0.75, 1.0), (12.0, 1.5, 2.0)), 3):
        good &= check(num, f"CFS, latency {lat:.0f} ms, min/wakeup granularity {mg:.2f}/{wg:.0f} ms",
                      ["bound", "cfs"] + [str(int(x * 1e6)) for x in (lat, mg, wg)] + [tick],
                      lambda ws, seed, a=(lat, mg, wg): model_cfs(ws, *a, seed),
                      lists, tool)
    # The long-slice cells: the first rival, of nice 19 as in the matrix,
    # has a custom slice of 100 ms and runs its turn first (the model
    # starts with it), so that every time away comes after it, as in a
    # window whose turn comes at its start.
    slice_lists = [("nice19",) + rest for nr in (1, 2, 3)
                   for rest in itertools.combinations_with_replacement(WEIGHTS, nr - 1)]
    for num, base in enumerate((0.70, 1.5), 5):
        good &= check(num, f"EEVDF long-slice, base slice {base:.2f} ms",
                      ["cell", "eevdf", str(int(base * 1e6)), tick, "long-slice"],
                      lambda ws, seed, b=base: model(ws, b, seed, LONG_SLICE),
                      slice_lists, tool, by_name=True)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
