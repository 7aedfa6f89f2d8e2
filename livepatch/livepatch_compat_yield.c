// SPDX-License-Identifier: GPL-2.0
/*
 * livepatch_compat_yield: the series' sched_compat_yield for a running
 * Debian 6.1 or 6.12 kernel, as a livepatch.
 *
 * The code that yields is not written here. compat_yield.c is generated
 * at build time by extract.py from kernel/sched/fair.c of the matching
 * linux-source with the series' patches applied: the series' switch,
 * compat yield and yield paths as the patched kernel has them, and the
 * stock helpers they use that the binary kernel inlined. What the series
 * keeps in struct task_group, each group's cpu.compat_yield, is kept here
 * in a table, with the file added to the cpu controller while the patch
 * is enabled. The kernel's
 * functions that the binary has out of line are declared in klp-syms.h
 * and reached through livepatch relocations (klp-convert.py): the
 * livepatch core resolves them by name, and refuses an ambiguous or
 * missing one, when the module loads; the calls are direct calls.
 *
 * yield_task_fair() and yield_to_task_fair() are replaced: the second so
 * that yield_to() (KVM's directed yield) keeps the default path, as in
 * the series; and cpu_cgroup_css_released(), so that a group leaves the
 * table when it is released. The switch's files exist while the patch is enabled, with
 * the series' ABI: /sys/kernel/sched_compat_yield and, when the module is
 * loaded with sysctl=1, kernel.sched_compat_yield (the series' option
 * CONFIG_SCHED_COMPAT_YIELD_SYSCTL, off by default there too: programs
 * such as OpenJ9 JVMs read that file and wait differently when it holds
 * 0). The switch holds the parameter sched_compat_yield (default 0) when
 * they appear.
 *
 * Beside other livepatches. The switch is a livepatch state
 * (Documentation/livepatch/system-state.rst): a cumulative livepatch
 * (.replace) that does not carry it is refused by the livepatch core, so
 * no other livepatch removes this one and leaves its files behind. This
 * one is refused when another livepatch already replaces one of its
 * functions.
 *
 * Upgrade. A build loaded while an earlier one (of this state) runs takes
 * over from it: the switch's value and the groups at 1 before any task
 * runs the new code, the files once every task does (cpu.compat_yield is
 * gone from the groups for that moment; writes to the earlier build's
 * file until then are carried over). By default it replaces the earlier
 * build (.replace), which then only has to be unloaded; it is refused if
 * that would remove another vendor's livepatch as well, and with
 * replace=0 it stacks on the earlier build instead, which is then
 * disabled by hand (disabled first, the later build hands the files and
 * the values back to the latest build still enabled). In no case does a
 * task run the stock yield in between.
 * What a build hands to the next is struct lp_switch, its layout fixed by
 * the state's version; the core lets a build of a later version follow
 * one of an earlier version, so a later layout must still read this one.
 * Another vendor's cumulative livepatch that carries this state id at
 * this version replaces this build without its callbacks: the files then
 * answer ENODEV until the module is unloaded (lp_in_effect()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include <generated/utsversion.h>

/* fair.c's own includes, sched.h among them */
#include "kernel/sched/fair-includes.h"
#include "klp-syms.h"
#include "klp-core.h"
/* LP_CTL_TABLE: the sysctl handlers' table argument here (build.sh) */
#include "lp-ctl-table.h"

/*
 * The kernel this module is for: the headers' UTS_VERSION and the build ID
 * of the image (a test build names another).
 */
#ifdef LP_TEST_OTHER_KERNEL
#define LP_UTS_VERSION "#1 SMP PREEMPT_DYNAMIC Debian 0.0-0 (test)"
#else
#define LP_UTS_VERSION UTS_VERSION
#endif
#ifdef LP_TEST_OTHER_BUILD_ID
#undef LP_BUILD_ID
#define LP_BUILD_ID "0123456789abcdef0123456789abcdef01234567"
#endif

/*
 * fair.c's cfs_bandwidth_used() tests its static key with a jump label.
 * This one reads the key's count instead: a jump entry of this module on
 * a key of the kernel would depend on the module loader resolving the
 * livepatch relocation of the key (.klp.rela.vmlinux.__jump_table) before
 * it sets up the module's jump entries, which it does since 5.8 but which
 * nothing here tests; a load and a compare where fair.c has a NOP, on the
 * yield path only.
 */
static inline bool cfs_bandwidth_used(void)
{
	return static_key_count(&__cfs_bandwidth_used) > 0;
}

/*
 * What compat_yield.c needs the module to provide: the series declares
 * sched_compat_yield_parse() in sched.h, for core.c's file handler, and
 * sched_compat_yield_top() reads a field the series adds to struct
 * task_group, which a module cannot; this one keeps a table instead
 * (below). The series' tracepoint is not in the running kernel: a stub
 * that is never enabled, so that its calls compile away.
 */
int sched_compat_yield_parse(const char *buf, size_t len, bool *on);
static int sched_compat_yield_top(struct task_struct *p);

static inline bool trace_sched_yield_fair_tp_enabled(void)
{
	return false;
}

static inline void trace_sched_yield_fair_tp(struct task_struct *p,
					     bool compat, int level,
					     u64 vruntime_before,
					     u64 vruntime_after,
					     unsigned int nr_running)
{
}

#include "compat_yield.c"

