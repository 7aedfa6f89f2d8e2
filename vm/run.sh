#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh --kernel DIR --out DIR [--timeout S] [--append ARGS] [--disk FILE] [--shell] [-- CMD...]
#
# Boots the kernel in DIR (from build-kernel.sh) in QEMU with 2 vCPUs. The
# guest's root is the host's root, read-only over virtio 9p, so it runs the
# project's binaries and the host's tools in place; OUT is shared writable
# and gets job.log, rc, dmesg.txt and console.log back (and qemu.pid, QEMU's
# process, while it runs). KVM is used when a
# short probe boot shows that it works, TCG otherwise (SCY_ACCEL=kvm|tcg
# forces one). Exit status: the command's, or 1 when the guest hung, did not
# report, or logged a kernel warning/oops. --timeout S (default 600) is the
# job's own guess of how long the guest may take; SCY_TIMEOUT, when set,
# replaces it for every guest (the benchmarks' and the tests' alike).
# --disk FILE (a kernel with an initramfs of vm/debian-kernel.sh): FILE,
# an ext4 file system, is the guest's virtio disk, and the guest's root an
# overlay of the host's root under it: what the guest writes stays in FILE
# for its next boot.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir= out= tmo=600 append= disk= mode=job cpus=${SCY_CPUS:-2} mem=${SCY_MEM:-2048}
# TCG: one host thread per vCPU (multi, default: the vCPUs really run in
# parallel, as benchmarks need) or all vCPUs on one thread (single). With
# multi, QEMU 7.2 can execute a stale int3 while the kernel patches a static
# key ("Oops: int3", e.g. in sched_clock_cpu at boot); make check uses
# single, which has no such race.
tcg_thread=${SCY_TCG_THREAD:-multi}
[[ $tcg_thread == multi || $tcg_thread == single ]] || die "SCY_TCG_THREAD must be multi or single"
# SCY_QEMU_NICE=N: QEMU runs at nice N (-20..19; below 0 needs root), so
# that the host's other load delays its threads less (tests/stalls.sh).
qnice=${SCY_QEMU_NICE:-}
[[ -z $qnice || $qnice =~ ^-?[0-9]+$ && $qnice -ge -20 && $qnice -le 19 ]] ||
	die "SCY_QEMU_NICE must be a nice value of -20..19 (got '$qnice')"
# SCY_ICOUNT=SHIFT: TCG with -icount shift=SHIFT,sleep=off. The guest's clock
# then advances 2^SHIFT ns per executed instruction, so a loop's cost in guest
# time is its instruction count: deterministic, free of the host's load, but
# blind to cache misses and pipeline effects. Implies TCG and thread=single.
# SCY_ICOUNT=off (the default here; unset or empty alike): without -icount.
icount=${SCY_ICOUNT:-off}
if [[ $icount == off ]]; then
	icount=
else
	[[ $icount =~ ^[0-9]$ ]] || die "SCY_ICOUNT must be a shift of 0..9 or off (got '$icount')"
	tcg_thread=single
	SCY_ACCEL=tcg
fi
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) kdir=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--disk) disk=$(realpath -- "$2"); shift 2 ;;
	--shell) mode=shell; shift ;;
	--) shift; break ;;
	*) die "run.sh: unknown option '$1'" ;;
	esac
done
[[ -f $kdir/bzImage ]] || die "run.sh: no bzImage in '$kdir'"
if [[ -n $disk ]]; then
	[[ -f $disk ]] || die "run.sh: no disk image '$disk'"
	[[ -f $kdir/initrd ]] || die "run.sh: --disk needs a kernel with an initramfs (vm/debian-kernel.sh)"
	append="scy_overlay=1${append:+ $append}"
