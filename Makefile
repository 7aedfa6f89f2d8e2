# SPDX-License-Identifier: GPL-2.0
#
# sched-compat-yield: an aggressive sched_yield() for Linux 6.1 (CFS) and
# 6.12 (EEVDF), and the tools that show what it does.
#
#   make demo        build the patched kernel, boot it, compare CPU shares
#   make check       all tests: host checks and the selftests in both guests
#   make deb         Debian packages of the patched kernel (bindeb-pkg)
#   make run K=6.12-patched CMD='...'   run a command in a guest
#   make livepatch   the livepatch for Debian's binary kernel of KVER
#
# Variables (all of them: Documentation/variables.md): K=VERSION-FLAVOR,
# the kernel of make kernel, module, run, shell, vm-test, demo and the
# benchmarks (VERSION 6.12 or 6.1; FLAVOR patched, stock, debug, debconfig,
# debian or livepatch; default from KVER and PATCHED), KVER=6.12|6.1 (the
# version of make deb, make livepatch and bench-knoboff), PATCHED=1|0,
# DURATION=seconds per benchmark run, DEBCONFIG=small|debian (make deb).
# An empty value is the default, as an unset one is.

override KVER      := $(or $(KVER),6.12)
override PATCHED   := $(or $(PATCHED),1)
override RESULTS   := $(abspath $(or $(RESULTS),$(CURDIR)/results))
override DEBCONFIG := $(or $(DEBCONFIG),small)
override K         := $(or $(K),$(KVER)-$(if $(filter 0,$(PATCHED)),stock,patched))
export KVER PATCHED DURATION RESULTS

.PHONY: all deps userspace selftests module livepatch kernel deb vm-test shell run demo check check-full check-debug check-faults \
	checkpatch bench-share bench-mpi bench-cost bench-knoboff bench-module \
	bench-pingpong bench-pingpong-all bench-mpi-all bench-latency bench-matrix bench-placement bench-jobs bench-neutral clean help

all: userspace selftests

help:
	@sed -n '3,18p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@bash vm/deps.sh

userspace:
	@$(MAKE) -s -C userspace OUTPUT=$(RESULTS)/bin

selftests:
	@bash vm/build-selftests.sh $(RESULTS)/bin

kernel: deps
	@bash -c '. vm/lib.sh && kernel_get "$$1"' - '$(K)' >/dev/null

# Debian packages (linux-image, linux-headers) of the patched kernel KVER,
# by make bindeb-pkg, into results/deb-KVER-DEBCONFIG: DEBCONFIG=small is the
# guest config (minutes), DEBCONFIG=debian Debian's own config of KVER
# (linux-config-KVER) plus CONFIG_SCHED_COMPAT_YIELD=y (hours).
deb: deps
	@d=$$(bash vm/build-deb.sh $(KVER) $(DEBCONFIG)) && echo "packages in $$d:" && \
		cd "$$d" && ls *.deb

# The yield statistics module for the kernel K, into results/module-K, or
# for another kernel tree with KDIR (e.g. /lib/modules/$$(uname -r)/build,
# into results/module-RELEASE).
module: deps
	@kdir=$${KDIR:-$$(bash -c '. vm/lib.sh && kernel_get "$$1"' - '$(K)')/kdir} && \
		out='$(RESULTS)/module-$(if $(KDIR),$(lastword $(subst /, ,$(patsubst %/build,%,$(KDIR)))),$(K))' && \
		bash vm/build-module.sh "$$kdir" "$$out" "$$kdir" && \
		echo "built $$out/yield_stats.ko"

# The livepatch for Debian's binary kernel of KVER (linux-image-6.1.0-N-amd64,
# linux-image-6.12.117+deb12-amd64), against its linux-headers package and
# the series applied to linux-source-KVER: results/livepatch-KVER holds
# livepatch_compat_yield.ko and src/, the source tree DKMS takes.
livepatch: deps
	@bash livepatch/build.sh $(KVER) $(RESULTS)/livepatch-$(KVER) >/dev/null && \
		echo "built $(RESULTS)/livepatch-$(KVER)/livepatch_compat_yield.ko"

