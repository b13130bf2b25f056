#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the packaging agrees with the tree: kmod/dkms.conf's
# version is the module's (CMM_MP_VERSION), the Makefile's (MDK_VERSION)
# and debian/changelog's; the kernel options it requires of a kernel
# (BUILD_EXCLUSIVE_CONFIG) are those "config CMM_MP" depends on in
# kmod/Kconfig; the sources make install-dkms ships are all DKMS needs
# (every file Kbuild names and every header the sources include, but the
# unit tests' kernel shim).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 4

conf=$top/kmod/dkms.conf
v_dkms=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
v_kmod=$(sed -n 's/^#define CMM_MP_VERSION "\(.*\)"$/\1/p' "$top/kmod/cmm_mp.h")
v_make=$(sed -n 's/^MDK_VERSION := //p' "$top/Makefile")
v_deb=$(sed -n '1s/^mdk (\([^)]*\)).*/\1/p' "$top/debian/changelog")
ktap_diag "dkms.conf $v_dkms, cmm_mp.h $v_kmod, Makefile $v_make, debian/changelog $v_deb"
[ -n "$v_dkms" ] && [ "$v_dkms" = "$v_kmod" ] && [ "$v_dkms" = "$v_make" ] &&
	[ "$v_dkms" = "$v_deb" ]
ktap_check "one version: dkms.conf, cmm_mp.h, Makefile, debian/changelog"

want=$(awk '/^config / { c = $2 } c == "CMM_MP" && /^\tdepends on / {
		sub(/^\tdepends on /, ""); gsub(/[ \t]*&&[ \t]*/, " "); print }' "$top/kmod/Kconfig" |
	tr ' ' '\n' | sed 's/^/CONFIG_/' | sort | tr '\n' ' ')
have=$(sed -n 's/^BUILD_EXCLUSIVE_CONFIG="\(.*\)"$/\1/p' "$conf" | tr ' ' '\n' | sort | tr '\n' ' ')
ktap_diag "Kconfig: $want; dkms.conf: $have"
[ -n "$want" ] && [ "$want" = "$have" ]
ktap_check "BUILD_EXCLUSIVE_CONFIG is what config CMM_MP depends on"

make -s -C "$top" DESTDIR="$tmp" install-dkms >/dev/null
src=$tmp/usr/src/cmm-mp-$v_dkms
ok=1
for o in $(sed -n 's/.*cmm_mp-[^ ]* [+:]= //p' "$top/kmod/Kbuild" | tr -d '\\'); do
	[[ $o == *.o ]] || continue
	[ -e "$src/${o%.o}.c" ] || { ktap_diag "missing ${o%.o}.c"; ok=0; }
done
for h in $(grep -ho '#include "[^"]*"' "$src"/*.c "$src"/*.h | cut -d'"' -f2 | sort -u); do
	# The unit tests' kernel shim, included only outside the kernel.
	[ -e "$top/tests/unit/$h" ] && continue
	[ -e "$src/$h" ] || { ktap_diag "missing $h"; ok=0; }
done
[ $ok = 1 ] && [ -e "$src/Kbuild" ] && [ -x "$src/kconfig.sh" ] && [ -e "$src/Kconfig" ]
ktap_check "make install-dkms ships every source Kbuild names and every header included"

grep -q '^AUTOINSTALL="yes"$' "$conf" && grep -q '^BUILT_MODULE_NAME\[0\]="cmm_mp"$' "$conf"
ktap_check "dkms.conf: AUTOINSTALL and the module cmm_mp"
ktap_finish
