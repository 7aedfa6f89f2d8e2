/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What livepatch_compat_yield reads of the kernel beyond the exported
 * symbols and klp-syms.h, through livepatch relocations (klp-convert.py;
 * the module loader resolves those of vmlinux before the module's init;
 * the Makefile's LP_CORE_SYMS lists them):
 *   - the livepatch core's list of patches (kernel/livepatch/core.c),
 *     which the core's callbacks run with klp_mutex held;
 *   - the running image's build ID (lib/buildid.c);
 *   - cgroup_add_dfl_cftypes() and cgroup_rm_cftypes(), which put
 *     cpu.compat_yield into the cpu controller's groups and take it out,
 *     the controller (cpu_cgrp_subsys), cgroup_mutex (exported only with
 *     lockdep), under which groups are released, and
 *     sched_release_group(), the body of the cpu_cgroup_css_released()
 *     this module replaces.
 * These are the kernel's internal state, read here because the module is
 * built for one kernel image, which it checks by that build ID before
 * anything else.
 */
extern struct list_head klp_patches __weak;
extern unsigned char vmlinux_build_id[] __weak;
extern int cgroup_add_dfl_cftypes(struct cgroup_subsys *ss,
				  struct cftype *cfts) __weak;
extern int cgroup_rm_cftypes(struct cftype *cfts) __weak;
extern struct cgroup_subsys cpu_cgrp_subsys __weak;
extern struct mutex cgroup_mutex __weak;
extern void sched_release_group(struct task_group *tg) __weak;
