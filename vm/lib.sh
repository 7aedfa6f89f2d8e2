# SPDX-License-Identifier: GPL-2.0
# Common helpers for the build and guest scripts. Source it, do not run it.

SCY_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCY_CACHE=${SCY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sched-compat-yield}
# Results, logs and built tools (make's RESULTS; empty is the default too),
# made absolute: tools are built with make -C and guests are given paths in it.
RESULTS=$(realpath -m -- "${RESULTS:-$SCY_REPO/results}")
export SCY_REPO SCY_CACHE RESULTS
# The -icount shift of make check's guests that judge time (guest time is
# 2^shift ns per executed instruction). SCY_STARVE_ICOUNT, 3: the one-CPU
# guests (starve, faults, livepatch-icount), whose windows are guest time; at 125 million instructions a second a
# window takes half the host time it takes at shift 2, and a yield with
# its context switch (about 1900 instructions, 15 us there;
# Documentation/results/costs.md) stays about 2% of the 0.7-ms base slice
# of a one-CPU 6.12 guest. SCY_JOBS_ICOUNT, 2: the two-CPU guests of
# tests/jobs.sh, the jobs pair, whose work is a number of steps (a step
# of the heavy worker about a tick at shift 2, tests/guest-jobs.sh), and
# the migrate cells (their yielder's CPU share outgrew its allowance at
# shift 3).
SCY_STARVE_ICOUNT=${SCY_STARVE_ICOUNT:-3}
SCY_JOBS_ICOUNT=${SCY_JOBS_ICOUNT:-2}

log() { printf '[scy] %s\n' "$*" >&2; }
die() { printf '[scy] error: %s\n' "$*" >&2; exit 1; }

# Debian packages the project needs, by the command or file that shows them.
# Format: "package:probe" where probe is a command name or an absolute path.
SCY_PACKAGES=(
	build-essential:/usr/share/doc/build-essential
	bc:bc
	bison:bison
	flex:flex
	libelf-dev:/usr/include/libelf.h
	libssl-dev:/usr/include/openssl/ssl.h
	cpio:cpio
	rsync:rsync
	ccache:ccache
	xz-utils:xz
	zstd:zstd
	git:git
	python3:python3
	qemu-system-x86:qemu-system-x86_64
	busybox-static:/bin/busybox
	iproute2:ip
	gnuplot-nox:gnuplot
	trace-cmd:trace-cmd
	strace:strace
	stress-ng:stress-ng
	rt-tests:hackbench
	openmpi-bin:mpirun
	clang:clang
	libomp-dev:/usr/lib/llvm-14/lib/clang/14.0.6/include/omp.h
	libtbb-dev:/usr/include/tbb/parallel_for.h
	slurmctld:slurmctld
	slurmd:slurmd
	slurm-client:srun
	libslurm-dev:/usr/include/slurm/spank.h
	munge:munged
	libopenmpi-dev:mpicc
	mpich:mpirun.mpich
	libmpich-dev:mpicc.mpich
	linux-source-6.1:/usr/src/linux-source-6.1.tar.xz
	linux-source-6.12:/usr/src/linux-source-6.12.tar.xz
	linux-headers-amd64:/usr/share/doc/linux-headers-amd64
	dkms:dkms
	linux-perf:perf
	dpkg-dev:dpkg-buildpackage
	debhelper:dh_listpackages
	fakeroot:fakeroot
	dwarves:pahole
	linux-config-6.1:/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
	linux-config-6.12:/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
)

# apt_locked CMD...: run an apt-get that changes the system, one at a time
# (make check runs two kernels' stages side by side; apt-get refuses to run
# while another holds its lock).
apt_locked() {
	mkdir -p "$SCY_CACHE"
	DEBIAN_FRONTEND=noninteractive flock -o -w 1800 "$SCY_CACHE/apt.lock" "$@"
}