# The guest suite on the kernel K (a debug kernel: the stress suite).
vm-test: deps userspace selftests
	@bash tests/$(if $(filter %-debug,$(K)),debug,guest).sh '$(K)'

shell: deps userspace selftests
	@k=$$(bash -c '. vm/lib.sh && kernel_get "$$1"' - '$(K)') && \
		bash vm/run.sh --shell --out '$(RESULTS)/shell-$(K)' --kernel "$$k"

# Run the shell command CMD in a guest of kernel K and print its output
# (e.g. make run K=6.1-debian CMD='uname -r; cat /proc/cmdline'); make
# fails when CMD does (vm/guest-run.sh exits with CMD's status). CMD is
# passed as written, $ included.
run: deps
	@test -n '$(subst ','\'',$(value CMD))' || \
		{ echo "usage: make run K=6.12-patched CMD='command'" >&2; exit 2; }
	@bash vm/guest-run.sh '$(K)' '$(subst ','\'',$(value CMD))'

demo: deps
	@bash bench/share/demo.sh

check:
	@bash tests/run-all.sh

# make check plus the debug guests (KASAN, lockdep, ...: two more kernels),
# a node's kernel update with the livepatch on at boot (update), and the
# matrix's full product under -icount (SCY_MATRIX=full).
check-full:
	@SCY_CHECK_STAGES="host deb guest starve faults debian livepatch update debug" \
		SCY_MATRIX=$${SCY_MATRIX:-full} SCY_MODULE_CYCLES=$${SCY_MODULE_CYCLES:-100} \
		SCY_LIVEPATCH_CYCLES=$${SCY_LIVEPATCH_CYCLES:-20} \
		SCY_LIVEPATCH_MODULE_CYCLES=$${SCY_LIVEPATCH_MODULE_CYCLES:-100} \
		SCY_STOCK_MODULE_CYCLES=$${SCY_STOCK_MODULE_CYCLES:-100} \
		SCY_SHARE_DURATION=$${SCY_SHARE_DURATION:-4} SCY_LATENCY_SECONDS=$${SCY_LATENCY_SECONDS:-2} \
		SCY_SPANK_GUESTS=$${SCY_SPANK_GUESTS:-all} SCY_GUEST_MATRIX=$${SCY_GUEST_MATRIX:-all} bash tests/run-all.sh

# The debug guests alone, with the 5-minute stress.
check-debug: deps
	@SCY_CHECK_STAGES=debug SCY_STRESS_SECONDS=$${SCY_STRESS_SECONDS:-300} \
		SCY_FUZZ_WRITES=$${SCY_FUZZ_WRITES:-10000} bash tests/run-all.sh

# make check's faults stage alone, for both kernels (SCY_CHECK_KVERS): the
# checks that guard the compat yield's rule, each shown red on a kernel
# booted with scy_fault= (vm/fault-patches), and the harness's checks with
# what they guard broken (tests/faults.sh, tests/fault-suite.sh).
check-faults: deps
	@SCY_CHECK_STAGES=faults bash tests/run-all.sh

# Benchmarks in a guest of the kernel K (e.g. 6.12-stock: the baseline).
bench-share bench-mpi: deps
	@bash bench/run.sh $(@:bench-%=%) '$(K)'

# The cost benchmarks count instructions: QEMU's -icount makes guest time
# the number of executed instructions (vm/run.sh). ICOUNT=off measures
# wall-clock time under plain TCG instead. Runs last 1 s unless DURATION is
# given.
# empty is the default, as unset is
icount = $(or $(ICOUNT),0)
cost_duration = $(or $(DURATION),1)
bench-cost: deps
	@SCY_ICOUNT=$(icount) DURATION=$(cost_duration) bash bench/run.sh cost '$(K)'

# Knob-0 cost against the stock kernel: alternating stock/patched boots.
bench-knoboff: deps
	@SCY_ICOUNT=$(icount) DURATION=$(cost_duration) bash bench/cost/knoboff.sh $(KVER)

