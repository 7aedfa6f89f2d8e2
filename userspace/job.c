// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of the bench/jobs programs that do not depend on the runtime:
 * options, the work of a step, the start gate, the report line (job.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "job.h"

void job_parse(int argc, char **argv, struct job_opts *o, const char *usage)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *comma;
	int opt;

	cli_set_prog(argv[0], "job");
	o->name = "job";
	o->iters = 100;
	o->heavy = 1000;
	o->light = 125;
	o->heavy_worker = 0;
	o->gate = NULL;
	while ((opt = getopt_long(argc, argv, "N:n:w:H:g:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'N':
			if (!optarg[0] || strpbrk(optarg, " \t\n="))
				usage_error("-N: '%s' is not a name (no blanks or '=')",
					    optarg);
			o->name = optarg;
			break;
		case 'n':
			o->iters = parse_long("-n", optarg, 1, 100000000);
			break;
		case 'w':
			comma = strchr(optarg, ',');
			if (!comma)
				usage_error("-w: want HEAVY,LIGHT (got '%s')",
					    optarg);
			*comma = '\0';
			o->heavy = parse_long("-w HEAVY", optarg, 0, 100000000);
			o->light = parse_long("-w LIGHT", comma + 1, 0,
					      100000000);
			break;
		case 'H':
			o->heavy_worker = parse_long("-H", optarg, 0, 4095);
			break;
		case 'g':
			o->gate = optarg;
			break;
		default:
			if (opt == 'h') {
				fputs(usage, stdout);
				exit(0);
			}
			fprintf(stderr, "Try '%s --help'.\n", cli_prog);
			exit(CLI_EXIT_USAGE);
		}
	}
	cli_no_operands(argc, argv);
}

uint64_t job_work(long units, uint64_t seed)
{
	uint64_t x = seed | 1;
	long i, n = units * JOB_UNIT_ITERS;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t job_now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t job_cpu(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

int64_t job_thread_cpu(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void job_pin(int index)
{
	const char *list = getenv("JOB_CPUS"), *p;
	cpu_set_t set;
	char *end;
	long cpu = -1;
	int i;

	if (!list || !*list)
		return;
	for (p = list, i = 0;; i++) {
		errno = 0;
		cpu = strtol(p, &end, 10);
		if (end == p || errno || cpu < 0 || cpu >= CPU_SETSIZE ||
		    (*end && *end != ',')) {
			fprintf(stderr, "%s: JOB_CPUS: '%s' is not a list of CPUs\n",
				cli_prog, list);
			exit(CLI_EXIT_USAGE);
		}
		if (i == index)
			break;
		if (!*end)
			return;
		p = end + 1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: cannot pin worker %d to CPU %ld: %s\n",
			cli_prog, index, cpu, strerror(errno));
		exit(1);
	}
}

void job_gate_prepare(const struct job_opts *o)
{
	sigset_t set;

	if (!o->gate)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		perror("sigprocmask");
		exit(1);
	}
}

void job_gate_wait(const struct job_opts *o)
{
	char line[64];
	sigset_t set;
	int fd, len;

	if (!o->gate)
		return;
	fd = open(o->gate, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open the start gate %s: %s\n",
			cli_prog, o->gate, strerror(errno));
		exit(1);
	}
	/* one write of less than PIPE_BUF: lines of several jobs never mix */
	len = snprintf(line, sizeof(line), "ready %d\n", (int)getpid());
	if (write(fd, line, len) != len) {
		fprintf(stderr, "%s: cannot write to the start gate %s: %s\n",
			cli_prog, o->gate, strerror(errno));
		exit(1);
	}
	close(fd);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (sigwaitinfo(&set, NULL) < 0) {
		if (errno != EINTR) {
			perror("sigwaitinfo");
			exit(1);
		}
	}
}

void job_report(const struct job_opts *o, const char *runtime, int workers,
		int64_t start, int64_t end, int64_t cpu_ns,
		int64_t heavy_cpu_ns)
{
	printf("job name=%s runtime=%s workers=%d iters=%ld heavy=%ld light=%ld heavy_worker=%d start_ns=%lld end_ns=%lld wall_ms=%.3f cpu_ms=%.3f heavy_cpu_ms=%.3f\n",
	       o->name, runtime, workers, o->iters, o->heavy, o->light,
	       o->heavy_worker, (long long)start, (long long)end,
	       (end - start) / 1e6, cpu_ns / 1e6,
	       heavy_cpu_ns < 0 ? -1.0 : heavy_cpu_ns / 1e6);
	fflush(stdout);
}
