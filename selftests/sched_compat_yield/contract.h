/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compat yield's contract, computed: the cells of compat_yield_matrix
 * (a yielder, its rivals, their placement and an event), the bound that
 * the contract's G2 gives each cell's time away per yield from the cell's
 * parameters and the kernel's (tick, slices, weights), and the judge of a
 * cell's windows.  No I/O and no system calls: the host builds it into a
 * check that feeds it synthetic windows (tests/tools/contract-check.c).
 *
 * The bound.  The yielder's entity at the level L where it yields has the
 * weight w (1024: a nice-0 task, or a group with the default cpu.weight
 * whose load is all on this CPU); its rivals there weigh W_r together
 * (their heaviest state where a weight flips), n of them; q is the tick.
 *
 *   EEVDF (6.12): the entity queues behind the rivals' average V_r by the
 *   rest r of its request, r <= vslice = slice * 1024 / w; it is eligible
 *   once the rivals have brought V_r up to its vruntime, and runs when its
 *   deadline, vslice further, is the earliest eligible one: after
 *   (r + vslice) * W_r / 1024 of the rivals' running time, at most
 *   R = 2 * slice * W_r / w (the yielder's own weight cancels: r and
 *   vslice are in its virtual time).
 *   CFS (6.1): the entity queues one move behind the leftmost rival, move
 *   = max(slice, gran) of its virtual time (slice: sched_slice() at L,
 *   period * w / (w + W_r) with period = max(latency, tasks * min_gran),
 *   at least min_gran; gran: the wakeup granularity), and it moves only
 *   while less than one move ahead of it: it runs again once every rival
 *   has passed it, R = 2 * max(slice, gran) * W_r / w of their running time
 *   at most.
 *
 *   Both: the wait ends at a scheduling point, a tick (a rival with the
 *   base slice runs to the first tick after its deadline; slices are
 *   shorter than a tick here), so R counts in whole ticks.  On EEVDF an
 *   entity eligible again still waits for each eligible rival whose
 *   deadline comes first, a turn (a tick) each: typically one, at most all
 *   n of them; and a yield made inside a tick (after a wake-up) waits one
 *   tick more.  The median's bound: ceil(R / q) * q + q; the p99's and the
 *   maximum's: ceil(R / q) * q + (n + 1) * q.
 *   On CFS a yield made as soon as the entity runs (it is then the
 *   leftmost) moves it one move behind the leftmost rival, half of R, and
 *   at most two moves, R, behind every rival; each rival that has to pass
 *   it runs whole turns, its sched_slice() to the first tick after it
 *   (check_preempt_tick() preempts it only once it has run longer than
 *   that): turn_i = (floor(slice_i / q) + 1) * q.  The median's bound: the
 *   larger of ceil(R / 2 / q) * q plus the longest turn and a turn of each
 *   rival; the p99's and the maximum's: ceil(R / q) * q plus a turn of each
 *   rival.
 *   Tick-level models of both picks with the compat yield
 *   (tests/contract-model.py) stay within these over every list of rivals
 *   the matrix makes.  Each limit also takes a slack of 400 us
 *   (CT_SLACK_NS).
 *
 * The level and its weights per placement: same and cgroup-root, the
 * test's own group, each rival by its own weight; session, cgroup and
 * nested, the rivals' one group entity of 1024 (the default weight, its
 * whole load on this CPU); entity (PL_ENTITY), the root, where each rival
 * weighs its own weight where it is a plain task and 1024 where it has a
 * group of its own (an autogroup of nice 0, a cgroup, a job's tree),
 * whatever its task weighs in there; the yielder 1024 either way.
 *
 * The events add terms:
 *   nice-flip, policy-flip, weight-flip, idle-flip: W_r is the rivals' in
 *     the heavy state (a reweight keeps a rival's lag on EEVDF, and on CFS
 *     a rival made heavy far ahead waits behind the yielder);
 *   sleep-wake: EEVDF: a rival that wakes at L brings back its lag, at
 *     most max(2 * slice, tick) of its service, which place_entity()
 *     inflates by (W + w_1) / W, W the load it joins: p99 and max + that.
 *     CFS: a woken rival is
 *     placed up to half a sched_latency of its virtual time behind
 *     min_vruntime and runs that first, at either knob value: p99 and max
 *     are held to knob 0's own p99 (max) plus the bound without the event
 *     plus a tick, the two waits adding up;
 *   long-slice (EEVDF): the rival with a custom slice of 100 ms runs a
 *     whole turn, ceil(100 ms / q) * q, at either knob value, whenever its
 *     turn comes (in the group placements only where it is alone in its
 *     group: a group entity takes the shortest slice of its tasks): p99 and
 *     max + that turn; with other rivals beside it, the median at least
 *     a tick + sum over the other rivals j of
 *     ceil(n * (slice + tick) * w_j / W_r, tick): the turn moves the
 *     rivals' average vruntime far ahead of the others, each later compat
 *     yield moves the yielder its whole span (its cap, n turns of
 *     slice + tick in its virtual time, times 1024 / W_r) and waits while
 *     each other rival catches up, to the tick after it
 *     (tests/contract-model.py; one-CPU -icount guest of 6.12, rivals
 *     nice19 with the slice, nice0, nice0: a median of 16 ms, where the
 *     median without the event and a tick make 12);
 *   sibling: the yielder yields to its SCHED_IDLE sibling (G4), which runs
 *     while their group's turn at the level above lasts (turn_y), and then
 *     the rivals' group takes its turn (turn_r; EEVDF: ceil(slice / q) * q,
 *     CFS: its ideal slice rounded up to a tick): median turn_y + turn_r,
 *     p99 and max turn_y + 2 * turn_r + q;
 *   migrate: the samples lose the time their CPU did not run (the other
 *     vCPU's turn, a host stall), as a watcher on that CPU saw it, from its
 *     first wake-up that came late: up to one watcher period of each such
 *     turn stays in: + WATCH_NS to the p99 and max.
 *
 * A limit is the larger of that bound and the same statistic of the
 * cell's knob-0 window (what the stock yield itself gives in the same
 * topology); never a knob-1 window.
 */
