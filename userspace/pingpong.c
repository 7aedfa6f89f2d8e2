// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: LIBRA-style ping-pong between two processes over shared memory,
 * no MPI, to show what the waiting strategy of the receiver costs when the
 * two "ranks" share one CPU (or run on two).
 *
 * Rank 0 (this process) busy-waits DELAY_US before each message (the
 * straggler's computation, not timed), then times: copy SIZE bytes into the
 * shared buffer, publish the message's sequence number, wait until rank 1
 * has replied.  Rank 1 (a forked child) waits for each message with the
 * chosen strategy (wait.h), copies it out and replies (an empty message:
 * it publishes the sequence number it has read).  Reports the latency
 * distribution and each rank's CPU time per ping-pong (a stand-in for
 * energy).
 *
 * Rank 0 polls for the reply by default, as LIBRA's measuring side does.
 * With --rank0-wait it waits with a strategy too (e.g. "same" as rank 1),
 * as both ranks do in an MPI library that yields or blocks when idle: on
 * one CPU a polling rank 0 keeps the CPU until its slice ends whatever
 * rank 1 does, so only then can a yield hand the CPU straight back.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "place.h"
#include "wait.h"

/* exit codes, as yield-share */
#define EXIT_RUN_FAILED		1
#define EXIT_UNSUPPORTED	4	/* placement impossible here */

#define MAX_SIZE		(8L << 20)
#define MAX_DELAY_US		1000000L
#define MAX_ITER		10000000L
#define MAX_TRIES		1000000000L
#define MAX_TIMEOUT_US		10000000L

enum placement { PLACE_ONE, PLACE_TWO };

/* CPU time and context switches of one rank, from getrusage() */
struct usage {
	uint64_t cpu_ns;
	uint64_t nvcsw;
	uint64_t nivcsw;
};

/* What rank 1 hands back, written before it exits. */
struct report {
	struct usage use;		/* over the timed loop */
	struct wait_stats st;		/* over the timed loop */
	uint64_t bad;			/* messages with a wrong sequence mark */
};

struct shared {
	struct wait_word msg;		/* rank 0 -> 1: seq of the message */
	struct wait_word reply;		/* rank 1 -> 0: seq last read */
	struct report r1;
};

struct config {
	long size, iters, warmup, delay_us;
	struct wait_params wp;		/* rank 1's wait for a message */
	struct wait_params wp0;		/* rank 0's wait for the reply */
	enum placement place;
	int cpu[2];			/* rank 0, rank 1 */
	int ncpus_given;		/* CPUs given with -c, 0: none */
	const char *samples_path;
	enum format fmt;
};

struct result {
	double mean, sd, median, p99, min, max;	/* ns */
	double wall_ns;				/* timed loop */
	struct usage r0;
	struct wait_stats st0;
	struct report r1;
};

