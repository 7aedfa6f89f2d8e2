// SPDX-License-Identifier: GPL-2.0
/*
 * yield-backoff.so: a sleep back-off in place of sched_yield(), for a
 * program used unmodified (LD_PRELOAD).
 *
 * A runtime that waits by polling and calling sched_yield() between polls
 * gives its CPU only to the tasks the scheduler's yield lets run. Loaded
 * into it, this library makes each of those calls sleep instead, for a
 * time that grows by STEP with every call of one wait (STEP, 2 STEP, 3
 * STEP, ... up to MAX): the waiting thread leaves the run queue, so any
 * other task gets the CPU whatever the scheduler's yield does, and it
 * polls again when it wakes. A wait that ends soon costs little; a long
 * one wakes the thread ever more rarely. This is the sleep between polls
 * proposed for MPICH's busy waiting (a study of its energy use: 1 us more
 * at each poll). A call that comes more than GAP after the previous one
 * returned starts a new wait (the thread did something else meanwhile),
 * at STEP again.
 *
 * YIELD_BACKOFF_STEP_US (default 1), YIELD_BACKOFF_MAX_US (default 1000)
 * and YIELD_BACKOFF_GAP_US (default 200), each 1 to 1000000: a value out
 * of that range stops the program at start with a message and exit
 * status 2. The timer slack of the thread applies to each sleep as to
 * any nanosleep() (50 us by default). sched_yield() returns 0 and leaves
 * errno as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_USEC 1000L
#define NSEC_PER_SEC 1000000000L

static long step_ns = 1 * NSEC_PER_USEC;
static long max_ns = 1000 * NSEC_PER_USEC;
static long gap_ns = 200 * NSEC_PER_USEC;

/* the sleep of this thread's previous call, and when that call returned */
static __thread long sleep_ns;
static __thread struct timespec last;

static long env_us(const char *name, long dflt_ns)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s)
		return dflt_ns;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000) {
		fprintf(stderr, "yield-backoff: %s='%s' is not a number of microseconds from 1 to 1000000\n",
			name, s);
		_exit(2);
	}
	return v * NSEC_PER_USEC;
}

__attribute__((constructor)) static void yield_backoff_init(void)
{
	step_ns = env_us("YIELD_BACKOFF_STEP_US", step_ns);
	max_ns = env_us("YIELD_BACKOFF_MAX_US", max_ns);
	gap_ns = env_us("YIELD_BACKOFF_GAP_US", gap_ns);
}

static long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * NSEC_PER_SEC + (b->tv_nsec - a->tv_nsec);
}

int sched_yield(void)
{
	int saved_errno = errno;
	struct timespec now, ts;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((!last.tv_sec && !last.tv_nsec) || ns_between(&last, &now) > gap_ns)
		sleep_ns = 0;
	sleep_ns = sleep_ns + step_ns < max_ns ? sleep_ns + step_ns : max_ns;
	ts.tv_sec = sleep_ns / NSEC_PER_SEC;
	ts.tv_nsec = sleep_ns % NSEC_PER_SEC;
	/* a signal ends the sleep early: the caller polls again, as after a yield */
	nanosleep(&ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &last);
	errno = saved_errno;
	return 0;
}
