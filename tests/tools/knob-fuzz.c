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
 *
 * Prints one "key=value ..." summary line; exit status 0 when every check
 * held, 1 otherwise, 2 on bad usage. The knob's prior value is restored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSFS	"/sys/kernel/sched_compat_yield"
#define SYSCTL	"/proc/sys/kernel/sched_compat_yield"
#define MAXLEN	4096

static const char *prog = "knob-fuzz";

static void usage(void)
{
	fprintf(stderr,
		"usage: %s fuzz [-n WRITES] [-s SEED]\n"
		"       %s toggle -d SECONDS\n"
		"       %s nonroot\n", prog, prog, prog);
	exit(2);
}

#include "number.h"

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

	prior = read_knob(SYSFS);
	if (prior < 0 || read_knob(SYSCTL) != prior)
		return 1;
	value = prior;
	for (i = 0; i < writes; i++) {
		const char *path = i % 2 ? SYSCTL : SYSFS;
		size_t len = make_input(buf, &seed);
		int want = valid_value(buf, len);
		int err = write_knob(path, buf, len);
		int now = read_knob(SYSFS), now2 = read_knob(SYSCTL);

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
	write_knob(SYSFS, prior ? "1" : "0", 1);
	printf("fuzz writes=%ld valid=%ld invalid=%ld wrong=%ld seed=%u restored=%d\n",
	       writes, valid, invalid, bad, seed0, read_knob(SYSFS) == prior);
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

	prior = read_knob(SYSFS);
	if (prior < 0)
		return 1;
	fd = open(SYSFS, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, SYSFS, strerror(errno));
		return 1;
	}
	do {
		if (pwrite(fd, writes % 2 ? "0" : "1", 1, 0) != 1)
			failed++;
		writes++;
	} while ((writes & 63) || now_s() - start < seconds);
	elapsed = now_s() - start;
	close(fd);
	write_knob(SYSFS, prior ? "1" : "0", 1);
	printf("toggle writes=%ld failed=%ld seconds=%.3f writes_per_s=%.0f restored=%d\n",
	       writes, failed, elapsed, writes / elapsed, read_knob(SYSFS) == prior);
	return failed ? 1 : 0;
}

static int nonroot(void)
{
	int prior = read_knob(SYSFS), status;
	pid_t pid;

	if (prior < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		const char *paths[] = { SYSFS, SYSCTL };
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
	printf("nonroot refused=%d unchanged=%d\n",
	       WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       read_knob(SYSFS) == prior && read_knob(SYSCTL) == prior);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	       read_knob(SYSFS) == prior ? 0 : 1;
}

int main(int argc, char **argv)
{
	long writes = 10000, seed = 1;
	double seconds = 0;
	const char *mode;
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "n:s:d:h")) != -1) {
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
	usage();
}
