// SPDX-License-Identifier: GPL-2.0
/*
 * yield-cost: what does one sched_yield() (or getppid()) cost?
 *
 * TASKS processes (or, with -t, TASKS threads of one process) pinned to one
 * CPU loop "counter++; syscall" for a fixed window.  As they all share that CPU, window / (sum of the counters) is
 * the CPU time of one loop iteration, including the context switch a
 * sched_yield() causes when other tasks are runnable.  Comparing 2 with
 * 1000 runnable tasks shows how the cost of a yield scales with the length
 * of the runqueue; 1 task shows the bare system call.  Processes switch
 * address spaces on every yield; threads of one process do not, so with -t
 * the ratio of 1000 to 2 tasks is the scheduler's own cost.
 *
 * Timeline of one run:
 *   parent: pin itself away from the measured CPU, fork the workers;
 *   worker: die with the parent, pin itself to the measured CPU, write one
 *           byte to the readiness pipe, wait on a futex for "go", then loop
 *           "counter++; syscall" until killed;
 *   parent: wait for every worker's byte, set "go", warm up, snapshot the
 *           sum of the counters, sleep the window, snapshot again, SIGKILL
 *           and reap the workers.
 * With -t the parent forks a single worker process instead; it dies with
 * the parent, starts TASKS - 1 threads and becomes the first worker itself.
 * Every thread pins itself and then does exactly what a worker process
 * does: the loop is the same code, no stop flag.  The threads stop as the
 * processes do: the parent SIGKILLs the worker process, and with it all of
 * its threads, after the second snapshot.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/types.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "share.h"

/* exit codes */
#define EXIT_RUN_FAILED		1

#define MAX_TASKS		4096
#define MAX_REPEAT		1000
#define CACHELINE		64

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define WARMUP_S		0.5	/* at most a quarter of the window */
#define READY_TIMEOUT_MS	60000	/* per readiness byte: TCG is slow */
#define THREAD_STACK		(64 << 10)	/* the loop needs little */

/* knob states besides 0 and 1 */
#define KNOB_ABSENT		-1
#define KNOB_UNREADABLE		-2

enum mode { MODE_YIELD, MODE_GETPPID };

struct config {
	enum mode mode;
	int tasks;
	bool threads;		/* -t: the tasks are threads of one process */
	double duration_s;
	int cpu;
	int parent_cpu;		/* -1: not pinned (a single usable CPU) */
};

struct run_result {
	int knob;
	double window_s;
	__u64 calls;
	double calls_per_s;
	double ns_per_call;
};

struct slot {
	alignas(CACHELINE) __u64 counter;
};

struct shared {
	alignas(CACHELINE) int go;
	/* -t: pthread_create() error and the number of the thread it failed */
	int spawn_err;
	int spawn_nr;
	struct slot slot[];
};


/*
 * What the signal handler needs: the workers of the run in progress and
 * the knob value to restore.  nr_pids only grows after pids[] is filled in;
 * nr_pids is accessed with relaxed atomics.
 */
static pid_t owner;
static int nr_pids;
static pid_t pids[MAX_TASKS];

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/* -t: what the threads of the worker process share, set before they start */
static const struct config *thread_cfg;
static struct shared *thread_sh;
static int thread_ready_fd;

/* ------------------------------------------------------------------ */
/* helpers */

static const char *mode_name(enum mode m)
{
	return m == MODE_YIELD ? "yield" : "getppid";
}

static const char *tasks_name(const struct config *cfg)
{
	return cfg->threads ? "threads" : "processes";
}

static const char *knob_str(int knob)
{
	switch (knob) {
	case 0:
		return "0";
	case 1:
		return "1";
	case KNOB_ABSENT:
		return "absent";
	}
	return "unreadable";
}

