// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-work: a CPU-bound co-runner that counts the work it gets done, to
 * measure how much of the time that ranks of a ping-pong spend waiting
 * another task can use ("cycle stealing").
 *
 * It pins itself to one CPU, optionally switches to SCHED_IDLE, and runs a
 * hash loop in units of UNIT_ITERS iterations. After every unit it records
 * CLOCK_MONOTONIC and its own CPU time in memory. The CPU time is read with
 * getrusage(RUSAGE_THREAD), which reports what the scheduler has accounted
 * (up to the last tick or switch), and not with CLOCK_THREAD_CPUTIME_ID:
 * reading that clock on the running task runs the scheduler's update_curr(),
 * which on EEVDF reschedules a task past its deadline at once, so a
 * co-runner reading it after every unit would hand its CPU back at the end
 * of its slice instead of at the next tick, as a program that only computes
 * does.
 * It stops after DURATION seconds or at SIGTERM/SIGINT and then prints
 *   units=.. cpu_ns=.. wall_ns=.. ns_per_unit=..
 * and, with -W START_NS,END_NS (CLOCK_MONOTONIC, e.g. a ping-pong's timed
 * loop), what it did inside that window, from the records around it:
 *   win_units=.. win_cpu_ns=.. win_ns=.. win_share=..
 * win_share is win_cpu_ns / win_ns. win_cpu_ns is the CPU time the
 * scheduler accounted, which lags by up to a tick: a measure for windows of
 * many ticks. With -U NS_PER_UNIT (a unit's cost when nothing interrupts
 * it, e.g. the ns_per_unit of a run alone on the CPU) the line ends with
 *   win_run_ns=..
 * win_units x NS_PER_UNIT, the time the task ran in the window counted by
 * the work it did: exact to a unit at either end, the measure for windows
 * of a few ticks or less. With -l FILE the window can be given
 * after the fact: it writes every record as "mono_ns cpu_ns units" and
 *   cpu-work -r FILE -W START_NS,END_NS
 * computes the window's line from that file. It keeps the last RECORDS
 * records (-R, default 2^20): a co-runner that gets the CPU for long
 * before the window (an MPI job's start-up) works on, dropping the oldest,
 * and the records still reach back RECORDS units from its end.
 *
 * usage: cpu-work [-c CPU] [-i] [-d SECONDS] [-u UNIT_ITERS] [-R RECORDS]
 *                 [-l FILE]
 *        cpu-work -r FILE -W START_NS,END_NS [-U NS_PER_UNIT]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define DEF_RECORDS	(1L << 20)

struct rec {
	int64_t mono, cpu;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the CPU time the scheduler has accounted to this thread */
static int64_t thread_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		fprintf(stderr, "cpu-work: getrusage: %s\n", strerror(errno));
		exit(1);
	}
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: cpu-work [-c CPU] [-i] [-d SECONDS] [-u UNIT_ITERS] [-R RECORDS]\n"
		"                [-l FILE]\n"
		"       cpu-work -r FILE -W START_NS,END_NS [-U NS_PER_UNIT]\n"
		"  -c CPU         pin to CPU (default: stay where started)\n"
		"  -i             run as SCHED_IDLE\n"
		"  -d SECONDS     stop after SECONDS (default: at SIGTERM or SIGINT)\n"
		"  -u UNIT_ITERS  hash iterations per unit of work (default 16384)\n"
		"  -R RECORDS     keep the last RECORDS records (default 1048576)\n"
		"  -l FILE        write the records kept: mono_ns cpu_ns units\n"
		"  -W S,E         report the work done between CLOCK_MONOTONIC S and E\n"
		"  -r FILE        read the records of FILE instead of working\n"
		"  -U NS          with -W: also win_run_ns, the window's units x NS\n");
	exit(2);
}

