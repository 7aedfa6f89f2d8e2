// SPDX-License-Identifier: GPL-2.0
/*
 * Placement of the tasks of a sched_compat_yield measurement, see place.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <mntent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "place.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * What the setups changed.  Written before the matching resource is
 * created, so a signal handler sees at worst a resource that does not
 * exist (yet).  The sig_atomic_t members are accessed with READ_ONCE() and
 * WRITE_ONCE().
 */
static struct {
	sig_atomic_t cg_dirs;		/* how many of cg_dir[] exist */
	sig_atomic_t cg_at_root;	/* the base is the cgroup2 root itself */
	/* base first, then every group below it, parents before children */
	char cg_dir[SCY_CG_MAX_DIRS][PATH_MAX];
	int cg_leaf[SCY_CG_MAX_LEAVES];	/* a leaf's index in cg_dir[] */
	int cg_leaves;			/* leaves of the current setup */
	sig_atomic_t cg_root_enabled;	/* we wrote +cpu there */
	char cg_root_ctl[PATH_MAX];
	sig_atomic_t ag_prior;		/* autogroup value to restore */
} st = { .ag_prior = -1 };

/* ------------------------------------------------------------------ */
/* file helpers */

ssize_t scy_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			return -e;
		}
		if (!n)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

int scy_write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, s, len);
	if (n < 0)
		e = errno;
	else if ((size_t)n != len)
		e = EIO;
	close(fd);
	return e;
}

int scy_read_01(const char *path)
{
	char buf[16];
	ssize_t n;

	n = scy_read_file(path, buf, sizeof(buf));
	if (n < 0) {
		errno = -n;
		return -1;
	}
	if (!strcmp(buf, "0\n"))
		return 0;
	if (!strcmp(buf, "1\n"))
		return 1;
	errno = EPROTO;
	return -1;
}

bool scy_has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while (*p) {
		while (*p == ' ' || *p == '\n' || *p == '\t' || *p == ',')
			p++;
		if (!strncmp(p, word, wl) &&
		    (p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\n' ||
		     p[wl] == '\t' || p[wl] == ','))
			return true;
		while (*p && *p != ' ' && *p != '\n' && *p != '\t' && *p != ',')
			p++;
	}
	return false;
}

static void chomp(char *s)
{
	size_t l = strlen(s);

	while (l && (s[l - 1] == '\n' || s[l - 1] == ' '))
		s[--l] = '\0';
}

/* ------------------------------------------------------------------ */
/* autogroup */

bool scy_in_root_task_group(char *why, size_t whylen)
{
	char buf[4096], *line, *save = NULL, v2path[PATH_MAX] = "";
	char ctl[PATH_MAX + 64], list[512];
	struct mntent *m;
	FILE *f;

	if (scy_read_file("/proc/self/cgroup", buf, sizeof(buf)) <= 0)
		return true;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2;

		if (!c1)
			continue;
		c2 = strchr(c1 + 1, ':');
		if (!c2)
			continue;
		*c2 = '\0';
		if (!strncmp(line, "0:", 2) && c1[1] == '\0') {
			snprintf(v2path, sizeof(v2path), "%s", c2 + 1);
			continue;
		}
		/* cgroup v1 hierarchy with the cpu controller */
		if (scy_has_word(c1 + 1, "cpu")) {
			if (strcmp(c2 + 1, "/")) {
				snprintf(why, whylen,
					 "the process is in cgroup v1 cpu group %s",
					 c2 + 1);
				return false;
			}
			return true;
		}
	}
	if (!v2path[0] || !strcmp(v2path, "/"))
		return true;
	/* cgroup v2: is the cpu controller enabled below the root? */
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return true;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_type, "cgroup2"))
			continue;
		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control",
			 m->mnt_dir);
		if (scy_read_file(ctl, list, sizeof(list)) >= 0 &&
		    scy_has_word(list, "cpu")) {
			endmntent(f);
			snprintf(why, whylen,
				 "the process is in cgroup v2 group %s with the cpu controller enabled",
				 v2path);
			return false;
		}
		break;
	}
	endmntent(f);
	return true;
}

