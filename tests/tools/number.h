/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option parsing shared by the test tools: each defines `prog` and a
 * usage() that exits with status 2 before including this.
 */
#ifndef TOOLS_NUMBER_H
#define TOOLS_NUMBER_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The decimal value of @s for option @opt, in min..max, else usage(). */
static long number(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: '%s' is not a number in %ld..%ld\n",
			prog, opt, s, min, max);
		usage();
	}
	return v;
}

#endif
