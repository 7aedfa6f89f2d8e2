// SPDX-License-Identifier: GPL-2.0
/*
 * yield-stats-test: does the yield_stats module (module/) count exactly the
 * sched_yield() calls a task makes?
 *
 * Each case sets /sys/kernel/yield_stats/filter_pid to the task(s) it
 * measures, resets the counters, makes exactly N sched_yield() calls per
 * measured task with every task pinned to one CPU, and then asserts:
 *
 *   yields == the number of calls, effective + ineffective == yields,
 *   lost == 0, the per-CPU counts (debugfs) put them all on that CPU,
 *   the histogram (debugfs) holds one entry per effective yield,
 *   compat == 0 at knob 0; at knob 1 (kernels with the sched_yield_fair_tp
 *   tracepoint) compat == yields against a CPU hog and against another
 *   yielder (both rivals are always runnable, so the compat yield handles
 *   every call, whether or not it has to move the yielder);
 *   >= 99% effective at knob 1 against one CPU hog. With -U (a guest whose
 *   host can stop it: plain QEMU, KVM) that share is reported with the
 *   stalls of the guest a probe on another CPU saw, and a SKIP: on EEVDF a
 *   stall charged to the hog leaves the yielder more lag than a compat
 *   yield gives up, and it is picked again at once until that is spent
 *   (stall.h); it is judged where guest time cannot stall (QEMU -icount,
 *   bare metal).
 *
 * Cases:
 *   alone     the test process alone on its CPU
 *   hog       against a pinned child that spins without system calls
 *   yielder   against a pinned child that calls sched_yield() in a loop:
 *             the filter must keep its yields out
 *   tgid      two threads of the test process yield, filter = the tgid:
 *             both are counted
 *   tid       the same two threads, filter = the second thread's tid: only
 *             it is counted
 *
 * Last, per cgroup (debugfs "cgroups"), in two cgroup v2 groups "a" and "b" made
 * for the test: a child in "a" makes N yields beside a hog of "a", a child
 * in "b" 2N yields; each group's line must count exactly its yields, all
 * resolved (effective + ineffective), none lost. With the knob at 0 and
 * the groups' own switch (cpu.compat_yield) at 1 in "a": compat == N in
 * "a" and 0 in "b". With no cgroup2 file system: SKIP.
 *
 * Then, with the counters of the last case still in place, a child that
 * dropped to uid/gid 65534 (no capabilities) must be refused writing reset
 * and filter_pid (EACCES or EPERM) and the counters must not change; and a
 * root write of reset must zero them. filter_pid is put back as it was.
 *
 * Output is TAP. Exit status: 0 all passed, 1 a check failed, 2 usage,
 * 4 skipped (not root, or the module is not loaded).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "place.h"
#include "stall.h"

#define YS_DIR		"/sys/kernel/yield_stats"
#define YS_DEBUGFS	"/sys/kernel/debug/yield_stats"
#define KSFT_SKIP	4
#define NOBODY		65534
#define MAX_CALLS	10000000L

enum rival { RIVAL_NONE, RIVAL_HOG, RIVAL_YIELDER };

struct counts {
	unsigned long long yields, effective, ineffective, compat, lost;
	bool have_compat;
	unsigned long long hist;		/* entries in the histogram */
	unsigned long long cpu_yields;		/* on the pinned CPU */
	unsigned long long other_yields;	/* on all other CPUs */
	bool have_debugfs;
};

static int nr_tests, nr_failed;
static long calls = 1000;
static int cpu = -1;
static int knob = -1;
/* -U: guest time can stall here; the effective share is reported, not judged */
static bool untimed;
static int prior_filter = -1;

