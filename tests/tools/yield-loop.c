// SPDX-License-Identifier: GPL-2.0
/*
 * yield-loop: one task calling sched_yield() in a loop, with the policy and
 * the session the test asks for, beside CPU hogs on the same CPU.
 *
 *   yield-loop [-p other|batch|idle] [-s] [-H HOGS] [-g CGROUP] [-c CPU]
 *              [-d SECONDS]
 *	The yielder sets its own policy with sched_setscheduler() (default
 *	other), with -s first calls setsid() (a session of its own, hence an
 *	autogroup of its own while kernel.sched_autogroup_enabled is 1), pins
 *	itself to CPU (default the last online one) and yields for SECONDS
 *	(default 2). HOGS tasks (default 1) spin on the same CPU meanwhile,
 *	SCHED_OTHER, in the caller's session; with -g each hog first moves
 *	itself into the cgroup CGROUP (a cgroup v2 directory: its pid is
 *	written to CGROUP/cgroup.procs), so that the yielder (in the
 *	caller's cgroup) and the hogs sit in sibling groups. All start
 *	together; every CPU time printed is of the same window. SIGUSR1
 *	ends the window before SECONDS (a caller whose window ends a
 *	little after an event it waits for).
 *
 * Prints one "key=value ..." line: the yielder's yields and CPU time, the
 * hogs' loops and CPU time, and the autogroup of each side as
 * /proc/PID/autogroup names it (see autogroup() below); and the shape of
 * the yields that returned at once (no other task ran: the yielder's
 * involuntary context switches, getrusage(), did not change across the
 * yield): their number (at_once) and the longest run of them one after
 * another (at_once_run_max). A window of the stock yield across groups is
 * a run of hundreds: the yielder's group keeps its turn; a compat yield
 * returns at once only while the yielder has more lag than it gives up
 * per yield, a few in a row after a stall of the guest. Exit status 0
 * when the run itself worked (policy, session and pinning set, every task
 * exited normally), 1 otherwise, 2 on bad usage; the caller judges the
 * counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXHOGS	16

struct shared {
	volatile int ready;
	volatile int go;
	volatile int stop;
	unsigned long yields;
	unsigned long at_once, at_once_run_max;
	double yielder_cpu;
	char yielder_group[64];
	char hog_group[64];
	unsigned long hog_loops[MAXHOGS];
	double hog_cpu[MAXHOGS];
};

static const char *prog = "yield-loop";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-p other|batch|idle] [-s] [-H HOGS] [-g CGROUP] [-c CPU] [-d SECONDS]\n",
		prog);
	exit(2);
}

#include "number.h"
#include "task.h"

static volatile sig_atomic_t end_early;

static void on_usr1(int sig)
{
	(void)sig;
	end_early = 1;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The first word of /proc/self/autogroup ("/autogroup-N"); "root" when it
 * is empty (the task is in no autogroup: init's session, or autogroups
 * off when the session began), "none" when there is no such file.
 */
static void autogroup(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/autogroup", "r");

	snprintf(buf, size, "none");
	if (f) {
		if (fscanf(f, "%63s", buf) != 1)
			snprintf(buf, size, "root");
		fclose(f);
	}
}


static void wait_go(struct shared *sh)
{
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!sh->go)
		sched_yield();
}

/* The calling thread's involuntary context switches so far */
static long nivcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nivcsw;
}

static void yielder(struct shared *sh, int policy, int own_session, int cpu)
{
	struct sched_param sp = { .sched_priority = 0 };
	unsigned long n = 0, once = 0, run = 0, run_max = 0;
	long sw, sw1;
	double t0;

	/* a forked child leads no process group: setsid() cannot fail here */
	if (own_session && setsid() < 0) {
		fprintf(stderr, "%s: setsid: %s\n", prog, strerror(errno));
		_exit(1);
	}
	if (sched_setscheduler(0, policy, &sp)) {
		fprintf(stderr, "%s: sched_setscheduler: %s\n", prog, strerror(errno));
		_exit(1);
	}
	pin(cpu);
	autogroup(sh->yielder_group, sizeof(sh->yielder_group));
	wait_go(sh);
	t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	sw = nivcsw();
	while (!sh->stop) {
		sched_yield();
		n++;
		sw1 = nivcsw();
		if (sw1 == sw) {
			once++;
			if (++run > run_max)
				run_max = run;
		} else {
			run = 0;
		}
		sw = sw1;
	}
	sh->yielder_cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
	sh->yields = n;
	sh->at_once = once;
	sh->at_once_run_max = run_max;
	_exit(0);
}