static int knob_state(void)
{
	int v;

	if (!scy_knob_present())
		return KNOB_ABSENT;
	v = scy_knob_read();
	return v < 0 ? KNOB_UNREADABLE : v;
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void ts_add(struct timespec *t, double s)
{
	time_t whole = (time_t)s;

	t->tv_sec += whole;
	t->tv_nsec += (long)((s - (double)whole) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static int futex_wait(int *uaddr, int val)
{
	return syscall(SYS_futex, uaddr, FUTEX_WAIT, val, NULL, NULL, 0);
}

static int futex_wake(int *uaddr, int nr)
{
	return syscall(SYS_futex, uaddr, FUTEX_WAKE, nr, NULL, NULL, 0);
}

/* Async-signal-safe: SIGKILL the workers, then reap them. */
static void kill_workers(void)
{
	int i, n = __atomic_load_n(&nr_pids, __ATOMIC_RELAXED), status;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
	__atomic_store_n(&nr_pids, 0, __ATOMIC_RELAXED);
}

static void on_signal(int sig)
{
	int saved = errno;

	/* workers reset their handlers before unblocking signals: paranoia */
	if (getpid() == owner) {
		kill_workers();
		cli_knob_restore();
	}
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* Let a non-root user fork TASKS more processes if the hard limit allows. */
static void raise_nproc(int tasks)
{
	rlim_t want = (rlim_t)tasks + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return;
	if (rl.rlim_cur < rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
		struct rlimit more = { .rlim_cur = want, .rlim_max = want };

		/* needs CAP_SYS_RESOURCE */
		if (!setrlimit(RLIMIT_NPROC, &more))
			return;
	}
	setrlimit(RLIMIT_NPROC, &rl);
}

static void nproc_str(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl)) {
		snprintf(buf, len, "?");
	} else if (rl.rlim_cur == RLIM_INFINITY) {
		snprintf(buf, len, "unlimited");
	} else if (rl.rlim_max == RLIM_INFINITY) {
		snprintf(buf, len, "%llu (hard unlimited)",
			 (unsigned long long)rl.rlim_cur);
	} else {
		snprintf(buf, len, "%llu (hard %llu)",
			 (unsigned long long)rl.rlim_cur,
			 (unsigned long long)rl.rlim_max);
	}
}

/* ------------------------------------------------------------------ */
/* one run */

/*
 * One task, a worker process or one thread of the worker process: pin
 * itself to the measured CPU, write one byte to the readiness pipe, wait
 * for "go", then loop "counter++; syscall" until SIGKILLed.
 */
static noreturn void worker_loop(int idx, const struct config *cfg,
				 struct shared *sh, int ready_fd)
{
	__u64 *counter = &sh->slot[idx].counter;
	__u64 count = 0;
	unsigned char msg = 0;
	cpu_set_t set;

	/* pid 0: the calling thread */
	CPU_ZERO(&set);
	CPU_SET(cfg->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		msg = errno > 0 && errno < 256 ? errno : EINVAL;
	while (write(ready_fd, &msg, 1) < 0 && errno == EINTR)
		;
	if (msg)
		_exit(1);
	/* the other threads of a worker process still need it */
	if (!cfg->threads)
		close(ready_fd);

	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		futex_wait(&sh->go, 0);

	if (cfg->mode == MODE_YIELD) {
		for (;;) {
			__atomic_store_n(counter, ++count, __ATOMIC_RELAXED);
			sched_yield();
		}
	} else {
		for (;;) {
			__atomic_store_n(counter, ++count, __ATOMIC_RELAXED);
			getppid();
		}
	}
}

static void *thread_main(void *arg)
{
	worker_loop((int)(intptr_t)arg, thread_cfg, thread_sh,
		    thread_ready_fd);
}

/* A forked worker process: tie its fate to the parent's, then work. */
static noreturn void worker(int idx, const struct config *cfg,
			    struct shared *sh, int ready_fd, pid_t parent,
			    const sigset_t *mask)
{
	size_t stack = THREAD_STACK;
	pthread_attr_t attr;
	pthread_t thread;
	long min;
	size_t i;
	int e;

	/* die with the parent, whatever kills it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	for (i = 0; i < ARRAY_SIZE(handled_signals); i++)
		signal(handled_signals[i], SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);

	if (!cfg->threads)
		worker_loop(idx, cfg, sh, ready_fd);

	/* -t: tasks 1..TASKS-1 are new threads, task 0 this one */
	thread_cfg = cfg;
	thread_sh = sh;
	thread_ready_fd = ready_fd;
	min = sysconf(_SC_THREAD_STACK_MIN);
	if (min > 0 && stack < (size_t)min)
		stack = min;
	e = pthread_attr_init(&attr);
	if (!e) {
		pthread_attr_setstacksize(&attr, stack);
		for (i = 1; i < (size_t)cfg->tasks; i++) {
			e = pthread_create(&thread, &attr, thread_main,
					   (void *)(intptr_t)i);
			if (e)
				break;
		}
	}
	if (e) {
		__atomic_store_n(&sh->spawn_nr, (int)i + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->spawn_err, e, __ATOMIC_RELEASE);
		_exit(1);
	}
	worker_loop(0, cfg, sh, ready_fd);
}

/* Wait for one byte from each of @nr workers.  0 or -1 with @err set. */
static int wait_ready(int fd, int nr, int cpu, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	unsigned char buf[256];
	int got = 0, r;
	ssize_t n, i;

	while (got < nr) {
		r = poll(&pfd, 1, READY_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen,
				 "only %d of %d workers became ready within %d s",
				 got, nr, READY_TIMEOUT_MS / 1000);
			return -1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen,
				 "only %d of %d workers became ready (the others died)",
				 got, nr);
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (buf[i]) {
				snprintf(err, errlen,
					 "a worker cannot pin itself to CPU %d: %s",
					 cpu, strerror(buf[i]));
				return -1;
			}
		}
		got += n;
	}
	return 0;
}

static __u64 sum_counters(const struct shared *sh, int nr)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < nr; i++)
		sum += __atomic_load_n(&sh->slot[i].counter, __ATOMIC_RELAXED);
	return sum;
}

