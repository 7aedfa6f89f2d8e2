// SPDX-License-Identifier: GPL-2.0
/*
 * The compat yield's contract, computed: cells, bounds, judge (contract.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

const char * const ct_pl_names[NR_PL] = {
	"same", "session", "cgroup", "nested", "cgroup-root", "entity",
};

const char * const ct_e_names[NR_E] = {
	"task", "session", "cgroup", "nested",
};

const char * const ct_w_names[NR_W] = {
	"idle", "nice19", "nice0", "nice-10",
};

const int ct_w_nice[NR_W] = { 0, 19, 0, -10 };

const char * const ct_ev_names[NR_EV] = {
	"none", "nice-flip", "policy-flip", "weight-flip", "idle-flip",
	"sleep-wake", "long-slice", "migrate", "sibling",
};

/* sched_prio_to_weight[] of nice 19, 0, -10; WEIGHT_IDLEPRIO */
double ct_weight_of(enum ct_weight w)
{
	switch (w) {
	case W_IDLE:
		return 3;
	case W_NICE19:
		return 15;
	case W_NICE0:
		return 1024;
	case W_NICE_M10:
		return 9548;
	default:
		return 1024;
	}
}

/* ------------------------------------------------------------------ */
/* cells */

bool ct_ev_allowed(enum ct_placement pl, enum ct_event ev)
{
	/* each task placed on its own: the topologies, not the events */
	if (pl == PL_ENTITY)
		return ev == EV_NONE;
	if (ev == EV_WEIGHT || ev == EV_IDLE)
		return pl == PL_CGROUP || pl == PL_NESTED;
	/* in the same placement the yielder's group is the rivals' */
	if (ev == EV_SIBLING)
		return pl != PL_SAME;
	return true;
}

bool ct_ev_flips(enum ct_event ev)
{
	return ev == EV_NICE || ev == EV_POLICY || ev == EV_WEIGHT ||
	       ev == EV_IDLE;
}

/*
 * The rival lists an event takes, in a fixed order (1, 2, 3 rivals; then
 * by weights, heaviest first): multisets; with rival 1 singled out for
 * sleep-wake; rival 1 nice19 for nice-flip and long-slice, idle for
 * policy-flip; nice0 alone for the G4 family of the default set.  Returns
 * how many were written to @out.
 */
static int rival_lists(enum ct_event ev, bool full, struct ct_topo *out,
		       int max)
{
	int nr, a, b, c, n = 0;
	enum ct_weight w[CT_MAX_RIVALS];

	if (ev == EV_SIBLING && !full) {
		if (max > 0) {
			out[0].nr = 1;
			out[0].w[0] = W_NICE0;
		}
		return 1;
	}
	for (nr = 1; nr <= CT_MAX_RIVALS; nr++) {
		for (a = NR_W - 1; a >= 0; a--) {
			if (ev == EV_NICE && a != W_NICE19)
				continue;
			if (ev == EV_POLICY && a != W_IDLE)
				continue;
			if (ev == EV_SLICE && a != W_NICE19)
				continue;
			/* the others heaviest first, rival 1 of any weight */
			for (b = nr > 1 ? NR_W - 1 : 0; b >= 0; b--) {
				for (c = nr > 2 ? b : 0; c >= 0; c--) {
					bool ordered_rest;

					w[0] = a;
					w[1] = b;
					w[2] = c;
					/*
					 * A multiset is listed heaviest first;
					 * sleep-wake, long-slice, nice-flip and
					 * policy-flip single out rival 1,
					 * whatever it weighs.
					 */
					ordered_rest = ev == EV_SLEEP ||
						       ev == EV_SLICE ||
						       ev == EV_NICE ||
						       ev == EV_POLICY;
					if (!ordered_rest && nr > 1 && b > a)
						continue;
					if (n < max) {
						out[n].nr = nr;
						memcpy(out[n].w, w, sizeof(w));
					}
					n++;
				}
			}
		}
	}
	return n;
}

static bool has_weight(const struct ct_topo *t, enum ct_weight w)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (t->w[i] == w)
			return true;
	return false;
}

/*
 * Coverage of the default set: required, every weight beside every
 * placement x event pair; wanted, the pairs of rival count with
 * placement, event and weight.
 */
struct cover {
	bool pew[NR_PL][NR_EV][NR_W];
	bool pl_nr[NR_PL][CT_MAX_RIVALS + 1];
	bool ev_nr[NR_EV][CT_MAX_RIVALS + 1];
	bool nr_w[CT_MAX_RIVALS + 1][NR_W];
	bool ev_w0[NR_EV][NR_W];	/* the weight of the event's rival */
};

#define REQUIRED	100

/*
 * What the list @t adds in @pl x @ev: REQUIRED per new triple, 1 per new
 * pair; with @take, mark them covered.
 */
static int cover_gain(struct cover *cv, enum ct_placement pl,
		      enum ct_event ev, const struct ct_topo *t, bool take)
{
	int gain = 0, w;