#ifndef SCY_CONTRACT_H
#define SCY_CONTRACT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define CT_MAX_RIVALS		3
#define CT_NSEC_PER_MSEC	1000000ULL
/* rival 1's custom slice in the long-slice cells: the longest there is */
#define CT_LONG_SLICE_NS	(100 * CT_NSEC_PER_MSEC)
/* how often the per-CPU watchers of the migrate cells wake up */
#define CT_WATCH_NS		(5 * CT_NSEC_PER_MSEC)
/* knob-1 loop-counter share where a heavy rival competes: the seed's limit */
#define CT_LOOP_SHARE_MAX	0.005
/*
 * The yielder's CPU share at knob 1 against knob 0's: a compat yield's
 * round trip costs the yielder 0.10-1.74% of the CPU under QEMU -icount
 * shift 3 (one round trip a tick, the most beside light rivals; the
 * starve stages of both kernels, never more than knob 0's share of the
 * same cell), so a point covers a second round trip per tick where knob
 * 0's share is as small; a yielder the rule does not move keeps 50%.
 */
#define CT_CPU_NOISE		0.01
/* G4: with the sibling at most twice the share without it, + a point */
#define CT_G4_FACTOR		2.0
#define CT_G4_FLOOR		0.01
/*
 * The slack of every time limit.  A sample is whole ticks of its rivals'
 * turns plus the path from the tick that ends the last turn back into the
 * yielder, less the path back from the tick before and the yielder's own
 * loop: the clock reads, the return from the yield and the tick's own work
 * (its softirqs), which differs from one tick to the next.  That path is
 * instructions, not a part of the tick: Debian's kernels under -icount
 * put samples up to 120 us past their whole ticks, apart from samples
 * next to the test's own wake-ups between ticks
 * (Documentation/testing.md, the allowances); the slack is over three
 * times that, and a rule that keeps the yielder a tick longer (4 ms at
 * HZ=250) is ten slacks over.
 */
#define CT_SLACK_NS		(400 * 1000ULL)
/*
 * G5, a yielder outside the groups at 1 beside a group at 1: its loop
 * share at least this part of knob 0's, where a compat yield takes it to a
 * hundredth (compat_yield_share's outside tests hold the same half), and
 * as many of its yields return at once, where knob 0's are at least
 * CT_G5_AT_ONCE_MIN of them (a compat yield returns at once in none)
 */
