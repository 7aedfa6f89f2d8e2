// SPDX-License-Identifier: GPL-2.0
/*
 * contract-check: the matrix's judge (selftests/sched_compat_yield/
 * contract.c), compiled on the host and fed synthetic windows.  For every
 * cell of the default set and of the full product, on each kernel's
 * parameters (6.12's EEVDF and 6.1's CFS, each as a one-vCPU and a
 * two-vCPU guest sets them):
 *   - the limits do not read the knob-1 window: they are the same whatever
 *     the knob-1 samples are, and no lower than the contract's bound;
 *   - a knob-1 window at the bound passes, and one whose samples alone grow
 *     fails: every yield 50 ms longer (p50), 2% of them (p99), one (max);
 *     so does a window one tick past the bound at each statistic (a rule
 *     that keeps the yielder a tick longer), while one 175 us past (the
 *     path from the tick back into the yielder) passes;
 *   - one knob-1 yield that returned at once fails G1 where G1 is judged,
 *     a loop share over 0.5% fails the shares where they are judged;
 *   - where time is not judged (-U), time, G1 and G4 are SKIPs, never
 *     passes, and so are the shares of a window without a yield (a stall
 *     charged to the yielder can hold it off that long); where time is
 *     judged, such a window fails the time line and the shares; with the guest's stalls taken out (-S), G1 and G4 are
 *     SKIPs, the shares judge the loop share alone (a stall is charged to
 *     the task that ran through it), and the time line still fails on a
 *     knob-1 window 50 ms longer;
 *   - with -S or -U, a window whose longest stall is as long as the
 *     window: its loop share is a SKIP (a stall charged to a rival leaves
 *     the yielder lag that it runs off in yields that return at once); a
 *     stall a millisecond shorter leaves it judged, and failing over 0.5%;
 *   - a yielder outside the groups at 1 beside one (-R, G5): a window as
 *     knob 0's passes; every yield 50 ms longer fails the time line, none
 *     returning at once fails the G5 line of yields that return at once,
 *     a hundredth of knob 0's loop share fails the shares; the limits
 *     are knob 0's, whatever the window judged;
 *   - on 6.12 with the kernel's own reweight_entity() (the livepatch),
 *     the p99 and max bound of a cell whose flipped rival is a task at
 *     the yielder's level grows by that rival's light request, and only
 *     there.
 * Prints TAP, one line per property with the number of cells it held in
 * and the first cell where it did not.
 *
 *   contract-check
 *   contract-check bound eevdf BASE_SLICE_NS TICK_NS WEIGHT...
 *   contract-check bound cfs LATENCY_NS MIN_GRAN_NS WAKEUP_GRAN_NS TICK_NS WEIGHT...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

#define MS		1000000ULL
#define DELAY		(50 * MS)

enum prop {
	P_BOUND, P_STAYS, P_PASS, P_P50, P_P99, P_MAX, P_G1, P_LOOP, P_UNTIMED,
	P_STALLS, P_G5, P_REWEIGHT, P_NOYIELD, P_STALL_WIN, P_TICK, P_CPU, NR_PROP
};

static const char * const prop_text[NR_PROP] = {
	"every limit is at least the contract's bound and knob 0's figure",
	"the limits stay put whatever the knob-1 samples are",
	"a knob-1 window at the bound passes every sub-check",
	"every knob-1 yield 50 ms longer (the p50 grows): the time line fails",
	"2% of the knob-1 yields 50 ms longer (p99 and max grow): the time line fails",
	"one knob-1 yield 50 ms longer (the max grows): the time line fails",
	"one knob-1 yield returning at once fails G1 wherever G1 is judged",
	"a knob-1 loop share over 0.5% fails the shares wherever they are judged",
	"with time not judged (-U), time, G1 and G4 are SKIPs, not passes, and the shares judge the loop share alone (a window without a yield: a SKIP too)",
	"with the guest's stalls taken out (-S), G1 and G4 are SKIPs, not passes, the shares judge the loop share alone, and the time line still fails on every yield 50 ms longer",
	"-R (G5): a window as knob 0's passes; every yield 50 ms longer, none returning at once, or a hundredth of the loop share fails its line; the limits stay put",
	"the kernel's own reweight_entity() (the livepatch on 6.12): the p99 and max limits of a cell whose flipped rival is a task at the yielder's level grow by that rival's light request (slice * 1024 / w, to the tick), and no other limit moves",
	"a knob-1 window without a yield, time judged: the time line fails, and so do the shares where they are judged",
	"a loop share over 0.5% in a window with a stall as long as the window: a SKIP with -S or -U; it fails with a stall a millisecond shorter, and where time is judged",
	"a knob-1 window one tick past the bound (the larger of the contract's and knob 0's figure, or their sum where the cell sums them) at p50, at p99, at the max: the time line fails each time; 175 us past at all three (the path from the tick back into the yielder) passes",
	"a knob-1 CPU share 2 points over knob 0's fails the shares wherever they are judged, except in the migrate cells, whose CPU time holds the other vCPU's turns (the loop share still judged there)",
};

static int held[NR_PROP], failed[NR_PROP];
static char first[NR_PROP][256];

static void note(enum prop p, bool ok, const char *what)
{
	if (ok) {
		held[p]++;
		return;
	}
	if (!failed[p]++)
		snprintf(first[p], sizeof(first[p]), "%s", what);
}

static bool same_limits(const struct ct_judgement *a,
			const struct ct_judgement *b)
{
	return a->lim50 == b->lim50 && a->lim99 == b->lim99 &&
	       a->limmax == b->limmax;
}

/* one cell on one kernel's parameters */
static void check_cell(const struct ct_sched *sp, const char *kname,
		       const struct ct_cell *c)
{
	struct ct_judgement j, j2;
	struct ct_win k0, k1, grown, nosib;
	struct ct_sched sps;
	char what[256], name[128];
	const char *why;
	int s, nsub = c->ev == EV_SIBLING ? CT_NR_SUB : CT_G4;
	bool all;

	ct_cell_name(c, name, sizeof(name));
	snprintf(what, sizeof(what), "%s, cell %s", kname, name);
	/* knob 0: the stock yield, short waits and a long one */
	memset(&k0, 0, sizeof(k0));
	k0.nyields = 1000;
	k0.p50 = sp->tick_ns / 2;
	k0.p99 = sp->tick_ns;
	k0.max = 3 * sp->tick_ns;
	k0.cpu_share = 0.3;
	k0.loop_share = 0.2;
	memset(&nosib, 0, sizeof(nosib));
	nosib.nyields = 200;
	nosib.cpu_share = 0.003;

	/* knob 1 at the bound: every statistic on its limit */
	ct_judge(sp, c, &k0, &k0, &nosib, NULL, &j);
	memset(&k1, 0, sizeof(k1));
	k1.nyields = 200;
	k1.p50 = j.lim50;
	k1.p99 = j.lim99;
	k1.max = j.limmax;
	k1.cpu_share = 0.003;
	k1.loop_share = 0.0002;
	note(P_BOUND, j.lim50 >= j.b.p50 && j.lim99 >= j.b.p99 &&
	     j.limmax >= j.b.max && j.lim50 >= k0.p50 &&
	     j.lim99 >= k0.p99 && j.limmax >= k0.max, what);
	/* the same cell on the kernel's own reweight_entity() */
	if (sp->kind == CT_EEVDF) {
		struct ct_sched spr = *sp;
		struct ct_judgement jr;
		__u64 grow = 0, q = sp->tick_ns;
		bool at_level = c->t.pl == PL_ENTITY ?
				ct_ent_is_task(&c->t, c->t.ye) &&
				ct_ent_is_task(&c->t, c->t.re[0]) :
				ct_rivals_are_tasks(c);

		spr.stock_reweight = !sp->stock_reweight;
		ct_judge(&spr, c, &k0, &k0, &nosib, NULL, &jr);
		if ((c->ev == EV_NICE || c->ev == EV_POLICY) && at_level)
			grow = (__u64)(sp->base_slice_ns * 1024.0 /
				       ct_weight_of(c->t.w[0]) + q - 1) / q * q;
		if (sp->stock_reweight)
			note(P_REWEIGHT, jr.lim50 == j.lim50 &&
			     j.b.p99 == jr.b.p99 + grow &&
			     j.b.max == jr.b.max + grow, what);
		else
			note(P_REWEIGHT, jr.lim50 == j.lim50 &&
			     jr.b.p99 == j.b.p99 + grow &&
			     jr.b.max == j.b.max + grow, what);
	}

	ct_judge(sp, c, &k0, &k1, &nosib, NULL, &j);
	all = true;
	for (s = 0; s < nsub; s++)
		if (j.st[s] == CT_FAIL)
			all = false;
	note(P_PASS, all && j.st[CT_TIME] == CT_OK, what);

	/* every yield 50 ms longer */
	grown = k1;
	grown.p50 += DELAY;
	grown.p99 += DELAY;
	grown.max += DELAY;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_P50, j2.st[CT_TIME] == CT_FAIL, what);
	note(P_STAYS, same_limits(&j, &j2), what);
	/* 2%: p99 and max */
	grown = k1;
	grown.p99 += DELAY;
	grown.max += DELAY;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_P99, j2.st[CT_TIME] == CT_FAIL, what);
	note(P_STAYS, same_limits(&j, &j2), what);
	/* one yield: the max */
	grown = k1;
	grown.max += DELAY;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_MAX, j2.st[CT_TIME] == CT_FAIL, what);
	note(P_STAYS, same_limits(&j, &j2), what);
	/*
	 * One tick past the bound, one statistic at a time: the bound is the
	 * larger of the contract's and knob 0's figure, or their sum and a
	 * tick where the cell sums them; the judge's own limits decide.
	 */
	{
		__u64 q = sp->tick_ns, b50, b99, bmax;
		bool red = true;

		b50 = j.b.p50 > k0.p50 ? j.b.p50 : k0.p50;
		if (j.b.k0_sum) {
			b99 = k0.p99 + j.b.p99 + q;
			bmax = k0.max + j.b.max + q;
		} else {
			b99 = j.b.p99 > k0.p99 ? j.b.p99 : k0.p99;
			bmax = j.b.max > k0.max ? j.b.max : k0.max;
		}
		grown = k1;
		grown.p50 = b50 + q;
		grown.p99 = grown.p99 > grown.p50 ? grown.p99 : grown.p50;
		grown.max = grown.max > grown.p99 ? grown.max : grown.p99;
		ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
		red = red && j2.st[CT_TIME] == CT_FAIL;
		grown = k1;
		grown.p99 = b99 + q;
		grown.max = grown.max > grown.p99 ? grown.max : grown.p99;
		ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
		red = red && j2.st[CT_TIME] == CT_FAIL;
		grown = k1;
		grown.max = bmax + q;
		ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
		red = red && j2.st[CT_TIME] == CT_FAIL;
		/* and the slack covers the path from the tick: 175 us passes */
		grown = k1;
		grown.p50 = b50 + 175000;
		grown.p99 = b99 + 175000;
		grown.max = bmax + 175000;
		ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
		note(P_TICK, red && j2.st[CT_TIME] == CT_OK, what);
	}
	/* a knob-1 window of zeros: the limits again */
	memset(&grown, 0, sizeof(grown));
	grown.nyields = 1;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_STAYS, same_limits(&j, &j2), what);

	/* G1 */
	grown = k1;
	grown.at_once = 1;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_G1, ct_g1_judged(sp, c, &why) ? j2.st[CT_G1] == CT_FAIL :
	     j2.st[CT_G1] == CT_SKIP, what);
	/* shares */
	grown = k1;
	grown.loop_share = 0.006;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_LOOP, ct_heavy_rival(c, &why) ? j2.st[CT_SHARES] == CT_FAIL :
	     j2.st[CT_SHARES] == CT_SKIP, what);

	/* the CPU share: judged beside the loop share, but not in migrate cells */
	grown = k1;
	grown.cpu_share = k0.cpu_share + 0.02;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_CPU, !ct_heavy_rival(c, &why) ? j2.st[CT_SHARES] == CT_SKIP :
	     c->ev == EV_MIGRATE ? j2.st[CT_SHARES] == CT_OK :
	     j2.st[CT_SHARES] == CT_FAIL, what);
	grown.loop_share = 0.006;
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_CPU, ct_heavy_rival(c, &why) ? j2.st[CT_SHARES] == CT_FAIL :
	     j2.st[CT_SHARES] == CT_SKIP, what);

	/* -U: what time moves is a SKIP, even far over its limit */
	grown = k1;
	grown.p50 += DELAY;
	grown.p99 += DELAY;
	grown.max += DELAY;
	grown.at_once = 5;
	grown.cpu_share = 0.5;
	ct_judge(sp, c, &k0, &grown, &nosib, "-U", &j2);
	/* the loop share (0.02%) judged, the CPU share (50%) not */
	note(P_UNTIMED, j2.st[CT_TIME] == CT_SKIP && j2.st[CT_G1] == CT_SKIP &&
	     j2.st[CT_G4] == CT_SKIP &&
	     j2.st[CT_SHARES] == (ct_heavy_rival(c, &why) ? CT_OK : CT_SKIP),
	     what);
	/*
	 * A knob-1 window without a yield: under -U (a stall charged to the
	 * yielder can hold it off that long) the shares are not judged;
	 * where time is judged, the time line and the shares fail.
	 */
	grown = k1;
	grown.nyields = 0;
	grown.loop_share = 0;
	ct_judge(sp, c, &k0, &grown, &nosib, "-U", &j2);
	note(P_UNTIMED, j2.st[CT_SHARES] == CT_SKIP && j2.st[CT_TIME] == CT_SKIP, what);
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_NOYIELD, j2.st[CT_TIME] == CT_FAIL &&
	     j2.st[CT_SHARES] == (ct_heavy_rival(c, &why) ? CT_FAIL : CT_SKIP), what);

	/* -S: G1 reported only; the time judged */
	sps = *sp;
	sps.stalls = true;
	grown = k1;
	grown.p50 += DELAY;
	grown.p99 += DELAY;
	grown.max += DELAY;
	grown.at_once = 5;
	grown.cpu_share = 0.5;
	ct_judge(&sps, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_STALLS, j2.st[CT_G1] == CT_SKIP && j2.st[CT_TIME] == CT_FAIL &&
	     j2.st[CT_G4] == CT_SKIP &&
	     j2.st[CT_SHARES] == (ct_heavy_rival(c, &why) ? CT_OK : CT_SKIP),
	     what);
	/* ... and a loop share over 0.5% still fails them */
	grown = k1;
	grown.loop_share = 0.006;
	ct_judge(&sps, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_STALLS, ct_heavy_rival(c, &why) ?
	     j2.st[CT_SHARES] == CT_FAIL : j2.st[CT_SHARES] == CT_SKIP, what);
	/*
	 * A stall as long as the window (-S, -U): the loop share is a SKIP;
	 * one a little shorter leaves it judged, and where time is judged
	 * the stall is not read at all.
	 */
	grown.len = 600 * MS;
	grown.stall = grown.len;
	ct_judge(&sps, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_STALL_WIN, j2.st[CT_SHARES] == CT_SKIP, what);
	ct_judge(sp, c, &k0, &grown, &nosib, "-U", &j2);
	note(P_STALL_WIN, j2.st[CT_SHARES] == CT_SKIP, what);
	ct_judge(sp, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_STALL_WIN, ct_heavy_rival(c, &why) ?
	     j2.st[CT_SHARES] == CT_FAIL : j2.st[CT_SHARES] == CT_SKIP, what);
	grown.stall = grown.len - MS;
	ct_judge(&sps, c, &k0, &grown, &nosib, NULL, &j2);
	note(P_STALL_WIN, ct_heavy_rival(c, &why) ?
	     j2.st[CT_SHARES] == CT_FAIL : j2.st[CT_SHARES] == CT_SKIP, what);
	ct_judge(sp, c, &k0, &grown, &nosib, "-U", &j2);
	note(P_STALL_WIN, ct_heavy_rival(c, &why) ?
	     j2.st[CT_SHARES] == CT_FAIL : j2.st[CT_SHARES] == CT_SKIP, what);

	/* -R, G5: knob 0's window with most yields returning at once */
	k0.at_once = 800;
	ct_judge_outside(sp, &k0, &k0, NULL, &j);
	note(P_G5, j.st[CT_TIME] == CT_OK && j.st[CT_G1] == CT_OK &&
	     j.st[CT_SHARES] == CT_OK && j.st[CT_G4] == CT_SKIP &&
	     j.lim50 == k0.p50 + sp->tick_ns + CT_SLACK_NS &&
	     j.lim99 == k0.p99 + sp->tick_ns + CT_SLACK_NS,
	     what);
	grown = k0;
	grown.p50 += DELAY;
	grown.p99 += DELAY;
	ct_judge_outside(sp, &k0, &grown, NULL, &j2);
	note(P_G5, j2.st[CT_TIME] == CT_FAIL && j2.st[CT_G1] == CT_OK &&
	     same_limits(&j, &j2), what);
	grown = k0;
	grown.at_once = 0;
	ct_judge_outside(sp, &k0, &grown, NULL, &j2);
	note(P_G5, j2.st[CT_G1] == CT_FAIL && j2.st[CT_TIME] == CT_OK, what);
	grown = k0;
	grown.loop_share = k0.loop_share / 100;
	ct_judge_outside(sp, &k0, &grown, NULL, &j2);
	note(P_G5, j2.st[CT_SHARES] == CT_FAIL && j2.st[CT_G1] == CT_OK, what);
	/* where knob 0's yields seldom return at once, G1 is not judged */
	k0.at_once = 10;
	grown = k0;
	grown.at_once = 0;
	ct_judge_outside(sp, &k0, &grown, NULL, &j2);
	note(P_G5, j2.st[CT_G1] == CT_SKIP, what);
}

