#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables and figures of the ping-pong sweeps.

usage: report.py PREFIX DIR... [--no-plot]
       report.py --runs RUNS_PREFIX PREFIX [--no-plot]

DIR are bench-pingpong-KVER-FLAVOR result directories with fig2/ and/or
fig7/ inside; writes PREFIX-fig2{-runs.csv,.csv,.md,.png} and the same for
fig7. bench/pingpong/report.sh checks its arguments and runs it. With --runs,
the runs come from RUNS_PREFIX-fig2-runs.csv and RUNS_PREFIX-fig7-runs.csv,
a report's own list of every run: the same runs always give the same
tables (tests/host.sh regenerates the committed ones and compares).
--no-plot leaves out the PNG figures.
"""
import csv, os, statistics, subprocess, sys

args = [a for a in sys.argv[1:] if a != "--no-plot"]
no_plot = len(args) < len(sys.argv) - 1
runs_prefix = None
if args[:1] == ["--runs"] and len(args) == 3:
    runs_prefix, prefix, dirs = args[1], args[2], []
elif len(args) >= 2 and args[0] != "--runs":
    prefix, dirs = args[0], args[1:]
else:
    sys.exit(__doc__)
STRATS = ["poll", "yield", "block", "adaptive", "sleep"]
SIZES = [1, 1024, 65536, 1048576, 8388608]
DELAYS = [0, 10, 50, 100, 500, 1000]


def label_of(d):
    _, _, kver, flavor = os.path.basename(d.rstrip("/")).split("-")
    return kver + " " + flavor


def size_name(s):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= n and s % n == 0:
            return "%d %s" % (s // n, unit)
    return "%d B" % s


def load(fig):
    rows, accel = [], {}
    if runs_prefix:
        f = "%s-%s-runs.csv" % (runs_prefix, fig)
        if os.path.exists(f):
            with open(f, newline="") as fh:
                for r in csv.DictReader(fh):
                    accel.setdefault(r["label"], r["accel"])
                    rows.append(r)
        return rows, accel
    for d in dirs:
        f = os.path.join(d, fig, "pingpong.csv")
        if not os.path.exists(f):
            continue
        lab = label_of(d)
        try:
            with open(os.path.join(d, fig, "accel")) as a:
                accel[lab] = a.read().strip()
        except OSError:
            accel[lab] = "unknown"
        try:
            with open(os.path.join(d, fig, "vcpus")) as a:
                n = a.read().strip()
                accel[lab] += ", %s vCPU%s" % (n, "" if n == "1" else "s")
        except OSError:
            pass
        with open(f) as fh:
            for r in csv.DictReader(fh):
                if r["knob"] == "absent":  # pingpong's word for no knob
                    r["knob"] = "stock"
                r["label"] = lab
                r["accel"] = accel[lab]
                rows.append(r)
    return rows, accel


def write_runs(fig, rows):
    keys = ["label", "accel"] + [k for k in rows[0] if k not in ("label", "accel")]
    with open("%s-%s-runs.csv" % (prefix, fig), "w", newline="") as fh:
        w = csv.DictWriter(fh, keys)
        w.writeheader()
        w.writerows(rows)


def order(seq, key=lambda x: x):
    seen = []
    for x in seq:
        if key(x) not in seen:
            seen.append(key(x))
    return seen


def summarise(rows, keyf):
    groups = {}
    for r in rows:
        groups.setdefault(keyf(r), []).append(r)
    out = {}
    for k, g in groups.items():
        med = [float(r["median_us"]) for r in g]
        col = lambda c: statistics.median(float(r[c]) for r in g)
        out[k] = dict(runs=len(g), median=statistics.median(med), lo=min(med),
                      hi=max(med), p99=col("p99_us"), mean=col("mean_us"),
                      sd=col("stddev_us"), cpu0=col("cpu0_us_per_iter"),
                      cpu1=col("cpu1_us_per_iter"),
                      yields0=col("yields0_per_iter"),
                      yields1=col("yields1_per_iter"),
                      iters=g[0]["iterations"])
    return out


def fmt(v):
    if v >= 1000:
        return "%.0f" % v
    if v >= 100:
        return "%.1f" % v
    return "%.2f" % v


def knob_name(k):
    return "no knob" if k == "stock" else "knob " + k


def plot(script):
    if no_plot:
        return
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


TERM = """if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
	set terminal pngcairo size %d,%d font "sans,10"
} else {
	set terminal png size %d,%d
}
set output "%s"
"""
# knob 0: blues, knob 1: reds, stock: greys (as bench/share/plot.gp); 6.1 lighter
COLORS = {("6.12", "0"): "#2166ac", ("6.1", "0"): "#92c5de",
          ("6.12", "1"): "#b2182b", ("6.1", "1"): "#f4a582",
          ("6.12", "stock"): "#404040", ("6.1", "stock"): "#bababa"}


def words(xs):
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def span(values, unit="", f=fmt):
    lo, hi = f(min(values)), f(max(values))
    return (lo if lo == hi else "%s-%s" % (lo, hi)) + unit


def fig2_conclusion(series, get):
    """the first sentence of the Fig. 2 page: a yielding rank 1 at knob 1
    against knob 0 with rank 0 polling, and both ranks yielding against
    blocking"""
    labs = [lab for lab, k in series if k == "1"]
    polls = [v["median"] for lab, k in series for v in [get(lab, k, "poll", "poll")] if v]
    one, both = [], []
    for lab in labs:
        y1, y0 = get(lab, "1", "yield", "poll"), get(lab, "0", "yield", "poll")
        if y1:
            one.append("%s us%s on %s%s" % (
                fmt(y1["median"]), "" if one else " per ping-pong at knob 1", lab,
                " (knob 0: %s us)" % fmt(y0["median"]) if y0 else ""))
        y, b = get(lab, "1", "yield", "same"), get(lab, "1", "block", "same")
        if y and b:
            both.append((fmt(y["median"]), "%.2fx" % (y["median"] / b["median"])))
    if not one:
        return ("Latency per ping-pong of each wait strategy on one CPU, on %s."
                % words(order(lab for lab, _ in series)))
    out = ("With rank 0 polling, a yielding rank 1 takes %s%s"
           % (words(one), ", where polling takes %s" % span(polls, " us") if polls else ""))
    if both:
        out += (", and with both ranks yielding %s us at knob 1, %s the latency of blocking"
                % (words([y for y, _ in both]), words([r for _, r in both])))
    return out + "."


def ratio(v):
    return "%.2f" % v


def fig7_conclusion(series, s):
    """the first sentence of a Fig. 7 page: blocking against polling at the
    smallest and the largest size, and knob 1 against knob 0"""
    def ratios(size):
        return [s[(lab, k, "block", size, d)]["median"] / s[(lab, k, "poll", size, d)]["median"]
                for lab, k in series for d in DELAYS
                if (lab, k, "block", size, d) in s and (lab, k, "poll", size, d) in s
                and s[(lab, k, "poll", size, d)]["median"] > 0]
    small, large = ratios(SIZES[0]), ratios(SIZES[-1])
    if not small or not large:
        return "Latency per ping-pong, poll and block, on %s." % words(
            order(lab for lab, _ in series))
    out = ("With a CPU per rank and rank 0 polling, blocking takes %sx the "
           "latency of polling at %s and %sx at %s"
           % (span(small, f=ratio), size_name(SIZES[0]), span(large, f=ratio),
              size_name(SIZES[-1])))
    meds, points = [], []
    for lab in order(series, lambda x: x[0]):
        for st in ("poll", "block"):
            rat = [s[(lab, "1", st, size, d)]["median"] / s[(lab, "0", st, size, d)]["median"]
                   for size in SIZES for d in DELAYS
                   if (lab, "0", st, size, d) in s and (lab, "1", st, size, d) in s
                   and s[(lab, "0", st, size, d)]["median"] > 0]
            if rat:
                meds.append(statistics.median(rat))
                points += rat
    if meds:
        lo, hi = "%.2f" % min(meds), "%.2f" % max(meds)
        out += (", and knob 1 against knob 0 is %s in the median over the points "
                "(single points %.2f-%.2f)" % (lo if lo == hi else lo + "-" + hi,
                                               min(points), max(points)))
    return out + "."


def fig2():
    rows, accel = load("fig2")
    if not rows:
        return
    write_runs("fig2", rows)
    # mode: "rank 0 polls" or "both wait"; poll/poll belongs to both
    s = summarise(rows, lambda r: (r["label"], r["knob"], r["strategy"], r["rank0_wait"]))
    series = order(rows, lambda r: (r["label"], r["knob"]))
    with open(prefix + "-fig2.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["kernel", "knob", "strategy", "rank0_wait", "runs", "iterations",
                    "median_us", "min_median_us", "max_median_us", "p99_us",
                    "mean_us", "stddev_us", "cpu0_us_per_iter", "cpu1_us_per_iter",
                    "yields0_per_iter", "yields1_per_iter"])
        for (lab, k) in series:
            for st in STRATS:
                for r0 in order(("poll", st)):
                    v = s.get((lab, k, st, r0))
                    if v is None:
                        continue
                    w.writerow([lab, k, st, r0, v["runs"], v["iters"]] +
                               ["%.3f" % v[c] for c in ("median", "lo", "hi", "p99", "mean",
                                                        "sd", "cpu0", "cpu1")] +
                               ["%.2f" % v["yields0"], "%.2f" % v["yields1"]])

    def get(lab, k, st, mode):
        return s.get((lab, k, st, "poll" if mode == "poll" else st))

    md = ["# Ping-pong on one CPU, every wait strategy (LIBRA Fig. 2)\n",
          fig2_conclusion(series, get) + "\n",
          "![Fig. 2](%s-fig2.png)\n" % os.path.basename(prefix),
          "One CPU, rank 0 a 50 us straggler, 1-byte messages, empty reply.\n"]
    accels = "; ".join("%s: %s" % (l, a) for l, a in accel.items())
    runs = sorted(set(v["runs"] for v in s.values()))
    iters = sorted(set(r["iterations"] for r in rows))
    cols = ["%s, %s" % (lab, knob_name(k)) for lab, k in series]
    for mode, title in (("poll", "rank 0 polls for the reply (LIBRA's measuring side), rank 1 waits with the strategy"),
                        ("same", "both ranks wait with the strategy (as in an MPI library)")):
        for head, cell in (
                ("**Latency, %s:** median of the per-run medians in us "
                 "(min-max of the per-run medians; median p99)\n",
                 lambda v: "%s (%s-%s; p99 %s)" % (fmt(v["median"]), fmt(v["lo"]),
                                                   fmt(v["hi"]), fmt(v["p99"]))),
                ("**CPU time per ping-pong, %s:** rank 0 (includes its 50 us delay) / "
                 "rank 1, us, medians over the runs\n",
                 lambda v: "%s / %s" % (fmt(v["cpu0"]), fmt(v["cpu1"])))):
            md.append(head % title)
            md.append("| rank 1 waits by | " + " | ".join(cols) + " |")
            md.append("|---|" + "---:|" * len(cols))
            for st in STRATS:
                cells = []
                for lab, k in series:
                    v = get(lab, k, st, mode)
                    cells.append("-" if v is None else cell(v))
                md.append("| %s | %s |" % (st, " | ".join(cells)))
            md.append("")

    md.append("**Goals** (ratios of the medians above; yield/block <= 1.2 and "
              "poll/yield >= 10 wanted at knob 1; at knob 0 and on the stock kernel, "
              "yield/poll shows how close the default yield stays to polling)\n")
    md.append("| kernel, knob | who waits | yield/block | poll/yield | yield within 1.2x of block | yield >= 10x better than poll |")
    md.append("|---|---|---:|---:|---|---|")
    for lab, k in series:
        for mode, who in (("poll", "rank 1 only (rank 0 polls)"), ("same", "both ranks")):
            y, b, p = (get(lab, k, st, mode) for st in ("yield", "block", "poll"))
            if not (y and b and p):
                continue
            yb = y["median"] / b["median"]
            py = p["median"] / y["median"]
            md.append("| %s, %s | %s | %.2f | %.2f | %s | %s |" % (
                lab, knob_name(k), who, yb, py, "yes" if yb <= 1.2 else "no",
                "yes" if py >= 10 else "no"))
    md.append("")
    md.append("## How this was measured\n")
    md.append("%s runs of %s ping-pongs per point and knob value, the knob values "
              "alternating within each boot. Accelerator: %s.\n"
              % ("/".join(map(str, runs)), "/".join(iters), accels))
    with open(prefix + "-fig2.md", "w") as fh:
        fh.write("\n".join(md))

    # bar chart: two panels (rank 0 polls / both wait), a bar per kernel and
    # knob for every strategy, whiskers from the lowest run median to the
    # median p99
    nser = len(series)
    bw = 0.8 / nser
    data = []
    for mode in ("poll", "same"):
        for i, st in enumerate(STRATS):
            for j, (lab, k) in enumerate(series):
                v = get(lab, k, st, mode)
                if v is None:
                    continue
                x = i + 1 + (j - (nser - 1) / 2.0) * bw
                data.append("%s %d %.4f %.4f %.4f %.4f" % (mode, j, x, v["median"], v["lo"], max(v["hi"], v["p99"])))
    gp = [TERM % (1400, 650, 1400, 650, prefix + "-fig2.png")]
    gp.append("$D << EOD\n" + "\n".join(data) + "\nEOD")
    gp.append("""set multiplot layout 1,2 title "ping-pong latency, one CPU, 50 us straggler, 1 B\\n(%s)" noenhanced
