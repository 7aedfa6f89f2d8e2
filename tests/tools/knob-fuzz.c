// SPDX-License-Identifier: GPL-2.0
/*
 * knob-fuzz: hammer the sched_compat_yield knob.
 *
 *   knob-fuzz fuzz [-n WRITES] [-s SEED]
 *	WRITES random writes (default 10000), alternating between
 *	/sys/kernel/sched_compat_yield and /proc/sys/kernel/sched_compat_yield:
 *	valid values, near misses and random bytes of 1 to 4096 bytes. After
 *	each write both files are read back: a valid write must succeed and
 *	set the value, an invalid one must fail with EINVAL and change
 *	nothing.
 *   knob-fuzz toggle -d SECONDS
 *	write 1, 0, 1, ... to the sysfs file for SECONDS as fast as possible
 *	and report the writes per second (a stress load).
 *   knob-fuzz nonroot
 *	as uid/gid 65534, opening either file for writing must fail with
 *	EACCES and the value must not change.
 *   knob-fuzz storm [-p PROCS] [-n WRITES] [-r ROUNDS]
 *	PROCS processes (default 4; even ones write through the sysfs file,
 *	odd ones through the sysctl) write "1\n" and "0\n" at once, WRITES
 *	(default 10000, rounded up to a multiple of PROCS x ROUNDS) in all.
 *	In each of the ROUNDS rounds (default 100) they are released together
 *	(a futex barrier in shared memory), each writes its share, alternating
 *	values, so that at every step each file gets a 1 and a 0 from two
 *	writers (with 4 and more); then, when all are done, one of them (in
 *	turn) flips the value with one more write and every process must read
 *	that value from both files. Every write must succeed. At the end one
 *	process writes 1 and 0 through each file, reading both after each.
 *	What a kernel without serialisation of the knob's writers shows most
 *	reliably is a WARNING in its log (static_key_disable() racing an
 *	enable): the caller checks the log.
 *
 * Where the kernel has no kernel.sched_compat_yield sysctl, every write and
 * read goes through the sysfs file (the summary says sysctl=0).
 *
 * Prints one "key=value ..." summary line; exit status 0 when every check
 * held, 1 otherwise, 2 on bad usage. The knob's prior value is restored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXLEN	4096
#define MAXPROCS	64

static const char *prog = "knob-fuzz";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s fuzz [-n WRITES] [-s SEED]\n"
		"       %s toggle -d SECONDS\n"
		"       %s nonroot\n"
		"       %s storm [-p PROCS] [-n WRITES] [-r ROUNDS]\n",
		prog, prog, prog, prog);
	exit(2);
}

#include "number.h"
#include "place.h"
#include "task.h"

/*
 * The second file: the sysctl, or the sysfs file again on a kernel without
 * kernel.sched_compat_yield (CONFIG_SCHED_COMPAT_YIELD_SYSCTL not set).
 */
static const char *knob2 = SCY_KNOB_SYSCTL;
static bool have_sysctl = true;

/* The knob's value through @path: 0 or 1, or -1 after printing why. */
static int read_knob(const char *path)
{
	char buf[16] = "";
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n == 2 && (buf[0] == '0' || buf[0] == '1') && buf[1] == '\n')
		return buf[0] - '0';
	fprintf(stderr, "%s: %s reads '%.*s'\n", prog, path, n > 0 ? (int)n : 0, buf);
	return -1;
}

/* write(2) @len bytes to @path; 0 or the errno. */
static int write_knob(const char *path, const char *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = -1;	/* short write: not expected from either file */
	close(fd);
	return err;
}

/* The rule the series documents: "0" or "1", optionally one newline. */
static int valid_value(const char *buf, size_t len)
{
	if (len == 2 && buf[1] == '\n')
		len = 1;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -1;
	return buf[0] - '0';
}

