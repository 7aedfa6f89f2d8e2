#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi-all/guest.sh [-r REPS] [-n ITER] [-D DELAY_US] [-P PARTS] [-L LIBS]
#                  [-Y POLLS] [-a] [-o DIR]
#
# The MPI ping-pong (mpi-pingpong, rank 0 a straggler by DELAY_US) with real
# MPI libraries, oversubscribed, with the sched_compat_yield knob at 0 and 1
# when the kernel has it (else once, "stock"). Wait strategies ("lib"):
#   openmpi-y0  Open MPI, --mca mpi_yield_when_idle 0 (polls)
#   openmpi-y1  Open MPI, --mca mpi_yield_when_idle 1 (sched_yield() in the
#               progress loop)
#   mpich       MPICH (Debian's 4.0, ch4:ucx) as installed. Its one yield
#               setting, MPIR_CVAR_POLLS_BEFORE_YIELD, belongs to ch3:nemesis:
#               ch4 never reads it and libmpich.so does not call
#               sched_yield() at all, so MPICH polls whatever it is set to.
#   mpich-ch3-y0  MPICH of the same Debian source built with ch3:nemesis
#               (bench/mpi-all/build-mpich-ch3.sh; mpi-pingpong-mpich-ch3 and its
#               mpiexec-mpich-ch3), MPIR_CVAR_POLLS_BEFORE_YIELD=0 (polls)
#   mpich-ch3-y1  the same, MPIR_CVAR_POLLS_BEFORE_YIELD=POLLS (-Y, default
#               1): nemesis' blocking receive calls sched_yield() once
#               every POLLS + 1 empty polls (its counter is static, it runs
#               on from one wait to the next; how often that yields per
#               wait, counted: Documentation/results/mpi.md).
# LIBS (-L, default all of them; the mpich-ch3 ones only when built): the
# wait strategies to run. -a adds the rows to an existing DIR/mpi-all.csv
# (e.g. -L "mpich-ch3-y0 mpich-ch3-y1" adds those rows to an earlier run)
# instead of starting it anew.
# Parts (-P, default "lat idle coloc lat4"; REPS -r default 1, ITER -n 100):
#   lat    2 ranks on one CPU
#   lat4   4 ranks (2 pairs) on 2 CPUs, placed by the scheduler (needs 2 CPUs)
#   idle   2 ranks on one CPU and cpu-work -i (SCHED_IDLE) on the same CPU
#   coloc  2 ranks on one CPU and cpu-work (SCHED_OTHER) on the same CPU,
#          started with setsid (its own session, so its own autogroup;
#          kernel.sched_autogroup_enabled is set to 1)
# For idle and coloc: window_ns is rank 0's timed loop, wait_ns = window_ns
# - ITER * DELAY_US (the straggler's computation is the only work the ranks
# have to do; the rest of the window they wait or hand messages over),
# co_cpu_ns the co-runner's CPU time in the window, counted by its work:
# the units it did there x a unit's cost alone on the CPU (cpu-work -U; the
# CPU time the scheduler accounted lags by up to a tick, longer than most
# of these windows), in units of CO_UNIT hash iterations, co_share =
# co_cpu_ns / window_ns, harvest = co_cpu_ns / wait_ns.
# Within a repeat every point runs at both knob values back to back, the
# order alternating from one repeat to the next. Writes DIR/mpi-all.csv and
# the samples of every run to DIR/samples/. rank_cpus: per rank, the CPU it
# ran on at the start and at the end of the timed loop ("A:B/A:B/..", rank
# order; ranks 2k and 2k+1 are a pair). Run as root, in a guest
# (bench/run.sh mpi-all). Binaries from $SCY_BIN (default: userspace/ of the checkout).
set -euo pipefail
reps=1 iters=100 delay=50 parts="lat idle coloc lat4" out=. libs= polls=1 append=0
usage_text="usage: bench/mpi-all/guest.sh [-r REPS] [-n ITER] [-D DELAY_US] [-P PARTS] [-L LIBS] [-Y POLLS] [-a] [-o DIR]"
. "$(dirname "$0")/../guest-lib.sh"
opts "r:reps n:iters D:delay P:parts L:libs Y:polls a=append o:out" "$@"
posint -r "$reps" 999
posint -n "$iters" 9999999
[[ $delay =~ ^[0-9]{1,7}$ ]] || bad "-D: '$delay' is not a delay of 0..9999999 us"
posint -Y "$polls" 9999999
for p in $parts; do
	case $p in lat | lat4 | idle | coloc) ;; *) die "-P: '$p' is not lat, lat4, idle or coloc" ;; esac
