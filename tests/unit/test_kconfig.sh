#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: cmm_mp's options out of tree (kmod/kconfig.sh): Kbuild gets
# the defaults kmod/Kconfig gives, a make variable overrides one, and a
# default changed in kmod/Kconfig is what Kbuild then gets; the check of a
# kernel's configuration passes when it has every option the enabled ones
# depend on, and otherwise names the missing option, the option that
# needs it and the kernel, and fails; a select, or a variable that is no
# option, is refused; the installed kernels pass.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 10

# What Kbuild sets when kbuild reads it for an out-of-tree build in $1,
# given the make variables after it; the kernel's own make variables must
# not leak in.
kbuild_of() {
	local dir=$1
	shift
	# shellcheck disable=SC2016 # make's $(...), not the shell's
	printf 'include $(src)/Kbuild\nall:\n\t@echo obj-m=$(obj-m) $(cmm_mp-y) $(ccflags-y)\n' >"$tmp/print.mk"
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory \
		-f "$tmp/print.mk" src="$dir" KBUILD_EXTMOD="$dir" \
		CONFIG_SHELL=sh srctree=/nonexistent "$@"
}

out=$(kbuild_of "$top/kmod")
ktap_diag "$out"
[[ $out == "obj-m=cmm_mp.o "* && $out == *" cmm_mp_fault.o "* &&
	$out == *-DCONFIG_CMM_MP_FAULT_INJECTION* && $out == *-DCONFIG_CMM_MP_TRACEPOINTS* ]]
ktap_check "Kbuild gets kmod/Kconfig's defaults: m, fault injection, tracepoints"

out=$(kbuild_of "$top/kmod" CONFIG_CMM_MP_FAULT_INJECTION=n)
[[ $out == "obj-m=cmm_mp.o "* && $out != *cmm_mp_fault* && $out == *-DCONFIG_CMM_MP_TRACEPOINTS* ]]
ktap_check "make CONFIG_CMM_MP_FAULT_INJECTION=n overrides the default"

mkdir "$tmp/kmod"
cp "$top/kmod/Kbuild" "$top/kmod/kconfig.sh" "$tmp/kmod/"
awk '/^config CMM_MP_TRACEPOINTS/ { t = 1 } t && /^\tdefault y/ { $0 = "\tdefault n" } { print }' \
	"$top/kmod/Kconfig" >"$tmp/kmod/Kconfig"
out=$(kbuild_of "$tmp/kmod")
[[ $out == *cmm_mp_fault.o* && $out != *-DCONFIG_CMM_MP_TRACEPOINTS* ]]
ktap_check "a default changed in kmod/Kconfig is what Kbuild gets"

# A kernel with everything, one without memory hot-remove, one without
# tracepoints (as an out-of-tree tree has them: include/config/auto.conf).
mkdir -p "$tmp/all" "$tmp/nohotremove" "$tmp/notrace/include/config"
printf 'CONFIG_%s=y\n' X86_64 NUMA MEMORY_HOTPLUG MEMORY_HOTREMOVE TRACEPOINTS >"$tmp/all/.config"
sed 's/^CONFIG_MEMORY_HOTREMOVE=y/# CONFIG_MEMORY_HOTREMOVE is not set/' \
	"$tmp/all/.config" >"$tmp/nohotremove/.config"
grep -v TRACEPOINTS "$tmp/all/.config" >"$tmp/notrace/include/config/auto.conf"
printf 'CONFIG_TRACEPOINTS=y\n' >"$tmp/notrace/.config" # stale: auto.conf counts
check() {
	sh "$top/kmod/kconfig.sh" check "$@" 2>&1
}

out=$(check "$tmp/all" 6.1.0-T)
ret=$?
[ $ret -eq 0 ] && [ -z "$out" ]
ktap_check "a kernel with every option needed passes, silently"

out=$(check "$tmp/nohotremove" 6.1.0-T)
ret=$?
ktap_diag "$out"
[ $ret -eq 1 ] &&
	[[ $out == "cmm_mp: kernel 6.1.0-T lacks CONFIG_MEMORY_HOTREMOVE (needed by CONFIG_CMM_MP)" ]]
ktap_check "without memory hot-remove: the message names it, CMM_MP and the kernel"

out=$(check "$tmp/notrace" 6.12.0-T)
ret=$?
ktap_diag "$out"
[ $ret -eq 1 ] &&
	[[ $out == "cmm_mp: kernel 6.12.0-T lacks CONFIG_TRACEPOINTS (needed by CONFIG_CMM_MP_TRACEPOINTS)" ]]
ktap_check "without tracepoints (auto.conf): CMM_MP_TRACEPOINTS cannot be built"

out=$(check "$tmp/notrace" 6.12.0-T CONFIG_CMM_MP_TRACEPOINTS=n) &&
	out=$(check "$tmp/nohotremove" 6.1.0-T CONFIG_CMM_MP=n)
ktap_check "an option turned off (and those needing it) needs nothing"

out=$(check "$tmp/all" 6.1.0-T CONFIG_CMM_MP_TRACEPOINT=n)
ret=$?
ktap_diag "$out"
[ $ret -eq 2 ] && [[ $out == *"CONFIG_CMM_MP_TRACEPOINT=n: not an option of"* ]]
ktap_check "a variable that is no option is refused"

sed 's/^\tdepends on CMM_MP$/&\n\tselect MEMORY_TIER/' "$top/kmod/Kconfig" >"$tmp/kmod/Kconfig"
out=$(sh "$tmp/kmod/kconfig.sh" config 2>&1)
ret=$?
ktap_diag "$out"
[ $ret -eq 2 ] && [[ $out == *'"select" cannot work out of tree'* ]]
ktap_check "a select in kmod/Kconfig is refused"

kernels=$("$top/tests/vm/kernels")
if [ -z "$kernels" ]; then
	ktap_skip "the installed kernels pass: none installed"
else
	ok=0
	for k in $kernels; do
		out=$(check "/lib/modules/$k/build" "$k") || { ktap_diag "$out"; ok=1; }
	done
	[ $ok -eq 0 ]
	ktap_check "the installed kernels (${kernels//$'\n'/ }) pass"
fi
ktap_finish
