// SPDX-License-Identifier: GPL-2.0
/*
 * sched_compat_yield: user-visible ABI of the knob.
 *
 *  /sys/kernel/sched_compat_yield       reads "0\n" or "1\n", root writes
 *  /proc/sys/kernel/sched_compat_yield  the same state as a sysctl, with
 *                                       CONFIG_SCHED_COMPAT_YIELD_SYSCTL=y
 *  sched_compat_yield=0|1               boot parameter, initial value
 *
 * The boot parameter is not tested here: a test cannot tell whether the
 * knob was written since boot.  A harness that boots the kernel with it
 * checks the value before anything writes the knob.
 *
 * A write is accepted only if it is exactly "0" or "1", optionally followed
 * by one "\n"; anything else fails with EINVAL and leaves the value alone.
 *
 * A cgroup's own switch, cpu.compat_yield of the cgroup v2 cpu controller:
 * absent in the root, "0\n" in a new group, the same writes as the knob
 * (anything else: EINVAL, value kept, the knob untouched), the group's own
 * value only (a child of a group at 1 reads 0), writable by root and by
 * the owner of a delegated subtree in the groups it creates, not by
 * others; a group at 1 can be removed.
 *
 * Everything is skipped when the kernel has no /sys/kernel/sched_compat_yield,
 * the sysctl's tests when it has no kernel.sched_compat_yield; the others
 * then check the sysfs file alone.
 * The knob's value at start is restored at exit, also when a test fails:
 * each fixture restores what it found, and a constructor/atexit pair (and
 * SIGINT/SIGTERM/SIGHUP/SIGPIPE handlers) in the main process restore the value the
 * program started with.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#include "place.h"

#define NOBODY		65534

#define NO_KNOB_REASON \
	"kernel has no " SCY_KNOB_SYSFS \
	" (CONFIG_SCHED_COMPAT_YIELD unset or unpatched kernel)"

#define NO_SYSCTL_REASON \
	"kernel has no " SCY_KNOB_SYSCTL \
	" (CONFIG_SCHED_COMPAT_YIELD_SYSCTL unset)"

static const char * const knob_paths[] = { SCY_KNOB_SYSFS, SCY_KNOB_SYSCTL };

/* Does the kernel have the kernel.sched_compat_yield sysctl? */
static bool have_sysctl(void)
{
	return access(SCY_KNOB_SYSCTL, F_OK) == 0;
}

/* The file to read the state back from too: the sysctl, or sysfs again */
static const char *second_file(void)
{
	return have_sysctl() ? SCY_KNOB_SYSCTL : SCY_KNOB_SYSFS;
}

/* How many of knob_paths[] this kernel has: the sysfs file, the sysctl */
static int nr_knob_files(void)
{
	return have_sysctl() ? 2 : 1;
}

/* ------------------------------------------------------------------ */
/* helpers, all async-signal-safe */

/* Raw content of a knob file (at most len - 1 bytes), length or -errno */
static ssize_t read_raw(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* 0 or 1, or -1 if the file cannot be read or holds anything else */
static int read_knob(const char *path)
{
	char buf[16];

	if (read_raw(path, buf, sizeof(buf)) < 0)
		return -1;
	if (!strcmp(buf, "0\n"))
		return 0;
	if (!strcmp(buf, "1\n"))
		return 1;
	return -1;
}

/*
 * One write() of @len bytes on a fresh file descriptor: the sysctl handler
 * sees file position 0.  Returns what write() returned, errno in *err.
 */
static ssize_t write_raw(const char *path, const char *buf, size_t len,
			 int *err)
{
	ssize_t n;
	int fd;

	*err = 0;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return -2;
	}
	n = write(fd, buf, len);
	if (n < 0)
		*err = errno;
	close(fd);
	return n;
}

static int write_knob(const char *path, int val)
{
	int err;

	if (write_raw(path, val ? "1" : "0", 1, &err) != 1)
		return err ? err : EIO;
	return 0;
}

/* ------------------------------------------------------------------ */
/* restore the initial value whatever happens */

static int initial_value = -1;
static pid_t main_pid;

