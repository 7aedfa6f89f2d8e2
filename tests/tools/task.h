/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Task helpers shared by the test tools: each defines `prog` before
 * including this.
 */
#ifndef TOOLS_TASK_H
#define TOOLS_TASK_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Pin the calling task to @cpu; exit(1) with a message if that fails. */
static inline void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: sched_setaffinity to CPU %d: %s\n", prog,
			cpu, strerror(errno));
		_exit(1);
	}
}

/* @size zeroed bytes shared with the children forked later, or NULL. */
static inline void *shared_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	memset(p, 0, size);
	return p;
}

#endif /* TOOLS_TASK_H */