static size_t make_input(char *buf, unsigned int *seed)
{
	static const char *const near[] = {
		"0", "1", "0\n", "1\n", "2", "-1", "01", "10", " 1", "1 ",
		"1\n\n", "\n", "1x", "yes", "0\n1", "1\0", "on", "true",
	};
	static const size_t near_len[] = {
		1, 1, 2, 2, 1, 2, 2, 2, 2, 2, 3, 1, 2, 3, 3, 2, 2, 4,
	};
	unsigned int r = rand_r(seed) % 100;
	size_t len, i;

	if (r < 40) {
		i = rand_r(seed) % (sizeof(near) / sizeof(near[0]));
		memcpy(buf, near[i], near_len[i]);
		return near_len[i];
	}
	/* random bytes: mostly short, sometimes up to a page */
	len = r < 80 ? 1 + rand_r(seed) % 4 : 1 + rand_r(seed) % MAXLEN;
	for (i = 0; i < len; i++)
		buf[i] = rand_r(seed) % 4 ? "01\n \t-x"[rand_r(seed) % 7]
					  : (char)(rand_r(seed) & 0xff);
	return len;
}

static int fuzz(long writes, unsigned int seed)
{
	static char buf[MAXLEN];
	long valid = 0, invalid = 0, bad = 0, i;
	unsigned int seed0 = seed;
	int value, prior;

	prior = read_knob(SCY_KNOB_SYSFS);
	if (prior < 0 || read_knob(knob2) != prior)
		return 1;
	value = prior;
	for (i = 0; i < writes; i++) {
		const char *path = i % 2 ? knob2 : SCY_KNOB_SYSFS;
		size_t len = make_input(buf, &seed);
		int want = valid_value(buf, len);
		int err = write_knob(path, buf, len);
		int now = read_knob(SCY_KNOB_SYSFS), now2 = read_knob(knob2);

		if (want >= 0) {
			valid++;
			if (!err)
				value = want;
		} else {
			invalid++;
		}
		if ((want >= 0 && err) || (want < 0 && err != EINVAL) ||
		    now != value || now2 != value) {
			if (bad++ < 10)
				fprintf(stderr,
					"%s: write %ld of %zu bytes to %s ('%.*s'): %s; value %d/%d, expected %d\n",
					prog, i, len, path, len > 8 ? 8 : (int)len, buf,
					err > 0 ? strerror(err) : err ? "short write" : "ok",
					now, now2, value);
			if (now >= 0)
				value = now;
		}
	}
	write_knob(SCY_KNOB_SYSFS, prior ? "1" : "0", 1);
	printf("fuzz sysctl=%d writes=%ld valid=%ld invalid=%ld wrong=%ld seed=%u restored=%d\n",
	       have_sysctl, writes, valid, invalid, bad, seed0,
	       read_knob(SCY_KNOB_SYSFS) == prior);
	return bad ? 1 : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int toggle(double seconds)
{
	double start = now_s(), elapsed;
	long writes = 0, failed = 0;
	int prior, fd;

	prior = read_knob(SCY_KNOB_SYSFS);
	if (prior < 0)
		return 1;
	fd = open(SCY_KNOB_SYSFS, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, SCY_KNOB_SYSFS, strerror(errno));
		return 1;
	}
	do {
		if (pwrite(fd, writes % 2 ? "0" : "1", 1, 0) != 1)
			failed++;
		writes++;
	} while ((writes & 63) || now_s() - start < seconds);
	elapsed = now_s() - start;
	close(fd);
	write_knob(SCY_KNOB_SYSFS, prior ? "1" : "0", 1);
	printf("toggle writes=%ld failed=%ld seconds=%.3f writes_per_s=%.0f restored=%d\n",
	       writes, failed, elapsed, writes / elapsed, read_knob(SCY_KNOB_SYSFS) == prior);
	return failed ? 1 : 0;
}

