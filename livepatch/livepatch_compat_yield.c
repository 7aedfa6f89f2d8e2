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
 * 0). The switch is 0 when they appear.
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

/* The kernel this module is for: the headers' (a test build names another). */
#ifdef LP_TEST_OTHER_KERNEL
#define LP_UTS_VERSION "#1 SMP PREEMPT_DYNAMIC Debian 0.0-0 (test)"
#else
#define LP_UTS_VERSION UTS_VERSION
#endif

/*
 * fair.c's cfs_bandwidth_used() tests its static key with a jump label;
 * a livepatch module cannot add jump labels on a key of the kernel (its
 * jump entries are set up before livepatch relocations are resolved), so
 * this one reads the key's count.
 */
static inline bool cfs_bandwidth_used(void)
{
	return static_key_count(&__cfs_bandwidth_used) > 0;
}

#include "compat_yield.c"

#ifdef LP_TEST_MISSING_SYMBOL
/* Test build: a symbol no kernel has, to see the module refused. */
extern void lp_test_missing_symbol(void) __weak;
static int lp_never;
#endif

static bool sysctl;
module_param(sysctl, bool, 0444);
MODULE_PARM_DESC(sysctl, "Also offer the kernel.sched_compat_yield sysctl (default: no)");

static struct ctl_table_header *lp_sysctl;

/* Before the new functions run: the switch's files, the switch at 0. */
static int lp_pre_patch(struct klp_object *obj)
{
	int ret;

#ifdef LP_TEST_MISSING_SYMBOL
	if (READ_ONCE(lp_never))
		lp_test_missing_symbol();
#endif
	if (sysctl) {
		lp_sysctl = register_sysctl("kernel", sched_compat_yield_sysctls);
		if (!lp_sysctl)
			return -ENOMEM;
	}
	ret = sysfs_create_file(kernel_kobj, &sched_compat_yield_attr.attr);
	if (ret && lp_sysctl) {
		unregister_sysctl_table(lp_sysctl);
		lp_sysctl = NULL;
	}
	return ret;
}

/*
 * The stock functions are back: the files go (removing them waits for
 * the writers in them), then the switch returns to 0.
 */
static void lp_post_unpatch(struct klp_object *obj)
{
	sysfs_remove_file(kernel_kobj, &sched_compat_yield_attr.attr);
	if (lp_sysctl)
		unregister_sysctl_table(lp_sysctl);
	lp_sysctl = NULL;
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
			.post_unpatch = lp_post_unpatch,
		},
	},
	{ }
};

static struct klp_patch lp_patch = {
	.mod = THIS_MODULE,
	.objs = lp_objs,
};

static int __init lp_init(void)
{
	struct kernfs_node *kn;

	if (strcmp(init_utsname()->version, LP_UTS_VERSION)) {
		pr_err("built for the kernel \"%s\", this one is \"%s\": not loaded\n",
		       LP_UTS_VERSION, init_utsname()->version);
		return -ENOEXEC;
	}
	kn = kernfs_find_and_get(kernel_kobj->sd, "sched_compat_yield");
	if (kn) {
		kernfs_put(kn);
		pr_err("this kernel already has /sys/kernel/sched_compat_yield: not loaded\n");
		return -EEXIST;
	}
	return klp_enable_patch(&lp_patch);
}

static void __exit lp_exit(void)
{
}

module_init(lp_init);
module_exit(lp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sched_compat_yield as a livepatch: an aggressive sched_yield()");
MODULE_INFO(livepatch, "Y");
