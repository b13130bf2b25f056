#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the pool's node is ordinary memory: numactl --membind=<node>
# allocations land on it; a data pattern written there survives the
# offlining of its segments (the pages migrate to node 0); a segment whose
# pages cannot migrate (pinned by vmsplice) is not offlined: mdkctl pool
# offline -t fails, the segment stays online and its data intact.  (The
# kernel logs "migrating pfn ... failed" and dumps the pinned pages while
# it retries: expected here.)
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
require_file "$KMOD_MEM"
trap kmod_cleanup EXIT
node=$MDK_POOL_NODE

kmod_load || ksft_skip "insmod failed"
ktap_plan 9
"$MDKCTL" pool online 0 1 >/dev/null
ktap_ok "segments 0 and 1 online" eval '[ "$(seg_state 0)$(seg_state 1)" = onlineonline ]'

pages=$((64 << 20 >> 12))
mem_start 64 numactl --membind="$node"
ktap_diag "numactl --membind=$node kmod_mem 64: $MEM_READY"
[ "$(node_pages "$MEM_READY" "$node")" -eq $pages ]
ktap_check "numactl --membind=$node: all $pages pages of 64 MiB land on node $node"
out=$("$MDKCTL" pool offline 0 1)
ktap_ok "mdkctl pool offline 0 1 migrates them away" eval "[ '$(seg_state 0)$(seg_state 1)' = offlineoffline ]"
ktap_diag "$out"
r=$(mem_cmd nodes)
ktap_diag "after offlining: $r"
[ "$(node_pages "$r" 0)" -eq $pages ]
ktap_check "all pages are on node 0 now"
r=$(mem_cmd verify)
[ "$r" = intact ]
ktap_check "the data pattern survived offlining ($r)"
mem_stop

"$MDKCTL" pool online 2 >/dev/null
mem_start 32 numactl --membind="$node"
r=$(mem_cmd pin)
ktap_diag "segment 2 online, kmod_mem 32 on node $node: $MEM_READY, $r"
dmesg_mark kmod_node_busy
out=$("$MDKCTL" pool offline -t 3 2 2>&1)
rc=$?
ktap_diag "$out"
[ $rc -eq 1 ] && [[ $out == *"segment 2: its pages could not all be migrated before the timeout; it stays online"* ]]
ktap_check "mdkctl pool offline -t 5 of a segment with pinned pages fails after 3 s"
log=$(dmesg_since kmod_node_busy)
rd st "$CMM_MP_SYS/segments/seg2/state"
[ "$st" = online ] && [[ $log == *"cmm_mp: segment 2: not offlined"* ]]
ktap_check "the module returned EBUSY with the segment still online, and said so"
r=$(mem_cmd verify)
ktap_diag "pages now: $(mem_cmd nodes) (what could move before the timeout did)"
rd online "$CMM_MP_SYS/segments/seg2/online_blocks"
[ "$r" = intact ] && [ "$online" -ge 1 ]
ktap_check "its data is intact, its memory blocks online again"
mem_cmd unpin >/dev/null
"$MDKCTL" pool offline 2 >/dev/null
rd st "$CMM_MP_SYS/segments/seg2/state"
r=$(mem_cmd verify)
[ "$st" = offline ] && [ "$r" = intact ]
ktap_check "unpinned, it offlines, and the data survives"
mem_stop
ktap_finish