set logscale y
set ylabel "latency per ping-pong, us (median; whisker: up to the p99)"
set grid ytics
set xrange [0.5:5.5]
set xtics ("poll" 1, "yield" 2, "block" 3, "adaptive" 4, "sleep" 5) scale 0
set style fill solid 0.9 border rgb "#202020"
set key outside bottom center horizontal noenhanced font ",9"
""" % "; ".join(order(accel.values())).replace('"', "'"))
    for mode, title in (("poll", "rank 0 polls, rank 1 waits by ..."),
                        ("same", "both ranks wait by ...")):
        gp.append('set title "%s"' % title)
        parts = []
        for j, (lab, k) in enumerate(series):
            c = COLORS.get((lab.split()[0], k), "#808080")
            name = "%s, %s" % (lab, knob_name(k))
            sel = '(strcol(1) eq "%s" && $2 == %d ? $3 : NaN)' % (mode, j)
            parts.append('$D using %s:4:(%s-%.4f):(%s+%.4f):(1e-3):4 with boxxyerror lc rgb "%s" title "%s"'
                         % (sel, "$3", bw / 2, "$3", bw / 2, c, name))
            parts.append('$D using %s:4:5:6 with yerrorbars lc rgb "#000000" ps 0 notitle' % sel)
        gp.append("set yrange [0.5:*]\nplot " + ", \\\n     ".join(parts))
    gp.append("unset multiplot")
    plot("\n".join(gp) + "\n")


def fig7():
    rows, accel = load("fig7")
    if not rows:
        return
    write_runs("fig7", rows)
    s = summarise(rows, lambda r: (r["label"], r["knob"], r["strategy"],
                                   int(r["size"]), int(r["delay_us"])))
    series = order(rows, lambda r: (r["label"], r["knob"]))
    with open(prefix + "-fig7.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["kernel", "knob", "strategy", "size", "delay_us", "runs", "iterations",
                    "median_us", "min_median_us", "max_median_us", "p99_us",
                    "mean_us", "stddev_us", "cpu0_us_per_iter", "cpu1_us_per_iter"])
        for lab, k in series:
            for st in ("poll", "block"):
                for size in SIZES:
                    for d in DELAYS:
                        v = s.get((lab, k, st, size, d))
                        if v:
                            w.writerow([lab, k, st, size, d, v["runs"], v["iters"]] +
                                       ["%.3f" % v[c] for c in ("median", "lo", "hi", "p99",
                                                                "mean", "sd", "cpu0", "cpu1")])
    icount = all("icount" in a for a in accel.values())
    md = ["# Ping-pong on two CPUs, poll against block (LIBRA Fig. 7)%s\n"
          % ("" if icount else ", plain TCG"),
          fig7_conclusion(series, s) + "\n",
          "![Fig. 7%s](%s-fig7.png)\n" % ("" if icount else ", plain TCG",
                                           os.path.basename(prefix)),
          "Two CPUs (rank 0 and rank 1 pinned apart), rank 0 polls.\n"]
    accels = "; ".join("%s: %s" % (l, a) for l, a in accel.items())
    runs = sorted(set(v["runs"] for v in s.values()))
    for lab, k in series:
        md.append("**%s, %s:** median latency per ping-pong in us, poll / block "
                  "(block/poll ratio)\n" % (lab, knob_name(k)))
        md.append("| size | " + " | ".join("%d us" % d for d in DELAYS) + " |")
        md.append("|---|" + "---:|" * len(DELAYS))
        for size in SIZES:
            cells = []
            for d in DELAYS:
                p, b = s.get((lab, k, "poll", size, d)), s.get((lab, k, "block", size, d))
                cells.append("-" if not (p and b) else "%s / %s (%.2f)" % (
                    fmt(p["median"]), fmt(b["median"]), b["median"] / p["median"]))
            md.append("| %s | %s |" % (size_name(size), " | ".join(cells)))
        md.append("")
    # the knob should not matter with a CPU each and nobody yielding
    if len(series) > 1:
        md.append("**Knob 1 against knob 0** (median over all points of the ratio of medians, min-max)\n")
        md.append("| kernel | strategy | knob 1 / knob 0 |")
        md.append("|---|---|---:|")
        for lab in order(series, lambda x: x[0]):
            for st in ("poll", "block"):
                rat = []
                for size in SIZES:
                    for d in DELAYS:
                        a, b = s.get((lab, "0", st, size, d)), s.get((lab, "1", st, size, d))
                        if a and b and a["median"] > 0:
                            rat.append(b["median"] / a["median"])
                if rat:
                    md.append("| %s | %s | %.2f (%.2f-%.2f) |" % (
                        lab, st, statistics.median(rat), min(rat), max(rat)))
        md.append("")
    md.append("## How this was measured\n")
    md.append("%s run%s per point and knob value. Accelerator: %s.\n"
              % ("/".join(map(str, runs)), "" if runs == [1] else "s", accels))
    with open(prefix + "-fig7.md", "w") as fh:
        fh.write("\n".join(md))

    # one panel per kernel and knob: latency vs delay, a line per size,
    # poll solid, block dashed
    ncol = 2
    nrow = (len(series) + ncol - 1) // ncol
    data = []
    for j, (lab, k) in enumerate(series):
        for st in ("poll", "block"):
            for size in SIZES:
                for i, d in enumerate(DELAYS):
                    v = s.get((lab, k, st, size, d))
                    if v:
                        data.append("%d %s %d %d %.4f %.4f %.4f" % (j, st, size, i + 1, v["median"], v["lo"], v["hi"]))
                data.append("")
    gp = [TERM % (1300, 520 * nrow, 1300, 520 * nrow, prefix + "-fig7.png")]
    gp.append("$D << EOD\n" + "\n".join(data) + "\nEOD")
    gp.append("""set multiplot layout %d,%d title "ping-pong latency, two CPUs, rank 0 polls; rank 1 polls (solid) or blocks (dashed)\\n(%s)" noenhanced
