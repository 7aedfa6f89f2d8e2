/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A probe of the machine's stalls, for the checks that count ineffective
 * yields beside a CPU hog.
 *
 * Under QEMU TCG a guest that the host does not run for a while sees its
 * clock jump when it runs again, and the scheduler charges the jump to the
 * task that was running: when that is the hog, the yielder is left with
 * more lag than a compat yield gives up (one turn of each rival), stays
 * eligible and is picked again at once, for about one yield per tick of
 * the stall (a compat yield moves it at least a tick of the rival's
 * virtual time). The probe is a thread on another CPU, SCHED_FIFO where
 * that is allowed, that wakes every STALL_PERIOD_NS; a wake-up late by
 * more than STALL_MIN_NS is a stall of that length. It sees the stalls of
 * the whole guest where the vCPUs stall together (QEMU's single-threaded
 * TCG), those of its own CPU elsewhere.
 */
#ifndef STALL_H
#define STALL_H

#include <pthread.h>
#include <stdbool.h>

#define STALL_PERIOD_NS		1000000L
#define STALL_MIN_NS		1000000L

struct stall_probe {
	pthread_t thread;
	bool running;		/* the thread was started */
	int cpu;		/* where it runs; -1: no other CPU */
	int stop;		/* set by stall_probe_stop() */
	long tick_ns;		/* resolution of CLOCK_MONOTONIC_COARSE */
	/* results, final after stall_probe_stop() */
	unsigned int stalls;		/* wake-ups late by > STALL_MIN_NS */
	unsigned long long stall_ns;	/* their lateness, summed */
	unsigned int allowance;		/* per stall: ceil(late / tick) + 1 */
};

/*
 * Start a probe on a CPU we may use other than @busy_cpu. Returns 0, or
 * -1 with p->cpu == -1 when there is no such CPU or the thread cannot be
 * started (the results then stay zero).
 */
int stall_probe_start(struct stall_probe *p, int busy_cpu);

/* Stop the probe and wait for it; its results are then final. */
void stall_probe_stop(struct stall_probe *p);

#endif /* STALL_H */