/*
 * A step of a placement failed with @e on a kernel that supports the
 * placement: a caller without root may lack the right to take it
 * (SCY_EUNSUPPORTED, a SKIP); as root it is a failure of the run.
 */
static int setup_error(int e)
{
	return geteuid() && (e == EACCES || e == EPERM) ? SCY_EUNSUPPORTED :
							  SCY_EFAIL;
}

int scy_autogroup_setup(char *err, size_t errlen)
{
	return scy_autogroup_set(1, err, errlen);
}

int scy_autogroup_set(int on, char *err, size_t errlen)
{
	char why[PATH_MAX + 128];
	int prior, e;

	prior = scy_read_01(SCY_AUTOGROUP_SYSCTL);
	if (prior < 0) {
		e = errno;
		if (e == ENOENT) {
			snprintf(err, errlen,
				 "no autogroup: %s is absent (CONFIG_SCHED_AUTOGROUP unset)",
				 SCY_AUTOGROUP_SYSCTL);
			return SCY_EUNSUPPORTED;
		}
		snprintf(err, errlen, "cannot read %s: %s",
			 SCY_AUTOGROUP_SYSCTL, strerror(e));
		return setup_error(e);
	}
	if (!scy_in_root_task_group(why, sizeof(why))) {
		snprintf(err, errlen,
			 "autogroup has no effect here: %s (autogroups apply to the root task group only)",
			 why);
		return SCY_EUNSUPPORTED;
	}
	if (prior == on)
		return SCY_OK;
	if (READ_ONCE(st.ag_prior) < 0)
		WRITE_ONCE(st.ag_prior, prior);
	e = scy_write_str(SCY_AUTOGROUP_SYSCTL, on ? "1" : "0");
	if (e) {
		snprintf(err, errlen, "cannot %s autogroup (%s)%s",
			 on ? "enable" : "disable", strerror(e),
			 geteuid() ? ": not root" : "");
		return setup_error(e);
	}
	return SCY_OK;
}

void scy_autogroup_cleanup(void)
{
	int prior = READ_ONCE(st.ag_prior);

	if (prior >= 0) {
		scy_write_str(SCY_AUTOGROUP_SYSCTL, prior ? "1" : "0");
		WRITE_ONCE(st.ag_prior, -1);
	}
}

int scy_autogroup_of(pid_t pid, char *buf, size_t len)
{
	char path[64];

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/autogroup");
	if (scy_read_file(path, buf, len) <= 0)
		return -1;
	buf[strcspn(buf, "\n ")] = '\0';
	return 0;
}

/* ------------------------------------------------------------------ */
/* cgroup v2 */

int scy_cgroup2_mount(char *dir, size_t len)
{
	struct mntent *m;
	FILE *f;
	int ret = -1;

	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return -1;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2")) {
			if (strlen(m->mnt_dir) < len) {
				snprintf(dir, len, "%s", m->mnt_dir);
				ret = 0;
			}
			break;
		}
	}
	endmntent(f);
	return ret;
}

int scy_cgroup2_self(char *path, size_t len)
{
	char buf[4096], *line, *save = NULL;

	if (scy_read_file("/proc/self/cgroup", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* the v2 line is "0::PATH" */
		if (!strncmp(line, "0::", 3) && strlen(line + 3) < len) {
			snprintf(path, len, "%s", line + 3);
			return 0;
		}
	}
	return -1;
}

void scy_cgroup_cleanup(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i, try;

	/*
	 * Parents come before their children in cg_dir[]: remove backwards,
	 * down to the base unless it is the cgroup2 root.
	 */
	for (i = READ_ONCE(st.cg_dirs) - 1; i >= READ_ONCE(st.cg_at_root);
	     i--) {
		for (try = 0; try < 100; try++) {
			if (!rmdir(st.cg_dir[i]) || errno == ENOENT)
				break;
			if (errno != EBUSY)
				break;
			/* a killed task may leave its group a little later */
			nanosleep(&ts, NULL);
		}
	}
	WRITE_ONCE(st.cg_dirs, 0);
	st.cg_leaves = 0;
	if (READ_ONCE(st.cg_root_enabled)) {
		scy_write_str(st.cg_root_ctl, "-cpu");
		WRITE_ONCE(st.cg_root_enabled, 0);
	}
}

/* Index of @dir in cg_dir[0..n-1], or -1 */
static int cg_find(const char *dir, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(st.cg_dir[i], dir))
			return i;
	return -1;
}