fi
tmo=${SCY_TIMEOUT:-$tmo}
[[ $tmo =~ ^[1-9][0-9]*$ ]] || die "run.sh: the timeout must be a number of seconds (got '$tmo'; SCY_TIMEOUT)"
# Under -icount with sleep=off the guest clock jumps ahead while the vCPU
# waits for the host (a 9p request): a task waiting on one looks blocked for
# minutes, and the hung-task detector would report it.
[[ -n $icount ]] && append="sysctl.kernel.hung_task_timeout_secs=0${append:+ $append}"
# The kernel's boot-time check of the IO-APIC timer waits for ticks of the
# emulated PIT in a delay loop; on a busy host under TCG they come late and
# the check panics the boot ("IO-APIC + timer doesn't work!", Debian's 6.1
# beside four other guests on the two cores): skip it.
append="no_timer_check${append:+ $append}"
[[ -n $out ]] || die "run.sh: --out is required"
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/rc" "$out/dmesg.txt" "$out/job.log" "$out/console.log" "$out/livepatch.ko" "$out/qemu.pid"
# A KVER-livepatch kernel: the guest's init loads livepatch.ko from the
# results share before the command runs (the cache is not visible there).
if [[ -f $kdir/livepatch.ko ]]; then
	cp "$kdir/livepatch.ko" "$out/livepatch.ko"
	append="SCY_LIVEPATCH=1${append:+ $append}"
fi

qemu_cmd() { # qemu_cmd ACCEL MODE OUTDIR
	local accel=$1 m=$2 o=$3 cpu=max
	[[ $accel == kvm ]] && cpu=host
	local extra=
	[[ $accel == tcg ]] && accel=tcg,thread=$tcg_thread
	[[ -n $icount ]] && extra="-icount shift=$icount,sleep=off"
	# Debian's binary kernels (vm/debian-kernel.sh) boot with an initramfs
	# that loads their virtio and 9p modules.
	[[ -f $kdir/initrd ]] && extra+=" -initrd $kdir/initrd"
	[[ -n $disk ]] && extra+=" -drive file=$disk,format=raw,if=virtio"
	# debug-threads: QEMU's threads carry names ("ALL CPUs/TCG", "CPU 0/TCG"),
	# so that the host can tell the guest's vCPU time from QEMU's own
	# (tests/stalls.sh)
	echo qemu-system-x86_64 -name scy,debug-threads=on -accel "$accel" $extra -cpu "$cpu" -smp "$cpus" -m "$mem" \
		-pidfile "$o/qemu.pid" -nodefaults -no-reboot -display none -vga none \
		-kernel "$kdir/bzImage" \
		-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap" \
		-device "virtio-9p-pci,fsdev=hostroot,mount_tag=/dev/root" \
		-fsdev "local,id=repo,path=$SCY_REPO,security_model=none,readonly=on,multidevs=remap" \
		-device "virtio-9p-pci,fsdev=repo,mount_tag=repo" \
		-fsdev "local,id=results,path=$o,security_model=none,multidevs=remap" \
		-device "virtio-9p-pci,fsdev=results,mount_tag=results" \
		-append "'console=ttyS0 root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000 ro panic=-1 init=$SCY_REPO/vm/guest-init SCY_MODE=$m SCY_REPO=$SCY_REPO $append'"
}

# Pick the accelerator: KVM only if a probe boot reaches userspace quickly.
accel=${SCY_ACCEL:-}
if [[ -z $accel ]]; then
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo none)
	cachef=$SCY_CACHE/accel-$boot_id
	if [[ -f $cachef ]]; then
		accel=$(cat "$cachef")
	elif [[ -w /dev/kvm ]]; then
		pdir=$(mktemp -d)
		prc=0
		eval "timeout -k 2 20 $(qemu_cmd kvm probe "$pdir") -serial file:$pdir/console.log" \
			>"$pdir/qemu.log" 2>&1 || prc=$?
		if grep -q 'scy-probe: userspace reached' "$pdir/console.log" 2>/dev/null; then
			accel=kvm
		elif [[ $prc == 124 || $prc == 137 ]]; then
			accel=tcg
			log "KVM probe did not reach userspace within 20 s: using TCG"
		else
			accel=tcg
			log "KVM probe failed (qemu exit $prc: $(head -c 300 "$pdir/qemu.log")): using TCG"
		fi
		rm -rf "$pdir"
		echo "$accel" >"$cachef.$$" && mv "$cachef.$$" "$cachef"
	else
		accel=tcg
	fi
