// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: prints the rate of this x86 host's time stamp counter in kHz,
 * measured against CLOCK_MONOTONIC_RAW over 200 ms. Each end of the
 * interval is the clock read between two counter reads, the closest of
 * 20 such pairs, so that an interrupt or a preemption at an edge does
 * not move the figure. A guest under TCG without -icount reads this
 * counter at this rate (vm/run.sh gives it to the guest's kernel).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

struct edge {
	uint64_t tsc;
	uint64_t ns;
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static struct edge edge(void)
{
	uint64_t best = UINT64_MAX;
	struct edge e = { 0, 0 };
	int i;

	for (i = 0; i < 20; i++) {
		uint64_t a = __rdtsc();
		uint64_t ns = mono_ns();
		uint64_t b = __rdtsc();

		if (b - a < best) {
			best = b - a;
			e.tsc = a + (b - a) / 2;
			e.ns = ns;
		}
	}
	return e;
}

int main(void)
{
	struct timespec pause = { 0, 200000000 };
	struct edge a, b;

	a = edge();
	nanosleep(&pause, NULL);
	b = edge();
	if (b.ns <= a.ns || b.tsc <= a.tsc) {
		fprintf(stderr, "tsc-khz: the counter or the clock did not advance\n");
		return 1;
	}
	printf("%llu\n", (unsigned long long)((b.tsc - a.tsc) * 1000000ull / (b.ns - a.ns)));
	return 0;
}