static void restore_initial(void)
{
	if (getpid() != main_pid || initial_value < 0)
		return;
	if (read_knob(SCY_KNOB_SYSFS) != initial_value)
		write_knob(SCY_KNOB_SYSFS, initial_value);
}

static void restore_on_signal(int sig)
{
	restore_initial();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void __attribute__((constructor)) save_initial(void)
{
	main_pid = getpid();
	initial_value = read_knob(SCY_KNOB_SYSFS);
	if (initial_value < 0 || geteuid() != 0)
		return;
	atexit(restore_initial);
	scy_on_signals(restore_on_signal);
}

/* Printable form of a write buffer for the log */
static const char *printable(const char *buf, size_t len)
{
	static char out[64];
	size_t i, o = 0;

	if (len > 16) {
		snprintf(out, sizeof(out), "%zu x '%c'", len, buf[0]);
		return out;
	}
	out[o++] = '"';
	for (i = 0; i < len && o < sizeof(out) - 4; i++) {
		if (buf[i] == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = buf[i];
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

/* ------------------------------------------------------------------ */
/*
 * Fixture: skip without the knob; remember the value and restore it.
 * With 6.1's harness a SKIP() in the setup does not stop the test body,
 * so each body repeats the check on self->skip.
 */

FIXTURE(knob) {
	int saved;
	bool skip;
	char reason[160];
};

static void knob_fixture_setup(struct __test_metadata *_metadata,
			       int *saved, bool *skip, char *reason,
			       size_t rlen)
{
	*saved = -1;
	*skip = false;
	if (access(SCY_KNOB_SYSFS, F_OK)) {
		*skip = true;
		snprintf(reason, rlen, "%s", NO_KNOB_REASON);
		return;
	}
	*saved = read_knob(SCY_KNOB_SYSFS);
	ASSERT_GE(*saved, 0) {
		TH_LOG("%s does not read \"0\\n\" or \"1\\n\"", SCY_KNOB_SYSFS);
	}
}

static void knob_fixture_teardown(int saved)
{
	if (saved >= 0 && geteuid() == 0 && read_knob(SCY_KNOB_SYSFS) != saved)
		write_knob(SCY_KNOB_SYSFS, saved);
}

FIXTURE_SETUP(knob)
{
	knob_fixture_setup(_metadata, &self->saved, &self->skip, self->reason,
			   sizeof(self->reason));
	if (self->skip)
		SKIP(return, "%s", self->reason);
}

FIXTURE_TEARDOWN(knob)
{
	knob_fixture_teardown(self->saved);
}

/* Both files read "0\n" or "1\n" and agree */
TEST_F(knob, read_format)
{
	char buf[2][64];
	int i, nr = nr_knob_files();

	if (self->skip)
		SKIP(return, "%s", self->reason);
	for (i = 0; i < nr; i++) {
		ssize_t n = read_raw(knob_paths[i], buf[i], sizeof(buf[i]));

		ASSERT_GE(n, 0) {
			TH_LOG("cannot read %s: %s", knob_paths[i],
			       strerror(-n));
		}
		EXPECT_TRUE(!strcmp(buf[i], "0\n") || !strcmp(buf[i], "1\n")) {
			TH_LOG("%s reads %s, want \"0\\n\" or \"1\\n\"",
			       knob_paths[i], printable(buf[i], n));
		}
	}
	if (nr == 2)
		EXPECT_STREQ(buf[0], buf[1]);
}

/* A value written to one file reads back from both */
static void write_read_both(struct __test_metadata *_metadata,
			    const char *wpath)
{
	static const char * const forms[] = { "0", "1", "0\n", "1\n", "1",
					      "0" };
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		size_t len = strlen(forms[i]);
		int want = forms[i][0] - '0';
		ssize_t n = write_raw(wpath, forms[i], len, &err);

		ASSERT_EQ((ssize_t)len, n) {
			TH_LOG("write(%s, %s): %s", wpath,
			       printable(forms[i], len), strerror(err));
		}
		EXPECT_EQ(want, read_knob(SCY_KNOB_SYSFS)) {
			TH_LOG("after writing %s to %s", printable(forms[i], len),
			       wpath);
		}
		if (!have_sysctl())
			continue;
		EXPECT_EQ(want, read_knob(SCY_KNOB_SYSCTL)) {
			TH_LOG("after writing %s to %s", printable(forms[i], len),
			       wpath);
		}
	}
}

TEST_F(knob, write_sysfs_read_both)
{
	if (self->skip)
		SKIP(return, "%s", self->reason);
	if (geteuid() != 0)
		SKIP(return, "needs root to write the knob");
	write_read_both(_metadata, SCY_KNOB_SYSFS);
}

TEST_F(knob, write_sysctl_read_both)
{
	if (self->skip)
		SKIP(return, "%s", self->reason);
	if (!have_sysctl())
		SKIP(return, NO_SYSCTL_REASON);
	if (geteuid() != 0)
		SKIP(return, "needs root to write the knob");
	write_read_both(_metadata, SCY_KNOB_SYSCTL);
}

/* Mode 0644, owned by root */
TEST_F(knob, file_mode)
{
	struct stat sb;
	int i, nr = nr_knob_files();

	if (self->skip)
		SKIP(return, "%s", self->reason);
	for (i = 0; i < nr; i++) {
		ASSERT_EQ(0, stat(knob_paths[i], &sb)) {
			TH_LOG("stat(%s): %s", knob_paths[i], strerror(errno));
		}
		EXPECT_TRUE(S_ISREG(sb.st_mode)) {
			TH_LOG("%s is not a regular file", knob_paths[i]);
		}
		EXPECT_EQ(0644U, sb.st_mode & 07777) {
			TH_LOG("%s has mode %04o, want 0644", knob_paths[i],
			       sb.st_mode & 07777);
		}
		EXPECT_EQ(0U, sb.st_uid) {
			TH_LOG("%s is owned by uid %u", knob_paths[i],
			       sb.st_uid);
		}
		EXPECT_EQ(0U, sb.st_gid) {
			TH_LOG("%s is owned by gid %u", knob_paths[i],
			       sb.st_gid);
		}
	}
}

/*
 * A process without privileges cannot open the knob for writing, and can
 * read it.  The child reports through its exit code: 0 is fine, otherwise
 * 10 * (file index + 1) + step.
 */
enum {
	NR_OK,
	NR_SETGROUPS,
	NR_SETGID,
	NR_SETUID,
	NR_OPEN_WRITE_WORKED,
	NR_OPEN_WRITE_ERRNO,
	NR_READ_FAILED,
};

TEST_F(knob, nonroot_cannot_write)
{
	static const char * const what[] = {
		[NR_OK] = "ok",
		[NR_SETGROUPS] = "setgroups() failed",
		[NR_SETGID] = "setresgid() failed",
		[NR_SETUID] = "setresuid() failed",
		[NR_OPEN_WRITE_WORKED] = "open for writing succeeded",
		[NR_OPEN_WRITE_ERRNO] =
			"open for writing failed, errno not EACCES/EPERM",
		[NR_READ_FAILED] = "cannot read",
	};
	int status, code, i, before, nr = nr_knob_files();
	pid_t pid;

	if (self->skip)
		SKIP(return, "%s", self->reason);
	if (geteuid() != 0)
		SKIP(return, "needs root to write the knob");
	before = read_knob(SCY_KNOB_SYSFS);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (setgroups(0, NULL))
			_exit(NR_SETGROUPS);
		if (setresgid(NOBODY, NOBODY, NOBODY))
			_exit(NR_SETGID);
		if (setresuid(NOBODY, NOBODY, NOBODY))
			_exit(NR_SETUID);
		for (i = 0; i < nr; i++) {
			int fd = open(knob_paths[i], O_WRONLY);

			if (fd >= 0) {
				/* try to change the value, to be noticed */
				ssize_t r = write(fd, before ? "0" : "1", 1);

				(void)r;
				close(fd);
				_exit(10 * (i + 1) + NR_OPEN_WRITE_WORKED);
			}
			if (errno != EACCES && errno != EPERM)
				_exit(10 * (i + 1) + NR_OPEN_WRITE_ERRNO);
			if (read_knob(knob_paths[i]) < 0)
				_exit(10 * (i + 1) + NR_READ_FAILED);
		}
		_exit(NR_OK);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	code = WEXITSTATUS(status);
	EXPECT_EQ(0, code) {
		if (code < 10)
			TH_LOG("dropping privileges: %s",
			       code < NR_OPEN_WRITE_WORKED ? what[code] : "?");
		else
			TH_LOG("uid %d: %s: %s", NOBODY,
			       knob_paths[code / 10 - 1],
			       code % 10 <= NR_READ_FAILED ?
			       what[code % 10] : "?");
	}
	EXPECT_EQ(before, read_knob(SCY_KNOB_SYSFS));
}

/* ------------------------------------------------------------------ */
/*
 * Invalid writes fail with EINVAL and change nothing: both files, both
 * starting values.
 */

FIXTURE(invalid) {
	int saved;
	bool skip;
	char reason[160];
};

FIXTURE_VARIANT(invalid) {
	const char *path;
	int start;
};

FIXTURE_VARIANT_ADD(invalid, sysfs_from_0) {
	.path = SCY_KNOB_SYSFS,
	.start = 0,
};

FIXTURE_VARIANT_ADD(invalid, sysfs_from_1) {
	.path = SCY_KNOB_SYSFS,
	.start = 1,
};

FIXTURE_VARIANT_ADD(invalid, sysctl_from_0) {
	.path = SCY_KNOB_SYSCTL,
	.start = 0,
};

FIXTURE_VARIANT_ADD(invalid, sysctl_from_1) {
	.path = SCY_KNOB_SYSCTL,
	.start = 1,
};

FIXTURE_SETUP(invalid)
{
	knob_fixture_setup(_metadata, &self->saved, &self->skip, self->reason,
			   sizeof(self->reason));
	if (!self->skip && geteuid() != 0) {
		self->skip = true;
		snprintf(self->reason, sizeof(self->reason),
			 "needs root to write the knob");
	}
	if (!self->skip && !strcmp(variant->path, SCY_KNOB_SYSCTL) &&
	    !have_sysctl()) {
		self->skip = true;
		snprintf(self->reason, sizeof(self->reason), NO_SYSCTL_REASON);
	}
	if (self->skip)
		SKIP(return, "%s", self->reason);
	ASSERT_EQ(0, write_knob(SCY_KNOB_SYSFS, variant->start));
	ASSERT_EQ(variant->start, read_knob(SCY_KNOB_SYSFS));
}

FIXTURE_TEARDOWN(invalid)
{
	knob_fixture_teardown(self->saved);
}

TEST_F(invalid, rejected_unchanged)
{
	/*
	 * Only "0" or "1", optionally followed by a single "\n", is valid:
	 * no sign, no leading zero, no whitespace, nothing after it.
	 */
	static const char * const bad[] = {
		"2", "-1", "yes please", "1x", "01", " 1", "1 ", "1\n\n",
		"\n", "0x1", "+1", "10", "y", "on", "\0001",
	};
	static char big[4096];
	size_t i, len;
	ssize_t n;
	int err;

	if (self->skip)
		SKIP(return, "%s", self->reason);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* "\0001": a NUL byte before the "1" */
		len = bad[i][0] ? strlen(bad[i]) : 2;
		n = write_raw(variant->path, bad[i], len, &err);
		EXPECT_EQ(-1, n) {
			TH_LOG("write(%s, %s) returned %zd, want -1/EINVAL",
			       variant->path, printable(bad[i], len), n);
		}
		EXPECT_EQ(EINVAL, err) {
			TH_LOG("write(%s, %s): %s, want EINVAL", variant->path,
			       printable(bad[i], len), strerror(err));
		}
		EXPECT_EQ(variant->start, read_knob(SCY_KNOB_SYSFS)) {
			TH_LOG("%s changed by %s", SCY_KNOB_SYSFS,
			       printable(bad[i], len));
		}
		EXPECT_EQ(variant->start, read_knob(second_file())) {
			TH_LOG("%s changed by %s", second_file(),
			       printable(bad[i], len));
		}
	}

	/* a page of '1's (sysfs hands the store at most one page) */
	memset(big, '1', sizeof(big));
	n = write_raw(variant->path, big, sizeof(big), &err);
	EXPECT_EQ(-1, n) {
		TH_LOG("write(%s, %s) returned %zd", variant->path,
		       printable(big, sizeof(big)), n);
	}
	EXPECT_EQ(EINVAL, err) {
		TH_LOG("write(%s, %s): %s, want EINVAL", variant->path,
		       printable(big, sizeof(big)), strerror(err));
	}
	EXPECT_EQ(variant->start, read_knob(SCY_KNOB_SYSFS));
	EXPECT_EQ(variant->start, read_knob(second_file()));

	/*
	 * A zero-length write may be answered by the VFS or by kernfs
	 * (sysfs_kf_write() returns 0 for an empty buffer) without reaching
	 * the knob's handler, so both 0 and -1/EINVAL are accepted; what
	 * must hold is that nothing changed.
	 */
	n = write_raw(variant->path, "", 0, &err);
	EXPECT_TRUE(n == 0 || (n == -1 && err == EINVAL)) {
		TH_LOG("write(%s, \"\", 0) returned %zd (%s), want 0 or EINVAL",
		       variant->path, n, strerror(err));
	}
	EXPECT_EQ(variant->start, read_knob(SCY_KNOB_SYSFS));
	EXPECT_EQ(variant->start, read_knob(second_file()));
}

/* ------------------------------------------------------------------ */
/*
 * cpu.compat_yield: a group "scy-abi-<pid>" with the leaves "a", "a/b" and
 * "c" below it, the cpu controller enabled on the way.
 */

#define GROUP_FILE	SCY_GROUP_SWITCH

/* leaves of the setup; "a", the parent of "a/b", is LEAF_A */
enum { LEAF_AB, LEAF_C, NR_LEAVES, LEAF_A = NR_LEAVES };

/* Path of the file of leaf @leaf (-1: the base, LEAF_A: "a") */
static const char *group_file(int leaf, char *buf, size_t len)
{
	if (leaf == LEAF_A)
		snprintf(buf, len, "%s/../" GROUP_FILE, scy_cgroup_dir(LEAF_AB));
	else
		snprintf(buf, len, "%s/" GROUP_FILE, scy_cgroup_dir(leaf));
	return buf;
}

static int read_group(int leaf)
{
	char path[512];

	return read_knob(group_file(leaf, path, sizeof(path)));
}

static int write_group(int leaf, int val)
{
	char path[512];

	return write_knob(group_file(leaf, path, sizeof(path)), val);
}

FIXTURE(group) {
	int saved;
	bool skip;
	char reason[256];
	char root[256];
};

FIXTURE_SETUP(group)
{
	static const char * const leaves[] = {
		[LEAF_AB] = "a/b", [LEAF_C] = "c",
	};
	char base[64], err[256], path[512];
	int ret;

	knob_fixture_setup(_metadata, &self->saved, &self->skip, self->reason,
			   sizeof(self->reason));
	if (!self->skip && geteuid() != 0) {
		self->skip = true;
		snprintf(self->reason, sizeof(self->reason),
			 "needs root to create cgroups");
	}
	if (!self->skip && scy_cgroup2_mount(self->root, sizeof(self->root))) {
		self->skip = true;
		snprintf(self->reason, sizeof(self->reason),
			 "no cgroup2 file system mounted");
	}
	if (self->skip)
		SKIP(return, "%s", self->reason);
	snprintf(base, sizeof(base), "scy-abi-%d", getpid());
	ret = scy_cgroup_setup(base, leaves, NR_LEAVES, err, sizeof(err));
	if (ret == SCY_EUNSUPPORTED) {
		self->skip = true;
		snprintf(self->reason, sizeof(self->reason), "%s", err);
		SKIP(return, "%s", self->reason);
	}
	ASSERT_EQ(SCY_OK, ret) TH_LOG("cgroup setup: %s", err);
	/* the groups the tests create below "c" have the cpu controller */
	ret = scy_cgroup_write(LEAF_C, "cgroup.subtree_control", "+cpu");
	ASSERT_EQ(0, ret) TH_LOG("+cpu in %s: %s", scy_cgroup_dir(LEAF_C),
				 strerror(ret));
	if (access(group_file(LEAF_A, path, sizeof(path)), F_OK)) {
		self->skip = true;
		snprintf(self->reason, sizeof(self->reason),
			 "kernel has no " GROUP_FILE
			 " (no CONFIG_FAIR_GROUP_SCHED, or an older series)");
		SKIP(return, "%s", self->reason);
	}
}

FIXTURE_TEARDOWN(group)
{
	scy_cgroup_cleanup();
	knob_fixture_teardown(self->saved);
}

TEST_F(group, absent_at_root_zero_at_start)
{
	char path[512], buf[16];
	struct stat st;
	int leaf;

	if (self->skip)
		SKIP(return, "%s", self->reason);
	snprintf(path, sizeof(path), "%s/" GROUP_FILE, self->root);
	EXPECT_NE(0, access(path, F_OK))
		TH_LOG("%s exists: the root's switch is %s", path, SCY_KNOB_SYSFS);
	for (leaf = -1; leaf <= LEAF_A; leaf++) {
		group_file(leaf, path, sizeof(path));
		ASSERT_EQ(2, read_raw(path, buf, sizeof(buf)));
		EXPECT_STREQ("0\n", buf);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0644U, st.st_mode & 07777)
			TH_LOG("%s: mode %o", path, st.st_mode & 07777);
	}
}

TEST_F(group, write_read_own_value)
{
	static const char * const ok[] = { "1", "0", "1\n", "0\n" };
	char path[512];
	size_t i;
	int err, knob = read_knob(SCY_KNOB_SYSFS);

	if (self->skip)
		SKIP(return, "%s", self->reason);
	group_file(LEAF_A, path, sizeof(path));
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		EXPECT_EQ((ssize_t)strlen(ok[i]),
			  write_raw(path, ok[i], strlen(ok[i]), &err))
			TH_LOG("write(%s, %s): %s", path,
			       printable(ok[i], strlen(ok[i])), strerror(err));
		EXPECT_EQ(ok[i][0] - '0', read_group(LEAF_A));
	}
	/* the group's own value: a child and a sibling keep theirs */
	ASSERT_EQ(0, write_group(LEAF_A, 1));
	EXPECT_EQ(1, read_group(LEAF_A));
	EXPECT_EQ(0, read_group(LEAF_AB));
	EXPECT_EQ(0, read_group(LEAF_C));
	EXPECT_EQ(0, read_group(-1));
	ASSERT_EQ(0, write_group(LEAF_AB, 1));
	ASSERT_EQ(0, write_group(LEAF_A, 0));
	EXPECT_EQ(1, read_group(LEAF_AB));
	EXPECT_EQ(0, read_group(LEAF_A));
	/* the machine's switch is another state */
	EXPECT_EQ(knob, read_knob(SCY_KNOB_SYSFS));
	ASSERT_EQ(0, write_knob(SCY_KNOB_SYSFS, !knob));
	EXPECT_EQ(1, read_group(LEAF_AB));
	EXPECT_EQ(0, read_group(LEAF_A));
}

