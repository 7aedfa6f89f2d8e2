// SPDX-License-Identifier: GPL-2.0
/*
 * sched_compat_yield: how long a sched_yield() caller stays away from its
 * CPU.
 *
 * A yielder, a nice-0 CPU hog and at most one light spinner (the "rival")
 * run on one CPU.  For a window of -d SECONDS (default 2) the yielder loops
 * "t0 = now; sched_yield(); t1 = now" and records t1 - t0, the time it was
 * away from the CPU for that sched_yield().  Every window prints the number
 * of yields and p50, p99 and max of the samples.
 *
 * Rivals: a SCHED_IDLE spinner (idle), a nice-19 spinner (nice19), a nice-0
 * spinner in a cgroup v2 group with cpu.idle=1 next to the hog's (cgidle).
 * Placements of the yielder: in the hog's group (same), in an autogroup of
 * its own (session: it calls setsid()), in a cpu cgroup of its own next to
 * the hog's (cgroup).  Other spinners share the hog's group.
 *
 * yield_away, one variant per placement and rival: windows with the hog
 * alone and with hog + rival, at knob 0, 1, 1, 0 (hog alone at 0 and 1,
 * then hog + rival at 1 and 0).  Asserted, for each knob-1 window: its
 * p50, p99 and max each at most the larger of the contract's bound for its
 * workers (ct_bound_level() in contract.c: the rivals' running time the
 * yielder waits, in whole ticks, and the turns of the rivals that pass
 * it) and the same statistic of the knob-0 window with the same workers,
 * + 400 us for the path from the tick back into the yielder (contract.h,
 * CT_SLACK_NS; ct_time_limits()).  The bound reads
 * the kernel's slices from /sys/kernel/debug/sched; without them the
 * comparison is a SKIP that says so.  No limit comes from a knob-1 window.
 *
 * yield_sleep, one variant per placement with the hog alone and with hog +
 * SCHED_IDLE spinner: the yielder calls sched_yield() and then sleeps 1 ms,
 * and records how much longer than 1 ms the sleep took (the oversleep), at
 * knob 0 and 1.  Asserted:
 *   p99 oversleep(knob 1) <= p99 oversleep(knob 0) + one tick (+ the slack).
 *
 * yield_sibling, in the same and the cgroup placement: the hog and a
 * sibling of the yielder (in its group) that runs 100 us, then sleeps
 * 1 ms, at knob 0 and 1.  Around each sched_yield() the yielder reads its
 * count of involuntary context switches (getrusage(RUSAGE_THREAD)): a
 * yield that handed the CPU to another task adds one, an empty yield (the
 * yielder picked again at once) none.  Asserted: no empty yield at knob 1,
 * where the hog is always runnable and a compat yield queues the yielder,
 * or its group's entity, behind it.  When the sibling goes to sleep the
 * group's entity is the next buddy at the levels above (6.1); a compat
 * yield that leaves that buddy in place is picked again at once.
 *
 * yield_outside, in the cgroup placement with the hog alone, the machine's
 * switch at 0: a window with no group at 1, then one with the hog's group
 * at 1 (cpu.compat_yield, the static key on).  The yielder is outside
 * every group at 1 (G5).  Asserted: the second window's yields per second
 * at least half the first's, and its p50 and p99 each within one tick
 * (+ the slack) of the first's.
 *
 * In every test: each window has at least one sample, and at knob 1 at
 * least MIN_YIELDS and no sched_yield() or sleep still running DURATION
 * seconds after the window ended; less means the yielder was stalled.
 *
 * The tick is the resolution of CLOCK_MONOTONIC_COARSE, 1/HZ.  Without
 * /sys/kernel/sched_compat_yield, or without root, the windows run at the
 * knob's current value only, are printed, and the comparisons are skipped.
 * A placement this system cannot provide is skipped with the reason.
 *
 * The knob, the autogroup setting and the cgroups are restored at exit,
 * also on failure and on SIGINT/SIGTERM/SIGHUP: each test restores what it
 * changed, and the main process restores the values it started with.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#include "contract.h"
#include "place.h"
#include "share.h"

#define NSEC_PER_SEC		1000000000ULL
#define NSEC_PER_MSEC		1000000ULL

/*
 * Time away is quantized to ticks: a p99 one tick above another lands on
 * the limit, give or take the path from the tick back into the yielder.
 * The limits allow the contract's slack for that (CT_SLACK_NS).
 */
/* Fewer yields than this in a window at knob 1: the yielder was stalled */
#define MIN_YIELDS		20
/* Samples kept per window; a window that fills them ends early */
#define MAX_SAMPLES		1048576U
/* Unmeasured start of each window: page faults, cold caches, TCG */
#define WARMUP_MAX_S		0.25
#define SLEEP_NS		NSEC_PER_MSEC
/* The sleeping sibling runs this long between its sleeps of SLEEP_NS */
#define SIBLING_RUN_NS		(100 * 1000ULL)
/*
 * Once the hog and the rival are gone the yielder has its CPU to itself;
 * it only needs to return from the sched_yield() or sleep it is in.
 */
#define FINISH_TIMEOUT_S	10
/*
 * Per test: four windows of at most warm-up + 2 x DURATION + the finish
 * timeout, plus process creation.  -d is limited to DURATION_MAX so that
 * this holds.
 */
#define TEST_TIMEOUT_S		300
#define DURATION_MIN		0.5
#define DURATION_MAX		30.0
#define CACHELINE		64
#define CSV_HEADER		"measure,placement,rival,knob,kernel,cpu," \
				"duration_s,wall_s,yields,p50_us,p99_us," \
				"max_us,cut,full,yield_max_us,empty"

#define NO_KNOB_REASON \
	"kernel has no " SCY_KNOB_SYSFS \
	" (CONFIG_SCHED_COMPAT_YIELD unset or unpatched kernel)"
#define NOT_ROOT_REASON	"not root: cannot set " SCY_KNOB_SYSFS

enum rival {
	RIVAL_NONE,		/* the hog alone */
	RIVAL_IDLE,		/* SCHED_IDLE spinner */
	RIVAL_NICE19,		/* nice-19 spinner */
	RIVAL_CGIDLE,		/* spinner in a group with cpu.idle=1 */
	RIVAL_SIBLING,		/* the yielder's sibling: runs, then sleeps */
};

enum yield_mode {
	MODE_YIELD,		/* sample: duration of sched_yield() */
	MODE_SLEEP,		/* sched_yield(); sample: oversleep of 1 ms */
};

/* Workers of a window; the index is also the slot in workers.pid[] */
enum {
	W_YIELDER,
	W_HOG,
	W_RIVAL,
	NR_WORKERS,
};