# ensure_deps: install whatever of SCY_PACKAGES is missing, saying what.
ensure_deps() {
	local missing=() entry pkg probe
	for entry in "${SCY_PACKAGES[@]}"; do
		pkg=${entry%%:*}
		probe=${entry#*:}
		if [[ $probe == /* ]]; then
			[[ -e $probe ]] && continue
		else
			command -v "$probe" >/dev/null 2>&1 && continue
		fi
		missing+=("$pkg")
	done
	[[ ${#missing[@]} -eq 0 ]] && return 0
	log "missing Debian packages: ${missing[*]}"
	if [[ $(id -u) -ne 0 ]]; then
		die "installing them needs root: run 'apt-get install ${missing[*]}' as root, or run this command as root"
	fi
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this project expects Debian 12"
	log "installing with apt-get: ${missing[*]}"
	apt_locked apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null || die "apt-get update failed"
	apt_locked apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
	log "installed: ${missing[*]}"
}

# kver_check VERSION: only the two Debian LTS kernels are supported.
kver_check() {
	case $1 in
	6.1 | 6.12) ;;
	*) die "KVER must be 6.1 or 6.12 (got '$1')" ;;
	esac
}

# A kernel's name: VERSION-FLAVOR, VERSION 6.12 or 6.1, FLAVOR one of
#   patched  Debian's source + the series, small guest config (built here)
#   stock    Debian's source as is, same config (built here)
#   debug    patched + vm/debug.config (KASAN, lockdep, ...) (built here)
#   debconfig  patched with Debian's own configuration (built here, bzImage
#            only: like for like with debian and livepatch)
#   debian   Debian's own binary kernel of that version (downloaded)
#   livepatch  that binary kernel with livepatch/ loaded by the guest's init
# kernel_parse NAME sets kver and flavor, or dies saying what is allowed.
kernel_parse() {
	local name=$1
	kver=${name%-*} flavor=${name##*-}
	[[ $name == *-* ]] || flavor=
	case $kver in
	6.1 | 6.12) ;;
	*) die "kernel '$name': expected VERSION-FLAVOR, VERSION 6.12 or 6.1 (e.g. 6.12-patched)" ;;
	esac
	case $flavor in
	patched | stock | debug | debconfig | debian | livepatch) ;;
	*) die "kernel '$name': FLAVOR must be patched, stock, debug, debconfig, debian or livepatch (e.g. $kver-patched)" ;;
	esac
}

# kernel_get NAME: build or fetch that kernel (cached) and print its
# directory: bzImage, .config, kdir (headers for module builds), and an
# initrd for Debian's binary kernels, livepatch.ko for the livepatch ones. The build's progress goes to stderr.
kernel_get() {
	local kver flavor
	kernel_parse "$1"
	case $flavor in
	patched) bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 1 ;;
	stock) bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 0 ;;
	debug) bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 1 debug ;;
	debconfig) bash "$SCY_REPO/vm/build-kernel.sh" "$kver" 1 debconfig ;;
	debian) bash "$SCY_REPO/vm/debian-kernel.sh" "$kver" ;;
	livepatch) bash "$SCY_REPO/livepatch/build.sh" "$kver" --kernel ;;
	esac
}

# Debian package version of linux-source-$1, e.g. 6.12.117-1~deb12u1.
debian_version() {
	dpkg-query -W -f='${Version}' "linux-source-$1" 2>/dev/null || echo unknown
}

# debian_system_map KREL DEBVER: the path of the real System.map of Debian's
# image KREL of version DEBVER. The image package's is a stub; the real one
# is the first file of the -dbg package (about 1 GB), downloaded once and
# read up to that file only; the map is kept in the cache, not the package.
# SCY_SYSTEM_MAP=FILE stands in for it (tests/livepatch-dkms.sh).
debian_system_map() {
	local krel=$1 debver=$2 map=$SCY_CACHE/debian/$1-$2.System.map tmp
	if [[ -n ${SCY_SYSTEM_MAP:-} ]]; then
		[[ -s $SCY_SYSTEM_MAP ]] || die "SCY_SYSTEM_MAP: no file $SCY_SYSTEM_MAP"
		echo "$SCY_SYSTEM_MAP"
		return
	fi
	if [[ ! -s $map ]]; then
		mkdir -p "$SCY_CACHE/debian"
		tmp=$(mktemp -d "$SCY_CACHE/debian/dbg.XXXXXX")
		log "downloading linux-image-$krel-dbg ($debver) for its System.map"
		(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root \
			"linux-image-$krel-dbg=$debver" >/dev/null) || {
			rm -rf "$tmp"
			die "apt-get download linux-image-$krel-dbg=$debver failed"
		}
		# tar stops after the map; dpkg-deb's broken pipe is expected,
		# a failure of tar (a full disk) is not, nor a map without its end
		{ dpkg-deb --fsys-tarfile "$tmp"/*.deb 2>/dev/null || true; } |
			tar -xO --occurrence=1 "./usr/lib/debug/boot/System.map-$krel" >"$tmp/map" &&
			grep -q ' T schedule$' "$tmp/map" && grep -q ' _end$' "$tmp/map" || {
			rm -rf "$tmp"
			die "no whole System.map-$krel from linux-image-$krel-dbg=$debver"
		}
		mv "$tmp/map" "$map"
		rm -rf "$tmp"
	fi
	echo "$map"
}

# kernel_reports [FILE]: print the lines of FILE (a guest's dmesg or console
# log; standard input without FILE) that are kernel reports: warnings,
# BUGs, oopses, sanitizer and lockdep reports, hung tasks, RCU stalls.
# Status 1 when there is none. Standard input is read as such, not as
# /dev/stdin, which a bare devtmpfs does not have.
kernel_reports() {
	grep -E 'WARNING:|BUG:|Oops|Call Trace|kernel BUG|UBSAN:|KASAN:|possible circular|INFO: task .* blocked|detected stalls' "$@"
}

# host_tsc_khz: the rate of the host's time stamp counter in kHz
# (vm/tsc-khz.c, built into the cache), measured once per boot of the
# host; nothing, and status 1, on a host without an x86 counter of
# constant rate.
host_tsc_khz() {
	local bin=$SCY_CACHE/bin/tsc-khz boot_id f
	[[ $(uname -m) == x86_64 ]] && grep -qw constant_tsc /proc/cpuinfo || return 1
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo none)
	f=$SCY_CACHE/tsc-khz-$boot_id
	if [[ ! -s $f ]]; then
		if [[ ! -x $bin || $SCY_REPO/vm/tsc-khz.c -nt $bin ]]; then
			mkdir -p "$SCY_CACHE/bin"
			gcc -O2 -Wall -Wextra -Werror -o "$bin.$$" "$SCY_REPO/vm/tsc-khz.c" && mv "$bin.$$" "$bin" || return 1
		fi
		"$bin" >"$f.$$" && mv "$f.$$" "$f" || return 1
	fi
	cat "$f"
}

# csv_add_kernel CSV ROWS KERNEL: append the rows of the CSV file ROWS to
# CSV, each with KERNEL in front (a first column kernel_name; the header
# once, while CSV is empty): the benchmarks' tables of several guests.
csv_add_kernel() {
	if [[ ! -s $1 ]]; then
		head -n 1 "$2" | sed 's/^/kernel_name,/' >"$1"
	fi
	tail -n +2 "$2" | sed "s/^/$3,/" >>"$1"
}

# info_head COMMAND: the first lines of a benchmark's CSV.info: the command
# that made the CSV, the date and the host.
info_head() {
	echo "command=$1"
	echo "date=$(date -u +%Y-%m-%d)"
	echo "host=$(nproc)-core host, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo), Debian $(cat /etc/debian_version 2>/dev/null)"
}

# info_prior INFO: the commands of the earlier runs whose rows a CSV that
# is appended to holds, from its INFO, as also= lines; nothing, and status
# 0, when the CSV came without its INFO.
info_prior() {
	[[ -f $1 ]] || return 0
	sed -n '/^also=/p; s/^command=/also=/p' "$1"
}

# patch_hash KVER: hash of the series that a patched build applies.
patch_hash() {
	local dir=$SCY_REPO/kernel-patches/v$1
	[[ -f $dir/series ]] || { echo none; return; }
	(cd "$dir" && cat series $(grep -v '^#' series)) | sha256sum | cut -c1-12
}

config_hash() {
	cat "$SCY_REPO/vm/guest.config" "$@" | sha256sum | cut -c1-12
}

# fragments_hold CONFIG FRAGMENT...: every CONFIG_ line of the fragments is
# in CONFIG as written (olddefconfig drops what a dependency forbids) and
# every "# CONFIG_X is not set" option is off (a select can turn it on);
# says which ones are not. Status 1 if any differs.
fragments_hold() {
	local config=$1 f line bad=0
	shift
	for f in "$@"; do
		while IFS= read -r line; do
			if [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
				! grep -qE "^${BASH_REMATCH[1]}=[ym]$" "$config" || {
					log "config: '$line' from ${f##*/} is on after olddefconfig"
					bad=1
				}
				continue
			fi
			[[ $line == CONFIG_* ]] || continue
			grep -qxF "$line" "$config" || {
				log "config: '$line' from ${f##*/} did not survive olddefconfig"
				bad=1
			}
		done <"$f"
	done
	return $bad
}

# make_progress LABEL LOG CMD...: run the build command CMD in the
# background with its output in LOG, saying every 20 s how many files it
# compiled; on failure print LOG's tail and die. Sets build_secs.
make_progress() {
	local label=$1 blog=$2 pid start
	shift 2
	start=$(date +%s)
	"$@" >"$blog" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 20 &
		wait $! || true
		kill -0 "$pid" 2>/dev/null || break
		log "  $label: $(grep -cE '^  CC|gcc .* -c -o' "$blog" || true) files compiled, $(($(date +%s) - start)) s"
	done
	if ! wait "$pid"; then
		tail -n 30 "$blog" >&2
		die "$label: build failed (log: $blog)"
	fi
	build_secs=$(($(date +%s) - start))
}

# build_dir KVER PATCHED [extra fragments]: where that kernel is built.
build_dir() {
	local kver=$1 patched=$2 ph
	shift 2
	if [[ $patched == 1 ]]; then ph=$(patch_hash "$kver"); else ph=stock; fi
	echo "$SCY_CACHE/build/$kver-$(debian_version "$kver")-$ph-$(config_hash "$@")"
}

# ref_tree KVER: path of the pristine Debian source tree of KVER, extracted
# from /usr/src/linux-source-KVER.tar.xz on first use.
ref_tree() {
	local kver=$1 debver ref tarball
	kver_check "$kver"
	debver=$(debian_version "$kver")
	ref=$SCY_CACHE/ref/$kver-$debver
	tarball=/usr/src/linux-source-$kver.tar.xz
	if [[ ! -f $ref/.extracted ]]; then
		[[ -f $tarball ]] || die "$tarball missing: install linux-source-$kver"
		mkdir -p "$SCY_CACHE/ref"
		# one extraction at a time: stock and patched builds may both ask
		(
			flock 8
			[[ -f $ref/.extracted ]] && exit 0
			log "extracting $tarball (Debian $debver), about a minute"
			rm -rf "$ref" "$ref.tmp"
			mkdir -p "$ref.tmp"
			tar -C "$ref.tmp" -xf "$tarball"
			mv "$ref.tmp/linux-source-$kver" "$ref"
			rmdir "$ref.tmp"
			touch "$ref/.extracted"
		) 8>"$ref.lock" || die "extracting $tarball failed"
	fi
	echo "$ref"
}

# series_patches DIR: the patches DIR/series lists, in order, one path a line.
series_patches() {
	local dir=$1 p
	[[ -f $dir/series ]] || die "no series file in ${dir#"$SCY_REPO"/}"
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		echo "$dir/$p"
	done <"$dir/series"
}

# series_files PATCH...: the files the patches name (renames and mode
# changes included), one a line, sorted.
series_files() {
	sed -n 's#^+++ b/##p; s#^--- a/##p; s#^diff --git a/\([^ ]*\) b/\(.*\)#\1\n\2#p;
		s#^rename from ##p; s#^rename to ##p' "$@" /dev/null | sed 's/\t.*//; \#^/dev/null$#d' | sort -u
}

# patched_tree REF SRC OBJ PATCH...: make SRC the tree REF with PATCHes
# applied (in order), giving a fresh mtime only to the files whose content
# or mode changed since SRC was last made, so that make (objects in OBJ)
# rebuilds only what differs: a series that changed only its selftests
# recompiles nothing. The patches are applied to copies of the files they
# name, beside SRC; every other file comes from REF (rsync, by content).
# A new tree (no SRC and no OBJ/.config) keeps REF's mtimes, older than any
# object, as a seeded build needs; SRC made anew beside an existing OBJ gets
# fresh mtimes everywhere instead.
patched_tree() {
	local ref=$1 src=$2 obj=$3 stage=$2.patched f d times=--no-times
	shift 3
	local files=() newdirs=() patches=()
	for f in "$@"; do
		[[ -n $f ]] && patches+=("$f")
	done
	mapfile -t files < <(series_files "${patches[@]}")
	rm -rf "$stage"
	mkdir -p "$stage" "$src"
	for f in "${files[@]}"; do
		if [[ -f $ref/$f ]]; then (cd "$ref" && cp --parents -p -- "$f" "$stage/"); fi
		# the outermost directory of f that REF does not have
		d=$(dirname -- "$f")
		while [[ $d != . && ! -d $ref/$d && ! -d $ref/$(dirname -- "$d") ]]; do
			d=$(dirname -- "$d")
		done
		[[ $d != . && ! -d $ref/$d ]] && newdirs+=("$d")
	done
	mapfile -t newdirs < <(printf '%s\n' "${newdirs[@]}" | sed '/^$/d' | sort -u)
	for f in "${patches[@]}"; do
		log "applying ${f#"$SCY_REPO"/}"
		patch -d "$stage" -p1 -s -f --no-backup-if-mismatch <"$f" >/dev/null ||
			die "${f#"$SCY_REPO"/} does not apply to $ref"
	done
	[[ -f $src/Makefile || -f $obj/.config ]] || times=--times
	# Everything but the patched files and the directories the series adds
	# (rsync --delete leaves excluded paths alone): by content, a copied
	# file gets a fresh mtime, the others keep theirs.
	rsync -rlpD $times --checksum --delete --exclude=/.extracted \
		--exclude-from=<(printf '/%s\n' "${files[@]}" "${newdirs[@]}") "$ref/" "$src/"
	# The directories the series adds hold its files only.
	for d in "${newdirs[@]}"; do
		mkdir -p -- "$src/$d"
		rsync -rlpD --no-times --checksum --delete "$stage/$d/" "$src/$d/"
	done
	for f in "${files[@]}"; do
		if [[ ! -e $stage/$f ]]; then
			rm -f -- "$src/$f"
		elif ! cmp -s -- "$stage/$f" "$src/$f"; then
			mkdir -p -- "$(dirname -- "$src/$f")"
			cp -- "$stage/$f" "$src/$f"
			chmod --reference="$stage/$f" -- "$src/$f"
		elif [[ $(stat -c %a -- "$stage/$f") != "$(stat -c %a -- "$src/$f")" ]]; then
			chmod --reference="$stage/$f" -- "$src/$f"
			touch -- "$src/$f"
		fi
	done
	rm -rf "$stage"
}