static int nonroot(void)
{
	int prior = read_knob(SCY_KNOB_SYSFS), status;
	pid_t pid;

	if (prior < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		const char *paths[] = { SCY_KNOB_SYSFS, knob2 };
		int i, wrong = 0;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("setuid 65534");
			_exit(1);
		}
		for (i = 0; i < 2; i++) {
			int err = write_knob(paths[i], prior ? "0" : "1", 1);

			if (err != EACCES) {
				fprintf(stderr, "%s: uid 65534 writing %s: %s, expected EACCES\n",
					prog, paths[i], err ? strerror(err) : "accepted");
				wrong++;
			}
		}
		_exit(wrong ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("nonroot sysctl=%d refused=%d unchanged=%d\n",
	       have_sysctl, WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       read_knob(SCY_KNOB_SYSFS) == prior && read_knob(knob2) == prior);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	       read_knob(SCY_KNOB_SYSFS) == prior ? 0 : 1;
}

/*
 * storm: the writers share this page. The barrier is a generation count
 * (the futex word) and an arrival count: the last to arrive resets the
 * count and bumps the generation, which releases the others at once.
 * abort releases everyone for good (a writer died).
 */
struct storm {
	unsigned int arrived;
	unsigned int gen;
	unsigned int nprocs;
	int abort;
	int value;		/* what the round's last write wrote */
	int printed;		/* failures described on stderr so far */
	struct {
		long writes, last, failed, wrong;
	} w[MAXPROCS];
};

static void storm_wake(struct storm *s)
{
	__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Wait for all writers: 0, or -1 when the storm was aborted. */
static int storm_barrier(struct storm *s)
{
	unsigned int gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL) == s->nprocs) {
		__atomic_store_n(&s->arrived, 0, __ATOMIC_RELAXED);
		storm_wake(s);
	} else {
		while (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) == gen &&
		       !__atomic_load_n(&s->abort, __ATOMIC_ACQUIRE))
			syscall(SYS_futex, &s->gen, FUTEX_WAIT, gen, NULL, NULL, 0);
	}
	return __atomic_load_n(&s->abort, __ATOMIC_ACQUIRE) ? -1 : 0;
}

static const char *storm_path(int i)
{
	return i % 2 ? knob2 : SCY_KNOB_SYSFS;
}

/* Writer @i writes @v through @fd (its own open of its path), counted in @count. */
static void storm_write(struct storm *s, int i, int fd, int v, long *count)
{
	int err = 0;
	ssize_t n;

	(*count)++;
	if (fd < 0) {
		err = -fd;
	} else {
		n = pwrite(fd, v ? "1\n" : "0\n", 2, 0);
		if (n < 0)
			err = errno;
		else if (n != 2)
			err = -1;
	}
	if (!err)
		return;
	s->w[i].failed++;
	if (__atomic_fetch_add(&s->printed, 1, __ATOMIC_RELAXED) < 10)
		fprintf(stderr, "%s: writer %d: writing %d to %s: %s\n", prog, i, v,
			storm_path(i), err > 0 ? strerror(err) : "short write");
}

/* Both files read @v; else count and describe it. */
static void storm_expect(struct storm *s, int i, int round, int v)
{
	int a = read_knob(SCY_KNOB_SYSFS), b = read_knob(knob2);

	if (a == v && b == v)
		return;
	s->w[i].wrong++;
	if (__atomic_fetch_add(&s->printed, 1, __ATOMIC_RELAXED) < 10)
		fprintf(stderr, "%s: round %d: writer %d reads %d (sysfs) and %d (sysctl) after the last write of %d\n",
			prog, round, i, a, b, v);
}

static void storm_writer(struct storm *s, int i, int rounds, long burst)
{
	int fd = open(storm_path(i), O_WRONLY), r, last;
	long k;

	if (fd < 0)
		fd = -errno;	/* every write counts as failed, with this errno */
	for (r = 0; r < rounds; r++) {
		if (storm_barrier(s))
			break;
		/* With 4 writers: at each step a 1 and a 0 through each file. */
		for (k = 0; k < burst; k++)
			storm_write(s, i, fd, (i / 2 + r + k) % 2, &s->w[i].writes);
		if (storm_barrier(s))
			break;
		/* All writes of the round have returned: one more, alone. */
		last = r % s->nprocs;
		if (i == last) {
			int v = read_knob(SCY_KNOB_SYSFS) == 1 ? 0 : 1;

			storm_write(s, i, fd, v, &s->w[i].last);
			__atomic_store_n(&s->value, v, __ATOMIC_RELEASE);
			storm_expect(s, i, r, v);
		}
		if (storm_barrier(s))
			break;
		if (i != last)
			storm_expect(s, i, r, __atomic_load_n(&s->value, __ATOMIC_ACQUIRE));
	}
	_exit(r == rounds ? 0 : 1);
}