/*
 * cpu.compat_yield, a group's own switch, as the series has it, kept in a
 * table of the groups at 1 instead of a field of struct task_group. An
 * entry is the serial number of the group's css (serial_nr), which no
 * other css of the boot has, also after the cpu controller is disabled
 * and enabled again in that cgroup; an autogroup's task group, which has
 * no css, has 0 there and is never at 1. Entries leave the table when
 * their group is released (cpu_cgroup_css_released(), replaced below):
 * later than the series' offline hook, once the group's last task is
 * gone, which changes no yield. An entry that stays behind (on a failed
 * allocation) matches no group; it only keeps the static key on. The
 * table, sorted, is replaced as a whole under sched_compat_yield_mutex and
 * read under RCU; sched_compat_yield_groups counts its entries, so that
 * the static key is on while the switch is 1 or a group is at 1. A yield
 * looks each ancestor up by binary search: O(depth * log(groups)).
 */
struct lp_groups {
	struct rcu_head rcu;
	unsigned int nr;
	u64 serial[];		/* ascending */
};

static struct lp_groups __rcu *lp_groups;

static struct task_group *lp_css_tg(struct cgroup_subsys_state *css)
{
	return container_of(css, struct task_group, css);
}

/* The index of @serial in @gs, or where it would go, -1 - that index */
static int lp_group_find(const struct lp_groups *gs, u64 serial)
{
	unsigned int lo = 0, hi = gs ? gs->nr : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (gs->serial[mid] == serial)
			return mid;
		if (gs->serial[mid] < serial)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1 - (int)lo;
}

/*
 * Replace the table by the @n ascending serial numbers of @s (a copy),
 * with sched_compat_yield_mutex held; the static key follows.
 */
