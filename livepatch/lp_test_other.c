// SPDX-License-Identifier: GPL-2.0
/*
 * lp_test_other: another vendor's livepatch, for the tests of
 * livepatch_compat_yield beside other livepatches (livepatch/build.sh
 * builds it with SCY_LIVEPATCH_TESTS=1). It replaces cmdline_proc_show(),
 * as samples/livepatch/livepatch-sample.c does: /proc/cmdline then reads
 * "lp_test_other". With LP_TEST_REPLACE it is a cumulative livepatch
 * (.replace) that carries no state; with LP_TEST_YIELD it also replaces
 * yield_to_task_fair(), with a yield_to() that never yields; with
 * LP_TEST_STATE it carries livepatch_compat_yield's state id with data of
 * its own: a value that points nowhere (a non-canonical address, which
 * faults when read), as a vendor's cookie might, at the state version
 * LP_TEST_STATE_VERSION (1 unless told; with LP_TEST_REPLACE and 2, the
 * version livepatch_compat_yield has, the livepatch core lets it replace
 * that one).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/seq_file.h>

static int lp_test_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "lp_test_other\n");
	return 0;
}

#ifdef LP_TEST_YIELD
struct rq;
struct task_struct;

static bool lp_test_yield_to_task_fair(struct rq *rq, struct task_struct *p)
{
	return false;
}
#endif

static struct klp_func lp_test_funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = lp_test_cmdline_proc_show,
	},
#ifdef LP_TEST_YIELD
	{
		.old_name = "yield_to_task_fair",
		.new_func = lp_test_yield_to_task_fair,
	},
#endif
	{ }
};

static struct klp_object lp_test_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = lp_test_funcs,
	},
	{ }
};

#ifdef LP_TEST_STATE
#ifndef LP_TEST_STATE_VERSION
#define LP_TEST_STATE_VERSION 1
#endif
static struct klp_state lp_test_states[] = {
	{
		.id = 0x73637900UL,
		.version = LP_TEST_STATE_VERSION,
		.data = (void *)0xdead000000000100UL,
	},
	{ }
};
#endif

static struct klp_patch lp_test_patch = {
	.mod = THIS_MODULE,
	.objs = lp_test_objs,
#ifdef LP_TEST_REPLACE
	.replace = true,
#endif
#ifdef LP_TEST_STATE
	.states = lp_test_states,
#endif
};

static int __init lp_test_init(void)
{
	return klp_enable_patch(&lp_test_patch);
}

static void __exit lp_test_exit(void)
{
}

module_init(lp_test_init);
module_exit(lp_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Another vendor's livepatch, for the tests of livepatch_compat_yield");
MODULE_INFO(livepatch, "Y");