TEST_F(group, rejected_unchanged)
{
	static const char * const bad[] = {
		"2", "-1", "yes please", "1x", "01", " 1", "1 ", "1\n\n",
		"\n", "0x1", "+1", "10", "y", "on", "\0001", "max",
	};
	int start, err, knob = read_knob(SCY_KNOB_SYSFS);
	char path[512];
	size_t i, len;
	ssize_t n;

	if (self->skip)
		SKIP(return, "%s", self->reason);
	group_file(LEAF_C, path, sizeof(path));
	for (start = 0; start <= 1; start++) {
		ASSERT_EQ(0, write_group(LEAF_C, start));
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			len = bad[i][0] ? strlen(bad[i]) : 2;
			n = write_raw(path, bad[i], len, &err);
			EXPECT_TRUE(n == -1 && err == EINVAL)
				TH_LOG("write(%s, %s) from %d: %zd (%s), want EINVAL",
				       path, printable(bad[i], len), start, n,
				       n < 0 ? strerror(err) : "accepted");
			EXPECT_EQ(start, read_group(LEAF_C))
				TH_LOG("%s changed by %s", path, printable(bad[i], len));
			EXPECT_EQ(knob, read_knob(SCY_KNOB_SYSFS))
				TH_LOG("%s changed by %s to %s", SCY_KNOB_SYSFS,
				       printable(bad[i], len), path);
		}
	}
}

