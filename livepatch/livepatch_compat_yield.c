// SPDX-License-Identifier: GPL-2.0
/*
 * livepatch_compat_yield: the series' sched_compat_yield for a running
 * Debian 6.1 or 6.12 kernel, as a livepatch.
 *
 * The code that yields is not written here. compat_yield.c is generated
 * at build time by extract.py from kernel/sched/fair.c of the matching
 * linux-source with the series' first patch applied: the series' switch,
 * compat yield and yield paths as the patched kernel has them, and the
 * stock helpers they use that the binary kernel inlined. The kernel's
 * functions that the binary has out of line are declared in klp-syms.h
 * and reached through livepatch relocations (klp-convert.py): the
 * livepatch core resolves them by name, and refuses an ambiguous or
 * missing one, when the module loads; the calls are direct calls.
 *
 * yield_task_fair() and yield_to_task_fair() are replaced: the second so
 * that yield_to() (KVM's directed yield) keeps the default path, as in
 * the series. The switch's files exist while the patch is enabled, with
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
 * over from it: the switch's value before any task runs the new code,
 * the files once every task does. By default it replaces the earlier
 * build (.replace), which then only has to be unloaded; it is refused if
 * that would remove another vendor's livepatch as well, and with
 * replace=0 it stacks on the earlier build instead, which is then
 * disabled by hand (disabled first, the later build hands the files and
 * the value back). In no case does a task run the stock yield in between.
 * What a build hands to the next is struct lp_switch, its layout fixed by
 * the state's version; the core lets a build of a later version follow
 * one of an earlier version, so a later layout must still read this one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernfs.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/utsname.h>
#include <generated/utsversion.h>

/* fair.c's own includes, sched.h among them */
#include "kernel/sched/fair-includes.h"
#include "klp-syms.h"
#include "klp-core.h"

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

#include "compat_yield.c"

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
#define LP_STATE_VERSION	1
#define LP_SWITCH_MAGIC		0x5c7e1d01U	/* a build of this livepatch */

struct lp_switch {
	u32 magic;				/* LP_SWITCH_MAGIC */
	int (*get)(void);			/* the switch's value */
	void (*set)(bool on);			/* set it */
	int (*create)(bool with_sysctl);	/* put its files up */
	struct ctl_table_header *sysctl;	/* kernel.sched_compat_yield */
	bool files;				/* its files are up */
};

static int lp_files_create(bool with_sysctl);

static struct lp_switch lp_switch = {
	.magic = LP_SWITCH_MAGIC,
	.get = sched_compat_yield_get,
	.set = sched_compat_yield_set,
	.create = lp_files_create,
};

static struct klp_patch lp_patch;

/* The earlier build this one takes over from, while it does. */
static struct lp_switch *lp_prev;
/*
 * The earlier build this one stacked on (replace=0), to hand the files
 * back to if this one is disabled first. Only compared, never followed,
 * until lp_below_live() finds it among the enabled patches.
 */
static struct lp_switch *lp_below;
/* /sys/kernel/sched_compat_yield existed when this module was loaded. */
static bool lp_knob_existed;

static const char *const lp_func_names[] = {
	"yield_task_fair", "yield_to_task_fair",
};

/* The switch in @state if it is a build of this livepatch's, else NULL. */
static struct lp_switch *lp_switch_in(struct klp_state *state)
{
	struct lp_switch *sw = state ? state->data : NULL;

	return sw && sw->magic == LP_SWITCH_MAGIC ? sw : NULL;
}

static struct lp_switch *lp_switch_of(struct klp_patch *patch)
{
	return lp_switch_in(klp_get_state(patch, LP_STATE_ID));
}

/* lp_below, if the build it belongs to is still enabled. */
static struct lp_switch *lp_below_live(void)
{
	struct klp_patch *patch;

	if (!lp_below)
		return NULL;
	list_for_each_entry(patch, &klp_patches, list) {
		if (patch != &lp_patch && patch->enabled &&
		    lp_switch_of(patch) == lp_below)
			return lp_below;
	}
	return NULL;
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
 * value from the earlier build, or set it and put the files up.
 */
static int lp_pre_patch(struct klp_object *obj)
{
	struct klp_state *prev = klp_get_prev_state(LP_STATE_ID);
	struct lp_switch *prev_sw = lp_switch_in(prev);
	struct klp_patch *other;
	const char *name = NULL;

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
 * earlier build, after its last writer, with the value it left.
 */
static void lp_post_patch(struct klp_object *obj)
{
	bool with_sysctl;
	int ret;

	if (!lp_prev)
		return;
	with_sysctl = sysctl || lp_prev->sysctl;
	lp_files_remove(lp_prev);
#ifdef LP_TEST_STOCK_WINDOW
	msleep(LP_TEST_STOCK_WINDOW_MS);
#endif
	sched_compat_yield_set(lp_prev->get());
	if (!lp_patch.replace)
		lp_below = lp_prev;
	lp_prev = NULL;
	ret = lp_files_create(with_sysctl);
	if (ret)
		pr_err("the switch's files could not be created (%d); the switch stays at %d\n",
		       ret, sched_compat_yield_get());
}

/*
 * The stock functions are back, or those of the build this one stacked
 * on: the files go, unless a later build took them, or go back to that
 * build with the switch's value; then this build's switch returns to 0.
 */
static void lp_post_unpatch(struct klp_object *obj)
{
	struct lp_switch *below = lp_below_live();
	bool with_sysctl = lp_switch.sysctl;
	bool files = lp_switch.files;

	lp_files_remove(&lp_switch);
	if (below && files) {
		below->set(sched_compat_yield_get());
		if (below->create(with_sysctl))
			pr_err("the switch's files could not be handed back to the build below\n");
	}
	lp_prev = NULL;
	lp_below = NULL;
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
	{ }
};

static struct klp_object lp_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = lp_funcs,
		.callbacks = {
			.pre_patch = lp_pre_patch,
			.post_patch = lp_post_patch,
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
	return klp_enable_patch(&lp_patch);
}

/*
 * The patch is gone: disabled (lp_post_unpatch removed the files) or
 * replaced, by a later build (which took them) or by a cumulative
 * livepatch that carries this state without knowing the files: those go
 * now, before this module's code does.
 */
static void __exit lp_exit(void)
{
	lp_files_remove(&lp_switch);
}

module_init(lp_init);
module_exit(lp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sched_compat_yield as a livepatch: an aggressive sched_yield()");
MODULE_INFO(livepatch, "Y");
