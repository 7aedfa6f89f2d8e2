#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# objdiff.sh KVER [OBJ...]: which functions the series changes in the
# guest builds of KVER. Disassembles each object (default: the scheduler's
# and the pipe's, the paths of yield, getppid and perf bench sched pipe) in
# the stock and the patched build, with addresses and RIP offsets masked,
# and lists the functions that only one build has and the common ones whose
# instructions differ. Builds the two kernels (KVER-stock, KVER-patched)
# when they are not in the cache.
set -euo pipefail
. "$(dirname "$0")/../../vm/lib.sh"

kver=${1:?usage: objdiff.sh KVER [OBJ...]}
shift
objs=("$@")
((${#objs[@]})) || objs=(kernel/sched/fair.o kernel/sched/core.o kernel/sched/build_policy.o
	kernel/sched/build_utility.o fs/pipe.o kernel/sys.o)
stock=$(kernel_get "$kver-stock" 2>/dev/null)
patched=$(kernel_get "$kver-patched" 2>/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dis() { # dis KDIR OBJ: "function instruction" lines, addresses masked
	objdump -d --no-show-raw-insn "$1/kdir/$2" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
		NF >= 2 && fn {
			sub(/^ *[0-9a-f]+:\t/, "")
			gsub(/[0-9a-f]+ <[^>]*>/, "ADDR")
			gsub(/0x[0-9a-f]+\(%rip\)/, "RIP")
			print fn, $0
		}'
}
for o in "${objs[@]}"; do
	dis "$stock" "$o" >"$tmp/s"
	dis "$patched" "$o" >"$tmp/p"
	cut -d' ' -f1 "$tmp/s" | sort -u >"$tmp/fs"
	cut -d' ' -f1 "$tmp/p" | sort -u >"$tmp/fp"
	diff=()
	while read -r f; do
		cmp -s <(grep -F "$f " "$tmp/s") <(grep -F "$f " "$tmp/p") || diff+=("$f")
	done < <(comm -12 "$tmp/fs" "$tmp/fp")
	printf '%s %s: %d functions in stock, %d of them differ%s; only patched: %s; only stock: %s\n' \
		"$kver" "$o" "$(wc -l <"$tmp/fs")" "${#diff[@]}" \
		"$( ((${#diff[@]})) && echo " (${diff[*]})")" \
		"$(comm -13 "$tmp/fs" "$tmp/fp" | tr -d '<>:' | tr '\n' ' ')" \
		"$(comm -23 "$tmp/fs" "$tmp/fp" | tr -d '<>:' | tr '\n' ' ')"
done
