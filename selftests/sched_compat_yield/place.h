/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement of the tasks of a sched_compat_yield measurement: in the
 * caller's group, in an autogroup of their own (a task that calls setsid()
 * gets one when autogroups are enabled), or in cgroup v2 groups with the cpu
 * controller.  Plus the small file, clock, futex and percentile helpers
 * these need, the knob
 * (sched_compat_yield) and the kernel's release.
 *
 * What a setup changes (the autogroup setting, the cpu controller of the
 * cgroup2 root, the groups it creates) is recorded in static state, so that
 * the cleanup functions undo exactly that, also from a signal handler.  One
 * autogroup setup and one cgroup setup at a time per process.
 *
 * No kselftest dependency: used by the CPU-share engine (share.c) and by
 * the selftest compat_yield_latency.
 */
#ifndef SCY_PLACE_H
#define SCY_PLACE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/*
 * Accesses to the state that cleanup code may see from a signal handler:
 * single, untorn loads and stores the compiler keeps.
 */
#ifndef READ_ONCE
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)
#endif

#define SCY_AUTOGROUP_SYSCTL	"/proc/sys/kernel/sched_autogroup_enabled"
#define SCY_KNOB_SYSFS		"/sys/kernel/sched_compat_yield"
#define SCY_KNOB_SYSCTL		"/proc/sys/kernel/sched_compat_yield"
/* a cgroup's own switch, in the groups of the cgroup v2 cpu controller */
#define SCY_GROUP_SWITCH	"cpu.compat_yield"

/* Groups scy_cgroup_setup() can create below its base group: leaves */
#define SCY_CG_MAX_LEAVES	4
/* ... and in all, with the base and the leaves' ancestors */
#define SCY_CG_MAX_DIRS		32

/* Return values of the setup functions (and of scy_run(), see share.h) */
enum scy_status {
	SCY_OK = 0,
	SCY_EUNSUPPORTED = 1,	/* placement/setup impossible here: SKIP */
	SCY_EFAIL = 2,		/* the run itself failed: FAIL */
};

/* Read a small file into buf (NUL-terminated).  Length or -errno. */
ssize_t scy_read_file(const char *path, char *buf, size_t len);

/* Async-signal-safe: write a string with one write().  0 or an errno. */
int scy_write_str(const char *path, const char *s);

/*
 * A file that holds "0\n" or "1\n" (the knob, the autogroup sysctl): 0 or
 * 1, or -1 with errno set (EPROTO for any other content).
 */
int scy_read_01(const char *path);

/* Does the list @list (separated by blanks or commas) hold @word? */
bool scy_has_word(const char *list, const char *word);

/*
 * Autogroups only matter for tasks in the root task group: with the cpu
 * controller, a task in a non-root cpu cgroup ignores its autogroup.
 * Returns true if the caller is in the root task group, or if it cannot
 * tell; otherwise false with the reason in @why.
 */
bool scy_in_root_task_group(char *why, size_t whylen);

/*
 * Make sure autogroups are enabled (set the sysctl to 1 if it is 0) and
 * apply to the caller.  SCY_OK; SCY_EUNSUPPORTED with the reason in @err
 * where the kernel lacks autogroups, they do not apply to the caller, or a
 * caller without root may not enable them; SCY_EFAIL when a step fails
 * otherwise.  scy_autogroup_cleanup() restores the prior setting.
 */
int scy_autogroup_setup(char *err, size_t errlen);
/*
 * The same, the sysctl set to @on (0 or 1): with 0, a task that calls
 * setsid() stays in the root task group.
 */
int scy_autogroup_set(int on, char *err, size_t errlen);
void scy_autogroup_cleanup(void);

/* First word of /proc/<pid>/autogroup (@pid 0: the caller), 0 or -1 */
int scy_autogroup_of(pid_t pid, char *buf, size_t len);

/* Mount point of the cgroup2 file system: 0, or -1 if there is none */
int scy_cgroup2_mount(char *dir, size_t len);

/* The caller's cgroup v2 path ("/" for the root): 0, or -1 if unknown */
int scy_cgroup2_self(char *path, size_t len);

/*
 * Create the group @base ("scy-<pid>" if NULL) below the cgroup2 root and,
 * if @nr > 0, the groups @leaves[0..nr-1] below it, with the cpu controller
 * enabled on the way (in the root and, with leaves, in @base).  With no
 * leaves @base itself is the group tasks join.  A leaf may be a path below
 * @base ("a/b/c", no leading, trailing or double '/'): the groups on its
 * way are created too, once for all the leaves that share them, with the
 * cpu controller enabled in each (a nested tree, as a batch system lays
 * out its jobs), SCY_CG_MAX_DIRS groups at most, base included; a leaf
 * may not lie below another leaf.  Leftovers of that name (of a killed
 * run) are removed first.  With @base "" the leaves' trees start at the
 * cgroup2 root itself, which the setup neither creates nor removes (give
 * the leaves names of their own; at least one leaf): groups beside the
 * root's own tasks.  SCY_OK; SCY_EUNSUPPORTED with the
 * reason in @err where the kernel offers no cgroup2 cpu controller or a
 * caller without root may not take a step; SCY_EFAIL when a step fails
 * otherwise (as root on a kernel with the controller: a failure, not a
 * SKIP).
 */