	gain += !cv->pl_nr[pl][t->nr] + !cv->ev_nr[ev][t->nr] +
		!cv->ev_w0[ev][t->w[0]];
	for (w = 0; w < NR_W; w++) {
		if (!has_weight(t, w))
			continue;
		gain += REQUIRED * !cv->pew[pl][ev][w] + !cv->nr_w[t->nr][w];
		if (take) {
			cv->pew[pl][ev][w] = true;
			cv->nr_w[t->nr][w] = true;
		}
	}
	if (take) {
		cv->pl_nr[pl][t->nr] = true;
		cv->ev_nr[ev][t->nr] = true;
		cv->ev_w0[ev][t->w[0]] = true;
	}
	return gain;
}

#define MAX_LISTS	64

static void add_cell(struct ct_cell *cells, int max, int *n,
		     enum ct_placement pl, enum ct_event ev,
		     const struct ct_topo *t)
{
	if (cells && *n < max) {
		cells[*n].idx = *n;
		cells[*n].t = *t;
		cells[*n].t.pl = pl;
		cells[*n].ev = ev;
	}
	(*n)++;
}

/*
 * PL_ENTITY: the rival lists, 1 or 2 rivals, each a weight at a place,
 * listed by kind k = weight * NR_E + place, the larger first (a multiset:
 * rival 1's kind >= rival 2's).  Returns how many were written to @out.
 */
static int entity_lists(struct ct_topo *out, int max)
{
	int nr, a, b, n = 0;

	for (nr = 1; nr <= 2; nr++) {
		for (a = NR_W * NR_E - 1; a >= 0; a--) {
			for (b = nr > 1 ? a : 0; b >= 0; b--) {
				if (n < max) {
					memset(&out[n], 0, sizeof(out[n]));
					out[n].nr = nr;
					out[n].w[0] = a / NR_E;
					out[n].re[0] = a % NR_E;
					out[n].w[1] = b / NR_E;
					out[n].re[1] = b % NR_E;
				}
				n++;
			}
		}
	}
	return n;
}

#define MAX_ENTITY_LISTS	(NR_W * NR_E + NR_W * NR_E * (NR_W * NR_E + 1) / 2)

/*
 * PL_ENTITY cells: autogroups on, then off; the yielder at each place;
 * then the rival lists.  Full: every list.  Default: the lists, picked
 * greedily (most new pairs, the earlier on a tie), until every rival
 * weight at every place has been beside the yielder's place; with
 * autogroups off a session is a plain task, so there only the pairs that
 * hold a session (the yielder's or a rival's) are required.
 */
static void gen_entity(bool full, struct ct_cell *cells, int max, int *n)
{
	static struct ct_topo lists[MAX_ENTITY_LISTS];
	bool need[NR_W][NR_E], pp[NR_E][NR_E];
	int nl, ag, ye, i, k, best, g, bg, w, e;
	struct ct_topo t;

	nl = entity_lists(lists, MAX_ENTITY_LISTS);
	for (ag = 1; ag >= 0; ag--) {
		for (ye = 0; ye < NR_E; ye++) {
			for (w = 0; w < NR_W; w++)
				for (e = 0; e < NR_E; e++)
					need[w][e] = ag || ye == E_SESSION ||
						     e == E_SESSION;
			memset(pp, 0, sizeof(pp));
			for (i = 0; full && i < nl; i++) {
				t = lists[i];
				t.ag = ag;
				t.ye = ye;
				add_cell(cells, max, n, PL_ENTITY, EV_NONE, &t);
			}
			while (!full) {
				best = -1;
				bg = REQUIRED - 1;
				for (i = 0; i < nl; i++) {
					const struct ct_topo *l = &lists[i];

					g = REQUIRED * need[l->w[0]][l->re[0]];
					/* a second rival of another kind */
					if (l->nr > 1 &&
					    (l->w[1] != l->w[0] || l->re[1] != l->re[0]))
						g += REQUIRED * need[l->w[1]][l->re[1]];
					/* rivals at two places not yet side by side */
					if (l->nr > 1 && l->re[0] != l->re[1])
						g += !pp[l->re[0]][l->re[1]];
					if (g > bg) {
						bg = g;
						best = i;
					}
				}
				if (best < 0)
					break;
				t = lists[best];
				for (k = 0; k < t.nr; k++)
					need[t.w[k]][t.re[k]] = false;
				if (t.nr > 1) {
					pp[t.re[0]][t.re[1]] = true;
					pp[t.re[1]][t.re[0]] = true;
				}
				t.ag = ag;
				t.ye = ye;
				add_cell(cells, max, n, PL_ENTITY, EV_NONE, &t);
			}
			/*
			 * One rival alone beside the yielder, the tightest
			 * bound: a SCHED_IDLE task in a group of its own,
			 * which weighs 1024 at the root all the same (of the
			 * yielder's kind where it has a group, else a cgroup).
			 */
			if (!full && ag) {
				memset(&t, 0, sizeof(t));
				t.nr = 1;
				t.w[0] = W_IDLE;
				t.re[0] = ye == E_TASK ? E_CGROUP : ye;
				t.ag = ag;
				t.ye = ye;
				add_cell(cells, max, n, PL_ENTITY, EV_NONE, &t);
			}
		}
	}
}

/*
 * Generate the cells, in a fixed order: placements, events, then rival
 * lists.  Full: every list of every allowed pair.  Default: per pair, the
 * list that covers most (REQUIRED for a new triple), the earlier (shorter)
 * on a tie, until every weight is beside the pair.
 */