/* Move the calling task into the cgroup v2 directory @cg; exit(1) if not. */
static void join_cgroup(const char *cg)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		fprintf(stderr, "%s: joining the cgroup %s: %s\n", prog, cg,
			strerror(errno));
		_exit(1);
	}
}

static void hog(struct shared *sh, int i, int cpu, const char *cg)
{
	unsigned long n = 0;
	double t0;

	if (cg)
		join_cgroup(cg);
	pin(cpu);
	wait_go(sh);
	t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	while (!sh->stop)
		n++;
	sh->hog_cpu[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
	sh->hog_loops[i] = n;
	_exit(0);
}

int main(int argc, char **argv)
{
	int policy = SCHED_OTHER, own_session = 0, hogs = 1, cpu, i, c, failed = 0;
	const char *pname = "other", *cg = NULL;
	double seconds = 2, start, window, hog_cpu = 0;
	unsigned long hog_loops = 0;
	struct timespec ts;
	struct sigaction sa;
	struct shared *sh;

	cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	/* SIGUSR1 interrupts the window's nanosleep(), which never restarts. */
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	if (sigaction(SIGUSR1, &sa, NULL)) {
		perror("sigaction");
		return 1;
	}
	while ((c = getopt(argc, argv, "p:sH:g:c:d:h")) != -1) {
		switch (c) {
		case 'p':
			pname = optarg;
			if (!strcmp(optarg, "other"))
				policy = SCHED_OTHER;
			else if (!strcmp(optarg, "batch"))
				policy = SCHED_BATCH;
			else if (!strcmp(optarg, "idle"))
				policy = SCHED_IDLE;
			else {
				fprintf(stderr, "%s: -p: '%s' is not other, batch or idle\n", prog, optarg);
				usage();
			}
			break;
		case 's':
			own_session = 1;
			break;
		case 'H':
			hogs = number("-H", optarg, 0, MAXHOGS);
			break;
		case 'g':
			cg = optarg;
			break;
		case 'c':
			cpu = number("-c", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'd':
			seconds = number("-d", optarg, 1, 3600);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	sh = shared_map(sizeof(*sh));
	if (!sh)
		return 1;
	snprintf(sh->yielder_group, sizeof(sh->yielder_group), "none");
	autogroup(sh->hog_group, sizeof(sh->hog_group));
	fflush(NULL);
	/* task 0 is the yielder, 1..HOGS the hogs */
	for (i = 0; i <= hogs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			failed = 1;
			break;
		}
		if (pid == 0) {
			if (i == 0)
				yielder(sh, policy, own_session, cpu);
			hog(sh, i - 1, cpu, cg);
		}
	}
	/* Start when all are set up (or one of them failed). */
	while (!failed && sh->ready < hogs + 1) {
		int status;

		if (waitpid(-1, &status, WNOHANG) > 0) {
			failed = 1;	/* exited before the start: it said why */
			break;
		}
		sched_yield();
	}
	sh->go = 1;
	start = clock_s(CLOCK_MONOTONIC);
	if (!failed) {
		ts.tv_sec = (time_t)seconds;
		ts.tv_nsec = 0;
		while (!end_early && nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	sh->stop = 1;
	window = clock_s(CLOCK_MONOTONIC) - start;
	while (1) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0)
			break;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	for (i = 0; i < hogs; i++) {
		hog_loops += sh->hog_loops[i];
		hog_cpu += sh->hog_cpu[i];
	}
	printf("yield-loop policy=%s own_session=%d cpu=%d seconds=%.3f yields=%lu yielder_cpu=%.3f hogs=%d hog_loops=%lu hog_cpu=%.3f yielder_autogroup=%s hog_autogroup=%s at_once=%lu at_once_run_max=%lu ok=%d\n",
	       pname, own_session, cpu, window, sh->yields, sh->yielder_cpu, hogs,
	       hog_loops, hog_cpu, sh->yielder_group, sh->hog_group, sh->at_once,
	       sh->at_once_run_max, !failed);
	return failed;
}