/*
 * Plan the groups of a setup: cg_dir[0] the base, then each leaf's
 * ancestors below the base and the leaf, every group once, parents before
 * children.  The number of groups, or -1 with the reason in @err.
 */
static int cg_plan(const char *mnt, const char *name,
		   const char * const *leaves, int nr, char *err,
		   size_t errlen)
{
	char dir[PATH_MAX];
	size_t blen;
	int n = 1, i, k;
	const char *p;

	if (name[0])
		snprintf(st.cg_dir[0], PATH_MAX, "%s/%s", mnt, name);
	else
		snprintf(st.cg_dir[0], PATH_MAX, "%s", mnt);
	blen = strlen(st.cg_dir[0]);
	for (i = 0; i < nr; i++) {
		if (!leaves[i][0] || leaves[i][0] == '/' ||
		    strstr(leaves[i], "//") ||
		    leaves[i][strlen(leaves[i]) - 1] == '/' ||
		    blen + 1 + strlen(leaves[i]) >= PATH_MAX) {
			snprintf(err, errlen, "invalid cgroup path \"%s\"",
				 leaves[i]);
			return -1;
		}
		/* each prefix of the path up to a '/', then the whole path */
		for (p = leaves[i];; p++) {
			if (*p && *p != '/')
				continue;
			snprintf(dir, sizeof(dir), "%s/%.*s", st.cg_dir[0],
				 (int)(p - leaves[i]), leaves[i]);
			k = cg_find(dir, n);
			if (k < 0) {
				if (n == SCY_CG_MAX_DIRS) {
					snprintf(err, errlen,
						 "more than %d cgroups",
						 SCY_CG_MAX_DIRS);
					return -1;
				}
				k = n++;
				snprintf(st.cg_dir[k], PATH_MAX, "%s", dir);
			}
			if (!*p)
				break;
		}
		st.cg_leaf[i] = k;
	}
	/* a leaf holds tasks: no group of the setup may be below it */
	for (i = 0; i < nr; i++) {
		const char *leaf = st.cg_dir[st.cg_leaf[i]];
		size_t l = strlen(leaf);

		for (k = 1; k < n; k++) {
			if (!strncmp(st.cg_dir[k], leaf, l) &&
			    st.cg_dir[k][l] == '/') {
				snprintf(err, errlen,
					 "cgroup %s holds tasks and groups",
					 leaves[i]);
				return -1;
			}
		}
	}
	return n;
}

/* Is cg_dir[@k] the parent of another group of the setup (of @n)? */
static bool cg_has_child(int k, int n)
{
	size_t l = strlen(st.cg_dir[k]);
	int i;

	for (i = k + 1; i < n; i++)
		if (!strncmp(st.cg_dir[i], st.cg_dir[k], l) &&
		    st.cg_dir[i][l] == '/')
			return true;
	return false;
}

