// SPDX-License-Identifier: GPL-2.0
/*
 * yield_stats - sched_yield() statistics of fair-class tasks
 *
 * Counts, per CPU and in total, the sched_yield() calls of fair-class tasks
 * (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE), how many of them were effective
 * (another task ran before the yielder ran again) or ineffective (the
 * yielder was picked again with nothing in between), how many the compat
 * yield of sched_compat_yield handled, and a log2 histogram of the
 * time from the switch away from the yielder at an effective yield until
 * the yielder runs again. Works on kernels with and without the
 * sched_yield_fair_tp tracepoint.
 *
 * Sources (tracepoints found by name, probes attached at load time):
 *
 *   sched_yield_fair_tp  patched kernels: one call per sched_yield() of a
 *                        fair task, with the level at which the compat
 *                        yield placed an entity behind its rivals (-1: the
 *                        default yield) and whether that moved it. Also
 *                        fires for in-kernel yield().
 *   sys_enter            other kernels: native sched_yield() syscalls of
 *                        tasks with a fair policy (sched_class is not
 *                        exported).
 *   sys_exit             other kernels only: sched_yield() returns, the
 *                        yielder runs again.
 *   sched_switch         who ran after whom.
 *
 * sched_yield_fair_tp is a bare tracepoint (no trace event, no tracefs
 * ABI). The module defines the trace event sched:sched_yield_fair
 * (yield_stats_trace.h) and fires it from its probe for every call, before
 * filter_pid applies, so that trace-cmd and perf can record the yields
 * while the module is loaded.
 *
 * The syscall tracepoints put every system call of every task on the slow
 * path (SYSCALL_WORK_SYSCALL_TRACEPOINT), which costs every task whether it
 * yields or not. Where sched_yield_fair_tp exists the
 * module does without them, and sched_switch tells by the system call the
 * yielder is in whether a switch belongs to its yield.
 *
 * Tracking scheme. At a yield the yielder is current on its CPU, and it can
 * leave that CPU only through a context switch, so the yield is recorded in
 * a per-CPU pending slot {pid, generation}. The next of these events on
 * that CPU decides its outcome:
 *
 *   sched_switch with prev == yielder, prev runnable, in sched_yield()
 *	effective: the yield (or a preemption right before it) handed the
 *	CPU to another task. The yield moves to the wait table. A kernel
 *	thread (in-kernel yield()) is taken to be in its yield.
 *   sched_switch with prev == yielder, prev blocking or in user mode or
 *   in another system call
 *	ineffective: schedule() picked the yielder again (__schedule()
 *	traces no switch when prev == next) and it ran on.
 *   sys_exit of sched_yield() by the yielder (kernels without
 *   sched_yield_fair_tp)
 *	ineffective, at once.
 *   another yield by the yielder
 *	the previous one was ineffective.
 *   a read of the counters by the yielder itself
 *	ineffective: the reader is running, outside sched_yield().
 *   sched_switch with another prev
 *	the slot is stale: lost.
 *
 * So on kernels with sched_yield_fair_tp an ineffective yield stays in flight
 * until its task is next switched out, yields again or reads the counters:
 * at most one yield per CPU, the last one of the task running there.
 *
 * The wait table holds effective yields until the yielder is switched in
 * again, on any CPU: a fixed array indexed by pid modulo its size. An entry
 * is claimed with cmpxchg (0 -> busy), filled with the time of the switch
 * away from the yielder, and published with a release store of the pid;
 * the switch-in of that pid reads it with an acquire load, adds
 * (now - time) to the histogram of the CPU that switches it in, and frees
 * it. The clock is read only there, not at every yield. A yield whose
 * entry is taken by another pid is counted as effective and as lost,
 * without a time.
 *
 * Hot path: the probes run with preemption disabled, touch only this CPU's
 * counters (u64_stats) and pending slot, and the wait table with atomics:
 * no locks. A reader resolves only its own CPU's slot, with preemption
 * disabled: no probe can run there meanwhile (none fires in interrupts).
 * Timestamps are local_clock(); a switch-in on another CPU may see a
 * slightly negative delta, which counts as 0.
 *
 * Reset keeps the per-CPU counters (only their CPU writes them) and takes a
 * per-CPU baseline that readers subtract. Yields in flight at a reset must
 * not be resolved into the new period: each pending slot and wait entry
 * carries the generation it was recorded in, and a resolution counts only
 * if that generation is the current one and even. Reset makes the
 * generation odd, waits for running probes (synchronize_rcu(): tracepoint
 * probes run with preemption disabled), takes the baseline and makes it
 * even again, like a seqcount.
 *
 * Filter: filter_pid, if not 0, restricts the counting of new yields to the
 * tasks whose pid or tgid (in the initial pid namespace) equals it. There
 * is no cgroup filter.
 *
 * Per cgroup: the same counts and histogram per cgroup v2 group of the
 * yielder (debugfs "cgroups", a line per group with its path), so that an
 * admin sees which jobs yield before switching anything on. A table of
 * YS_CG_SLOTS groups, open addressing by cgroup id, claimed with cmpxchg
 * at a group's first yield; its counters are atomic (a job's tasks yield
 * on many CPUs). The pending slot and the wait entry of a yield carry its
 * group's slot, so that its outcome and time go to the group it yielded
 * in. Yields of groups beyond a full table count in a last slot shown as
 * "(other)". Reset empties the table, with the per-CPU counts.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <linux/u64_stats_sync.h>
#include <linux/unistd.h>
#include <asm/syscall.h>
#ifdef CONFIG_IA32_EMULATION
/* __NR_ia32_*: generated, included by asm/ia32_unistd.h before 6.12 */
#include <asm/unistd_32_ia32.h>
#endif