static int run_once(const struct config *cfg, struct run_result *res,
		    char *err, size_t errlen)
{
	size_t size = sizeof(struct shared) +
		      (size_t)cfg->tasks * sizeof(struct slot);
	struct timespec t0, t1, until, warmup;
	int forks = cfg->threads ? 1 : cfg->tasks;
	struct shared *sh;
	sigset_t block, old;
	__u64 c0, c1;
	int pfd[2], i, e, ret = -1;
	pid_t self = getpid();
	double w;
	size_t s;

	memset(res, 0, sizeof(*res));
	res->knob = knob_state();
	owner = self;

	sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		munmap(sh, size);
		return -1;
	}

	/* no handler runs between fork() and the child's SIG_DFL */
	sigemptyset(&block);
	for (s = 0; s < ARRAY_SIZE(handled_signals); s++)
		sigaddset(&block, handled_signals[s]);

	fflush(NULL);
	for (i = 0; i < forks; i++) {
		pid_t pid;

		sigprocmask(SIG_BLOCK, &block, &old);
		pid = fork();
		if (!pid) {
			close(pfd[0]);
			worker(i, cfg, sh, pfd[1], self, &old);
		}
		e = errno;
		if (pid > 0) {
			pids[i] = pid;
			__atomic_store_n(&nr_pids, i + 1, __ATOMIC_RELAXED);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pid < 0) {
			char lim[64];

			nproc_str(lim, sizeof(lim));
			if (cfg->threads)
				snprintf(err, errlen,
					 "fork of the worker process failed: %s (RLIMIT_NPROC %s)",
					 strerror(e), lim);
			else
				snprintf(err, errlen,
					 "fork of worker %d of %d failed: %s (RLIMIT_NPROC %s; see also kernel.threads-max, kernel.pid_max, the cgroup's pids.max and free memory)",
					 i + 1, cfg->tasks, strerror(e), lim);
			goto out;
		}
	}
	close(pfd[1]);
	pfd[1] = -1;

	if (wait_ready(pfd[0], cfg->tasks, cfg->cpu, err, errlen)) {
		e = __atomic_load_n(&sh->spawn_err, __ATOMIC_ACQUIRE);
		if (e) {
			char lim[64];

			nproc_str(lim, sizeof(lim));
			snprintf(err, errlen,
				 "creating thread %d of %d failed: %s (RLIMIT_NPROC %s; see also kernel.threads-max, kernel.pid_max, the cgroup's pids.max and free memory)",
				 __atomic_load_n(&sh->spawn_nr, __ATOMIC_RELAXED),
				 cfg->tasks, strerror(e), lim);
		}
		goto out;
	}

	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	futex_wake(&sh->go, INT_MAX);

	/* not measured: page faults, cold caches, TCG code translation */
	w = cfg->duration_s / 4 < WARMUP_S ? cfg->duration_s / 4 : WARMUP_S;
	warmup.tv_sec = 0;
	warmup.tv_nsec = (long)(w * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &warmup, &warmup) == EINTR)
		;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = sum_counters(sh, cfg->tasks);
	until = t0;
	ts_add(&until, cfg->duration_s);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) ==
	       EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c1 = sum_counters(sh, cfg->tasks);

	res->window_s = ts_diff(&t0, &t1);
	res->calls = c1 - c0;
	if (!res->calls || !(res->window_s > 0)) {
		snprintf(err, errlen,
			 "no calls counted in a %.3f s window: the workers did not run",
			 res->window_s);
		goto out;
	}
	res->calls_per_s = (double)res->calls / res->window_s;
	res->ns_per_call = res->window_s * 1e9 / (double)res->calls;
	ret = 0;