static void __attribute__((__format__(__printf__, 2, 3)))
tap(bool pass, const char *fmt, ...)
{
	va_list ap;

	nr_tests++;
	if (!pass)
		nr_failed++;
	printf("%sok %d - ", pass ? "" : "not ", nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A test that cannot run here: "ok N - NAME: WHAT # SKIP WHY" */
static void tap_skip(const char *what, const char *name, const char *why)
{
	printf("ok %d - %s: %s # SKIP %s\n", ++nr_tests, name, what, why);
	fflush(stdout);
}

/* The plan, first; 0 tests with the reason when none can run */
static void tap_plan(int n, const char *skip_why)
{
	if (skip_why)
		printf("1..0 # SKIP %s\n", skip_why);
	else
		printf("1..%d\n", n);
	fflush(stdout);
}

static void __attribute__((__format__(__printf__, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void __attribute__((__noreturn__, __format__(__printf__, 1, 2)))
bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(EXIT_FAILURE);
}

/* Read one unsigned decimal from @path; false (errno set) if impossible. */
static bool read_ull(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu", v) == 1;
	if (!ok && !errno)
		errno = EINVAL;
	fclose(f);
	return ok;
}

static unsigned long long ys_get(const char *name)
{
	unsigned long long v;
	char path[128];

	snprintf(path, sizeof(path), YS_DIR "/%s", name);
	if (!read_ull(path, &v))
		bail("cannot read %s: %s", path, strerror(errno));
	return v;
}

/* Write @val to yield_stats/@name; 0 or the errno of the failure. */
static int ys_write(const char *name, const char *val)
{
	char path[128];
	ssize_t len = strlen(val), w;
	int fd, e = 0;

	snprintf(path, sizeof(path), YS_DIR "/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	w = write(fd, val, len);
	if (w != len)
		e = w < 0 ? errno : EIO;
	if (close(fd) && !e)
		e = errno;
	return e;
}

static void ys_set(const char *name, long val)
{
	char buf[32];
	int e;

	snprintf(buf, sizeof(buf), "%ld\n", val);
	e = ys_write(name, buf);
	if (e)
		bail("cannot write %ld to " YS_DIR "/%s: %s", val, name,
		     strerror(e));
}

/* At exit: filter_pid as it was (no bail() here: exit is under way). */
static void restore_filter(void)
{
	char buf[32];

	if (prior_filter < 0)
		return;
	snprintf(buf, sizeof(buf), "%d\n", prior_filter);
	if (ys_write("filter_pid", buf))
		fprintf(stderr, "%s: cannot restore filter_pid to %d\n",
			cli_prog, prior_filter);
}

/* The debugfs views: histogram entries and per-CPU yields. */
static void read_debugfs(struct counts *c)
{
	unsigned long long low, n, y;
	char line[512], *p;
	int cpu_nr;
	FILE *f;

	c->have_debugfs = false;
	f = fopen(YS_DEBUGFS "/histogram", "r");
	if (!f)
		return;
	c->hist = 0;
	while (fscanf(f, "%llu %llu", &low, &n) == 2)
		c->hist += n;
	fclose(f);

	f = fopen(YS_DEBUGFS "/percpu", "r");
	if (!f)
		return;
	c->cpu_yields = c->other_yields = 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " yields=");
		if (sscanf(line, "cpu%d", &cpu_nr) != 1 || !p ||
		    sscanf(p, " yields=%llu", &y) != 1) {
			fclose(f);
			bail("unexpected line in " YS_DEBUGFS "/percpu: %s",
			     line);
		}
		if (cpu_nr == cpu)
			c->cpu_yields += y;
		else
			c->other_yields += y;
	}
	fclose(f);
	c->have_debugfs = true;
}

static void snapshot(struct counts *c)
{
	c->yields = ys_get("yields");
	c->effective = ys_get("effective");
	c->ineffective = ys_get("ineffective");
	c->lost = ys_get("lost");
	c->have_compat = ys_get("compat_available") == 1;
	c->compat = c->have_compat ? ys_get("compat") : 0;
	read_debugfs(c);
}

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		bail("cannot pin to CPU %d: %s", cpu, strerror(errno));
}

static void yield_n(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (sched_yield())
			bail("sched_yield: %s", strerror(errno));
}

/*
 * A child pinned to the test CPU that spins (hog) or yields (yielder)
 * until killed. Returns once it runs there.
 */
static pid_t start_rival(enum rival r)
{
	volatile unsigned long spin = 0;
	int fds[2];
	pid_t pid;
	char b;

	if (pipe(fds))
		bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin();
		close(fds[0]);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		close(fds[1]);
		for (;;) {
			if (r == RIVAL_YIELDER)
				sched_yield();
			else
				spin++;
		}
	}
	close(fds[1]);
	if (read(fds[0], &b, 1) != 1)
		bail("the rival (pid %d) did not start", (int)pid);
	close(fds[0]);
	return pid;
}

static void stop_rival(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The second thread of the tgid and tid cases. */
struct thread_arg {
	pthread_barrier_t ready, go;
	pid_t tid;
};

static void *thread_fn(void *p)
{
	struct thread_arg *a = p;

	a->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&a->ready);
	pthread_barrier_wait(&a->go);
	yield_n(calls);
	return NULL;
}

/*
 * With the compat counter, the knob's own checks of a case with rival @r:
 * the compat count (knob 0: none; knob 1: every yield, when a rival is
 * always runnable) and, beside a hog at knob 1, the effective yields.
 */
static bool checks_compat(enum rival r)
{
	return knob == 0 || (knob == 1 && r != RIVAL_NONE);
}

static bool checks_effective(enum rival r)
{
	return knob == 1 && r == RIVAL_HOG;
}

/*
 * Check @c after a case that made @expected counted yields, during which
 * @stall (NULL: not probed) saw the guest's stalls.
 */
static void check_counts(const char *name, const struct counts *c,
			 unsigned long long expected, enum rival r,
			 const struct stall_probe *stall)
{
	diag("%s: yields=%llu effective=%llu ineffective=%llu compat=%llu lost=%llu histogram=%llu cpu%d=%llu other CPUs=%llu",
	     name, c->yields, c->effective, c->ineffective, c->compat,
	     c->lost, c->hist, cpu, c->cpu_yields, c->other_yields);
	tap(c->yields == expected, "%s: yields %llu == %llu calls", name,
	    c->yields, expected);
	tap(c->effective + c->ineffective == expected,
	    "%s: effective %llu + ineffective %llu == %llu calls", name,
	    c->effective, c->ineffective, expected);
	tap(c->lost == 0, "%s: no yield lost (%llu)", name, c->lost);
	if (c->have_debugfs) {
		tap(c->cpu_yields == expected && c->other_yields == 0,
		    "%s: per-CPU counts: %llu on CPU %d, %llu elsewhere", name,
		    c->cpu_yields, cpu, c->other_yields);
		tap(c->hist == c->effective,
		    "%s: histogram holds %llu entries, one per effective yield",
		    name, c->hist);
	} else {
		tap_skip("per-CPU counts", name, YS_DEBUGFS " not readable");
		tap_skip("histogram", name, YS_DEBUGFS " not readable");
	}
	if (!c->have_compat)
		return;
	if (checks_compat(r) && knob == 0)
		tap(c->compat == 0, "%s: knob 0: compat %llu == 0", name,
		    c->compat);
	else if (checks_compat(r))
		tap(c->compat == expected,
		    "%s: knob 1, rival always runnable: compat %llu == %llu",
		    name, c->compat, expected);
	if (checks_effective(r) && untimed) {
		char why[200];

		snprintf(why, sizeof(why),
			 "-U: guest time can stall here (%llu of %llu effective; %u stalls, %.1f ms, seen from CPU %d)",
			 c->effective, expected, stall ? stall->stalls : 0,
			 stall ? stall->stall_ns / 1e6 : 0.0,
			 stall ? stall->cpu : -1);
		tap_skip("knob 1: >= 99% effective", name, why);
	} else if (checks_effective(r)) {
		tap(100 * c->effective >= 99 * expected,
		    "%s: knob 1: >= 99%% effective (%llu of %llu)", name,
		    c->effective, expected);
	}
}

/*
 * The number of tests check_counts() makes for a case with rival @r: five,
 * and with the compat counter the knob's own ones (@compat).
 */
static int case_tests(enum rival r, bool compat)
{
	return 5 + (compat ? checks_compat(r) + checks_effective(r) : 0);
}

static void run_case(const char *name, enum rival r)
{
	bool probe = checks_effective(r) && untimed;
	struct stall_probe stall;
	struct counts c;
	pid_t rp;

	/* before the hog: a stall charged to it carries into the yields */
	if (probe)
		stall_probe_start(&stall, cpu);
	rp = r == RIVAL_NONE ? 0 : start_rival(r);
	ys_set("filter_pid", getpid());
	ys_set("reset", 1);
	yield_n(calls);
	if (probe)
		stall_probe_stop(&stall);
	snapshot(&c);
	stop_rival(rp);
	check_counts(name, &c, calls, r, probe ? &stall : NULL);
}

/* Two threads yield; filter on the tgid (both) or the second's tid. */
static void run_threads(const char *name, bool by_tid)
{
	struct thread_arg a = { 0 };
	pthread_t t;
	struct counts c;
	int e;

	if (pthread_barrier_init(&a.ready, NULL, 2) ||
	    pthread_barrier_init(&a.go, NULL, 2))
		bail("pthread_barrier_init failed");
	e = pthread_create(&t, NULL, thread_fn, &a);
	if (e)
		bail("pthread_create: %s", strerror(e));
	pthread_barrier_wait(&a.ready);
	ys_set("filter_pid", by_tid ? a.tid : getpid());
	ys_set("reset", 1);
	pthread_barrier_wait(&a.go);
	yield_n(calls);
	pthread_join(t, NULL);
	snapshot(&c);
	pthread_barrier_destroy(&a.ready);
	pthread_barrier_destroy(&a.go);
	check_counts(name, &c, by_tid ? calls : 2 * calls, RIVAL_NONE, NULL);
}

/* The tests run_cgroups() makes */
#define CG_TESTS	5

struct cg_line {
	unsigned long long yields, compat, effective, ineffective, lost;
	bool found, have_compat;
};

/* The line of the group @path (from the cgroup2 root) in debugfs "cgroups" */
static void read_cg_line(const char *path, struct cg_line *l)
{
	char line[4352], p[4096], cs[32];
	FILE *f;

	memset(l, 0, sizeof(*l));
	f = fopen(YS_DEBUGFS "/cgroups", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %31s %llu %llu %llu %*u %*u %4095s",
			   &l->yields, cs, &l->effective, &l->ineffective,
			   &l->lost, p) != 6 || strcmp(p, path))
			continue;
		l->found = true;
		l->have_compat = strcmp(cs, "-") != 0;
		l->compat = strtoull(cs, NULL, 10);
		break;
	}
	fclose(f);
}