static volatile sig_atomic_t child_gone;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-s SIZE] [-n ITER] [-w WARMUP] [-D DELAY_US]\n"
		"       %*s [-S poll|yield|block|adaptive|sleep] [--tries-poll N]\n"
		"       %*s [--tries-yield N] [--timeout-us N] [--sleep-cap-us N]\n"
		"       %*s [--rank0-wait S|same] [-p one|two] [-c CPU[,CPU]]\n"
		"       %*s [-o SAMPLES_FILE] [-f table|csv|kv]\n"
		"\n"
		"Ping-pong between rank 0 (this process) and rank 1 (a child) over\n"
		"shared memory.  Rank 0 busy-waits DELAY_US before each message (not\n"
		"timed), then times copying SIZE bytes to rank 1 and waiting for its\n"
		"empty reply (polling, unless --rank0-wait).  Rank 1 waits for each\n"
		"message with strategy -S.\n"
		"\n"
		"  -s, --size SIZE         message size in bytes, 1..%ld (default 1)\n"
		"  -n, --iterations ITER   timed ping-pongs, 1..%ld (default 1000)\n"
		"  -w, --warmup WARMUP     untimed ping-pongs first, 0..%ld (default 100)\n"
		"  -D, --delay DELAY_US    rank 0's busy wait before each message,\n"
		"                          0..%ld (default 50)\n"
		"  -S, --strategy S        how rank 1 waits (default poll):\n"
		"                            poll      busy loop\n"
		"                            yield     sched_yield() between checks\n"
		"                            block     futex wait, woken by rank 0\n"
		"                            adaptive  poll, then yield, then futex wait\n"
		"                                      with a timeout, re-check, repeat\n"
		"                            sleep     nanosleep 1, 2, 3 ... us up to a cap\n"
		"      --tries-poll N      adaptive: polls before yielding (default %lu)\n"
		"      --tries-yield N     adaptive: yields before blocking (default %lu)\n"
		"      --timeout-us N      adaptive: futex wait timeout, >= 1 (default %lu)\n"
		"      --sleep-cap-us N    sleep: longest nanosleep, >= 1 (default %lu)\n"
		"      --rank0-wait S      how rank 0 waits for the reply: a strategy\n"
		"                          as for -S (same parameters), or same: as\n"
		"                          rank 1 (default poll, the measuring side)\n"
		"  -p, --placement P       one: both ranks on one CPU (default);\n"
		"                          two: rank 0 and rank 1 on two CPUs\n"
		"  -c, --cpu CPU[,CPU]     CPU for -p one (default: the highest we may\n"
		"                          use); CPUs of rank 0 and rank 1 for -p two\n"
		"                          (default: the two highest)\n"
		"  -o, --output FILE       write every timed sample (ns), one a line\n"
		"  -f, --format F          table (default), csv (header and a row) or kv\n"
		"  -h, --help              this text\n"
		"\n"
		"CPU time is each rank's getrusage() over the timed loop, per\n"
		"ping-pong; rank 0's includes its DELAY_US busy wait.\n"
		"\n"
		"Exit status: 0 ok, 1 the run failed, 2 usage error, 4 the placement\n"
		"cannot be set up here.\n",
		cli_prog, (int)strlen(cli_prog), "", (int)strlen(cli_prog), "",
		(int)strlen(cli_prog), "", (int)strlen(cli_prog), "",
		MAX_SIZE, MAX_ITER, MAX_ITER, MAX_DELAY_US,
		WAIT_DEF_TRIES_POLL, WAIT_DEF_TRIES_YIELD, WAIT_DEF_TIMEOUT_US,
		WAIT_DEF_SLEEP_CAP_US);
}

/* "A" or "A,B" */
static void parse_cpus(const char *s, struct config *c)
{
	char buf[64], *comma;

	if (strlen(s) >= sizeof(buf))
		usage_error("-c: '%s' is not CPU or CPU,CPU", s);
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (comma)
		*comma = '\0';
	c->cpu[0] = parse_long("-c", buf, 0, CPU_SETSIZE - 1);
	c->ncpus_given = 1;
	if (comma) {
		c->cpu[1] = parse_long("-c", comma + 1, 0, CPU_SETSIZE - 1);
		c->ncpus_given = 2;
	}
}

/* Check and complete the CPUs; returns 0 or EXIT_UNSUPPORTED. */
static int setup_cpus(struct config *c)
{
	int i, n = 0, top[2] = { -1, -1 };
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: sched_getaffinity: %s\n", cli_prog,
			strerror(errno));
		return EXIT_RUN_FAILED;
	}
	for (i = 0; i < c->ncpus_given; i++)
		if (!CPU_ISSET(c->cpu[i], &set))
			usage_error("-c: CPU %d is offline or not in our affinity mask",
				    c->cpu[i]);
	if (c->place == PLACE_ONE) {
		if (c->ncpus_given > 1)
			usage_error("-c: -p one takes one CPU, not '%d,%d'",
				    c->cpu[0], c->cpu[1]);
	} else {
		if (c->ncpus_given == 1)
			usage_error("-c: -p two takes two CPUs (-c A,B)");
		if (c->ncpus_given == 2 && c->cpu[0] == c->cpu[1])
			usage_error("-c: -p two needs two different CPUs (use -p one for one)");
	}
	if (c->ncpus_given) {
		if (c->place == PLACE_ONE)
			c->cpu[1] = c->cpu[0];
		return 0;
	}

	for (i = CPU_SETSIZE - 1; i >= 0 && n < 2; i--)
		if (CPU_ISSET(i, &set))
			top[n++] = i;
	if (c->place == PLACE_ONE) {
		c->cpu[0] = c->cpu[1] = top[0];
		return 0;
	}
	if (n < 2) {
		fprintf(stderr, "%s: -p two needs two CPUs, we may use only CPU %d\n",
			cli_prog, top[0]);
		return EXIT_UNSUPPORTED;
	}
	c->cpu[0] = top[1];
	c->cpu[1] = top[0];
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void usage_now(struct usage *u)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	u->cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
	u->nvcsw = ru.ru_nvcsw;
	u->nivcsw = ru.ru_nivcsw;
}