static long long parse_ll(const char *opt, const char *s, char **endp,
			  long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || (!endp && *end) || v < min || v > max) {
		fprintf(stderr, "cpu-work: %s: '%s' is not an integer in %lld..%lld\n",
			opt, s, min, max);
		exit(2);
	}
	if (endp)
		*endp = end;
	return v;
}

/*
 * CPU time at CLOCK_MONOTONIC t, linear between the records around it
 * (records are at most one unit apart while the task runs; between two
 * records it either ran or waited, which the interpolation spreads evenly;
 * the accounted CPU time lags by at most a tick, so a window's CPU time is
 * within two ticks of the truth).
 */
static double cpu_at(const struct rec *r, long n, int64_t t, double *units)
{
	long lo = 0, hi = n - 1, mid;
	double f;

	if (t <= r[0].mono) {
		*units = 0;
		return r[0].cpu;
	}
	if (t >= r[n - 1].mono) {
		*units = n - 1;
		return r[n - 1].cpu;
	}
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (r[mid].mono <= t)
			lo = mid;
		else
			hi = mid;
	}
	f = (double)(t - r[lo].mono) / (r[hi].mono - r[lo].mono);
	*units = lo + f;
	return r[lo].cpu + f * (r[hi].cpu - r[lo].cpu);
}

static void window(const struct rec *r, long n, int64_t s, int64_t e,
		   double ns_per_unit)
{
	double u0, u1, c0, c1;

	if (n < 2 || s < r[0].mono || e > r[n - 1].mono) {
		fprintf(stderr, "cpu-work: the window %" PRId64 "..%" PRId64
			" is not inside the records (%" PRId64 "..%" PRId64 ")\n",
			s, e, n ? r[0].mono : 0, n ? r[n - 1].mono : 0);
		exit(1);
	}
	c0 = cpu_at(r, n, s, &u0);
	c1 = cpu_at(r, n, e, &u1);
	printf("win_units=%.1f win_cpu_ns=%.0f win_ns=%" PRId64 " win_share=%.5f",
	       u1 - u0, c1 - c0, e - s, (c1 - c0) / (double)(e - s));
	if (ns_per_unit > 0)
		printf(" win_run_ns=%.0f", (u1 - u0) * ns_per_unit);
	putchar('\n');
}