int scy_cgroup_setup(const char *base, const char * const *leaves, int nr,
		     char *err, size_t errlen)
{
	/* half of PATH_MAX and a quarter: room for what we append */
	char mnt[PATH_MAX / 2], name[PATH_MAX / 4];
	char path[PATH_MAX + 64], list[512];
	const char *hint;
	ssize_t n;
	int e, i, ndirs, first;

	if (nr < 0 || nr > SCY_CG_MAX_LEAVES || (base && !base[0] && !nr)) {
		snprintf(err, errlen, "invalid number of cgroups %d", nr);
		return SCY_EFAIL;
	}
	if (scy_cgroup2_mount(mnt, sizeof(mnt))) {
		snprintf(err, errlen, "no cgroup2 file system mounted");
		return SCY_EUNSUPPORTED;
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	n = scy_read_file(path, list, sizeof(list));
	if (n < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-n));
		return setup_error(-n);
	}
	chomp(list);
	if (!scy_has_word(list, "cpu")) {
		snprintf(err, errlen,
			 "no cpu controller in cgroup2 at %s (cgroup.controllers: \"%s\"; cpu may be bound to a cgroup v1 hierarchy or CONFIG_CGROUP_SCHED unset)",
			 mnt, list);
		return SCY_EUNSUPPORTED;
	}

	if (base)
		snprintf(name, sizeof(name), "%s", base);
	else
		snprintf(name, sizeof(name), "scy-%d", (int)getpid());
	ndirs = cg_plan(mnt, name, leaves, nr, err, errlen);
	if (ndirs < 0)
		return SCY_EFAIL;
	st.cg_leaves = nr;
	/* base "": the leaves' trees start at the root, which stays */
	first = !name[0];
	WRITE_ONCE(st.cg_at_root, first);

	hint = geteuid() ? " (not root)" : "";
	snprintf(st.cg_root_ctl, sizeof(st.cg_root_ctl),
		 "%s/cgroup.subtree_control", mnt);
	n = scy_read_file(st.cg_root_ctl, list, sizeof(list));
	if (n < 0) {
		snprintf(err, errlen, "cannot read %s: %s", st.cg_root_ctl,
			 strerror(-n));
		return setup_error(-n);
	}
	if (!scy_has_word(list, "cpu")) {
		e = scy_write_str(st.cg_root_ctl, "+cpu");
		if (e) {
			snprintf(err, errlen,
				 "cannot enable the cpu controller in %s: %s%s",
				 st.cg_root_ctl, strerror(e), hint);
			return setup_error(e);
		}
		WRITE_ONCE(st.cg_root_enabled, 1);
	}

	/* left over from a run of a process with our pid that was killed? */
	for (i = ndirs - 1; i >= first; i--)
		rmdir(st.cg_dir[i]);

	/*
	 * Parents first; a group with processes cannot enable controllers
	 * below it: the cpu controller is enabled in every group that has
	 * groups of the setup below it, before they are created.
	 */
	WRITE_ONCE(st.cg_dirs, first);
	for (i = first; i < ndirs; i++) {
		WRITE_ONCE(st.cg_dirs, i + 1);
		if (mkdir(st.cg_dir[i], 0755)) {
			e = errno;
			snprintf(err, errlen, "cannot create %s: %s%s",
				 st.cg_dir[i], strerror(e), hint);
			goto fail;
		}
		if (!cg_has_child(i, ndirs))
			continue;
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control",
			 st.cg_dir[i]);
		e = scy_write_str(path, "+cpu");
		if (e) {
			snprintf(err, errlen,
				 "cannot enable the cpu controller in %s: %s%s",
				 path, strerror(e), hint);
			goto fail;
		}
	}
	return SCY_OK;
fail:
	scy_cgroup_cleanup();
	return setup_error(e);
}

/* Index in cg_dir[] of leaf @leaf (-1: the base), or -1 */
static int cg_index(int leaf)
{
	if (leaf == -1)
		return 0;
	if (leaf < 0 || leaf >= st.cg_leaves)
		return -1;
	return st.cg_leaf[leaf];
}

const char *scy_cgroup_dir(int leaf)
{
	int k = cg_index(leaf);

	return k < 0 ? "" : st.cg_dir[k];
}

int scy_cgroup_join(int leaf)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return scy_cgroup_write(leaf, "cgroup.procs", pid);
}

int scy_cgroup_write(int leaf, const char *file, const char *val)
{
	char path[PATH_MAX + 64];
	int e = ENOENT, k = cg_index(leaf);

	if (k >= 0 && k < READ_ONCE(st.cg_dirs)) {
		snprintf(path, sizeof(path), "%s/%s", st.cg_dir[k], file);
		e = scy_write_str(path, val);
	}
	return e;
}

