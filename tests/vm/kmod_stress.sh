#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: stressapptest runs for 30 s on the pool node's memory
# (numactl --membind) with 0 errors, as the paper ran GSAT on the device.
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
command -v stressapptest >/dev/null || ksft_skip "stressapptest not installed"
trap kmod_cleanup EXIT
node=$MDK_POOL_NODE

kmod_load || ksft_skip "insmod failed"
ktap_plan 3
"$MDKCTL" pool online 0 1 >/dev/null
ktap_ok "segments 0 and 1 online (256 MiB on node $node)" \
	eval '[ "$(seg_state 0)$(seg_state 1)" = onlineonline ]'
out=$(timeout 150 numactl --membind="$node" stressapptest -s 30 -M 160 -m 2 -W 2>&1)
rc=$?
grep -E "Stats:|Status:|error" <<<"$out" | head -n 8 | sed 's/^/# /'
[ $rc -eq 0 ] && [[ $out == *"Status: PASS"* ]] && [[ $out == *" 0 errors"* ]]
ktap_check "stressapptest -s 30 -M 160 on node $node: PASS, 0 errors"
"$MDKCTL" pool offline all >/dev/null
ktap_ok "offline again" eval '[ "$(seg_state 0)$(seg_state 1)" = offlineoffline ]'
ktap_finish
