// SPDX-License-Identifier: GPL-2.0
/*
 * sched_compat_yield: a generated matrix of job-shaped topologies, each
 * cell judged on the compat yield's contract.
 *
 * A cell is a yielder, 1 to 3 rivals, a placement and an event, all pinned
 * to one CPU (the highest allowed, or -C CPU).  The yielder loops "t0 =
 * now; sched_yield(); t1 = now" (CLOCK_MONOTONIC): t1 - t0 is its time
 * away for that yield.  A rival loops "counter++; getppid()", as the hogs
 * of share.c do, so that the yielder's loop-counter share (its yields /
 * all loop counts) is share.c's.
 *
 * Dimensions:
 *   rivals     1 to 3, each with a weight: idle (SCHED_IDLE), nice19,
 *              nice0 or nice-10; listed heaviest first, except rival 1,
 *              the one an event acts on (nice-flip: always nice19, its
 *              light state; policy-flip: always idle);
 *   placement  same:    yielder and rivals in the test's own group;
 *              session: the yielder calls setsid(), an autogroup of its
 *                       own; the rivals share another one (they are
 *                       forked by a process that calls setsid() first);
 *              cgroup:  sibling cgroup v2 groups, yielder/ and rivals/;
 *              nested:  a batch system's tree, the cpu controller on in
 *                       every level: the yielder in system.slice/
 *                       slurmstepd.scope/job_1/step_0/user/task_0 and the
 *                       rivals in .../job_2/step_0/user/task_0, below a
 *                       group of the test's own (7 levels deep);
 *              cgroup-root: the yielder in a cgroup of its own, the
 *                       rivals plain tasks of the test's own group and
 *                       session (on a host without systemd, such as a
 *                       test guest, the root task group: every process
 *                       outside a cgroup there);
 *              entity:  the yielder and each rival placed on their own,
 *                       with autogroups on or off: a plain task of the
 *                       root task group (task), a session of its own
 *                       (session: an autogroup while they are on), a
 *                       cgroup of its own below the cgroup2 root
 *                       (cgroup), or the task of a Slurm job's tree of
 *                       its own from the root (nested, 7 levels); all
 *                       meet at the root, each rival weighing its own
 *                       weight as a plain task and 1024 in a group.
 *                       Needs the test in the root task group (and, with
 *                       autogroups on, in no autogroup of its own), as
 *                       in a test guest: else a SKIP;
 *   event      none;
 *              nice-flip:   rival 1 alternates nice 19 and nice 0 (light
 *                           first), every 300 ms;
 *              policy-flip: rival 1 alternates SCHED_IDLE and
 *                           SCHED_OTHER, at nice 0 (light first);
 *              weight-flip: cpu.weight of the rivals' group where it
 *                           competes with the yielder's (rivals/, job_2)
 *                           alternates 1 and 100, every 300 ms;
 *              idle-flip:   cpu.idle of that group alternates 1 and 0;
 *              sleep-wake:  rival 1 runs 20 ms and sleeps 20 ms, by its
 *                           own clock (absolute times from the start);
 *              long-slice:  rival 1, always nice19, has a custom slice
 *                           of 100 ms (sched_setattr() sched_runtime;
 *                           6.12 and later, a SKIP before): each of its
 *                           turns keeps the CPU up to 100 ms at either
 *                           knob value, and 68 times that in its
 *                           vruntime leaves the others with more
 *                           positive lag than a turn of each rival
 *                           until it is eligible again (a rival of
 *                           nice 0 or heavier takes its turns alike at
 *                           either knob value, and runs the others'
 *                           lag off sooner);
 *              migrate:     the yielder switches its own affinity between
 *                           the measured CPU and a second one every
 *                           300 ms; the rivals run on both CPUs (a copy of
 *                           each on each), so that it meets the same
 *                           rivals wherever it is; their loop counts and
 *                           CPU times count once per CPU (shares are of
 *                           one CPU's worth);
 *              sibling:     the G4 family: a SCHED_IDLE spinner in the
 *                           yielder's own group beside it (session: its
 *                           autogroup, the yielder forks it), a nice-0 hog
 *                           in the other group (not in the same
 *                           placement, where the yielder's group is the
 *                           rivals').
 *   The main process writes the flips of nice, policy, cpu.weight and
 *   cpu.idle, off the measured CPU where there is another; the group
 *   events exist in the cgroup and nested placements only, the entity
 *   placement has no event (none).
 *
 * Cells are generated, never listed, in a fixed order (placement, event,
 * rival list). The full product (-F, or SCY_MATRIX=full): every placement
 * x every event it allows x every rival list (the multisets of 1 to 3
 * weights; with rival 1 singled out for sleep-wake; rival 1 nice19 for
 * nice-flip and long-slice, idle for policy-flip), and in the entity
 * placement every list of 1 or 2 rivals, each a weight at a place, beside
 * the yielder at each place, autogroups on and off: 2353 cells. The
 * default set covers it:
 * per placement x event pair, rival lists picked greedily from the full
 * product's, in their order, until every weight has been beside the pair
 * (3-wise coverage of placement, event and weight); each pick is the list
 * that adds most of the uncovered triples, then of the uncovered pairs
 * (rival count with placement, event and weight; event with the weight of
 * rival 1), the earlier (shorter) list on a tie. The G4 family: one cell
 * per placement. The entity placement: per yielder's place, the lists
 * that bring most rival weights at a place not yet beside it (then a pair
 * of places not yet side by side), until all were; autogroups off, only
 * those with a session (a plain task then); autogroups on, also one rival
 * alone, SCHED_IDLE in a group of its own; 50 cells.  Migrations under
 * QEMU's single-threaded TCG (and -icount): with the yielder migrating
 * both vCPUs are busy, and they take turns on one host thread, up to 100
 * ms each (QEMU's round-robin kick period); a sample that spans the other
 * vCPU's turn grows by it, as one under plain TCG grows by a stall of its
 * own vCPU: a watcher per CPU takes both out as far as it sees them (see
 * Host stalls), so that their time is judged on bare metal only: make
 * check runs the migrate cells in its guests of plain TCG with -U (the
 * loop-counter shares) and all the others in its one-CPU guests under
 * -icount, where time is judged.  -l lists the cells with their index,
 * -n INDEX runs one, -c REGEX (POSIX extended, matched against "INDEX
 * PLACEMENT rivals=... event=...", the entity cells' "INDEX entity
 * autogroup=on|off yielder=PLACE rivals=WEIGHT@PLACE,... event=none") the
 * ones it matches; indices are those of the set in use (default or -F).
 *
 * Windows: each cell runs a window at knob 0 and one at knob 1, with its
 * event, in the same process (the knob-0 window of a flip event lasts three
 * times as long: a flip can make the stock scheduler keep the yielder away
 * for long at either knob value, and knob 0's figures are part of the
 * limits); a sibling cell also needs its topology without the sibling at
 * knob 1 (G4), measured once per topology and shared.  Every window sets
 * its groups up afresh, so that no scheduler state carries over.  A window
 * lasts -d SECONDS (default 0.6, 0.3 to 30) after a warm-up of a third of
 * that, at most 0.2 s.  Per window: yields, time away per yield
 * p50/p99/max, each task's CPU share (/proc/PID/schedstat), the
 * yielder's loop-counter share, the yields during which no rival ran.
 *
 * Verdict per cell, one TAP line per sub-check (a SKIP, with the reason,
 * where it is not judged):
 *   - time: the knob-1 p50, p99 and max against limits computed from the
 *     contract's bound for the cell's parameters (contract.h: the level
 *     where the yielder yields, the rivals' weights and number there, the
 *     kernel's slices and tick, the event's own term), each the larger of
 *     that bound and the same statistic of the cell's knob-0 window; never
 *     from a knob-1 window.  The line prints the bound and what it is made
 *     of;
 *   - G1: where a rival of at least the yielder's weight is runnable all
 *     the time at the level where it yields (not sibling, whose SCHED_IDLE
 *     sibling takes the yielder's request in microseconds, long-slice, or
 *     migrate, whose copies on the other CPU run anyway; on EEVDF not
 *     where a rival wakes at that level: placed with its negative lag,
 *     inflated, it moves V_r past the yielder by more than a turn of each
 *     rival): no knob-1 yield returns before another task ran (the
 *     yielder's involuntary context switches, getrusage(), unchanged
 *     across the yield: "at once"); not with -S or -U, where a stall
 *     charged to a rival leaves the yielder more lag than a turn;
 *   - shares: where a rival of at least the yielder's weight is runnable
 *     all the time at the level where they compete (in the same placement
 *     a rival of nice0 or nice-10 that neither flips nor sleeps; in the
 *     others the rivals' group, unless its cpu.weight or cpu.idle flips,
 *     or its only rival sleeps): the yielder's loop-counter share at knob
 *     1 <= 0.5%, and its CPU share at knob 1 <= its CPU share at knob 0 +
 *     1 point (contract.h says why a point; not in the migrate cells,
 *     whose two CPUs may take turns on one host thread, a CPU's turn
 *     charged as run time to the task on the other: the loop share alone);
 *   - G4 (sibling cells): the yielder's CPU share at knob 1 with the
 *     sibling <= 2 x its share without it + 1 point;
 *   - a window at knob 1 without a single yield fails its time line.
 * A cell is measured once.  A -c filter that matches no cell is an error.
 *
 * Where time is judged: guest time must be the guest's own (bare metal,
 * QEMU -icount).  With -U (a guest whose host can stop it: QEMU without
 * -icount, KVM) a stall moves the time away, G1 (a stall is charged to
 * the task that ran through it, which leaves the others more lag than a
 * turn) and the CPU shares: they are reported and SKIP; the loop-counter
 * share, which a stall shorter than the window leaves far below its
 * limit, is judged (a SKIP after a stall as long as the window: charged
 * to a rival, it leaves the yielder lag that it runs off in yields that
 * return at once).  With -S the time away is judged net of the stalls,
 * and G1, the CPU shares and G4 SKIP alike, the loop share as with -U.
 * The bound needs the scheduler's slices from /sys/kernel/debug/sched;
 * without them time is not judged either, and says so.
 *
 * Host stalls: under QEMU TCG a guest that the host does not run for a
 * while sees the time jump; a sample across it grows by the stall.  With
 * -S or -U the main process, SCHED_FIFO on another CPU (its workers start
 * as SCHED_OTHER), wakes every 5 ms during a window; the latest of these
 * wake-ups is the window's "stall".  With -S (a guest whose vCPUs stall
 * together: QEMU's single-threaded TCG) a wake-up late by more than 1 ms
 * marks a stall of the whole guest, from when it was due to when it came;
 * every sample loses the stall time it spans before the window's figures
 * are taken (the TAP line names the knob-1 max as measured and the time
 * taken out).  A stall that falls while the yielder runs is charged to it
 * as run time, and a yield waits while its rivals catch up: that sample
 * spans no stall.  The yielder reads its run time after each yield; a
 * sample of an iteration that ran over 1 ms, and the next one, are left
 * out (the window's line counts them).  -S cannot tell a
 * stall of the whole guest from a late timer of the main process's vCPU
 * alone: QEMU's main-loop thread delivers that timer, and where the host
 * delays that thread while the vCPU thread runs, -S takes genuine wait out
 * (a host that runs QEMU above its other load, at a lower nice value,
 * delays it less).  Not in the migrate cells: both vCPUs are busy there,
 * and a late wake-up of the main process can be the other vCPU's turn on
 * the host thread they share, while the measured one ran.  There a watcher
 * per CPU (a thread of the main process pinned to it, SCHED_FIFO and
 * waking every 5 ms alike) sees that CPU's own stalls (the host did not
 * run that vCPU, or the other vCPU had its turn, as under -icount), and
 * every sample loses the stall time it spans on the CPU it ran on (the
 * charged ones are left out), in any mode; the bound of the migrate
 * cells counts a watcher period of each such turn, which a watcher sees
 * only from its first late wake-up.
 * Without -S or -U there are no probes: on a one-CPU guest each would be a
 * scheduling point between the ticks the bound counts.
 *
 * SKIP (with the reason): no /sys/kernel/sched_compat_yield, not root,
 * no autogroups (session), no cgroup2 cpu controller (cgroup, nested), no
 * cpu.idle (idle-flip), a single CPU (migrate).  A setup step that fails
 * as root where the feature exists is a failure.  The knob, the autogroup
 * setting and the groups are restored at exit, also on SIGINT, SIGTERM,
 * SIGHUP.  -o FILE writes every window as CSV; -D FILE every window's
 * samples of time away (tests/tick-excess.py reads them); -M FILE exists
 * while a knob-1 window measures, for a host that measures alongside.
 *
 * -O, the opt-in form: the knob-1 windows keep the machine's switch at 0
 * and set cpu.compat_yield of the yielder's job group to 1 (the cgroup
 * placement's yielder group, the nested one's job_1), whose rivals'
 * group competes beside it: the rule and the bound are the knob's, and
 * every sub-check is judged as at knob 1.  The other placements SKIP:
 * there the rivals are not beside a group of the yielder's own, or are
 * above it, where a group's switch keeps the stock yield (G5).
 *
 * -R, the rivals' group opted in: the knob-1 windows keep the switch at 0
 * and set cpu.compat_yield of the rivals' group (cgroup: rivals, nested:
 * job_2) to 1.  With -O as well both groups are at 1, judged as at knob 1.
 * Alone, the yielder is outside every group at 1 beside one that is, and
 * G5 judges it against its knob-0 window (ct_judge_outside()): time away
 * within a tick of knob 0's, as many yields that return at once, at least
 * half its loop share.  The cgroup and nested cells only, as -O.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
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
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "contract.h"
#include "place.h"
#include "share.h"

#define NSEC_PER_SEC		1000000000ULL
#define NSEC_PER_MSEC		1000000ULL

#define FLIP_NS			(300 * NSEC_PER_MSEC)
#define MIGRATE_NS		(300 * NSEC_PER_MSEC)
#define SLEEPER_RUN_NS		(20 * NSEC_PER_MSEC)
#define SLEEPER_PERIOD_NS	(40 * NSEC_PER_MSEC)
/* the main process (and the migrate cells' watchers) wake this often */
#define PROBE_NS		CT_WATCH_NS
/* a wake-up of the main process this late: the guest did not run */
#define STALL_MIN_NS		NSEC_PER_MSEC
/* guest stalls kept per window, to take them out of the samples */
#define MAX_STALLS		4096

