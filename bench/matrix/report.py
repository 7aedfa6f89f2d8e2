#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of bench/matrix/run.sh: matrix.md (tables) and matrix.png.

usage: report.py OUTDIR [--no-plot]

OUTDIR holds matrix.csv.info (key=value lines: command, date, host,
duration, kernels) and, per kernel, matrix-KERNEL.tap: the TAP of
compat_yield_matrix, whose verdict line per cell carries the figures it
was judged on (the time away per yield at knob 1 against the knob-0 tail
at the same rank and the cell without its event, the shares). The tables
are those lines, a row per cell; the same files always give the same
matrix.md.
"""
import os
import re
import subprocess
import sys

VERDICT = re.compile(
    r"^(?P<ok>not ok|ok) \d+ cell (?P<cell>\d+) (?P<place>\S+) "
    r"rivals=(?P<rivals>\S+) event=(?P<event>\S+): "
    r"k1 p99 (?P<p99>[\d.]+)ms (?:<=|>) (?P<lim99>[\d.]+), "
    r"max (?P<max>[\d.]+)ms (?:<=|>) (?P<limmax>[\d.]+) "
    r"\(k0 p99 (?P<k0>[\d.]+) at k1's rank, (?P<basekind>no-event|no-sibling|k1) p99 (?P<base>[\d.]+)(?: x(?P<turns>\d+))?"
    r"(?:, heavy (?P<heavy>[\d.]+))?\)"
    r"(?:; (?P<rest>.*))?$")
HEAD = re.compile(r"^# kernel (?P<rel>\S+), knob \d, tick (?P<tick>[\d.]+) ms")


def info(outdir):
    d = {}
    with open(os.path.join(outdir, "matrix.csv.info")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            d[k] = v
    return d


def load_tap(path):
    rows, rel, tick, skips = [], "?", "?", 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEAD.match(line)
            if m:
                rel, tick = m.group("rel"), m.group("tick")
                continue
            if re.match(r"^ok \d+ .*# SKIP", line):
                skips += 1
                continue
            m = VERDICT.match(line)
            if m:
                r = m.groupdict()
                # the notes in brackets (re-measured, guest stall) stay in the TAP
                r["rest"] = re.sub(r"\s*\[.*$", "", r["rest"] or "")
                # sibling: the base counts that many turns of the no-sibling p99
                r["times"] = f" x{r['turns']}" if r["turns"] else ""
                # nice-flip, policy-flip: the heavy state's no-event p99 too
                r["times"] += f" / {r['heavy']} heavy" if r["heavy"] else ""
                rows.append(r)
    return rows, rel, tick, skips


def table(rows):
    out = ["| cell | placement | rivals | event | k0 p99 at k1's rank (ms) "
           "| k1 p99 without the event or sibling (ms) | k1 p99 (ms) | limit | k1 max (ms) | limit "
           "| after the flips; shares | verdict |",
           "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        out.append("| {cell} | {place} | {rivals} | {event} | {k0} | {base}{times} | "
                   "{p99} | {lim99} | {max} | {limmax} | {rest} | {v} |".format(
                       v="ok" if r["ok"] == "ok" else "**not ok**", **r))
    return "\n".join(out)


def plot(per_kernel, outdir):
    dat = os.path.join(outdir, "matrix.dat")
    with open(dat, "w") as f:
        for i, (k, rows) in enumerate(per_kernel):
            f.write(f"# {k}\n")
            for r in rows:
                base = max(float(r["k0"]),
                           float(r["base"]) * int(r["turns"] or 1),
                           float(r["heavy"] or 0))
                f.write(f"{base} {r['p99']} {r['max']}\n")
            f.write("\n\n")
    png = os.path.join(outdir, "matrix.png")
    series = ", ".join(
        f'"{dat}" index {i} using 1:2 with points pt 7 title "{k}: p99", '
        f'"" index {i} using 1:3 with points pt 6 title "{k}: max"'
        for i, (k, _) in enumerate(per_kernel))
    gp = f"""set terminal pngcairo size 1000,700 font ",10" noenhanced