done
if [[ -z $libs ]]; then
	libs="openmpi-y0 openmpi-y1 mpich"
	[[ -x $bin/mpi-pingpong-mpich-ch3 ]] && libs+=" mpich-ch3-y0 mpich-ch3-y1"
fi
read -ra libs <<<"$libs"
((${#libs[@]})) || usage
tool cpu-work >/dev/null
for lib in "${libs[@]}"; do
	case $lib in
	openmpi-y0 | openmpi-y1)
		tool mpi-pingpong-openmpi "make userspace; needs mpicc.openmpi" >/dev/null
		command -v mpirun.openmpi >/dev/null || die "mpirun.openmpi not found (openmpi-bin)" ;;
	mpich)
		tool mpi-pingpong-mpich "make userspace; needs mpicc.mpich" >/dev/null
		command -v mpirun.mpich >/dev/null || die "mpirun.mpich not found (mpich)" ;;
	mpich-ch3-y0 | mpich-ch3-y1)
		for t in mpi-pingpong-mpich-ch3 mpiexec-mpich-ch3; do
			tool $t "bash bench/mpi-all/build-mpich-ch3.sh, then make userspace" >/dev/null
		done ;;
	*) die "-L: '$lib' is not openmpi-y0, openmpi-y1, mpich, mpich-ch3-y0 or mpich-ch3-y1" ;;
	esac
done
# hydra finds its proxy next to the real mpiexec.hydra, not next to the link
mpiexec_ch3=$(readlink -f "$bin/mpiexec-mpich-ch3" 2>/dev/null || true)
[[ " ${libs[*]} " == *" mpich-ch3-y1 "* ]] && mkdir -p "$out" && echo "$polls" >"$out/mpich-ch3-polls"
mkdir -p "$out/samples"
knob_sweep_init
ncpu=$(nproc)
cpu=$((ncpu - 1))
warm=$((iters / 10))
((warm >= 5)) || warm=5
# Both MPIs need a host name and a loopback device (the guest has both).
[[ $(hostname) != "" ]] || die "no host name"

# run_pp LIB NP CPUS SAMPLES: one mpirun; prints the summary line
run_pp() {
	local lib=$1 np=$2 cpus=$3 samples=$4
	case $lib in
	openmpi-y0 | openmpi-y1)
		taskset -c "$cpus" mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" \
			--bind-to none --mca mpi_yield_when_idle "${lib#openmpi-y}" \
			"$bin/mpi-pingpong-openmpi" -n "$iters" -w "$warm" -D "$delay" -o "$samples" ;;
	mpich)
		taskset -c "$cpus" mpirun.mpich -launcher fork -np "$np" \
			"$bin/mpi-pingpong-mpich" -n "$iters" -w "$warm" -D "$delay" -o "$samples" ;;
	mpich-ch3-y0 | mpich-ch3-y1)
		local y=0
		[[ $lib == mpich-ch3-y1 ]] && y=$polls
		# -iface lo: the tcp netmod of nemesis initializes even for local
		# ranks and would resolve the guest's host name, which it cannot
		taskset -c "$cpus" "$mpiexec_ch3" -launcher fork -iface lo -np "$np" \
			-genv MPIR_CVAR_POLLS_BEFORE_YIELD "$y" \
			"$bin/mpi-pingpong-mpich-ch3" -n "$iters" -w "$warm" -D "$delay" -o "$samples" ;;
	esac | grep '^mean_us='
}