/* A child in cgroup leaf @leaf, pinned, that makes @n yields and exits */
static void yield_in(int leaf, long n)
{
	int status, e;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid) {
		e = scy_cgroup_join(leaf);
		if (e) {
			printf("# joining %s: %s\n", scy_cgroup_dir(leaf),
			       strerror(e));
			_exit(1);
		}
		pin();
		yield_n(n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bail("the yielder of %s failed", scy_cgroup_dir(leaf));
}

static void run_cgroups(void)
{
	static const char * const leaves[] = { "a", "b" };
	char err[256], root[256], path[2][512], base[64];
	struct cg_line l[2];
	bool optin = false;
	pid_t hog;
	int i, e;

	snprintf(base, sizeof(base), "ys-test-%d", (int)getpid());
	if (scy_cgroup2_mount(root, sizeof(root)) ||
	    scy_cgroup_setup(base, leaves, 2, err, sizeof(err)) != SCY_OK) {
		if (!root[0])
			snprintf(err, sizeof(err), "no cgroup2 file system");
		for (i = 0; i < CG_TESTS; i++)
			tap_skip("per-cgroup counts", "cgroups", err);
		return;
	}
	for (i = 0; i < 2; i++)
		snprintf(path[i], sizeof(path[i]), "%s",
			 scy_cgroup_dir(i) + strlen(root));
	/* the groups' own switch, where there is one, at knob 0 */
	if (knob == 0)
		optin = !scy_cgroup_write(0, SCY_GROUP_SWITCH, "1");
	/* a hog of "a" beside its yielder */
	hog = fork();
	if (hog < 0)
		bail("fork: %s", strerror(errno));
	if (!hog) {
		volatile unsigned long spin = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (scy_cgroup_join(0))
			_exit(1);
		pin();
		for (;;)
			spin++;
	}
	ys_set("filter_pid", 0);
	ys_set("reset", 1);
	yield_in(0, calls);
	yield_in(1, 2 * calls);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	for (i = 0; i < 2; i++) {
		read_cg_line(path[i], &l[i]);
		diag("cgroup %s: found %d yields=%llu compat=%llu effective=%llu ineffective=%llu lost=%llu",
		     path[i], l[i].found, l[i].yields, l[i].compat,
		     l[i].effective, l[i].ineffective, l[i].lost);
	}
	tap(l[0].found && l[0].yields == (unsigned long long)calls,
	    "cgroups: %s counts %llu == %ld yields", path[0], l[0].yields,
	    calls);
	tap(l[1].found && l[1].yields == 2ULL * calls,
	    "cgroups: %s counts %llu == %ld yields", path[1], l[1].yields,
	    2 * calls);
	for (i = 0; i < 2; i++)
		tap(l[i].found && l[i].effective + l[i].ineffective ==
		    l[i].yields && !l[i].lost,
		    "cgroups: %s: effective %llu + ineffective %llu == yields, lost %llu == 0",
		    path[i], l[i].effective, l[i].ineffective, l[i].lost);
	if (!optin)
		tap_skip("compat per group", "cgroups", knob == 1 ?
			 "the knob is 1: it covers every group" :
			 "no " SCY_GROUP_SWITCH " here");
	else if (!l[0].have_compat)
		tap_skip("compat per group", "cgroups",
			 "no sched_yield_fair_tp: no compat counter");
	else
		tap(l[0].compat == (unsigned long long)calls && !l[1].compat,
		    "cgroups: %s at 1 beside its hog: compat %llu == %ld; %s at 0: compat %llu == 0",
		    path[0], l[0].compat, calls, path[1], l[1].compat);
	e = scy_cgroup_write(0, SCY_GROUP_SWITCH, "0");
	(void)e;
	scy_cgroup_cleanup();
}

/*
 * In a child without privileges, write @name; the errno of the refusal
 * (0 if the write went through).
 */
static int write_as_nobody(const char *name, const char *val)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(255);
		_exit(ys_write(name, val));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		bail("the unprivileged child did not exit normally");
	if (WEXITSTATUS(status) == 255)
		bail("cannot drop to uid/gid %d", NOBODY);
	return WEXITSTATUS(status);
}

