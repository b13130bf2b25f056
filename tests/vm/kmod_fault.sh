#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl pool fail DEV offlines the device's online segments
# with migration and revokes its shared ones; a failed device's segments
# can be neither onlined nor shared, translations say it failed;
# mdkctl pool recover brings it back (it announces itself again);
# a device whose pages cannot be moved is reported, its segment left online
# with the data intact; cmm_mp:device_fail and cmm_mp:discovery trace it.
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
require_file "$KMOD_MEM"
trap kmod_cleanup EXIT
node=$MDK_POOL_NODE

kmod_load || ksft_skip "insmod failed"
"$MDKCTL" pool status -j | grep -q '"fault_injection": *true' ||
	ksft_skip "cmm_mp.ko built without CONFIG_CMM_MP_FAULT_INJECTION"
rd first "$CMM_MP_SYS/devices/dev1/segments"
first=${first%-*}
s0=$first s1=$((first + 1)) s2=$((first + 2))
ktap_plan 10
trace_on device_fail discovery

"$MDKCTL" pool online $s0 >/dev/null
"$MDKCTL" pool share $s1 >/dev/null
out=$("$MDKCTL" pool fail 1 2>&1)
rc=$?
ktap_diag "$out"
[ $rc -eq 0 ] && [ "$(seg_state $s0)" = offline ] && [ "$(seg_state $s1)" = shared ] &&
	[ "$(dev_attr 1 state)" = failed ] && [ "$(dev_attr 1 failures)" = 1 ] &&
	[[ $out == *"1 segments offlined, 1 shared segments revoked"* ]]
ktap_check "pool fail 1: its online segment offlined, its shared one revoked, the device failed"
out=$("$MDKCTL" pool online $s2 2>&1)
rc1=$?
out2=$("$MDKCTL" pool share $s2 2>&1)
rc2=$?
ktap_diag "$out / $out2"
[ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [[ $out == *"Input/output error"* ]] && [ "$(seg_state $s2)" = offline ]
ktap_check "a failed device's segments can be neither onlined nor shared (EIO)"
rd phys "$CMM_MP_SYS/segments/seg$s2/phys"
out=$("$MDKCTL" pool translate "$phys")
ktap_diag "$out"
[[ $out == *"device 1 "*"device failed"* ]]
ktap_check "translate says the device failed"
ktap_ok "cmm_mp:device_fail traced the failure" \
	eval "[ \$(trace_count 'device=1 chip_id=') -ge 1 ] && [ \$(trace_count 'failed offlined=1 revoked=1 busy=0') -eq 1 ]"

out=$("$MDKCTL" pool recover 1)
ktap_diag "$out"
[ "$(dev_attr 1 state)" = ok ] && [ "$(trace_count 'recovered')" -eq 1 ] &&
	[ "$(trace_count 'discovery:')" -eq 1 ] && [ "$(trace_count "-> device=1 ")" -eq 1 ]
ktap_check "pool recover 1: ok again; it announced itself (cmm_mp:discovery)"
"$MDKCTL" pool online $s2 >/dev/null
ktap_ok "its segments online again" eval "[ \"\$(seg_state $s2)\" = online ]"
"$MDKCTL" pool offline $s1 $s2 >/dev/null

"$MDKCTL" pool online $s0 >/dev/null
mem_start 32 numactl --membind="$node"
r=$(mem_cmd pin)
ktap_diag "segment $s0 online, kmod_mem 32 there: $MEM_READY, $r"
out=$("$MDKCTL" pool fail -t 3 1 2>&1)
rc=$?
ktap_diag "$out"
[ $rc -eq 1 ] && [[ $out == *"1 online segments could not be moved (first: segment $s0); they stay online"* ]] &&
	[ "$(seg_state $s0)" = online ] && [ "$(dev_attr 1 state)" = failed ]
ktap_check "pool fail -t 3 with pinned pages: reported, the segment stays online, the device failed"
r=$(mem_cmd verify)
ktap_ok "its data is intact ($r)" [ "$r" = intact ]
mem_cmd unpin >/dev/null
out=$("$MDKCTL" pool fail 1 2>&1)
ktap_diag "$out"
r=$(mem_cmd verify)
[ "$(seg_state $s0)" = offline ] && [ "$r" = intact ]
ktap_check "failing it again moves what is left; the data survived ($r)"
mem_stop
"$MDKCTL" pool recover 1 >/dev/null
ktap_ok "recovered" eval '[ "$(dev_attr 1 state)" = ok ]'
ktap_finish
