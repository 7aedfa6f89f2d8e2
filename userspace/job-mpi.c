// SPDX-License-Identifier: GPL-2.0
/*
 * job-mpi: a bulk-synchronous MPI job for bench/jobs (job-openmpi, built
 * with Open MPI's mpicc). In each of -n steps rank -H does HEAVY units of
 * work, the others LIGHT, then all meet in an MPI_Allreduce. How a rank
 * waits in it (busy polling, sched_yield() with mpi_yield_when_idle) is
 * the library's, set as users set it (mpirun --mca ..., --oversubscribe);
 * JOB_CPUS ("0,1") pins rank i to the i-th CPU of the list, as a batch
 * system's task binding does. Rank 0 prints the
 * report line: the earliest start and the latest end over the ranks, and
 * the CPU time of all ranks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"

static const char usage[] =
	"usage: job-mpi [-N NAME] [-n STEPS] [-w HEAVY,LIGHT] [-H RANK] [-g FIFO]\n"
	"  -N NAME         the job's name in its report line (default job)\n"
	"  -n STEPS        steps, each ended by an MPI_Allreduce (default 100)\n"
	"  -w HEAVY,LIGHT  units of work per step of the heavy rank and of the\n"
	"                  others (default 1000,125; a unit is 4096 hash steps)\n"
	"  -H RANK         the rank that does HEAVY (default 0)\n"
	"  -g FIFO         start gate: each rank writes \"ready PID\" to FIFO\n"
	"                  after MPI_Init, starts the timed steps at SIGUSR1\n"
	"Rank 0 prints one line: job name=.. runtime=openmpi workers=RANKS\n"
	"start_ns=.. end_ns=.. wall_ms=.. cpu_ms=.. (all ranks).\n";

int main(int argc, char **argv)
{
	long long t[2], tmin, tmax, cpu, cpu_all, hcpu, hcpu_all;
	struct job_opts o;
	double v, sum;
	uint64_t sink = 0;
	int rank, size;
	long i;

	job_parse(argc, argv, &o, usage);
	job_gate_prepare(&o);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	job_pin(rank);
	/* one collective before the gate: connections are up */
	v = rank;
	MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	job_gate_wait(&o);
	t[0] = job_now();
	cpu = job_cpu();
	for (i = 0; i < o.iters; i++) {
		sink ^= job_work(rank == o.heavy_worker ? o.heavy : o.light,
				 i + rank);
		v = (double)(sink & 0xff);
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	t[1] = job_now();
	cpu = job_cpu() - cpu;
	hcpu = rank == o.heavy_worker ? cpu : 0;
	MPI_Reduce(&t[0], &tmin, 1, MPI_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&t[1], &tmax, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&cpu, &cpu_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&hcpu, &hcpu_all, 1, MPI_LONG_LONG, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	if (rank == 0)
		job_report(&o, "openmpi", size, tmin, tmax, cpu_all,
			   o.heavy_worker < size ? hcpu_all : -1);
	MPI_Finalize();
	return sum == -1.0 ? 3 : 0;
}
