// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-share benchmark engine for sched_compat_yield, see share.h.
 *
 * Timeline of one run:
 *   parent: set up the placement (autogroup setting, cgroups), pin itself
 *           away from the measured CPU, fork the workers;
 *   worker: die with the parent, pin itself to the measured CPU, take its
 *           place (setsid() or a cgroup), report readiness on a pipe, wait
 *           on a futex for "go", then loop "counter++; syscall" forever;
 *   parent: wait until all workers are ready, set "go", snapshot counters
 *           and CPU times, sleep the window, snapshot again, SIGKILL and
 *           reap the workers, undo the placement.
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
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "share.h"

#define SCY_CACHELINE		64
/* Seconds the workers run before the window opens (at most a quarter of it) */
#define SCY_WARMUP_S		0.5

struct scy_slot {
	alignas(SCY_CACHELINE) __u64 counter;
};

struct scy_shared {
	alignas(SCY_CACHELINE) int go;
	struct scy_slot slot[SCY_MAX_WORKERS];
};

/*
 * Workers of the run in progress, for scy_emergency_cleanup().  Written by
 * scy_run() before it creates the matching resource, so a signal handler
 * sees at worst a resource that does not exist (yet).  The sig_atomic_t
 * members are accessed with READ_ONCE() and WRITE_ONCE().  What the
 * placement changed is recorded by place.c.
 */
static struct {
	pid_t owner;			/* the process running scy_run() */
	sig_atomic_t nr_pids;
	pid_t pids[SCY_MAX_WORKERS];
} st;

/* ------------------------------------------------------------------ */
/* small helpers */

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* ------------------------------------------------------------------ */
/* names */

const char *scy_placement_name(enum scy_placement p)
{
	switch (p) {
	case SCY_PLACE_SAME:
		return "same";
	case SCY_PLACE_SESSION:
		return "session";
	case SCY_PLACE_CGROUP:
		return "cgroup";
	case SCY_PLACE_CGROUP_SESSION:
		return "cgroup-session";
	case SCY_PLACE_CGROUP_ROOT:
		return "cgroup-root";
	}
	return "?";
}

int scy_placement_parse(const char *s, enum scy_placement *p)
{
	if (!strcmp(s, "same"))
		*p = SCY_PLACE_SAME;
	else if (!strcmp(s, "session"))
		*p = SCY_PLACE_SESSION;
	else if (!strcmp(s, "cgroup"))
		*p = SCY_PLACE_CGROUP;
	else if (!strcmp(s, "cgroup-session"))
		*p = SCY_PLACE_CGROUP_SESSION;
	else if (!strcmp(s, "cgroup-root"))
		*p = SCY_PLACE_CGROUP_ROOT;
	else
		return -1;
	return 0;
}

const char *scy_role_name(enum scy_role r)
{
	return r == SCY_ROLE_YIELD ? "yield" : "getppid";
}

int scy_role_parse(const char *s, enum scy_role *r)
{
	if (!strcmp(s, "yield"))
		*r = SCY_ROLE_YIELD;
	else if (!strcmp(s, "getppid"))
		*r = SCY_ROLE_GETPPID;
	else
		return -1;
	return 0;
}

const char *scy_cpu_source_name(enum scy_cpu_source s)
{
	return s == SCY_CPU_SCHEDSTAT ? "schedstat" : "stat";
}

/* ------------------------------------------------------------------ */
/* CPUs */

int scy_default_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

void scy_config_init(struct scy_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->duration_s = 30.0;
	cfg->cpu = -1;
	cfg->nr_hogs = 1;
	cfg->role0 = SCY_ROLE_YIELD;
	cfg->placement = SCY_PLACE_SAME;
}

/* ------------------------------------------------------------------ */
/* CPU time of a worker */