static int lp_groups_replace(const u64 *s, unsigned int n)
{
	struct lp_groups *gs = NULL, *old;

	lockdep_assert_held(&sched_compat_yield_mutex);
	if (n) {
		gs = kmalloc(struct_size(gs, serial, n), GFP_KERNEL);
		if (!gs)
			return -ENOMEM;
		gs->nr = n;
		memcpy(gs->serial, s, n * sizeof(*s));
	}
	old = rcu_dereference_protected(lp_groups,
					lockdep_is_held(&sched_compat_yield_mutex));
	rcu_assign_pointer(lp_groups, gs);
	sched_compat_yield_groups = n;
	sched_compat_yield_update_key();
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* cpu.compat_yield of the group whose css has @serial to @on */
static int lp_group_set(u64 serial, bool on)
{
	struct lp_groups *gs;
	unsigned int nr, i;
	int idx, ret = 0;
	u64 *s;

	mutex_lock(&sched_compat_yield_mutex);
	gs = rcu_dereference_protected(lp_groups,
				       lockdep_is_held(&sched_compat_yield_mutex));
	idx = lp_group_find(gs, serial);
	if (on == (idx >= 0))
		goto out;
	nr = gs ? gs->nr : 0;
	s = kmalloc_array(nr + 1, sizeof(*s), GFP_KERNEL);
	if (!s) {
		ret = -ENOMEM;
		goto out;
	}
	if (on) {
		/* insert at -1 - idx */
		idx = -1 - idx;
		for (i = 0; i < idx; i++)
			s[i] = gs->serial[i];
		s[idx] = serial;
		for (i = idx; i < nr; i++)
			s[i + 1] = gs->serial[i];
		nr++;
	} else {
		for (i = 0; i < idx; i++)
			s[i] = gs->serial[i];
		for (i = idx + 1; i < nr; i++)
			s[i - 1] = gs->serial[i];
		nr--;
	}
	ret = lp_groups_replace(s, nr);
	kfree(s);
out:
	mutex_unlock(&sched_compat_yield_mutex);
	return ret;
}

static bool lp_group_on(u64 serial)
{
	bool on;

	rcu_read_lock();
	on = lp_group_find(rcu_dereference(lp_groups), serial) >= 0;
	rcu_read_unlock();
	return on;
}

/*
 * The series' sched_compat_yield_top(), on the table: the depth of the
 * entity of the highest group at 1 above @p, 0 with the switch at 1, -1
 * for the default yield. Under the rq lock.
 */
static int sched_compat_yield_top(struct task_struct *p)
{
	const struct lp_groups *gs;
	struct task_group *tg;
	int levels = 0, highest = -1;

	if (READ_ONCE(sched_compat_yield_all))
		return 0;
	rcu_read_lock();
	gs = rcu_dereference(lp_groups);
	for (tg = task_group(p); gs && tg && tg->parent; tg = tg->parent) {
		if (lp_group_find(gs, tg->css.serial_nr) >= 0)
			highest = levels;
		levels++;
	}
	rcu_read_unlock();
	return highest >= 0 ? levels - 1 - highest : -1;
}

static bool lp_in_effect(void);
static int lp_not_in_effect(void);

static int lp_cpu_compat_yield_show(struct seq_file *sf, void *v)
{
	if (!lp_in_effect())
		return lp_not_in_effect();
	seq_printf(sf, "%d\n", lp_group_on(seq_css(sf)->serial_nr));
	return 0;
}

/* Exactly "0" or "1", with an optional newline, as the machine's switch */
static ssize_t lp_cpu_compat_yield_write(struct kernfs_open_file *of,
					 char *buf, size_t nbytes, loff_t off)
{
	bool on;
	int ret;

	if (!lp_in_effect())
		return lp_not_in_effect();
	ret = sched_compat_yield_parse(buf, nbytes, &on);
	if (ret)
		return ret;
	ret = lp_group_set(of_css(of)->serial_nr, on);
	return ret ? ret : nbytes;
}

static struct cftype lp_cpu_files[] = {
	{
		.name = "compat_yield",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = lp_cpu_compat_yield_show,
		.write = lp_cpu_compat_yield_write,
	},
	{ }
};

/*
 * LP_TEST_STOCK_WINDOW, a test build: an upgrade takes the switch's value
 * over only once every task runs it (post_patch), and a second later, so
 * that the tasks that switch to it earlier run the stock yield meanwhile:
 * the window the upgrade check must see. The second makes the window as
 * long whether the transition's last task switches at once or after a
 * retry.
 */
#ifdef LP_TEST_STOCK_WINDOW
#include <linux/delay.h>
#define LP_TEST_STOCK_WINDOW_MS	1000
#endif

/*
 * LP_TEST_NO_FOLLOW, a test build: a write of the switch during a
 * roll-back stays with this build (no lp_below_follow()), so that the
 * tasks back on the build below keep its earlier value until post_unpatch:
 * what the roll-back write check must see.
 *
 * LP_TEST_HOLD_ROLLBACK, a test build: its roll-back's post_unpatch, where
 * every task runs the build below's code and this build still owns the
 * files, holds after a line in the log until the knob was written twice
 * (the write under test, then the caller's own once it has measured), at
 * most LP_TEST_HOLD_ROLLBACK_MAX_MS: the window in which such a write must
 * reach the build below, held open on purpose.
 */
#ifdef LP_TEST_HOLD_ROLLBACK
#include <linux/delay.h>
#define LP_TEST_HOLD_ROLLBACK_MAX_MS	60000
static atomic_t lp_test_rollback_writes = ATOMIC_INIT(0);

static void lp_test_hold_rollback(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(LP_TEST_HOLD_ROLLBACK_MAX_MS);

	pr_info("test build: the roll-back holds before its files go\n");
	while (atomic_read(&lp_test_rollback_writes) < 2 && time_before(jiffies, end))
		msleep(20);
	pr_info("test build: the roll-back goes on\n");
}
#endif

/*
 * LP_TEST_HOLD_WRITE, a test build: a write to the knob, once past the
 * check that the patch is in effect, holds in the handler until the
 * knob's file is being removed (kernfs has begun to drain it), at most
 * LP_TEST_HOLD_WRITE_MS, after a line in the log: the removal waits for
 * it, and the value it writes must be what the next owner of the files
 * has (an upgrade's post_patch, a roll-back's post_unpatch).
 */
#ifdef LP_TEST_HOLD_WRITE
#include <linux/delay.h>
#define LP_TEST_HOLD_WRITE_MS	120000

static void lp_test_hold_write(struct kobject *kobj,
			       struct kobj_attribute *attr)
{
	struct kernfs_node *kn = kernfs_find_and_get(kobj->sd, attr->attr.name);
	unsigned int ms = 0;

	if (!kn)
		return;
	pr_info("test build: a write to the switch held until its file is removed\n");
	/* kernfs_drain() makes the active count negative */
	while (atomic_read(&kn->active) >= 0 && ms < LP_TEST_HOLD_WRITE_MS) {
		msleep(20);
		ms += 20;
	}
	pr_info("test build: the held write goes on after %u ms\n", ms);
	kernfs_put(kn);
}
#endif

/*
 * LP_TEST_HOLD_TRANSITION, a test build: it also replaces
 * msleep_interruptible() (with the same code), and a write of N to its
 * parameter hold_transition_ms starts a kernel thread that sleeps up to N
 * ms in that function (0 wakes it at once, with a SIGKILL). While
 * it sleeps there, the transition of a build that replaces this one
 * cannot switch it: its stack holds a function the transition takes
 * away. The transition stays open that long, on either kernel: the
 * window in which an upgrade is reversed, held open on purpose. The
 * thread must be started before the replacing build is loaded (one
 * started during the transition starts on the new build). The parameter
 * takes writes only between a successful lp_init and lp_exit, so that no
 * thread outlives the module's code.
 */
#ifdef LP_TEST_HOLD_TRANSITION
#include <linux/kthread.h>
#define LP_TEST_HOLD_TRANSITION_MAX_MS	60000
static DEFINE_MUTEX(lp_test_hold_mutex);
static bool lp_test_hold_live;
static struct task_struct *lp_test_holder;
static unsigned int lp_test_hold_ms;

/*
 * msleep_interruptible() of the kernel this build is for: 6.1 sleeps a
 * jiffy more (LP_TEST_MSLEEP_EXTRA, livepatch/build.sh). Its loop keeps
 * this function's frame on the sleeper's stack (noinline, whatever the
 * compiler does), which the transition's stack check looks for.
 */
static noinline unsigned long lp_test_msleep_interruptible(unsigned int msecs)
{
	unsigned long timeout = msecs_to_jiffies(msecs) + LP_TEST_MSLEEP_EXTRA;

	while (timeout && !signal_pending(current))
		timeout = schedule_timeout_interruptible(timeout);
	return jiffies_to_msecs(timeout);
}

static int lp_test_hold(void *data)
{
	unsigned int ms = (unsigned long)data;

	allow_signal(SIGKILL);
	pr_info("test build: a thread sleeps up to %u ms where a replacing build's transition waits for it\n",
		ms);
	lp_test_msleep_interruptible(ms);
	pr_info("test build: the thread that held transitions is awake\n");
	while (!kthread_should_stop())
		schedule_timeout_uninterruptible(HZ / 10);
	return 0;
}

/* Called under lp_test_hold_mutex. */
static void lp_test_hold_stop(void)
{
	if (!lp_test_holder)
		return;
	send_sig(SIGKILL, lp_test_holder, 1);
	kthread_stop(lp_test_holder);
	lp_test_holder = NULL;
	lp_test_hold_ms = 0;
}

static int lp_test_hold_set(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms > LP_TEST_HOLD_TRANSITION_MAX_MS)
		return -EINVAL;
	mutex_lock(&lp_test_hold_mutex);
	if (!lp_test_hold_live) {
		mutex_unlock(&lp_test_hold_mutex);
		return -EBUSY;
	}
	lp_test_hold_stop();
	if (ms) {
		t = kthread_run(lp_test_hold, (void *)(unsigned long)ms, "lp_test_hold");
		ret = PTR_ERR_OR_ZERO(t);
		if (!ret) {
			lp_test_holder = t;
			lp_test_hold_ms = ms;
		}
	}
	mutex_unlock(&lp_test_hold_mutex);
	return ret;
}