#define CT_G5_PART		0.5
#define CT_G5_AT_ONCE_MIN	0.1

/*
 * PL_CROOT: the yielder in a cgroup of its own, the rivals plain tasks of
 * the test's own group (on a host without systemd, the root task group);
 * PL_ENTITY: the yielder and each rival placed on their own (enum ct_ent),
 * every group's tree starting at the root task group, where the test's
 * plain tasks are, with autogroups on or off: all meet at the root
 */
enum ct_placement {
	PL_SAME, PL_SESSION, PL_CGROUP, PL_NESTED, PL_CROOT, PL_ENTITY, NR_PL
};

/*
 * Where one task of a PL_ENTITY cell is: a plain task of the root task
 * group; in a session of its own (an autogroup while autogroups are on,
 * else a plain task); in a cpu cgroup of its own below the root; at the
 * bottom of a tree of its own as deep as a Slurm job's task (7 levels)
 */
enum ct_ent { E_TASK, E_SESSION, E_CGROUP, E_NESTED, NR_E };
/* light to heavy */
enum ct_weight { W_IDLE, W_NICE19, W_NICE0, W_NICE_M10, NR_W };
enum ct_event {
	EV_NONE, EV_NICE, EV_POLICY, EV_WEIGHT, EV_IDLE, EV_SLEEP,
	EV_SLICE, EV_MIGRATE, EV_SIBLING, NR_EV
};

extern const char * const ct_pl_names[NR_PL];
extern const char * const ct_e_names[NR_E];
extern const char * const ct_w_names[NR_W];
extern const int ct_w_nice[NR_W];
extern const char * const ct_ev_names[NR_EV];

struct ct_topo {
	enum ct_placement pl;
	int nr;
	enum ct_weight w[CT_MAX_RIVALS];	/* w[0]: the rival an event acts on */
	/* PL_ENTITY: autogroups on, where the yielder and each rival are */
	bool ag;
	enum ct_ent ye;
	enum ct_ent re[CT_MAX_RIVALS];
};

struct ct_cell {
	int idx;
	struct ct_topo t;
	enum ct_event ev;
};

/* The kernel's parameters the bound reads */
enum ct_kind { CT_EEVDF, CT_CFS };

struct ct_sched {
	enum ct_kind kind;
	__u64 tick_ns;
	__u64 base_slice_ns;		/* EEVDF */
	__u64 latency_ns;		/* CFS */
	__u64 min_gran_ns;		/* CFS */
	__u64 wakeup_gran_ns;		/* CFS */
	bool stalls;			/* guest time stalls (-S): no G1 */
	/*
	 * EEVDF with the kernel's own reweight_entity() (the livepatch,
	 * which leaves it out): a task reweighted keeps its request
	 */
	bool stock_reweight;
};

/* What the judge reads of a window */
struct ct_win {
	__u64 nyields;			/* 0: no yield, or the window did not run */
	__u64 p50, p99, max;		/* time away per yield, ns */
	__u64 at_once;			/* yields during which no rival ran */
	double loop_share, cpu_share;
	/* -S, -U: the window's longest stall of the guest, and its length */
	__u64 stall, len;
};

/* The bound of a cell, and the figures it is made of */
#define CT_MAX_LEVEL_RIVALS	(CT_MAX_RIVALS + 2)

struct ct_bound {
	double w, wr;			/* weights at L: the yielder's, the rivals' */
	int n;				/* rivals at L */
	double rw[CT_MAX_LEVEL_RIVALS];	/* each rival's weight at L */
	__u64 slice;			/* EEVDF: the yielder's slice; CFS: the move, real */
	__u64 r;			/* R: the rivals' running time, ns */
	__u64 p50, p99, max;		/* the bound (knob 0 not taken in yet) */
	bool k0_sum;			/* CFS sleep-wake: knob 0's p99, max added */
	char level[48];			/* where the yielder yields */
	char terms[160];		/* the event's terms, in words */
};

enum ct_sub { CT_TIME, CT_G1, CT_SHARES, CT_G4, CT_NR_SUB };
enum ct_state { CT_OK, CT_FAIL, CT_SKIP };