set output "{png}"
set title "Time away per yield at knob 1 against its base, one point per cell"
set xlabel "base: max(knob-0 tail at knob 1's p99 rank, knob-1 p99 without the event, light or heavy; x3 without the sibling) (ms)"
set ylabel "knob 1 (ms)"
set logscale xy
set key top left
set grid
plot x + 4 with lines dt 2 title "base + 1 tick (p99 limit, HZ=250)", \\
     x + 8 with lines dt 3 title "base + 2 ticks (max limit)", {series}
"""
    subprocess.run(["gnuplot"], input=gp, text=True, check=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-plot"]
    if len(args) != 1:
        sys.exit("usage: report.py OUTDIR [--no-plot]")
    outdir = args[0]
    inf = info(outdir)
    kernels = inf.get("kernels", "").split()
    lines = ["# The contract over the matrix of topologies", "",
             f"Command: `{inf.get('command', '?')}`; {inf.get('date', '?')}; "
             f"{inf.get('host', '?')}; guests of 2 vCPUs under QEMU "
             f"{inf.get('accel', 'TCG')}, "
             f"{inf.get('duration', '?')}-s windows.", "",
             "The kselftest `compat_yield_matrix` generates its cells from "
             "the dimensions (1-3 rivals of SCHED_IDLE, nice 19, nice 0 or "
             "nice -10; the same group, autogroups, sibling cpu cgroups or a "
             "batch system's seven-level tree; no event, a rival flipping "
             "light and heavy by nice, policy (SCHED_IDLE), cpu.weight or "
             "cpu.idle every 300 ms, a rival sleeping and waking, a nice-19 "
             "rival with a 100-ms custom slice (6.12; a SKIP on 6.1), the "
             "yielder migrating, a light "
             "sibling), runs each at knob 0 and 1 and judges knob 1 with the "
             "contract's own limits: p99 time away per yield at most its base "
             "(the larger of knob 0's tail at knob 1's p99 rank and the cell's "
             "knob-1 p99 without its event; where rival 1 flips by nice or "
             "policy, of both its states, light and heavy: while it weighs "
             "nice 0 the yielder waits for its turn too) plus one tick, the maximum at most "
             "the base plus two ticks (where a rival's weight flips, also at "
             "most the larger of knob 0's own p99 and the no-event p99 plus two "
             "ticks: a reweight adds no stall; with the long slice the maximum, "
             "and the p99 of at most 100 samples, which is their longest, "
             "may also span one 100-ms turn of that rival plus the no-event "
             "p99; beside a light sibling the base is at least three times "
             "the no-sibling p99, x3 in the table: the yielder waits for the "
             "sibling's turn, which runs only while their group does, and a "
             "rival may take a turn before and after it), and the shares "
             "where a rival of the "
             "yielder's weight competes (loop share <= 0.5%, CPU share <= knob "
             "0's + 1 point; with a light sibling <= twice the share without "
             "it + 1 point). Raw windows: [matrix.csv](matrix.csv).", "",
             "![knob-1 p99 and max per cell against its base](matrix.png)", ""]
    if inf.get("note"):
        lines[4:4] = [inf["note"], ""]
    per_kernel = []
    for k in kernels:
        rows, rel, tick, skips = load_tap(os.path.join(outdir, f"matrix-{k}.tap"))
        per_kernel.append((k, rows))
        bad = sum(r["ok"] != "ok" for r in rows)
        lines += [f"### {k} (Linux {rel}, tick {tick} ms)", "",
                  f"{len(rows) - bad} of {len(rows)} cells hold the contract"
                  f"{f', {skips} skipped' if skips else ''}"
                  f" ([TAP](matrix-{k}.tap)).", "", table(rows), ""]
    with open(os.path.join(outdir, "matrix.md"), "w") as f:
        f.write("\n".join(lines))
    if "--no-plot" not in sys.argv:
        plot(per_kernel, outdir)


if __name__ == "__main__":
    main()