#define CREATE_TRACE_POINTS
#include "yield_stats_trace.h"

enum ys_counter {
	YS_YIELDS,
	YS_EFFECTIVE,
	YS_INEFFECTIVE,
	YS_COMPAT,
	YS_LOST,
	YS_NR_COUNTERS
};

static const char * const ys_counter_names[YS_NR_COUNTERS] = {
	[YS_YIELDS] = "yields",
	[YS_EFFECTIVE] = "effective",
	[YS_INEFFECTIVE] = "ineffective",
	[YS_COMPAT] = "compat",
	[YS_LOST] = "lost",
};

/* Bucket 0: 0 ns; bucket b: [2^(b-1), 2^b) ns; the last one is open. */
#define YS_NR_BUCKETS	40
#define YS_WAIT_SLOTS	1024	/* power of two */
#define YS_WAIT_BUSY	(-1)
/* groups with their own counts; the last slot takes the others' */
#define YS_CG_SLOTS	256	/* power of two */
#define YS_CG_PROBES	16
#define YS_CG_OTHER	(YS_CG_SLOTS - 1)
#define YS_CG_NONE	(-1)

struct ys_pending {
	pid_t pid;		/* 0: empty */
	u32 gen;
	int cg;			/* slot of the yielder's group, or YS_CG_NONE */
};

struct ys_cg {
	atomic64_t id;		/* cgroup id; 0: free */
	atomic64_t cnt[YS_NR_COUNTERS];
	atomic64_t hist[YS_NR_BUCKETS];
};

struct ys_cpu {
	struct u64_stats_sync syncp;
	u64_stats_t cnt[YS_NR_COUNTERS];
	u64_stats_t hist[YS_NR_BUCKETS];
	struct ys_pending pending;
};

struct ys_counts {
	u64 cnt[YS_NR_COUNTERS];
	u64 hist[YS_NR_BUCKETS];
};

struct ys_wait {
	atomic_t pid;		/* 0: free, YS_WAIT_BUSY: being filled */
	u32 gen;
	int cg;
	u64 time;
};

static DEFINE_PER_CPU(struct ys_cpu, ys_cpu);
static DEFINE_PER_CPU(struct ys_counts, ys_base);	/* under ys_lock */
static struct ys_wait ys_wait[YS_WAIT_SLOTS];
static struct ys_cg ys_cg[YS_CG_SLOTS];
static u32 ys_gen;
static pid_t ys_filter_pid;
static bool ys_compat_available;
static DEFINE_MUTEX(ys_lock);

static struct kobject *ys_kobj;
static struct dentry *ys_debugfs;

static u32 ys_cur_gen(void)
{
	/* Pairs with ys_reset(): later counting stays after the load. */
	return smp_load_acquire(&ys_gen);
}