out:
	kill_workers();
	close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	munmap(sh, size);
	return ret;
}

/* ------------------------------------------------------------------ */
/* command line */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-m yield|getppid] [-n TASKS] [-t] [-d SECONDS] [-c CPU]\n"
		"       %*s [-r REPEAT] [-f table|csv|kv] [-k 0|1|keep]\n"
		"\n"
		"Pin TASKS processes (or threads) to one CPU, each looping\n"
		"\"counter++; syscall\", and report the CPU time of one loop iteration:\n"
		"window / total calls.  With several tasks a sched_yield() includes the\n"
		"switch it causes; between threads that switch keeps the address space.\n"
		"\n"
		"  -m, --mode M            sched_yield() (yield, default) or getppid()\n"
		"  -n, --tasks TASKS       workers (default 1, 1..%d)\n"
		"  -t, --threads           the workers are threads of one process\n"
		"                          (default: one process each)\n"
		"  -d, --duration SECONDS  measurement window of one run (default 2)\n"
		"  -c, --cpu CPU           CPU the workers run on (default: the highest\n"
		"                          CPU we may use); the tool itself runs on\n"
		"                          another one when there is one\n"
		"  -r, --repeat N          N runs, then median, min and max of the ns\n"
		"                          per call (default 1, table and kv only)\n"
		"  -f, --format F          table (default), csv (header and one row per\n"
		"                          run) or kv (one key=value line per run)\n"
		"  -k, --knob K            set %s to 0 or 1 for\n"
		"                          the runs and restore it at exit; keep\n"
		"                          (default) leaves it alone\n"
		"  -h, --help              this text\n"
		"\n"
		"Exit status: 0 ok, 1 a run failed, 2 usage error.\n",
		cli_prog, (int)strlen(cli_prog), "", MAX_TASKS, SCY_KNOB_SYSFS);
}