/* ------------------------------------------------------------------ */
/* options and state of the main process, inherited by the tests */

static double opt_duration = 2.0;
static int opt_cpu = -1;
static int csv_fd = -1;
static pid_t main_pid;

/* Written by a test's setup, read by the main process's signal handler */
struct main_shared {
	pid_t test_pgrp;
};

static struct main_shared *msh;

/* What the main process found at start, restored at exit */
static int init_knob = -1;
static int init_autogroup = -1;
static bool init_root_cpu = true;
static char cg_base_name[64];
static char cg_paths[4][PATH_MAX];	/* leaves first, then the base */
static char cg_root_ctl[PATH_MAX];

/* ------------------------------------------------------------------ */
/* state of a test process, for its signal handler */

static pid_t test_pid;
static int test_saved_knob = -1;
static struct {
	pid_t pid[NR_WORKERS];
} workers;

/* ------------------------------------------------------------------ */
/* small helpers */

static double us(__u64 ns)
{
	return ns / 1000.0;
}

static const char *rival_name(enum rival r)
{
	switch (r) {
	case RIVAL_NONE:
		return "none";
	case RIVAL_IDLE:
		return "idle";
	case RIVAL_NICE19:
		return "nice19";
	case RIVAL_CGIDLE:
		return "cgidle";
	case RIVAL_SIBLING:
		return "sibling";
	}
	return "?";
}

static const char *rival_desc(enum rival r)
{
	switch (r) {
	case RIVAL_NONE:
		return "hog alone";
	case RIVAL_IDLE:
		return "hog + SCHED_IDLE spinner";
	case RIVAL_NICE19:
		return "hog + nice-19 spinner";
	case RIVAL_CGIDLE:
		return "hog + spinner in a cpu.idle=1 group";
	case RIVAL_SIBLING:
		return "hog + a sibling of the yielder that sleeps";
	}
	return "?";
}

/* ------------------------------------------------------------------ */
/* cleanup: workers, placement, knob */

/* Async-signal-safe: SIGKILL and reap the workers of the current window */
static void kill_workers(void)
{
	int i, status;

	for (i = 0; i < NR_WORKERS; i++)
		if (READ_ONCE(workers.pid[i]) > 0)
			kill(workers.pid[i], SIGKILL);
	for (i = 0; i < NR_WORKERS; i++) {
		pid_t pid = READ_ONCE(workers.pid[i]);

		if (pid <= 0)
			continue;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		WRITE_ONCE(workers.pid[i], 0);
	}
}

/* Async-signal-safe: SIGKILL and reap one worker */
static void kill_worker(int idx)
{
	pid_t pid = READ_ONCE(workers.pid[idx]);
	int status;

	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	WRITE_ONCE(workers.pid[idx], 0);
}

/* Async-signal-safe: a test process undoes what it changed */
static void test_cleanup(void)
{
	if (getpid() != test_pid)
		return;
	kill_workers();
	scy_place_cleanup();
	if (test_saved_knob >= 0 && scy_knob_read() != test_saved_knob)
		scy_knob_write(test_saved_knob);
}