static int storm(int nprocs, long writes, long rounds)
{
	long burst, failed = 0, wrong = 0, total = 0, last = 0;
	int prior, i, fd, final_wrong = 0, died = 0;
	pid_t pids[MAXPROCS];
	double start, elapsed;
	struct storm *s;

	prior = read_knob(SCY_KNOB_SYSFS);
	if (prior < 0 || read_knob(knob2) != prior)
		return 1;
	for (i = 0; i < 2; i++) {
		fd = open(storm_path(i), O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, storm_path(i), strerror(errno));
			return 1;
		}
		close(fd);
	}
	if (rounds > writes / nprocs)
		rounds = writes / nprocs ? writes / nprocs : 1;
	burst = (writes + nprocs * rounds - 1) / (nprocs * rounds);
	s = shared_map(sizeof(*s));
	if (!s)
		return 1;
	s->nprocs = nprocs;
	fflush(NULL);
	start = now_s();
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			__atomic_store_n(&s->abort, 1, __ATOMIC_RELEASE);
			storm_wake(s);
			nprocs = i;
			died = 1;
			break;
		}
		if (pids[i] == 0)
			storm_writer(s, i, (int)rounds, burst);
	}
	for (i = 0; i < nprocs; i++) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0) {
			perror("wait");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			/* the others would wait for it at the next barrier */
			if (!died++)
				fprintf(stderr, "%s: writer pid %d %s %d\n", prog, (int)pid,
					WIFEXITED(status) ? "exited with status" : "killed by signal",
					WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			__atomic_store_n(&s->abort, 1, __ATOMIC_RELEASE);
			storm_wake(s);
		}
	}
	elapsed = now_s() - start;
	for (i = 0; i < nprocs; i++) {
		total += s->w[i].writes;
		last += s->w[i].last;
		failed += s->w[i].failed;
		wrong += s->w[i].wrong;
	}
	/* One process, no one else writing: each value through each file. */
	for (i = 0; i < 4; i++) {
		const char *path = i == 1 || i == 2 ? knob2 : SCY_KNOB_SYSFS;
		int v = i % 2 ? 0 : 1, err, a, b;

		err = write_knob(path, v ? "1\n" : "0\n", 2);
		a = read_knob(SCY_KNOB_SYSFS);
		b = read_knob(knob2);
		if (err || a != v || b != v) {
			final_wrong++;
			fprintf(stderr, "%s: after the storm, writing %d to %s: %s; reads %d (sysfs) and %d (sysctl)\n",
				prog, v, path, err > 0 ? strerror(err) : err ? "short write" : "ok", a, b);
		}
	}
	write_knob(SCY_KNOB_SYSFS, prior ? "1" : "0", 1);
	printf("storm sysctl=%d procs=%d writes=%ld failed=%ld rounds=%ld last_writes=%ld wrong_reads=%ld final_checks=4 final_wrong=%d seconds=%.3f writes_per_s=%.0f writers_ok=%d restored=%d\n",
	       have_sysctl, nprocs, total, failed, rounds, last,
	       wrong, final_wrong,
	       elapsed, (total + last) / elapsed, !died, read_knob(SCY_KNOB_SYSFS) == prior);
	return failed || wrong || final_wrong || died ? 1 : 0;
}

int main(int argc, char **argv)
{
	long writes = 10000, seed = 1, procs = 4, rounds = 100;
	double seconds = 0;
	const char *mode;
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	if (access(SCY_KNOB_SYSCTL, F_OK) && errno == ENOENT) {
		knob2 = SCY_KNOB_SYSFS;
		have_sysctl = false;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "n:s:d:p:r:h")) != -1) {
		switch (c) {
		case 'n':
			writes = number("-n", optarg, 1, 100000000);
			break;
		case 's':
			seed = number("-s", optarg, 0, 0x7fffffff);
			break;
		case 'd':
			seconds = number("-d", optarg, 1, 86400);
			break;
		case 'p':
			procs = number("-p", optarg, 2, MAXPROCS);
			break;
		case 'r':
			rounds = number("-r", optarg, 1, 1000000);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!strcmp(mode, "fuzz"))
		return fuzz(writes, (unsigned int)seed);
	if (!strcmp(mode, "toggle") && seconds > 0)
		return toggle(seconds);
	if (!strcmp(mode, "nonroot"))
		return nonroot();
	if (!strcmp(mode, "storm"))
		return storm((int)procs, writes, rounds);
	usage();
}
