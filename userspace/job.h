/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parallel jobs of bench/jobs share: the imbalanced work of one
 * step, the start gate and the report line. A job is a bulk-synchronous
 * program of a real runtime (OpenMP, MPI, oneTBB) whose workers each do
 * HEAVY or LIGHT units of CPU-bound work per step and then wait for the
 * others in the runtime's own barrier, allreduce or join; the runtime's own
 * wait policy decides whether that wait spins, calls sched_yield() or
 * sleeps.
 *
 * Start gate (-g FIFO): each process of the job writes "ready PID\n" to
 * FIFO once its runtime is up (threads created and bound, MPI
 * initialised), then waits for SIGUSR1, which the caller sends to every
 * PID when all jobs of a set are ready, so that co-scheduled jobs start
 * their timed part together.
 */
#ifndef JOB_H
#define JOB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* hash iterations per unit of work */
#define JOB_UNIT_ITERS	4096

struct job_opts {
	const char *name;	/* -N: the job's name in its report line */
	long iters;		/* -n: steps */
	long heavy, light;	/* -w HEAVY,LIGHT: units per step */
	int heavy_worker;	/* -H: which worker does HEAVY, the others LIGHT */
	const char *gate;	/* -g: the start gate's FIFO, or NULL */
};

/* Parse the common options; exits 2 with a message on bad input. */
void job_parse(int argc, char **argv, struct job_opts *o, const char *usage);

/* Do @units units of work; the result keeps the compiler from dropping it. */
uint64_t job_work(long units, uint64_t seed);

/* CLOCK_MONOTONIC in ns */
int64_t job_now(void);

/* This process's CPU time in ns (all its threads) */
int64_t job_cpu(void);

/* The calling thread's CPU time in ns */
int64_t job_thread_cpu(void);

/*
 * Pin the caller to the @index-th CPU of the list in JOB_CPUS ("0,1"), as
 * a batch system's task binding does; nothing when JOB_CPUS is unset or
 * shorter. Exits 2 on a malformed list, 1 when the pinning fails.
 */
void job_pin(int index);

/*
 * Block SIGUSR1 (before the runtime starts threads, which inherit the
 * mask); later job_gate_wait() takes it.
 */
void job_gate_prepare(const struct job_opts *o);

/* Write "ready PID" to the gate and wait for SIGUSR1; no gate: return. */
void job_gate_wait(const struct job_opts *o);

/*
 * Print the report line:
 *   job name=.. runtime=.. workers=.. iters=.. heavy=.. light=..
 *       heavy_worker=.. start_ns=.. end_ns=.. wall_ms=.. cpu_ms=..
 *       heavy_cpu_ms=..
 * start/end on CLOCK_MONOTONIC (shared by the jobs of one machine);
 * cpu_ms the CPU time of all workers in the timed steps, heavy_cpu_ms that
 * of the heavy worker (its work and its waits), -1 where the runtime
 * does not tell which thread did the heavy work.
 */
void job_report(const struct job_opts *o, const char *runtime, int workers,
		int64_t start, int64_t end, int64_t cpu_ns,
		int64_t heavy_cpu_ns);

#ifdef __cplusplus
}
#endif

#endif