static bool ys_gen_valid(u32 gen, u32 cur)
{
	return gen == cur && !(cur & 1);
}

static unsigned int ys_bucket(s64 delta)
{
	if (delta <= 0)
		return 0;
	return min_t(unsigned int, fls64(delta), YS_NR_BUCKETS - 1);
}

static u64 ys_bucket_low(unsigned int b)
{
	return b ? 1ULL << (b - 1) : 0;
}

/*
 * The slot of @p's cgroup v2 group, claimed at its first yield: YS_CG_OTHER
 * when the table has no room for it, YS_CG_NONE without cgroups.
 */
static int ys_cg_slot(struct task_struct *p)
{
#ifdef CONFIG_CGROUPS
	unsigned int i, k;
	u64 id, cur;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(p));
	rcu_read_unlock();
	k = hash_64(id, ilog2(YS_CG_SLOTS));
	for (i = 0; i < YS_CG_PROBES; i++, k = (k + 1) & (YS_CG_SLOTS - 1)) {
		if (k == YS_CG_OTHER)
			continue;
		cur = atomic64_read(&ys_cg[k].id);
		if (cur == id)
			return k;
		if (!cur) {
			cur = atomic64_cmpxchg(&ys_cg[k].id, 0, id);
			if (!cur || cur == id)
				return k;
		}
	}
	return YS_CG_OTHER;
#else
	return YS_CG_NONE;
#endif
}

static void ys_cg_count(int cg, enum ys_counter counter)
{
	if (cg != YS_CG_NONE)
		atomic64_inc(&ys_cg[cg].cnt[counter]);
}

/* Count @counter on this CPU if @gen is the current, stable generation. */
static void ys_count(struct ys_cpu *c, enum ys_counter counter, u32 gen,
		     int cg)
{
	if (!ys_gen_valid(gen, ys_cur_gen()))
		return;
	u64_stats_update_begin(&c->syncp);
	u64_stats_inc(&c->cnt[counter]);
	u64_stats_update_end(&c->syncp);
	ys_cg_count(cg, counter);
}

/* Close this CPU's pending yield as @outcome. */
static void ys_resolve(struct ys_cpu *c, enum ys_counter outcome)
{
	c->pending.pid = 0;
	ys_count(c, outcome, c->pending.gen, c->pending.cg);
}

/* A counted yield of @p, current on this CPU. Preemption is disabled. */
static void ys_yield(struct task_struct *p, bool compat)
{
	struct ys_cpu *c = this_cpu_ptr(&ys_cpu);
	pid_t filter = READ_ONCE(ys_filter_pid);

	if (filter && filter != p->pid && filter != p->tgid)
		return;

	if (c->pending.pid)
		ys_resolve(c, c->pending.pid == p->pid ?
			   YS_INEFFECTIVE : YS_LOST);

	c->pending.gen = ys_cur_gen();
	c->pending.pid = p->pid;
	/* a reset in progress empties the table: no group is claimed */
	c->pending.cg = c->pending.gen & 1 ? YS_CG_NONE : ys_cg_slot(p);

	u64_stats_update_begin(&c->syncp);
	u64_stats_inc(&c->cnt[YS_YIELDS]);
	if (compat)
		u64_stats_inc(&c->cnt[YS_COMPAT]);
	u64_stats_update_end(&c->syncp);
	ys_cg_count(c->pending.cg, YS_YIELDS);
	if (compat)
		ys_cg_count(c->pending.cg, YS_COMPAT);
}

/*
 * Effective yield of this CPU's pending yielder, switched out at @now: put
 * it in the wait table until it runs again. False if the slot is taken.
 */
static bool ys_park(struct ys_cpu *c, u64 now)
{
	struct ys_wait *w = &ys_wait[c->pending.pid & (YS_WAIT_SLOTS - 1)];

	if (atomic_cmpxchg(&w->pid, 0, YS_WAIT_BUSY) != 0)
		return false;
	w->gen = c->pending.gen;
	w->cg = c->pending.cg;
	w->time = now;
	atomic_set_release(&w->pid, c->pending.pid);
	return true;
}

/*
 * @pid is switched in: if it waits after an effective yield, time it.
 * @now is the time of the switch, 0 if not read yet.
 */