static void usage_sub(struct usage *d, const struct usage *a)
{
	d->cpu_ns -= a->cpu_ns;
	d->nvcsw -= a->nvcsw;
	d->nivcsw -= a->nivcsw;
}

static void stats_sub(struct wait_stats *d, const struct wait_stats *a)
{
	d->checks -= a->checks;
	d->yields -= a->yields;
	d->blocks -= a->blocks;
	d->timeouts -= a->timeouts;
	d->sleeps -= a->sleeps;
	d->sleep_us -= a->sleep_us;
	d->publishes -= a->publishes;
	d->wakes -= a->wakes;
}

/* Keep the compiler from dropping the copy into a buffer read only in part. */
static inline void clobber(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static void on_sigchld(int sig)
{
	(void)sig;
	child_gone = 1;
}

/* Rank 1: runs in the child, never returns. */
static void __attribute__((noreturn)) rank1(const struct config *c,
		struct shared *sh, unsigned char *buf, pid_t parent, int ready_fd)
{
	long i, total = c->warmup + c->iters;
	struct wait_stats st = { 0 }, st_start = { 0 };
	struct usage u_start = { 0 }, u;
	unsigned char *rbuf;
	uint64_t bad = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(EXIT_RUN_FAILED);
	if (c->place == PLACE_TWO && pin(c->cpu[1])) {
		fprintf(stderr, "%s: rank 1: cannot pin to CPU %d: %s\n",
			cli_prog, c->cpu[1], strerror(errno));
		_exit(EXIT_RUN_FAILED);
	}
	rbuf = malloc(c->size);
	if (!rbuf) {
		fprintf(stderr, "%s: rank 1: out of memory\n", cli_prog);
		_exit(EXIT_RUN_FAILED);
	}
	memset(rbuf, 0, c->size);

	/* start-up handshake: rank 0 starts sending once it reads this */
	if (write(ready_fd, "r", 1) != 1)
		_exit(EXIT_RUN_FAILED);
	close(ready_fd);

	for (i = 1; i <= total; i++) {
		if (i == c->warmup + 1) {
			usage_now(&u_start);
			st_start = st;
		}
		wait_until(&sh->msg, (uint32_t)i, &c->wp, &st);
		memcpy(rbuf, buf, c->size);
		clobber(rbuf);
		if (rbuf[0] != (unsigned char)i ||
		    rbuf[c->size - 1] != (unsigned char)i)
			bad++;
		wait_publish(&sh->reply, (uint32_t)i, &st);
	}
	usage_now(&u);
	usage_sub(&u, &u_start);
	stats_sub(&st, &st_start);
	sh->r1.use = u;
	sh->r1.st = st;
	sh->r1.bad = bad;
	_exit(0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void summarise(uint64_t *t, long n, struct result *r)
{
	double sum = 0, sq = 0, d;
	long i;

	for (i = 0; i < n; i++)
		sum += t[i];
	r->mean = sum / n;
	for (i = 0; i < n; i++) {
		d = t[i] - r->mean;
		sq += d * d;
	}
	r->sd = sqrt(sq / n);
	qsort(t, n, sizeof(*t), cmp_u64);
	r->min = t[0];
	r->max = t[n - 1];
	r->median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0;
	/* nearest rank */
	r->p99 = t[(long)ceil(0.99 * n) - 1];
}

/* Rank 0: the ping-pong itself.  Returns 0 or an exit code. */
static int run(const struct config *c, uint64_t *samples, struct result *res)
{
	long i, total = c->warmup + c->iters;
	size_t hdr = (sizeof(struct shared) + 4095) & ~4095UL;
	struct wait_params wp0 = c->wp0;
	struct usage u_start = { 0 };
	struct wait_stats st = { 0 }, st_start = { 0 };
	uint64_t t0, t1, start = 0, delay_ns = c->delay_us * 1000ULL;
	unsigned char *src, *buf;
	struct shared *sh;
	int fds[2], status, ret = EXIT_RUN_FAILED;
	ssize_t n;
	char ch;
	pid_t pid;
	void *map;

	src = malloc(c->size);
	if (!src) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return EXIT_RUN_FAILED;
	}
	memset(src, 0x5a, c->size);
	map = mmap(NULL, hdr + c->size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: %s\n", cli_prog, strerror(errno));
		free(src);
		return EXIT_RUN_FAILED;
	}
	sh = map;
	buf = (unsigned char *)map + hdr;
	memset(map, 0, hdr + c->size);		/* also faults the pages in */

	if (pin(c->cpu[0])) {
		fprintf(stderr, "%s: cannot pin to CPU %d: %s\n", cli_prog,
			c->cpu[0], strerror(errno));
		goto out_unmap;
	}
	if (pipe(fds)) {
		fprintf(stderr, "%s: pipe: %s\n", cli_prog, strerror(errno));
		goto out_unmap;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", cli_prog, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto out_unmap;
	}
	if (!pid) {
		close(fds[0]);
		rank1(c, sh, buf, getppid(), fds[1]);
	}
	close(fds[1]);
	do {
		n = read(fds[0], &ch, 1);
	} while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n != 1) {
		fprintf(stderr, "%s: rank 1 failed to start\n", cli_prog);
		goto out_reap;
	}

	/* rank 0's wait for the reply ends early if rank 1 dies */
	wp0.stop = &child_gone;

	for (i = 1; i <= total; i++) {
		if (i == c->warmup + 1) {
			usage_now(&u_start);
			st_start = st;
			start = now_ns();
		}
		src[0] = src[c->size - 1] = (unsigned char)i;
		if (delay_ns) {
			t0 = now_ns();
			while (now_ns() - t0 < delay_ns)
				;
		}
		t0 = now_ns();
		memcpy(buf, src, c->size);
		wait_publish(&sh->msg, (uint32_t)i, &st);
		if (wait_until(&sh->reply, (uint32_t)i, &wp0, &st)) {
			fprintf(stderr, "%s: rank 1 exited during ping-pong %ld\n",
				cli_prog, i);
			goto out_reap;
		}
		t1 = now_ns();
		if (i > c->warmup)
			samples[i - c->warmup - 1] = t1 - t0;
	}
	res->wall_ns = now_ns() - start;
	usage_now(&res->r0);
	usage_sub(&res->r0, &u_start);
	stats_sub(&st, &st_start);
	res->st0 = st;
	ret = 0;

out_reap:
	if (ret)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "%s: waitpid: %s\n", cli_prog,
				strerror(errno));
			ret = EXIT_RUN_FAILED;
			goto out_unmap;
		}
	}
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		fprintf(stderr, "%s: rank 1 failed (%s %d)\n", cli_prog,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) :
			WTERMSIG(status));
		ret = EXIT_RUN_FAILED;
	}
	if (!ret)
		res->r1 = sh->r1;
