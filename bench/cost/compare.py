#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/cost/compare.py GROUP:LABEL:CSV...: one table of yield costs.

GROUP names a kernel build (e.g. "6.12, Debian's binary"), LABEL the
variant of it a CSV measured (stock, livepatch, patched).

Each CSV is the output of bench/cost/guest.sh (make bench-cost: columns
kernel,knob,mode,threads,tasks,...,ns_per_call) or of bench/cost/knoboff.sh
(make bench-knoboff: flavor,...,test,run,ns_per_op; only its stock rows are
taken). Under -icount ns are instructions. Prints a markdown table with
one row per CSV and knob value: the medians of a yield alone on the CPU, a
yield between 2 processes, a yield among 1000 threads (bench-cost only) and
getppid(), and the first two relative to the stock row of the same GROUP.
"""
import csv
import statistics
import sys


def rows_cost(path):
    """{knob: {test: [ns, ...]}} from a bench/cost/guest.sh CSV"""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            test = None
            n, t = r["tasks"], r["threads"]
            if r["mode"] == "getppid":
                test = "getppid"
            elif n == "1":
                test = "alone"
            elif n == "2" and t == "0":
                test = "proc2"
            elif n == "1000" and t == "1":
                test = "thr1000"
            if test:
                out.setdefault(r["knob"], {}).setdefault(test, []).append(
                    float(r["ns_per_call"]))
    return out


def rows_knoboff(path):
    """{"stock": {test: [ns, ...]}} from a bench/cost/knoboff.sh CSV"""
    names = {"yield-n1": "alone", "yield-n2": "proc2", "getppid-n1": "getppid"}
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["flavor"] == "stock" and r["test"] in names:
                out.setdefault("stock", {}).setdefault(
                    names[r["test"]], []).append(float(r["ns_per_op"]))
    return out


def load(path):
    with open(path, newline="") as f:
        head = f.readline()
    return rows_knoboff(path) if head.startswith("flavor,") else rows_cost(path)


def main(args):
    if not args or any(a.count(":") < 2 for a in args):
        sys.exit("usage: bench/cost/compare.py GROUP:LABEL:CSV...")
    table = []
    stock = {}
    for a in args:
        group, label, path = a.split(":", 2)
        for knob, tests in sorted(load(path).items()):
            med = {t: statistics.median(v) for t, v in tests.items()}
            table.append((group, label, knob, med))
            if knob == "stock":
                stock[group] = med
    print("| kernel | variant | knob | yield alone | yield, 2 processes "
          "| yield, 1000 threads | getppid() | alone / stock "
          "| 2 processes / stock |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")

    def cell(med, t):
        return f"{med[t]:.1f}" if t in med else "-"

    def ratio(group, med, t):
        s = stock.get(group, {})
        if t not in med or t not in s:
            return "-"
        return f"{med[t] / s[t]:.4f}"

    for group, label, knob, med in table:
        print(f"| {group} | {label} | {knob} | {cell(med, 'alone')} "
              f"| {cell(med, 'proc2')} | {cell(med, 'thr1000')} "
              f"| {cell(med, 'getppid')} | {ratio(group, med, 'alone')} "
              f"| {ratio(group, med, 'proc2')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
