#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of bench/placement/run.sh: placement.md (tables) and placement.png.

usage: report.py CSV OUTDIR [--no-plot]

CSV has one row per window of yield-share (knob 1, one hog) with the
kernel's name, the boot, the host's load average at the boot's start and
end and the round in front; CSV.info (key=value lines: command, date, host,
accel, busy) says how it was made. Per kernel and boot the report takes the
median of each placement's windows and the ratio of the yielder's CPU
shares, cgroup-session over session; the goals: the loop share in the
cgroup placement at most 0.2%, the ratio at most 2 in every boot. The same
CSV always gives the same placement.md: tests/host.sh regenerates the
committed one and compares.
"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

PLACES = ["cgroup-session", "session"]
# the hog of the cgroup placement: where each placement puts it
HOG = {
    "cgroup-session": "the hog in a session (autogroup) of its own, as a "
                      "batch job's task beside work started in another "
                      "session",
    "cgroup-root": "the hog a plain task of the root group, as every task "
                   "outside a cgroup on a host without systemd",
}
# the same, short, for the page's first sentence
HOG_SHORT = {
    "cgroup-session": "a hog in a session of its own",
    "cgroup-root": "a hog that is a plain task of the root group",
}
LOOP_GOAL = 0.2    # % of the loop iterations, cgroup placement
RATIO_GOAL = 2.0   # CPU share, cgroup placement over session placement


