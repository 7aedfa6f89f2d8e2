/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sched_yield_fair trace event: the kernel's bare sched_yield_fair_tp
 * tracepoint as an event that trace-cmd and perf record, under the sched
 * system as sched:sched_yield_fair. yield_stats fires it from its probe on
 * that tracepoint, so it exists while the module is loaded, on kernels
 * with the tracepoint.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

#if !defined(_YIELD_STATS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _YIELD_STATS_TRACE_H

#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

/*
 * compat: the compat yield moved an entity; level: the depth of the group
 * hierarchy at which the task yielded (0: the task itself, -1: the default
 * yield); that entity's vruntime before and after; runnable tasks on the
 * CPU.
 */
TRACE_EVENT(sched_yield_fair,
	    TP_PROTO(struct task_struct *p, bool compat, int level,
		     u64 vruntime_before, u64 vruntime_after,
		     unsigned int nr_running),
	    TP_ARGS(p, compat, level, vruntime_before, vruntime_after,
		    nr_running),
	    TP_STRUCT__entry(__array(char, comm, TASK_COMM_LEN)
			     __field(pid_t, pid)
			     __field(bool, compat)
			     __field(int, level)
			     __field(u64, vruntime_before)
			     __field(u64, vruntime_after)
			     __field(unsigned int, nr_running)),
	    TP_fast_assign(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
			   __entry->pid = p->pid;
			   __entry->compat = compat;
			   __entry->level = level;
			   __entry->vruntime_before = vruntime_before;
			   __entry->vruntime_after = vruntime_after;
			   __entry->nr_running = nr_running;),
	    TP_printk("comm=%s pid=%d compat=%d level=%d vruntime_before=%llu vruntime_after=%llu nr_running=%u",
		      __entry->comm, __entry->pid, __entry->compat,
		      __entry->level,
		      (unsigned long long)__entry->vruntime_before,
		      (unsigned long long)__entry->vruntime_after,
		      __entry->nr_running)
);

#endif /* _YIELD_STATS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE yield_stats_trace
#include <trace/define_trace.h>