TEST_F(group, rmdir_while_set)
{
	char dir[512], path[600];

	if (self->skip)
		SKIP(return, "%s", self->reason);
	snprintf(dir, sizeof(dir), "%s/gone", scy_cgroup_dir(LEAF_C));
	ASSERT_EQ(0, mkdir(dir, 0755));
	snprintf(path, sizeof(path), "%s/" GROUP_FILE, dir);
	EXPECT_EQ(0, write_knob(path, 1));
	EXPECT_EQ(1, read_knob(path));
	EXPECT_EQ(0, rmdir(dir)) TH_LOG("rmdir %s: %s", dir, strerror(errno));
	EXPECT_NE(0, access(dir, F_OK));
}

enum {
	DG_OK,
	DG_DROP,
	DG_OTHERS_WRITE,
	DG_MKDIR,
	DG_OWN_WRITE,
	DG_OWN_READ,
};

/*
 * Root's groups refuse an unprivileged writer; a group that the owner of a
 * delegated subtree creates takes the owner's writes.
 */
TEST_F(group, delegated_owner_only)
{
	static const char * const what[] = {
		[DG_DROP] = "dropping privileges failed",
		[DG_OTHERS_WRITE] = "opened root's group's file for writing",
		[DG_MKDIR] = "mkdir in the delegated group failed",
		[DG_OWN_WRITE] = "writing 1 to its own group's file failed",
		[DG_OWN_READ] = "its own group's file does not read 1",
	};
	static const char * const owned[] = {
		"", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads",
	};
	char path[700], child[600];
	int status, code;
	size_t i;
	pid_t pid;

	if (self->skip)
		SKIP(return, "%s", self->reason);
	/* delegate leaf "c" to nobody, as systemd and Slurm do */
	for (i = 0; i < ARRAY_SIZE(owned); i++) {
		snprintf(path, sizeof(path), "%s%s", scy_cgroup_dir(LEAF_C),
			 owned[i]);
		ASSERT_EQ(0, chown(path, NOBODY, NOBODY))
			TH_LOG("chown %s: %s", path, strerror(errno));
	}
	snprintf(child, sizeof(child), "%s/own", scy_cgroup_dir(LEAF_C));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		int fd;

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(DG_DROP);
		group_file(LEAF_A, path, sizeof(path));
		fd = open(path, O_WRONLY);
		if (fd >= 0 || (errno != EACCES && errno != EPERM))
			_exit(DG_OTHERS_WRITE);
		group_file(LEAF_C, path, sizeof(path));
		fd = open(path, O_WRONLY);
		if (fd >= 0 || (errno != EACCES && errno != EPERM))
			_exit(DG_OTHERS_WRITE);
		if (mkdir(child, 0755))
			_exit(DG_MKDIR);
		snprintf(path, sizeof(path), "%s/" GROUP_FILE, child);
		if (write_knob(path, 1))
			_exit(DG_OWN_WRITE);
		if (read_knob(path) != 1)
			_exit(DG_OWN_READ);
		_exit(DG_OK);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	rmdir(child);
	ASSERT_TRUE(WIFEXITED(status));
	code = WEXITSTATUS(status);
	EXPECT_EQ(DG_OK, code)
		TH_LOG("uid %d: %s", NOBODY,
		       code > DG_OK && code <= DG_OWN_READ ? what[code] : "?");
	EXPECT_EQ(0, read_group(LEAF_A));
	EXPECT_EQ(0, read_group(LEAF_C));
}

TEST_HARNESS_MAIN
