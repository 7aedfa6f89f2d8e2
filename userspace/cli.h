/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command line helpers shared by yield-share, yield-cost, pingpong and
 * yield-stats-test.
 */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#define CLI_EXIT_USAGE		2

/* Program name for messages; cli_set_prog() sets it from argv[0]. */
extern const char *cli_prog;

void cli_set_prog(const char *argv0, const char *fallback);

/* Print "prog: message\nTry 'prog --help'." and exit CLI_EXIT_USAGE. */
void __attribute__((__noreturn__, __format__(__printf__, 1, 2)))
usage_error(const char *fmt, ...);

/*
 * The last case of every tool's getopt_long() loop: -h (@opt 'h') prints
 * the usage with @usage and exits 0; any other option getopt_long() has
 * already reported: exit CLI_EXIT_USAGE with a pointer to --help.
 */
void __attribute__((__noreturn__))
cli_other_option(int opt, void (*usage)(FILE *f));

/* After the options: none of the tools takes operands; a usage error. */
void cli_no_operands(int argc, char **argv);

/*
 * Parse a decimal integer for option @opt; a non-number, trailing garbage,
 * overflow or a value outside min..max is a usage error.
 */
long parse_long(const char *opt, const char *s, long min, long max);

/* Parse the -k knob value: 0 or 1, or -1 for "keep"; else a usage error. */
int parse_knob(const char *s);

/* Output formats of the tools' -f option */
enum format { FMT_TABLE, FMT_CSV, FMT_KV };

/* -f's argument: table, csv or kv; anything else is a usage error. */
enum format parse_format(const char *s);

/* Parse the -d duration: seconds, > 0 and <= 1e6, else a usage error. */
double parse_duration(const char *s);

/* Sort v[0..n-1] (n > 0) and report its median, minimum and maximum. */
void stats(double *v, int n, double *med, double *min, double *max);

/*
 * Set /sys/kernel/sched_compat_yield to @want (0 or 1) for the rest of the
 * program; with @want < 0 leave it alone. The prior value is written back
 * at exit and by cli_knob_restore(), which is async-signal-safe (call it
 * from signal handlers; install them before calling this). Returns the
 * value the knob reads afterwards, -1 if it is absent and @want < 0, or
 * CLI_KNOB_ERROR after printing why.
 */
#define CLI_KNOB_ERROR		-2
int cli_knob_override(int want);
void cli_knob_restore(void);

#endif /* CLI_H */