#define DURATION_DEFAULT	0.6
#define DURATION_MIN		0.3
#define DURATION_MAX		30.0
#define WARMUP_MAX_NS		(200 * NSEC_PER_MSEC)
/* samples kept per window; more yields are counted, not kept */
#define MAX_SAMPLES		(2U * 1024 * 1024)
/* once the rivals are gone the yielder only has to return */
#define FINISH_TIMEOUT_S	10
#define CACHELINE		64
#define ERRLEN			(256 + PATH_MAX)

#define NO_KNOB_REASON \
	"kernel has no " SCY_KNOB_SYSFS \
	" (CONFIG_SCHED_COMPAT_YIELD unset or unpatched kernel)"

/* The groups of the cgroup and nested placements: yielder's, rivals' */
static const char * const cg_flat[] = { "yielder", "rivals" };
#define NESTED_PREFIX	"system.slice/slurmstepd.scope/"
static const char * const cg_nested[] = {
	NESTED_PREFIX "job_1/step_0/user/task_0",
	NESTED_PREFIX "job_2/step_0/user/task_0",
};

/* where the rivals' group competes with the yielder's */
static const char * const cg_compete[NR_PL] = {
	[PL_CGROUP] = "rivals",
	[PL_NESTED] = NESTED_PREFIX "job_2",
};

#define LEAF_YIELDER	0
#define LEAF_RIVALS	1

/*
 * The entity placement: each task of a group of its own (cgroup, nested)
 * gets a tree that starts at the cgroup2 root, beside the root's plain
 * tasks: "<base>-y" for the yielder, "<base>-rN" for rival N, and in the
 * nested trees below that the path of a Slurm job's task.
 */
static char ent_path[1 + CT_MAX_RIVALS][192];
static const char *ent_leaves[1 + CT_MAX_RIVALS];
/* entity 0 the yielder, 1 + i rival i: its leaf, or SCY_NO_LEAF */
static int ent_leaf[1 + CT_MAX_RIVALS];

/* ------------------------------------------------------------------ */
/* workers and their shared page */

enum {
	SLOT_YIELDER,
	SLOT_SPAWNER,		/* forks the rivals, after setsid() in session */
	SLOT_RIVAL,		/* rivals on the measured CPU ... */
	SLOT_REPLICA = SLOT_RIVAL + CT_MAX_RIVALS,	/* ... their copies (migrate) */
	SLOT_SIBLING = SLOT_REPLICA + CT_MAX_RIVALS,
	NR_SLOTS,
};

static const char * const slot_names[NR_SLOTS] = {
	"yielder", "spawner", "rival 1", "rival 2", "rival 3",
	"rival 1 (2nd CPU)", "rival 2 (2nd CPU)", "rival 3 (2nd CPU)",
	"sibling",
};

struct slot {
	alignas(CACHELINE) __u64 counter;
};

struct win_shared {
	alignas(CACHELINE) int go;
	int done;		/* the yielder wrote its results */
	int stop;		/* the parent ends the window */
	int full;		/* samples ran out (yields still counted) */
	int migrate_err;	/* errno of a failed affinity switch */
	__u64 go_ns;		/* origin of the events' clocks */
	__u64 start_ns;		/* the measured part */
	__u64 end_ns;
	__u64 n;		/* samples kept */
	__u64 nyields;		/* yields that started in the window */
	__u64 at_once;		/* of them: no context switch (no task ran) */
	__u64 once_at;		/* when the first of those started */
	__u64 max;		/* longest of them */
	__u64 max_at;		/* when it started, from start_ns */
	__u64 migrations;
	pid_t pid[NR_SLOTS];	/* of the rivals and the sibling */
	struct slot slot[NR_SLOTS];
	/*
	 * time away per yield; [MAX_SAMPLES + i]: when sample i started,
	 * with SAMPLE_ON_B set where the yielder was on the second CPU and
	 * SAMPLE_CHARGED where it may pay back run time it was charged
	 * beyond its own (see yielder_run())
	 */
	__u64 sample[];
};

#define SAMPLE_ON_B	0x8000000000000000ULL	/* bit 63 */
#define SAMPLE_CHARGED	0x4000000000000000ULL	/* bit 62 */
#define SAMPLE_FLAGS	(SAMPLE_ON_B | SAMPLE_CHARGED)

#define WIN_SHARED_SIZE	(sizeof(struct win_shared) + \
			 2 * MAX_SAMPLES * sizeof(__u64))

/* What a window is, and what it measured */
struct win {
	const char *kind;	/* "k0", "k1", "base" */
	enum ct_event ev;
	int knob;
	int status;		/* SCY_OK, SCY_EUNSUPPORTED, SCY_EFAIL */
	char err[ERRLEN];
	/* time away per yield, net of the guest's stalls */
	__u64 nyields, p50, p99, max, max_at;
	__u64 at_once;			/* yields during which no task ran */
	__u64 once_at;			/* the first of them, from the start */
	__u64 max_raw;			/* longest sample as measured */
	__u64 stalled;			/* stall time taken out of samples */
	__u64 repaid;			/* samples left out: see net_of_stalls() */
	__u64 n;			/* samples kept */
	bool cut, full;
	double wall_s;
	int flips;
	__u64 migrations;
	double loop_share, cpu_share;
	double busy;			/* workers' CPU time / window x CPUs */
	__u64 stall;			/* latest wake-up of the main process */
	double task_cpu[NR_SLOTS];	/* -1: no such task */
	int cpu_source;			/* 0 schedstat, 1 stat */
};

/* ------------------------------------------------------------------ */
/* options and process state */

static double opt_duration = DURATION_DEFAULT;
static bool opt_net;
static bool opt_untimed;
/* -M: a file that exists while a knob-1 window measures */
static const char *opt_mark;
/* -O: the knob-1 windows opt the yielder's job in, the switch stays 0 */
static bool opt_optin;
static bool opt_rivals_in;
static int opt_cpu = -1;
static FILE *csv;
/* -D: every window's samples, for a look at their spread */
static FILE *dump;
static __u64 tick_ns;
static int cpu_a = -1, cpu_b = -1;	/* measured CPU, second CPU */
static char cg_base[64];

/* the kernel's parameters the contract's bound reads */
static struct ct_sched sched;
/* why time is not judged here, or NULL */
static const char *untimed;
static char untimed_buf[256];

static pid_t main_pid;
static int init_knob = -1;
static sig_atomic_t knob_changed;

static int nr_windows;

/* the window in progress, for the signal handler */
static struct win_shared *cur_sh;
static pid_t wpid[NR_SLOTS];		/* the main process's children */

/* ------------------------------------------------------------------ */
/* small helpers */