static void ys_unpark(struct ys_cpu *c, pid_t pid, u64 now)
{
	struct ys_wait *w = &ys_wait[pid & (YS_WAIT_SLOTS - 1)];
	unsigned int b;
	u64 time;
	u32 gen;
	int cg;

	if (atomic_read_acquire(&w->pid) != pid)
		return;
	gen = w->gen;
	cg = w->cg;
	time = w->time;
	atomic_set_release(&w->pid, 0);
	if (!ys_gen_valid(gen, ys_cur_gen()))
		return;
	if (!now)
		now = local_clock();

	b = ys_bucket(now - time);
	u64_stats_update_begin(&c->syncp);
	u64_stats_inc(&c->hist[b]);
	u64_stats_update_end(&c->syncp);
	if (cg != YS_CG_NONE)
		atomic64_inc(&ys_cg[cg].hist[b]);
}

/* Is the current task's system call @nr sched_yield()? */
static bool ys_is_sched_yield(long nr)
{
#ifdef __NR_ia32_sched_yield
	if (in_compat_syscall())
		return nr == __NR_ia32_sched_yield;
#endif
	return nr == __NR_sched_yield && !in_compat_syscall();
}

/* Is @prev, current and switched out runnable, in a yield? */
static bool ys_in_yield(struct task_struct *prev)
{
	if (prev->flags & PF_KTHREAD)
		return true;
	return ys_is_sched_yield(syscall_get_nr(prev, task_pt_regs(prev)));
}

static void ys_probe_sched_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	struct ys_cpu *c = this_cpu_ptr(&ys_cpu);
	u64 now = 0;	/* the clock is read once, and only if needed */

	if (unlikely(c->pending.pid)) {
		if (c->pending.pid != prev->pid) {
			ys_resolve(c, YS_LOST);
		} else if (prev_state != TASK_RUNNING || !ys_in_yield(prev)) {
			ys_resolve(c, YS_INEFFECTIVE);
		} else {
			now = local_clock();
			if (!ys_park(c, now))
				ys_count(c, YS_LOST, c->pending.gen,
					 c->pending.cg);
			ys_resolve(c, YS_EFFECTIVE);
		}
	}
	if (next->pid)
		ys_unpark(c, next->pid, now);
}

static void ys_probe_yield_fair(void *data, struct task_struct *p,
				bool compat, int level, u64 vruntime_before,
				u64 vruntime_after, unsigned int nr_running)
{
	trace_sched_yield_fair(p, compat, level, vruntime_before,
			       vruntime_after, nr_running);
	/*
	 * The compat yield handled the call when it found a level with
	 * rivals; it moves nothing when the entity is already behind them
	 * (its rival was preempted just after passing it), and that yield
	 * counts all the same.
	 */
	ys_yield(p, level >= 0);
}

static void ys_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	unsigned int policy = READ_ONCE(current->policy);

	if (id != __NR_sched_yield || in_compat_syscall())
		return;
	if (policy != SCHED_NORMAL && policy != SCHED_BATCH &&
	    policy != SCHED_IDLE)
		return;

	preempt_disable_notrace();
	ys_yield(current, false);
	preempt_enable_notrace();
}

static void ys_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ys_cpu *c;

	if (!ys_is_sched_yield(syscall_get_nr(current, regs)))
		return;

	preempt_disable_notrace();
	c = this_cpu_ptr(&ys_cpu);
	if (c->pending.pid && c->pending.pid == current->pid)
		ys_resolve(c, YS_INEFFECTIVE);
	preempt_enable_notrace();
}

enum ys_tp_id {
	YS_TP_SCHED_SWITCH,
	YS_TP_SYS_EXIT,
	YS_TP_YIELD_FAIR,
	YS_TP_SYS_ENTER,
	YS_NR_TPS
};

/* In registration order; unregistered in reverse. */
static struct ys_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
} ys_tps[YS_NR_TPS] = {
	[YS_TP_SCHED_SWITCH] = { "sched_switch", ys_probe_sched_switch },
	[YS_TP_SYS_EXIT] = { "sys_exit", ys_probe_sys_exit },
	[YS_TP_YIELD_FAIR] = { "sched_yield_fair_tp", ys_probe_yield_fair },
	[YS_TP_SYS_ENTER] = { "sys_enter", ys_probe_sys_enter },
};

