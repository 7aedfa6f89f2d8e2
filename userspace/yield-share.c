// SPDX-License-Identifier: GPL-2.0
/*
 * yield-share: how much CPU does a sched_yield() caller get against hogs?
 *
 * Runs the benchmark engine of the sched_compat_yield selftest (share.c):
 * worker 0 (the "yielder") and HOGS getppid() workers, all pinned to one
 * CPU, each counting its loop iterations for a fixed time.  Optionally sets
 * /sys/kernel/sched_compat_yield for the run and restores it afterwards.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "share.h"
#include "stall.h"

/* exit codes */
#define EXIT_RUN_FAILED		1
#define EXIT_UNSUPPORTED	4	/* placement impossible here (as KSFT_SKIP) */

#define MAX_REPEAT		1000
/* long options without a short one */
#define OPT_LATE_EDGE		256


static void on_signal(int sig)
{
	scy_emergency_cleanup();
	cli_knob_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-d SECONDS] [-c CPU] [-n HOGS] [-p same|session|cgroup|cgroup-session|cgroup-root]\n"
		"       %*s [-m yield|getppid] [-k 0|1|keep] [-r REPEAT]\n"
		"       %*s [-f table|csv|kv] [-o FILE] [--late-edge MS]\n"
		"\n"
		"Pin a yielder (worker 0) and HOGS getppid() workers to one CPU, let\n"
		"them count loop iterations for SECONDS and report each worker's share\n"
		"of the iterations and of the CPU time.\n"
		"\n"
		"  -d, --duration SECONDS  length of one run (default 30)\n"
		"  -c, --cpu CPU           CPU the workers run on (default: the highest\n"
		"                          CPU we may use); the tool itself runs elsewhere\n"
		"  -n, --hogs HOGS         getppid() workers besides worker 0 (default 1,\n"
		"                          0..%d)\n"
		"  -p, --placement P       where the yielder runs (default same):\n"
		"                            same     in the caller's group, like the hogs\n"
		"                            session  setsid(): its own autogroup (enables\n"
		"                                     kernel.sched_autogroup_enabled for the\n"
		"                                     run; root unless already enabled)\n"
		"                            cgroup   cgroup v2 sibling of the hogs' group,\n"
		"                                     cpu controller on (root)\n"
		"                            cgroup-session\n"
		"                                     a cgroup v2 group of its own, cpu\n"
		"                                     controller on, each hog in our cgroup\n"
		"                                     with a session (autogroup) of its own\n"
		"                                     (root)\n"
		"                            cgroup-root\n"
		"                                     a cgroup v2 group of its own, cpu\n"
		"                                     controller on, each hog a plain task\n"
		"                                     of our cgroup and session (root)\n"
		"  -m, --mode M            worker 0 calls sched_yield() (yield, default)\n"
		"                          or getppid() (getppid: the 50/50 baseline)\n"
		"  -k, --knob K            set %s to 0 or 1 for the\n"
		"                          run and restore it afterwards; keep (default)\n"
		"                          leaves it alone\n"
		"  -r, --repeat N          run N times and report median, min and max of\n"
		"                          the yielder's shares (default 1)\n"
		"  -f, --format F          table (default), csv (header and one row per\n"
		"                          run) or kv (one key=value line per run)\n"
		"  -o, --output FILE       write the report to FILE instead of stdout\n"
		"      --late-edge MS      a test of the edges: read the yield_stats\n"
		"                          module's counters MS ms (0..1000) after the\n"
		"                          window's end, as a guest the host stalls may;\n"
		"                          edge_yields must still cover the gap\n"
		"  -h, --help              this text\n"
		"\n"
		"When the yield_stats module (module/) is loaded, the table and kv\n"
		"formats also report how many yields in each run's window were\n"
		"effective (another task ran before the yielder ran again) and how\n"
		"many took the compat path (edge_yields: the yields made while the\n"
		"counters were read at the window's edges, how far those counts may\n"
		"be off), and the stalls a thread on another CPU saw in the window\n"
		"(wake-ups late by more than 1 ms) with the number of yields they may\n"
		"have left ineffective beside a hog (stall_allowance).\n"
		"\n"
		"Exit status: 0 ok, 1 a run failed, 2 usage error, 4 the placement\n"
		"cannot be set up here (reason on stderr).\n",
		cli_prog, (int)strlen(cli_prog), "", (int)strlen(cli_prog), "",
		SCY_MAX_HOGS, SCY_KNOB_SYSFS);
}

