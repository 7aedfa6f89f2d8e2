// SPDX-License-Identifier: GPL-2.0
/*
 * churn: change the scheduling state of running stress-ng workers, the
 * churn half of tests/debug-suite.sh's stress.
 *
 *   churn cgroup -d SECONDS [-c CGROUP_ROOT]
 *	rounds of: create a cpu cgroup under CGROUP_ROOT (default
 *	/sys/fs/cgroup, cgroup v2 with +cpu in its subtree_control), move
 *	two random workers into it, move them back to the root, remove it.
 *   churn policy -d SECONDS
 *	rounds of: take a random yielding worker through SCHED_BATCH,
 *	SCHED_IDLE, SCHED_FIFO (priority 1) and back to SCHED_OTHER, then
 *	give it a random nice value in 0..19.
 *
 * Workers are the processes whose comm is stress-ng-yield (policy) or
 * stress-ng-yield / stress-ng-cpu (cgroup), read from /proc at each round,
 * so the list is never older than the round. churn runs itself as
 * SCHED_FIFO priority 10, so that its rounds are not starved by the
 * workers it churns, and after each round sleeps three times as long as
 * the round took, 10 ms at least, so that it takes at most a quarter of a
 * CPU and does not starve them in turn: the two churns of the stress then
 * leave half a CPU to the fair tasks, RCU's grace-period kthread among
 * them, even while CPU hotplug has taken the other CPU away (on a KASAN
 * kernel under TCG a round that reads /proc takes far longer than 10 ms).
 *
 * Prints "ROUNDS OPS FAILED GONE": rounds done, operations that succeeded
 * (task moves; policy and nice changes), rounds with an operation that
 * failed for another reason than the worker having exited, and operations
 * skipped because it had (ESRCH) or policy rounds that found no worker. Failures are described on stderr.
 * Exit status 0 when at least one operation succeeded and none failed,
 * 1 otherwise, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXW	256

static const char *prog = "churn";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s cgroup -d SECONDS [-c CGROUP_ROOT]\n"
		"       %s policy -d SECONDS\n", prog, prog);
	exit(2);
}

#include "number.h"

static unsigned long rounds, ops, failed, gone, nowork;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* PIDs of the processes whose comm is @a or @b (NULL: only @a), up to MAXW. */
static int workers(pid_t *pids, const char *a, const char *b)
{
	char path[300], comm[32];
	struct dirent *de;
	int n = 0, fd;
	ssize_t len;
	DIR *d;

	d = opendir("/proc");
	if (!d) {
		fprintf(stderr, "%s: /proc: %s\n", prog, strerror(errno));
		return 0;
	}
	while (n < MAXW && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (len <= 0)
			continue;
		comm[len] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		if (!strcmp(comm, a) || (b && !strcmp(comm, b)))
			pids[n++] = atoi(de->d_name);
	}
	closedir(d);
	return n;
}

/* Write @pid to @dir/cgroup.procs: 1 done, 0 the task is gone, -1 failed. */
static int move(const char *dir, pid_t pid)
{
	char path[256], buf[32];
	int fd, len, ret = 1;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", pid);
	if (write(fd, buf, len) != len) {
		if (errno == ESRCH) {
			ret = 0;
		} else {
			fprintf(stderr, "%s: moving %d to %s: %s\n", prog, pid,
				dir, strerror(errno));
			ret = -1;
		}
	}
	close(fd);
	return ret;
}

/* Count one operation's result; false when it failed. */
static int count(int r)
{
	if (r > 0)
		ops++;
	else if (r == 0)
		gone++;
	return r >= 0;
}

static int cgroup_round(const char *root)
{
	pid_t pids[MAXW], moved[2], pid;
	int n, i, m = 0, ok = 1, r;
	char dir[200];

	n = workers(pids, "stress-ng-yield", "stress-ng-cpu");
	snprintf(dir, sizeof(dir), "%s/churn-%d-%lu", root, getpid(), rounds);
	if (mkdir(dir, 0755)) {
		fprintf(stderr, "%s: mkdir %s: %s\n", prog, dir, strerror(errno));
		return 0;
	}
	while (m < 2 && n > 0) {
		i = rand() % n;
		pid = pids[i];
		pids[i] = pids[--n];
		r = move(dir, pid);
		if (!count(r)) {
			ok = 0;
			break;
		}
		if (r > 0)
			moved[m++] = pid;
	}
	for (i = 0; i < m; i++)
		ok &= count(move(root, moved[i]));
	if (rmdir(dir)) {
		fprintf(stderr, "%s: rmdir %s: %s\n", prog, dir, strerror(errno));
		ok = 0;
	}
	return ok;
}

/* 1 done, 0 the task is gone, -1 failed (with @what in the message). */
static int result(int err, pid_t pid, const char *what)
{
	if (!err)
		return 1;
	if (errno == ESRCH)
		return 0;
	fprintf(stderr, "%s: %s of %d: %s\n", prog, what, pid, strerror(errno));
	return -1;
}

static int policy_round(void)
{
	static const struct {
		int policy, prio;
		const char *name;
	} steps[] = {
		{ SCHED_BATCH, 0, "SCHED_BATCH" },
		{ SCHED_IDLE, 0, "SCHED_IDLE" },
		{ SCHED_FIFO, 1, "SCHED_FIFO" },
		{ SCHED_OTHER, 0, "SCHED_OTHER" },
	};
	struct sched_param sp;
	pid_t pids[MAXW], pid;
	unsigned int i;
	int n, r;

	n = workers(pids, "stress-ng-yield", NULL);
	if (!n) {
		/* between a worker's exit and its restart, or at the end */
		nowork++;
		return 1;
	}
	pid = pids[rand() % n];
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		sp.sched_priority = steps[i].prio;
		r = result(sched_setscheduler(pid, steps[i].policy, &sp), pid,
			   steps[i].name);
		if (!count(r))
			return 0;
		if (!r)
			return 1;
	}
	r = result(setpriority(PRIO_PROCESS, pid, rand() % 20), pid, "nice");
	return count(r);
}

int main(int argc, char **argv)
{
	const char *root = "/sys/fs/cgroup", *what;
	struct sched_param sp = { .sched_priority = 10 };
	long secs = -1;
	double end;
	int opt, cg;

	if (argc < 2)
		usage();
	what = argv[1];
	if (strcmp(what, "cgroup") && strcmp(what, "policy"))
		usage();
	cg = !strcmp(what, "cgroup");
	optind = 2;
	while ((opt = getopt(argc, argv, "d:c:")) != -1) {
		switch (opt) {
		case 'd':
			secs = number("-d", optarg, 1, 86400);
			break;
		case 'c':
			if (!cg)
				usage();
			root = optarg;
			break;
		default:
			usage();
		}
	}
	if (secs < 0 || optind != argc)
		usage();
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "%s: running at the default priority: %s\n",
			prog, strerror(errno));
	srand(getpid());
	end = now() + secs;
	while (now() < end) {
		double t0 = now(), pause;
		struct timespec ts;

		if (!(cg ? cgroup_round(root) : policy_round()))
			failed++;
		rounds++;
		pause = 3 * (now() - t0);
		if (pause < 0.010)
			pause = 0.010;
		ts.tv_sec = (time_t)pause;
		ts.tv_nsec = (long)((pause - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	if (nowork)
		fprintf(stderr, "%s: no stress-ng-yield worker in %lu rounds\n",
			prog, nowork);
	printf("%lu %lu %lu %lu\n", rounds, ops, failed, gone + nowork);
	return ops > 0 && !failed ? 0 : 1;
}