set logscale y
set ylabel "latency per ping-pong, us (median; bars: min-max of runs)"
set xlabel "rank 0's delay before each message"
set grid ytics
set xrange [0.5:6.5]
set xtics ("0" 1, "10 us" 2, "50 us" 3, "100 us" 4, "500 us" 5, "1 ms" 6) scale 0
set key top left noenhanced font ",8" maxrows 5
""" % (nrow, ncol, "; ".join(order(accel.values())).replace('"', "'")))
    pal = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"]
    for j, (lab, k) in enumerate(series):
        gp.append('set title "%s, %s" noenhanced' % (lab, knob_name(k)))
        parts = []
        for si, size in enumerate(SIZES):
            for st, dt in (("poll", 1), ("block", 2)):
                sel = '(strcol(2) eq "%s" && $1 == %d && $3 == %d ? $4 : NaN)' % (st, j, size)
                t = ('title "%s"' % size_name(size)) if st == "poll" else "notitle"
                parts.append('$D using %s:5:6:7 with yerrorlines lc rgb "%s" dt %d pt 7 ps 0.6 %s'
                             % (sel, pal[si], dt, t))
        gp.append("plot " + ", \\\n     ".join(parts))
    gp.append("unset multiplot")
    plot("\n".join(gp) + "\n")


fig2()
fig7()
