// SPDX-License-Identifier: GPL-2.0
/*
 * yield-top: the cgroups whose tasks call sched_yield() most, from the
 * yield_stats module's per-cgroup counts (debugfs yield_stats/cgroups).
 *
 *   yield-top [-n ROWS] [-i SECONDS [-c COUNT]] [-f FILE]
 *
 * Without -i: the counts since the module's last reset, the groups with
 * the most yields first. With -i: every SECONDS, the yields of each group
 * in that interval (per second), COUNT times (default: until interrupted).
 * Columns: yields (or yields/s), the part of them the compat yield handled
 * ("-" where the kernel has no sched_yield_fair_tp), the part that was
 * effective (another task ran before the yielder ran again), the time away
 * after an effective yield (p50 and p99: the top of the log2 bucket that
 * holds them, since the reset), and the group's path. A group whose
 * yields are mostly ineffective is one whose tasks keep their CPU while
 * they wait: what sched_compat_yield, or its cpu.compat_yield, changes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define YS_CGROUPS	"/sys/kernel/debug/yield_stats/cgroups"
#define MAX_GROUPS	1024
#define PATH_LEN	4096

struct group {
	unsigned long long yields, compat, effective, ineffective, lost;
	unsigned long long p50_us, p99_us;
	int have_compat;
	double rate;		/* -i: yields per second in the interval */
	char path[PATH_LEN];
};

/* now: what is shown; raw: the last sample; before: the one before it */
static struct group now[MAX_GROUPS], raw[MAX_GROUPS], before[MAX_GROUPS];
static int nr_now, nr_raw, nr_before;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: yield-top [-n ROWS] [-i SECONDS [-c COUNT]] [-f FILE]\n"
		"  -n, --rows ROWS         the ROWS groups that yield most (default 20)\n"
		"  -i, --interval SECONDS  every SECONDS (1..3600), the yields of that\n"
		"                          interval, per second\n"
		"  -c, --count COUNT       with -i: COUNT intervals (default: until\n"
		"                          interrupted)\n"
		"  -f, --file FILE         the module's per-cgroup file (default\n"
		"                          " YS_CGROUPS ")\n"
		"  -h, --help              this text\n");
}

/* Read @file into @g; the number of groups, or -1 with errno set */
static int read_groups(const char *file, struct group *g)
{
	char line[PATH_LEN + 256], cs[32];
	FILE *f = fopen(file, "r");
	int n = 0;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "yields ", 7)) {
		fclose(f);
		errno = EPROTO;
		return -1;
	}
	while (n < MAX_GROUPS && fgets(line, sizeof(line), f)) {
		struct group *x = &g[n];

		if (sscanf(line, "%llu %31s %llu %llu %llu %llu %llu %4095s",
			   &x->yields, cs, &x->effective, &x->ineffective,
			   &x->lost, &x->p50_us, &x->p99_us, x->path) != 8)
			continue;
		x->have_compat = strcmp(cs, "-") != 0;
		x->compat = x->have_compat ? strtoull(cs, NULL, 10) : 0;
		n++;
	}
	fclose(f);
	return n;
}

static const struct group *find(const struct group *g, int n,
				const char *path)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(g[i].path, path))
			return &g[i];
	return NULL;
}

static int by_rate(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return (y->rate > x->rate) - (y->rate < x->rate);
}

static double pct(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static void print(int rows, long interval)
{
	int i;

	printf("%12s %8s %10s %9s %9s  %s\n", interval > 0 ? "yields/s" : "yields",
	       "compat", "effective", "p50 us", "p99 us", "cgroup");
	for (i = 0; i < nr_now && i < rows; i++) {
		const struct group *g = &now[i];
		char compat[16];

		if (g->rate <= 0)
			break;
		if (g->have_compat)
			snprintf(compat, sizeof(compat), "%.1f%%",
				 pct(g->compat, g->yields));
		else
			snprintf(compat, sizeof(compat), "-");
		printf("%12.*f %8s %9.1f%% %9llu %9llu  %s\n",
		       interval > 0 ? 1 : 0, g->rate, compat,
		       pct(g->effective, g->effective + g->ineffective),
		       g->p50_us, g->p99_us, g->path);
	}
	fflush(stdout);
}

static void sample(const char *file)
{
	nr_raw = read_groups(file, raw);
	if (nr_raw < 0) {
		fprintf(stderr, "yield-top: %s: %s%s\n", file, strerror(errno),
			errno == ENOENT ?
			" (load the yield_stats module, mount debugfs)" : "");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *file = YS_CGROUPS;
	long rows = 20, count = -1, k;
	long interval = 0;
	struct timespec ts;
	int opt, i;

	cli_set_prog(argv[0], "yield-top");
	static const struct option longopts[] = {
		{ "rows",	required_argument, NULL, 'n' },
		{ "interval",	required_argument, NULL, 'i' },
		{ "count",	required_argument, NULL, 'c' },
		{ "file",	required_argument, NULL, 'f' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "n:i:c:f:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			rows = parse_long("-n", optarg, 1, MAX_GROUPS);
			break;
		case 'i':
			interval = parse_long("-i", optarg, 1, 3600);
			break;
		case 'c':
			count = parse_long("-c", optarg, 1, 1000000);
			break;
		case 'f':
			file = optarg;
			break;
		default:
			cli_other_option(opt, usage);
		}
	}
	cli_no_operands(argc, argv);
	if (count > 0 && interval <= 0)
		usage_error("-c needs -i");

	sample(file);
	if (interval <= 0) {
		memcpy(now, raw, sizeof(raw[0]) * nr_raw);
		nr_now = nr_raw;
		for (i = 0; i < nr_now; i++)
			now[i].rate = now[i].yields;
		qsort(now, nr_now, sizeof(now[0]), by_rate);
		print(rows, 0);
		return 0;
	}
	ts.tv_sec = interval;
	ts.tv_nsec = 0;
	for (k = 0; count < 0 || k < count; k++) {
		memcpy(before, raw, sizeof(raw[0]) * nr_raw);
		nr_before = nr_raw;
		nanosleep(&ts, NULL);
		sample(file);
		memcpy(now, raw, sizeof(raw[0]) * nr_raw);
		nr_now = nr_raw;
		for (i = 0; i < nr_now; i++) {
			const struct group *b = find(before, nr_before,
						     now[i].path);
			struct group *g = &now[i];

			/* the interval's counts; after a reset, all of them */
			if (b && b->yields <= g->yields) {
				g->yields -= b->yields;
				g->compat -= b->compat;
				g->effective -= b->effective;
				g->ineffective -= b->ineffective;
			}
			g->rate = (double)g->yields / interval;
		}
		qsort(now, nr_now, sizeof(now[0]), by_rate);
		if (k)
			putchar('\n');
		print(rows, interval);
	}
	return 0;
}