static void ys_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < YS_NR_TPS; i++)
		if (!strcmp(tp->name, ys_tps[i].name))
			ys_tps[i].tp = tp;
}

static void ys_unregister_all(void)
{
	int i;

	for (i = YS_NR_TPS - 1; i >= 0; i--) {
		if (!ys_tps[i].registered)
			continue;
		tracepoint_probe_unregister(ys_tps[i].tp, ys_tps[i].probe,
					    NULL);
		ys_tps[i].registered = false;
	}
	tracepoint_synchronize_unregister();
}

static int ys_register_all(void)
{
	int i, ret;

	for_each_kernel_tracepoint(ys_find_tp, NULL);
	if (!ys_tps[YS_TP_SCHED_SWITCH].tp) {
		pr_err("no sched_switch tracepoint\n");
		return -ENODEV;
	}
	ys_compat_available = !!ys_tps[YS_TP_YIELD_FAIR].tp;
	/*
	 * Count yields at one source only, and keep the system calls off the
	 * slow path where the switches tell the outcome.
	 */
	if (ys_compat_available) {
		ys_tps[YS_TP_SYS_ENTER].tp = NULL;
		ys_tps[YS_TP_SYS_EXIT].tp = NULL;
	}
	if (!ys_tps[YS_TP_YIELD_FAIR].tp && !ys_tps[YS_TP_SYS_ENTER].tp) {
		pr_err("neither sched_yield_fair_tp nor sys_enter tracepoint\n");
		return -ENODEV;
	}

	for (i = 0; i < YS_NR_TPS; i++) {
		if (!ys_tps[i].tp)
			continue;
		ret = tracepoint_probe_register(ys_tps[i].tp, ys_tps[i].probe,
						NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", ys_tps[i].name,
			       ret);
			ys_unregister_all();
			return ret;
		}
		ys_tps[i].registered = true;
	}

	pr_info("yields from %s, compat %savailable, sys_exit %s\n",
		ys_compat_available ? "sched_yield_fair_tp" : "sys_enter",
		ys_compat_available ? "" : "not ",
		ys_tps[YS_TP_SYS_EXIT].tp ? "used" : "not used");
	return 0;
}

/* Add @cpu's counts since the last reset to @sum. Under ys_lock. */
static void ys_add_cpu(int cpu, struct ys_counts *sum)
{
	struct ys_cpu *c = per_cpu_ptr(&ys_cpu, cpu);
	struct ys_counts *base = per_cpu_ptr(&ys_base, cpu);
	unsigned int start, i;
	u64 v[YS_NR_COUNTERS];
	u64 h[YS_NR_BUCKETS];

	do {
		start = u64_stats_fetch_begin(&c->syncp);
		for (i = 0; i < YS_NR_COUNTERS; i++)
			v[i] = u64_stats_read(&c->cnt[i]);
		for (i = 0; i < YS_NR_BUCKETS; i++)
			h[i] = u64_stats_read(&c->hist[i]);
	} while (u64_stats_fetch_retry(&c->syncp, start));

	for (i = 0; i < YS_NR_COUNTERS; i++)
		sum->cnt[i] += v[i] - base->cnt[i];
	for (i = 0; i < YS_NR_BUCKETS; i++)
		sum->hist[i] += h[i] - base->hist[i];
}

/*
 * A pending yield of the reader itself was ineffective: the reader runs,
 * in another system call. Resolve it, so that a task that reads its own
 * counts sees all of its yields resolved.
 */
static void ys_resolve_reader(void)
{
	struct ys_cpu *c;

	preempt_disable();
	c = this_cpu_ptr(&ys_cpu);
	if (c->pending.pid && c->pending.pid == current->pid)
		ys_resolve(c, YS_INEFFECTIVE);
	preempt_enable();
}

static void ys_read_total(struct ys_counts *sum)
{
	int cpu;

	ys_resolve_reader();
	memset(sum, 0, sizeof(*sum));
	mutex_lock(&ys_lock);
	for_each_possible_cpu(cpu)
		ys_add_cpu(cpu, sum);
	mutex_unlock(&ys_lock);
}