/* First field of /proc/<pid>/schedstat: ns on CPU.  0 on success. */
static int cpu_schedstat(pid_t pid, __u64 *ns)
{
	char path[64], buf[128], *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (scy_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtoull(buf, &end, 10);
	if (end == buf)
		return -1;
	*ns = v;
	return 0;
}

/* utime + stime from /proc/<pid>/stat, converted to ns.  0 on success. */
static int cpu_stat(pid_t pid, __u64 *ns)
{
	unsigned long long utime, stime;
	char path[64], buf[1024], *p;
	long hz = sysconf(_SC_CLK_TCK);
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (scy_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* comm may contain anything: the fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p++;
	/* field 3 (state) is the first after ')'; utime is field 14 */
	for (i = 3; i < 14; i++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
	}
	if (sscanf(p, "%llu %llu", &utime, &stime) != 2)
		return -1;
	if (hz <= 0)
		hz = 100;
	*ns = (utime + stime) * (1000000000ULL / (unsigned long long)hz);
	return 0;
}

int scy_cpu_time(enum scy_cpu_source src, pid_t pid, __u64 *ns)
{
	return src == SCY_CPU_SCHEDSTAT ? cpu_schedstat(pid, ns) :
					  cpu_stat(pid, ns);
}

/* ------------------------------------------------------------------ */
/* workers */

static void kill_workers(void)
{
	int i, status;

	for (i = 0; i < READ_ONCE(st.nr_pids); i++)
		if (st.pids[i] > 0)
			kill(st.pids[i], SIGKILL);
	for (i = 0; i < READ_ONCE(st.nr_pids); i++) {
		if (st.pids[i] <= 0)
			continue;
		while (waitpid(st.pids[i], &status, 0) < 0 && errno == EINTR)
			;
		st.pids[i] = 0;
	}
	WRITE_ONCE(st.nr_pids, 0);
}

void scy_emergency_cleanup(void)
{
	int saved = errno;

	/* a worker that inherited its parent's signal handler does nothing */
	if (getpid() != st.owner)
		return;
	kill_workers();
	scy_place_cleanup();
	errno = saved;
}

static noreturn void worker(int idx, enum scy_role role,
			    const struct scy_config *cfg,
			    struct scy_shared *sh, int ready_fd, pid_t parent)
{
	struct scy_slot *slot = &sh->slot[idx];
	struct scy_worker_spec ws = {
		.cpu = cfg->cpu,
		.leaf = SCY_NO_LEAF,
	};
	__u64 count = 0;

	switch (cfg->placement) {
	case SCY_PLACE_SAME:
		break;
	case SCY_PLACE_SESSION:
		ws.setsid = idx == 0;
		break;
	case SCY_PLACE_CGROUP:
		ws.leaf = idx == 0 ? 0 : 1;
		break;
	case SCY_PLACE_CGROUP_SESSION:
		/* the yielder in its group, the hog in a session of its own */
		ws.leaf = idx == 0 ? 0 : SCY_NO_LEAF;
		ws.setsid = idx != 0;
		break;
	case SCY_PLACE_CGROUP_ROOT:
		/* the yielder in its group, a hog a plain task of ours */
		ws.leaf = idx == 0 ? 0 : SCY_NO_LEAF;
		break;
	}
	scy_worker_setup(ready_fd, idx, parent, &ws);

	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		scy_futex_wait(&sh->go, 0, NULL);

	if (role == SCY_ROLE_YIELD) {
		for (;;) {
			__atomic_store_n(&slot->counter, ++count,
					 __ATOMIC_RELAXED);
			sched_yield();
		}
	} else {
		for (;;) {
			__atomic_store_n(&slot->counter, ++count,
					 __ATOMIC_RELAXED);
			getppid();
		}
	}
}

struct snap {
	__u64 counter[SCY_MAX_WORKERS];
	__u64 cpu[SCY_MAX_WORKERS];
};

static int snapshot(struct scy_shared *sh, int nr, enum scy_cpu_source src,
		    struct snap *s)
{
	int i;

	for (i = 0; i < nr; i++)
		s->counter[i] = __atomic_load_n(&sh->slot[i].counter,
						__ATOMIC_RELAXED);
	for (i = 0; i < nr; i++)
		if (scy_cpu_time(src, st.pids[i], &s->cpu[i]))
			return -1;
	return 0;
}

static void compute_shares(struct scy_result *res)
{
	__u64 csum = 0, tsum = 0;
	int i;

	for (i = 0; i < res->nr_workers; i++) {
		csum += res->w[i].counter;
		tsum += res->w[i].cpu_ns;
	}
	res->hog_counter = 0;
	res->hog_cpu_ns = 0;
	for (i = 0; i < res->nr_workers; i++) {
		struct scy_worker_result *w = &res->w[i];

		w->counter_share = csum ? (double)w->counter / csum : 0.0;
		w->cpu_share = tsum ? (double)w->cpu_ns / tsum : 0.0;
		if (i) {
			res->hog_counter += w->counter;
			res->hog_cpu_ns += w->cpu_ns;
		}
	}
	res->yielder_counter_share = res->w[0].counter_share;
	res->yielder_cpu_share = res->w[0].cpu_share;
	res->hog_counter_share = csum ? (double)res->hog_counter / csum : 0.0;
	res->hog_cpu_share = tsum ? (double)res->hog_cpu_ns / tsum : 0.0;
}

/* ------------------------------------------------------------------ */

/*
 * Set cpu.compat_yield of the group @cfg->optin names to 1, the groups of
 * the placement set up.  SCY_EUNSUPPORTED where the kernel has no such
 * file.
 */
static int set_optin(const struct scy_config *cfg, char *err, size_t errlen)
{
	int leaf, e;

	switch (cfg->optin) {
	case SCY_OPTIN_YIELDER:
		leaf = 0;
		break;
	case SCY_OPTIN_OTHERS:
		leaf = 1;
		break;
	case SCY_OPTIN_PARENT:
		leaf = -1;
		break;
	default:
		leaf = cfg->placement == SCY_PLACE_CGROUP ? 2 : 1;
		break;
	}
	e = scy_cgroup_write(leaf, SCY_GROUP_SWITCH, "1");
	if (e == ENOENT) {
		snprintf(err, errlen, "kernel has no %s in %s", SCY_GROUP_SWITCH,
			 scy_cgroup_dir(leaf));
		return SCY_EUNSUPPORTED;
	}
	if (e) {
		snprintf(err, errlen, "writing 1 to %s/%s: %s",
			 scy_cgroup_dir(leaf), SCY_GROUP_SWITCH, strerror(e));
		return SCY_EFAIL;
	}
	return SCY_OK;
}

int scy_run(const struct scy_config *cfg_in, struct scy_result *res,
	    char *err, size_t errlen)
{
	struct scy_shared *sh = MAP_FAILED;
	struct timespec t0, t1, until, warmup;
	cpu_set_t orig;
	struct scy_config cfg = *cfg_in;
	struct snap s0, s1;
	bool pinned = false;
	int pfd[2] = { -1, -1 };
	int nr, i, ret;
	int unrelated = cfg.optin == SCY_OPTIN_UNRELATED;
	__u64 probe;
	pid_t self = getpid();
	char no_err[1];

	memset(res, 0, sizeof(*res));
	/* no room for a reason: write it to a scratch buffer */
	if (!err || !errlen) {
		err = no_err;
		errlen = sizeof(no_err);
	}
	err[0] = '\0';
	st.owner = self;

	if (!(cfg.duration_s > 0) || !isfinite(cfg.duration_s) ||
	    cfg.duration_s > 1e6) {
		snprintf(err, errlen, "invalid duration %g s", cfg.duration_s);
		return SCY_EFAIL;
	}
	if (cfg.optin != SCY_OPTIN_NONE &&
	    (cfg.placement == SCY_PLACE_SAME ||
	     cfg.placement == SCY_PLACE_SESSION ||
	     (cfg.optin == SCY_OPTIN_OTHERS &&
	      cfg.placement != SCY_PLACE_CGROUP))) {
		snprintf(err, errlen, "placement %s has no group for opt-in %d",
			 scy_placement_name(cfg.placement), cfg.optin);
		return SCY_EFAIL;
	}
	if (cfg.nr_hogs < 0 || cfg.nr_hogs > SCY_MAX_HOGS) {
		snprintf(err, errlen, "invalid number of hogs %d (0..%d)",
			 cfg.nr_hogs, SCY_MAX_HOGS);
		return SCY_EFAIL;
	}
	if (sched_getaffinity(0, sizeof(orig), &orig)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return SCY_EFAIL;
	}
	if (cfg.cpu < 0)
		cfg.cpu = scy_default_cpu();
	if (cfg.cpu < 0 || cfg.cpu >= CPU_SETSIZE || !CPU_ISSET(cfg.cpu, &orig)) {
		snprintf(err, errlen,
			 "CPU %d is not available (offline or not in our affinity mask)",
			 cfg.cpu);
		return SCY_EFAIL;
	}
	nr = cfg.nr_hogs + 1;
	res->nr_workers = nr;
	res->cpu = cfg.cpu;
	res->parent_cpu = -1;
	res->placement = cfg.placement;
	res->duration_s = cfg.duration_s;

	/* placement that needs the parent's help */
	if (cfg.placement == SCY_PLACE_SESSION) {
		ret = scy_autogroup_setup(err, errlen);
		if (ret)
			return ret;
	} else if (cfg.placement == SCY_PLACE_CGROUP) {
		static const char * const leaves[] = {
			"yielder", "others", "optin",
		};

		ret = scy_cgroup_setup(NULL, leaves, 2 + unrelated, err,
				       errlen);
		if (ret)
			return ret;
	} else if (cfg.placement == SCY_PLACE_CGROUP_ROOT) {
		static const char * const leaves[] = { "yielder", "optin" };

		ret = scy_cgroup_setup(NULL, leaves, 1 + unrelated, err,
				       errlen);
		if (ret)
			return ret;
	} else if (cfg.placement == SCY_PLACE_CGROUP_SESSION) {
		static const char * const leaves[] = { "yielder", "optin" };

		ret = scy_autogroup_setup(err, errlen);
		if (!ret)
			ret = scy_cgroup_setup(NULL, leaves, 1 + unrelated,
					       err, errlen);
		if (ret) {
			scy_autogroup_cleanup();
			return ret;
		}
	}
	if (cfg.optin != SCY_OPTIN_NONE) {
		ret = set_optin(&cfg, err, errlen);
		if (ret)
			goto out;
	}

	ret = SCY_EFAIL;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		goto out;
	}
	memset(sh, 0, sizeof(*sh));
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}

	/* the parent keeps off the measured CPU when it can */
	res->parent_cpu = scy_pin_away(cfg.cpu);
	pinned = res->parent_cpu >= 0;

	fflush(NULL);
	for (i = 0; i < nr; i++) {
		enum scy_role role = i ? SCY_ROLE_GETPPID : cfg.role0;
		pid_t pid;

		pid = fork();
		if (pid < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			goto out;
		}
		if (!pid) {
			close(pfd[0]);
			worker(i, role, &cfg, sh, pfd[1], self);
		}
		st.pids[i] = pid;
		WRITE_ONCE(st.nr_pids, i + 1);
		res->w[i].pid = pid;
		res->w[i].role = role;
	}
	close(pfd[1]);
	pfd[1] = -1;

	ret = scy_wait_ready(pfd[0], nr, NULL, 0, err, errlen);
	if (ret)
		goto out;
	ret = SCY_EFAIL;

	if (cfg.placement == SCY_PLACE_SESSION ||
	    cfg.placement == SCY_PLACE_CGROUP_SESSION) {
		/* the worker that called setsid(): the yielder, or a hog */
		int w = cfg.placement == SCY_PLACE_SESSION ? 0 : 1;
		char mine[64], his[64];

		if (!scy_autogroup_of(0, mine, sizeof(mine)) &&
		    !scy_autogroup_of(st.pids[w], his, sizeof(his)) &&
		    !strcmp(mine, his)) {
			snprintf(err, errlen,
				 "the %s is still in autogroup %s after setsid()",
				 w ? "hog" : "yielder", mine);
			goto out;
		}
	}

	/* where does the CPU time come from? */
	res->cpu_source = SCY_CPU_SCHEDSTAT;
	if (cpu_schedstat(st.pids[0], &probe) || !probe)
		res->cpu_source = SCY_CPU_STAT;

	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	scy_futex_wake(&sh->go, INT_MAX);

	/*
	 * Warm-up, not measured: the first loop iterations after a fork pay
	 * for page faults and cold caches (and, under QEMU TCG, for code
	 * translation), which skews a short window.
	 */
	warmup.tv_sec = 0;
	warmup.tv_nsec = (long)(1e9 * (cfg.duration_s / 4 < SCY_WARMUP_S ?
				       cfg.duration_s / 4 : SCY_WARMUP_S));
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &warmup, &warmup) == EINTR)
		;

	if (cfg.window_edge)
		cfg.window_edge(cfg.edge_arg, false, false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (snapshot(sh, nr, res->cpu_source, &s0)) {
		snprintf(err, errlen, "cannot read the workers' CPU time");
		goto out;
	}
	if (cfg.window_edge)
		cfg.window_edge(cfg.edge_arg, false, true);
	until = t0;
	until.tv_sec += (time_t)cfg.duration_s;
	until.tv_nsec += (long)((cfg.duration_s - (double)(time_t)cfg.duration_s) *
				1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) ==
	       EINTR)
		;
	if (cfg.window_edge)
		cfg.window_edge(cfg.edge_arg, true, false);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (snapshot(sh, nr, res->cpu_source, &s1)) {
		snprintf(err, errlen, "cannot read the workers' CPU time");
		goto out;
	}
	if (cfg.window_edge)
		cfg.window_edge(cfg.edge_arg, true, true);
	res->wall_s = ts_diff(&t0, &t1);

	for (i = 0; i < nr; i++) {
		res->w[i].counter = s1.counter[i] - s0.counter[i];
		res->w[i].cpu_ns = s1.cpu[i] >= s0.cpu[i] ?
				   s1.cpu[i] - s0.cpu[i] : 0;
	}
	compute_shares(res);
	if (!res->hog_cpu_ns && !res->w[0].cpu_ns) {
		snprintf(err, errlen, "no CPU time measured for any worker");
		goto out;
	}
	ret = SCY_OK;
