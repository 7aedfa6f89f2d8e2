#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of bench/matrix/run.sh: matrix.md (tables) and matrix.png.

usage: report.py OUTDIR [--no-plot]

OUTDIR holds matrix.csv.info (key=value lines: command, date, host,
duration, kernels) and, per kernel, matrix-KERNEL.tap: the TAP of
compat_yield_matrix, which judges each cell in one line per sub-check
(time, G1, shares; G4 in the sibling cells), the time line with the
knob-1 p50, p99 and max against their limits and the contract's bound
they come from. The tables are those lines, a row per cell; the same
files always give the same matrix.md.
"""
import os
import re
import subprocess
import sys

LINE = re.compile(
    r"^(?P<ok>not ok|ok) \d+ (?:# SKIP )?cell (?P<cell>\d+) "
    r"(?P<place>\S+(?: autogroup=\S+ yielder=\S+)?) "
    r"rivals=(?P<rivals>\S+) event=(?P<event>\S+): (?P<what>.*)$")
TIME = re.compile(
    r"^time away at knob 1 p50 (?P<p50>[\d.]+)(?: (?:<=|>) (?P<l50>[\d.]+))?, "
    r"p99 (?P<p99>[\d.]+)(?: (?:<=|>) (?P<l99>[\d.]+))?, "
    r"max (?P<max>[\d.]+)(?: (?:<=|>) (?P<lmax>[\d.]+))? ms "
    r"\(bound at (?P<level>[^:]+): w (?P<w>\d+), W_r (?P<wr>\d+), n (?P<n>\d+), "
    r"(?:slice|move) (?P<slice>[\d.]+) ms, R (?P<r>[\d.]+) ms: "
    r"p50 (?P<b50>[\d.]+), p99 (?P<b99>[\d.]+), max (?P<bmax>[\d.]+)"
    r"(?P<terms>[^;]*(?:; [^;]*)?); k0 p50 (?P<k50>[\d.]+) p99 (?P<k99>[\d.]+) max (?P<kmax>[\d.]+)\)")
HEAD = re.compile(r"^# kernel (?P<rel>\S+), knob \d, tick (?P<tick>[\d.]+) ms")
SUBS = ("time", "G1", "shares", "G4")


def info(outdir):
    d = {}
    with open(os.path.join(outdir, "matrix.csv.info")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            d[k] = v
    return d


def sub_of(what):
    if what.startswith("time away"):
        return "time"
    for s in ("G1", "shares", "G4"):
        if what.startswith(s):
            return s
    return None


def load_tap(path):
    """Per cell: its parameters, each sub-check's verdict and text."""
    cells, rel, tick = {}, "?", "?"
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEAD.match(line)
            if m:
                rel, tick = m.group("rel"), m.group("tick")
                continue
            m = LINE.match(line)
            if not m:
                continue
            r = m.groupdict()
            skip = "# SKIP" in line
            # a window that failed to run names the sub-check first
            what = re.sub(r" \[.*$", "", r["what"])
            sub = sub_of(what) or next((s for s in SUBS if what.startswith(s + ":")), None)
            c = cells.setdefault(int(r["cell"]), {
                "cell": r["cell"], "place": r["place"], "rivals": r["rivals"],
                "event": r["event"], "v": {}, "text": {}, "time": None})
            c["v"][sub] = "skip" if skip else ("ok" if r["ok"] == "ok" else "not ok")
            c["text"][sub] = what
            if sub == "time":
                t = TIME.match(what)
                if t:
                    c["time"] = t.groupdict()
    return [cells[k] for k in sorted(cells)], rel, tick


def verdict(c):
    if any(v == "not ok" for v in c["v"].values()):
        return "**not ok**"
    if all(v == "skip" for v in c["v"].values()):
        return "skip"
    return "ok"


