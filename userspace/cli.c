// SPDX-License-Identifier: GPL-2.0
/*
 * Command line helpers shared by yield-share, yield-cost and pingpong.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