out:
	kill_workers();
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (sh != MAP_FAILED)
		munmap(sh, sizeof(*sh));
	if (pinned)
		sched_setaffinity(0, sizeof(orig), &orig);
	scy_place_cleanup();
	return ret;
}

/* ------------------------------------------------------------------ */
/* output */

void scy_print_kv(FILE *f, const char *prefix, const char *scenario,
		  int knob, int run, const struct scy_result *res)
{
	unsigned long long y_counter = res->w[0].counter;
	unsigned long long y_cpu_ns = res->w[0].cpu_ns;
	unsigned long long h_counter = res->hog_counter;
	unsigned long long h_cpu_ns = res->hog_cpu_ns;

	/* one line, written piecewise */
	fprintf(f, "%sscenario=%s knob=%s kernel=%s placement=%s role0=%s",
		prefix ? prefix : "", scenario, scy_knob_name(knob),
		scy_kernel_release(), scy_placement_name(res->placement),
		scy_role_name(res->w[0].role));
	fprintf(f, " nr_hogs=%d cpu=%d run=%d duration_s=%.2f wall_s=%.3f",
		res->nr_workers - 1, res->cpu, run, res->duration_s,
		res->wall_s);
	fprintf(f, " yielder_counter=%llu hog_counter=%llu", y_counter,
		h_counter);
	fprintf(f, " yielder_cpu_ns=%llu hog_cpu_ns=%llu", y_cpu_ns, h_cpu_ns);
	fprintf(f, " yielder_counter_share=%.6f yielder_cpu_share=%.6f",
		res->yielder_counter_share, res->yielder_cpu_share);
	fprintf(f, " hog_counter_share=%.6f hog_cpu_share=%.6f cpu_source=%s\n",
		res->hog_counter_share, res->hog_cpu_share,
		scy_cpu_source_name(res->cpu_source));
}