int ct_gen_cells(bool full, struct ct_cell *cells, int max)
{
	struct ct_topo lists[MAX_LISTS];
	struct cover cv;
	int n = 0, pl, ev, nl, i, best, g, bg;

	memset(&cv, 0, sizeof(cv));
	memset(lists, 0, sizeof(lists));
	for (pl = 0; pl < NR_PL; pl++) {
		if (pl == PL_ENTITY) {
			gen_entity(full, cells, max, &n);
			continue;
		}
		for (ev = 0; ev < NR_EV; ev++) {
			if (!ct_ev_allowed(pl, ev))
				continue;
			nl = rival_lists(ev, full, lists, MAX_LISTS);
			if (nl > MAX_LISTS)
				nl = MAX_LISTS;
			if (full) {
				for (i = 0; i < nl; i++)
					add_cell(cells, max, &n, pl, ev,
						 &lists[i]);
				continue;
			}
			for (;;) {
				best = 0;
				bg = -1;
				for (i = 0; i < nl; i++) {
					g = cover_gain(&cv, pl, ev, &lists[i],
						       false);
					if (g > bg) {
						bg = g;
						best = i;
					}
				}
				if (bg < REQUIRED)
					break;
				cover_gain(&cv, pl, ev, &lists[best], true);
				add_cell(cells, max, &n, pl, ev, &lists[best]);
			}
		}
	}
	return n;
}

void ct_rivals_str(const struct ct_topo *t, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < t->nr && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s%s%s",
				i ? "," : "", ct_w_names[t->w[i]],
				t->pl == PL_ENTITY ? "@" : "",
				t->pl == PL_ENTITY ? ct_e_names[t->re[i]] : "");
}

void ct_placement_str(const struct ct_topo *t, char *buf, size_t len)
{
	if (t->pl == PL_ENTITY)
		snprintf(buf, len, "entity autogroup=%s yielder=%s",
			 t->ag ? "on" : "off", ct_e_names[t->ye]);
	else
		snprintf(buf, len, "%s", ct_pl_names[t->pl]);
}

void ct_cell_name(const struct ct_cell *c, char *buf, size_t len)
{
	char rv[96], pl[64];

	ct_rivals_str(&c->t, rv, sizeof(rv));
	ct_placement_str(&c->t, pl, sizeof(pl));
	snprintf(buf, len, "%d %s rivals=%s event=%s", c->idx, pl, rv,
		 ct_ev_names[c->ev]);
}

bool ct_rivals_are_tasks(const struct ct_cell *c)
{
	return c->t.pl == PL_SAME || c->t.pl == PL_CROOT;
}

bool ct_ent_is_task(const struct ct_topo *t, enum ct_ent e)
{
	return e == E_TASK || (e == E_SESSION && !t->ag);
}

/* Rival @i's weight at the level where the yielder yields, heavy state */
static double level_weight(const struct ct_cell *c, int i)
{
	if (c->t.pl == PL_ENTITY)
		return ct_ent_is_task(&c->t, c->t.re[i]) ?
		       ct_weight_of(c->t.w[i]) : 1024;
	if (!ct_rivals_are_tasks(c))
		return 1024;
	/* nice-flip, policy-flip: rival 1's heavy state */
	if (i == 0 && (c->ev == EV_NICE || c->ev == EV_POLICY))
		return ct_weight_of(W_NICE0);
	return ct_weight_of(c->t.w[i]);
}

bool ct_heavy_rival(const struct ct_cell *c, const char **why)
{
	int i, steady = 0;

	if (c->ev == EV_WEIGHT || c->ev == EV_IDLE) {
		*why = "the rivals' group is lowered half the time";
		return false;
	}
	if (c->t.pl == PL_ENTITY) {
		for (i = 0; i < c->t.nr; i++)
			steady += level_weight(c, i) >= 1024;
		if (!steady)
			*why = "no rival of nice 0's weight or heavier at the root";
		return steady > 0;
	}
	for (i = 0; i < c->t.nr; i++) {
		if (i == 0 && c->ev == EV_SLEEP)
			continue;
		if (ct_rivals_are_tasks(c)) {
			if (i == 0 && (c->ev == EV_NICE ||
				       c->ev == EV_POLICY))
				continue;
			if (c->t.w[i] < W_NICE0)
				continue;
		}
		steady++;
	}
	if (!steady)
		*why = ct_rivals_are_tasks(c) ?
		       "no rival of nice 0 or heavier all the time" :
		       "the rivals' group sleeps half the time";
	return steady > 0;
}

bool ct_wakes_at_level(const struct ct_cell *c)
{
	return c->ev == EV_SLEEP && (ct_rivals_are_tasks(c) || c->t.nr == 1);
}

/*
 * A lighter rival receives what is left of the yielder's request, weighted,
 * in microseconds (a SCHED_IDLE one 1024 / 3 times faster), often less
 * than one loop of its counter: only a heavy rival's run shows.
 */