kv() { # kv KEY LINE
	tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

# The co-runner's unit of work, in hash iterations: small, so that the
# units of a window of a few ms count its CPU time to tens of us (19 us of
# guest time under -icount), large enough that the records of a point's
# run, a million at most, last (20 s of its CPU time under -icount)
co_unit=2048
# calibration: cpu-work alone on the CPU, 1 s
cal=$("$bin/cpu-work" -c "$cpu" -u "$co_unit" -d 1)
ns_unit=$(printf '%.0f' "$(kv ns_per_unit "$cal")")
((ns_unit > 0)) || die "the calibration of cpu-work gave no cost per unit ($cal)"
echo "bench-mpi-all: cpu-work alone on CPU $cpu: $cal" >&2
# -a keeps the calibration of the run the rows are added to
[[ $append == 1 && -s $out/calibration.csv ]] ||
	echo "calibration,$(uname -r),$(kv ns_per_unit "$cal")" >"$out/calibration.csv"
[[ -e /proc/sys/kernel/sched_autogroup_enabled ]] && echo 1 >/proc/sys/kernel/sched_autogroup_enabled

csv=$out/mpi-all.csv
header="part,kernel,knob,lib,np,rep,mean_us,stddev_us,median_us,p99_us,iterations,delay_us,window_ns,wait_ns,co_cpu_ns,co_units,co_share,harvest,rank_cpus"
if [[ $append == 1 && -s $csv ]]; then
	# a CSV of before rank_cpus gets the column (empty in its rows)
	first=$(head -n 1 "$csv")
	if [[ $first != "$header" ]]; then
		[[ $first == "${header%,rank_cpus}" ]] || die "-a: $csv has another header"
		sed -i '1s/$/,rank_cpus/' "$csv"
	fi
else
	echo "$header" >"$csv"
fi
total=0
for p in $parts; do
	[[ $p == lat4 && $ncpu -lt 2 ]] && continue
	total=$((total + reps * ${#libs[@]} * ${#knob_values[@]}))
done
n=0 start=$(date +%s)
for p in $parts; do
	if [[ $p == lat4 && $ncpu -lt 2 ]]; then
		echo "bench-mpi-all: lat4 skipped: $ncpu CPU" >&2
		continue
	fi
	np=2 cpus=$cpu
	[[ $p == lat4 ]] && np=4 cpus=$((cpu - 1)),$cpu
	for ((r = 1; r <= reps; r++)); do
		for lib in "${libs[@]}"; do
			for k in $(knob_order "$r"); do
				knob_set "$k"
				tag=$p-k$k-$lib-rep$r
				co= copid=
				if [[ $p == idle ]]; then
					"$bin/cpu-work" -c "$cpu" -u "$co_unit" -i -l "/tmp/$tag.log" >"/tmp/$tag.out" &
					copid=$!
				elif [[ $p == coloc ]]; then
					setsid "$bin/cpu-work" -c "$cpu" -u "$co_unit" -l "/tmp/$tag.log" >"/tmp/$tag.out" &
					copid=$!
					# setsid (not a group leader here) calls setsid()
					# and then execs cpu-work in the same process: once
					# that runs, field 6 of /proc/PID/stat, the session,
					# is its pid
					until [[ $(readlink "/proc/$copid/exe" 2>/dev/null) == */cpu-work ]]; do
						kill -0 "$copid" 2>/dev/null || die "$tag: the hog exited at its start"
						sleep 0.01
					done
					[[ $(cut -d' ' -f6 "/proc/$copid/stat") == "$copid" ]] ||
						die "$tag: the hog is not in a session of its own"
				fi
				[[ -n $copid ]] && sleep 0.2
				line=$(run_pp "$lib" "$np" "$cpus" "$out/samples/$tag.txt") ||
					die "$tag: the ping-pong failed"
				win_s=$(kv start_ns "$line") win_e=$(kv end_ns "$line")
				window=$((win_e - win_s))
				wait_ns=$((window - iters * delay * 1000))
				cocpu= units= share= harvest=
				if [[ -n $copid ]]; then
					kill -TERM "$copid"
					wait "$copid" || die "$tag: cpu-work failed"
					co=$("$bin/cpu-work" -r "/tmp/$tag.log" -W "$win_s,$win_e" -U "$ns_unit")
					rm -f "/tmp/$tag.log"
					cocpu=$(kv win_run_ns "$co") units=$(kv win_units "$co")
					[[ -n $cocpu ]] || die "$tag: cpu-work -r printed no win_run_ns ($co)"
					share=$(awk -v c="$cocpu" -v w="$window" 'BEGIN { printf "%.5f", (w > 0 ? c / w : 0) }')
					harvest=$(awk -v c="$cocpu" -v w="$wait_ns" 'BEGIN { printf "%.4f", (w > 0 ? c / w : 0) }')
				fi
				echo "$p,$(uname -r),$k,$lib,$np,$r,$(kv mean_us "$line"),$(kv stddev_us "$line"),$(kv median_us "$line"),$(kv p99_us "$line"),$iters,$delay,$window,$wait_ns,$cocpu,$units,$share,$harvest,$(kv cpus "$line")" >>"$csv"
				n=$((n + 1))
				printf 'bench-mpi-all: %d/%d (%d guest s): %s knob %s %s np %d rep %d: median %s us mean %s us%s\n' \
					"$n" "$total" $(($(date +%s) - start)) "$p" "$k" "$lib" "$np" "$r" \
					"$(kv median_us "$line")" "$(kv mean_us "$line")" \
					"${share:+, co-runner share $share, harvest $harvest}" >&2
			done
		done
	done
done
echo "bench-mpi-all: done, $n runs in $(($(date +%s) - start)) guest s; $csv" >&2
