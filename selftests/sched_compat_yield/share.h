/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU-share benchmark engine for sched_compat_yield.
 *
 * N processes pinned to one CPU run "counter++; <system call>" in a tight
 * loop for a fixed time.  Worker 0 (the "yielder") calls sched_yield() (or
 * getppid() for a baseline), the other workers ("hogs") call getppid().
 * The engine reports, per worker, the counter and CPU-time deltas over the
 * measurement window and their shares.
 *
 * No kselftest dependency: used by the selftest compat_yield_share and by
 * the yield-share command line tool; compat_yield_latency uses its knob
 * helpers.  The placement code is in place.c.
 */
#ifndef SCY_SHARE_H
#define SCY_SHARE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "place.h"

#define SCY_MAX_HOGS		63
#define SCY_MAX_WORKERS		(SCY_MAX_HOGS + 1)
#define SCY_ERRLEN		256

enum scy_placement {
	SCY_PLACE_SAME,		/* everybody in the caller's group */
	SCY_PLACE_SESSION,	/* yielder calls setsid(): its own autogroup */
	SCY_PLACE_CGROUP,	/* yielder and hogs in sibling cgroup v2 groups */
	/*
	 * yielder in a cgroup v2 group of its own, each hog in the caller's
	 * cgroup with a session (autogroup) of its own
	 */
	SCY_PLACE_CGROUP_SESSION,
	/*
	 * yielder in a cgroup v2 group of its own, each hog a plain task of
	 * the caller's cgroup and session: on a host without systemd (a
	 * guest, many container and HPC node images) the root task group
	 */
	SCY_PLACE_CGROUP_ROOT,
};

/*
 * With a cgroup placement, the group whose cpu.compat_yield a run sets to
 * 1 (the machine's switch untouched): none, the yielder's, the hogs' (with
 * SCY_PLACE_CGROUP), their parent, or an empty group beside them.
 */
enum scy_optin {
	SCY_OPTIN_NONE,
	SCY_OPTIN_YIELDER,
	SCY_OPTIN_OTHERS,
	SCY_OPTIN_PARENT,
	SCY_OPTIN_UNRELATED,
};

enum scy_role {
	SCY_ROLE_YIELD,		/* sched_yield() */
	SCY_ROLE_GETPPID,	/* getppid() */
};

enum scy_cpu_source {
	SCY_CPU_SCHEDSTAT,	/* /proc/<pid>/schedstat, ns */
	SCY_CPU_STAT,		/* /proc/<pid>/stat utime+stime, clock ticks */
};

struct scy_config {
	double duration_s;		/* measurement window, > 0 */
	int cpu;			/* measured CPU, -1: highest allowed */
	int nr_hogs;			/* getppid workers besides worker 0 */
	enum scy_role role0;		/* what worker 0 does */
	enum scy_placement placement;
	enum scy_optin optin;
	/*
	 * If set, called in the caller's process right before (after false)
	 * and right after (after true) the window's first snapshot of the
	 * workers' counters (end false) and its last (end true): for
	 * counters that must cover the measured window and nothing else (not
	 * the fork, the warm-up or the workers' exit), and that can bracket
	 * the moment the snapshot was taken.  The calls at the end are not
	 * made when the run fails inside the window.
	 */
	void (*window_edge)(void *arg, bool end, bool after);
	void *edge_arg;
};

struct scy_worker_result {
	enum scy_role role;
	pid_t pid;
	__u64 counter;			/* loop iterations in the window */
	__u64 cpu_ns;			/* CPU time in the window */
	double counter_share;		/* counter / sum of counters */
	double cpu_share;		/* cpu_ns / sum of cpu_ns */
};

struct scy_result {
	int nr_workers;			/* nr_hogs + 1 */
	int cpu;			/* CPU the workers ran on */
	int parent_cpu;			/* CPU of the parent, -1: not pinned */
	enum scy_placement placement;
	enum scy_cpu_source cpu_source;
	double duration_s;		/* requested window */
	double wall_s;			/* measured window */
	struct scy_worker_result w[SCY_MAX_WORKERS];
	/* convenience aggregates: worker 0 vs. all the others */
	double yielder_counter_share;
	double yielder_cpu_share;
	double hog_counter_share;
	double hog_cpu_share;
	__u64 hog_counter;
	__u64 hog_cpu_ns;
};

/* CPU time of @pid in ns from @src (schedstat or stat).  0 on success. */
int scy_cpu_time(enum scy_cpu_source src, pid_t pid, __u64 *ns);

void scy_config_init(struct scy_config *cfg);

/*
 * Run one measurement.  Returns an enum scy_status; on anything but SCY_OK
 * @err holds a one-line reason.  Everything the run set up (workers,
 * cgroups, autogroup setting, CPU affinity of the caller) is undone before
 * it returns.
 */
int scy_run(const struct scy_config *cfg, struct scy_result *res,
	    char *err, size_t errlen);

/*
 * Async-signal-safe: kill and reap the workers of a run in progress, remove
 * its cgroups and restore the autogroup setting.  For SIGINT/SIGTERM
 * handlers of callers that then terminate.
 */
void scy_emergency_cleanup(void);

/* Default measured CPU: the highest-numbered CPU we may run on, or -1. */
int scy_default_cpu(void);

const char *scy_placement_name(enum scy_placement p);
int scy_placement_parse(const char *s, enum scy_placement *p);
const char *scy_role_name(enum scy_role r);
int scy_role_parse(const char *s, enum scy_role *r);
const char *scy_cpu_source_name(enum scy_cpu_source s);

/*
 * Machine-readable output shared by the selftest and the CLI.  @scenario is
 * a name without spaces or commas, @knob 0, 1 or -1 (absent), @run the
 * repetition number (1-based).
 */
void scy_print_kv(FILE *f, const char *prefix, const char *scenario,
		  int knob, int run, const struct scy_result *res);
void scy_print_csv_header(FILE *f);
void scy_print_csv_row(FILE *f, const char *scenario, int knob, int run,
		       const struct scy_result *res);

#endif /* SCY_SHARE_H */