static const struct kernel_param_ops lp_test_hold_ops = {
	.set = lp_test_hold_set,
	.get = param_get_uint,
};
module_param_cb(hold_transition_ms, &lp_test_hold_ops, &lp_test_hold_ms, 0644);
#endif

#ifdef LP_TEST_MISSING_SYMBOL
/* Test build: a symbol no kernel has, to see the module refused. */
extern void lp_test_missing_symbol(void) __weak;
static int lp_never;
#endif

static bool sysctl;
module_param(sysctl, bool, 0444);
MODULE_PARM_DESC(sysctl, "Also offer the kernel.sched_compat_yield sysctl (default: no)");

static bool lp_initial;
module_param_named(sched_compat_yield, lp_initial, bool, 0444);
MODULE_PARM_DESC(sched_compat_yield, "The switch's value when the patch is enabled (default: 0; an upgrade keeps the running build's value)");

static bool replace = true;
module_param(replace, bool, 0444);
MODULE_PARM_DESC(replace, "Upgrade: replace the running build (default: yes) or stack on it (no)");

/*
 * The livepatch state of the switch: its id, and the layout of what one
 * build hands to the next (struct lp_switch), fixed for a state version.
 */
#define LP_STATE_ID		0x73637900UL	/* "scy" */
#define LP_STATE_VERSION	2
#define LP_SWITCH_MAGIC		0x5c7e1d01U	/* a build of this livepatch */

/*
 * Version 1: the switch and its files. Version 2 adds the groups' switch,
 * cpu.compat_yield: its table (handed over as the ascending css serial
 * numbers of the groups at 1) and its file.
 */
struct lp_switch {
	u32 magic;				/* LP_SWITCH_MAGIC */
	int (*get)(void);			/* the switch's value */
	void (*set)(bool on);			/* set it */
	int (*create)(bool with_sysctl);	/* put its files up */
	struct ctl_table_header *sysctl;	/* kernel.sched_compat_yield */
	bool files;				/* its files are up */
	/* version 2 */
	/* copy up to @max of the groups at 1 to @s: how many there are */
	unsigned int (*groups_get)(u64 *s, unsigned int max);
	/* the groups at 1 are the @n of @s */
	int (*groups_put)(const u64 *s, unsigned int n);
	/* the group of css serial number @serial is released */
	void (*group_clear)(u64 serial);
	int (*groups_create)(void);		/* put cpu.compat_yield up */
	void (*groups_remove)(void);		/* and take it out */
};

static int lp_files_create(bool with_sysctl);
static unsigned int lp_groups_get(u64 *s, unsigned int max);
static int lp_groups_put(const u64 *s, unsigned int n);
static void lp_group_clear(u64 serial);
static int lp_groups_create(void);
static void lp_groups_remove(void);

static struct lp_switch lp_switch = {
	.magic = LP_SWITCH_MAGIC,
	.get = sched_compat_yield_get,
	.set = sched_compat_yield_set,
	.create = lp_files_create,
	.groups_get = lp_groups_get,
	.groups_put = lp_groups_put,
	.group_clear = lp_group_clear,
	.groups_create = lp_groups_create,
	.groups_remove = lp_groups_remove,
};

static struct klp_patch lp_patch;

/* The earlier build this one takes over from, while it does. */
static struct lp_switch *lp_prev;
/*
 * The build whose table of groups this one keeps in step with its own
 * (a group released is cleared in both) while tasks run either build's
 * code: an upgrade's earlier build, or in a roll-back the build below.
 * A build of state version 2 or later; set and read under cgroup_mutex,
 * which cpu_cgroup_css_released() runs under.
 */
static struct lp_switch *lp_peer;
/* cpu.compat_yield is in the cpu controller's groups, by this build */
static bool lp_groups_files;
/*
 * While this build is disabled: the build below that takes the files
 * over, and its state's version. Set under lp_below_mutex.
 */
static struct lp_switch *lp_below;
static unsigned int lp_below_version;
/*
 * Serialises a write of this build's switch with the roll-back's hand-down
 * of the value (pre_unpatch): see lp_below_follow().
 */
static DEFINE_MUTEX(lp_below_mutex);
/* /sys/kernel/sched_compat_yield existed when this module was loaded. */
static bool lp_knob_existed;
/*
 * The yield runs this build's switch, or will when the transition that
 * runs ends: the patch is on the livepatch core's list. A cumulative
 * livepatch that is no build of this one but carries its state id, at a
 * version the core accepts, replaces this build without running its
 * callbacks: when that transition has ended the core takes this patch
 * off its list (list_del(), klp_free_patch_start()) and the files are
 * still up, toggling a switch no yield reads. Every other way off the
 * list comes after a callback removed the files: this build's
 * post_unpatch, or the post_patch of a later build of this livepatch,
 * which takes them over. Read without klp_mutex, which the callbacks
 * hold while they remove the files and so wait for these readers.
 */