static void ys_reset(void)
{
	struct ys_counts now;
	int cpu, i;

	mutex_lock(&ys_lock);
	/* Odd: no resolution counts until the baseline is taken. */
	smp_store_release(&ys_gen, ys_gen + 1);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct ys_counts *base = per_cpu_ptr(&ys_base, cpu);

		memset(&now, 0, sizeof(now));
		ys_add_cpu(cpu, &now);
		/* now is relative to the old baseline: make it absolute. */
		for (i = 0; i < YS_NR_COUNTERS; i++)
			base->cnt[i] += now.cnt[i];
		for (i = 0; i < YS_NR_BUCKETS; i++)
			base->hist[i] += now.hist[i];
	}
	/* no probe runs with the old generation: the table can go */
	memset(ys_cg, 0, sizeof(ys_cg));
	/* Even again: the baseline reads are ordered before it. */
	smp_store_release(&ys_gen, ys_gen + 1);
	mutex_unlock(&ys_lock);
}

/* sysfs: /sys/kernel/yield_stats/ */

struct ys_attr {
	struct kobj_attribute attr;
	enum ys_counter counter;
};

static ssize_t ys_counter_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct ys_attr *ya = container_of(attr, struct ys_attr, attr);
	struct ys_counts sum;

	if (ya->counter == YS_COMPAT && !ys_compat_available)
		return -ENODATA;
	ys_read_total(&sum);
	return sysfs_emit(buf, "%llu\n", sum.cnt[ya->counter]);
}

#define YS_COUNTER_ATTR(_name, _counter)				\
	static struct ys_attr ys_attr_##_name = {			\
		.attr = __ATTR(_name, 0444, ys_counter_show, NULL),	\
		.counter = _counter,					\
	}

YS_COUNTER_ATTR(yields, YS_YIELDS);
YS_COUNTER_ATTR(effective, YS_EFFECTIVE);
YS_COUNTER_ATTR(ineffective, YS_INEFFECTIVE);
YS_COUNTER_ATTR(compat, YS_COMPAT);
YS_COUNTER_ATTR(lost, YS_LOST);

static ssize_t compat_available_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", ys_compat_available);
}

static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	ys_reset();
	return count;
}

static ssize_t filter_pid_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ys_filter_pid));
}

static ssize_t filter_pid_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	int pid, ret;

	ret = kstrtoint(buf, 10, &pid);
	if (ret)
		return ret;
	if (pid < 0 || pid > PID_MAX_LIMIT)
		return -EINVAL;
	WRITE_ONCE(ys_filter_pid, pid);
	return count;
}

static struct kobj_attribute ys_attr_compat_available =
	__ATTR_RO(compat_available);
static struct kobj_attribute ys_attr_reset = __ATTR_WO(reset);
static struct kobj_attribute ys_attr_filter_pid = __ATTR_RW(filter_pid);

static struct attribute *ys_attrs[] = {
	&ys_attr_yields.attr.attr,
	&ys_attr_effective.attr.attr,
	&ys_attr_ineffective.attr.attr,
	&ys_attr_compat.attr.attr,
	&ys_attr_lost.attr.attr,
	&ys_attr_compat_available.attr,
	&ys_attr_reset.attr,
	&ys_attr_filter_pid.attr,
	NULL
};

static const struct attribute_group ys_group = {
	.attrs = ys_attrs,
};

/* debugfs: /sys/kernel/debug/yield_stats/ */

