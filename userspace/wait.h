/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wait strategies for "wait until *word == expected" on a word in memory
 * shared between processes (MAP_SHARED) or threads.
 *
 *   poll      busy loop (with a pause hint)
 *   yield     check, sched_yield(), check again, ...
 *   block     FUTEX_WAIT until woken (event based)
 *   adaptive  poll tries_poll times, then yield tries_yield times, then
 *             FUTEX_WAIT with a timeout of timeout_us, re-check, repeat
 *   sleep     back-off: check, nanosleep(1 us), check, nanosleep(2 us), ...
 *             growing by 1 us per try up to sleep_cap_us
 *
 * The waker publishes with wait_publish(): a store of the new value and a
 * FUTEX_WAKE only when a waiter has announced that it may be asleep (the
 * waiters count of the word), so wakes are free for poll/yield/sleep
 * waiters.  Shared futexes (no FUTEX_PRIVATE_FLAG) are used, so a
 * struct wait_word may live in a MAP_SHARED mapping used across fork().
 */
#ifndef WAIT_H
#define WAIT_H

#include <signal.h>
#include <stdint.h>

enum wait_strategy {
	WAIT_POLL,
	WAIT_YIELD,
	WAIT_BLOCK,
	WAIT_ADAPTIVE,
	WAIT_SLEEP,
	WAIT_NR_STRATEGIES,
};

#define WAIT_DEF_TRIES_POLL	1000UL
#define WAIT_DEF_TRIES_YIELD	100UL
#define WAIT_DEF_TIMEOUT_US	1000UL
#define WAIT_DEF_SLEEP_CAP_US	100UL

/* One cache line: the futex word and the count of possible sleepers. */
struct wait_word {
	uint32_t val;		/* the value waited for; the futex word */
	uint32_t waiters;	/* waiters that may be in FUTEX_WAIT on val */
} __attribute__((aligned(64)));

struct wait_params {
	enum wait_strategy strategy;
	unsigned long tries_poll;	/* adaptive: polls before yielding */
	unsigned long tries_yield;	/* adaptive: yields before blocking */
	unsigned long timeout_us;	/* adaptive: futex wait timeout, >= 1 */
	unsigned long sleep_cap_us;	/* sleep: longest nanosleep, >= 1 */
	/*
	 * Optional: wait_until() gives up and returns -1 once *stop is
	 * non-zero (e.g. set by a SIGCHLD handler).  Blocking waits are then
	 * bounded to 100 ms so a signal racing with FUTEX_WAIT is noticed.
	 */
	const volatile sig_atomic_t *stop;
};

/* Counters, added to by the wait functions; zero-initialise. */
struct wait_stats {
	uint64_t checks;	/* loads of the word */
	uint64_t yields;	/* sched_yield() calls */
	uint64_t blocks;	/* FUTEX_WAIT calls */
	uint64_t timeouts;	/* FUTEX_WAIT calls that timed out */
	uint64_t sleeps;	/* nanosleep() calls */
	uint64_t sleep_us;	/* microseconds asked of nanosleep() */
	uint64_t publishes;	/* wait_publish() calls */
	uint64_t wakes;		/* FUTEX_WAKE calls made by wait_publish() */
};

/* Defaults above, strategy poll, no stop flag. */
void wait_params_init(struct wait_params *p);

const char *wait_strategy_name(enum wait_strategy s);
/* 0 and *s set, or -1 for an unknown name */
int wait_strategy_parse(const char *name, enum wait_strategy *s);

/*
 * Wait until w->val == expected (acquire: what the publisher wrote before
 * wait_publish() is visible afterwards).  Returns 0, or -1 if p->stop was
 * set first.  @st may be NULL.
 */
int wait_until(struct wait_word *w, uint32_t expected,
	       const struct wait_params *p, struct wait_stats *st);

/* Store val (release) and wake the word's sleepers, if any.  @st may be NULL. */
void wait_publish(struct wait_word *w, uint32_t val, struct wait_stats *st);

#endif /* WAIT_H */
