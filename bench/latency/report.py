#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of bench/latency/run.sh: latency.md (tables) and latency.png.

usage: report.py CSV OUTDIR [--no-plot]

CSV has one row per measurement window of compat_yield_latency, with the
kernel's name in front; CSV.info (key=value lines: command, date, host)
says how it was made. The hog-alone windows (rival "none") are measured
again in every variant; the tables show the median of their p50 and p99
and the number of windows. The same CSV always gives the same latency.md:
tests/host.sh regenerates the committed one and compares.
"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

RIVALS = [("none", "hog alone"), ("idle", "+ SCHED_IDLE"),
          ("nice19", "+ nice 19"), ("cgidle", "+ cpu.idle group")]
PLACES = ["same", "session", "cgroup"]


def load(path):
    groups = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["kernel_name"], r["measure"], r["placement"],
                   r["rival"], r["knob"])
            groups[key].append(r)
    return groups


def cell(rows, field):
    if not rows:
        return None
    return statistics.median(float(r[field]) for r in rows)


def fmt_ms(us):
    return "-" if us is None else f"{us / 1000:.2f}"


def tables(groups, kernels, measure, title, what):
    out = [f"## {title}", "",
           f"{what}, ms; knob 0 and knob 1, p50 / p99 (yields in the "
           "window at knob 1):", ""]
    for k in kernels:
        out += [f"**{k}**", "",
                "| placement | rivals | knob 0 p50 / p99 | knob 1 p50 / p99 "
                "| yields at 1 |",
                "|---|---|---:|---:|---:|"]
        for p in PLACES:
            for rv, label in RIVALS:
                r0 = groups.get((k, measure, p, rv, "0"), [])
                r1 = groups.get((k, measure, p, rv, "1"), [])
                if not r0 and not r1:
                    continue
                y1 = cell(r1, "yields")
                n = f" ({len(r1)} windows)" if len(r1) > 1 else ""
                out.append(
                    f"| {p} | {label}{n} | {fmt_ms(cell(r0, 'p50_us'))} / "
                    f"{fmt_ms(cell(r0, 'p99_us'))} | "
                    f"{fmt_ms(cell(r1, 'p50_us'))} / "
                    f"{fmt_ms(cell(r1, 'p99_us'))} | "
                    f"{'-' if y1 is None else int(y1)} |")
        out.append("")
    return out


TICK_MS = 4.0  # HZ=250, the guest kernels' configuration