static void scenario_name(char *buf, size_t len, const struct scy_config *c)
{
	if (c->nr_hogs == 1 && c->placement == SCY_PLACE_SAME &&
	    c->role0 == SCY_ROLE_GETPPID) {
		snprintf(buf, len, "baseline");
		return;
	}
	if (c->nr_hogs == 1 && c->placement != SCY_PLACE_SAME) {
		snprintf(buf, len, "%s-%s", scy_role_name(c->role0),
			 scy_placement_name(c->placement));
		return;
	}
	snprintf(buf, len, "%s-%dhog%s%s%s", scy_role_name(c->role0),
		 c->nr_hogs, c->nr_hogs == 1 ? "" : "s",
		 c->placement == SCY_PLACE_SAME ? "" : "-",
		 c->placement == SCY_PLACE_SAME ? "" :
		 scy_placement_name(c->placement));
}

/*
 * The yield_stats module (module/), when loaded, counts every fair-class
 * yield and whether another task ran before the yielder ran again. Its
 * counters are read at the edges of the measured window, so that their
 * difference covers the yields of the window alone: not those of the
 * warm-up, nor those the yielder may make alone on its CPU before the
 * hogs are woken. A probe of the guest's stalls (stall.h) covers the same
 * window; its allowance is the number of yields the stalls may have left
 * ineffective beside a hog.
 */
#define YS_DIR "/sys/kernel/yield_stats"

struct ys_sample {
	bool valid;
	unsigned long long yields, effective, compat;
	/*
	 * Yields counted from just before the snapshot of the workers' loop
	 * counters to the last read of the files: the most the module's
	 * counts at this edge may be off from the loop counters'.
	 */
	unsigned long long during;
};

static bool ys_read(const char *name, unsigned long long *v)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), YS_DIR "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok;
}

/*
 * The counters at one edge of the window, @before the yields counter read
 * just before the workers' loop counters were.
 */
static struct ys_sample ys_sample(bool have_before, unsigned long long before)
{
	struct ys_sample s = { 0 };
	unsigned long long again;

	/*
	 * One file per counter, read while the yielder runs: yields is read
	 * again last, so that the yields made since the loop counters were
	 * read bound how far the counts may be off from theirs.
	 */
	s.valid = have_before &&
		  ys_read("yields", &s.yields) && s.yields >= before &&
		  ys_read("effective", &s.effective) &&
		  ys_read("compat", &s.compat) &&
		  ys_read("yields", &again) && again >= s.yields;
	s.during = s.valid ? again - before : 0;
	return s;
}

struct ys_window {
	struct ys_sample start, end;
	struct stall_probe st;
	int busy_cpu;
	/* the yields counter just before the loop counters' snapshot */
	bool have_before;
	unsigned long long before;
	/* test hook: ms between the snapshot and the files' read at the end */
	long late_ms;
};