static void run_nonroot(void)
{
	struct counts before, after;
	unsigned long long filter = ys_get("filter_pid");
	int e;

	snapshot(&before);
	e = write_as_nobody("reset", "1\n");
	tap(e == EACCES || e == EPERM,
	    "uid %d: writing reset is refused (%s)", NOBODY,
	    e ? strerror(e) : "it succeeded");
	e = write_as_nobody("filter_pid", "1\n");
	tap(e == EACCES || e == EPERM,
	    "uid %d: writing filter_pid is refused (%s)", NOBODY,
	    e ? strerror(e) : "it succeeded");
	snapshot(&after);
	tap(before.yields == after.yields &&
	    before.effective == after.effective &&
	    before.ineffective == after.ineffective &&
	    before.yields > 0,
	    "counters unchanged after the refused writes (yields %llu -> %llu)",
	    before.yields, after.yields);
	tap(ys_get("filter_pid") == filter,
	    "filter_pid unchanged after the refused write (%llu)", filter);

	ys_set("reset", 1);
	snapshot(&after);
	tap(after.yields == 0 && after.effective == 0 &&
	    after.ineffective == 0 && after.lost == 0 && after.compat == 0 &&
	    (!after.have_debugfs || after.hist == 0),
	    "root: reset zeroes yields, effective, ineffective, compat, lost and the histogram");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-n CALLS] [-c CPU] [-k 0|1|keep] [-U]\n"
		"\n"
		"Checks that the yield_stats module counts exactly the\n"
		"sched_yield() calls of the tasks it filters on (see the\n"
		"comment at the top of yield-stats-test.c). Run as root with\n"
		"the module loaded; changes filter_pid and resets the counters.\n"
		"\n"
		"  -n, --calls N    sched_yield() calls per measured task (default 1000)\n"
		"  -c, --cpu N      the CPU every task is pinned to (default: the\n"
		"                   last one allowed)\n"
		"  -k, --knob K     set %s to 0 or 1 for the run;\n"
		"                   keep (default) leaves it alone\n"
		"  -U, --untimed    guest time can stall here: report the\n"
		"                   effective share against a hog, do not judge it\n"
		"  -h, --help       this text\n"
		"\n"
		"Output is TAP. Exit status: 0 passed, 1 failed, 2 usage error,\n"
		"4 skipped (not root or module not loaded).\n",
		cli_prog, SCY_KNOB_SYSFS);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "calls",	required_argument, NULL, 'n' },
		{ "cpu",	required_argument, NULL, 'c' },
		{ "knob",	required_argument, NULL, 'k' },
		{ "untimed",	no_argument,	   NULL, 'U' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, want_knob = -1;
	unsigned long long v;
	cpu_set_t set;
	bool compat;

	cli_set_prog(argv[0], "yield-stats-test");
	while ((opt = getopt_long(argc, argv, "n:c:k:Uh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'U':
			untimed = true;
			break;
		case 'n':
			calls = parse_long("-n", optarg, 1, MAX_CALLS);
			break;
		case 'c':
			cpu = parse_long("-c", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'k':
			want_knob = parse_knob(optarg);
			break;
		default:
			cli_other_option(opt, usage);
		}
	}
	cli_no_operands(argc, argv);

	if (sched_getaffinity(0, sizeof(set), &set))
		bail("sched_getaffinity: %s", strerror(errno));
	if (cpu < 0) {
		for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set);
		     cpu--)
			;
	} else if (!CPU_ISSET(cpu, &set)) {
		usage_error("-c: CPU %d is not available to this process", cpu);
	}

	if (geteuid()) {
		tap_plan(0, "not root");
		return KSFT_SKIP;
	}
	if (!read_ull(YS_DIR "/filter_pid", &v)) {
		char why[256];

		snprintf(why, sizeof(why), "yield_stats module not loaded (%s: %s)",
			 YS_DIR, strerror(errno));
		tap_plan(0, why);
		return KSFT_SKIP;
	}
	prior_filter = (int)v;
	atexit(restore_filter);

	knob = cli_knob_override(want_knob);
	if (knob == CLI_KNOB_ERROR)
		return CLI_EXIT_USAGE;
	compat = ys_get("compat_available") == 1;
	diag("kernel %s, knob %s, compat %savailable, %ld calls per task, CPU %d",
	     scy_kernel_release(), knob < 0 ? "absent" : knob ? "1" : "0",
	     compat ? "" : "not ", calls, cpu);

	/*
	 * the plan first: three cases, two thread cases, the groups' case,
	 * five refusals
	 */
	tap_plan(case_tests(RIVAL_NONE, compat) +
		 case_tests(RIVAL_HOG, compat) +
		 case_tests(RIVAL_YIELDER, compat) +
		 2 * case_tests(RIVAL_NONE, compat) + CG_TESTS + 5, NULL);

	pin();
	run_case("alone", RIVAL_NONE);
	run_case("hog", RIVAL_HOG);
	run_case("yielder", RIVAL_YIELDER);
	run_threads("tgid", false);
	run_threads("tid", true);
	run_nonroot();
	run_cgroups();

	return nr_failed ? EXIT_FAILURE : 0;
}