static int ys_percpu_show(struct seq_file *m, void *v)
{
	struct ys_counts sum;
	int cpu, i;

	ys_resolve_reader();
	mutex_lock(&ys_lock);
	for_each_possible_cpu(cpu) {
		memset(&sum, 0, sizeof(sum));
		ys_add_cpu(cpu, &sum);
		seq_printf(m, "cpu%d", cpu);
		for (i = 0; i < YS_NR_COUNTERS; i++) {
			if (i == YS_COMPAT && !ys_compat_available)
				seq_printf(m, " %s=-", ys_counter_names[i]);
			else
				seq_printf(m, " %s=%llu", ys_counter_names[i],
					   sum.cnt[i]);
		}
		seq_putc(m, '\n');
	}
	mutex_unlock(&ys_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ys_percpu);

static int ys_histogram_show(struct seq_file *m, void *v)
{
	struct ys_counts sum;
	unsigned int b;

	ys_read_total(&sum);
	for (b = 0; b < YS_NR_BUCKETS; b++)
		seq_printf(m, "%llu %llu\n", ys_bucket_low(b), sum.hist[b]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ys_histogram);

/* Top of the bucket of @h (@n times) holding the @pct percentile, in ns */
static u64 ys_quantile(const u64 *h, u64 n, unsigned int pct)
{
	u64 seen = 0, want = div_u64(n * pct + 99, 100);
	unsigned int b;

	for (b = 0; b < YS_NR_BUCKETS; b++) {
		seen += h[b];
		if (seen >= want && seen)
			return b ? 1ULL << b : 0;
	}
	return 0;
}

/*
 * A line per group that yielded since the last reset: its path (the
 * cgroup v2 path from the root, "(removed)" for a group gone since, or
 * "(other)"), the counts, and the time away after an effective yield,
 * p50 and p99 as the top of the log2 bucket holding them (us, rounded up).
 */
static int ys_cgroups_show(struct seq_file *m, void *v)
{
	u64 c[YS_NR_COUNTERS], h[YS_NR_BUCKETS], n, id;
	char *path;
	int k, i;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	ys_resolve_reader();
	seq_puts(m, "yields compat effective ineffective lost p50_us p99_us path\n");
	mutex_lock(&ys_lock);
	for (k = 0; k < YS_CG_SLOTS; k++) {
		id = atomic64_read(&ys_cg[k].id);
		for (i = 0; i < YS_NR_COUNTERS; i++)
			c[i] = atomic64_read(&ys_cg[k].cnt[i]);
		if (!c[YS_YIELDS])
			continue;
		for (i = 0, n = 0; i < YS_NR_BUCKETS; i++) {
			h[i] = atomic64_read(&ys_cg[k].hist[i]);
			n += h[i];
		}
		if (k == YS_CG_OTHER) {
			strscpy(path, "(other)", PATH_MAX);
		} else {
			struct cgroup *cgrp = cgroup_get_from_id(id);

			if (IS_ERR(cgrp)) {
				strscpy(path, "(removed)", PATH_MAX);
			} else {
				if (cgroup_path(cgrp, path, PATH_MAX) < 0)
					strscpy(path, "?", PATH_MAX);
				cgroup_put(cgrp);
			}
		}
		seq_printf(m, "%llu ", c[YS_YIELDS]);
		if (ys_compat_available)
			seq_printf(m, "%llu", c[YS_COMPAT]);
		else
			seq_putc(m, '-');
		seq_printf(m, " %llu %llu %llu %llu %llu %s\n",
			   c[YS_EFFECTIVE], c[YS_INEFFECTIVE], c[YS_LOST],
			   DIV_ROUND_UP_ULL(ys_quantile(h, n, 50), NSEC_PER_USEC),
			   DIV_ROUND_UP_ULL(ys_quantile(h, n, 99), NSEC_PER_USEC),
			   path);
	}
	mutex_unlock(&ys_lock);
	kfree(path);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ys_cgroups);

static int __init ys_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(&ys_cpu, cpu)->syncp);

	ys_kobj = kobject_create_and_add("yield_stats", kernel_kobj);
	if (!ys_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(ys_kobj, &ys_group);
	if (ret)
		goto err_kobj;

	ys_debugfs = debugfs_create_dir("yield_stats", NULL);
	debugfs_create_file("percpu", 0444, ys_debugfs, NULL,
			    &ys_percpu_fops);
	debugfs_create_file("histogram", 0444, ys_debugfs, NULL,
			    &ys_histogram_fops);
	debugfs_create_file("cgroups", 0444, ys_debugfs, NULL,
			    &ys_cgroups_fops);

	ret = ys_register_all();
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove_recursive(ys_debugfs);
err_kobj:
	kobject_put(ys_kobj);
	return ret;
}

static void __exit ys_exit(void)
{
	ys_unregister_all();
	debugfs_remove_recursive(ys_debugfs);
	kobject_put(ys_kobj);
}

module_init(ys_init);
module_exit(ys_exit);

MODULE_DESCRIPTION("sched_yield() statistics of fair-class tasks");
MODULE_AUTHOR("Seed 4fdcf0b9 maintainers <maintainers@users.noreply.a-seed-4fdcf0b9.example>");
MODULE_LICENSE("GPL");
