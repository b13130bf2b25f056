#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: with demotion enabled, memory.reclaim on a cgroup demotes
# its pages to the pool's node (the slower tier): pgdemote_* rise, the
# pages are found on the node and the data is intact.
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
require_file "$KMOD_MEM"
demotion=/sys/kernel/mm/numa/demotion_enabled
[ -w $demotion ] || ksft_skip "no $demotion"
cg=/sys/fs/cgroup/kmod-demote
rd old_demotion $demotion
cleanup() {
	echo "$old_demotion" >$demotion
	kmod_cleanup
	rmdir "$cg" 2>/dev/null
}
trap cleanup EXIT
node=$MDK_POOL_NODE

pgdemote() {
	local k v n=0
	while read -r k v; do
		[[ $k == pgdemote_* ]] && n=$((n + v))
	done </proc/vmstat
	echo $n
}

kmod_load || ksft_skip "insmod failed"
ktap_plan 5
"$MDKCTL" pool online 0-3 >/dev/null
echo 1 >$demotion
mkdir -p "$cg"
ktap_ok "segments 0-3 online, demotion enabled" \
	eval '[ "$(seg_state 0)$(seg_state 3)" = onlineonline ] && [ "$(<'$demotion')" = true ]'

echo $$ >"$cg/cgroup.procs"
mem_start 96
echo $$ >/sys/fs/cgroup/cgroup.procs
ktap_diag "kmod_mem 96 in $cg: $MEM_READY"
before=$(pgdemote)
echo 64M >"$cg/memory.reclaim" 2>/dev/null
after=$(pgdemote)
r=$(mem_cmd nodes)
ktap_diag "pgdemote_* $before -> $after; pages $r"
[ "$after" -gt "$before" ]
ktap_check "memory.reclaim 64M: pgdemote_* rose"
on_node=$(node_pages "$r" "$node")
[ "$on_node" -gt 0 ]
ktap_check "$on_node of the cgroup's pages are now on node $node"
r=$(mem_cmd verify)
[ "$r" = intact ]
ktap_check "the demoted data is intact ($r)"
mem_stop
echo "$old_demotion" >$demotion
"$MDKCTL" pool offline all >/dev/null
ktap_ok "offline again" eval '[ "$(seg_state 0)$(seg_state 3)" = offlineoffline ]'
ktap_finish
