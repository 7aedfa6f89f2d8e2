/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What livepatch_compat_yield reads of the kernel beyond the exported
 * symbols and klp-syms.h, through livepatch relocations (klp-convert.py;
 * the module loader resolves those of vmlinux before the module's init):
 * the livepatch core's list of patches (kernel/livepatch/core.c), which
 * the core's callbacks run with klp_mutex held, and the running image's
 * build ID (lib/buildid.c). The list is the core's internal state, read
 * here because the module is built for one kernel image, which it
 * checks by that build ID before anything else.
 */
extern struct list_head klp_patches __weak;
extern unsigned char vmlinux_build_id[] __weak;