/*
 * contract-check bound eevdf BASE_SLICE_NS TICK_NS WEIGHT...
 * contract-check bound cfs LATENCY_NS MIN_GRAN_NS WAKEUP_GRAN_NS TICK_NS WEIGHT...
 * The bound of a yielder of nice 0 beside rivals of those weights in its
 * own group, no event: "p50 p99 max" in ns (for tests/contract-model.py).
 */
static int print_bound(int argc, char **argv)
{
	struct ct_sched sp;
	struct ct_bound b;
	int i = 3;

	memset(&sp, 0, sizeof(sp));
	if (argc < 6)
		return 2;
	if (!strcmp(argv[2], "eevdf")) {
		sp.kind = CT_EEVDF;
		sp.base_slice_ns = strtoull(argv[i++], NULL, 10);
	} else if (!strcmp(argv[2], "cfs") && argc >= 8) {
		sp.kind = CT_CFS;
		sp.latency_ns = strtoull(argv[i++], NULL, 10);
		sp.min_gran_ns = strtoull(argv[i++], NULL, 10);
		sp.wakeup_gran_ns = strtoull(argv[i++], NULL, 10);
	} else {
		return 2;
	}
	sp.tick_ns = strtoull(argv[i++], NULL, 10);
	memset(&b, 0, sizeof(b));
	b.w = 1024;
	for (; i < argc && b.n < CT_MAX_LEVEL_RIVALS; i++) {
		b.rw[b.n] = strtod(argv[i], NULL);
		b.wr += b.rw[b.n++];
	}
	if (!sp.tick_ns || b.wr <= 0)
		return 2;
	ct_bound_level(&sp, &b, 1 + b.n);
	printf("%llu %llu %llu\n", (unsigned long long)b.p50,
	       (unsigned long long)b.p99, (unsigned long long)b.max);
	return 0;
}