static bool lp_in_effect(void)
{
	struct list_head *next = READ_ONCE(lp_patch.list.next);

	return next != LIST_POISON1 && next != &lp_patch.list;
}

/*
 * A file of the switch read or written while the patch is out of effect:
 * say so, once in the log and to every caller.
 */
static int lp_not_in_effect(void)
{
	pr_warn_once("replaced by a cumulative livepatch that does not carry this switch: its files are stale; unloading this module removes them\n");
	return -ENODEV;
}

/*
 * A write of this build's switch while it is disabled, before its
 * post_unpatch: the tasks that went back to the build below already read
 * that build's switch, so the value goes there too. The value handed is
 * the switch's as read under lp_below_mutex, after the write, as
 * pre_unpatch hands it: whichever comes last, the build below ends with
 * this build's latest value.
 */
static void lp_below_follow(void)
{
#ifndef LP_TEST_NO_FOLLOW
	mutex_lock(&lp_below_mutex);
	if (lp_below)
		lp_below->set(sched_compat_yield_get());
	mutex_unlock(&lp_below_mutex);
#endif
}

/*
 * The series' handlers of /sys/kernel/sched_compat_yield and of the
 * sysctl, behind the check above (lp_init points the files at these); a
 * write also reaches the build below during a roll-back.
 */
static ssize_t lp_knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	if (!lp_in_effect())
		return lp_not_in_effect();
	return sched_compat_yield_show(kobj, attr, buf);
}

static ssize_t lp_knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	ssize_t ret;

	if (!lp_in_effect())
		return lp_not_in_effect();
#ifdef LP_TEST_HOLD_WRITE
	lp_test_hold_write(kobj, attr);
#endif
	ret = sched_compat_yield_store(kobj, attr, buf, count);
	if (ret >= 0)
		lp_below_follow();
#ifdef LP_TEST_HOLD_ROLLBACK
	atomic_inc(&lp_test_rollback_writes);
#endif
	return ret;
}

static proc_handler lp_knob_sysctl;
static int lp_knob_sysctl(LP_CTL_TABLE *table, int write, void *buffer,
			  size_t *lenp, loff_t *ppos)
{
	int ret;

	if (!lp_in_effect())
		return lp_not_in_effect();
	ret = sched_compat_yield_sysctl(table, write, buffer, lenp, ppos);
	if (write && !ret)
		lp_below_follow();
	return ret;
}

static const char *const lp_func_names[] = {
	"yield_task_fair", "yield_to_task_fair", "cpu_cgroup_css_released",
};

/*
 * [@p, @p + @size), @size > 0, lies within one region of the module @mod's
 * core memory (its init memory is freed under another lock than the
 * livepatch core's).
 */
static bool lp_in_module(const void *p, size_t size, const struct module *mod)
{
	unsigned long a = (unsigned long)p, b = a + size - 1;
#ifdef for_class_mod_mem_type	/* 6.4's struct module_memory */
	for_class_mod_mem_type(type, core) {
		if (within_module_mem_type(a, mod, type) &&
		    within_module_mem_type(b, mod, type))
			return true;
	}
	return false;
#else
	return within_module_core(a, mod) && within_module_core(b, mod);
#endif
}

/*
 * The switch in @patch's state of this livepatch's id if @patch is a
 * build of this livepatch, else NULL. Another vendor's livepatch may
 * carry the id with data of any kind: the data is read only when it lies
 * within @patch's own module, whole (as long as the state's version has
 * it), and it is a build of this one's when it starts with the magic
 * number.
 */
static struct lp_switch *lp_switch_of(struct klp_patch *patch)
{
	struct klp_state *state = patch ? klp_get_state(patch, LP_STATE_ID) : NULL;
	struct lp_switch *sw = state ? state->data : NULL;
	size_t size = offsetofend(struct lp_switch, files);

	if (state && state->version >= 2)
		size = sizeof(*sw);
	if (!sw || !lp_in_module(sw, size, patch->mod))
		return NULL;
	return sw->magic == LP_SWITCH_MAGIC ? sw : NULL;
}

/*
 * The patch whose state klp_get_prev_state() returns while this build is
 * being enabled: the last one before it in the core's list that carries
 * this livepatch's state id, or NULL.
 */
static struct klp_patch *lp_prev_patch(void)
{
	struct klp_patch *patch, *prev = NULL;

	list_for_each_entry(patch, &klp_patches, list) {
		if (patch == &lp_patch)
			break;
		if (klp_get_state(patch, LP_STATE_ID))
			prev = patch;
	}
	return prev;
}

/*
 * The build of this livepatch that owns the files once this one is
 * disabled: the latest enabled one but this, whichever it stacked on
 * (three builds stacked, the middle one disabled first, leave the first
 * to take over from the last); its state's version in @version.
 */
static struct lp_switch *lp_owner_below(unsigned int *version)
{
	struct lp_switch *sw, *owner = NULL;
	struct klp_patch *patch;

	list_for_each_entry(patch, &klp_patches, list) {
		if (patch == &lp_patch || !patch->enabled)
			continue;
		sw = lp_switch_of(patch);
		if (sw) {
			owner = sw;
			*version = klp_get_state(patch, LP_STATE_ID)->version;
		}
	}
	return owner;
}

