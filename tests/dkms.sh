# SPDX-License-Identifier: GPL-2.0
#
# DKMS runs of module/ in private trees below a directory (sourced by
# tests/host.sh and tests/deb.sh, from the repository's root): the
# system's /var/lib/dkms and /lib/modules stay as they are.
DKMS_NAME=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' module/dkms.conf)
DKMS_VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' module/dkms.conf)

# dkms_opts DIR: DKMS_OPTS, the package and the private trees below DIR
dkms_opts() {
	DKMS_OPTS=(-m "$DKMS_NAME" -v "$DKMS_VER" --dkmstree "$1/tree"
		--sourcetree "$1/src" --installtree "$1/inst" --no-depmod)
}

# dkms_install DIR KREL [KSRC]: dkms add, build and install for the kernel
# release KREL, against the kernel tree or headers KSRC if given (else
# DKMS's /lib/modules/KREL/build). The module lands in
# DIR/inst/KREL/updates/dkms/; a failing step's log is printed as comments.
dkms_install() {
	local d=$1 krel=$2 ksrc=${3:-} step k
	dkms_opts "$d"
	mkdir -p "$d/src/$DKMS_NAME-$DKMS_VER" "$d/tree" "$d/inst/$krel"
	cp module/* "$d/src/$DKMS_NAME-$DKMS_VER/"
	for step in add build install; do
		k=()
		if [[ $step != add ]]; then
			k=(-k "$krel")
			[[ -z $ksrc ]] || k+=(--kernelsourcedir "$ksrc")
		fi
		if ! mok_signing_key=$d/mok.key mok_certificate=$d/mok.pub \
			dkms "$step" "${DKMS_OPTS[@]}" "${k[@]}" >>"$d/dkms.log" 2>&1; then
			echo "# dkms $step failed:"
			tail -n 20 "$d/dkms.log" | sed 's/^/#   /'
			return 1
		fi
	done
}

# dkms_uninstall DIR KREL: dkms remove; status 0 when no module is left in
# DIR's trees.
dkms_uninstall() {
	dkms_opts "$1"
	dkms remove "${DKMS_OPTS[@]}" -k "$2" >>"$1/dkms.log" 2>&1
	test -z "$(find "$1/tree" "$1/inst" -name 'yield_stats*.ko*')"
}