fi
# Under TCG without -icount the guest's time stamp counter is the host's.
# The guest's kernel would measure its rate against the emulated PIT: in
# one boot of 760 here it took the PIT's figure, 40 times too slow against
# HPET's ("PIT calibration deviates from HPET: 64906 2594326"), and ran its
# clock 40 times too fast until the clocksource watchdog caught it 40 guest
# seconds later, with an RCU stall report. Give it the host's rate: it
# then skips that measurement.
if [[ $accel == tcg && -z $icount ]] && khz=$(host_tsc_khz); then
	append="tsc_early_khz=$khz $append"
fi
if [[ -n $icount ]]; then
	echo "tcg, thread=single, icount shift=$icount (guest time = instructions)" >"$out/accel"
elif [[ $accel == tcg ]]; then
	echo "tcg, thread=$tcg_thread" >"$out/accel"
else
	echo "$accel" >"$out/accel"
fi
log "booting $(basename "$kdir") under $(cat "$out/accel") ($cpus vCPUs, $mem MiB)"

if [[ $mode == shell ]]; then
	eval "$(qemu_cmd "$accel" shell "$out") -serial mon:stdio"
	exit 0
fi

{
	echo "# generated by vm/run.sh"
	echo "cd \"$SCY_REPO\""
	printf '%q ' "$@"
	echo
} >"$out/job.sh"
start=$(date +%s)
start_us=${EPOCHREALTIME/./}
set +e
eval "timeout -k 5 $tmo ${qnice:+nice -n $qnice} $(qemu_cmd "$accel" job "$out") -serial file:$out/console.log" \
	>"$out/qemu.log" 2>&1
qrc=$?
set -e
secs=$(( $(date +%s) - start ))
fail=0
if [[ $qrc == 124 || $qrc == 137 ]]; then
	log "guest timed out after $tmo s; console log tail:"
	tail -n 40 "$out/console.log" >&2
	fail=1
elif [[ ! -f $out/rc ]]; then
	log "guest stopped without reporting (qemu exit $qrc); console log tail:"
	tail -n 40 "$out/console.log" "$out/qemu.log" >&2
	fail=1
fi
if [[ -f $out/dmesg.txt ]] && kernel_reports "$out/dmesg.txt" >"$out/dmesg-problems.txt"; then
	log "kernel problems in guest dmesg:"
	head -n 40 "$out/dmesg-problems.txt" >&2
	fail=1
fi
# Without -icount the guest's clock is the host's: its uptime cannot exceed
# the time QEMU ran. A guest whose clock ran ahead measured nothing right.
up=$(cut -d' ' -f1 "$out/uptime" 2>/dev/null || true)
wall_ms=$(( (${EPOCHREALTIME/./} - start_us) / 1000 ))
if [[ -z $icount && $up =~ ^[0-9]+\.[0-9]+$ ]] && ((${up/./}0 > wall_ms + 1000)); then
	log "the guest's clock ran ahead of the host's: $up s of uptime in $((wall_ms / 1000)) s of QEMU; its console:"
	grep -E 'tsc:|clocksource' "$out/console.log" | head -n 20 >&2
	fail=1
fi
rc=$(cat "$out/rc" 2>/dev/null || echo 1)
log "guest finished in $secs s, command exit status $rc ($(cat "$out/uptime" 2>/dev/null | cut -d' ' -f1) s guest uptime)"
[[ $fail == 0 ]] || exit 1
exit "$rc"