def load(path):
    """{(kernel, boot): {placement: [rows]}}, kernels in order of appearance"""
    boots = defaultdict(lambda: defaultdict(list))
    kernels, loads = [], {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            k, b = r["kernel_name"], int(r["boot"])
            if k not in kernels:
                kernels.append(k)
            boots[(k, b)][r["placement"]].append(r)
            loads[(k, b)] = (r["load_start"], r["load_end"])
    return kernels, boots, loads


def pct(x):
    return 100.0 * float(x)


def per_yield_us(r):
    n = int(r["yielder_counter"])
    return int(r["yielder_cpu_ns"]) / n / 1000.0 if n else float("nan")


def spread(vals, fmt):
    if not vals:
        return "-"
    return (f"{fmt(statistics.median(vals))} "
            f"({fmt(min(vals))}-{fmt(max(vals))})")


def boot_stats(places):
    """medians of one boot's windows per placement, and the CPU share ratio"""
    s = {}
    for p in PLACES:
        rows = places.get(p, [])
        s[p] = {
            "n": len(rows),
            "loop": statistics.median([pct(r["yielder_counter_share"]) for r in rows]) if rows else None,
            "cpu": statistics.median([pct(r["yielder_cpu_share"]) for r in rows]) if rows else None,
            "us": statistics.median([per_yield_us(r) for r in rows]) if rows else None,
        }
    a, b = s[PLACES[0]]["cpu"], s["session"]["cpu"]
    s["ratio"] = a / b if a is not None and b else None
    return s


def f_loop(x):
    return f"{x:.4f}%"


def f_cpu(x):
    return f"{x:.2f}%"


def f_us(x):
    return f"{x:.0f}"


def main():
    args = [a for a in sys.argv[1:] if a != "--no-plot"]
    if len(args) != 2:
        sys.exit("usage: report.py CSV OUTDIR [--no-plot]")
    path, outdir = args
    info = {}
    with open(path + ".info") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            info[key] = value
    kernels, boots, loads = load(path)
    # the cgroup placement of the data: cgroup-session or cgroup-root
    for b in boots.values():
        for p in b:
            if p != "session":
                PLACES[0] = p
    busy = info.get("busy", "?")
    host = (f"`stress-ng --cpu {busy}` on the host beside the guest"
            if busy not in ("0", "?") else "nothing else started on the host")
    md = ["# The yielder in a cgroup and in a session, busy host" +
          ("" if PLACES[0] == "cgroup-session" else ", the hog a plain root task"), "",
          None, "",  # the first sentence, from the summary below
          "![the yielder's CPU share per boot](placement.png)", "",
          "The yielder (sched_yield() in a loop) and a nice-0 hog "
          f"(getppid() in a loop) on one CPU. **{PLACES[0]}**: the "
          f"yielder in a cpu cgroup of its own, {HOG[PLACES[0]]}; "
          "**session**: the yielder in a session of its own. The "
          "placements alternate window by window in each boot. Goals: in "
          f"the cgroup placement the yielder's loop share at most "
          f"{LOOP_GOAL}%, and its CPU share at most {RATIO_GOAL:g} times "
          "that of the session placement of the same boot. Per boot the "
          "medians of its windows; *CPU us per yield* is the yielder's "
          "CPU time over its loop iterations: it grows with the host's load, "
          "as the guest charges a stall of its vCPU to the task that ran "
          "through it.", "",
          f"| kernel | boot | host load (start, end) | {PLACES[0]}: loop share | CPU share | CPU us per yield | session: loop share | CPU share | CPU us per yield | CPU share ratio | goals |",
          "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    summary = []
    for k in kernels:
        ratios, worst_loop, nboots = [], 0.0, 0
        for (kk, b) in sorted(x for x in boots if x[0] == k):
            s = boot_stats(boots[(kk, b)])
            nboots += 1
            c, p = s[PLACES[0]], s["session"]
            ok = (c["loop"] is not None and c["loop"] <= LOOP_GOAL and
                  s["ratio"] is not None and s["ratio"] <= RATIO_GOAL)
            if s["ratio"] is not None:
                ratios.append(s["ratio"])
            if c["loop"] is not None:
                worst_loop = max(worst_loop, c["loop"])
            l0, l1 = loads[(k, b)]

            def cells(x):
                if x["loop"] is None:
                    return ["-", "-", "-"]
                return [f_loop(x["loop"]), f_cpu(x["cpu"]), f_us(x["us"])]
            ratio = f"{s['ratio']:.2f}x" if s["ratio"] is not None else "-"
            md.append(f"| {k} | {b} | {l0}, {l1} | " +
                      " | ".join(cells(c) + cells(p)) +
                      f" | {ratio} | {'met' if ok else '**missed**'} |")
        summary.append((k, nboots, ratios, worst_loop))
    md += ["", f"| kernel | boots | CPU share ratio per boot: median (min-max) | boots within the goal | largest loop share, {PLACES[0]} |",
           "|---|---:|---|---:|---:|"]
    for k, n, ratios, worst in summary:
        within = sum(1 for r in ratios if r <= RATIO_GOAL)
        md.append(f"| {k} | {n} | {spread(ratios, lambda x: f'{x:.2f}x')} | "
                  f"{within} of {n} | {f_loop(worst)} |")
    md.append("")
    md[2] = conclusion(summary, kernels)
    md += ["## How this was measured", "",
           f"Command: `{info.get('command', '?')}`; {info.get('date', '?')}; "
           f"{info.get('host', '?')}; {host}; guests of 2 vCPUs under QEMU "
           f"{info.get('accel', '?')}, knob 1. Data: "
           "[placement.csv](placement.csv).", ""]
    with open(os.path.join(outdir, "placement.md"), "w") as f:
        f.write("\n".join(md))
    if "--no-plot" not in sys.argv:
        plot(kernels, boots, outdir, busy)


def conclusion(summary, kernels):
    """the page's first sentence, from the summary table"""
    ratios = [r for _, _, rs, _ in summary for r in rs]
    if not ratios:
        return "No boot measured both placements."
    n = sum(nb for _, nb, _, _ in summary)
    within = sum(1 for r in ratios if r <= RATIO_GOAL)
    worst = max(w for _, _, _, w in summary)
    names = kernels[0] if len(kernels) == 1 else \
        ", ".join(kernels[:-1]) + " and " + kernels[-1]
    return (f"In a cpu cgroup of its own beside {HOG_SHORT[PLACES[0]]}, the "
            f"yielder got {min(ratios):.2f}x-{max(ratios):.2f}x the CPU share "
            f"it got in a session of its own, within the goal of "
            f"{RATIO_GOAL:g}x in {within} of {n} boots of {names}, and at "
            f"most {f_loop(worst)} of the loop iterations (goal: "
            f"{LOOP_GOAL}%).")


def plot(kernels, boots, outdir, busy):
    fd, dat = tempfile.mkstemp(suffix=".dat")
    n = 0
    with os.fdopen(fd, "w") as f:
        for k in kernels:
            for (kk, b) in sorted(x for x in boots if x[0] == k):
                s = boot_stats(boots[(kk, b)])
                a, p = s[PLACES[0]]["cpu"], s["session"]["cpu"]
                f.write(f'"{k} #{b}" {a if a is not None else 0:.4f} '
                        f'{p if p is not None else 0:.4f}\n')
                n += 1
    if not n:
        os.unlink(dat)
        return
    png = os.path.join(outdir, "placement.png")
    gp = f"""set terminal pngcairo size 1200,600 font ",10" noenhanced
set output "{png}"
set title "The yielder's CPU share, knob 1, {'stress-ng --cpu ' + busy + ' on the host' if busy not in ('0', '?') else 'no load started on the host'}: a cpu cgroup of its own against a session of its own (median of a boot's windows)"
set ylabel "CPU share (%)"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -45 scale 0
set key top left
set bmargin 9
set grid ytics
plot "{dat}" using 2:xtic(1) title "{PLACES[0]}", "" using 3 title "session"
"""
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    finally:
        os.unlink(dat)


if __name__ == "__main__":
    main()