bool ct_g1_judged(const struct ct_sched *sp, const struct ct_cell *c,
		  const char **why)
{
	/*
	 * EEVDF: a rival that wakes with negative lag is placed ahead of V
	 * by that lag inflated by (W + w_r) / W, which moves V_r as far:
	 * the yielder can then have more lag than a turn of each rival
	 * (G1's exception), yield once more and run again at once.
	 */
	if (sp->kind == CT_EEVDF && ct_wakes_at_level(c)) {
		*why = "a woken rival's inflated negative lag moves V_r more than a turn per rival";
		return false;
	}
	switch (c->ev) {
	case EV_SIBLING:
		*why = "the rival at the yielder's level is a SCHED_IDLE sibling";
		return false;
	case EV_SLICE:
		*why = "a rival's 100-ms turns leave the yielder more lag than one turn per rival";
		return false;
	case EV_MIGRATE:
		*why = "the copies on the other CPU run during every yield";
		return false;
	default:
		return ct_heavy_rival(c, why);
	}
}

/* ------------------------------------------------------------------ */
/* the bound */

static __u64 ceil_to(__u64 x, __u64 q)
{
	return q ? (x + q - 1) / q * q : x;
}

static __u64 max_u64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* CFS: sched_slice() of an entity of weight @w beside @wr, @tasks runnable */
static __u64 cfs_slice(const struct ct_sched *sp, double w, double wr,
		       int tasks)
{
	__u64 period = max_u64(sp->latency_ns, (__u64)tasks * sp->min_gran_ns);
	__u64 sl = (__u64)(period * w / (w + wr));

	return max_u64(sl, sp->min_gran_ns);
}

/* A turn of an entity with slice @sl: to the first tick after its end */
static __u64 turn_of(__u64 sl, __u64 q)
{
	return ceil_to(sl, q);
}

void ct_bound_level(const struct ct_sched *sp, struct ct_bound *b, int tasks)
{
	__u64 q = sp->tick_ns, sl, turns;

	if (sp->kind == CT_EEVDF)
		sl = sp->base_slice_ns;
	else
		sl = max_u64(cfs_slice(sp, b->w, b->wr, tasks),
			     sp->wakeup_gran_ns);
	b->slice = sl;
	b->r = (__u64)(2.0 * sl * b->wr / b->w);
	turns = ceil_to(b->r, q);
	if (sp->kind == CT_EEVDF) {
		/*
		 * Eligible again, the entity still waits for each eligible
		 * rival whose deadline comes first, a turn each (a slice to
		 * the tick after it): typically one, at most all n; and a
		 * tick for a yield made inside one.
		 */
		b->p50 = turns + turn_of(sl, q);
		b->p99 = turns + b->n * turn_of(sl, q) + q;
	} else {
		/*
		 * One move behind the leftmost rival, the typical case: half
		 * of R; two moves at most (R), behind every rival. Each rival
		 * passes it in whole turns of its own, its sched_slice() to
		 * the tick after it, so that each rival's part of the wait is
		 * rounded up by up to a turn: three nice -10 rivals, 28 ms
		 * of R / 2 on one CPU, each take 3 turns of 4 ms, 36 ms,
		 * within the bound of 28 + 3 * 4 = 40.
		 */
		__u64 sum = 0;
		int i;

		for (i = 0; i < b->n && i < CT_MAX_LEVEL_RIVALS; i++)
			sum += (cfs_slice(sp, b->rw[i], b->w + b->wr - b->rw[i],
					  tasks) / q + 1) * q;
		b->p50 = ceil_to(b->r / 2, q) + sum;
		b->p99 = turns + sum;
	}
	b->max = b->p99;
}

/* Is rival 1 of @c a task at the yielder's level (where a flip reweights it)? */
static bool flipped_task_at_level(const struct ct_cell *c)
{
	const struct ct_topo *t = &c->t;

	if (t->pl == PL_ENTITY)
		return ct_ent_is_task(t, t->ye) && ct_ent_is_task(t, t->re[0]);
	return ct_rivals_are_tasks(c);
}

void ct_bound(const struct ct_sched *sp, const struct ct_cell *c,
	      struct ct_bound *b)
{
	const struct ct_topo *t = &c->t;
	__u64 q = sp->tick_ns, extra = 0, sl;
	bool eevdf = sp->kind == CT_EEVDF;
	size_t off = 0;
	int i, tasks = 1 + t->nr;

	memset(b, 0, sizeof(*b));
	b->w = 1024;
	if (ct_rivals_are_tasks(c) || t->pl == PL_ENTITY) {
		for (i = 0; i < t->nr; i++) {
			double wi = level_weight(c, i);

			b->wr += wi;
			b->rw[i] = wi;
		}
		b->n = t->nr;
		snprintf(b->level, sizeof(b->level), "%s",
			 t->pl == PL_SAME ? "the test's group" :
			 t->pl == PL_ENTITY ? "the root (each task's own entity)" :
			 "the test's group (the yielder's cgroup)");
	} else {
		/* the rivals' group entity: cpu.weight 100 (heavy state) */
		b->wr = 1024;
		b->rw[0] = 1024;
		b->n = 1;
		snprintf(b->level, sizeof(b->level), "%s",
			 t->pl == PL_SESSION ? "the root (autogroups)" :
			 t->pl == PL_CGROUP ? "the test's cgroup" :
			 "slurmstepd.scope (jobs)");
	}

