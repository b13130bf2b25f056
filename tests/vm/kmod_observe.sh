#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: cmm_mp.ko's observability: every sysfs file that
# Documentation/ABI/testing/sysfs-kernel-cmm_mp documents exists (mode
# 0400) and nothing else does; PAMT lookups count per device and segment
# and are traced (cmm_mp:pamt_lookup); the pool claims its range in
# /proc/iomem; the module's kernel messages share the "cmm_mp: " prefix.
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
abi=$MDK_TOP/Documentation/ABI/testing/sysfs-kernel-cmm_mp
require_file "$abi"
trap kmod_cleanup EXIT

dmesg_mark kmod_observe
kmod_load || ksft_skip "insmod failed"
ktap_plan 7
rd ndev "$CMM_MP_SYS/nr_devices"
rd nseg "$CMM_MP_SYS/nr_segments"

declare -A documented present
while read -r what path; do
	[ "$what" = "What:" ] || continue
	path=${path#/sys/kernel/cmm_mp/}
	if [[ $path == devices/devN/* ]]; then
		for ((i = 0; i < ndev; i++)); do documented["devices/dev$i/${path#devices/devN/}"]=1; done
	elif [[ $path == segments/segN/* ]]; then
		for ((i = 0; i < nseg; i++)); do documented["segments/seg$i/${path#segments/segN/}"]=1; done
	else
		documented[$path]=1
	fi
done <"$abi"
shopt -s nullglob
for f in "$CMM_MP_SYS"/* "$CMM_MP_SYS"/devices/*/* "$CMM_MP_SYS"/segments/*/*; do
	[ -f "$f" ] && present[${f#"$CMM_MP_SYS"/}]=1
done
missing=0 extra=0
for f in "${!documented[@]}"; do [ -n "${present[$f]:-}" ] || { ktap_diag "missing: $f"; missing=$((missing + 1)); }; done
for f in "${!present[@]}"; do [ -n "${documented[$f]:-}" ] || { ktap_diag "undocumented: $f"; extra=$((extra + 1)); }; done
ktap_diag "${#documented[@]} files documented, ${#present[@]} present"
ktap_ok "every documented sysfs file exists, and only those" [ $missing -eq 0 -a $extra -eq 0 -a ${#present[@]} -gt 0 ]
modes=$(find "$CMM_MP_SYS"/ -type f ! -perm 0400)
ktap_ok "all of them are mode 0400" [ -z "$modes" ]

trace_on pamt_lookup
rd base "$CMM_MP_SYS/hdm_base"
rd segb "$CMM_MP_SYS/segment_bytes"
rd first1 "$CMM_MP_SYS/devices/dev1/nha"
a=$((base + 4096)) b=$((base + first1 + segb + 8))
out=$("$MDKCTL" pool translate $a; "$MDKCTL" pool translate $b; "$MDKCTL" pool translate $b)
ktap_diag "$out"
rd l0 "$CMM_MP_SYS/devices/dev0/lookups"
rd l1 "$CMM_MP_SYS/devices/dev1/lookups"
rd seg1 "$CMM_MP_SYS/devices/dev1/segments"
rd ls "$CMM_MP_SYS/segments/seg$((${seg1%-*} + 1))/lookups"
ktap_ok "lookups count per device (1 and 2) and per segment (2)" [ "$l0 $l1 $ls" = "1 2 2" ]
ktap_ok "cmm_mp:pamt_lookup traced all three, with HA and NHA" \
	eval "[ \$(trace_count 'pamt_lookup:') -eq 3 ] && [ \$(trace_count \"ha=$(printf 0x%x $b) nha=$(printf 0x%x $((b - base))) valid=1 device=1\") -eq 2 ]"
out=$("$MDKCTL" pool -j translate $a)
ktap_diag "$out"
[[ $out == *'"valid":true,"device":0,'*'"local":true'* ]]
ktap_check "mdkctl pool -j translate: JSON with device and locality"
rd size "$CMM_MP_SYS/pool_bytes"
range=$(printf '%x-%x : CMM-MP pool' "$base" $((base + size - 1)))
iomem=$(</proc/iomem)
[[ $iomem == *"$range"* ]]
ktap_check "/proc/iomem: '$range'"
log=$(dmesg_since kmod_observe)
others=0
while IFS= read -r line; do
	[[ $line == *cmm_mp* && $line != *"] cmm_mp: "* ]] && others=$((others + 1))
done <<<"$log"
[ $others -eq 0 ] && [[ $log == *"] cmm_mp: pool "* ]]
ktap_check "the module's kernel messages all start with 'cmm_mp: '"
ktap_finish