static void print_run(enum format fmt, const struct config *cfg, int run,
		      const struct run_result *r)
{
	switch (fmt) {
	case FMT_TABLE:
		printf("%-5d %-10s %10.3f %14llu %14.0f %10.1f\n", run,
		       knob_str(r->knob), r->window_s,
		       (unsigned long long)r->calls, r->calls_per_s,
		       r->ns_per_call);
		break;
	case FMT_CSV:
		printf("%s,%s,%s,%d,%d,%d,%d,%.6f,%llu,%.1f,%.3f\n",
		       scy_kernel_release(), knob_str(r->knob),
		       mode_name(cfg->mode), cfg->threads, cfg->tasks,
		       cfg->cpu, run,
		       r->window_s, (unsigned long long)r->calls,
		       r->calls_per_s, r->ns_per_call);
		break;
	case FMT_KV:
		/* one line, written piecewise */
		printf("run kernel=%s knob=%s mode=%s threads=%d tasks=%d cpu=%d run=%d",
		       scy_kernel_release(), knob_str(r->knob),
		       mode_name(cfg->mode), cfg->threads, cfg->tasks,
		       cfg->cpu, run);
		printf(" seconds=%.6f calls=%llu calls_per_s=%.1f ns_per_call=%.3f\n",
		       r->window_s, (unsigned long long)r->calls,
		       r->calls_per_s, r->ns_per_call);
		break;
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode",	required_argument, NULL, 'm' },
		{ "tasks",	required_argument, NULL, 'n' },
		{ "threads",	no_argument,	   NULL, 't' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "cpu",	required_argument, NULL, 'c' },
		{ "repeat",	required_argument, NULL, 'r' },
		{ "format",	required_argument, NULL, 'f' },
		{ "knob",	required_argument, NULL, 'k' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct config cfg = {
		.mode = MODE_YIELD, .tasks = 1, .duration_s = 2.0, .cpu = -1,
		.parent_cpu = -1,
	};
	int opt, repeat = 1, want_knob = -1, i, ret = 0;
	enum format fmt = FMT_TABLE;
	struct run_result res;
	cpu_set_t mask;
	char err[512];
	double *ns;

	cli_set_prog(argv[0], "yield-cost");

	while ((opt = getopt_long(argc, argv, "m:n:td:c:r:f:k:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "yield"))
				cfg.mode = MODE_YIELD;
			else if (!strcmp(optarg, "getppid"))
				cfg.mode = MODE_GETPPID;
			else
				usage_error("-m: unknown mode '%s' (yield or getppid)",
					    optarg);
			break;
		case 'n':
			cfg.tasks = parse_long("-n", optarg, 1, MAX_TASKS);
			break;
		case 't':
			cfg.threads = true;
			break;
		case 'd':
			cfg.duration_s = parse_duration(optarg);
			break;
		case 'c':
			cfg.cpu = parse_long("-c", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'r':
			repeat = parse_long("-r", optarg, 1, MAX_REPEAT);
			break;
		case 'f':
			fmt = parse_format(optarg);
			break;
		case 'k':
			want_knob = parse_knob(optarg);
			break;
		default:
			cli_other_option(opt, usage);
		}
	}
	cli_no_operands(argc, argv);

	/* CPUs: the workers on cfg.cpu, the parent elsewhere if possible */
	if (sched_getaffinity(0, sizeof(mask), &mask)) {
		fprintf(stderr, "%s: sched_getaffinity: %s\n", cli_prog,
			strerror(errno));
		return EXIT_RUN_FAILED;
	}
	if (cfg.cpu >= 0 && !CPU_ISSET(cfg.cpu, &mask))
		usage_error("-c: CPU %d is offline or not in our affinity mask",
			    cfg.cpu);
	if (cfg.cpu < 0)
		cfg.cpu = scy_default_cpu();
	if (cfg.cpu < 0) {
		fprintf(stderr, "%s: cannot find a CPU to run on\n", cli_prog);
		return EXIT_RUN_FAILED;
	}
	cfg.parent_cpu = scy_pin_away(cfg.cpu);
	scy_on_signals(on_signal);

	/* the knob, after the handlers that restore it */
	if (cli_knob_override(want_knob) == CLI_KNOB_ERROR)
		return EXIT_RUN_FAILED;

	raise_nproc(cfg.tasks);
	ns = calloc(repeat, sizeof(*ns));
	if (!ns) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return EXIT_RUN_FAILED;
	}

	switch (fmt) {
	case FMT_TABLE:
		if (cfg.parent_cpu < 0)
			snprintf(err, sizeof(err), "the same CPU");
		else
			snprintf(err, sizeof(err), "CPU %d", cfg.parent_cpu);
		printf("%s: %s, %d %s%s on CPU %d (parent on %s), kernel %s\n",
		       cli_prog, mode_name(cfg.mode), cfg.tasks,
		       cfg.threads ? "thread" : "process",
		       cfg.tasks == 1 ? "" : cfg.threads ? "s of one process" :
		       "es", cfg.cpu, err, scy_kernel_release());
		printf("%d run%s, window %g s each\n", repeat,
		       repeat == 1 ? "" : "s", cfg.duration_s);
		printf("%-5s %-10s %10s %14s %14s %10s\n", "run", "knob",
		       "window_s", "calls", "calls_per_s", "ns_per_call");
		break;
	case FMT_CSV:
		printf("kernel,knob,mode,threads,tasks,cpu,run,seconds,calls,calls_per_s,ns_per_call\n");
		break;
	case FMT_KV:
		break;
	}
	fflush(stdout);

	for (i = 0; i < repeat; i++) {
		if (run_once(&cfg, &res, err, sizeof(err))) {
			fprintf(stderr, "%s: %s, %d %s, run %d: %s\n", cli_prog,
				mode_name(cfg.mode), cfg.tasks,
				tasks_name(&cfg), i + 1, err);
			ret = EXIT_RUN_FAILED;
			break;
		}
		ns[i] = res.ns_per_call;
		print_run(fmt, &cfg, i + 1, &res);
	}

	if (!ret && repeat > 1) {
		double med, min, max;

		stats(ns, repeat, &med, &min, &max);
		if (fmt == FMT_TABLE)
			printf("ns_per_call over %d runs: median %.1f, min %.1f, max %.1f\n",
			       repeat, med, min, max);
		if (fmt == FMT_KV) {
			printf("summary kernel=%s knob=%s mode=%s threads=%d tasks=%d cpu=%d runs=%d",
			       scy_kernel_release(), knob_str(knob_state()),
			       mode_name(cfg.mode), cfg.threads, cfg.tasks,
			       cfg.cpu, repeat);
			printf(" ns_per_call_median=%.3f ns_per_call_min=%.3f ns_per_call_max=%.3f\n",
			       med, min, max);
		}
		/* csv: rows only, the summary follows from them */
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: writing the report: %s\n", cli_prog,
			strerror(errno));
		ret = EXIT_RUN_FAILED;
	}
	free(ns);
	cli_knob_restore();
	return ret;
}