# The seed paper's LIBRA figures with userspace/pingpong (Documentation/
# results/pingpong.md): fig2 (one CPU) under -icount (ICOUNT), fig7 (two CPUs)
# under -icount too (ICOUNT7; off: plain TCG, a host thread per vCPU).
# K=all (or bench-pingpong-all): both kernels, patched and stock, and
# the tables and figures in Documentation/results/pingpong-*.
icount7 = $(or $(ICOUNT7),0)
bench-pingpong: deps
	@ICOUNT=$(icount) ICOUNT7=$(icount7) bash bench/pingpong/run.sh \
		'$(if $(filter all,$(K) $(KVER)),all,$(K))'
bench-pingpong-all: deps
	@ICOUNT=$(icount) ICOUNT7=$(icount7) bash bench/pingpong/run.sh all

# Open MPI (yield_when_idle 0 and 1) and MPICH (Debian's ch4:ucx, and
# ch3:nemesis with MPIR_CVAR_POLLS_BEFORE_YIELD 0 and MPICH_POLLS, built
# from Debian's source by bench/mpi-all/build-mpich-ch3.sh into $SCY_CACHE on
# first use, once) oversubscribed in guests of both kernels under
# -icount: 2 ranks on one CPU, 4 on two, a SCHED_IDLE co-runner, a hog in
# another autogroup, and the 4 ranks of 6.1 under plain TCG
# (Documentation/results/mpi.md). KERNELS (default "6.1-patched
# 6.12-stock 6.12-patched"), REPS, ITER, PARTS, LIBS (only these wait
# strategies, added to the existing results).
bench-mpi-all: deps userspace
	@ICOUNT=$(icount) bash bench/mpi-all/run.sh $(KERNELS)

# What the yield_stats module costs: yield-cost with the module off and on,
# alternating in one boot, instruction counts (ICOUNT as for bench-cost).
# REPS runs per phase (default 3), ROUNDS on-phases (default 2).
bench-module: deps
	@SCY_ICOUNT=$(icount) DURATION=$(cost_duration) REPS=$${REPS:-3} \
		bash bench/run.sh module '$(K)'

# The time away per sched_yield() (kselftest compat_yield_latency) in
# one-CPU guests under -icount, knob 0 and 1: bench/latency/run.sh.
# KERNELS (default "6.12-patched 6.1-patched"), DURATION per window (5 s).
bench-latency: deps
	@DURATION=$(or $(DURATION),5) \
		bash bench/latency/run.sh $(KERNELS)

# The contract judged over compat_yield_matrix's cells with its own limits
# (make check runs the guard, -G) in a 2-vCPU guest of each of KERNELS
# (default "6.12-patched 6.1-patched"): bench/matrix/run.sh. DURATION per
# window (2 s); MATRIX=full: the full product instead of the default set.
bench-matrix: deps
	@DURATION=$(or $(DURATION),2) bash bench/matrix/run.sh $(KERNELS)

# A job in a cgroup on a busy host: the yielder in a cpu cgroup of its own
# against one in a session of its own, knob 1, placements alternating
# window by window, BOOTS boots of each of KERNELS while stress-ng --cpu
# BUSY runs on the host (bench/placement/; Documentation/results/shares.md)
bench-placement: deps
	@bash bench/placement/run.sh $(KERNELS)

# Two parallel jobs of real runtimes (OpenMP: libomp, libgomp; oneTBB;
# Open MPI) sharing two CPUs, placed as a batch system places them, knob 0
# and 1, in a guest of each of KERNELS (bench/jobs/;
# Documentation/results/jobs.md)
bench-jobs: deps
	@bash bench/jobs/run.sh $(KERNELS)

# Does one job's switch hurt anyone else? An opted-in job's yield loop
# beside hackbench and beside a yield loop in no opted-in group, with no
# switch at 1, the job's cpu.compat_yield at 1 and the machine's switch
# at 1, alternating within each of REPS repeats (default 3), in a 2-vCPU
# guest (plain TCG) of each of KERNELS (default "6.12-patched
# 6.1-patched"): bench/neutral/; Documentation/results/neutral.md
bench-neutral: deps
	@bash bench/neutral/run.sh $(KERNELS)

checkpatch: deps
	@bash kernel-patches/tools/checkpatch.sh

clean:
	rm -rf $(RESULTS)
	@$(MAKE) -s -C userspace clean
