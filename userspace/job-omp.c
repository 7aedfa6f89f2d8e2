// SPDX-License-Identifier: GPL-2.0
/*
 * job-omp: a bulk-synchronous OpenMP job for bench/jobs, built once with
 * gcc -fopenmp (job-gomp: GNU libgomp) and once with clang -fopenmp
 * (job-libomp: LLVM libomp). One parallel region; in each of -n steps
 * thread -H does HEAVY units of work, the others LIGHT, then all meet in
 * the runtime's barrier. Threads, their CPUs and the wait policy are the
 * runtime's, set as users set them (OMP_NUM_THREADS, OMP_PLACES,
 * OMP_PROC_BIND, OMP_WAIT_POLICY, KMP_BLOCKTIME, GOMP_SPINCOUNT); nothing
 * here changes them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"

#ifdef __clang__
#define RUNTIME "libomp"
#else
#define RUNTIME "libgomp"
#endif

static const char usage[] =
	"usage: job-omp [-N NAME] [-n STEPS] [-w HEAVY,LIGHT] [-H THREAD] [-g FIFO]\n"
	"  -N NAME         the job's name in its report line (default job)\n"
	"  -n STEPS        steps, each ended by a barrier (default 100)\n"
	"  -w HEAVY,LIGHT  units of work per step of the heavy thread and of the\n"
	"                  others (default 1000,125; a unit is 4096 hash steps)\n"
	"  -H THREAD       the thread that does HEAVY (default 0)\n"
	"  -g FIFO         start gate: write \"ready PID\" to FIFO once the\n"
	"                  threads run, start the timed steps at SIGUSR1\n"
	"Prints one line: job name=.. runtime=.. workers=.. start_ns=.. end_ns=..\n"
	"wall_ms=.. cpu_ms=.. (CLOCK_MONOTONIC, the process's CPU time).\n";

int main(int argc, char **argv)
{
	struct job_opts o;
	int64_t start = 0, end, cpu0 = 0, heavy_cpu = -1;
	uint64_t sink = 0;
	int workers = 0;

	job_parse(argc, argv, &o, usage);
	job_gate_prepare(&o);
	/* the runtime's threads start here, bound where OMP_PLACES says */
#pragma omp parallel reduction(^ : sink)
	{
#pragma omp single
		workers = omp_get_num_threads();
		sink ^= job_work(1, omp_get_thread_num());
	}
	job_gate_wait(&o);
	start = job_now();
	cpu0 = job_cpu();
#pragma omp parallel reduction(^ : sink)
	{
		int t = omp_get_thread_num();
		int64_t tcpu = job_thread_cpu();
		long i;

		for (i = 0; i < o.iters; i++) {
			sink ^= job_work(t == o.heavy_worker ? o.heavy : o.light,
					 i + t);
#pragma omp barrier
		}
		if (t == o.heavy_worker)
			heavy_cpu = job_thread_cpu() - tcpu;
	}
	end = job_now();
	job_report(&o, RUNTIME, workers, start, end, job_cpu() - cpu0,
		   heavy_cpu);
	/* the sum of the work, so that it is not optimised away */
	return sink == 42 ? 3 : 0;
}