int main(int argc, char **argv)
{
	long long cpu = -1, unit = 16384, dur_ns = 0, ns_unit = 0;
	long max = DEF_RECORDS, first = 0, cap;
	const char *logf = NULL, *readf = NULL;
	int64_t win_s = 0, win_e = 0, t0, c0;
	int idle = 0, opt, have_win = 0;
	struct sigaction sa;
	struct rec *r, *last;
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	long n = 0, i;
	char *end;

	while ((opt = getopt(argc, argv, "c:id:u:R:l:W:r:U:h")) != -1) {
		switch (opt) {
		case 'c': cpu = parse_ll("-c", optarg, NULL, 0, CPU_SETSIZE - 1); break;
		case 'i': idle = 1; break;
		case 'd': dur_ns = parse_ll("-d", optarg, NULL, 1, 86400) * 1000000000LL; break;
		case 'u': unit = parse_ll("-u", optarg, NULL, 1, 1LL << 30); break;
		case 'R': max = parse_ll("-R", optarg, NULL, 2, 1LL << 26); break;
		case 'l': logf = optarg; break;
		case 'r': readf = optarg; break;
		case 'U': ns_unit = parse_ll("-U", optarg, NULL, 1, 1000000000000LL); break;
		case 'W':
			win_s = parse_ll("-W", optarg, &end, 0, INT64_MAX);
			if (*end != ',')
				usage();
			win_e = parse_ll("-W", end + 1, NULL, win_s + 1, INT64_MAX);
			have_win = 1;
			break;
		default: usage();
		}
	}
	if (optind != argc || (readf && !have_win) || (ns_unit && !have_win))
		usage();
	/* a file holds the records of any -R: the reader grows its array */
	cap = readf ? 1024 : max;
	r = malloc(cap * sizeof(*r));
	if (!r) {
		fprintf(stderr, "cpu-work: out of memory\n");
		return 1;
	}

	if (readf) {
		FILE *f = fopen(readf, "r");
		long long m, c, u;

		if (!f) {
			fprintf(stderr, "cpu-work: %s: %s\n", readf, strerror(errno));
			return 1;
		}
		/* consecutive units, from the first one kept */
		while (fscanf(f, "%lld %lld %lld", &m, &c, &u) == 3) {
			if (!n)
				first = u;
			if (u != first + n) {
				fprintf(stderr, "cpu-work: %s: record %ld is unit %lld\n",
					readf, n, u);
				return 1;
			}
			if (n == cap) {
				struct rec *g = realloc(r, 2 * cap * sizeof(*r));

				if (!g) {
					fprintf(stderr, "cpu-work: out of memory\n");
					return 1;
				}
				r = g;
				cap *= 2;
			}
			r[n].mono = m;
			r[n++].cpu = c;
		}
		fclose(f);
		window(r, n, win_s, win_e, (double)ns_unit);
		return 0;
	}

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "cpu-work: cannot pin to CPU %lld: %s\n", cpu,
				strerror(errno));
			return 1;
		}
	}
	if (idle) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
			fprintf(stderr, "cpu-work: SCHED_IDLE: %s\n", strerror(errno));
			return 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* touch the record array now, not while working */
	memset(r, 0, max * sizeof(*r));

	/* record n goes to r[n % max]: the last max records are kept */
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = thread_cpu_ns();
	r[0].mono = t0;
	r[0].cpu = c0;
	last = &r[0];
	n = 1;
	while (!stop) {
		/* one unit: a 64-bit multiply-xorshift hash chain */
		for (i = 0; i < unit; i++) {
			h ^= h >> 29;
			h *= 0xbf58476d1ce4e5b9ULL;
			h ^= (uint64_t)i;
		}
		__asm__ __volatile__("" : : "r"(h));
		last = &r[n % max];
		last->mono = clock_ns(CLOCK_MONOTONIC);
		last->cpu = thread_cpu_ns();
		n++;
		if (dur_ns && last->mono - t0 >= dur_ns)
			break;
	}
	/*
	 * Stopped by a signal: one more record, so that the records reach past
	 * the signal even when it came between a record and the test of stop
	 * (a window that ended before the signal is then inside them).
	 */
	if (stop) {
		last = &r[n % max];
		last->mono = clock_ns(CLOCK_MONOTONIC);
		last->cpu = thread_cpu_ns();
		n++;
	}
	printf("units=%ld cpu_ns=%" PRId64 " wall_ns=%" PRId64 " ns_per_unit=%.1f hash=%016" PRIx64 "\n",
	       n - 1, last->cpu - c0, last->mono - t0,
	       (double)(last->cpu - c0) / (n - 1), h);
	if (n > max) {
		/* put the records kept in order: oldest first */
		struct rec *o = malloc(max * sizeof(*r));

		if (!o) {
			fprintf(stderr, "cpu-work: out of memory\n");
			return 1;
		}
		first = n - max;
		for (i = 0; i < max; i++)
			o[i] = r[(first + i) % max];
		free(r);
		r = o;
		fprintf(stderr, "cpu-work: kept the last %ld of %ld records (-R %ld)\n",
			max, n, max);
		n = max;
	}
	if (logf) {
		FILE *f = fopen(logf, "w");

		if (!f) {
			fprintf(stderr, "cpu-work: %s: %s\n", logf, strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++)
			fprintf(f, "%" PRId64 " %" PRId64 " %ld\n", r[i].mono, r[i].cpu,
				first + i);
		if (fclose(f)) {
			fprintf(stderr, "cpu-work: %s: write failed\n", logf);
			return 1;
		}
	}
	if (have_win)
		window(r, n, win_s, win_e, (double)ns_unit);
	fflush(stdout);
	return 0;
}
