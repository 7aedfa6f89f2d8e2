// SPDX-License-Identifier: GPL-2.0
/*
 * Command line helpers shared by yield-share, yield-cost, pingpong and
 * yield-stats-test.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "place.h"

const char *cli_prog = "?";

void cli_set_prog(const char *argv0, const char *fallback)
{
	const char *slash;

	cli_prog = fallback;
	if (!argv0 || !argv0[0])
		return;
	slash = strrchr(argv0, '/');
	if (!slash)
		cli_prog = argv0;
	else if (slash[1])
		cli_prog = slash + 1;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", cli_prog);
	exit(CLI_EXIT_USAGE);
}

void cli_other_option(int opt, void (*usage)(FILE *f))
{
	if (opt == 'h') {
		usage(stdout);
		exit(0);
	}
	fprintf(stderr, "Try '%s --help'.\n", cli_prog);
	exit(CLI_EXIT_USAGE);
}

void cli_no_operands(int argc, char **argv)
{
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || (errno && errno != ERANGE))
		usage_error("%s: '%s' is not an integer", opt, s);
	if (errno == ERANGE || v < min || v > max)
		usage_error("%s: %s is out of range (%ld..%ld)", opt, s, min,
			    max);
	return v;
}

int parse_knob(const char *s)
{
	if (!strcmp(s, "0"))
		return 0;
	if (!strcmp(s, "1"))
		return 1;
	if (strcmp(s, "keep"))
		usage_error("-k: '%s' is not 0, 1 or keep", s);
	return -1;
}

enum format parse_format(const char *s)
{
	if (!strcmp(s, "table"))
		return FMT_TABLE;
	if (!strcmp(s, "csv"))
		return FMT_CSV;
	if (strcmp(s, "kv"))
		usage_error("-f: unknown format '%s' (table, csv or kv)", s);
	return FMT_KV;
}

double parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		usage_error("-d: '%s' is not a number of seconds", s);
	if (!(v > 0) || v > 1e6)
		usage_error("-d: the duration must be > 0 and <= 1e6 s, not %s",
			    s);
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void stats(double *v, int n, double *med, double *min, double *max)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*min = v[0];
	*max = v[n - 1];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int knob_prior = -1;
static int knob_changed;

void cli_knob_restore(void)
{
	if (__atomic_exchange_n(&knob_changed, 0, __ATOMIC_RELAXED) &&
	    knob_prior >= 0)
		scy_knob_write(knob_prior);
}

int cli_knob_override(int want)
{
	int knob = scy_knob_present() ? scy_knob_read() : -1;
	int e;

	if (want < 0)
		return knob;
	if (!scy_knob_present()) {
		fprintf(stderr,
			"%s: -k %d: %s does not exist (kernel without CONFIG_SCHED_COMPAT_YIELD or unpatched)\n",
			cli_prog, want, SCY_KNOB_SYSFS);
		return CLI_KNOB_ERROR;
	}
	if (knob < 0) {
		fprintf(stderr, "%s: cannot read %s: %s\n", cli_prog,
			SCY_KNOB_SYSFS, strerror(errno));
		return CLI_KNOB_ERROR;
	}
	if (knob == want)
		return knob;
	knob_prior = knob;
	__atomic_store_n(&knob_changed, 1, __ATOMIC_RELAXED);
	atexit(cli_knob_restore);
	e = scy_knob_write(want);
	if (e) {
		fprintf(stderr, "%s: cannot write %d to %s: %s%s\n", cli_prog,
			want, SCY_KNOB_SYSFS, strerror(e),
			geteuid() ? " (not root)" : "");
		__atomic_store_n(&knob_changed, 0, __ATOMIC_RELAXED);
		return CLI_KNOB_ERROR;
	}
	knob = scy_knob_read();
	if (knob != want) {
		fprintf(stderr, "%s: %s reads %d after writing %d\n", cli_prog,
			SCY_KNOB_SYSFS, knob, want);
		return CLI_KNOB_ERROR;
	}
	return knob;
}