	if (c->ev == EV_SIBLING) {
		__u64 ty, tr;
		int nr = b->n;

		/*
		 * The yielder yields to its sibling in its own group, which
		 * runs while the group's turn lasts at the level above; then
		 * each rival there (the rivals' group, or each plain task)
		 * takes a turn, or two where the group's turn ended inside
		 * one of its requests.
		 */
		tasks++;
		if (eevdf) {
			ty = turn_of(sp->base_slice_ns, q);
			tr = ty;
			sl = sp->base_slice_ns;
		} else {
			ty = turn_of(cfs_slice(sp, 1024, b->wr, tasks), q);
			tr = ty;
			sl = max_u64(cfs_slice(sp, 1024, 3, tasks),
				     sp->wakeup_gran_ns);
		}
		b->slice = sl;
		b->r = (__u64)(2.0 * sl * 3 / 1024);
		b->wr = 3;
		b->rw[0] = 3;
		b->n = 1;
		snprintf(b->level, sizeof(b->level),
			 "its own group, beside the sibling");
		b->p50 = ty + nr * tr;
		b->p99 = ty + 2 * nr * tr + q;
		b->max = b->p99;
		snprintf(b->terms, sizeof(b->terms),
			 "the group's turn %.1f ms + a turn of each of %d rivals above, %.1f ms, two in p99 and max",
			 ty / 1e6, nr, tr / 1e6);
		return;
	}

	ct_bound_level(sp, b, tasks);

	switch (c->ev) {
	case EV_NICE:
	case EV_POLICY:
		off += snprintf(b->terms + off, sizeof(b->terms) - off,
				"rival 1 counted at nice 0, its heavy state");
		if (eevdf && sp->stock_reweight && flipped_task_at_level(c)) {
			/*
			 * Without the series' reweight_entity() fix, rival 1
			 * back at nice 0 keeps the request of its light
			 * state, the slice times 1024 / w in virtual time,
			 * and runs it whole at nice 0 before the tasks behind
			 * it
			 */
			extra = turn_of((__u64)(sp->base_slice_ns * 1024.0 /
						ct_weight_of(t->w[0])), q);
			off += snprintf(b->terms + off,
					sizeof(b->terms) - off,
					" + %.0f ms in p99 and max: its light state's request, kept by the kernel's own reweight_entity()",
					extra / 1e6);
		}
		break;
	case EV_WEIGHT:
	case EV_IDLE:
		off += snprintf(b->terms + off, sizeof(b->terms) - off,
				"the rivals' group counted at cpu.weight 100, its heavy state");
		break;
	case EV_SLEEP:
		if (eevdf && ct_wakes_at_level(c)) {
			/*
			 * A woken rival brings back its lag, at most
			 * max(2 * slice, tick) of its service, which
			 * place_entity() inflates by (W + w_1) / W, W the
			 * load it joins
			 */
			double w1 = ct_rivals_are_tasks(c) ?
				    ct_weight_of(t->w[0]) : 1024;

			extra = (__u64)(max_u64(2 * sp->base_slice_ns, q) *
					(b->w + b->wr) / (b->w + b->wr - w1));
			off += snprintf(b->terms + off,
					sizeof(b->terms) - off,
					"+ %.1f ms in p99 and max: a woken rival's lag, inflated",
					extra / 1e6);
		} else if (eevdf) {
			off += snprintf(b->terms + off,
					sizeof(b->terms) - off,
					"the sleeper's group stays runnable");
		} else {
			b->k0_sum = true;
			off += snprintf(b->terms + off,
					sizeof(b->terms) - off,
					"p99 and max + knob 0's own + a tick: a woken rival's sleeper credit");
		}
		break;
	case EV_SLICE:
		if (ct_rivals_are_tasks(c) || t->nr == 1) {
			extra = turn_of(CT_LONG_SLICE_NS, q);
			off += snprintf(b->terms + off,
					sizeof(b->terms) - off,
					"+ %.0f ms in p99 and max: a turn of the 100-ms slice",
					extra / 1e6);
			/*
			 * After that turn the rivals' average vruntime lies
			 * far ahead of the other rivals: each later compat
			 * yield moves the yielder its whole span, a turn of
			 * its own slice and a tick per rival in its virtual
			 * time, n * turn * 1024 / W_r, and each other rival j
			 * runs n * turn * w_j / W_r to catch up, to the tick
			 * after it; a tick for the yield made inside one
			 */
			if (eevdf && t->nr > 1) {
				__u64 turn = sp->base_slice_ns + q, after = q;

				for (i = 1; i < b->n && i < CT_MAX_LEVEL_RIVALS; i++)
					after += ceil_to((__u64)(b->n * turn *
								 b->rw[i] / b->wr), q);
				b->p50 = max_u64(b->p50, after);
				off += snprintf(b->terms + off,
						sizeof(b->terms) - off,
						"; p50 at least %.0f ms: after the turn each yield moves the whole span and waits for the other rivals to catch up",
						after / 1e6);
			}
		} else {
			off += snprintf(b->terms + off,
					sizeof(b->terms) - off,
					"the rivals' group takes its shortest slice");
		}
		break;
	case EV_MIGRATE:
		/*
		 * The part of the other vCPU's turn that its watcher did not
		 * see; the matrix takes the max less one more of each further
		 * turn the sample spans.
		 */
		extra = CT_WATCH_NS;
		off += snprintf(b->terms + off, sizeof(b->terms) - off,
				"+ %.0f ms in p99 and max: a watcher period, the other vCPU's turn unseen",
				extra / 1e6);
		break;
	default:
		break;
	}
	b->p99 += extra;
	b->max += extra;
}