/*
 * An enabled livepatch other than a build of this one:
 * with @any, the first one; else the first that replaces a function this
 * one does, with that function in @name.
 */
static struct klp_patch *lp_other_patch(bool any, const char **name)
{
	struct klp_patch *patch;
	struct klp_object *obj;
	struct klp_func *func;
	int i;

	list_for_each_entry(patch, &klp_patches, list) {
		if (patch == &lp_patch || !patch->enabled || lp_switch_of(patch))
			continue;
		if (any)
			return patch;
		klp_for_each_object(patch, obj) {
			if (obj->name)
				continue;
			klp_for_each_func(obj, func) {
				for (i = 0; i < ARRAY_SIZE(lp_func_names); i++) {
					if (strcmp(func->old_name, lp_func_names[i]))
						continue;
					*name = lp_func_names[i];
					return patch;
				}
			}
		}
	}
	return NULL;
}

/*
 * cpu_cgroup_css_released() of the kernel, with the group's entry taken
 * out first, of this build's table and of its peer's.
 */
static void lp_cpu_cgroup_css_released(struct cgroup_subsys_state *css)
{
	struct lp_switch *peer = READ_ONCE(lp_peer);

	lp_group_clear(css->serial_nr);
	if (peer)
		peer->group_clear(css->serial_nr);
	sched_release_group(lp_css_tg(css));
}

static unsigned int lp_groups_get(u64 *s, unsigned int max)
{
	struct lp_groups *gs;
	unsigned int n;

	mutex_lock(&sched_compat_yield_mutex);
	gs = rcu_dereference_protected(lp_groups,
				       lockdep_is_held(&sched_compat_yield_mutex));
	n = gs ? gs->nr : 0;
	if (min(n, max))
		memcpy(s, gs->serial, min(n, max) * sizeof(*s));
	mutex_unlock(&sched_compat_yield_mutex);
	return n;
}

static int lp_groups_put(const u64 *s, unsigned int n)
{
	int ret;

	mutex_lock(&sched_compat_yield_mutex);
	ret = lp_groups_replace(s, n);
	mutex_unlock(&sched_compat_yield_mutex);
	return ret;
}

/*
 * A group released: out of the table. Should the smaller table not be
 * allocated, the entry stays: no css has its serial number again.
 */
static void lp_group_clear(u64 serial)
{
	if (lp_group_set(serial, false))
		pr_warn_ratelimited("a released group stays in the table (no memory); the static key stays on\n");
}

/*
 * The groups at 1 of @from become those of @to (builds of state version 2
 * or later), with cgroup_mutex held, so that no group is released
 * meanwhile; the count may grow between the two looks, hence the loop.
 */
static int lp_groups_copy(struct lp_switch *from, struct lp_switch *to)
{
	unsigned int n, max = 0;
	u64 *s = NULL;
	int ret;

	lockdep_assert_held(&cgroup_mutex);
	for (;;) {
		n = from->groups_get(s, max);
		if (n <= max)
			break;
		kfree(s);
		max = n + 8;
		s = kmalloc_array(max, sizeof(*s), GFP_KERNEL);
		if (!s)
			return -ENOMEM;
	}
	ret = to->groups_put(s, n);
	kfree(s);
	return ret;
}

static int lp_groups_create(void)
{
	int ret;

	if (lp_groups_files)
		return 0;
	ret = cgroup_add_dfl_cftypes(&cpu_cgrp_subsys, lp_cpu_files);
	if (!ret)
		lp_groups_files = true;
	return ret;
}

/* Removing the files waits for the writers in them. */
static void lp_groups_remove(void)
{
	if (!lp_groups_files)
		return;
	cgroup_rm_cftypes(lp_cpu_files);
	lp_groups_files = false;
}

/* The switch's files, with the sysctl when @with_sysctl. */
static int lp_files_create(bool with_sysctl)
{
	int ret;

	if (with_sysctl) {
		lp_switch.sysctl = register_sysctl("kernel", sched_compat_yield_sysctls);
		if (!lp_switch.sysctl)
			return -ENOMEM;
	}
	ret = sysfs_create_file(kernel_kobj, &sched_compat_yield_attr.attr);
	if (ret) {
		if (lp_switch.sysctl)
			unregister_sysctl_table(lp_switch.sysctl);
		lp_switch.sysctl = NULL;
		return ret;
	}
	lp_switch.files = true;
	return 0;
}

/*
 * Remove the files of @sw, this build's or an earlier one's (the sysfs
 * file goes by its name, the same in every build). Removing them waits
 * for the writers in them.
 */
static void lp_files_remove(struct lp_switch *sw)
{
	if (!sw->files)
		return;
	sysfs_remove_file(kernel_kobj, &sched_compat_yield_attr.attr);
	if (sw->sysctl)
		unregister_sysctl_table(sw->sysctl);
	sw->sysctl = NULL;
	sw->files = false;
}

/*
 * Before the new functions run: refuse a conflict; take the switch's
 * value and the groups at 1 from the earlier build, or set the switch and
 * put the files up.
 */