static int name_index(const char * const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/*
 * contract-check cell eevdf BASE_SLICE_NS TICK_NS EVENT RIVAL...
 * The bound of the matrix's cell of that event (none, long-slice, ...)
 * with the yielder and those rivals (idle, nice19, nice0, nice-10; the
 * first is the one the event acts on) in the test's group, as ct_bound()
 * gives it to the matrix: "p50 p99 max" in ns (for tests/contract-model.py).
 */
static int print_cell_bound(int argc, char **argv)
{
	struct ct_sched sp;
	struct ct_cell c;
	struct ct_bound b;
	int i, w;

	if (argc < 7 || strcmp(argv[2], "eevdf"))
		return 2;
	memset(&sp, 0, sizeof(sp));
	memset(&c, 0, sizeof(c));
	sp.kind = CT_EEVDF;
	sp.base_slice_ns = strtoull(argv[3], NULL, 10);
	sp.tick_ns = strtoull(argv[4], NULL, 10);
	i = name_index(ct_ev_names, NR_EV, argv[5]);
	if (i < 0 || !sp.tick_ns || !sp.base_slice_ns)
		return 2;
	c.ev = i;
	c.t.pl = PL_SAME;
	for (i = 6; i < argc && c.t.nr < CT_MAX_RIVALS; i++) {
		w = name_index(ct_w_names, NR_W, argv[i]);
		if (w < 0)
			return 2;
		c.t.w[c.t.nr++] = w;
	}
	if (i < argc)
		return 2;
	ct_bound(&sp, &c, &b);
	printf("%llu %llu %llu\n", (unsigned long long)b.p50,
	       (unsigned long long)b.p99, (unsigned long long)b.max);
	return 0;
}

int main(int argc, char **argv)
{
	/* the guests' parameters: HZ=250; 1 and 2 vCPUs */
	static const struct {
		const char *name;
		struct ct_sched sp;
	} kernels[] = {
		{ "6.12, 1 CPU", { CT_EEVDF, 4 * MS, 750000, 0, 0, 0, false, false } },
		{ "6.12, 2 CPUs", { CT_EEVDF, 4 * MS, 1500000, 0, 0, 0, false, false } },
		{ "6.1, 1 CPU", { CT_CFS, 4 * MS, 0, 6 * MS, 750000, 1 * MS, false, false } },
		{ "6.1, 2 CPUs", { CT_CFS, 4 * MS, 0, 12 * MS, 1500000, 2 * MS, false, false } },
		{ "6.12 livepatch, 1 CPU", { CT_EEVDF, 4 * MS, 750000, 0, 0, 0, false, true } },
	};
	struct ct_cell *cells;
	int k, full, n, i, p, cells_seen = 0;

	if (argc > 1) {
		if (!strcmp(argv[1], "bound") && !print_bound(argc, argv))
			return 0;
		if (!strcmp(argv[1], "cell") && !print_cell_bound(argc, argv))
			return 0;
		fprintf(stderr, "usage: contract-check [bound eevdf|cfs PARAMS... TICK_NS WEIGHT... | cell eevdf BASE_SLICE_NS TICK_NS EVENT RIVAL...]\n");
		return 2;
	}

	for (k = 0; k < (int)(sizeof(kernels) / sizeof(kernels[0])); k++) {
		for (full = 0; full <= 1; full++) {
			n = ct_gen_cells(full, NULL, 0);
			cells = calloc(n, sizeof(*cells));
			if (!cells) {
				fprintf(stderr, "out of memory\n");
				return 2;
			}
			ct_gen_cells(full, cells, n);
			for (i = 0; i < n; i++)
				check_cell(&kernels[k].sp, kernels[k].name,
					   &cells[i]);
			cells_seen += n;
			free(cells);
		}
	}
	printf("1..%d\n", NR_PROP);
	for (p = 0; p < NR_PROP; p++) {
		if (failed[p])
			printf("not ok %d - %s: %d held, %d did not, first: %s\n",
			       p + 1, prop_text[p], held[p], failed[p],
			       first[p]);
		else
			printf("ok %d - %s (%d checks over %d cells, %d kernel settings)\n",
			       p + 1, prop_text[p], held[p], cells_seen,
			       (int)(sizeof(kernels) / sizeof(kernels[0])));
	}
	for (p = 0; p < NR_PROP; p++)
		if (failed[p])
			return 1;
	return 0;
}