/* ------------------------------------------------------------------ */
/* the judge */

static const char *le(bool ok)
{
	return ok ? "<=" : ">";
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static const char stall_g1[] =
	"guest time stalls (-S): a stall charged to a rival leaves more lag than a turn";
/*
 * A stall is charged to the task that ran through it, and a host slower
 * in one window than in the other moves the CPU time of a yield's round
 * trip: the knob-0 and knob-1 windows' CPU shares are not comparable.
 */
static const char stall_cpu[] =
	"guest time stalls (-S): a stall is charged to the task that ran through it";
/*
 * The migrate cells run on two CPUs.  Where those take turns on one host
 * thread (QEMU's TCG under -icount) the other CPU's turn is charged as run
 * time to the task running on this one, the yielder as often as not: its
 * CPU time is not its own, while its loop count is.
 */
static const char migrate_cpu[] =
	"migrate: where two vCPUs share a host thread, one's turn is charged to the other's task";

void ct_time_limits(const struct ct_sched *sp, const struct ct_bound *b,
		    const struct ct_win *k0, __u64 *lim50, __u64 *lim99,
		    __u64 *limmax)
{
	__u64 q = sp->tick_ns, slack = CT_SLACK_NS;
	__u64 k50 = k0->nyields ? k0->p50 : 0, k99 = k0->nyields ? k0->p99 : 0;
	__u64 kmax = k0->nyields ? k0->max : 0;

	*lim50 = max_u64(b->p50, k50) + slack;
	if (b->k0_sum) {
		*lim99 = k99 + b->p99 + q + slack;
		*limmax = kmax + b->max + q + slack;
	} else {
		*lim99 = max_u64(b->p99, k99) + slack;
		*limmax = max_u64(b->max, kmax) + slack;
	}
}

void ct_judge(const struct ct_sched *sp, const struct ct_cell *c,
	      const struct ct_win *k0, const struct ct_win *k1,
	      const struct ct_win *nosib, const char *untimed,
	      struct ct_judgement *j)
{
	const struct ct_bound *b = &j->b;
	__u64 k50 = k0->nyields ? k0->p50 : 0, k99 = k0->nyields ? k0->p99 : 0;
	__u64 kmax = k0->nyields ? k0->max : 0;
	bool timed = !untimed, ok50, ok99, okmax;
	/* why the CPU shares (shares, G4) are not judged, NULL: judged */
	const char *cpu_why = untimed ? untimed :
			      sp->stalls ? stall_cpu :
			      c->ev == EV_MIGRATE ? migrate_cpu : NULL;
	const char *why = "";
	char *m;
	size_t len;
	int off;

	memset(j, 0, sizeof(*j));
	ct_bound(sp, c, &j->b);
	ct_time_limits(sp, b, k0, &j->lim50, &j->lim99, &j->limmax);

	/* time away per yield */
	m = j->msg[CT_TIME];
	len = sizeof(j->msg[CT_TIME]);
	ok50 = k1->nyields && k1->p50 <= j->lim50;
	ok99 = k1->nyields && k1->p99 <= j->lim99;
	okmax = k1->nyields && k1->max <= j->limmax;
	if (!timed)
		off = snprintf(m, len, "time away at knob 1 p50 %.1f p99 %.1f max %.1f ms",
			       ms(k1->p50), ms(k1->p99), ms(k1->max));
	else
		off = snprintf(m, len,
			       "time away at knob 1 p50 %.1f %s %.1f, p99 %.1f %s %.1f, max %.1f %s %.1f ms",
			       ms(k1->p50), le(ok50), ms(j->lim50),
			       ms(k1->p99), le(ok99), ms(j->lim99),
			       ms(k1->max), le(okmax), ms(j->limmax));
	if (off > 0 && (size_t)off < len)
		off += snprintf(m + off, len - off,
				" (bound at %s: w %.0f, W_r %.0f, n %d, %s %.2f ms, R %.1f ms: p50 %.1f, p99 %.1f, max %.1f%s%s%s; k0 p50 %.1f p99 %.1f max %.1f)",
				b->level, b->w, b->wr, b->n,
				sp->kind == CT_EEVDF ? "slice" : "move",
				ms(b->slice), ms(b->r), ms(b->p50),
				ms(b->p99), ms(b->max),
				b->terms[0] ? "; " : "", b->terms,
				b->k0_sum ? " (summed)" : "",
				ms(k50), ms(k99), ms(kmax));
	if (!timed) {
		j->st[CT_TIME] = CT_SKIP;
		if (off > 0 && (size_t)off < len)
			snprintf(m + off, len - off, ": not judged, %s",
				 untimed);
	} else if (!k1->nyields) {
		j->st[CT_TIME] = CT_FAIL;
		if (off > 0 && (size_t)off < len)
			snprintf(m + off, len - off, ": no yield at knob 1");
	} else {
		j->st[CT_TIME] = ok50 && ok99 && okmax ? CT_OK : CT_FAIL;
	}

	/* G1: no compat yield returns before another task ran */
	m = j->msg[CT_G1];
	len = sizeof(j->msg[CT_G1]);
	off = snprintf(m, len,
		       "G1, yields that returned before another task ran: %llu of %llu at knob 1 (k0 %llu of %llu)",
		       (unsigned long long)k1->at_once,
		       (unsigned long long)k1->nyields,
		       (unsigned long long)k0->at_once,
		       (unsigned long long)k0->nyields);
	if (!ct_g1_judged(sp, c, &why)) {
		j->st[CT_G1] = CT_SKIP;
	} else if (!timed) {
		j->st[CT_G1] = CT_SKIP;
		why = untimed;
	} else if (sp->stalls) {
		/*
		 * A stall is charged to the task that ran through it: the
		 * others are left more lag than a turn, which a capped move
		 * does not give up in one yield.
		 */
		j->st[CT_G1] = CT_SKIP;
		why = stall_g1;
	} else {
		j->st[CT_G1] = k1->nyields && !k1->at_once ? CT_OK : CT_FAIL;
		why = NULL;
	}
	if (off > 0 && (size_t)off < len)
		snprintf(m + off, len - off, "%s%s", why ? ": not judged, " : " <= 0",
			 why ? why : "");

	/* shares, where a rival of the yielder's weight competes */
	m = j->msg[CT_SHARES];
	len = sizeof(j->msg[CT_SHARES]);
	if (!ct_heavy_rival(c, &why)) {
		j->st[CT_SHARES] = CT_SKIP;
		snprintf(m, len,
			 "shares: yielder loops %.3f%%, cpu %.2f%% (k0 %.2f%%): not judged, %s",
			 100 * k1->loop_share, 100 * k1->cpu_share,
			 100 * k0->cpu_share, why);
	} else if (untimed && !k1->nyields) {
		/*
		 * A stall of the guest is charged to the task that ran
		 * through it: charged to the yielder, it keeps the
		 * yielder's entity behind its rivals until they catch up,
		 * which can outlast a window (at either knob value, seen
		 * with the host stopping the guest). No yield in the
		 * window leaves no loop share to judge here.
		 */
		j->st[CT_SHARES] = CT_SKIP;
		snprintf(m, len,
			 "shares: no yield at knob 1, cpu %.2f%% (k0 %.2f%%): not judged, %s",
			 100 * k1->cpu_share, 100 * k0->cpu_share, untimed);
	} else if ((untimed || sp->stalls) && k1->len && k1->stall >= k1->len) {
		/*
		 * A stall as long as the window, charged to a rival, leaves
		 * the yielder more lag than the window lasts: the yielder
		 * runs it off in yields that return at once, whose loops
		 * count as a rival's do (0.82% after a stall of 3.3 s in a
		 * 0.6-s window, a busy host). A shorter stall leaves the
		 * loop share far below its limit.
		 */
		j->st[CT_SHARES] = CT_SKIP;
		snprintf(m, len,
			 "shares: yielder loops %.3f%%, cpu %.2f%% (k0 %.2f%%): not judged, a stall of %.1f ms, longer than the %.1f-ms window, charged to a rival leaves the yielder lag it runs off in yields that return at once",
			 100 * k1->loop_share, 100 * k1->cpu_share,
			 100 * k0->cpu_share, ms(k1->stall), ms(k1->len));
	} else {
		bool okloop = k1->nyields && k1->loop_share <= CT_LOOP_SHARE_MAX;
		bool okcpu = k1->cpu_share <= k0->cpu_share + CT_CPU_NOISE;

		if (!cpu_why) {
			j->st[CT_SHARES] = okloop && okcpu ? CT_OK : CT_FAIL;
			snprintf(m, len,
				 "shares: yielder loops %.3f%% %s 0.5%%, cpu %.2f%% %s k0 %.2f%% + 1",
				 100 * k1->loop_share, le(okloop),
				 100 * k1->cpu_share, le(okcpu),
				 100 * k0->cpu_share);
		} else {
			j->st[CT_SHARES] = okloop ? CT_OK : CT_FAIL;
			snprintf(m, len,
				 "shares: yielder loops %.3f%% %s 0.5%%; cpu %.2f%% (k0 %.2f%%) not judged, %s",
				 100 * k1->loop_share, le(okloop),
				 100 * k1->cpu_share, 100 * k0->cpu_share,
				 cpu_why);
		}
	}

	/* G4: the yielder beside a light sibling */
	m = j->msg[CT_G4];
	len = sizeof(j->msg[CT_G4]);
	if (c->ev != EV_SIBLING || !nosib) {
		j->st[CT_G4] = CT_SKIP;
		snprintf(m, len, "G4: not a sibling cell");
	} else {
		bool ok = k1->cpu_share <= CT_G4_FACTOR * nosib->cpu_share +
				   CT_G4_FLOOR;

		off = snprintf(m, len,
			       "G4, yielder cpu with its sibling %.2f%% %s 2 x %.2f%% without + 1",
			       100 * k1->cpu_share, le(ok),
			       100 * nosib->cpu_share);
		if (cpu_why) {
			j->st[CT_G4] = CT_SKIP;
			if (off > 0 && (size_t)off < len)
				snprintf(m + off, len - off,
					 ": not judged, %s", cpu_why);
		} else {
			j->st[CT_G4] = ok ? CT_OK : CT_FAIL;
		}
	}
}

void ct_judge_outside(const struct ct_sched *sp, const struct ct_win *k0,
		      const struct ct_win *k1, const char *untimed,
		      struct ct_judgement *j)
{
	__u64 q = sp->tick_ns, slack = CT_SLACK_NS;
	double f0 = k0->nyields ? (double)k0->at_once / k0->nyields : 0;
	double f1 = k1->nyields ? (double)k1->at_once / k1->nyields : 0;
	const char *why;
	bool ok50, ok99, ok;

	memset(j, 0, sizeof(*j));
	j->lim50 = k0->p50 + q + slack;
	j->lim99 = k0->p99 + q + slack;
	ok50 = k1->nyields && k0->nyields && k1->p50 <= j->lim50;
	ok99 = k1->nyields && k0->nyields && k1->p99 <= j->lim99;
	snprintf(j->msg[CT_TIME], sizeof(j->msg[CT_TIME]),
		 "time away, the rivals' group at 1, the yielder's at 0 (G5): p50 %.1f %s %.1f, p99 %.1f %s %.1f ms, knob 0's + a tick (max %.1f, k0 %.1f)%s%s",
		 ms(k1->p50), le(ok50), ms(j->lim50), ms(k1->p99), le(ok99),
		 ms(j->lim99), ms(k1->max), ms(k0->max),
		 untimed ? ": not judged, " : "", untimed ? untimed : "");
	j->st[CT_TIME] = untimed ? CT_SKIP : ok50 && ok99 ? CT_OK : CT_FAIL;

	ok = k1->nyields && f1 >= f0 / 2;
	why = untimed ? untimed : f0 < CT_G5_AT_ONCE_MIN ?
	      "knob 0's yields seldom return at once here" : NULL;
	snprintf(j->msg[CT_G1], sizeof(j->msg[CT_G1]),
		 "G5, yields that returned before another task ran: %llu of %llu (k0 %llu of %llu) %s half knob 0's part%s%s",
		 (unsigned long long)k1->at_once,
		 (unsigned long long)k1->nyields,
		 (unsigned long long)k0->at_once,
		 (unsigned long long)k0->nyields, ok ? ">=" : "<",
		 why ? ": not judged, " : "", why ? why : "");
	j->st[CT_G1] = why ? CT_SKIP : ok ? CT_OK : CT_FAIL;

	ok = k1->nyields && k1->loop_share >= CT_G5_PART * k0->loop_share;
	snprintf(j->msg[CT_SHARES], sizeof(j->msg[CT_SHARES]),
		 "G5 shares: yielder loops %.3f%% %s half knob 0's %.3f%% (cpu %.2f%%, k0 %.2f%%)",
		 100 * k1->loop_share, ok ? ">=" : "<",
		 100 * k0->loop_share, 100 * k1->cpu_share,
		 100 * k0->cpu_share);
	j->st[CT_SHARES] = ok ? CT_OK : CT_FAIL;

	snprintf(j->msg[CT_G4], sizeof(j->msg[CT_G4]),
		 "G4: not judged for a yielder outside the groups at 1");
	j->st[CT_G4] = CT_SKIP;
}

/* ------------------------------------------------------------------ */
/* the kernel's parameters */

/* The number in the file @dir/@name, or 0 */
static unsigned long long read_ull(const char *dir, const char *name,
				   char *path, size_t len)
{
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/*
 * The livepatch (livepatch_compat_yield) is enabled: the compat yield runs
 * on the kernel's own code otherwise, reweight_entity() included.
 */
static bool livepatch_enabled(void)
{
	FILE *f = fopen("/sys/kernel/livepatch/livepatch_compat_yield/enabled", "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

int ct_read_sched(struct ct_sched *sp, __u64 tick_ns, char *err, size_t len)
{
	static const char dir[] = "/sys/kernel/debug/sched";
	static const char * const cfs[3] = {
		"latency_ns", "min_granularity_ns", "wakeup_granularity_ns",
	};
	unsigned long long v[3];
	char path[128];
	int i;

	memset(sp, 0, sizeof(*sp));
	sp->tick_ns = tick_ns;
	v[0] = read_ull(dir, "base_slice_ns", path, sizeof(path));
	if (v[0]) {
		sp->kind = CT_EEVDF;
		sp->base_slice_ns = v[0];
		sp->stock_reweight = livepatch_enabled();
		return 0;
	}
	for (i = 0; i < 3; i++) {
		v[i] = read_ull(dir, cfs[i], path, sizeof(path));
		if (!v[i]) {
			snprintf(err, len,
				 "the contract's bound needs the scheduler's slices: no %s (debugfs mounted?)",
				 path);
			return -1;
		}
	}
	sp->kind = CT_CFS;
	sp->latency_ns = v[0];
	sp->min_gran_ns = v[1];
	sp->wakeup_gran_ns = v[2];
	return 0;
}