struct ct_judgement {
	struct ct_bound b;
	__u64 lim50, lim99, limmax;
	enum ct_state st[CT_NR_SUB];
	char msg[CT_NR_SUB][384];
};

/* Cells, in the matrix's fixed order; the full product with @full */
int ct_gen_cells(bool full, struct ct_cell *cells, int max);
void ct_cell_name(const struct ct_cell *c, char *buf, size_t len);
void ct_rivals_str(const struct ct_topo *t, char *buf, size_t len);
/* "PLACEMENT", for the entity cells "entity autogroup=on|off yielder=PLACE" */
void ct_placement_str(const struct ct_topo *t, char *buf, size_t len);
bool ct_ev_allowed(enum ct_placement pl, enum ct_event ev);
bool ct_ev_flips(enum ct_event ev);
/* Does a rival of at least the yielder's weight compete all the time? */
bool ct_heavy_rival(const struct ct_cell *c, const char **why);
/* Is G1 judged in @c (a heavy rival whose turn no lag can skip)? */
bool ct_g1_judged(const struct ct_sched *sp, const struct ct_cell *c,
		  const char **why);
/* Does a rival of @c sleep and wake at the level where the yielder yields? */
bool ct_wakes_at_level(const struct ct_cell *c);
/* Are the rivals of @c tasks of the level where the yielder yields? */
bool ct_rivals_are_tasks(const struct ct_cell *c);
/* PL_ENTITY: is a task placed at @e a plain task of the root task group? */
bool ct_ent_is_task(const struct ct_topo *t, enum ct_ent e);
/* The scheduler weight of a rival, and of a group entity by cpu.weight */
double ct_weight_of(enum ct_weight w);

/* The bound of cell @c on a kernel with parameters @sp */
void ct_bound(const struct ct_sched *sp, const struct ct_cell *c,
	      struct ct_bound *b);
/*
 * The bound without an event at a level where @b->w, @b->wr and @b->n are
 * set, @tasks runnable on the CPU: the rest of @b (for tests whose
 * topologies are not the matrix's cells, compat_yield_latency's).
 */
void ct_bound_level(const struct ct_sched *sp, struct ct_bound *b, int tasks);
/*
 * The time limits of a knob-1 window from the bound @b and the same
 * statistics of its knob-0 window @k0 (none where it made no yield): each
 * the larger of the two, or their sum and a tick where @b->k0_sum, plus
 * CT_SLACK_NS; never from a knob-1 window.
 */
void ct_time_limits(const struct ct_sched *sp, const struct ct_bound *b,
		    const struct ct_win *k0, __u64 *lim50, __u64 *lim99,
		    __u64 *limmax);
/*
 * The kernel's parameters from /sys/kernel/debug/sched, with the tick
 * @tick_ns: 0, or -1 with the reason in @err.
 */
int ct_read_sched(struct ct_sched *sp, __u64 tick_ns, char *err, size_t len);
/*
 * Judge @c's knob-1 window @k1 against the bound and its knob-0 window
 * @k0; @nosib: the knob-1 window of the topology without the sibling
 * (G4; the sibling cells only).  @untimed: NULL where guest time is
 * deterministic (bare metal, QEMU -icount); else why it is not, and what
 * time moves (time away, G1, CPU shares, G4) is reported, a SKIP, and the
 * loop-counter share alone judged.
 */
void ct_judge(const struct ct_sched *sp, const struct ct_cell *c,
	      const struct ct_win *k0, const struct ct_win *k1,
	      const struct ct_win *nosib, const char *untimed,
	      struct ct_judgement *j);
/*
 * G5: judge @c's window @k1, measured with the machine's switch at 0 and
 * only the rivals' group at 1, against its knob-0 window @k0: the yielder
 * outside every group at 1 yields as at knob 0.  Time away: p50 and p99
 * within a tick of knob 0's; at once: at least half of knob 0's part,
 * where that is CT_G5_AT_ONCE_MIN or more; the loop share at least
 * CT_G5_PART of knob 0's.  @untimed as for ct_judge().
 */
void ct_judge_outside(const struct ct_sched *sp, const struct ct_win *k0,
		      const struct ct_win *k1, const char *untimed,
		      struct ct_judgement *j);

#endif