def short(c, sub):
    v = c["v"].get(sub)
    if v is None:
        return ""
    if v == "skip":
        return "not judged"
    text = c["text"][sub]
    if sub == "G1":
        m = re.search(r"ran: (\d+) of (\d+)", text)
        return f"{m.group(1)} of {m.group(2)} at once" + ("" if v == "ok" else " (**not ok**)") if m else v
    if sub == "shares":
        m = re.search(r"loops ([\d.]+%)", text)
        n = re.search(r"cpu ([\d.]+%)", text)
        s = f"loops {m.group(1)}" if m else ""
        s += f", cpu {n.group(1)}" if n else ""
        return s + ("" if v == "ok" else " (**not ok**)")
    if sub == "G4":
        m = re.search(r"sibling ([\d.]+%)", text)
        return (f"cpu {m.group(1)}" if m else "") + ("" if v == "ok" else " (**not ok**)")
    return v


def table(rows):
    out = ["| cell | placement | rivals | event | bound p50 / p99 / max (ms) "
           "| k0 p50 / p99 / max (ms) | k1 p50 / p99 / max (ms) | limits (ms) "
           "| G1 | shares | G4 | verdict |",
           "|---:|---|---|---|---:|---:|---:|---:|---|---|---|---|"]
    for c in rows:
        t = c["time"] or {}
        bound = f"{t.get('b50', '?')} / {t.get('b99', '?')} / {t.get('bmax', '?')}" if t else ""
        k0 = f"{t.get('k50')} / {t.get('k99')} / {t.get('kmax')}" if t else ""
        k1 = f"{t.get('p50')} / {t.get('p99')} / {t.get('max')}" if t else ""
        lim = (f"{t['l50']} / {t['l99']} / {t['lmax']}"
               if t and t.get("l50") else ("not judged" if t else ""))
        out.append(f"| {c['cell']} | {c['place']} | {c['rivals']} | {c['event']} | "
                   f"{bound} | {k0} | {k1} | {lim} | {short(c, 'G1')} | "
                   f"{short(c, 'shares')} | {short(c, 'G4')} | {verdict(c)} |")
    return "\n".join(out)


def plot(per_kernel, outdir):
    dat = os.path.join(outdir, "matrix.dat")
    with open(dat, "w") as f:
        for k, rows in per_kernel:
            f.write(f"# {k}\n")
            for c in rows:
                t = c["time"]
                if t and t.get("l99"):
                    f.write(f"{t['l99']} {t['p99']} {t['lmax']} {t['max']}\n")
            f.write("\n\n")
    png = os.path.join(outdir, "matrix.png")
    series = ", ".join(
        f'"{dat}" index {i} using 1:2 with points pt 7 title "{k}: p99", '
        f'"" index {i} using 3:4 with points pt 6 title "{k}: max"'
        for i, (k, _) in enumerate(per_kernel))
    gp = f"""set terminal pngcairo size 1000,700 font ",10" noenhanced
set output "{png}"
set title "Time away per yield at knob 1 against its limit, one point per cell"
set xlabel "limit: the contract's bound for the cell, or knob 0's figure where larger (ms)"
set ylabel "knob 1 (ms)"
set logscale xy
set key top left
set grid
plot x with lines dt 2 title "at the limit", {series}
"""
    subprocess.run(["gnuplot"], input=gp, text=True, check=True)


SUB_NAMES = {"time": "the time away", "G1": "G1", "shares": "the shares", "G4": "G4"}


def conclusion(per_kernel):
    """the page's first sentence: per kernel the judged cells that hold
    the contract, and which sub-checks were judged in how many cells"""
    if not per_kernel:
        return "No kernel's cells were run."
    held, total, bad_any = [], [], False
    for k, rows in per_kernel:
        bad = sum(verdict(c) == "**not ok**" for c in rows)
        judged = len(rows) - sum(verdict(c) == "skip" for c in rows)
        bad_any = bad_any or bad > 0
        held.append(f"{judged - bad} of {judged} on {k}")
        total.append(len(rows))

    def words(xs):
        return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
    subs = []
    for sub in SUBS:
        n = [sum(1 for c in rows if c["v"].get(sub) in ("ok", "not ok")) for _, rows in per_kernel]
        if any(n):
            subs.append(f"{SUB_NAMES[sub]} in {words([str(x) for x in n])}"
                        + ("" if subs else " cells"))
    cells = (f"of {total[0]} cells{' each' if len(total) > 1 else ''}"
             if len(set(total)) == 1 else f"of {words([str(x) for x in total])} cells")
    return (f"At knob 1 {'not every' if bad_any else 'every'} judged cell holds the "
            f"contract: {words(held)}, {cells}, the others skipped"
            + (f" (judged: {', '.join(subs)})" if subs else "") + ".")


