// SPDX-License-Identifier: GPL-2.0
/*
 * compat_yield.so: a Slurm SPANK plugin that turns the compat yield on for
 * a job, by writing 1 to cpu.compat_yield of the job's cgroup (job_N in
 * Slurm's cgroup v2 tree), so that every step and task of the job has it
 * and nothing outside the job does.  The kernel needs cpu.compat_yield
 * (the series', or the livepatch's on Debian's kernels) and the cpu
 * controller on in the job's tree.
 *
 * plugstack.conf:
 *	required /path/to/compat_yield.so [default=0|1]
 * default is the site's value for jobs that do not ask (0 if not given).
 * srun, sbatch, salloc:
 *	--compat-yield[=0|1]	(no value: 1; a value needs the '=')
 * sbatch and salloc hand the option to the steps of the job, also with
 * --export=NONE.
 *
 * The file is the job's, one for all its steps.  It is written where Slurm
 * runs privileged (slurmstepd, in each task just before it drops its
 * privileges), only where its value is not the one wanted: a step that
 * gives the option sets the job's value (the last one started wins); a
 * step that does not leaves it alone, but for default=1, which sets a job
 * still at 0 to 1.  So a step without the option (srun --overlap beside a
 * running one) never turns it off.  A step that asks for 1 on a node
 * without the file fails, with the reason; one that does not ask runs.  A
 * bad value of the option or of the plugin's argument is refused with a
 * message, by srun, sbatch and salloc.
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
/* the step's --compat-yield, -1 where it was not given */
static int asked = -1;

/* the option as sbatch and salloc pass it to the job's environment */
#define OPTION_ENV	"SLURM_SPANK__SLURM_SPANK_OPTION_compat_yield_compat_yield"

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
	/*
	 * no value: NULL here, "" where a batch step replays the option, and
	 * "(null)" where sbatch or salloc wrote it to the job's environment
	 */
	if (optarg && *optarg && strcmp(optarg, "(null)") &&
	    parse_01(optarg, &v)) {
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

	/* slurmd and the prolog/epilog have no option and write nothing */
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE &&
	    ctx != S_CTX_ALLOCATOR)
		return 0;
	/* registered, not in a spank_options table: sbatch and salloc too */
	if (spank_option_register(sp, &compat_yield_option) != ESPANK_SUCCESS) {
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
	errno = 0;
	if (write(fd, v ? "1" : "0", 1) != 1)
		e = errno ? errno : EIO;
	if (close(fd) && !e)
		e = errno;
	return e;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	char cg[PATH_MAX], path[PATH_MAX + 64], env[16];
	int want, cur = -1, e;
	uint32_t job;

	(void)ac;
	(void)av;
	/*
	 * sbatch --export=NONE keeps the job's SLURM_* variables only: the
	 * batch step then has the option there, not as a replayed option
	 */
	if (asked < 0 &&
	    spank_getenv(sp, OPTION_ENV, env, sizeof(env)) == ESPANK_SUCCESS &&
	    option_cb(0, env, 1))
		return -1;
	want = asked >= 0 ? asked : site_default;
	/* a step that does not ask and a site default of 0: nothing to do */
	if (asked < 0 && !want)
		return 0;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) {
		slurm_error("compat_yield: cannot get the job's id");
		return asked == 1 ? -1 : 0;
	}
	if (job_cgroup(job, cg, sizeof(cg))) {
		slurm_error("compat_yield: job %u: no cgroup job_%u in /proc/self/cgroup (Slurm's cgroup/v2 plugin makes one)",
			    job, job);
		return asked == 1 ? -1 : 0;
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
		/* only a step that asked fails; the site default does not */
		return asked == 1 ? -1 : 0;
	}
	/* the site default sets a job still at 0; an explicit value any */
	if (cur == want || (asked < 0 && cur))
		return 0;
	e = write_value(path, want);
	if (e) {
		slurm_error("compat_yield: job %u: cannot write %d to %s: %s",
			    job, want, path, strerror(e));
		return asked >= 0 ? -1 : 0;
	}
	slurm_verbose("compat_yield: job %u: %s set to %d", job, path, want);
	return 0;
}