def span(values):
    """'a' or 'a-b' ms, as the tables print them"""
    lo, hi = fmt_ms(min(values)), fmt_ms(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def words(kernels):
    return kernels[0] if len(kernels) == 1 else \
        ", ".join(kernels[:-1]) + " and " + kernels[-1]


def conclusion(groups, kernels):
    """the page's first sentence, from the tables of the yield itself"""
    k1p50, k0p50, alone, light, places = [], [], [], [], []
    for k in kernels:
        for p in PLACES:
            for rv, _ in RIVALS:
                r0 = groups.get((k, "away", p, rv, "0"), [])
                r1 = groups.get((k, "away", p, rv, "1"), [])
                if not r1:
                    continue
                if p not in places:
                    places.append(p)
                k1p50.append(cell(r1, "p50_us"))
                (alone if rv == "none" else light).append(cell(r1, "p99_us"))
                if r0:
                    k0p50.append(cell(r0, "p50_us"))
    if not k1p50:
        return "No window of the yield itself was measured."
    lo, hi = (round(x / 1000 / TICK_MS) for x in (min(k1p50), max(k1p50)))
    ticks = "one tick" if lo == hi == 1 else f"{lo} ticks" if lo == hi else f"{lo}-{hi} ticks"
    out = (f"At knob 1 a yield beside a CPU hog keeps the yielder away p50 "
           f"{span(k1p50)} ms, {ticks} "
           f"of {TICK_MS:g} ms, on {words(kernels)} in "
           + (f"all {len(places)} placements" if len(places) > 1 else f"the {places[0]} placement")
           + (f" (knob 0: p50 {span(k0p50)} ms)" if k0p50 else ""))
    if alone and light:
        out += (f", and a light task beside the hog raises the p99 from at "
                f"most {fmt_ms(max(alone))} ms to at most {fmt_ms(max(light))} ms")
    return out + "."


def plot(groups, kernels, outdir):
    fd, dat = tempfile.mkstemp(suffix=".dat")
    labels = []
    with os.fdopen(fd, "w") as f:
        i = 0
        for k in kernels:
            for p in PLACES:
                for rv, label in RIVALS:
                    r0 = groups.get((k, "away", p, rv, "0"), [])
                    r1 = groups.get((k, "away", p, rv, "1"), [])
                    if not r1:
                        continue
                    p0, p1 = cell(r0, "p99_us"), cell(r1, "p99_us")
                    name = f"{k} {p} {label}".replace('"', "")
                    f.write(f'{i} "{name}" {(p0 or 0) / 1000:.3f} '
                            f'{p1 / 1000:.3f}\n')
                    labels.append(name)
                    i += 1
    if not labels:
        os.unlink(dat)
        return
    png = os.path.join(outdir, "latency.png")
    gp = f"""set terminal pngcairo size 1600,850 font ",10" noenhanced
set output "{png}"
set title "Time away per sched_yield(), p99 (one CPU, nice-0 hog and a light task; QEMU -icount)" offset 0,2
set ylabel "p99 time away (ms, log scale)"
set logscale y
set yrange [0.001:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by 45 right scale 0
set key at graph 0.5, graph 1.02 center bottom horizontal
set lmargin 28
set rmargin 4
set tmargin 5
set bmargin 16
set grid ytics
plot "{dat}" using 3:xtic(2) title "knob 0", "" using 4 title "knob 1"
"""
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    finally:
        os.unlink(dat)


def read_info(path):
    info = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            info[key] = value
    return info


def main():
    args = [a for a in sys.argv[1:] if a != "--no-plot"]
    if len(args) != 2:
        sys.exit("usage: report.py CSV OUTDIR [--no-plot]")
    path, outdir = args
    info = read_info(path + ".info")
    groups = load(path)
    kernels = []
    for key in groups:
        if key[0] not in kernels:
            kernels.append(key[0])
    md = ["# Time away per sched_yield()", "",
          conclusion(groups, kernels), "",
          "![p99 time away per yield](latency.png)", "",
          "One CPU: a task calling sched_yield() in a loop, a nice-0 CPU "
          "hog, and at most one light task (SCHED_IDLE, nice 19, or a "
          "nice-0 spinner in a cgroup with cpu.idle=1); the yielder in the "
          "hog's group (same), in an autogroup of its own (session) or in a "
          "cpu cgroup of its own (cgroup). At knob 1 a yield waits for the "
          "hog's turn, one tick (4 ms) here; a light task may add at most "
          "one more tick to the p99 (the kselftest's limit): on 6.12 it gets "
          "a turn of its own now and then (a compat yield hands the CPU to "
          "every rival at its level), the nice-19 task on 6.1 about once in "
          "70 ticks.", ""]
    md += tables(groups, kernels, "away", "The yield itself",
                 "Time from the call to the return of sched_yield()")
    md += tables(groups, kernels, "oversleep",
                 "Yield, then sleep 1 ms",
                 "How much longer than 1 ms the sleep after each yield took")
    md += ["## How this was measured", "",
           f"Command: `{info.get('command', '?')}`; {info.get('date', '?')}; "
           f"{info.get('host', '?')}; guests of 1 vCPU under QEMU -icount "
           "(shift 2: guest time is 4 ns per executed instruction), HZ=250, "
           f"{info.get('duration', '?')}-s windows. Data: "
           "[latency.csv](latency.csv).", ""]
    with open(os.path.join(outdir, "latency.md"), "w") as f:
        f.write("\n".join(md))
    if "--no-plot" not in sys.argv:
        plot(groups, kernels, outdir)


if __name__ == "__main__":
    main()
