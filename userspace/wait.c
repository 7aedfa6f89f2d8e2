// SPDX-License-Identifier: GPL-2.0
/*
 * Wait strategies on a shared-memory word; see wait.h.
 *
 * Lost wake-ups: a sleeper increments w->waiters and then re-reads w->val
 * before FUTEX_WAIT (which itself re-checks the value in the kernel); the
 * publisher stores w->val and then reads w->waiters.  Both pairs are
 * sequentially consistent, so either the sleeper sees the new value and
 * does not sleep, or the publisher sees the sleeper and wakes it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wait.h"

#define STOP_BOUND_US	100000UL	/* longest block when p->stop is set */

static const char *const names[WAIT_NR_STRATEGIES] = {
	[WAIT_POLL]	= "poll",
	[WAIT_YIELD]	= "yield",
	[WAIT_BLOCK]	= "block",
	[WAIT_ADAPTIVE]	= "adaptive",
	[WAIT_SLEEP]	= "sleep",
};

void wait_params_init(struct wait_params *p)
{
	memset(p, 0, sizeof(*p));
	p->strategy = WAIT_POLL;
	p->tries_poll = WAIT_DEF_TRIES_POLL;
	p->tries_yield = WAIT_DEF_TRIES_YIELD;
	p->timeout_us = WAIT_DEF_TIMEOUT_US;
	p->sleep_cap_us = WAIT_DEF_SLEEP_CAP_US;
}

const char *wait_strategy_name(enum wait_strategy s)
{
	return (unsigned int)s < WAIT_NR_STRATEGIES ? names[s] : "unknown";
}

int wait_strategy_parse(const char *name, enum wait_strategy *s)
{
	int i;

	for (i = 0; i < WAIT_NR_STRATEGIES; i++) {
		if (!strcmp(name, names[i])) {
			*s = i;
			return 0;
		}
	}
	return -1;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static long futex(uint32_t *uaddr, int op, uint32_t val,
		  const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

static bool stopped(const struct wait_params *p)
{
	return p->stop && *p->stop;
}

/*
 * Sleep on w->val while it still reads @cur; timeout_us 0: no timeout.
 * Returns after a wake, a timeout, a signal or a value change.
 */
static void block(struct wait_word *w, uint32_t cur, unsigned long timeout_us,
		  const struct wait_params *p, struct wait_stats *st)
{
	struct timespec ts, *tsp = NULL;

	if (p->stop && (!timeout_us || timeout_us > STOP_BOUND_US))
		timeout_us = STOP_BOUND_US;
	if (timeout_us) {
		ts.tv_sec = timeout_us / 1000000;
		ts.tv_nsec = (timeout_us % 1000000) * 1000;
		tsp = &ts;
	}

	__atomic_fetch_add(&w->waiters, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&w->val, __ATOMIC_SEQ_CST) == cur) {
		st->blocks++;
		if (futex(&w->val, FUTEX_WAIT, cur, tsp) && errno == ETIMEDOUT)
			st->timeouts++;
	}
	__atomic_fetch_sub(&w->waiters, 1, __ATOMIC_RELEASE);
}

static void backoff_sleep(unsigned long us, struct wait_stats *st)
{
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (us % 1000000) * 1000,
	};

	st->sleeps++;
	st->sleep_us += us;
	nanosleep(&ts, NULL);	/* EINTR: just check again */
}

int wait_until(struct wait_word *w, uint32_t expected,
	       const struct wait_params *p, struct wait_stats *st)
{
	unsigned long n, sleep_us = 0;
	struct wait_stats dummy;
	uint32_t cur;

	if (!st)
		st = &dummy;
	for (n = 0; ; n++) {
		cur = __atomic_load_n(&w->val, __ATOMIC_ACQUIRE);
		st->checks++;
		if (cur == expected)
			return 0;
		/*
		 * The waker may have published and then stopped us (a child
		 * that replies and exits raises SIGCHLD): look once more.
		 */
		if (stopped(p))
			return __atomic_load_n(&w->val, __ATOMIC_ACQUIRE) ==
			       expected ? 0 : -1;

		switch (p->strategy) {
		case WAIT_POLL:
			cpu_relax();
			break;
		case WAIT_YIELD:
			st->yields++;
			sched_yield();
			break;
		case WAIT_BLOCK:
			block(w, cur, 0, p, st);
			break;
		case WAIT_ADAPTIVE:
			if (n < p->tries_poll) {
				cpu_relax();
			} else if (n - p->tries_poll < p->tries_yield) {
				st->yields++;
				sched_yield();
			} else {
				block(w, cur, p->timeout_us ? p->timeout_us : 1,
				      p, st);
			}
			break;
		case WAIT_SLEEP:
		default:
			if (sleep_us < (p->sleep_cap_us ? p->sleep_cap_us : 1))
				sleep_us++;
			backoff_sleep(sleep_us, st);
			break;
		}
	}
}

void wait_publish(struct wait_word *w, uint32_t val, struct wait_stats *st)
{
	__atomic_store_n(&w->val, val, __ATOMIC_SEQ_CST);
	if (st)
		st->publishes++;
	if (__atomic_load_n(&w->waiters, __ATOMIC_SEQ_CST)) {
		if (st)
			st->wakes++;
		futex(&w->val, FUTEX_WAKE, INT_MAX, NULL);
	}
}