out_unmap:
	munmap(map, hdr + c->size);
	free(src);
	return ret;
}

static const char *kernel_release(void)
{
	static struct utsname u;

	if (uname(&u))
		return "unknown";
	return u.release;
}

/* "0", "1" (whatever the file holds), "absent" or "unreadable" */
static const char *knob_value(void)
{
	static char v[16];
	FILE *f;
	size_t len;

	f = fopen(SCY_KNOB_SYSFS, "r");
	if (!f)
		return errno == ENOENT ? "absent" : "unreadable";
	if (!fgets(v, sizeof(v), f)) {
		fclose(f);
		return "unreadable";
	}
	fclose(f);
	len = strcspn(v, " \t\n");
	v[len] = '\0';
	return len ? v : "unreadable";
}

#define NR_FIELDS	40

struct field {
	const char *key;
	char val[80];
};

static int nf;

static void __attribute__((format(printf, 3, 4)))
field(struct field *f, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (nf >= NR_FIELDS)
		abort();
	f[nf].key = key;
	va_start(ap, fmt);
	vsnprintf(f[nf].val, sizeof(f[nf].val), fmt, ap);
	va_end(ap);
	nf++;
}

static void fill_fields(struct field *f, const struct config *c,
			const struct result *r, const char *knob)
{
	double n = c->iters;

	nf = 0;
	field(f, "kernel", "%s", kernel_release());
	field(f, "knob", "%s", knob);
	field(f, "strategy", "%s", wait_strategy_name(c->wp.strategy));
	field(f, "rank0_wait", "%s", wait_strategy_name(c->wp0.strategy));
	field(f, "placement", "%s", c->place == PLACE_ONE ? "one" : "two");
	field(f, "cpu0", "%d", c->cpu[0]);
	field(f, "cpu1", "%d", c->cpu[1]);
	field(f, "size", "%ld", c->size);
	field(f, "delay_us", "%ld", c->delay_us);
	field(f, "iterations", "%ld", c->iters);
	field(f, "warmup", "%ld", c->warmup);
	field(f, "tries_poll", "%lu", c->wp.tries_poll);
	field(f, "tries_yield", "%lu", c->wp.tries_yield);
	field(f, "timeout_us", "%lu", c->wp.timeout_us);
	field(f, "sleep_cap_us", "%lu", c->wp.sleep_cap_us);
	field(f, "mean_us", "%.3f", r->mean / 1e3);
	field(f, "stddev_us", "%.3f", r->sd / 1e3);
	field(f, "median_us", "%.3f", r->median / 1e3);
	field(f, "p99_us", "%.3f", r->p99 / 1e3);
	field(f, "min_us", "%.3f", r->min / 1e3);
	field(f, "max_us", "%.3f", r->max / 1e3);
	field(f, "wall_us_per_iter", "%.3f", r->wall_ns / 1e3 / n);
	field(f, "cpu0_us_per_iter", "%.3f", r->r0.cpu_ns / 1e3 / n);
	field(f, "cpu1_us_per_iter", "%.3f", r->r1.use.cpu_ns / 1e3 / n);
	field(f, "vcsw0_per_iter", "%.4f", r->r0.nvcsw / n);
	field(f, "ivcsw0_per_iter", "%.4f", r->r0.nivcsw / n);
	field(f, "vcsw1_per_iter", "%.4f", r->r1.use.nvcsw / n);
	field(f, "ivcsw1_per_iter", "%.4f", r->r1.use.nivcsw / n);
	field(f, "wakes0_per_iter", "%.4f", r->st0.wakes / n);
	field(f, "checks0_per_iter", "%.2f", r->st0.checks / n);
	field(f, "yields0_per_iter", "%.2f", r->st0.yields / n);
	field(f, "futex_waits0_per_iter", "%.4f", r->st0.blocks / n);
	field(f, "sleeps0_per_iter", "%.4f", r->st0.sleeps / n);
	field(f, "wakes1_per_iter", "%.4f", r->r1.st.wakes / n);
	field(f, "checks1_per_iter", "%.2f", r->r1.st.checks / n);
	field(f, "yields1_per_iter", "%.2f", r->r1.st.yields / n);
	field(f, "futex_waits1_per_iter", "%.4f", r->r1.st.blocks / n);
	field(f, "timeouts1_per_iter", "%.4f", r->r1.st.timeouts / n);
	field(f, "sleeps1_per_iter", "%.4f", r->r1.st.sleeps / n);
	field(f, "bad_messages", "%llu", (unsigned long long)r->r1.bad);
}

