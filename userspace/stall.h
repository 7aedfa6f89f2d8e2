/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A probe of the machine's stalls, for the checks that count ineffective
 * yields beside a CPU hog.
 *
 * Under QEMU TCG a guest that the host does not run for a while sees its
 * clock jump when it runs again, and the scheduler charges the jump to the
 * task that was running. On EEVDF (6.6 and later), when that task is the
 * hog, the yielder is left with more lag than a compat yield gives up (one
 * turn of each rival), stays eligible and is picked again at once until
 * that lag is spent: each such yield moves it at least a tick and the base
 * slice of virtual time, and without the stall the yields would have been
 * effective, so a stall of L leaves at most L / (tick + base slice) + 1
 * yields ineffective; shorter stalls mostly none. On CFS (6.1) the compat
 * yield queues the yielder behind the leftmost rival wherever the stall
 * left it: no allowance. Where the stall is charged to the yielder, its
 * next yield finds it not eligible and moves nothing (compat=0 in the
 * trace event), once per stall on either kernel.
 *
 * The probe is a thread on another CPU, SCHED_FIFO where that is allowed,
 * that wakes every STALL_PERIOD_NS; a wake-up late by more than
 * STALL_MIN_NS marks a stall at least that long (up to a period longer).
 * It sees the stalls of the busy CPU only where the vCPUs stall together
 * (QEMU's single-threaded TCG, as make check runs its guests); under KVM
 * or multi-threaded TCG it sees those of its own CPU, which the checks
 * cannot tell apart. Delays inside the guest on its CPU (non-preemptible
 * kernel work) count as stalls too.
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
	long step_ns;		/* EEVDF: tick + base slice; 0 on CFS */
	/* results, final after stall_probe_stop() */
	unsigned int stalls;		/* wake-ups late by > STALL_MIN_NS */
	unsigned long long stall_ns;	/* their lateness, summed */
	/*
	 * The yields they may have left ineffective beside a hog: per stall
	 * (late + STALL_PERIOD_NS) / step_ns + 1 on EEVDF, none on CFS.
	 */
	unsigned int allowance;
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
