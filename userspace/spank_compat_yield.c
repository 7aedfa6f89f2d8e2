// SPDX-License-Identifier: GPL-2.0
/*
 * compat_yield.so: a Slurm SPANK plugin that turns the compat yield on for
 * a job, by writing 1 to cpu.compat_yield of the job's cgroup (job_N in
 * Slurm's cgroup v2 tree), so that every step and task of the job has it
 * and nothing outside the job does.  The kernel needs the series'
 * cpu.compat_yield (or the livepatch that adds it) and the cpu controller
 * on in the job's tree.
 *
 * plugstack.conf:
 *	required /path/to/compat_yield.so [default=0|1]
 * default is the site's value for jobs that do not ask (0 if not given).
 * srun, sbatch, salloc:
 *	--compat-yield[=0|1]	(no value: 1)
 * sbatch and salloc hand the option to the steps of the job.
 *
 * The file is written where Slurm runs privileged (slurmstepd, in each
 * task just before it drops its privileges), only where its value is not
 * the one asked for.  A job that asks for 1 on a node without the file
 * fails, with the reason; a job left at 0 there runs.  A bad value of the
 * option or of the plugin's argument is refused with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/spank.h>

SPANK_PLUGIN(compat_yield, 1);

#define CGROUP_ROOT	"/sys/fs/cgroup"

/* the site's value for jobs that do not ask (plugstack.conf default=) */
static int site_default;
/* the job's --compat-yield, -1 where it was not given */
static int asked = -1;

/* "0" or "1" into *v; -1 otherwise */
static int parse_01(const char *s, int *v)
{
	if (!strcmp(s, "0"))
		*v = 0;
	else if (!strcmp(s, "1"))
		*v = 1;
	else
		return -1;
	return 0;
}

static int option_cb(int val, const char *optarg, int remote)
{
	int v = 1;

	(void)val;
	(void)remote;
	/* no value: NULL here, "" where a batch step replays the option */
	if (optarg && *optarg && parse_01(optarg, &v)) {
		slurm_error("compat_yield: --compat-yield takes 0 or 1, not '%s'",
			    optarg);
		return -1;
	}
	asked = v;
	return 0;
}

static struct spank_option compat_yield_option = {
	"compat-yield", "[0|1]",
	"sched_yield() sends the job's tasks to the back of their CPU's "
	"queue (cpu.compat_yield of the job's cgroup; no value: 1)",
	2, 0, option_cb
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	int i;

	/* registered, not in a spank_options table: sbatch and salloc too */
	if ((ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE ||
	     ctx == S_CTX_ALLOCATOR) &&
	    spank_option_register(sp, &compat_yield_option) != ESPANK_SUCCESS) {
		slurm_error("compat_yield: cannot register --compat-yield");
		return -1;
	}
	for (i = 0; i < ac; i++) {
		if (!strncmp(av[i], "default=", 8) &&
		    !parse_01(av[i] + 8, &site_default))
			continue;
		slurm_error("compat_yield: plugstack.conf argument '%s': the plugin takes default=0 or default=1",
			    av[i]);
		return -1;
	}
	return 0;
}

/*
 * The job's cgroup, as a path below CGROUP_ROOT, into @buf: the part of
 * this process's cgroup v2 path up to the component job_@job.  -1 where
 * there is none (no cgroup v2, or Slurm's cgroup plugin is not v2).
 */
static int job_cgroup(uint32_t job, char *buf, size_t len)
{
	char line[PATH_MAX + 8], comp[32];
	size_t clen;
	int found = -1;
	FILE *f;

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	clen = snprintf(comp, sizeof(comp), "/job_%u", job);
	while (found && fgets(line, sizeof(line), f)) {
		char *p, *at;

		if (strncmp(line, "0::", 3))
			continue;
		p = line + 3;
		p[strcspn(p, "\n")] = '\0';
		for (at = strstr(p, comp); at; at = strstr(at + 1, comp)) {
			if (at[clen] != '/' && at[clen] != '\0')
				continue;
			at[clen] = '\0';
			if (strlen(p) < len) {
				strcpy(buf, p);
				found = 0;
			}
			break;
		}
	}
	fclose(f);
	return found;
}

/* the file's value into *v: 0 or an errno */
static int read_value(const char *path, int *v)
{
	char b[8] = "";
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, b, sizeof(b) - 1);
	e = n < 0 ? errno : 0;
	close(fd);
	if (e)
		return e;
	b[n > 0 ? n : 0] = '\0';
	b[strcspn(b, "\n")] = '\0';
	return parse_01(b, v) ? EINVAL : 0;
}

static int write_value(const char *path, int v)
{
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, v ? "1" : "0", 1) != 1)
		e = errno ? errno : EIO;
	if (close(fd) && !e)
		e = errno;
	return e;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	int want = asked >= 0 ? asked : site_default, cur = -1, e;
	char cg[PATH_MAX], path[PATH_MAX + 64];
	uint32_t job;

	(void)ac;
	(void)av;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) {
		slurm_error("compat_yield: cannot get the job's id");
		return -1;
	}
	if (job_cgroup(job, cg, sizeof(cg))) {
		if (!want)
			return 0;
		slurm_error("compat_yield: job %u: no cgroup job_%u in /proc/self/cgroup (Slurm's cgroup/v2 plugin makes one)",
			    job, job);
		return -1;
	}
	snprintf(path, sizeof(path), CGROUP_ROOT "%s/cpu.compat_yield", cg);
	e = read_value(path, &cur);
	if (e) {
		if (!want)
			return 0;
		slurm_error("compat_yield: job %u: %s: %s (%s)", job, path,
			    strerror(e), e == ENOENT ?
			    "a kernel without cpu.compat_yield, or the cpu controller is off in the job's tree" :
			    "cannot read it");
		return -1;
	}
	if (cur == want)
		return 0;
	e = write_value(path, want);
	if (e) {
		slurm_error("compat_yield: job %u: cannot write %d to %s: %s",
			    job, want, path, strerror(e));
		return -1;
	}
	slurm_verbose("compat_yield: job %u: %s set to %d", job, path, want);
	return 0;
}