static void print_table(FILE *o, const struct config *c,
			const struct result *r, const char *knob)
{
	double n = c->iters;

	fprintf(o, "pingpong: strategy %s", wait_strategy_name(c->wp.strategy));
	if (c->wp.strategy == WAIT_ADAPTIVE)
		fprintf(o, " (tries-poll %lu, tries-yield %lu, timeout %lu us)",
			c->wp.tries_poll, c->wp.tries_yield, c->wp.timeout_us);
	else if (c->wp.strategy == WAIT_SLEEP)
		fprintf(o, " (cap %lu us)", c->wp.sleep_cap_us);
	if (c->place == PLACE_ONE)
		fprintf(o, ", placement one (CPU %d)", c->cpu[0]);
	else
		fprintf(o, ", placement two (CPUs %d, %d)", c->cpu[0],
			c->cpu[1]);
	fprintf(o, ", size %ld B, delay %ld us\n", c->size, c->delay_us);
	fprintf(o, "  rank 0 waits for the reply: %s%s\n",
		wait_strategy_name(c->wp0.strategy),
		c->wp0.strategy == WAIT_POLL ? "" : " (same parameters as rank 1)");
	fprintf(o, "  kernel %s, sched_compat_yield %s, %ld iterations after %ld warmup\n",
		kernel_release(), knob, c->iters, c->warmup);
	fprintf(o, "  latency us:     mean %.3f  stddev %.3f  median %.3f  p99 %.3f  min %.3f  max %.3f\n",
		r->mean / 1e3, r->sd / 1e3, r->median / 1e3, r->p99 / 1e3,
		r->min / 1e3, r->max / 1e3);
	fprintf(o, "  per ping-pong:  wall %.3f us, CPU rank 0 %.3f us (incl. delay), rank 1 %.3f us\n",
		r->wall_ns / 1e3 / n, r->r0.cpu_ns / 1e3 / n,
		r->r1.use.cpu_ns / 1e3 / n);
	fprintf(o, "                  context switches rank 0 %.4f vol %.4f invol, rank 1 %.4f vol %.4f invol\n",
		r->r0.nvcsw / n, r->r0.nivcsw / n, r->r1.use.nvcsw / n,
		r->r1.use.nivcsw / n);
	fprintf(o, "                  rank 1 checks %.2f, yields %.2f, futex waits %.4f (timed out %.4f), sleeps %.4f (%.2f us asked)\n",
		r->r1.st.checks / n, r->r1.st.yields / n, r->r1.st.blocks / n,
		r->r1.st.timeouts / n, r->r1.st.sleeps / n,
		r->r1.st.sleep_us / n);
	fprintf(o, "                  rank 0 checks %.2f, yields %.2f, futex waits %.4f, sleeps %.4f\n",
		r->st0.checks / n, r->st0.yields / n, r->st0.blocks / n,
		r->st0.sleeps / n);
	fprintf(o, "                  FUTEX_WAKEs by rank 0 %.4f, by rank 1 %.4f\n",
		r->st0.wakes / n, r->r1.st.wakes / n);
	if (r->r1.bad)
		fprintf(o, "  WARNING: rank 1 saw %llu corrupt messages\n",
			(unsigned long long)r->r1.bad);
}