static int lp_pre_patch(struct klp_object *obj)
{
	struct klp_patch *prev_patch = lp_prev_patch();
	struct klp_state *prev = prev_patch ? klp_get_state(prev_patch, LP_STATE_ID) : NULL;
	struct lp_switch *prev_sw = lp_switch_of(prev_patch);
	struct klp_patch *other;
	const char *name = NULL;
	int ret;

#ifdef LP_TEST_MISSING_SYMBOL
	if (READ_ONCE(lp_never))
		lp_test_missing_symbol();
#endif
	if (prev && !prev_sw) {
		pr_err("another livepatch carries the state %#lx without this one's switch: not loaded\n",
		       LP_STATE_ID);
		return -EINVAL;
	}
	if (lp_knob_existed && !prev) {
		pr_err("this kernel already has /sys/kernel/sched_compat_yield: not loaded\n");
		return -EEXIST;
	}
	other = lp_other_patch(lp_patch.replace, &name);
	if (other && lp_patch.replace) {
		pr_err("replacing the running build would remove the livepatch %s too: not loaded (replace=0 stacks on the running build)\n",
		       other->mod->name);
		return -EBUSY;
	}
	if (other) {
		pr_err("the livepatch %s already replaces %s(): not loaded\n",
		       other->mod->name, name);
		return -EBUSY;
	}
	if (prev_sw) {
		if (prev->version >= 2) {
			/* in step with the earlier build's table from now */
			mutex_lock(&cgroup_mutex);
			ret = lp_groups_copy(prev_sw, &lp_switch);
			if (!ret)
				WRITE_ONCE(lp_peer, prev_sw);
			mutex_unlock(&cgroup_mutex);
			if (ret)
				return ret;
		}
		lp_prev = prev_sw;
#ifndef LP_TEST_STOCK_WINDOW
		sched_compat_yield_set(lp_prev->get());
#endif
		return 0;
	}
	sched_compat_yield_set(lp_initial);
	return lp_files_create(sysctl);
}

/*
 * Every task runs this build's functions: take the files over from the
 * earlier build, after its last writer, with the values it left; put
 * cpu.compat_yield up (also on a fresh start, only now: a group released
 * during the transition by a task of the stock code would stay in the
 * table).
 */
static void lp_post_patch(struct klp_object *obj)
{
	struct lp_switch *prev = lp_prev, *peer;
	bool with_sysctl;
	int ret;

	if (prev) {
		with_sysctl = sysctl || prev->sysctl;
#ifdef LP_TEST_COPY_EARLY
		/*
		 * A test build copies the value before the earlier build's
		 * files go, not after: a write still in their handler then
		 * lands where nothing reads it. The fault the held-write
		 * check must see.
		 */
		sched_compat_yield_set(prev->get());
#endif
		lp_files_remove(prev);
		peer = lp_peer;
		if (peer) {
			/*
			 * Its file gone, the writes it took are copied; the
			 * tables stay in step until then.
			 */
			peer->groups_remove();
			mutex_lock(&cgroup_mutex);
			if (lp_groups_copy(peer, &lp_switch))
				pr_err("the groups at 1 set during the upgrade could not be taken over\n");
			WRITE_ONCE(lp_peer, NULL);
			mutex_unlock(&cgroup_mutex);
		}
#ifdef LP_TEST_STOCK_WINDOW
		msleep(LP_TEST_STOCK_WINDOW_MS);
#endif
#ifndef LP_TEST_COPY_EARLY
		sched_compat_yield_set(prev->get());
#endif
		lp_prev = NULL;
		ret = lp_files_create(with_sysctl);
		if (ret)
			pr_err("the switch's files could not be created (%d); the switch stays at %d\n",
			       ret, sched_compat_yield_get());
	} else {
		/*
		 * A fresh start, or a roll-back reversed: this build stays.
		 * A build that does not own the files (a later one took
		 * them) puts no file up: the owner's is there.
		 */
		mutex_lock(&cgroup_mutex);
		WRITE_ONCE(lp_peer, NULL);
		mutex_unlock(&cgroup_mutex);
		mutex_lock(&lp_below_mutex);
		lp_below = NULL;
		mutex_unlock(&lp_below_mutex);
		if (!lp_switch.files)
			return;
	}
	ret = lp_groups_create();
	if (ret)
		pr_err("cpu.compat_yield could not be created (%d); the groups at 1 stay so\n",
		       ret);
}

/*
 * Before tasks return to the stock functions or those of an earlier build
 * of this livepatch that is still enabled (the latest one): when this
 * build has the files, that build gets the switch's value and the groups
 * at 1 now, and the two tables stay in step until the end; this build's
 * cpu.compat_yield goes first, so that nothing changes the groups
 * meanwhile. A write of the switch's files, still this build's until its
 * post_unpatch, reaches that build from now on (lp_below_follow()).
 */
static void lp_pre_unpatch(struct klp_object *obj)
{
	struct lp_switch *below = NULL;
	unsigned int version = 0;

	if (lp_switch.files)
		below = lp_owner_below(&version);
#ifdef LP_TEST_HOLD_ROLLBACK
	atomic_set(&lp_test_rollback_writes, 0);
#endif
	mutex_lock(&lp_below_mutex);
	lp_below = below;
	lp_below_version = version;
	if (below)
		below->set(sched_compat_yield_get());
	mutex_unlock(&lp_below_mutex);
	if (!below || version < 2)
		return;
	lp_groups_remove();
	mutex_lock(&cgroup_mutex);
	if (lp_groups_copy(&lp_switch, below)) {
		pr_err("the groups at 1 could not be handed to the build below: none is there\n");
		below->groups_put(NULL, 0);
	}
	WRITE_ONCE(lp_peer, below);
	mutex_unlock(&cgroup_mutex);
}