static void test_on_signal(int sig)
{
	test_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Async-signal-safe: the main process puts back what it found at start.
 * After a normal run every test has done so already; this covers a test
 * killed by the harness's timeout and a signal to the main process.
 */
static void main_restore(void)
{
	char list[512];
	int i;

	if (getpid() != main_pid)
		return;
	if (init_knob >= 0 && scy_knob_read() != init_knob)
		scy_knob_write(init_knob);
	if (init_autogroup >= 0 &&
	    scy_read_01(SCY_AUTOGROUP_SYSCTL) != init_autogroup)
		scy_write_str(SCY_AUTOGROUP_SYSCTL, init_autogroup ? "1" : "0");
	for (i = 0; i < (int)ARRAY_SIZE(cg_paths); i++)
		if (cg_paths[i][0])
			rmdir(cg_paths[i]);
	if (!init_root_cpu && cg_root_ctl[0] &&
	    scy_read_file(cg_root_ctl, list, sizeof(list)) >= 0 &&
	    scy_has_word(list, "cpu"))
		scy_write_str(cg_root_ctl, "-cpu");
}

static void main_on_signal(int sig)
{
	pid_t pgrp;

	if (getpid() == main_pid) {
		/* the running test cleans up after itself on SIGTERM */
		pgrp = msh ? READ_ONCE(msh->test_pgrp) : 0;
		if (pgrp > 0 && pgrp != getpgrp())
			kill(-pgrp, SIGTERM);
		main_restore();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ------------------------------------------------------------------ */
/* per-test context */

struct ctx {
	bool can_set;		/* knob present and root: windows at 0 and 1 */
	int knob_now;		/* value at setup, -1: no knob */
	const char *no_assert;	/* why the knob comparisons are skipped */
	struct ct_sched sched;	/* the kernel's parameters of the bound */
	const char *no_bound;	/* why there is no bound */
	char no_bound_buf[256];
	__u64 tick_ns;
	int cpu;
	/* placement of the test */
	enum scy_placement placement;
	int yielder_leaf;	/* cgroup leaves to join, SCY_NO_LEAF: none */
	int hog_leaf;
	int idle_leaf;		/* the cpu.idle=1 group */
	bool optin_set;		/* the hog's group's switch was set */
};

static void ctx_setup(struct __test_metadata *_metadata, struct ctx *c,
		      enum scy_placement placement)
{
	struct timespec res;

	memset(c, 0, sizeof(*c));
	c->placement = placement;
	c->yielder_leaf = SCY_NO_LEAF;
	c->hog_leaf = SCY_NO_LEAF;
	c->idle_leaf = SCY_NO_LEAF;
	test_pid = getpid();
	test_saved_knob = -1;
	memset(&workers, 0, sizeof(workers));

	/* the main process signals our process group on SIGINT/SIGTERM */
	if (msh)
		WRITE_ONCE(msh->test_pgrp, getpgrp());
	scy_on_signals(test_on_signal);
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	ASSERT_EQ(0, clock_getres(CLOCK_MONOTONIC_COARSE, &res)) {
		TH_LOG("clock_getres(CLOCK_MONOTONIC_COARSE): %s",
		       strerror(errno));
	}
	c->tick_ns = (__u64)res.tv_sec * NSEC_PER_SEC + res.tv_nsec;
	ASSERT_GT(c->tick_ns, 0ULL);
	if (ct_read_sched(&c->sched, c->tick_ns, c->no_bound_buf,
			  sizeof(c->no_bound_buf)))
		c->no_bound = c->no_bound_buf;

	c->cpu = opt_cpu >= 0 ? opt_cpu : scy_default_cpu();
	ASSERT_GE(c->cpu, 0) {
		TH_LOG("no CPU to run on");
	}

	c->knob_now = -1;
	if (scy_knob_present()) {
		c->knob_now = scy_knob_read();
		ASSERT_GE(c->knob_now, 0) {
			TH_LOG("%s does not read \"0\\n\" or \"1\\n\": %s",
			       SCY_KNOB_SYSFS, strerror(errno));
		}
		c->can_set = geteuid() == 0;
		if (c->can_set)
			test_saved_knob = c->knob_now;
		else
			c->no_assert = NOT_ROOT_REASON;
	} else {
		c->no_assert = NO_KNOB_REASON;
	}
	ksft_print_msg("kernel %s, knob %s, tick %.0f us, CPU %d, window %.2f s\n",
		       scy_kernel_release(),
		       c->knob_now < 0 ? "absent" : scy_knob_name(c->knob_now),
		       us(c->tick_ns), c->cpu, opt_duration);
}

static void ctx_teardown(void)
{
	test_cleanup();
	if (msh && getpid() == test_pid)
		WRITE_ONCE(msh->test_pgrp, 0);
}

/*
 * Set up the placement for all windows of a test.  The groups exist for
 * the windows with the hog alone too; an empty group changes nothing on
 * the CPU.  SCY_OK; SCY_EUNSUPPORTED (a SKIP) with the reason where the
 * kernel or the caller's place lacks the placement; SCY_EFAIL when a step
 * fails on a kernel that has it.
 */
static int place_setup(struct ctx *c, bool idle_group, char *err,
		       size_t errlen)
{
	static const char * const leaves[] = { "yielder", "others", "idle" };
	char self[PATH_MAX];
	int ret, e;

	if (c->placement == SCY_PLACE_SESSION) {
		ret = scy_autogroup_setup(err, errlen);
		if (ret)
			return ret;
	}
	if (c->placement == SCY_PLACE_CGROUP) {
		ret = scy_cgroup_setup(cg_base_name, leaves, idle_group ? 3 : 2,
				       err, errlen);
		if (ret)
			return ret;
		c->yielder_leaf = 0;
		c->hog_leaf = 1;
		if (idle_group)
			c->idle_leaf = 2;
	} else if (idle_group) {
		/*
		 * The hog stays in our group: the idle group must be its
		 * sibling, which a group below the cgroup2 root is only if
		 * we are in the root.
		 */
		if (scy_cgroup2_self(self, sizeof(self))) {
			snprintf(err, errlen,
				 "no cgroup v2 path in /proc/self/cgroup");
			return SCY_EUNSUPPORTED;
		}
		if (strcmp(self, "/")) {
			snprintf(err, errlen,
				 "the hog runs in cgroup %s, not in the cgroup2 root: a cpu.idle group would not be its sibling",
				 self);
			return SCY_EUNSUPPORTED;
		}
		ret = scy_cgroup_setup(cg_base_name, NULL, 0, err, errlen);
		if (ret)
			return ret;
		c->idle_leaf = -1;
	}
	if (idle_group) {
		e = scy_cgroup_write(c->idle_leaf, "cpu.idle", "1");
		if (e) {
			snprintf(err, errlen, "cannot write 1 to %s/cpu.idle: %s%s",
				 scy_cgroup_dir(c->idle_leaf), strerror(e),
				 e == ENOENT ? " (kernel older than 5.15?)" : "");
			/* a kernel without cpu.idle lacks it; else a failure */
			return e == ENOENT ? SCY_EUNSUPPORTED : SCY_EFAIL;
		}
	}
	return SCY_OK;
}

/* ------------------------------------------------------------------ */
/* one window */

struct lat_shared {
	alignas(CACHELINE) int go;
	int done;		/* the yielder finished its window */
	int stop;		/* the parent ends the window */
	int full;		/* the samples ran out */
	__u64 start_ns;		/* window, set before go */
	__u64 end_ns;
	__u64 n;		/* samples, set before done */
	__u64 empty;		/* yields after which no other task had run */
	__u64 yield_max;	/* longest sched_yield() in the window */
	__u64 last_ns;		/* when the last sample ended */
	__u64 sample[];
};

#define LAT_SHARED_SIZE	(sizeof(struct lat_shared) + \
			 MAX_SAMPLES * sizeof(__u64))

struct window {
	enum rival rival;
	int knob;		/* what was set, -1: left alone */
	bool optin;		/* the hog's group's cpu.compat_yield at 1 */
	int label;		/* knob value it ran at, -1: no knob */
	__u64 n;		/* yields in the window */
	__u64 empty;		/* of them, yields no other task ran in */
	__u64 p50, p99, max;	/* ns */
	__u64 yield_max;	/* longest sched_yield(), ns */
	double wall_s;
	bool cut;		/* the parent had to stop the hog and rival */
	bool full;
};

struct worker_spec {
	struct scy_worker_spec setup;	/* pinning, policy, session, cgroup */
	bool sleeper;		/* sibling_run() instead of spin() */
};

static void wait_go(struct lat_shared *sh)
{
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		scy_futex_wait(&sh->go, 0, NULL);
}

/*
 * Involuntary context switches of the calling thread so far.  A
 * sched_yield() that hands the CPU to another task counts as one (the
 * caller stays runnable); one that returns to the caller at once does not.
 */
static long nivcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nivcsw;
}

/*
 * The yielder's loop.  Ends at the end of the window or when told to.  In
 * MODE_YIELD it also counts the empty yields: those with no switch away
 * from the yielder between the two nivcsw() reads around them.
 */
static noreturn void yielder_run(struct lat_shared *sh, enum yield_mode mode)
{
	const struct timespec sleep_ts = scy_ns_to_ts(SLEEP_NS);
	__u64 ty, t0, t1, d, n = 0, empty = 0, ymax = 0;
	long cs0 = 0, cs1 = 0;

	wait_go(sh);
	for (;;) {
		if (mode == MODE_YIELD) {
			cs0 = nivcsw();
			ty = scy_now_ns();
			sched_yield();
			t0 = scy_now_ns();
			cs1 = nivcsw();
			t1 = t0;
			d = t1 - ty;
		} else {
			ty = scy_now_ns();
			sched_yield();
			t0 = scy_now_ns();
			clock_nanosleep(CLOCK_MONOTONIC, 0, &sleep_ts, NULL);
			t1 = scy_now_ns();
			d = t1 - t0 > SLEEP_NS ? t1 - t0 - SLEEP_NS : 0;
		}
		if (ty >= sh->start_ns) {
			if (n == MAX_SAMPLES) {
				sh->full = 1;
				break;
			}
			sh->sample[n++] = d;
			if (mode == MODE_YIELD && cs1 == cs0)
				empty++;
			if (t0 - ty > ymax)
				ymax = t0 - ty;
		}
		/* a stalled yielder sees the end as soon as it runs again */
		if (t1 >= sh->end_ns || READ_ONCE(sh->stop))
			break;
	}
	sh->n = n;
	sh->empty = empty;
	sh->yield_max = ymax;
	sh->last_ns = t1;
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	scy_futex_wake(&sh->done, 1);
	for (;;)
		pause();
}

static noreturn void spin(void)
{
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

/*
 * The sleeping sibling: runs SIBLING_RUN_NS, sleeps SLEEP_NS, again.  Each
 * time it goes to sleep while the yielder stays runnable in their group,
 * the group's entity above them is the one to run next (6.1 sets it as
 * the next buddy at the levels above: set_next_buddy() in
 * dequeue_task_fair()).
 */
static noreturn void sibling_run(void)
{
	const struct timespec sleep_ts = scy_ns_to_ts(SLEEP_NS);
	__u64 t;

	for (;;) {
		t = scy_now_ns();
		while (scy_now_ns() - t < SIBLING_RUN_NS)
			;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &sleep_ts, NULL);
	}
}

static noreturn void worker(int idx, const struct worker_spec *ws,
			    enum yield_mode mode, struct lat_shared *sh,
			    int ready_fd, pid_t parent)
{
	scy_worker_setup(ready_fd, idx, parent, &ws->setup);

	if (idx == W_YIELDER)
		yielder_run(sh, mode);
	wait_go(sh);
	if (ws->sleeper)
		sibling_run();
	spin();
}

static const char * const worker_names[] = {
	[W_YIELDER] = "yielder", [W_HOG] = "hog", [W_RIVAL] = "rival",
};

/* Wait until the yielder says it is done, at most until @deadline */
static bool wait_done(struct lat_shared *sh, __u64 deadline)
{
	struct timespec ts;
	__u64 now;

	while (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) {
		now = scy_now_ns();
		if (now >= deadline)
			return false;
		ts = scy_ns_to_ts(deadline - now);
		scy_futex_wait(&sh->done, 0, &ts);
	}
	return true;
}

static void spec_for(const struct ctx *c, int idx, enum rival rival,
		     struct worker_spec *ws)
{
	struct scy_worker_spec *set = &ws->setup;

	set->cpu = c->cpu;
	set->set_policy = true;
	set->policy = SCHED_OTHER;
	set->nice = 0;
	set->setsid = false;
	set->leaf = SCY_NO_LEAF;
	ws->sleeper = false;
	switch (idx) {
	case W_YIELDER:
		set->setsid = c->placement == SCY_PLACE_SESSION;
		set->leaf = c->yielder_leaf;
		break;
	case W_HOG:
		set->leaf = c->hog_leaf;
		break;
	case W_RIVAL:
		set->leaf = c->hog_leaf;
		if (rival == RIVAL_IDLE)
			set->policy = SCHED_IDLE;
		else if (rival == RIVAL_NICE19)
			set->nice = 19;
		else if (rival == RIVAL_CGIDLE)
			set->leaf = c->idle_leaf;
		if (rival == RIVAL_SIBLING) {
			set->leaf = c->yielder_leaf;
			ws->sleeper = true;
		}
		break;
	}
}

/*
 * One window: set the knob, start the workers, let the yielder measure,
 * collect its samples, stop everything.  An enum scy_status; on anything
 * but SCY_OK the reason is in @err.
 */
static int run_window(const struct ctx *c, enum yield_mode mode, struct window *w,
		      char *err, size_t errlen)
{
	struct lat_shared *sh;
	__u64 warmup, dur, grace, start;
	cpu_set_t orig;
	bool pinned = false;
	int pfd[2] = { -1, -1 };
	int nr, i, e, ret = SCY_EFAIL;
	pid_t self = getpid();

	err[0] = '\0';
	w->label = c->knob_now;
	if (w->knob >= 0) {
		e = scy_knob_write(w->knob);
		if (e) {
			snprintf(err, errlen, "cannot set %s to %d: %s",
				 SCY_KNOB_SYSFS, w->knob, strerror(e));
			return SCY_EFAIL;
		}
		if (scy_knob_read() != w->knob) {
			snprintf(err, errlen,
				 "%s does not read back %d after writing it",
				 SCY_KNOB_SYSFS, w->knob);
			return SCY_EFAIL;
		}
		w->label = w->knob;
	}
	if (sched_getaffinity(0, sizeof(orig), &orig)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return SCY_EFAIL;
	}
	if (c->cpu >= CPU_SETSIZE || !CPU_ISSET(c->cpu, &orig)) {
		snprintf(err, errlen,
			 "CPU %d is not available (offline or not in our affinity mask)",
			 c->cpu);
		return SCY_EFAIL;
	}

	sh = mmap(NULL, LAT_SHARED_SIZE, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return SCY_EFAIL;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}

	/* the parent keeps off the measured CPU when it can */
	pinned = scy_pin_away(c->cpu) >= 0;

	nr = w->rival == RIVAL_NONE ? 2 : 3;
	fflush(NULL);
	for (i = 0; i < nr; i++) {
		struct worker_spec ws;
		pid_t pid;

		spec_for(c, i, w->rival, &ws);
		pid = fork();
		if (pid < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			goto out;
		}
		if (!pid) {
			close(pfd[0]);
			worker(i, &ws, mode, sh, pfd[1], self);
		}
		WRITE_ONCE(workers.pid[i], pid);
	}
	close(pfd[1]);
	pfd[1] = -1;

	ret = scy_wait_ready(pfd[0], nr, worker_names, NR_WORKERS, err,
			     errlen);
	if (ret)
		goto out;
	ret = SCY_EFAIL;

	if (c->placement == SCY_PLACE_SESSION) {
		char mine[64], his[64];

		if (!scy_autogroup_of(0, mine, sizeof(mine)) &&
		    !scy_autogroup_of(workers.pid[W_YIELDER], his,
				      sizeof(his)) &&
		    !strcmp(mine, his)) {
			snprintf(err, errlen,
				 "the yielder is still in autogroup %s after setsid()",
				 mine);
			goto out;
		}
	}

	dur = (__u64)(opt_duration * NSEC_PER_SEC);
	warmup = (__u64)((opt_duration / 8 < WARMUP_MAX_S ?
			  opt_duration / 8 : WARMUP_MAX_S) * NSEC_PER_SEC);
	/* a stalled sched_yield() may end up to one window late */
	grace = dur;
	start = scy_now_ns();
	sh->start_ns = start + warmup;
	sh->end_ns = sh->start_ns + dur;
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	scy_futex_wake(&sh->go, INT_MAX);

	if (!wait_done(sh, sh->end_ns + grace)) {
		/*
		 * The yielder is still waiting for its CPU.  Free the CPU
		 * for it: its current sample ends as soon as it runs, and
		 * still shows (at least) how long it waited.
		 */
		w->cut = true;
		WRITE_ONCE(sh->stop, 1);
		kill_worker(W_HOG);
		kill_worker(W_RIVAL);
		if (!wait_done(sh, scy_now_ns() + FINISH_TIMEOUT_S * NSEC_PER_SEC)) {
			snprintf(err, errlen,
				 "the yielder did not finish its window within %d s after the hog and the rival were stopped",
				 FINISH_TIMEOUT_S);
			goto out;
		}
	}

	w->n = sh->n;
	w->empty = sh->empty;
	w->full = sh->full;
	w->wall_s = sh->last_ns > sh->start_ns ?
		    (double)(sh->last_ns - sh->start_ns) / NSEC_PER_SEC : 0;
	scy_sort_u64(sh->sample, w->n);
	w->p50 = scy_percentile(sh->sample, w->n, 50);
	w->p99 = scy_percentile(sh->sample, w->n, 99);
	w->max = w->n ? sh->sample[w->n - 1] : 0;
	w->yield_max = sh->yield_max;
	ret = SCY_OK;
out:
	kill_workers();
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	munmap(sh, LAT_SHARED_SIZE);
	if (pinned)
		sched_setaffinity(0, sizeof(orig), &orig);
	return ret;
}

static void print_window(const struct ctx *c, enum yield_mode mode,
			 const struct window *w)
{
	const char *measure = mode == MODE_SLEEP ? "oversleep" :
			      w->optin ? "away-beside-optin" : "away";
	const char *pl = scy_placement_name(c->placement);
	const char *rv = rival_name(w->rival), *kn = scy_knob_name(w->label);
	unsigned long long n = w->n;

	/* one line, written piecewise (stdout is line buffered) */
	printf("# measure=%s placement=%s rival=%s knob=%s yields=%llu",
	       measure, pl, rv, kn, n);
	printf(" p50_us=%.1f p99_us=%.1f max_us=%.1f wall_s=%.3f cut=%d",
	       us(w->p50), us(w->p99), us(w->max), w->wall_s, w->cut);
	if (mode == MODE_YIELD)
		printf(" empty=%llu", (unsigned long long)w->empty);
	/* the samples are oversleeps: how long did the yields take? */
	if (mode == MODE_SLEEP)
		printf(" yield_max_us=%.1f", us(w->yield_max));
	printf("\n");
	if (w->full)
		ksft_print_msg("the window ended early: %u samples taken\n",
			       MAX_SAMPLES);
	if (csv_fd < 0)
		return;
	dprintf(csv_fd, "%s,%s,%s,%s,%s,%d,%.2f,%.3f,",
		measure, pl, rv, kn, scy_kernel_release(), c->cpu,
		opt_duration, w->wall_s);
	dprintf(csv_fd, "%llu,%.1f,%.1f,%.1f,%d,%d,%.1f,", n, us(w->p50),
		us(w->p99), us(w->max), w->cut, w->full, us(w->yield_max));
	if (mode == MODE_YIELD)
		dprintf(csv_fd, "%llu", (unsigned long long)w->empty);
	dprintf(csv_fd, "\n");
}

/*
 * The hog's group's cpu.compat_yield to @on, where a window needs it at 1
 * or it was set before.  SCY_EUNSUPPORTED with the reason where the
 * kernel has no such file or the hog has no group of its own.
 */
static int set_hog_group(struct ctx *c, bool on, char *err, size_t errlen)
{
	int e;

	if (!on && !c->optin_set)
		return SCY_OK;
	if (c->hog_leaf == SCY_NO_LEAF) {
		snprintf(err, errlen, "the hog has no cgroup of its own here");
		return SCY_EUNSUPPORTED;
	}
	e = scy_cgroup_write(c->hog_leaf, SCY_GROUP_SWITCH, on ? "1" : "0");
	if (e) {
		snprintf(err, errlen, "cannot write %d to %s/%s: %s", on,
			 scy_cgroup_dir(c->hog_leaf), SCY_GROUP_SWITCH,
			 strerror(e));
		return e == ENOENT && on ? SCY_EUNSUPPORTED : SCY_EFAIL;
	}
	c->optin_set = on;
	return SCY_OK;
}

/*
 * Run the windows of a test.  Without the knob (or root) only those
 * meant for knob 0 run, at the knob's current value.  Returns the number
 * of windows run, or -1 with the test ended by SKIP() or ASSERT.
 */
static int run_windows(struct __test_metadata *_metadata, struct ctx *c,
		       enum yield_mode mode, bool idle_group, struct window *w,
		       int nr)
{
	char err[SCY_ERRLEN + PATH_MAX], gerr[512];
	int i, k = 0, ret;

	for (i = 0; i < nr; i++) {
		if (!c->can_set && w[i].knob != 0)
			continue;
		w[k] = w[i];
		if (!c->can_set)
			w[k].knob = -1;
		k++;
	}

	ret = place_setup(c, idle_group, err, sizeof(err));
	if (ret == SCY_EUNSUPPORTED) {
		scy_place_cleanup();
		SKIP(return -1, "%s", err);
	}
	ASSERT_EQ(SCY_OK, ret) {
		TH_LOG("%s", err);
	}
	for (i = 0; i < k; i++) {
		ret = set_hog_group(c, w[i].optin, gerr, sizeof(gerr));
		if (ret == SCY_EUNSUPPORTED) {
			test_cleanup();
			SKIP(return -1, "%s", gerr);
		}
		ASSERT_EQ(SCY_OK, ret) {
			TH_LOG("%s", gerr);
		}
		ret = run_window(c, mode, &w[i], err, sizeof(err));
		if (ret == SCY_EUNSUPPORTED) {
			test_cleanup();
			SKIP(return -1, "%s", err);
		}
		ASSERT_EQ(SCY_OK, ret) {
			TH_LOG("%s window, knob %s: %s",
			       rival_desc(w[i].rival),
			       scy_knob_name(w[i].knob), err);
		}
		print_window(c, mode, &w[i]);
	}
	scy_place_cleanup();
	return k;
}

/*
 * Every window has samples; at knob 1 at least MIN_YIELDS and none still
 * running a window after its end.  Returns whether all of that holds.
 */
static bool check_stalls(struct __test_metadata *_metadata,
			 const struct window *w, int nr)
{
	bool ok = true;
	int i;

	for (i = 0; i < nr; i++) {
		const char *kn = scy_knob_name(w[i].label);

		EXPECT_GT(w[i].n, 0ULL) {
			TH_LOG("%s, knob %s: no sample in %.2f s",
			       rival_desc(w[i].rival), kn, opt_duration);
			ok = false;
		}
		if (w[i].label != 1)
			continue;
		EXPECT_GE(w[i].n, (__u64)MIN_YIELDS) {
			TH_LOG("%s, knob 1: %llu yields in %.2f s: stalled (yield max %.0f us)",
			       rival_desc(w[i].rival),
			       (unsigned long long)w[i].n, opt_duration,
			       us(w[i].yield_max));
			ok = false;
		}
		EXPECT_FALSE(w[i].cut) {
			TH_LOG("%s, knob 1: still away %.2f s after the window",
			       rival_desc(w[i].rival), opt_duration);
			ok = false;
		}
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* yield_away: time away per sched_yield() against the contract's bound */

FIXTURE(yield_away) {
	struct ctx c;
};

FIXTURE_VARIANT(yield_away) {
	enum scy_placement placement;
	enum rival rival;
};

FIXTURE_VARIANT_ADD(yield_away, same_idle) {
	.placement = SCY_PLACE_SAME, .rival = RIVAL_IDLE,
};

FIXTURE_VARIANT_ADD(yield_away, same_nice19) {
	.placement = SCY_PLACE_SAME, .rival = RIVAL_NICE19,
};

FIXTURE_VARIANT_ADD(yield_away, same_cgidle) {
	.placement = SCY_PLACE_SAME, .rival = RIVAL_CGIDLE,
};

FIXTURE_VARIANT_ADD(yield_away, session_idle) {
	.placement = SCY_PLACE_SESSION, .rival = RIVAL_IDLE,
};

FIXTURE_VARIANT_ADD(yield_away, session_nice19) {
	.placement = SCY_PLACE_SESSION, .rival = RIVAL_NICE19,
};

FIXTURE_VARIANT_ADD(yield_away, session_cgidle) {
	.placement = SCY_PLACE_SESSION, .rival = RIVAL_CGIDLE,
};

FIXTURE_VARIANT_ADD(yield_away, cgroup_idle) {
	.placement = SCY_PLACE_CGROUP, .rival = RIVAL_IDLE,
};

FIXTURE_VARIANT_ADD(yield_away, cgroup_nice19) {
	.placement = SCY_PLACE_CGROUP, .rival = RIVAL_NICE19,
};

FIXTURE_VARIANT_ADD(yield_away, cgroup_cgidle) {
	.placement = SCY_PLACE_CGROUP, .rival = RIVAL_CGIDLE,
};

FIXTURE_SETUP(yield_away)
{
	ctx_setup(_metadata, &self->c, variant->placement);
}

FIXTURE_TEARDOWN(yield_away)
{
	ctx_teardown();
}

/*
 * The contract's bound of a yield_away window (contract.h): at the level
 * where the yielder yields, its entity (the task, or its autogroup's or
 * cgroup's entity) weighs 1024; its rivals there are the hog (its task, or
 * its group) and the rival (a task of the hog's group in the same
 * placement and beside the autogroup, a cpu.idle group where it is one).
 */
static void away_bound(const struct ctx *c, enum rival which,
		       struct ct_bound *b)
{
	double wr = which == RIVAL_NICE19 ? ct_weight_of(W_NICE19) :
		    ct_weight_of(W_IDLE);
	bool has = which != RIVAL_NONE;

	memset(b, 0, sizeof(*b));
	b->w = 1024;
	b->rw[0] = 1024;
	b->rw[1] = wr;
	if (c->placement == SCY_PLACE_CGROUP) {
		/* the hog's group; a SCHED_IDLE or nice-19 rival inside it */
		b->n = 1 + (which == RIVAL_CGIDLE);
	} else {
		b->n = 1 + has;
	}
	b->wr = 1024 + (b->n > 1 ? wr : 0);
	ct_bound_level(&c->sched, b, 2 + has);
}

/*
 * Knob 1 against the contract's bound: p50, p99 and max each at most the
 * larger of the bound and the same statistic of the window at knob 0 with
 * the same workers, + the contract's slack.
 */
static void away_within(struct __test_metadata *_metadata,
			const struct ctx *c, const struct window *k1,
			const struct window *k0)
{
	struct ct_win w0 = {
		.nyields = k0->n, .p50 = k0->p50, .p99 = k0->p99, .max = k0->max,
	};
	__u64 l50, l99, lmax;
	struct ct_bound b;

	away_bound(c, k1->rival, &b);
	ct_time_limits(&c->sched, &b, &w0, &l50, &l99, &lmax);
	printf("# %s placement, knob 1, %s: p50 %.1f p99 %.1f max %.1f us;",
	       scy_placement_name(c->placement), rival_desc(k1->rival),
	       us(k1->p50), us(k1->p99), us(k1->max));
	printf(" limits %.1f %.1f %.1f us (bound: w %.0f, W_r %.0f, %s %.2f ms,",
	       us(l50), us(l99), us(lmax), b.w, b.wr,
	       c->sched.kind == CT_EEVDF ? "slice" : "move", b.slice / 1e6);
	printf(" R %.2f ms: %.1f %.1f %.1f ms; knob 0 %.1f %.1f %.1f us)\n",
	       b.r / 1e6, b.p50 / 1e6, b.p99 / 1e6, b.max / 1e6,
	       us(k0->p50), us(k0->p99), us(k0->max));
	EXPECT_LE(k1->p50, l50) {
		TH_LOG("knob 1, %s: p50 away %.1f us > %.1f us",
		       rival_desc(k1->rival), us(k1->p50), us(l50));
	}
	EXPECT_LE(k1->p99, l99) {
		TH_LOG("knob 1, %s: p99 away %.1f us > %.1f us",
		       rival_desc(k1->rival), us(k1->p99), us(l99));
	}
	EXPECT_LE(k1->max, lmax) {
		TH_LOG("knob 1, %s: max away %.1f us > %.1f us",
		       rival_desc(k1->rival), us(k1->max), us(lmax));
	}
}

TEST_F_TIMEOUT(yield_away, within_bound, TEST_TIMEOUT_S)
{
	/* knob 0, 1, 1, 0: each knob-1 window beside its knob-0 one */
	struct window w[4] = {
		{ .rival = RIVAL_NONE, .knob = 0 },
		{ .rival = RIVAL_NONE, .knob = 1 },
		{ .rival = variant->rival, .knob = 1 },
		{ .rival = variant->rival, .knob = 0 },
	};
	struct ctx *c = &self->c;
	bool ok;
	int nr;

	nr = run_windows(_metadata, c, MODE_YIELD,
			 variant->rival == RIVAL_CGIDLE, w, ARRAY_SIZE(w));
	if (nr < 0)
		return;
	ok = check_stalls(_metadata, w, nr);
	if (!c->can_set || c->no_bound) {
		if (ok)
			SKIP(return, "time away at knob 1 not judged: %s",
			     c->no_bound ? c->no_bound : c->no_assert);
		return;
	}
	away_within(_metadata, c, &w[1], &w[0]);
	away_within(_metadata, c, &w[2], &w[3]);
}

/* ------------------------------------------------------------------ */
/* yield_sleep: oversleep of 1 ms after each sched_yield() */

FIXTURE(yield_sleep) {
	struct ctx c;
};

FIXTURE_VARIANT(yield_sleep) {
	enum scy_placement placement;
	enum rival rival;
};

FIXTURE_VARIANT_ADD(yield_sleep, same_none) {
	.placement = SCY_PLACE_SAME, .rival = RIVAL_NONE,
};

FIXTURE_VARIANT_ADD(yield_sleep, same_idle) {
	.placement = SCY_PLACE_SAME, .rival = RIVAL_IDLE,
};

FIXTURE_VARIANT_ADD(yield_sleep, session_none) {
	.placement = SCY_PLACE_SESSION, .rival = RIVAL_NONE,
};

FIXTURE_VARIANT_ADD(yield_sleep, session_idle) {
	.placement = SCY_PLACE_SESSION, .rival = RIVAL_IDLE,
};

FIXTURE_VARIANT_ADD(yield_sleep, cgroup_none) {
	.placement = SCY_PLACE_CGROUP, .rival = RIVAL_NONE,
};

FIXTURE_VARIANT_ADD(yield_sleep, cgroup_idle) {
	.placement = SCY_PLACE_CGROUP, .rival = RIVAL_IDLE,
};

FIXTURE_SETUP(yield_sleep)
{
	ctx_setup(_metadata, &self->c, variant->placement);
}

FIXTURE_TEARDOWN(yield_sleep)
{
	ctx_teardown();
}

TEST_F_TIMEOUT(yield_sleep, oversleep_p99, TEST_TIMEOUT_S)
{
	struct window w[2] = {
		{ .rival = variant->rival, .knob = 0 },
		{ .rival = variant->rival, .knob = 1 },
	};
	struct ctx *c = &self->c;
	__u64 limit;
	bool ok;
	int nr;

	nr = run_windows(_metadata, c, MODE_SLEEP, false, w, ARRAY_SIZE(w));
	if (nr < 0)
		return;
	ok = check_stalls(_metadata, w, nr);
	if (!c->can_set) {
		if (ok)
			SKIP(return, "p99 oversleep at knob 1 not compared: %s",
			     c->no_assert);
		return;
	}

	limit = w[0].p99 + c->tick_ns + CT_SLACK_NS;
	printf("# %s placement, %s: p99 oversleep of 1 ms after sched_yield()",
	       scy_placement_name(c->placement), rival_desc(w[0].rival));
	printf(" %.1f us at knob 1, %.1f us at knob 0, limit %.1f us",
	       us(w[1].p99), us(w[0].p99), us(limit));
	printf(" (+ tick %.0f us + %.0f us): %s\n", us(c->tick_ns),
	       us(CT_SLACK_NS),
	       w[1].p99 <= limit ? "ok" : "TOO LONG");
	EXPECT_LE(w[1].p99, limit) {
		TH_LOG("%s: p99 oversleep %.1f us at knob 1 > %.1f us (knob 0 + tick + slack)",
		       rival_desc(w[0].rival), us(w[1].p99), us(limit));
	}
}

/* ------------------------------------------------------------------ */
/* yield_sibling: with a sibling that sleeps, every yield hands over */

FIXTURE(yield_sibling) {
	struct ctx c;
};

FIXTURE_VARIANT(yield_sibling) {
	enum scy_placement placement;
};

FIXTURE_VARIANT_ADD(yield_sibling, same) {
	.placement = SCY_PLACE_SAME,
};

FIXTURE_VARIANT_ADD(yield_sibling, cgroup) {
	.placement = SCY_PLACE_CGROUP,
};

FIXTURE_SETUP(yield_sibling)
{
	ctx_setup(_metadata, &self->c, variant->placement);
}

FIXTURE_TEARDOWN(yield_sibling)
{
	ctx_teardown();
}

TEST_F_TIMEOUT(yield_sibling, no_empty_yield, TEST_TIMEOUT_S)
{
	struct window w[2] = {
		{ .rival = RIVAL_SIBLING, .knob = 0 },
		{ .rival = RIVAL_SIBLING, .knob = 1 },
	};
	struct ctx *c = &self->c;
	bool ok;
	int nr;

	nr = run_windows(_metadata, c, MODE_YIELD, false, w, ARRAY_SIZE(w));
	if (nr < 0)
		return;
	ok = check_stalls(_metadata, w, nr);
	if (!c->can_set) {
		if (ok)
			SKIP(return, "empty yields at knob 1 not counted: %s",
			     c->no_assert);
		return;
	}

	printf("# %s placement, %s: empty yields %llu of %llu at knob 1,",
	       scy_placement_name(c->placement), rival_desc(w[1].rival),
	       (unsigned long long)w[1].empty, (unsigned long long)w[1].n);
	printf(" %llu of %llu at knob 0: %s\n",
	       (unsigned long long)w[0].empty, (unsigned long long)w[0].n,
	       w[1].empty ? "EMPTY YIELDS" : "ok");
	EXPECT_EQ(0ULL, w[1].empty) {
		TH_LOG("knob 1, %s: %llu of %llu yields ran nothing else",
		       rival_desc(w[1].rival),
		       (unsigned long long)w[1].empty,
		       (unsigned long long)w[1].n);
	}
}

/* ------------------------------------------------------------------ */
/*
 * yield_outside: the machine's switch at 0, the yielder in a cgroup at 0
 * and the hog in a cgroup beside it, first with no group at 1, then with
 * the hog's group at 1 (the static key on, a job beside the yielder opted
 * in).  The yielder is outside every group at 1, so its yields are the
 * stock ones (G5): the second window must match the first, its yields
 * per second at least half the first's (the loops it keeps) and its p50
 * and p99 within one tick of the first's.  No limit comes from the
 * window with the group at 1.
 */
FIXTURE(yield_outside) {
	struct ctx c;
};

FIXTURE_SETUP(yield_outside)
{
	ctx_setup(_metadata, &self->c, SCY_PLACE_CGROUP);
}

FIXTURE_TEARDOWN(yield_outside)
{
	ctx_teardown();
}

/* @a within one tick (+ the slack) of @b, either way */
static bool within_tick(const struct ctx *c, __u64 a, __u64 b)
{
	__u64 t = c->tick_ns + CT_SLACK_NS;

	return a <= b + t && b <= a + t;
}

TEST_F_TIMEOUT(yield_outside, stock_beside_optin, TEST_TIMEOUT_S)
{
	struct window w[2] = {
		{ .rival = RIVAL_NONE, .knob = 0 },
		{ .rival = RIVAL_NONE, .knob = 0, .optin = true },
	};
	struct ctx *c = &self->c;
	double r0, r1;
	int nr;

	if (!c->can_set)
		SKIP(return, "the groups' %s not set: %s", SCY_GROUP_SWITCH,
		     c->no_assert);
	nr = run_windows(_metadata, c, MODE_YIELD, false, w, ARRAY_SIZE(w));
	if (nr < 0)
		return;
	if (!check_stalls(_metadata, w, nr))
		return;
	r0 = w[0].wall_s > 0 ? w[0].n / w[0].wall_s : 0;
	r1 = w[1].wall_s > 0 ? w[1].n / w[1].wall_s : 0;
	printf("# cgroup placement, knob 0, the hog's group at 0 then 1:");
	printf(" %.0f then %.0f yields/s,", r0, r1);
	printf(" p50 %.1f then %.1f us, p99 %.1f then %.1f us\n",
	       us(w[0].p50), us(w[1].p50), us(w[0].p99), us(w[1].p99));
	EXPECT_GE(r1, r0 / 2) {
		TH_LOG("the hog's group at 1: %.0f yields/s, < half of %.0f with no group at 1",
		       r1, r0);
	}
	EXPECT_TRUE(within_tick(c, w[1].p50, w[0].p50)) {
		TH_LOG("the hog's group at 1: p50 away %.1f us, not within a tick of %.1f us",
		       us(w[1].p50), us(w[0].p50));
	}
	EXPECT_TRUE(within_tick(c, w[1].p99, w[0].p99)) {
		TH_LOG("the hog's group at 1: p99 away %.1f us, not within a tick of %.1f us",
		       us(w[1].p99), us(w[0].p99));
	}
}

/* ------------------------------------------------------------------ */

static void print_usage(const char *prog, FILE *f)
{
	fprintf(f,
		"usage: %s [-d SECONDS] [-c CPU] [-o CSV] [harness options]\n"
		"  -d SECONDS  length of each measurement window (default 2, %.1f..%.0f)\n"
		"  -c CPU      CPU the workers run on (default: highest allowed)\n"
		"  -o CSV      also write the windows as CSV to this file\n"
		"harness options (-l lists the tests):\n",
		prog, DURATION_MIN, DURATION_MAX);
}

/* What the main process restores at exit, see main_restore() */
static void main_save(void)
{
	static const char * const leaves[] = { "yielder", "others", "idle" };
	char mnt[PATH_MAX / 2], list[512];
	int i;

	snprintf(cg_base_name, sizeof(cg_base_name), "scy-latency-%d",
		 (int)main_pid);
	if (geteuid())
		return;
	if (scy_knob_present())
		init_knob = scy_knob_read();
	init_autogroup = scy_read_01(SCY_AUTOGROUP_SYSCTL);
	if (scy_cgroup2_mount(mnt, sizeof(mnt)))
		return;
	for (i = 0; i < (int)ARRAY_SIZE(leaves); i++)
		snprintf(cg_paths[i], sizeof(cg_paths[i]), "%s/%s/%s", mnt,
			 cg_base_name, leaves[i]);
	snprintf(cg_paths[i], sizeof(cg_paths[i]), "%s/%s", mnt,
		 cg_base_name);
	snprintf(cg_root_ctl, sizeof(cg_root_ctl), "%s/cgroup.subtree_control",
		 mnt);
	if (scy_read_file(cg_root_ctl, list, sizeof(list)) >= 0)
		init_root_cpu = scy_has_word(list, "cpu");
}

/*
 * Our options (-d, -c, -o) are taken out of argv, everything else goes to
 * the harness (-l, -t, -v, ...).
 */
int main(int argc, char **argv)
{
	char **hargv;
	const char *csv_path = NULL;
	int i, hargc = 0;

	hargv = calloc(argc + 1, sizeof(*hargv));
	if (!hargv)
		return KSFT_FAIL;
	hargv[hargc++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;

		if (a[0] != '-' || !a[1] || !strchr("dco", a[1])) {
			/* a harness option */
			if (!strcmp(a, "-h"))
				print_usage(argv[0], stderr);
			hargv[hargc++] = argv[i];
			/* the value of one: "-t NAME", "-v NAME", ... */
			if (a[0] == '-' && a[1] && strchr("tTvVfFr", a[1]) &&
			    !a[2] && i + 1 < argc)
				hargv[hargc++] = argv[++i];
			continue;
		}
		if (a[2]) {
			val = a + 2;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "option %s needs a value\n", a);
			print_usage(argv[0], stderr);
			return KSFT_FAIL;
		}
		if (a[1] == 'd' &&
		    scy_parse_seconds(val, DURATION_MIN, DURATION_MAX,
				      &opt_duration)) {
			fprintf(stderr, "invalid duration '%s' (%.1f..%.0f s)\n",
				val, DURATION_MIN, DURATION_MAX);
			return KSFT_FAIL;
		}
		if (a[1] == 'c' && scy_parse_cpu(val, &opt_cpu)) {
			fprintf(stderr, "invalid CPU '%s'\n", val);
			return KSFT_FAIL;
		}
		if (a[1] == 'o')
			csv_path = val;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	main_pid = getpid();
	msh = mmap(NULL, sizeof(*msh), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (msh == MAP_FAILED) {
		perror("mmap");
		return KSFT_FAIL;
	}
	main_save();
	atexit(main_restore);
	scy_on_signals(main_on_signal);

	if (csv_path) {
		csv_fd = open(csv_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
			      O_CLOEXEC, 0644);
		if (csv_fd < 0) {
			fprintf(stderr, "cannot open %s: %s\n", csv_path,
				strerror(errno));
			return KSFT_FAIL;
		}
		dprintf(csv_fd, "%s\n", CSV_HEADER);
	}

	return test_harness_run(hargc, hargv);
}
