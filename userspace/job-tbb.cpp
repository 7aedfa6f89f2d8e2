// SPDX-License-Identifier: GPL-2.0
/*
 * job-tbb: a bulk-synchronous oneTBB job for bench/jobs. An arena of
 * JOB_THREADS threads (default 2); in each of -n steps a parallel_for
 * over one item per thread with the static partitioner, item -H doing
 * HEAVY units of work, the others LIGHT; the step ends when all items are
 * done, and a thread that is done waits as oneTBB's scheduler makes it
 * wait (it spins, calling sched_yield(), before it sleeps). JOB_CPUS
 * ("1,0") pins arena slot i to the i-th CPU of the list through a
 * task_scheduler_observer, as users pin TBB threads; unset, TBB's own
 * placement.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include "job.h"

static const char usage[] =
	"usage: job-tbb [-N NAME] [-n STEPS] [-w HEAVY,LIGHT] [-H ITEM] [-g FIFO]\n"
	"  -N NAME         the job's name in its report line (default job)\n"
	"  -n STEPS        steps, each a parallel_for (default 100)\n"
	"  -w HEAVY,LIGHT  units of work per step of the heavy item and of the\n"
	"                  others (default 1000,125; a unit is 4096 hash steps)\n"
	"  -H ITEM         the item that does HEAVY (default 0)\n"
	"  -g FIFO         start gate: write \"ready PID\" to FIFO once the\n"
	"                  threads run, start the timed steps at SIGUSR1\n"
	"Environment: JOB_THREADS (default 2), JOB_CPUS (e.g. 1,0: slot i on\n"
	"the i-th CPU). Prints one line: job name=.. runtime=onetbb ...\n";

class pin_observer : public tbb::task_scheduler_observer {
public:
	explicit pin_observer(tbb::task_arena &a)
		: tbb::task_scheduler_observer(a)
	{
		observe(true);
	}

	void on_scheduler_entry(bool) override
	{
		int slot = tbb::this_task_arena::current_thread_index();

		if (slot >= 0)
			job_pin(slot);
	}
};

int main(int argc, char **argv)
{
	const char *env = getenv("JOB_THREADS");
	int threads = env && *env ? atoi(env) : 2;
	struct job_opts o;
	uint64_t sink = 0;
	int64_t start, end, cpu0;

	job_parse(argc, argv, &o, usage);
	if (threads < 1 || threads > 4096) {
		fprintf(stderr, "job-tbb: JOB_THREADS must be 1..4096\n");
		return 2;
	}
	job_gate_prepare(&o);
	tbb::global_control gc(tbb::global_control::max_allowed_parallelism,
			       threads);
	tbb::task_arena arena(threads);
	pin_observer pin(arena);
	std::vector<uint64_t> out(threads);

	auto step = [&](long i) {
		tbb::parallel_for(0, threads, [&](int item) {
			long units = item == o.heavy_worker ? o.heavy : o.light;

			out[item] ^= job_work(units, i + item);
		}, tbb::static_partitioner());
	};
	/* the arena's threads start here */
	arena.execute([&] { step(0); });
	job_gate_wait(&o);
	start = job_now();
	cpu0 = job_cpu();
	arena.execute([&] {
		for (long i = 0; i < o.iters; i++)
			step(i);
	});
	end = job_now();
	/* items move between threads: no heavy thread to name */
	job_report(&o, "onetbb", threads, start, end, job_cpu() - cpu0, -1);
	for (uint64_t v : out)
		sink ^= v;
	return sink == 42 ? 3 : 0;
}