void scy_print_csv_header(FILE *f)
{
	fputs("scenario,knob,kernel,placement,role0,nr_hogs,cpu,run,", f);
	fputs("duration_s,wall_s,", f);
	fputs("yielder_counter,hog_counter,yielder_cpu_ns,hog_cpu_ns,", f);
	fputs("yielder_counter_share,yielder_cpu_share,", f);
	fputs("hog_counter_share,hog_cpu_share,cpu_source\n", f);
}

void scy_print_csv_row(FILE *f, const char *scenario, int knob, int run,
		       const struct scy_result *res)
{
	unsigned long long y_counter = res->w[0].counter;
	unsigned long long y_cpu_ns = res->w[0].cpu_ns;
	unsigned long long h_counter = res->hog_counter;
	unsigned long long h_cpu_ns = res->hog_cpu_ns;

	fprintf(f, "%s,%s,%s,%s,%s,%d,%d,%d,%.2f,%.3f,%llu,%llu,%llu,%llu,",
		scenario, scy_knob_name(knob), scy_kernel_release(),
		scy_placement_name(res->placement),
		scy_role_name(res->w[0].role), res->nr_workers - 1, res->cpu,
		run, res->duration_s, res->wall_s, y_counter, h_counter,
		y_cpu_ns, h_cpu_ns);
	fprintf(f, "%.6f,%.6f,%.6f,%.6f,%s\n",
		res->yielder_counter_share, res->yielder_cpu_share,
		res->hog_counter_share, res->hog_cpu_share,
		scy_cpu_source_name(res->cpu_source));
}