/*
 * The stock functions are back, or those of the build below: the files
 * go, unless a later build took them, or go to the build below with the
 * switch's value (written to this build's file meanwhile); then this
 * build's switch and groups return to 0.
 */
static void lp_post_unpatch(struct klp_object *obj)
{
	bool with_sysctl = lp_switch.sysctl;
	struct lp_switch *below = lp_below;

#ifdef LP_TEST_HOLD_ROLLBACK
	if (below)
		lp_test_hold_rollback();
#endif
	lp_files_remove(&lp_switch);
	lp_groups_remove();
	mutex_lock(&cgroup_mutex);
	WRITE_ONCE(lp_peer, NULL);
	mutex_unlock(&cgroup_mutex);
	if (below) {
		below->set(sched_compat_yield_get());
		if (below->create(with_sysctl))
			pr_err("the switch's files could not be handed back to the build below\n");
		if (lp_below_version >= 2) {
			if (below->groups_create())
				pr_err("cpu.compat_yield could not be handed back to the build below\n");
		} else if (sched_compat_yield_groups) {
			pr_warn("the build below has no cpu.compat_yield: its groups' compat yields end\n");
		}
	}
	mutex_lock(&lp_below_mutex);
	lp_below = NULL;
	mutex_unlock(&lp_below_mutex);
	lp_prev = NULL;
	mutex_lock(&sched_compat_yield_mutex);
	lp_groups_replace(NULL, 0);
	mutex_unlock(&sched_compat_yield_mutex);
	sched_compat_yield_set(false);
}

static struct klp_func lp_funcs[] = {
	{
		.old_name = "yield_task_fair",
		.new_func = yield_task_fair,
	},
	{
		.old_name = "yield_to_task_fair",
		.new_func = yield_to_task_fair,
	},
	{
		.old_name = "cpu_cgroup_css_released",
		.new_func = lp_cpu_cgroup_css_released,
	},
#ifdef LP_TEST_HOLD_TRANSITION
	{
		.old_name = "msleep_interruptible",
		.new_func = lp_test_msleep_interruptible,
	},
#endif
	{ }
};

static struct klp_object lp_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = lp_funcs,
		.callbacks = {
			.pre_patch = lp_pre_patch,
			.post_patch = lp_post_patch,
			.pre_unpatch = lp_pre_unpatch,
			.post_unpatch = lp_post_unpatch,
		},
	},
	{ }
};

static struct klp_state lp_states[] = {
	{
		.id = LP_STATE_ID,
		.version = LP_STATE_VERSION,
		.data = &lp_switch,
	},
	{ }
};

static struct klp_patch lp_patch = {
	.mod = THIS_MODULE,
	.objs = lp_objs,
	.states = lp_states,
};

/* a GNU build ID: a SHA-1, 20 bytes */
#define LP_BUILD_ID_SIZE	20

static int __init lp_init(void)
{
	char id[2 * LP_BUILD_ID_SIZE + 1];
	struct kernfs_node *kn;

	if (strcmp(init_utsname()->version, LP_UTS_VERSION)) {
		pr_err("built for the kernel \"%s\", this one is \"%s\": not loaded\n",
		       LP_UTS_VERSION, init_utsname()->version);
		return -ENOEXEC;
	}
	snprintf(id, sizeof(id), "%*phN", LP_BUILD_ID_SIZE, vmlinux_build_id);
	if (strcmp(id, LP_BUILD_ID)) {
		pr_err("built for the kernel of build ID %s, this one's is %s: not loaded\n",
		       LP_BUILD_ID, id);
		return -ENOEXEC;
	}
	/* the switch's files, behind lp_in_effect() */
	sched_compat_yield_attr.show = lp_knob_show;
	sched_compat_yield_attr.store = lp_knob_store;
	sched_compat_yield_sysctls[0].proc_handler = lp_knob_sysctl;
	/*
	 * An earlier build's (else refused in lp_pre_patch, where the
	 * livepatch core tells whose it is): upgrade.
	 */
	kn = kernfs_find_and_get(kernel_kobj->sd, "sched_compat_yield");
	if (kn) {
		kernfs_put(kn);
		lp_knob_existed = true;
		lp_patch.replace = replace;
	}
#ifdef LP_TEST_HOLD_TRANSITION
	{
		int ret = klp_enable_patch(&lp_patch);

		mutex_lock(&lp_test_hold_mutex);
		lp_test_hold_live = !ret;
		mutex_unlock(&lp_test_hold_mutex);
		return ret;
	}
#else
	return klp_enable_patch(&lp_patch);
#endif
}

/*
 * The patch is gone: disabled (lp_post_unpatch removed the files) or
 * replaced, by a later build (which took them) or by a cumulative
 * livepatch that carries this state without knowing the files (they
 * answered ENODEV since, lp_in_effect()): those go now, before this
 * module's code does.
 */
static void __exit lp_exit(void)
{
#ifdef LP_TEST_HOLD_TRANSITION
	mutex_lock(&lp_test_hold_mutex);
	lp_test_hold_live = false;
	lp_test_hold_stop();
	mutex_unlock(&lp_test_hold_mutex);
#endif
	lp_files_remove(&lp_switch);
	lp_groups_remove();
	/* a replaced build's table (its post_unpatch does not run) */
	mutex_lock(&sched_compat_yield_mutex);
	lp_groups_replace(NULL, 0);
	mutex_unlock(&sched_compat_yield_mutex);
}

module_init(lp_init);
module_exit(lp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sched_compat_yield as a livepatch: an aggressive sched_yield()");
MODULE_INFO(livepatch, "Y");