int scy_cgroup_setup(const char *base, const char * const *leaves, int nr,
		     char *err, size_t errlen);

/* Path of leaf @leaf of the current setup, -1: of its base */
const char *scy_cgroup_dir(int leaf);

/* Move the caller into leaf @leaf (-1: the base).  0 or an errno. */
int scy_cgroup_join(int leaf);

/* Write @val to the file @file of leaf @leaf (-1: the base).  0 or errno. */
int scy_cgroup_write(int leaf, const char *file, const char *val);

/*
 * Async-signal-safe (apart from short sleeps while a group is still busy):
 * remove the groups of the current setup, leaves first, and disable the
 * cpu controller in the root again if the setup enabled it.  The groups
 * must have no live tasks left.
 */
void scy_cgroup_cleanup(void);

/* Both cleanups above */
void scy_place_cleanup(void);

/*
 * The setup of a forked worker, reported to the parent on a readiness
 * pipe: scy_worker_setup() in the child, scy_wait_ready() in the parent.
 */
struct scy_worker_spec {
	int cpu;		/* the CPU it is pinned to */
	bool set_policy;	/* apply policy and nice */
	int policy;		/* SCHED_OTHER, SCHED_BATCH or SCHED_IDLE */
	int nice;
	__u64 slice_ns;		/* custom slice (sched_runtime), 0: none */
	bool setsid;		/* a session, and so an autogroup, of its own */
	int leaf;		/* cgroup leaf to join, SCY_NO_LEAF: none */
};

/* No cgroup to join: stay where the parent is */
#define SCY_NO_LEAF		(-2)

/*
 * In a worker just forked by @parent: die with the parent, default
 * signal handlers, then pin, policy, slice, session and cgroup as @ws
 * says.  A custom slice the kernel does not keep (before 6.12 it takes
 * sched_runtime of a fair task and ignores it) is reported as
 * EOPNOTSUPP, which scy_wait_ready() turns into SCY_EUNSUPPORTED.
 * Reports readiness as worker @idx on @ready_fd, which it closes; on a
 * failed step reports that step and its errno and exits with status 1.
 */
void scy_worker_setup(int ready_fd, int idx, pid_t parent,
		      const struct scy_worker_spec *ws);

/*
 * In the parent: wait (30 s at most) until @nr workers reported ready.
 * SCY_OK; SCY_EFAIL with the failed step in @err (the worker named
 * @names[idx] if @names, of @nr_names); SCY_EUNSUPPORTED where an
 * unprivileged caller may not set the policy or nice value asked for.
 */
int scy_wait_ready(int fd, int nr, const char * const *names, int nr_names,
		   char *err, size_t errlen);

/* Install @fn for SIGINT, SIGTERM, SIGHUP and SIGPIPE (the cleanups' signals) */
void scy_on_signals(void (*fn)(int));

/*
 * Pin the caller to the first CPU of its affinity other than @cpu, so that
 * it keeps off a measured CPU: that CPU, or -1 (the caller stays where it
 * was) when there is none or the kernel refuses every one.
 */
int scy_pin_away(int cpu);

/* A CPU number of 0..CPU_SETSIZE-1 into @cpu: 0, or -1 for anything else */
int scy_parse_cpu(const char *s, int *cpu);

/*
 * A finite number of seconds greater than 0 and within @min..@max into @d:
 * 0, or -1 for anything else.
 */
int scy_parse_seconds(const char *s, double min, double max, double *d);

/*
 * The knob.  scy_knob_read() returns 0 or 1, or -1 if the file is absent or
 * unreadable (errno set).  scy_knob_write() writes "0" or "1" and returns 0
 * or an errno value.  The *_path variants take one of SCY_KNOB_SYSFS or
 * SCY_KNOB_SYSCTL; the plain ones use the sysfs file.
 */
int scy_knob_present(void);
int scy_knob_read(void);
int scy_knob_write(int val);
int scy_knob_read_path(const char *path);
int scy_knob_write_path(const char *path, int val);

/* "0"/"1" string of a knob value, or "stock" for -1 (knob absent) */
const char *scy_knob_name(int knob);

/* CLOCK_MONOTONIC in ns, and ns as a struct timespec */
__u64 scy_now_ns(void);
struct timespec scy_ns_to_ts(__u64 ns);

/* FUTEX_WAIT (relative @timeout, NULL: none) and FUTEX_WAKE of a shared word */
int scy_futex_wait(int *uaddr, int val, const struct timespec *timeout);
int scy_futex_wake(int *uaddr, int nr);

/*
 * Sort @n samples in place; the nearest-rank percentile @pct (1..100) of @n
 * sorted samples (0 when there are none).
 */
void scy_sort_u64(__u64 *s, size_t n);
__u64 scy_percentile(const __u64 *s, __u64 n, unsigned int pct);

/* Kernel release (uname -r), static buffer */
const char *scy_kernel_release(void);

#endif /* SCY_PLACE_H */