void scy_place_cleanup(void)
{
	scy_cgroup_cleanup();
	scy_autogroup_cleanup();
}

/* ------------------------------------------------------------------ */
/* worker setup and the readiness pipe */

#define SCY_READY_TIMEOUT_MS	30000

/* Setup steps a worker reports on the readiness pipe */
enum {
	STAGE_READY,
	STAGE_AFFINITY,
	STAGE_POLICY,
	STAGE_SETSID,
	STAGE_CGROUP,
	STAGE_SLICE,
};

struct ready_msg {
	int idx;
	int stage;
	int err;
};

static void worker_report(int fd, int idx, int stage, int err)
{
	struct ready_msg msg = { .idx = idx, .stage = stage, .err = err };
	ssize_t n;

	do {
		n = write(fd, &msg, sizeof(msg));
	} while (n < 0 && errno == EINTR);
}

static void worker_fail(int fd, int idx, int stage, int err)
{
	worker_report(fd, idx, stage, err);
	_exit(1);
}

/* sched_attr as of SCHED_ATTR_SIZE_VER0; glibc 2.36 has no wrapper */
struct scy_sched_attr {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime;
	__u64 sched_deadline;
	__u64 sched_period;
};

/*
 * Give the calling fair-class task a custom slice of @slice_ns at @policy
 * and @nice, and check that the kernel keeps it; 0 or an errno
 * (EOPNOTSUPP: a kernel without custom slices).
 */
static int set_slice(int policy, int nice, __u64 slice_ns)
{
	struct scy_sched_attr a = {
		.size = sizeof(a), .sched_policy = policy, .sched_nice = nice,
		.sched_runtime = slice_ns,
	};

	if (syscall(SYS_sched_setattr, 0, &a, 0))
		return errno;
	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0))
		return errno;
	return a.sched_runtime == slice_ns ? 0 : EOPNOTSUPP;
}

void scy_worker_setup(int ready_fd, int idx, pid_t parent,
		      const struct scy_worker_spec *ws)
{
	struct sched_param sp = { .sched_priority = 0 };
	cpu_set_t set;
	int e;

	/* die with the parent, whatever kills it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);

	CPU_ZERO(&set);
	CPU_SET(ws->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		worker_fail(ready_fd, idx, STAGE_AFFINITY, errno);
	if (ws->set_policy &&
	    (sched_setscheduler(0, ws->policy, &sp) ||
	     setpriority(PRIO_PROCESS, 0, ws->nice)))
		worker_fail(ready_fd, idx, STAGE_POLICY, errno);
	if (ws->slice_ns) {
		e = set_slice(ws->policy, ws->nice, ws->slice_ns);
		if (e)
			worker_fail(ready_fd, idx, STAGE_SLICE, e);
	}
	if (ws->setsid && setsid() < 0)
		worker_fail(ready_fd, idx, STAGE_SETSID, errno);
	if (ws->leaf != SCY_NO_LEAF) {
		e = scy_cgroup_join(ws->leaf);
		if (e)
			worker_fail(ready_fd, idx, STAGE_CGROUP, e);
	}
	worker_report(ready_fd, idx, STAGE_READY, 0);
	close(ready_fd);
}

static const char *stage_name(int stage)
{
	switch (stage) {
	case STAGE_AFFINITY:
		return "sched_setaffinity()";
	case STAGE_POLICY:
		return "setting its policy and nice value";
	case STAGE_SETSID:
		return "setsid()";
	case STAGE_CGROUP:
		return "joining its cgroup";
	case STAGE_SLICE:
		return "setting a custom slice (sched_setattr() sched_runtime, 6.12 and later)";
	}
	return "setup";
}

int scy_wait_ready(int fd, int nr, const char * const *names, int nr_names,
		   char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct ready_msg msg;
	char who[32];
	int got = 0, r;
	ssize_t n;

	while (got < nr) {
		r = poll(&pfd, 1, SCY_READY_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen,
				 "only %d of %d workers became ready", got, nr);
			return SCY_EFAIL;
		}
		n = read(fd, &msg, sizeof(msg));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(msg)) {
			snprintf(err, errlen,
				 "readiness pipe: short read (%d of %d workers ready)",
				 got, nr);
			return SCY_EFAIL;
		}
		if (msg.stage != STAGE_READY) {
			if (names && msg.idx >= 0 && msg.idx < nr_names)
				snprintf(who, sizeof(who), "%s", names[msg.idx]);
			else
				snprintf(who, sizeof(who), "worker %d", msg.idx);
			snprintf(err, errlen, "%s: %s failed: %s", who,
				 stage_name(msg.stage), strerror(msg.err));
			/*
			 * A non-root caller may not raise a priority; a
			 * kernel before 6.12 has no custom slices.
			 */
			if (msg.stage == STAGE_SLICE && msg.err == EOPNOTSUPP)
				return SCY_EUNSUPPORTED;
			return msg.stage == STAGE_POLICY &&
			       (msg.err == EPERM || msg.err == EACCES) ?
			       SCY_EUNSUPPORTED : SCY_EFAIL;
		}
		got++;
	}
	return SCY_OK;
}