static void sleep_until(__u64 t)
{
	struct timespec ts = scy_ns_to_ts(t);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static void wait_go(struct win_shared *sh)
{
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		scy_futex_wait(&sh->go, 0, NULL);
}

/* The highest-numbered CPU we may run on, or -1 */
static int default_cpu(const cpu_set_t *set)
{
	int cpu;

	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return -1;
}

/* ------------------------------------------------------------------ */
/* cleanup: workers, placement, knob */

/*
 * Async-signal-safe: SIGKILL the workers of the window and reap them.  The
 * main process is a child subreaper: rivals whose spawner died before it
 * reaped them are its children then, and it reaps until it has none left,
 * so that no worker is left in a group it removes.
 */
static void kill_workers(void)
{
	struct win_shared *sh = READ_ONCE(cur_sh);
	int i, status;

	if (sh) {
		for (i = SLOT_RIVAL; i < NR_SLOTS; i++) {
			pid_t pid = READ_ONCE(sh->pid[i]);

			if (pid > 0)
				kill(pid, SIGKILL);
		}
	}
	for (i = 0; i < NR_SLOTS; i++)
		if (wpid[i] > 0)
			kill(wpid[i], SIGKILL);
	while (waitpid(-1, &status, 0) > 0 || errno == EINTR)
		;
	for (i = 0; i < NR_SLOTS; i++)
		wpid[i] = 0;
}

static void kill_slot(int i)
{
	struct win_shared *sh = READ_ONCE(cur_sh);
	pid_t pid = sh ? READ_ONCE(sh->pid[i]) : 0;

	if (pid > 0)
		kill(pid, SIGKILL);
}

static void restore_knob(void)
{
	if (getpid() != main_pid)
		return;
	if (READ_ONCE(knob_changed) && init_knob >= 0 &&
	    scy_knob_read() != init_knob)
		scy_knob_write(init_knob);
}

static void on_signal(int sig)
{
	if (getpid() == main_pid) {
		kill_workers();
		scy_place_cleanup();
		restore_knob();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ------------------------------------------------------------------ */
/* the workers */

/*
 * The calling thread's involuntary context switches so far: a yield that
 * handed the CPU to another task adds one, a yield that returned at once
 * none.
 */
static long nivcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nivcsw;
}

/* The calling thread's run time so far, ns */
static __u64 thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * The yielder.  Where its samples are taken net of stalls (-S, migrate),
 * it also reads its run time after each yield: a stall of its CPU that
 * fell while it ran (in its loop, or in the yield before it left the CPU)
 * is charged to it as run time, and the wait that pays that back, while
 * its rivals catch up, spans no stall.  An iteration that ran more than
 * STALL_MIN_NS (its loop runs microseconds) marks its sample and the next
 * one SAMPLE_CHARGED, the next one too because a stall after the yield
 * returned, before the reading, is paid back by the next yield.
 */
static noreturn void yielder_run(struct win_shared *sh, bool migrate)
{
	__u64 ty, t1, d, count = 0, n = 0, ny = 0, dmx = 0, mig = 0, at = 0;
	__u64 first_once = 0, ran = 0, ran1, charged = 0;
	__u64 next_mig = UINT64_MAX, once = 0;
	bool charges = opt_net || migrate;
	long sw, sw1;
	cpu_set_t set;
	int cur = 0;

	wait_go(sh);
	if (migrate)
		next_mig = sh->go_ns + MIGRATE_NS;
	sw = nivcsw();
	if (charges)
		ran = thread_cpu_ns();
	for (;;) {
		ty = scy_now_ns();
		sched_yield();
		t1 = scy_now_ns();
		if (charges) {
			ran1 = thread_cpu_ns();
			charged = (charged & 1) << 1 |
				  (ran1 - ran > STALL_MIN_NS);
			ran = ran1;
		}
		sw1 = nivcsw();
		__atomic_store_n(&sh->slot[SLOT_YIELDER].counter, ++count,
				 __ATOMIC_RELAXED);
		if (ty >= sh->start_ns && ty < sh->end_ns) {
			d = t1 - ty;
			ny++;
			if (sw1 == sw && !once++)
				first_once = ty - sh->start_ns;
			if (d > dmx) {
				dmx = d;
				at = ty - sh->start_ns;
			}
			if (n < MAX_SAMPLES) {
				sh->sample[MAX_SAMPLES + n] = (ty - sh->start_ns) |
					(cur ? SAMPLE_ON_B : 0) |
					(charged ? SAMPLE_CHARGED : 0);
				sh->sample[n++] = d;
			} else {
				sh->full = 1;
			}
		}
		sw = sw1;
		if (READ_ONCE(sh->stop))
			break;
		if (t1 >= next_mig) {
			cur ^= 1;
			CPU_ZERO(&set);
			CPU_SET(cur ? cpu_b : cpu_a, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				sh->migrate_err = errno;
			else
				mig++;
			while (next_mig <= t1)
				next_mig += MIGRATE_NS;
		}
	}
	sh->n = n;
	sh->nyields = ny;
	sh->at_once = once;
	sh->once_at = first_once;
	sh->max = dmx;
	sh->max_at = at;
	sh->migrations = mig;
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	scy_futex_wake(&sh->done, 1);
	for (;;)
		pause();
}

static noreturn void spinner_run(struct win_shared *sh, int slot)
{
	__u64 count = 0;

	wait_go(sh);
	for (;;) {
		__atomic_store_n(&sh->slot[slot].counter, ++count,
				 __ATOMIC_RELAXED);
		getppid();
	}
}

/* Runs SLEEPER_RUN_NS of every SLEEPER_PERIOD_NS, by its own clock */
static noreturn void sleeper_run(struct win_shared *sh, int slot)
{
	__u64 count = 0, go, now, ph;

	wait_go(sh);
	go = sh->go_ns;
	for (;;) {
		__atomic_store_n(&sh->slot[slot].counter, ++count,
				 __ATOMIC_RELAXED);
		getppid();
		now = scy_now_ns();
		ph = (now - go) % SLEEPER_PERIOD_NS;
		if (ph >= SLEEPER_RUN_NS)
			sleep_until(now - ph + SLEEPER_PERIOD_NS);
	}
}

/*
 * The yielder's setup; in the session placement with a sibling, it forks
 * the sibling after setsid(), so that they share its autogroup.
 */
static noreturn void yielder_start(const struct ct_cell *c, enum ct_event ev,
				   struct win_shared *sh, int ready_fd,
				   pid_t parent, const struct scy_worker_spec *ws)
{
	struct scy_worker_spec sib = {
		.cpu = cpu_a, .set_policy = true, .policy = SCHED_IDLE,
		.leaf = SCY_NO_LEAF,
	};
	bool fork_sibling = ev == EV_SIBLING && c->t.pl == PL_SESSION;
	int rfd = fork_sibling ? dup(ready_fd) : -1;
	pid_t self, pid;

	scy_worker_setup(ready_fd, SLOT_YIELDER, parent, ws);
	if (fork_sibling) {
		self = getpid();
		pid = fork();
		if (pid < 0)
			_exit(1);
		if (!pid) {
			WRITE_ONCE(sh->pid[SLOT_SIBLING], getpid());
			scy_worker_setup(rfd, SLOT_SIBLING, self, &sib);
			spinner_run(sh, SLOT_SIBLING);
		}
		WRITE_ONCE(sh->pid[SLOT_SIBLING], pid);
		close(rfd);
	}
	yielder_run(sh, ev == EV_MIGRATE);
}

static void rival_spec(const struct ct_cell *c, enum ct_event ev, int i, int cpu,
		       struct scy_worker_spec *ws)
{
	enum ct_weight w = c->t.w[i];

	memset(ws, 0, sizeof(*ws));
	ws->cpu = cpu;
	ws->set_policy = true;
	ws->policy = w == W_IDLE ? SCHED_IDLE : SCHED_OTHER;
	ws->nice = ct_w_nice[w];
	/* the flipping rival starts light, at nice 19 */
	if (ev == EV_NICE && i == 0) {
		ws->policy = SCHED_OTHER;
		ws->nice = 19;
	}
	/* the policy-flipping one starts light, SCHED_IDLE at nice 0 */
	if (ev == EV_POLICY && i == 0) {
		ws->policy = SCHED_IDLE;
		ws->nice = 0;
	}
	if (ev == EV_SLICE && i == 0)
		ws->slice_ns = CT_LONG_SLICE_NS;
	ws->leaf = c->t.pl == PL_CGROUP || c->t.pl == PL_NESTED ?
		   LEAF_RIVALS : SCY_NO_LEAF;
	if (c->t.pl == PL_ENTITY) {
		ws->leaf = ent_leaf[1 + i];
		ws->setsid = c->t.re[i] == E_SESSION;
	}
}

/*
 * The spawner: takes the rivals' session (session placement), forks the
 * rivals, reaps them and exits when they are gone.  The rivals die with
 * it (PR_SET_PDEATHSIG), it dies with the main process.
 */
static noreturn void spawner_run(const struct ct_cell *c, enum ct_event ev,
				 struct win_shared *sh, int ready_fd,
				 pid_t parent, int away_cpu)
{
	struct scy_worker_spec ws = {
		.cpu = away_cpu >= 0 ? away_cpu : cpu_a,
		.setsid = c->t.pl == PL_SESSION,
		.leaf = SCY_NO_LEAF,
	};
	int rfd, i, rep, nrep = ev == EV_MIGRATE ? 2 : 1, status;
	pid_t self, pid;

	rfd = dup(ready_fd);
	scy_worker_setup(ready_fd, SLOT_SPAWNER, parent, &ws);
	self = getpid();
	for (rep = 0; rep < nrep; rep++) {
		for (i = 0; i < c->t.nr; i++) {
			int slot = (rep ? SLOT_REPLICA : SLOT_RIVAL) + i;
			struct scy_worker_spec rs;

			rival_spec(c, ev, i, rep ? cpu_b : cpu_a, &rs);
			pid = fork();
			if (pid < 0)
				_exit(1);
			if (!pid) {
				WRITE_ONCE(sh->pid[slot], getpid());
				scy_worker_setup(rfd, slot, self, &rs);
				if (ev == EV_SLEEP && i == 0)
					sleeper_run(sh, slot);
				spinner_run(sh, slot);
			}
			WRITE_ONCE(sh->pid[slot], pid);
		}
	}
	close(rfd);
	for (;;) {
		pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			_exit(0);
		}
		for (i = SLOT_RIVAL; i < SLOT_SIBLING; i++)
			if (READ_ONCE(sh->pid[i]) == pid)
				WRITE_ONCE(sh->pid[i], 0);
	}
}

/* ------------------------------------------------------------------ */
/* CPU time */

struct snap {
	__u64 counter[NR_SLOTS];
	__u64 cpu[NR_SLOTS];
};

static int snapshot(struct win_shared *sh, const pid_t *pid, int src,
		    struct snap *s)
{
	int i;

	for (i = 0; i < NR_SLOTS; i++)
		s->counter[i] = __atomic_load_n(&sh->slot[i].counter,
						__ATOMIC_RELAXED);
	for (i = 0; i < NR_SLOTS; i++) {
		s->cpu[i] = 0;
		if (pid[i] <= 0 || i == SLOT_SPAWNER)
			continue;
		if (scy_cpu_time(src ? SCY_CPU_STAT : SCY_CPU_SCHEDSTAT,
				 pid[i], &s->cpu[i]))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* one window */

static bool wait_done(struct win_shared *sh, __u64 deadline)
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

/*
 * The autogroup of @pid into @buf: its name, or "root" for a task in the
 * root task group (init's session), whose file is empty.  0, or -1.
 */
static int autogroup_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	n = scy_read_file(path, buf, len);
	if (n < 0)
		return -1;
	buf[strcspn(buf, "\n ")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "root");
	return 0;
}

/* The group where the rivals compete with the yielder: write @val to @file */
static int compete_write(const struct ct_cell *c, const char *file,
			 const char *val)
{
	char path[PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/%s/%s", scy_cgroup_dir(-1),
		 cg_compete[c->t.pl], file);
	return scy_write_str(path, val);
}

static bool compete_has(const struct ct_cell *c, const char *file)
{
	char path[PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/%s/%s", scy_cgroup_dir(-1),
		 cg_compete[c->t.pl], file);
	return !access(path, F_OK);
}

/* Set the flipping thing light (@heavy false) or heavy; 0 or an errno */
static int flip(const struct ct_cell *c, enum ct_event ev, struct win_shared *sh,
		bool heavy)
{
	switch (ev) {
	case EV_NICE:
		if (setpriority(PRIO_PROCESS, READ_ONCE(sh->pid[SLOT_RIVAL]),
				heavy ? 0 : 19))
			return errno;
		return 0;
	case EV_POLICY: {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(READ_ONCE(sh->pid[SLOT_RIVAL]),
				       heavy ? SCHED_OTHER : SCHED_IDLE, &sp))
			return errno;
		return 0;
	}
	case EV_WEIGHT:
		return compete_write(c, "cpu.weight", heavy ? "100" : "1");
	case EV_IDLE:
		return compete_write(c, "cpu.idle", heavy ? "0" : "1");
	default:
		return 0;
	}
}

/*
 * The placements whose rivals are plain tasks of the test's group beside
 * groups below the cgroup2 root (cgroup-root, entity) need that group to be
 * the root: where the test runs in a cgroup below it, turning the cpu
 * controller on at the root would make that cgroup a task group of its
 * own, and the test's plain tasks its members.  SCY_OK or SCY_EUNSUPPORTED
 * with the reason.
 */
static int root_only(char *err, size_t errlen)
{
	char why[PATH_MAX + 128], self[PATH_MAX];

	if (!scy_in_root_task_group(why, sizeof(why))) {
		snprintf(err, errlen,
			 "the test's tasks are not in the root task group (%s): the groups would not meet them at one level",
			 why);
		return SCY_EUNSUPPORTED;
	}
	if (!scy_cgroup2_self(self, sizeof(self)) && strcmp(self, "/")) {
		snprintf(err, errlen,
			 "the test runs in cgroup %s, not the cgroup2 root: with the cpu controller on at the root its plain tasks would be in that group",
			 self);
		return SCY_EUNSUPPORTED;
	}
	return SCY_OK;
}

/*
 * The entity placement of @c: autogroups on or off as it says, and a tree
 * of groups for each task placed in a cgroup or a job's tree, each from
 * the root, where the test's plain tasks are; so that every task's entity
 * competes at the root.  SKIP where the test does not run in the root
 * task group, or (autogroups on) runs in an autogroup of its own session.
 */
static int entity_setup(const struct ct_cell *c, char *err, size_t errlen)
{
	char mine[64];
	int e, i, nr = 0;

	e = root_only(err, errlen);
	if (e)
		return e;
	e = scy_autogroup_set(c->t.ag, err, errlen);
	/* no autogroups at all: as good as off */
	if (e == SCY_EUNSUPPORTED && !c->t.ag &&
	    access(SCY_AUTOGROUP_SYSCTL, F_OK))
		e = SCY_OK;
	if (e)
		return e;
	if (c->t.ag && (autogroup_of(getpid(), mine, sizeof(mine)) ||
			strcmp(mine, "root"))) {
		snprintf(err, errlen,
			 "the test runs in an autogroup of its own session (%s): its plain tasks would be in it",
			 mine);
		return SCY_EUNSUPPORTED;
	}
	for (i = 0; i <= c->t.nr; i++) {
		enum ct_ent pe = i ? c->t.re[i - 1] : c->t.ye;
		char name[16];

		ent_leaf[i] = SCY_NO_LEAF;
		if (pe != E_CGROUP && pe != E_NESTED)
			continue;
		if (i)
			snprintf(name, sizeof(name), "r%d", i);
		else
			snprintf(name, sizeof(name), "y");
		if (pe == E_NESTED)
			snprintf(ent_path[i], sizeof(ent_path[i]),
				 "%s-%s/" NESTED_PREFIX "job_%d/step_0/user/task_0",
				 cg_base, name, i + 1);
		else
			snprintf(ent_path[i], sizeof(ent_path[i]), "%s-%s",
				 cg_base, name);
		ent_leaves[nr] = ent_path[i];
		ent_leaf[i] = nr++;
	}
	if (!nr)
		return SCY_OK;
	return scy_cgroup_setup("", ent_leaves, nr, err, errlen);
}

/*
 * The entity placement as the tasks see it (@pid: the window's, by slot).
 * Autogroups on: every task outside a cgroup in the root task group's
 * autogroup, but a session one, which is in an autogroup none of the
 * others is in.  Off: the sysctl still 0 (a task keeps the autogroup of
 * its session, /proc/PID/autogroup names it, but runs in the root task
 * group).  0, or -1 with what differs in @err.
 */
static int entity_check(const struct ct_cell *c, const pid_t *pid, char *err,
			size_t errlen)
{
	char ag[1 + CT_MAX_RIVALS][64];
	int i, j, v;

	if (!c->t.ag) {
		v = scy_read_01(SCY_AUTOGROUP_SYSCTL);
		if (v > 0) {
			snprintf(err, errlen, "%s reads 1, not 0",
				 SCY_AUTOGROUP_SYSCTL);
			return -1;
		}
		if (v < 0 && errno != ENOENT) {
			snprintf(err, errlen, "cannot read %s: %s",
				 SCY_AUTOGROUP_SYSCTL, strerror(errno));
			return -1;
		}
		return 0;
	}
	for (i = 0; i <= c->t.nr; i++) {
		enum ct_ent pe = i ? c->t.re[i - 1] : c->t.ye;
		pid_t p = pid[i ? SLOT_RIVAL + i - 1 : SLOT_YIELDER];
		bool own = pe == E_SESSION;

		if (pe == E_CGROUP || pe == E_NESTED) {
			ag[i][0] = '\0';
			continue;
		}
		if (autogroup_of(p, ag[i], sizeof(ag[i]))) {
			snprintf(err, errlen, "cannot read /proc/%d/autogroup",
				 (int)p);
			return -1;
		}
		for (j = 0; j < i && own; j++)
			if (!strcmp(ag[i], ag[j]))
				break;
		if (own ? !strcmp(ag[i], "root") || j < i :
			  strcmp(ag[i], "root")) {
			snprintf(err, errlen,
				 "%s placed as %s, autogroups on: in autogroup %s",
				 i ? slot_names[SLOT_RIVAL + i - 1] : "yielder",
				 ct_e_names[pe], ag[i]);
			return -1;
		}
	}
	return 0;
}

/*
 * Set up the placement of @c for a window with event @ev.  SCY_OK; SCY_EUNSUPPORTED with the reason
 * (a SKIP); SCY_EFAIL (a failure).
 */
static int cell_setup(const struct ct_cell *c, enum ct_event ev, char *err,
		      size_t errlen)
{
	int ret;

	if (ev == EV_MIGRATE && cpu_b < 0) {
		snprintf(err, errlen,
			 "migrate needs a second CPU: only CPU %d is allowed",
			 cpu_a);
		return SCY_EUNSUPPORTED;
	}
	if (opt_optin && c->t.pl != PL_CGROUP && c->t.pl != PL_NESTED) {
		snprintf(err, errlen,
			 "-O: the yielder has no job cgroup beside its rivals' (a group at 1 whose rivals are above it keeps the stock yield, G5)");
		return SCY_EUNSUPPORTED;
	}
	if (opt_rivals_in && c->t.pl != PL_CGROUP && c->t.pl != PL_NESTED) {
		snprintf(err, errlen,
			 "-R: the rivals have no cgroup of their own beside the yielder's");
		return SCY_EUNSUPPORTED;
	}
	if (c->t.pl == PL_SESSION)
		return scy_autogroup_setup(err, errlen);
	if (c->t.pl == PL_SAME)
		return SCY_OK;
	if (c->t.pl == PL_ENTITY)
		return entity_setup(c, err, errlen);
	/* cgroup-root: the yielder's group alone, the rivals in ours */
	if (c->t.pl == PL_CROOT) {
		ret = root_only(err, errlen);
		if (ret)
			return ret;
	}
	ret = scy_cgroup_setup(cg_base, c->t.pl == PL_NESTED ? cg_nested :
			       cg_flat, c->t.pl == PL_CROOT ? 1 : 2, err,
			       errlen);
	if (ret)
		return ret;
	if (ev == EV_IDLE && !compete_has(c, "cpu.idle")) {
		snprintf(err, errlen,
			 "no cpu.idle in %s/%s (kernel older than 5.15?)",
			 scy_cgroup_dir(-1), cg_compete[c->t.pl]);
		return SCY_EUNSUPPORTED;
	}
	return SCY_OK;
}

/* Stalls, each [from, to], in time order and disjoint */
struct stalls {
	__u64 from[MAX_STALLS], to[MAX_STALLS];
	int n;
	bool lost;		/* more than MAX_STALLS: the later ones stay in */
};

/* the guest's stalls in the window running, as the main process saw them */
static struct stalls guest_stalls;

/*
 * A probe due at @due woke at @now: late by more than STALL_MIN_NS after
 * @start, the CPU it waited on did not run from @due on.
 */
static void stall_note(struct stalls *st, __u64 due, __u64 now, __u64 start)
{
	/* kept disjoint: a target can lie in the stall before */
	__u64 from = st->n && due < st->to[st->n - 1] ? st->to[st->n - 1] : due;

	if (now <= start || now - due <= STALL_MIN_NS || now <= from)
		return;
	if (st->n < MAX_STALLS) {
		st->from[st->n] = from;
		st->to[st->n++] = now;
	} else {
		st->lost = true;
	}
}

/*
 * migrate: a watcher per CPU, a thread of the main process pinned to it
 * (SCHED_FIFO as the main process), sees that CPU's own stalls the way
 * the main process sees the guest's: a vCPU the host did not run (plain
 * TCG), or the other vCPU's turn on the host thread they share
 * (single-threaded TCG, -icount), while the yielder waited on it.
 */
struct watcher {
	pthread_t thread;
	int cpu;
	__u64 go, start, end;
	struct stalls st;
	__u64 late;		/* its latest wake-up due in the window */
};

static struct watcher watchers[2];
static int nr_watchers, watch_stop;

static void *watch_run(void *arg)
{
	struct watcher *wt = arg;
	__u64 next = wt->go + PROBE_NS, now;

	while (!__atomic_load_n(&watch_stop, __ATOMIC_ACQUIRE)) {
		sleep_until(next);
		now = scy_now_ns();
		if (next >= wt->start && next <= wt->end &&
		    now - next > wt->late)
			wt->late = now - next;
		stall_note(&wt->st, next, now, wt->start);
		while (next <= now)
			next += PROBE_NS;
	}
	return NULL;
}

/* Stop and join the watchers started */
static void watchers_stop(void)
{
	int i;

	__atomic_store_n(&watch_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nr_watchers; i++)
		pthread_join(watchers[i].thread, NULL);
	nr_watchers = 0;
}

/*
 * Start a watcher on each of cpu_a and cpu_b for a window that starts at
 * @go, measured from @start to @end.  0 or an errno.
 */
static int watchers_start(__u64 go, __u64 start, __u64 end)
{
	struct sched_param sp;
	pthread_attr_t attr;
	cpu_set_t set;
	int i, e, policy;

	e = pthread_getschedparam(pthread_self(), &policy, &sp);
	if (e)
		return e;
	/* the main process's policy carries SCHED_RESET_ON_FORK */
	policy &= ~SCHED_RESET_ON_FORK;
	watch_stop = 0;
	for (i = 0; i < 2; i++) {
		struct watcher *wt = &watchers[i];

		wt->cpu = i ? cpu_b : cpu_a;
		wt->go = go;
		wt->start = start;
		wt->end = end;
		wt->st.n = 0;
		wt->st.lost = false;
		wt->late = 0;
		CPU_ZERO(&set);
		CPU_SET(wt->cpu, &set);
		e = pthread_attr_init(&attr);
		if (e)
			break;
		e = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (!e)
			e = pthread_attr_setinheritsched(&attr,
							 PTHREAD_EXPLICIT_SCHED);
		if (!e)
			e = pthread_attr_setschedpolicy(&attr, policy);
		if (!e)
			e = pthread_attr_setschedparam(&attr, &sp);
		if (!e)
			e = pthread_create(&wt->thread, &attr, watch_run, wt);
		pthread_attr_destroy(&attr);
		if (e)
			break;
		nr_watchers++;
	}
	if (e)
		watchers_stop();
	return e;
}

/*
 * The stall time of @sl in [@from, @to], and in *@nk the number of stalls
 * it falls in; *@j is the first stall that may reach @from, kept for the
 * next call (calls go forward in time).
 */
static __u64 stalls_in(const struct stalls *sl, int *j, __u64 from, __u64 to,
		       int *nk)
{
	__u64 sum = 0;
	int k;

	while (*j < sl->n && sl->to[*j] <= from)
		(*j)++;
	for (k = *j; k < sl->n && sl->from[k] < to; k++)
		sum += (sl->to[k] < to ? sl->to[k] : to) -
		       (sl->from[k] > from ? sl->from[k] : from);
	*nk = k - *j;
	return sum;
}

/*
 * Takes the stalls out of the samples of @sh, each sample those of the
 * CPU it ran on: @l[0] for cpu_a, @l[1] for cpu_b (-S: the guest's, both
 * alike; migrate: each CPU's own).  A sample that spans a stall
 * grew by it: the clock went on while the host did not run the vCPU.  A
 * stall is seen as a wake-up late by more than STALL_MIN_NS; [due, woken]
 * is part of the stall (it may have begun earlier), so a sample loses at
 * most the stall time it spans.  migrate (@per_turn CT_WATCH_NS): a stall
 * is the other vCPU's turn on the host thread they share, which may have
 * begun up to a watcher period before its watcher saw it, and that part
 * stays in the sample (in a two-CPU -icount guest a nested cell's samples
 * were 2.8 ms on average with no stall in them, 3.7 with one, 5.8 with
 * two, 9.9 with four); the contract's bound has one watcher period for it
 * (contract.c), so the longest sample is taken less a watcher period of
 * each further stall it spans, at most, where the median and p99, of
 * samples most of which span one stall or none, are not.  A stall that
 * fell while the yielder ran is charged to it, and the wait that pays it
 * back spans no stall to take out: the samples the yielder marked
 * SAMPLE_CHARGED are left out (counted in w->repaid).  Samples and the
 * stalls of a list are each in time order and disjoint.  Sets the longest
 * net sample in @w (all kept: the raw one otherwise); returns the time
 * taken out.
 */
static __u64 net_of_stalls(struct win_shared *sh, struct win *w,
			   const struct stalls *const l[2], __u64 per_turn)
{
	__u64 *at = sh->sample + MAX_SAMPLES;
	__u64 i, kept = 0, out = 0, mx = 0, mx_at = 0, v, more;
	int j[2] = { 0, 0 }, nk;

	w->repaid = 0;
	for (i = 0; i < sh->n; i++) {
		int c = !!(at[i] & SAMPLE_ON_B);
		__u64 a = sh->start_ns + (at[i] & ~SAMPLE_FLAGS);
		__u64 e = a + sh->sample[i], cut;

		if (at[i] & SAMPLE_CHARGED) {
			w->repaid++;
			continue;
		}
		cut = stalls_in(l[c], &j[c], a, e, &nk);
		sh->sample[kept] = sh->sample[i] - cut;
		at[kept] = at[i];
		out += cut;
		more = nk > 1 ? (__u64)(nk - 1) * per_turn : 0;
		v = sh->sample[kept] > more ? sh->sample[kept] - more : 0;
		if (v > mx) {
			mx = v;
			mx_at = at[kept] & ~SAMPLE_FLAGS;
		}
		kept++;
	}
	sh->n = kept;
	if (!sh->full) {
		w->max = mx;
		w->max_at = mx_at;
	}
	return out;
}

/*
 * -O: cpu.compat_yield of the yielder's job group (the cgroup placement's
 * "yielder", the nested one's job_1) to 1, the group at the level where
 * its rivals' group competes.  SCY_OK, or SCY_EUNSUPPORTED / SCY_EFAIL
 * with the reason.
 */
static int optin_yielder_job(const struct ct_cell *c, char *err,
			     size_t errlen)
{
	char path[PATH_MAX];
	int e;

	snprintf(path, sizeof(path), "%s/%s/%s", scy_cgroup_dir(-1),
		 c->t.pl == PL_NESTED ? NESTED_PREFIX "job_1" : "yielder",
		 SCY_GROUP_SWITCH);
	e = scy_write_str(path, "1");
	if (e) {
		snprintf(err, errlen, "cannot write 1 to %s: %s", path,
			 strerror(e));
		return e == ENOENT ? SCY_EUNSUPPORTED : SCY_EFAIL;
	}
	return SCY_OK;
}

/*
 * -M FILE: FILE exists while a knob-1 window measures, from its start to
 * its end, so that a host can measure what it did meanwhile (the stalls
 * stage: the part of the window QEMU ran).
 */
static void mark_window(bool on)
{
	int fd;

	if (!opt_mark)
		return;
	if (!on) {
		unlink(opt_mark);
		return;
	}
	fd = open(opt_mark, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

/*
 * One window of cell @c with event @ev (EV_NONE: the no-event window) at
 * knob @w->knob; the placement is set up.  Fills @w; returns w->status.
 */
static int run_window(const struct ct_cell *c, struct win *w)
{
	enum ct_event ev = w->ev;
	struct win_shared *sh;
	struct snap s0, s1;
	__u64 dur, warmup, go, next_flip, next_probe, target, t;
	__u64 ysum, osum, ycpu, ocpu;
	cpu_set_t orig;
	pid_t pid[NR_SLOTS] = { 0 };
	bool pinned = false, heavy = false, snapped = false;
	int pfd[2] = { -1, -1 };
	int nr_ready, i, e, away = -1, ncpu, knob;
	pid_t self = getpid();
	char *err = w->err;
	size_t errlen = sizeof(w->err);

	w->status = SCY_EFAIL;
	err[0] = '\0';
	for (i = 0; i < NR_SLOTS; i++)
		w->task_cpu[i] = -1;
	nr_windows++;
	/* groups of its own: no scheduler state from the window before */
	e = cell_setup(c, ev, err, errlen);
	if (e) {
		scy_place_cleanup();
		w->status = e;
		return e;
	}

	WRITE_ONCE(knob_changed, 1);
	knob = opt_optin || opt_rivals_in ? 0 : w->knob;
	e = scy_knob_write(knob);
	if (e) {
		snprintf(err, errlen, "cannot set %s to %d: %s",
			 SCY_KNOB_SYSFS, knob, strerror(e));
		goto out_place;
	}
	if (scy_knob_read() != knob) {
		snprintf(err, errlen, "%s does not read back %d",
			 SCY_KNOB_SYSFS, knob);
		goto out_place;
	}
	if (opt_optin && w->knob) {
		e = optin_yielder_job(c, err, errlen);
		if (e) {
			w->status = e;
			goto out_place;
		}
	}
	if (opt_rivals_in && w->knob) {
		e = compete_write(c, SCY_GROUP_SWITCH, "1");
		if (e) {
			snprintf(err, errlen, "cannot write 1 to %s/%s/%s: %s",
				 scy_cgroup_dir(-1), cg_compete[c->t.pl],
				 SCY_GROUP_SWITCH, strerror(e));
			w->status = e == ENOENT ? SCY_EUNSUPPORTED : SCY_EFAIL;
			goto out_place;
		}
	}
	/*
	 * The groups start as nothing lowered them, the flips light.  An
	 * idle group refuses a cpu.weight: cpu.idle first.
	 */
	if (c->t.pl == PL_CGROUP || c->t.pl == PL_NESTED) {
		e = 0;
		if (compete_has(c, "cpu.idle"))
			e = compete_write(c, "cpu.idle", "0");
		if (!e)
			e = compete_write(c, "cpu.weight",
					  ev == EV_WEIGHT ? "1" : "100");
		if (!e && ev == EV_IDLE)
			e = compete_write(c, "cpu.idle", "1");
		if (e) {
			snprintf(err, errlen, "cannot reset the weight of %s/%s: %s",
				 scy_cgroup_dir(-1), cg_compete[c->t.pl],
				 strerror(e));
			goto out_place;
		}
	}
	if (sched_getaffinity(0, sizeof(orig), &orig)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		goto out_place;
	}
	sh = mmap(NULL, WIN_SHARED_SIZE, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		goto out_place;
	}
	WRITE_ONCE(cur_sh, sh);
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	/* off the measured CPU(s) when there is another one */
	if (ev != EV_MIGRATE) {
		away = scy_pin_away(cpu_a);
		pinned = away >= 0;
	}

	fflush(NULL);
	nr_ready = 0;
	for (i = 0; i < NR_SLOTS; i++) {
		struct scy_worker_spec ws = {
			.cpu = cpu_a, .set_policy = true,
			.policy = SCHED_OTHER,
		};
		bool inner = c->t.pl == PL_CGROUP || c->t.pl == PL_NESTED ||
			     c->t.pl == PL_CROOT;
		pid_t p;

		/* in session the yielder forks its sibling, after setsid() */
		if (i != SLOT_YIELDER && i != SLOT_SPAWNER &&
		    !(i == SLOT_SIBLING && ev == EV_SIBLING &&
		      c->t.pl != PL_SESSION))
			continue;
		if (i == SLOT_YIELDER && c->t.pl == PL_ENTITY) {
			ws.setsid = c->t.ye == E_SESSION;
			ws.leaf = ent_leaf[0];
		} else if (i == SLOT_YIELDER) {
			ws.setsid = c->t.pl == PL_SESSION;
			ws.leaf = inner ? LEAF_YIELDER : SCY_NO_LEAF;
		} else if (i == SLOT_SIBLING) {
			ws.policy = SCHED_IDLE;
			ws.leaf = LEAF_YIELDER;
		}
		p = fork();
		if (p < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			goto out;
		}
		if (!p) {
			close(pfd[0]);
			if (i == SLOT_SPAWNER)
				spawner_run(c, ev, sh, pfd[1], self, away);
			if (i == SLOT_YIELDER)
				yielder_start(c, ev, sh, pfd[1], self, &ws);
			WRITE_ONCE(sh->pid[i], getpid());
			scy_worker_setup(pfd[1], i, self, &ws);
			spinner_run(sh, i);
		}
		wpid[i] = p;
		nr_ready++;
	}
	close(pfd[1]);
	pfd[1] = -1;
	nr_ready += c->t.nr * (ev == EV_MIGRATE ? 2 : 1);
	if (ev == EV_SIBLING && c->t.pl == PL_SESSION)
		nr_ready++;
	e = scy_wait_ready(pfd[0], nr_ready, slot_names, NR_SLOTS, err,
			   errlen);
	if (e) {
		w->status = e;
		goto out;
	}

	for (i = 0; i < NR_SLOTS; i++)
		pid[i] = i >= SLOT_RIVAL ? READ_ONCE(sh->pid[i]) : wpid[i];
	if (c->t.pl == PL_SESSION) {
		char mine[64], his[64], theirs[64];

		if (autogroup_of(getpid(), mine, sizeof(mine)) ||
		    autogroup_of(pid[SLOT_YIELDER], his, sizeof(his)) ||
		    autogroup_of(pid[SLOT_RIVAL], theirs, sizeof(theirs))) {
			snprintf(err, errlen,
				 "cannot read /proc/PID/autogroup of %d, %d, %d",
				 (int)getpid(), (int)pid[SLOT_YIELDER],
				 (int)pid[SLOT_RIVAL]);
			goto out;
		}
		if (!strcmp(his, theirs) || !strcmp(mine, theirs) ||
		    !strcmp(mine, his)) {
			snprintf(err, errlen,
				 "autogroups after setsid(): yielder %s, rivals %s, test %s",
				 his, theirs, mine);
			goto out;
		}
	}
	if (c->t.pl == PL_ENTITY) {
		e = entity_check(c, pid, err, errlen);
		if (e)
			goto out;
	}
	w->cpu_source = 0;
	if (scy_cpu_time(SCY_CPU_SCHEDSTAT, pid[SLOT_YIELDER], &t) || !t)
		w->cpu_source = 1;

	dur = (__u64)(opt_duration * NSEC_PER_SEC);
	warmup = dur / 3 < WARMUP_MAX_NS ? dur / 3 : WARMUP_MAX_NS;
	/*
	 * A flip can make the stock scheduler keep the yielder away for
	 * long at either knob value (6.12: a rival reniced 0 -> 19 runs
	 * 90-105 ms at once before the next flip); the knob-0 window of such
	 * a cell sees three times the flips, so that its tail, the figure
	 * knob 1 is held to, covers what the events cause.
	 */
	if (!w->knob && ct_ev_flips(w->ev))
		dur *= 3;
	go = scy_now_ns();
	sh->go_ns = go;
	sh->start_ns = go + warmup;
	sh->end_ns = sh->start_ns + dur;
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	scy_futex_wake(&sh->go, INT_MAX);
	if (ev == EV_MIGRATE) {
		e = watchers_start(go, sh->start_ns, sh->end_ns);
		if (e) {
			snprintf(err, errlen, "cannot start the stall watchers: %s",
				 strerror(e));
			goto out;
		}
	}

	/* the flips, the snapshot at the start and the one at the end */
	guest_stalls.n = 0;
	guest_stalls.lost = false;
	next_flip = ct_ev_flips(ev) ? go + FLIP_NS : UINT64_MAX;
	/*
	 * Probes only where guest time can stall (-S, -U): elsewhere a wake-up
	 * of the main process every 5 ms on a one-CPU guest would be a
	 * scheduling point between the ticks the contract counts.
	 */
	next_probe = opt_net || opt_untimed ? go + PROBE_NS : UINT64_MAX;
	for (;;) {
		bool is_flip = false;
		__u64 now;

		t = snapped ? sh->end_ns : sh->start_ns;
		if (next_flip < t) {
			t = next_flip;
			is_flip = true;
		}
		/* wake-ups late by more than a probe period: the guest stalled */
		target = next_probe < t ? next_probe : t;
		sleep_until(target);
		now = scy_now_ns();
		if (target >= sh->start_ns && target <= sh->end_ns &&
		    now - target > w->stall)
			w->stall = now - target;
		stall_note(&guest_stalls, target, now, sh->start_ns);
		while (next_probe <= now)
			next_probe += PROBE_NS;
		if (target < t)
			continue;
		if (is_flip) {
			heavy = !heavy;
			e = flip(c, ev, sh, heavy);
			if (e) {
				snprintf(err, errlen, "%s: %s", ct_ev_names[ev],
					 strerror(e));
				goto out;
			}
			w->flips++;
			next_flip += FLIP_NS;
			continue;
		}
		if (snapshot(sh, pid, w->cpu_source, snapped ? &s1 : &s0)) {
			snprintf(err, errlen, "cannot read the CPU time of the workers");
			goto out;
		}
		if (snapped)
			break;
		snapped = true;
		if (w->knob)
			mark_window(true);
	}
	mark_window(false);
	w->wall_s = (double)(scy_now_ns() - sh->start_ns) / NSEC_PER_SEC;

	WRITE_ONCE(sh->stop, 1);
	/* a stalled sched_yield() may end up to a window late */
	if (!wait_done(sh, sh->end_ns + (dur > NSEC_PER_SEC / 2 ? dur :
					 NSEC_PER_SEC / 2))) {
		w->cut = true;
		for (i = SLOT_RIVAL; i < NR_SLOTS; i++)
			kill_slot(i);
		if (!wait_done(sh, scy_now_ns() + FINISH_TIMEOUT_S * NSEC_PER_SEC)) {
			snprintf(err, errlen,
				 "the yielder did not return within %d s after its rivals were stopped",
				 FINISH_TIMEOUT_S);
			goto out;
		}
	}
	if (sh->migrate_err) {
		snprintf(err, errlen, "the yielder could not switch CPUs: %s",
			 strerror(sh->migrate_err));
		goto out;
	}
	/* the yielder is done: its last sample has ended */
	watchers_stop();

	w->nyields = sh->nyields;
	w->at_once = sh->at_once;
	w->once_at = sh->once_at;
	w->full = sh->full;
	w->migrations = sh->migrations;
	w->max_raw = sh->max;
	w->max = sh->max;
	w->max_at = sh->max_at;
	/*
	 * -S: the guest's stalls out of the samples.  Not in the migrate
	 * cells: with the yielder migrating both CPUs are busy, and the main
	 * process's late wake-ups can be the other vCPU's turn on a host
	 * thread they share, while the measured one ran.
	 */
	if (opt_net && guest_stalls.n && ev != EV_MIGRATE) {
		const struct stalls *l[2] = { &guest_stalls, &guest_stalls };

		w->stalled = net_of_stalls(sh, w, l, 0);
		if (guest_stalls.lost)
			ksft_print_msg("cell %d %s: over %d stalls, the later ones stay in\n",
				       c->idx, w->kind, MAX_STALLS);
	}
	/* migrate: each CPU's own stalls, in any mode */
	if (ev == EV_MIGRATE) {
		const struct stalls *l[2];

		for (i = 0; i < 2; i++) {
			struct watcher *wt = &watchers[i];

			l[i] = &wt->st;
			if (wt->late > w->stall)
				w->stall = wt->late;
			if (!wt->st.lost)
				continue;
			ksft_print_msg("cell %d %s: CPU %d: over %d stalls, later ones stay in\n",
				       c->idx, w->kind, wt->cpu, MAX_STALLS);
		}
		w->stalled = net_of_stalls(sh, w, l, CT_WATCH_NS);
	}
	if (dump) {
		fprintf(dump, "%d,%s,%d,", c->idx, w->kind, w->knob);
		for (i = 0; i < (int)sh->n; i++)
			fprintf(dump, "%s%.1f", i ? " " : "", sh->sample[i] / 1e3);
		fprintf(dump, "\n");
	}
	scy_sort_u64(sh->sample, sh->n);
	w->p50 = scy_percentile(sh->sample, sh->n, 50);
	w->p99 = scy_percentile(sh->sample, sh->n, 99);
	w->n = sh->n;
	/* migrate: the max less turns unseen is still at least the p99 */
	if (w->max < w->p99)
		w->max = w->p99;

	/* shares; with copies on two CPUs the rivals count once per CPU */
	ncpu = ev == EV_MIGRATE ? 2 : 1;
	ysum = s1.counter[SLOT_YIELDER] - s0.counter[SLOT_YIELDER];
	ycpu = s1.cpu[SLOT_YIELDER] - s0.cpu[SLOT_YIELDER];
	osum = 0;
	ocpu = 0;
	for (i = SLOT_RIVAL; i < NR_SLOTS; i++) {
		if (pid[i] <= 0)
			continue;
		osum += s1.counter[i] - s0.counter[i];
		ocpu += s1.cpu[i] >= s0.cpu[i] ? s1.cpu[i] - s0.cpu[i] : 0;
	}
	w->loop_share = ysum + osum ? (double)ysum * ncpu / (ysum + osum) : 0;
	w->cpu_share = ycpu + ocpu ? (double)ycpu * ncpu / (ycpu + ocpu) : 0;
	for (i = 0; i < NR_SLOTS; i++) {
		if (pid[i] <= 0 || i == SLOT_SPAWNER)
			continue;
		w->task_cpu[i] = ycpu + ocpu ?
			(double)(s1.cpu[i] - s0.cpu[i]) * ncpu / (ycpu + ocpu) : 0;
	}
	w->busy = (double)(ycpu + ocpu) / ((double)dur * ncpu);
	if (!ycpu && !ocpu) {
		snprintf(err, errlen, "no CPU time measured for any worker");
		goto out;
	}
	w->status = SCY_OK;
out:
	mark_window(false);
	watchers_stop();
	kill_workers();
	WRITE_ONCE(cur_sh, NULL);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	munmap(sh, WIN_SHARED_SIZE);
	if (pinned)
		sched_setaffinity(0, sizeof(orig), &orig);
out_place:
	scy_place_cleanup();
	return w->status;
}

/* ------------------------------------------------------------------ */
/* output */

static void print_window(const struct ct_cell *c, const struct win *w)
{
	char rv[64], pl[64], shares[256], line[640];
	size_t off = 0;
	int i;

	shares[0] = '\0';
	for (i = 0; i < NR_SLOTS && off < sizeof(shares); i++) {
		if (w->task_cpu[i] < 0)
			continue;
		off += snprintf(shares + off, sizeof(shares) - off, "%s%s=%.2f%%",
				off ? " " : "",
				i == SLOT_YIELDER ? "yielder" :
				i == SLOT_SIBLING ? "sibling" :
				i >= SLOT_REPLICA ? "r'" : "r",
				100 * w->task_cpu[i]);
	}
	/* one line, written piecewise */
	off = snprintf(line, sizeof(line), "cell %d %s (knob %d%s): yields %llu",
		       c->idx, w->kind, w->knob,
		       w->ev == EV_NONE && c->ev != EV_NONE ?
		       (c->ev == EV_SIBLING ? ", no sibling" : ", no event") : "",
		       (unsigned long long)w->nyields);
	off += snprintf(line + off, sizeof(line) - off,
			" p50 %.2fms p99 %.2fms max %.2fms (at %.0fms); at once %llu",
			ms(w->p50), ms(w->p99), ms(w->max), ms(w->max_at),
			(unsigned long long)w->at_once);
	if (w->at_once)
		off += snprintf(line + off, sizeof(line) - off,
				" (the first at %.3fms)", ms(w->once_at));
	off += snprintf(line + off, sizeof(line) - off, ";");
	if (w->stalled)
		off += snprintf(line + off, sizeof(line) - off,
				" net of %.1fms of guest stalls (max as measured %.2fms);",
				ms(w->stalled), ms(w->max_raw));
	if (w->repaid)
		off += snprintf(line + off, sizeof(line) - off,
				" %llu samples paying back run time charged to the yielder left out;",
				(unsigned long long)w->repaid);
	off += snprintf(line + off, sizeof(line) - off,
			" loops %.3f%%; cpu %s (busy %.0f%%);",
			100 * w->loop_share, shares, 100 * w->busy);
	snprintf(line + off, sizeof(line) - off, " flips %d; stall %.1fms%s%s",
		 w->flips, ms(w->stall), w->cut ? "; CUT" : "",
		 w->full ? "; samples full" : "");
	ksft_print_msg("%s\n", line);
	if (!csv)
		return;
	ct_rivals_str(&c->t, rv, sizeof(rv));
	ct_placement_str(&c->t, pl, sizeof(pl));
	fprintf(csv, "%d,%s,%d,%s,%s,\"%s\",%s,%d,%.2f,%.3f,",
		c->idx, w->kind, w->knob, scy_kernel_release(), pl, rv,
		ct_ev_names[w->ev], cpu_a, opt_duration, w->wall_s);
	fprintf(csv, "%llu,%.1f,%.1f,%.1f,%d,%d,%d,%llu,%.6f,%.6f,%.4f,%.1f,\"",
		(unsigned long long)w->nyields, w->p50 / 1e3, w->p99 / 1e3,
		w->max / 1e3, w->cut, w->full, w->flips,
		(unsigned long long)w->migrations, w->loop_share,
		w->cpu_share, w->busy, w->stall / 1e3);
	for (i = 0, off = 0; i < NR_SLOTS; i++) {
		if (w->task_cpu[i] < 0)
			continue;
		fprintf(csv, "%s%s=%.6f", off++ ? " " : "", slot_names[i],
			w->task_cpu[i]);
	}
	fprintf(csv, "\",%s,%.1f,%.1f,%llu,%llu\n",
		w->cpu_source ? "stat" : "schedstat", w->max_raw / 1e3,
		w->stalled / 1e3, (unsigned long long)w->at_once,
		(unsigned long long)w->repaid);
	fflush(csv);
}

#define CSV_HEADER	"cell,window,knob,kernel,placement,rivals,event,cpu," \
			"duration_s,wall_s,yields,p50_us,p99_us,max_us,cut," \
			"full,flips,migrations,yielder_loop_share," \
			"yielder_cpu_share,busy,stall_us,task_cpu_shares," \
			"cpu_source,max_raw_us,stalled_us,at_once,repaid"

/* ------------------------------------------------------------------ */
/* the no-sibling windows, one per topology */

struct base_entry {
	struct ct_topo t;
	struct win w;
};

/* each entry allocated on its own: cell runs keep pointers to them */
static struct base_entry **bases;
static int nr_bases;

static bool topo_eq(const struct ct_topo *a, const struct ct_topo *b)
{
	int i;

	if (a->pl != b->pl || a->nr != b->nr)
		return false;
	if (a->pl == PL_ENTITY && (a->ag != b->ag || a->ye != b->ye))
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->w[i] != b->w[i] ||
		    (a->pl == PL_ENTITY && a->re[i] != b->re[i]))
			return false;
	return true;
}

static struct win *base_find(const struct ct_topo *t)
{
	int i;

	for (i = 0; i < nr_bases; i++)
		if (topo_eq(&bases[i]->t, t))
			return &bases[i]->w;
	return NULL;
}

static struct win *base_add(const struct ct_topo *t, const struct win *w)
{
	struct base_entry **nb, *e;

	e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	nb = realloc(bases, (nr_bases + 1) * sizeof(*bases));
	if (!nb) {
		free(e);
		return NULL;
	}
	bases = nb;
	e->t = *t;
	e->w = *w;
	bases[nr_bases++] = e;
	return &e->w;
}

/* ------------------------------------------------------------------ */
/* one cell */

/* The windows of a cell, measured */
struct cell_run {
	struct win k0, k1, nb;
	const struct win *nosib;	/* sibling: nb or a shared window */
	struct win *fail;		/* the window that failed to run */
};

/*
 * Measure cell @c: knob 0, then knob 1, each with the cell's event; a
 * sibling cell also needs its topology without the sibling at knob 1
 * (G4), measured once per topology and shared.  An enum scy_status.
 */
static int measure_cell(const struct ct_cell *c, struct cell_run *r)
{
	struct win *shared;
	int ret;

	memset(r, 0, sizeof(*r));
	r->k0 = (struct win){ .kind = "k0", .knob = 0, .ev = c->ev };
	r->k1 = (struct win){ .kind = "k1", .knob = 1, .ev = c->ev };
	r->nb = (struct win){ .kind = "base", .knob = 1, .ev = EV_NONE };

	r->fail = &r->k0;
	ret = run_window(c, &r->k0);
	if (ret)
		return ret;
	print_window(c, &r->k0);
	r->fail = &r->k1;
	ret = run_window(c, &r->k1);
	if (ret)
		return ret;
	print_window(c, &r->k1);
	if (c->ev != EV_SIBLING)
		return SCY_OK;
	shared = base_find(&c->t);
	if (shared) {
		r->nosib = shared;
		ksft_print_msg("cell %d base: the no-sibling window above, shared\n",
			       c->idx);
		return SCY_OK;
	}
	r->fail = &r->nb;
	ret = run_window(c, &r->nb);
	if (ret)
		return ret;
	print_window(c, &r->nb);
	r->nosib = base_add(&c->t, &r->nb);
	return r->nosib ? SCY_OK : SCY_EFAIL;
}

static void to_ct(const struct win *w, struct ct_win *cw)
{
	memset(cw, 0, sizeof(*cw));
	if (w->status != SCY_OK)
		return;
	cw->nyields = w->nyields;
	cw->p50 = w->p50;
	cw->p99 = w->p99;
	cw->max = w->max;
	cw->at_once = w->at_once;
	cw->loop_share = w->loop_share;
	cw->cpu_share = w->cpu_share;
	cw->stall = w->stall;
	cw->len = (__u64)(opt_duration * NSEC_PER_SEC);
}

static const char * const sub_names[CT_NR_SUB] = {
	"time", "G1", "shares", "G4",
};

/* The sub-checks of a cell: time, G1, shares; G4 in the sibling cells */
static int cell_subs(const struct ct_cell *c)
{
	return c->ev == EV_SIBLING ? CT_NR_SUB : CT_G4;
}

/*
 * Measure and judge cell @c: one TAP line per sub-check (a SKIP where it
 * is not judged, with the reason).  Measured once: a stall is not a
 * reason to measure again.
 */
static void run_cell(const struct ct_cell *c)
{
	static struct cell_run r;
	struct ct_win k0, k1, nb;
	struct ct_judgement j;
	char name[128], note[256] = "";
	int ret, s, nsub = cell_subs(c);

	ct_cell_name(c, name, sizeof(name));
	ret = measure_cell(c, &r);
	if (ret) {
		for (s = 0; s < nsub; s++) {
			if (ret == SCY_EUNSUPPORTED)
				ksft_test_result_skip("cell %s: %s: %s\n", name,
						      sub_names[s],
						      r.fail->err);
			else
				ksft_test_result_fail("cell %s: %s: %s window: %s\n",
						      name, sub_names[s],
						      r.fail->kind,
						      r.fail->err[0] ?
						      r.fail->err :
						      "out of memory");
		}
		return;
	}
	to_ct(&r.k0, &k0);
	to_ct(&r.k1, &k1);
	if (r.nosib)
		to_ct(r.nosib, &nb);
	if (opt_rivals_in && !opt_optin)
		ct_judge_outside(&sched, &k0, &k1, untimed, &j);
	else
		ct_judge(&sched, c, &k0, &k1, r.nosib ? &nb : NULL, untimed,
			 &j);
	if (r.k1.max_raw != r.k1.max)
		snprintf(note, sizeof(note),
			 " [k1 max as measured %.1fms, %.1fms of stalls taken out of its samples]",
			 ms(r.k1.max_raw), ms(r.k1.stalled));
	for (s = 0; s < nsub; s++) {
		const char *extra = s == CT_TIME ? note : "";

		if (j.st[s] == CT_SKIP)
			ksft_test_result_skip("cell %s: %s%s\n", name, j.msg[s],
					      extra);
		else
			ksft_test_result(j.st[s] == CT_OK, "cell %s: %s%s\n",
					 name, j.msg[s], extra);
	}
}

/* ------------------------------------------------------------------ */

static int parse_index(const char *s, int *v)
{
	char *end;
	long l;

	errno = 0;
	l = strtol(s, &end, 10);
	if (errno || end == s || *end || l < 0 || l > INT_MAX)
		return -1;
	*v = (int)l;
	return 0;
}

static void print_usage(const char *prog, FILE *f)
{
	fprintf(f,
		"usage: %s [-d SECONDS] [-C CPU] [-o CSV] [-D FILE] [-M FILE] [-O] [-R] [-F] [-S] [-U] [-n INDEX | -c REGEX] [-l]\n"
		"  -d SECONDS  length of each window (default %.1f, %.1f..%.0f)\n"
		"  -C CPU      the measured CPU (default: the highest allowed)\n"
		"  -o CSV      write every window to this file\n"
		"  -D FILE     write every window's samples of time away to this\n"
		"              file, in us in the order taken: cell,window,knob,samples\n"
		"  -M FILE     create FILE while a knob-1 window measures (removed\n"
		"              at its end), for a host that measures alongside\n"
		"  -O          opt in: the knob-1 windows keep the switch at 0 and set\n"
		"              cpu.compat_yield of the yielder's job group to 1\n"
		"              (cgroup and nested cells; the others SKIP)\n"
		"  -R          the knob-1 windows keep the switch at 0 and set\n"
		"              cpu.compat_yield of the rivals' group to 1: with -O\n"
		"              judged as at knob 1, alone against knob 0 (G5)\n"
		"  -F          the full product of the dimensions (also SCY_MATRIX=full)\n"
		"  -S          take the guest's stalls out of the samples (vCPUs that\n"
		"              stall together: QEMU's single-threaded TCG); G1 is\n"
		"              reported, not judged\n"
		"  -U          guest time can stall here (QEMU without -icount, KVM):\n"
		"              report the time away, G1 and the CPU shares, judge the\n"
		"              loop-counter shares only\n"
		"  -n INDEX    run the cell with this index only\n"
		"  -c REGEX    run the cells whose \"INDEX PLACEMENT rivals=.. event=..\" matches\n"
		"  -l          list the cells and exit\n",
		prog, DURATION_DEFAULT, DURATION_MIN, DURATION_MAX);
}

int main(int argc, char **argv)
{
	const char *csv_path = NULL, *dump_path = NULL, *regex = NULL, *env;
	struct ct_cell *cells;
	bool full = false, list = false, *sel;
	char name[128], skip[256] = "";
	struct timespec res;
	int opt, nr, i, s, index = -1, nsel = 0, nplan = 0;
	__u64 t_start;
	cpu_set_t set;
	regex_t re;

	env = getenv("SCY_MATRIX");
	if (env && !strcmp(env, "full"))
		full = true;
	while ((opt = getopt(argc, argv, "d:C:o:D:M:ORFSUn:c:lh")) != -1) {
		switch (opt) {
		case 'd':
			if (scy_parse_seconds(optarg, DURATION_MIN, DURATION_MAX,
					      &opt_duration)) {
				fprintf(stderr, "invalid duration '%s' (%.1f..%.0f s)\n",
					optarg, DURATION_MIN, DURATION_MAX);
				return KSFT_FAIL;
			}
			break;
		case 'C':
			if (scy_parse_cpu(optarg, &opt_cpu)) {
				fprintf(stderr, "invalid CPU '%s'\n", optarg);
				return KSFT_FAIL;
			}
			break;
		case 'o':
			csv_path = optarg;
			break;
		case 'D':
			dump_path = optarg;
			break;
		case 'M':
			opt_mark = optarg;
			break;
		case 'O':
			opt_optin = true;
			break;
		case 'R':
			opt_rivals_in = true;
			break;
		case 'F':
			full = true;
			break;
		case 'S':
			opt_net = true;
			break;
		case 'U':
			opt_untimed = true;
			break;
		case 'n':
			if (parse_index(optarg, &index)) {
				fprintf(stderr, "invalid index '%s'\n", optarg);
				return KSFT_FAIL;
			}
			break;
		case 'c':
			regex = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			print_usage(argv[0], stdout);
			return KSFT_PASS;
		default:
			print_usage(argv[0], stderr);
			return KSFT_FAIL;
		}
	}
	if (optind != argc) {
		print_usage(argv[0], stderr);
		return KSFT_FAIL;
	}

	nr = ct_gen_cells(full, NULL, 0);
	cells = calloc(nr, sizeof(*cells));
	sel = calloc(nr, sizeof(*sel));
	if (!cells || !sel) {
		fprintf(stderr, "out of memory\n");
		return KSFT_FAIL;
	}
	ct_gen_cells(full, cells, nr);
	if (regex && regcomp(&re, regex, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "invalid regular expression '%s'\n", regex);
		return KSFT_FAIL;
	}
	if (index >= nr) {
		fprintf(stderr, "no cell %d: %d cells (0..%d)\n", index, nr,
			nr - 1);
		return KSFT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		ct_cell_name(&cells[i], name, sizeof(name));
		sel[i] = (index < 0 || i == index) &&
			 (!regex || !regexec(&re, name, 0, NULL, 0));
		nsel += sel[i];
		nplan += sel[i] ? cell_subs(&cells[i]) : 0;
		if (list && sel[i])
			printf("%s\n", name);
	}
	/*
	 * A filter that matches nothing (an event renamed) is an error, in a
	 * listing too: a caller that counts the cells must not count none.
	 */
	if (!nsel) {
		fprintf(stderr, "no cell matches%s%s\n", regex ? " " : "",
			regex ? regex : "");
		return KSFT_FAIL;
	}
	if (list)
		return KSFT_PASS;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(nplan);

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res))
		ksft_exit_fail_msg("clock_getres(CLOCK_MONOTONIC_COARSE): %s\n",
				   strerror(errno));
	tick_ns = (__u64)res.tv_sec * NSEC_PER_SEC + res.tv_nsec;
	/* the bound is printed with -U too, for the figures it reports */
	if (ct_read_sched(&sched, tick_ns, untimed_buf, sizeof(untimed_buf)))
		untimed = untimed_buf;
	if (opt_untimed)
		untimed = "guest time can stall here (-U): a stall moves what time measures";
	sched.stalls = opt_net;
	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	cpu_a = opt_cpu >= 0 ? opt_cpu : default_cpu(&set);
	if (cpu_a < 0 || cpu_a >= CPU_SETSIZE || !CPU_ISSET(cpu_a, &set))
		ksft_exit_fail_msg("CPU %d is not available\n", cpu_a);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (i != cpu_a && CPU_ISSET(i, &set)) {
			cpu_b = i;
			break;
		}
	snprintf(cg_base, sizeof(cg_base), "scy-matrix-%d", (int)getpid());
	main_pid = getpid();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		ksft_exit_fail_msg("PR_SET_CHILD_SUBREAPER: %s\n",
				   strerror(errno));
	/*
	 * The main process's wake-ups show stalls of the whole guest (a
	 * descheduled QEMU): as an RT task nothing in the guest delays them.
	 * Its workers start as SCHED_OTHER.
	 */
	if (!geteuid()) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
			ksft_print_msg("no SCHED_FIFO for the test process: %s\n",
				       strerror(errno));
	}

	if (!scy_knob_present()) {
		snprintf(skip, sizeof(skip), "%s", NO_KNOB_REASON);
	} else {
		init_knob = scy_knob_read();
		if (init_knob < 0)
			ksft_exit_fail_msg("cannot read %s: %s\n",
					   SCY_KNOB_SYSFS, strerror(errno));
		if (geteuid())
			snprintf(skip, sizeof(skip),
				 "not root: cannot set %s", SCY_KNOB_SYSFS);
	}
	ksft_print_msg("kernel %s, knob %s, tick %.1f ms, CPU %d (2nd CPU %d),",
		       scy_kernel_release(),
		       init_knob < 0 ? "absent" : scy_knob_name(init_knob),
		       ms(tick_ns), cpu_a, cpu_b);
	printf(" %.2f s windows, %s set: %d of %d cells\n", opt_duration,
	       full ? "full" : "default", nsel, nr);
	if (opt_optin)
		ksft_print_msg("-O: knob-1 windows at 0, %s of the yielder's job at 1\n",
			       SCY_GROUP_SWITCH);
	if (opt_rivals_in)
		ksft_print_msg("-R: knob-1 windows at 0, %s of the rivals' group at 1%s\n",
			       SCY_GROUP_SWITCH,
			       opt_optin ? "" : ", the yielder outside judged against knob 0 (G5)");
	if (sched.kind == CT_EEVDF && sched.base_slice_ns)
		ksft_print_msg("EEVDF, base slice %.2f ms%s\n",
			       ms(sched.base_slice_ns),
			       sched.stock_reweight ?
			       ", the kernel's own reweight_entity() (the livepatch)" : "");
	else if (sched.latency_ns)
		ksft_print_msg("CFS, latency %.2f, min/wakeup gran %.2f/%.2f ms\n",
			       ms(sched.latency_ns), ms(sched.min_gran_ns),
			       ms(sched.wakeup_gran_ns));
	if (untimed)
		ksft_print_msg("time not judged: %s\n", untimed);

	if (csv_path && !skip[0]) {
		csv = fopen(csv_path, "w");
		if (!csv)
			ksft_exit_fail_msg("cannot open %s: %s\n", csv_path,
					   strerror(errno));
		fprintf(csv, "%s\n", CSV_HEADER);
	}
	if (dump_path && !skip[0]) {
		dump = fopen(dump_path, "w");
		if (!dump)
			ksft_exit_fail_msg("cannot open %s: %s\n", dump_path,
					   strerror(errno));
		fprintf(dump, "cell,window,knob,samples_us\n");
	}
	atexit(restore_knob);
	scy_on_signals(on_signal);
	t_start = scy_now_ns();

	for (i = 0; i < nr; i++) {
		if (!sel[i])
			continue;
		if (skip[0]) {
			ct_cell_name(&cells[i], name, sizeof(name));
			for (s = 0; s < cell_subs(&cells[i]); s++)
				ksft_test_result_skip("cell %s: %s: %s\n", name,
						      sub_names[s], skip);
			continue;
		}
		run_cell(&cells[i]);
	}

	restore_knob();
	if (!skip[0])
		ksft_print_msg("%d windows in %.0f s\n", nr_windows,
			       (double)(scy_now_ns() - t_start) / NSEC_PER_SEC);
	if (csv)
		fclose(csv);
	if (dump)
		fclose(dump);
	if (regex)
		regfree(&re);
	if (init_knob >= 0 && !skip[0] && scy_knob_read() != init_knob)
		ksft_exit_fail_msg("the knob reads %d, not %d as before\n",
				   scy_knob_read(), init_knob);
	if (ksft_get_fail_cnt())
		ksft_exit_fail();
	if (!ksft_get_pass_cnt() && ksft_get_xskip_cnt()) {
		ksft_print_cnts();
		return KSFT_SKIP;
	}
	ksft_exit_pass();
}