def main():
    args = [a for a in sys.argv[1:] if a != "--no-plot"]
    if len(args) != 1:
        sys.exit("usage: report.py OUTDIR [--no-plot]")
    outdir = args[0]
    inf = info(outdir)
    kernels = inf.get("kernels", "").split()
    lines = ["# The contract over the matrix of topologies", "",
             None, "",  # the first sentence, from the kernels' cells below
             "![knob-1 p99 and max per cell against its limit](matrix.png)", "",
             "The kselftest `compat_yield_matrix` generates its cells from "
             "the dimensions (1-3 rivals of SCHED_IDLE, nice 19, nice 0 or "
             "nice -10; the same group, autogroups, sibling cpu cgroups, a "
             "batch system's seven-level tree, or the yielder's cgroup beside "
             "rivals that are plain tasks of the root group; no event, a rival flipping "
             "light and heavy by nice, policy (SCHED_IDLE), cpu.weight or "
             "cpu.idle every 300 ms, a rival sleeping and waking, a nice-19 "
             "rival with a 100-ms custom slice (6.12; a SKIP on 6.1), the "
             "yielder migrating, a light sibling), runs each at knob 0 and 1 "
             "and judges knob 1 per sub-check: the time away per yield (p50, "
             "p99 and max, each at most the larger of the contract's bound "
             "for the cell's parameters and knob 0's figure; the bound, in "
             "the selftests' contract.h, is the rest of the yielder's request "
             "and a slice of its own weighted by its rivals' total weight, R, "
             "in whole ticks, plus on EEVDF a turn of each rival whose deadline "
             "comes first (one for the p50, all n and a tick for the p99 and "
             "max; on CFS a tick for the p99 and max), plus the event's own "
             "term), G1 (no knob-1 yield returns "
             "before another task ran, where a rival of the yielder's weight "
             "competes), the shares (loop share <= 0.5%, CPU share <= knob "
             "0's + 1 point) and G4 (with a light sibling, at most twice the "
             "share without it + 1 point).", ""]
    if inf.get("note"):
        lines[6:6] = [inf["note"], ""]
    per_kernel = []
    for k in kernels:
        rows, rel, tick = load_tap(os.path.join(outdir, f"matrix-{k}.tap"))
        per_kernel.append((k, rows))
        bad = sum(verdict(c) == "**not ok**" for c in rows)
        skips = sum(verdict(c) == "skip" for c in rows)
        judged = len(rows) - skips
        lines += [f"## {k} (Linux {rel}, tick {tick} ms)", "",
                  f"{judged - bad} of {judged} cells hold the contract"
                  f"{f', {skips} skipped' if skips else ''}"
                  f" ([TAP](matrix-{k}.tap)).", "", table(rows), ""]
    lines[2] = conclusion(per_kernel)
    lines += ["## How this was measured", "",
              f"Command: `{inf.get('command', '?')}`; {inf.get('date', '?')}; "
              f"{inf.get('host', '?')}; guests under QEMU "
              f"{inf.get('accel', 'TCG')}, "
              f"{inf.get('duration', '?')}-s windows. Raw windows: "
              "[matrix.csv](matrix.csv).", ""]
    with open(os.path.join(outdir, "matrix.md"), "w") as f:
        f.write("\n".join(lines))
    if "--no-plot" not in sys.argv:
        plot(per_kernel, outdir)


if __name__ == "__main__":
    main()
