// SPDX-License-Identifier: GPL-2.0
/*
 * mpi-pingpong: LIBRA-style MPI ping-pong with a straggler.
 *
 * Rank 0 busy-waits DELAY microseconds on CLOCK_MONOTONIC before each ping
 * (the straggler's computation, not timed), then times MPI_Send of SIZE
 * bytes to rank 1 plus MPI_Recv of rank 1's empty reply. Rank 1 waits in
 * MPI_Recv: whether it polls or yields is the MPI library's choice (Open
 * MPI: --mca mpi_yield_when_idle 1). With 4, 6 ... ranks, ranks 2k and
 * 2k+1 form a pair of their own that does the same, all pairs at once;
 * rank 0 gathers every pair's samples. Prints one summary line
 *   mean_us=.. stddev_us=.. median_us=.. p99_us=.. iterations=.. size=..
 *   delay_us=.. ranks=.. start_ns=.. end_ns=.. cpus=A:B/A:B/..
 * (statistics over the samples of all pairs; start_ns and end_ns:
 * CLOCK_MONOTONIC at rank 0's first and after its last timed ping-pong, for
 * tools that measure what else ran on the CPU meanwhile; cpus: per rank in
 * rank order, the CPU it ran on (sched_getcpu()) at the start of the timed
 * loop and after it, so that a reader can tell whether a pair shared a
 * CPU) and with -o FILE
 * every sample in microseconds, one per line, pair after pair.
 *
 * usage: mpirun -np 2|4|.. mpi-pingpong [-n ITER] [-s SIZE] [-D DELAY_US]
 *                                       [-w WARMUP] [-o FILE]
 */
#define _GNU_SOURCE /* sched_getcpu */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long parse(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "mpi-pingpong: %s: '%s' is not an integer in %ld..%ld\n",
			opt, s, min, max);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long iters = 1000, size = 1, delay = 50, warmup = 100;
	const char *out = NULL;
	double *t, *all = NULL, sum = 0, sq = 0, mean, sd;
	struct timespec start = { 0, 0 }, end;
	int rank, nranks, opt, peer, cpu[2], *cpus = NULL;
	long n;
	char *buf;
	long i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "n:s:D:w:o:")) != -1) {
		switch (opt) {
		case 'n': iters = parse("-n", optarg, 1, 100000000); break;
		case 's': size = parse("-s", optarg, 1, 8L << 20); break;
		case 'D': delay = parse("-D", optarg, 0, 1000000); break;
		case 'w': warmup = parse("-w", optarg, 0, 100000000); break;
		case 'o': out = optarg; break;
		default:
			if (!rank)
				fprintf(stderr, "usage: mpi-pingpong [-n ITER] [-s SIZE] [-D DELAY_US] [-w WARMUP] [-o FILE]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (nranks < 2 || nranks % 2) {
		if (!rank)
			fprintf(stderr, "mpi-pingpong: needs an even number of ranks, got %d\n", nranks);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	peer = rank ^ 1;
	n = iters * (nranks / 2);
	buf = calloc(1, size);
	t = calloc(iters, sizeof(*t));
	if (!rank) {
		all = calloc(n, sizeof(*all));
		cpus = calloc(2 * nranks, sizeof(*cpus));
	}
	if (!buf || !t || (!rank && (!all || !cpus)))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = -warmup; i < iters; i++) {
		if (i == 0) {
			if (!rank)
				clock_gettime(CLOCK_MONOTONIC, &start);
			cpu[0] = sched_getcpu();
		}
		if (rank % 2 == 0) {
			double t0 = now_us(), t1;

			while (now_us() - t0 < delay)
				;
			t0 = now_us();
			MPI_Send(buf, size, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			t1 = now_us();
			if (i >= 0)
				t[i] = t1 - t0;
		} else {
			MPI_Recv(buf, size, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(NULL, 0, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	cpu[1] = sched_getcpu();
	MPI_Gather(cpu, 2, MPI_INT, cpus, 2, MPI_INT, 0, MPI_COMM_WORLD);
	/* odd ranks contribute their (unused, zeroed) buffer: drop it below */
	if (!rank) {
		double *recv = calloc((size_t)iters * nranks, sizeof(*recv));

		if (!recv)
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Gather(t, iters, MPI_DOUBLE, recv, iters, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		for (i = 0; i < nranks / 2; i++)
			memcpy(all + i * iters, recv + 2 * i * iters, iters * sizeof(*all));
		free(recv);
		free(t);
		t = all;
	} else {
		MPI_Gather(t, iters, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	}
	if (rank == 0) {
		if (out) {
			FILE *f = fopen(out, "w");

			if (!f) {
				perror(out);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			for (i = 0; i < n; i++)
				fprintf(f, "%.3f\n", t[i]);
			fclose(f);
		}
		for (i = 0; i < n; i++) {
			sum += t[i];
			sq += t[i] * t[i];
		}
		mean = sum / n;
		sd = sqrt(fmax(sq / n - mean * mean, 0));
		qsort(t, n, sizeof(*t), cmp_double);
		printf("mean_us=%.2f stddev_us=%.2f median_us=%.2f p99_us=%.2f iterations=%ld size=%ld delay_us=%ld ranks=%d start_ns=%lld end_ns=%lld cpus=",
		       mean, sd, t[n / 2], t[(long)(n * 0.99)], iters, size, delay,
		       nranks, start.tv_sec * 1000000000LL + start.tv_nsec,
		       end.tv_sec * 1000000000LL + end.tv_nsec);
		for (i = 0; i < nranks; i++)
			printf("%s%d:%d", i ? "/" : "", cpus[2 * i], cpus[2 * i + 1]);
		printf("\n");
		free(cpus);
	}
	free(buf);
	free(t);
	MPI_Finalize();
	return 0;
}
