#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-mpich-ch3.sh: build MPICH with the ch3:nemesis device from Debian's
# own source package of the installed MPICH (4.0.2 on Debian 12), into
# $SCY_CACHE/mpich-ch3-VERSION (bin/mpicc, bin/mpiexec.hydra, lib/); prints
# that directory. Does nothing when it is already there.
#
# Why: Debian's MPICH is built with ch4:ucx. Its libmpich.so does not call
# sched_yield() at all, and ch4 never reads MPIR_CVAR_POLLS_BEFORE_YIELD,
# so "MPICH, yield on" cannot be run with the distribution's package. The
# ch3:nemesis device of the same source does yield: its blocking progress
# loop calls sched_yield() every MPIR_CVAR_POLLS_BEFORE_YIELD polls (see
# Documentation/results/mpi.md, for the lines), but only when built
# with --enable-yield=sched_yield: on Linux MPICH's configure picks
# "nothing" by default (src/mpl/configure.ac: "sched_yield() has been
# broken in linux since 2.6.23"), and the yield compiles to an empty
# statement; the script checks that libmpi.so imports sched_yield. Only
# what the MPI ping-pong needs is built: C only (no Fortran, no C++
# bindings, no ROMIO), no documentation, shared libraries, hydra as
# process manager. The
# compiler wrappers set an rpath to this prefix, so the binaries they build
# run in the guests too (the guests see the host's root read-only).
#
# The source: `apt-get source` with a private apt state (a deb-src line for
# the suite of the system's deb.debian.org entry, its own lists in the
# build directory; downloads as the calling user, whose files these are), so
# nothing in /etc/apt changes and no root is needed. SCY_MPICH_SRC=DIR uses
# DIR/mpich_VERSION.dsc (and its tarballs) instead, without network.
# Build directory: $SCY_CACHE/mpich-ch3-build-VERSION (about 540 MB); built
# with nice -n 5 and make -j2 (SCY_JOBS=N for another -j).
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

command -v dpkg-query >/dev/null || die "build-mpich-ch3.sh: dpkg-query not found: this expects Debian 12"
# The source version of the installed MPICH (libmpich12), e.g. 4.0.2-3
ver=$(dpkg-query -W -f '${source:Version}' libmpich12 2>/dev/null) ||
	die "build-mpich-ch3.sh: libmpich12 is not installed (apt-get install mpich libmpich-dev)"
upver=${ver#*:}
upver=${upver%-*}
prefix=$SCY_CACHE/mpich-ch3-$upver
stamp=$prefix/.scy-built
if [[ -f $stamp && -x $prefix/bin/mpicc ]]; then
	echo "$prefix"
	exit 0
fi
for c in gcc make dpkg-source; do
	command -v "$c" >/dev/null || die "build-mpich-ch3.sh: $c not found (build-essential, dpkg-dev)"
done
build=$SCY_CACHE/mpich-ch3-build-$upver
dl=$build/download
rm -rf "$build"
mkdir -p "$dl"
dsc=mpich_${ver#*:}.dsc

if [[ -n ${SCY_MPICH_SRC:-} ]]; then
	[[ -f $SCY_MPICH_SRC/$dsc ]] || die "build-mpich-ch3.sh: no $dsc in SCY_MPICH_SRC=$SCY_MPICH_SRC"
	log "mpich $ver: source from $SCY_MPICH_SRC"
	cp "$SCY_MPICH_SRC"/mpich_"${upver}"* "$dl/"
else
	# the suite of the system's deb.debian.org entry (bookworm), not -updates
	site_suite=$(apt-get indextargets --format '$(SITE) $(RELEASE) $(TARGET_OF)' 2>/dev/null |
		awk '$1 ~ /deb\.debian\.org\/debian\/?$/ && $2 !~ /-/ && $3 == "deb" && !found { print $1, $2; found = 1 }')
	[[ -n $site_suite ]] ||
		die "build-mpich-ch3.sh: no deb.debian.org entry in apt's sources: get mpich's source (apt-get source mpich=$ver) and run again with SCY_MPICH_SRC=DIR"
	read -r site suite <<<"$site_suite"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	[[ -f $key ]] || die "build-mpich-ch3.sh: $key missing (debian-archive-keyring)"
	apt_dir=$build/apt
	mkdir -p "$apt_dir/lists/partial"
	echo "deb-src [signed-by=$key] $site $suite main" >"$apt_dir/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
		-o "APT::Sandbox::User=$(id -un)")
	log "mpich $ver: source from $site $suite (private apt state in $apt_dir)"
	apt-get "${apt_opts[@]}" -qq update ||
		die "build-mpich-ch3.sh: apt-get update of the deb-src entry failed: get mpich's source (apt-get source mpich=$ver) and run again with SCY_MPICH_SRC=DIR"
	(cd "$dl" && apt-get "${apt_opts[@]}" -qq source --download-only "mpich=$ver") ||
		die "build-mpich-ch3.sh: apt-get source mpich=$ver failed: get it by hand and run again with SCY_MPICH_SRC=DIR"
fi
dpkg-source -x "$dl/$dsc" "$build/src" >&2 || die "build-mpich-ch3.sh: dpkg-source -x $dsc failed"

cd "$build/src"
log "mpich $ver: configure ch3:nemesis (log: $build/configure.log)"
# --enable-yield=sched_yield: see above. --with-datatype-engine=dataloop:
# the ping-pong sends bytes, yaksa is not needed (Debian builds
# --without-yaksa too). hwloc: the system's when libhwloc-dev is installed,
# else the bundled one.
nice -n 5 ./configure --prefix="$prefix" \
	--with-device=ch3:nemesis --with-pm=hydra --enable-yield=sched_yield \
	--disable-fortran --disable-cxx --disable-romio --disable-doc \
	--enable-shared --disable-static --enable-fast=O2 \
	--with-datatype-engine=dataloop \
	>"$build/configure.log" 2>&1 ||
	die "build-mpich-ch3.sh: configure failed, see $build/configure.log"
log "mpich $ver: make -j${SCY_JOBS:-2} (log: $build/make.log)"
nice -n 5 make -j"${SCY_JOBS:-2}" >"$build/make.log" 2>&1 ||
	die "build-mpich-ch3.sh: make failed, see $build/make.log"
rm -rf "$prefix"
nice -n 5 make install >>"$build/make.log" 2>&1 ||
	die "build-mpich-ch3.sh: make install failed, see $build/make.log"
"$prefix/bin/mpichversion" | grep -q 'ch3:nemesis' ||
	die "build-mpich-ch3.sh: $prefix/bin/mpichversion does not report ch3:nemesis"
nm -D --undefined-only "$prefix/lib/libmpi.so" | grep -qw sched_yield ||
	die "build-mpich-ch3.sh: $prefix/lib/libmpi.so does not import sched_yield"
echo "$ver ch3:nemesis" >"$stamp"
log "mpich $ver ch3:nemesis installed in $prefix"
echo "$prefix"
