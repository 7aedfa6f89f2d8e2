// SPDX-License-Identifier: GPL-2.0
/*
 * The stall probe of stall.h: a thread that wakes every STALL_PERIOD_NS on
 * a CPU of its own and counts the wake-ups that came late.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "stall.h"

static long long ts_ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static struct timespec ns_ts(long long ns)
{
	struct timespec t = {
		.tv_sec = ns / 1000000000LL,
		.tv_nsec = ns % 1000000000LL,
	};

	return t;
}

static void *probe(void *arg)
{
	struct stall_probe *p = arg;
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec t;
	long long next, now, late;

	/* without the privilege it runs as SCHED_OTHER */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	clock_gettime(CLOCK_MONOTONIC, &t);
	next = ts_ns(&t);
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		next += STALL_PERIOD_NS;
		t = ns_ts(next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t,
				       NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
		now = ts_ns(&t);
		late = now - next;
		if (late > STALL_MIN_NS) {
			p->stalls++;
			p->stall_ns += late;
			if (p->step_ns)
				p->allowance += (late + STALL_PERIOD_NS) /
						p->step_ns + 1;
			/* the next period starts now: a stall counts once */
			next = now;
		}
	}
	return NULL;
}

/*
 * Whether the running kernel's fair class is EEVDF (6.6 and later) and,
 * if so, its base slice in ns (sched/base_slice_ns in debugfs; without
 * debugfs 0.75 ms, the smallest default, which the kernel scales by
 * 1 + log2 of the CPUs, up to 8). Returns 0 on CFS.
 */
static long eevdf_base_slice(void)
{
	unsigned int major, minor;
	struct utsname u;
	long long v = 0;
	FILE *f;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
	    major < 6 || (major == 6 && minor < 6))
		return 0;
	f = fopen("/sys/kernel/debug/sched/base_slice_ns", "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? (long)v : 750000L;
}

int stall_probe_start(struct stall_probe *p, int busy_cpu)
{
	long c, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct timespec res;
	pthread_attr_t attr;
	cpu_set_t one;
	int err = -1;

	memset(p, 0, sizeof(*p));
	p->cpu = -1;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) || ts_ns(&res) <= 0)
		return -1;
	p->tick_ns = (long)ts_ns(&res);
	p->step_ns = eevdf_base_slice();
	if (p->step_ns)
		p->step_ns += p->tick_ns;
	/*
	 * The caller may be pinned to @busy_cpu already: try each CPU in
	 * turn, the first that the thread may run on takes it.
	 */
	for (c = 0; c < ncpu && c < CPU_SETSIZE && err; c++) {
		if (c == busy_cpu)
			continue;
		if (pthread_attr_init(&attr))
			return -1;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		err = pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		if (!err)
			err = pthread_create(&p->thread, &attr, probe, p);
		pthread_attr_destroy(&attr);
		if (!err)
			p->cpu = (int)c;
	}
	if (err)
		return -1;
	p->running = true;
	return 0;
}

void stall_probe_stop(struct stall_probe *p)
{
	if (!p->running)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_join(p->thread, NULL);
	p->running = false;
}