static void ys_window_edge(void *arg, bool end, bool after)
{
	struct ys_window *w = arg;

	if (!after) {
		w->have_before = ys_read("yields", &w->before);
		return;
	}
	if (!end) {
		w->start = ys_sample(w->have_before, w->before);
		if (w->start.valid)
			stall_probe_start(&w->st, w->busy_cpu);
		return;
	}
	if (w->late_ms) {
		struct timespec ts = {
			.tv_sec = w->late_ms / 1000,
			.tv_nsec = w->late_ms % 1000 * 1000000L,
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	w->end = ys_sample(w->have_before, w->before);
	stall_probe_stop(&w->st);
}

static void ys_print(FILE *f, enum format fmt, const struct ys_sample *a,
		     const struct ys_sample *b, const struct stall_probe *st)
{
	unsigned long long y, e, c, d;

	if (!a->valid || !b->valid || fmt == FMT_CSV)
		return;
	y = b->yields - a->yields;
	e = b->effective - a->effective;
	c = b->compat - a->compat;
	d = a->during + b->during;
	if (fmt == FMT_TABLE) {
		fprintf(f, "  yield_stats module: %llu yields in the window, %llu effective (%.2f%%), %llu compat; %llu made while the counters were read\n",
			y, e, y ? 100.0 * e / y : 0.0, c, d);
		if (st->cpu >= 0)
			fprintf(f, "  guest stalls seen from CPU %d: %u, %.1f ms (allowance %u ineffective yields)\n",
				st->cpu, st->stalls, st->stall_ns / 1e6,
				st->allowance);
	} else {
		fprintf(f, "module yields=%llu effective=%llu effective_share=%.6f compat=%llu edge_yields=%llu",
			y, e, y ? (double)e / y : 0.0, c, d);
		if (st->cpu >= 0)
			fprintf(f, " stall_allowance=%u stalls=%u stall_ms=%.1f",
				st->allowance, st->stalls, st->stall_ns / 1e6);
		fputc('\n', f);
	}
}

static void print_table(FILE *f, const char *scenario, int knob, int run,
			int runs, const struct scy_result *r)
{
	int i;

	fprintf(f,
		"%s run %d/%d: kernel %s, knob %s, placement %s, CPU %d, window %.3f s, CPU time from %s\n",
		scenario, run, runs, scy_kernel_release(),
		knob < 0 ? "absent" : scy_knob_name(knob),
		scy_placement_name(r->placement), r->cpu, r->wall_s,
		scy_cpu_source_name(r->cpu_source));
	fprintf(f, "  %-6s %-8s %-8s %14s %12s %14s %10s\n", "worker", "pid",
		"role", "iterations", "cpu_ms", "iter_share", "cpu_share");
	for (i = 0; i < r->nr_workers; i++) {
		const struct scy_worker_result *w = &r->w[i];

		fprintf(f, "  %-6d %-8d %-8s %14llu %12.1f %13.4f%% %9.4f%%\n",
			i, (int)w->pid, scy_role_name(w->role),
			(unsigned long long)w->counter, w->cpu_ns / 1e6,
			100 * w->counter_share, 100 * w->cpu_share);
	}
	if (r->nr_workers > 2)
		fprintf(f, "  %-6s %-8s %-8s %14llu %12.1f %13.4f%% %9.4f%%\n",
			"hogs", "", "getppid",
			(unsigned long long)r->hog_counter, r->hog_cpu_ns / 1e6,
			100 * r->hog_counter_share, 100 * r->hog_cpu_share);
	fflush(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration",	required_argument, NULL, 'd' },
		{ "cpu",	required_argument, NULL, 'c' },
		{ "hogs",	required_argument, NULL, 'n' },
		{ "placement",	required_argument, NULL, 'p' },
		{ "mode",	required_argument, NULL, 'm' },
		{ "knob",	required_argument, NULL, 'k' },
		{ "repeat",	required_argument, NULL, 'r' },
		{ "format",	required_argument, NULL, 'f' },
		{ "output",	required_argument, NULL, 'o' },
		{ "late-edge",	required_argument, NULL, OPT_LATE_EDGE },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double *cs = NULL, *ts = NULL, med, min, max;
	const char *out_path = NULL;
	enum format fmt = FMT_TABLE;
	struct scy_config cfg;
	struct scy_result res;
	char err[SCY_ERRLEN], scen[64];
	int opt, repeat = 1, want_knob = -1, knob, i, ret = 0;
	long late_ms = 0;
	FILE *out = stdout;

	cli_set_prog(argv[0], "yield-share");

	scy_config_init(&cfg);
	while ((opt = getopt_long(argc, argv, "d:c:n:p:m:k:r:f:o:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			cfg.duration_s = parse_duration(optarg);
			break;
		case 'c':
			cfg.cpu = parse_long("-c", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'n':
			cfg.nr_hogs = parse_long("-n", optarg, 0, SCY_MAX_HOGS);
			break;
		case 'p':
			if (scy_placement_parse(optarg, &cfg.placement))
				usage_error("-p: unknown placement '%s' (same, session or cgroup)",
					    optarg);
			break;
		case 'm':
			if (scy_role_parse(optarg, &cfg.role0))
				usage_error("-m: unknown mode '%s' (yield or getppid)",
					    optarg);
			break;
		case 'k':
			want_knob = parse_knob(optarg);
			break;
		case 'r':
			repeat = parse_long("-r", optarg, 1, MAX_REPEAT);
			break;
		case 'f':
			fmt = parse_format(optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case OPT_LATE_EDGE:
			late_ms = parse_long("--late-edge", optarg, 0, 1000);
			break;
		default:
			cli_other_option(opt, usage);
		}
	}
	cli_no_operands(argc, argv);
	if (cfg.cpu >= 0) {
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) ||
		    !CPU_ISSET(cfg.cpu, &set))
			usage_error("-c: CPU %d is offline or not in our affinity mask",
				    cfg.cpu);
	}
	if (cfg.cpu < 0)
		cfg.cpu = scy_default_cpu();
	if (cfg.cpu < 0) {
		fprintf(stderr, "%s: cannot find a CPU to run on\n", cli_prog);
		return EXIT_RUN_FAILED;
	}
	scenario_name(scen, sizeof(scen), &cfg);

	scy_on_signals(on_signal);

	/* the knob, after the handlers that restore it */
	knob = cli_knob_override(want_knob);
	if (knob == CLI_KNOB_ERROR)
		return EXIT_RUN_FAILED;

	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "%s: cannot open %s: %s\n", cli_prog,
				out_path, strerror(errno));
			return EXIT_RUN_FAILED;
		}
	}

	cs = calloc(repeat, sizeof(*cs));
	ts = calloc(repeat, sizeof(*ts));
	if (!cs || !ts) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return EXIT_RUN_FAILED;
	}

	if (fmt == FMT_CSV)
		scy_print_csv_header(out);
	for (i = 0; i < repeat; i++) {
		struct ys_window ysw = {
			.st = { .cpu = -1 },
			.busy_cpu = cfg.cpu,
			.late_ms = late_ms,
		};

		cfg.window_edge = ys_window_edge;
		cfg.edge_arg = &ysw;
		ret = scy_run(&cfg, &res, err, sizeof(err));
		/* a run that failed inside the window leaves the probe running */
		stall_probe_stop(&ysw.st);
		if (ret) {
			fprintf(stderr, "%s: %s: %s%s\n", cli_prog, scen,
				ret == SCY_EUNSUPPORTED ?
				"placement cannot be set up: " : "run failed: ",
				err);
			break;
		}
		cs[i] = res.yielder_counter_share;
		ts[i] = res.yielder_cpu_share;
		switch (fmt) {
		case FMT_TABLE:
			if (i)
				fputc('\n', out);
			print_table(out, scen, knob, i + 1, repeat, &res);
			break;
		case FMT_CSV:
			scy_print_csv_row(out, scen, knob, i + 1, &res);
			break;
		case FMT_KV:
			scy_print_kv(out, NULL, scen, knob, i + 1, &res);
			break;
		}
		ys_print(out, fmt, &ysw.start, &ysw.end, &ysw.st);
		fflush(out);
	}

	if (!ret && repeat > 1) {
		double cmed, cmin, cmax;

		stats(cs, repeat, &cmed, &cmin, &cmax);
		stats(ts, repeat, &med, &min, &max);
		if (fmt == FMT_TABLE) {
			fprintf(out,
				"\n%s: worker 0 (%s) over %d runs:\n"
				"  %-18s %11s %11s %11s\n"
				"  %-18s %10.4f%% %10.4f%% %10.4f%%\n"
				"  %-18s %10.4f%% %10.4f%% %10.4f%%\n",
				scen, scy_role_name(cfg.role0), repeat,
				"", "median", "min", "max",
				"iteration share", 100 * cmed, 100 * cmin,
				100 * cmax,
				"cpu share", 100 * med, 100 * min, 100 * max);
		} else if (fmt == FMT_KV) {
			fprintf(out,
				"summary scenario=%s knob=%s kernel=%s runs=%d yielder_counter_share_median=%.6f yielder_counter_share_min=%.6f yielder_counter_share_max=%.6f yielder_cpu_share_median=%.6f yielder_cpu_share_min=%.6f yielder_cpu_share_max=%.6f\n",
				scen, scy_knob_name(knob),
				scy_kernel_release(), repeat, cmed, cmin,
				cmax, med, min, max);
		}
		/* csv: rows only, the summary follows from them */
	}

	if (out != stdout && fclose(out)) {
		fprintf(stderr, "%s: writing %s: %s\n", cli_prog, out_path,
			strerror(errno));
		if (!ret)
			ret = SCY_EFAIL;
	}
	free(cs);
	free(ts);
	cli_knob_restore();
	if (ret == SCY_EUNSUPPORTED)
		return EXIT_UNSUPPORTED;
	return ret ? EXIT_RUN_FAILED : 0;
}