void scy_on_signals(void (*fn)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

int scy_pin_away(int cpu)
{
	cpu_set_t mask, set;
	int c;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (c == cpu || !CPU_ISSET(c, &mask))
			continue;
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		if (!sched_setaffinity(0, sizeof(set), &set))
			return c;
	}
	return -1;
}

int scy_parse_cpu(const char *s, int *cpu)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v >= CPU_SETSIZE)
		return -1;
	*cpu = (int)v;
	return 0;
}

int scy_parse_seconds(const char *s, double min, double max, double *d)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || !(v > 0) ||
	    v < min || v > max)
		return -1;
	*d = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the knob, the kernel */

const char *scy_knob_name(int knob)
{
	if (knob == 0)
		return "0";
	if (knob == 1)
		return "1";
	return "stock";
}

const char *scy_kernel_release(void)
{
	static char rel[sizeof(((struct utsname *)0)->release)];
	struct utsname u;

	if (!rel[0]) {
		if (uname(&u))
			snprintf(rel, sizeof(rel), "unknown");
		else
			snprintf(rel, sizeof(rel), "%s", u.release);
	}
	return rel;
}

int scy_knob_present(void)
{
	return access(SCY_KNOB_SYSFS, F_OK) == 0;
}

int scy_knob_read_path(const char *path)
{
	return scy_read_01(path);
}

int scy_knob_write_path(const char *path, int val)
{
	int e = EINVAL;

	if (val == 0 || val == 1)
		e = scy_write_str(path, val ? "1" : "0");
	return e;
}

int scy_knob_read(void)
{
	return scy_knob_read_path(SCY_KNOB_SYSFS);
}

int scy_knob_write(int val)
{
	return scy_knob_write_path(SCY_KNOB_SYSFS, val);
}

/* ------------------------------------------------------------------ */
/* time, futexes, percentiles */

#define SCY_NSEC_PER_SEC	1000000000ULL

__u64 scy_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * SCY_NSEC_PER_SEC + ts.tv_nsec;
}

struct timespec scy_ns_to_ts(__u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / SCY_NSEC_PER_SEC,
		.tv_nsec = ns % SCY_NSEC_PER_SEC,
	};

	return ts;
}

int scy_futex_wait(int *uaddr, int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, FUTEX_WAIT, val, timeout, NULL, 0);
}

int scy_futex_wake(int *uaddr, int nr)
{
	return syscall(SYS_futex, uaddr, FUTEX_WAKE, nr, NULL, NULL, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

void scy_sort_u64(__u64 *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_u64);
}

__u64 scy_percentile(const __u64 *s, __u64 n, unsigned int pct)
{
	__u64 rank = (pct * n + 99) / 100;

	if (!n)
		return 0;
	return s[(rank ? rank : 1) - 1];
}