static void print_report(FILE *o, const struct config *c,
			 const struct result *r)
{
	struct field f[NR_FIELDS];
	const char *knob = knob_value();
	int i;

	if (c->fmt == FMT_TABLE) {
		print_table(o, c, r, knob);
		return;
	}
	fill_fields(f, c, r, knob);
	if (c->fmt == FMT_CSV) {
		for (i = 0; i < nf; i++)
			fprintf(o, "%s%c", f[i].key, i == nf - 1 ? '\n' : ',');
		for (i = 0; i < nf; i++)
			fprintf(o, "%s%c", f[i].val, i == nf - 1 ? '\n' : ',');
	} else {
		for (i = 0; i < nf; i++)
			fprintf(o, "%s=%s%c", f[i].key, f[i].val,
				i == nf - 1 ? '\n' : ' ');
	}
}

enum {
	OPT_TRIES_POLL = 256,
	OPT_TRIES_YIELD,
	OPT_TIMEOUT_US,
	OPT_SLEEP_CAP_US,
	OPT_RANK0_WAIT,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",	  required_argument, NULL, 's' },
		{ "iterations",	  required_argument, NULL, 'n' },
		{ "warmup",	  required_argument, NULL, 'w' },
		{ "delay",	  required_argument, NULL, 'D' },
		{ "strategy",	  required_argument, NULL, 'S' },
		{ "tries-poll",	  required_argument, NULL, OPT_TRIES_POLL },
		{ "tries-yield",  required_argument, NULL, OPT_TRIES_YIELD },
		{ "timeout-us",	  required_argument, NULL, OPT_TIMEOUT_US },
		{ "sleep-cap-us", required_argument, NULL, OPT_SLEEP_CAP_US },
		{ "rank0-wait",	  required_argument, NULL, OPT_RANK0_WAIT },
		{ "placement",	  required_argument, NULL, 'p' },
		{ "cpu",	  required_argument, NULL, 'c' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "format",	  required_argument, NULL, 'f' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct config cfg = {
		.size = 1, .iters = 1000, .warmup = 100, .delay_us = 50,
		.place = PLACE_ONE, .fmt = FMT_TABLE,
	};
	struct result res = { 0 };
	bool rank0_same = false;
	enum wait_strategy rank0_strategy = WAIT_POLL;
	struct sigaction sa;
	FILE *samples_f = NULL;
	uint64_t *samples;
	int opt, ret;
	long i;

	cli_set_prog(argv[0], "pingpong");

	wait_params_init(&cfg.wp);
	while ((opt = getopt_long(argc, argv, "s:n:w:D:S:p:c:o:f:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 's':
			cfg.size = parse_long("-s", optarg, 1, MAX_SIZE);
			break;
		case 'n':
			cfg.iters = parse_long("-n", optarg, 1, MAX_ITER);
			break;
		case 'w':
			cfg.warmup = parse_long("-w", optarg, 0, MAX_ITER);
			break;
		case 'D':
			cfg.delay_us = parse_long("-D", optarg, 0,
						  MAX_DELAY_US);
			break;
		case 'S':
			if (wait_strategy_parse(optarg, &cfg.wp.strategy))
				usage_error("-S: unknown strategy '%s' (poll, yield, block, adaptive or sleep)",
					    optarg);
			break;
		case OPT_TRIES_POLL:
			cfg.wp.tries_poll = parse_long("--tries-poll", optarg,
						       0, MAX_TRIES);
			break;
		case OPT_TRIES_YIELD:
			cfg.wp.tries_yield = parse_long("--tries-yield",
							optarg, 0, MAX_TRIES);
			break;
		case OPT_TIMEOUT_US:
			cfg.wp.timeout_us = parse_long("--timeout-us", optarg,
						       1, MAX_TIMEOUT_US);
			break;
		case OPT_SLEEP_CAP_US:
			cfg.wp.sleep_cap_us = parse_long("--sleep-cap-us",
							 optarg, 1,
							 MAX_DELAY_US);
			break;
		case OPT_RANK0_WAIT:
			rank0_same = !strcmp(optarg, "same");
			if (!rank0_same &&
			    wait_strategy_parse(optarg, &rank0_strategy))
				usage_error("--rank0-wait: unknown strategy '%s' (poll, yield, block, adaptive, sleep or same)",
					    optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "one"))
				cfg.place = PLACE_ONE;
			else if (!strcmp(optarg, "two"))
				cfg.place = PLACE_TWO;
			else
				usage_error("-p: unknown placement '%s' (one or two)",
					    optarg);
			break;
		case 'c':
			parse_cpus(optarg, &cfg);
			break;
		case 'o':
			cfg.samples_path = optarg;
			break;
		case 'f':
			cfg.fmt = parse_format(optarg);
			break;
		default:
			cli_other_option(opt, usage);
		}
	}
	cli_no_operands(argc, argv);
	/* rank 0 waits with rank 1's parameters, its own strategy */
	cfg.wp0 = cfg.wp;
	if (!rank0_same)
		cfg.wp0.strategy = rank0_strategy;
	ret = setup_cpus(&cfg);
	if (ret)
		return ret;

	samples = calloc(cfg.iters, sizeof(*samples));
	if (!samples) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return EXIT_RUN_FAILED;
	}
	if (cfg.samples_path) {
		samples_f = fopen(cfg.samples_path, "w");
		if (!samples_f) {
			fprintf(stderr, "%s: cannot open %s: %s\n", cli_prog,
				cfg.samples_path, strerror(errno));
			free(samples);
			return EXIT_RUN_FAILED;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;	/* no SA_RESTART: interrupt waits */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);

	ret = run(&cfg, samples, &res);
	if (!ret && samples_f) {
		for (i = 0; i < cfg.iters; i++)
			fprintf(samples_f, "%llu\n",
				(unsigned long long)samples[i]);
	}
	if (samples_f && fclose(samples_f)) {
		fprintf(stderr, "%s: writing %s: %s\n", cli_prog,
			cfg.samples_path, strerror(errno));
		if (!ret)
			ret = EXIT_RUN_FAILED;
	}
	if (!ret) {
		summarise(samples, cfg.iters, &res);
		print_report(stdout, &cfg, &res);
		if (fflush(stdout)) {
			fprintf(stderr, "%s: writing the report: %s\n",
				cli_prog, strerror(errno));
			ret = EXIT_RUN_FAILED;
		}
	}
	free(samples);
	return ret;
}
