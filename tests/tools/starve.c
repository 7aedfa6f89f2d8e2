// SPDX-License-Identifier: GPL-2.0
/*
 * starve: does a yielder starve, or starve others? All tasks are pinned to
 * one CPU (-c, default the last one) for -d seconds (default 2); the knob
 * is whatever it is (the caller sets it).
 *
 *   starve alone
 *	one task calling sched_yield() in a loop, alone on the CPU. Reports
 *	its share of the CPU's time (it should get nearly all of it).
 *   starve sleepers [-n K]
 *	the yielder and K tasks (default 2) that run 1 ms and sleep 3 ms in
 *	turn. Reports each one's share and the busy share of the CPU: the
 *	yielder should get the time the sleepers leave.
 *   starve probe [-n K]
 *	a task that never yields, reading the clock in a loop, and K
 *	yielders (default 3). Reports the probe's share and the longest gap
 *	between two of its clock reads (the longest time it waited).
 *
 * Prints one "key=value ..." line; the caller judges it. Exit status 0 when
 * the run itself worked, 1 otherwise, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXTASKS	64

enum role { YIELDER, SLEEPER, PROBE };

struct slot {
	double cpu;		/* CPU time used in the window, s */
	double max_gap;		/* PROBE: longest gap between clock reads, s */
	unsigned long loops;
};

struct shared {
	volatile int ready;
	volatile int go;
	volatile int stop;
	struct slot slot[MAXTASKS];
};

static const char *prog = "starve";

static void usage(void)
{
	fprintf(stderr, "usage: %s alone|sleepers|probe [-n K] [-d SECONDS] [-c CPU]\n", prog);
	exit(2);
}

#include "number.h"
#include "task.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}


static void run(struct shared *sh, int i, enum role role, int cpu)
{
	struct slot *s = &sh->slot[i];
	double last, t, busy_until;
	struct timespec nap = { 0, 3000000 };

	pin(cpu);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!sh->go)
		sched_yield();
	s->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	last = clock_s(CLOCK_MONOTONIC);
	s->max_gap = 0;
	while (!sh->stop) {
		switch (role) {
		case YIELDER:
			sched_yield();
			break;
		case SLEEPER:
			busy_until = clock_s(CLOCK_MONOTONIC) + 0.001;
			while (clock_s(CLOCK_MONOTONIC) < busy_until && !sh->stop)
				;
			nanosleep(&nap, NULL);
			break;
		case PROBE:
			t = clock_s(CLOCK_MONOTONIC);
			if (t - last > s->max_gap)
				s->max_gap = t - last;
			last = t;
			break;
		}
		s->loops++;
	}
	s->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - s->cpu;
	_exit(0);
}

int main(int argc, char **argv)
{
	int ntasks, k = -1, cpu, i, c, failed = 0;
	double seconds = 2, start, window, busy = 0;
	enum role first;
	struct shared *sh;
	struct timespec ts;
	pid_t pids[MAXTASKS];
	const char *mode;

	cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "n:d:c:h")) != -1) {
		switch (c) {
		case 'n':
			k = number("-n", optarg, 1, MAXTASKS - 1);
			break;
		case 'd':
			seconds = number("-d", optarg, 1, 3600);
			break;
		case 'c':
			cpu = number("-c", optarg, 0, CPU_SETSIZE - 1);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!strcmp(mode, "alone")) {
		if (k >= 0)
			usage();
		first = YIELDER;
		k = 0;
	} else if (!strcmp(mode, "sleepers")) {
		first = YIELDER;
		k = k < 0 ? 2 : k;
	} else if (!strcmp(mode, "probe")) {
		first = PROBE;
		k = k < 0 ? 3 : k;
	} else {
		usage();
	}
	ntasks = 1 + k;
	sh = shared_map(sizeof(*sh));
	if (!sh)
		return 1;
	for (i = 0; i < ntasks; i++) {
		enum role role = i == 0 ? first : first == PROBE ? YIELDER : SLEEPER;

		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			sh->stop = 1;
			return 1;
		}
		if (pids[i] == 0)
			run(sh, i, role, cpu);
	}
	/* Wait until all are pinned; the window starts at "go". */
	while (sh->ready < ntasks)
		sched_yield();
	sh->go = 1;
	start = clock_s(CLOCK_MONOTONIC);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	sh->stop = 1;
	for (i = 0; i < ntasks; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	window = clock_s(CLOCK_MONOTONIC) - start;
	printf("%s cpu=%d tasks=%d seconds=%.3f", mode, cpu, ntasks, window);
	for (i = 0; i < ntasks; i++)
		busy += sh->slot[i].cpu;
	printf(" share0=%.4f others=%.4f busy=%.4f loops0=%lu",
	       sh->slot[0].cpu / window, (busy - sh->slot[0].cpu) / window,
	       busy / window, sh->slot[0].loops);
	if (first == PROBE)
		printf(" max_gap_ms=%.3f", sh->slot[0].max_gap * 1e3);
	for (i = 1; i < ntasks; i++)
		if (!sh->slot[i].loops)
			failed = 1;
	printf(" all_progressed=%d\n", !failed);
	return failed;
}
