#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: every segment goes online (hot-added into the pool's node as
# ZONE_MOVABLE memory) and offline again with mdkctl pool online/offline;
# the node joins a memory tier slower than DRAM; the module refuses to let
# pool memory online into a kernel zone and to unload while segments are
# online; cmm_mp:segment_state traces each step.
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
trap kmod_cleanup EXIT
node=$MDK_POOL_NODE
memsys=/sys/devices/system/memory

kmod_load || ksft_skip "insmod failed"
rd nseg "$CMM_MP_SYS/nr_segments"
rd seg_bytes "$CMM_MP_SYS/segment_bytes"
ktap_plan 11
trace_on segment_state

# check_segments STATE: every segment in STATE, its blocks online+Movable
# (online) or gone (offline); the count of bad ones in $bad.
check_segments() {
	local s b range st zones
	bad=0
	for ((s = 0; s < nseg; s++)); do
		rd st "$CMM_MP_SYS/segments/seg$s/state"
		rd range "$CMM_MP_SYS/segments/seg$s/memory_blocks"
		[ "$st" = "$1" ] || { ktap_diag "segment $s is $st"; bad=$((bad + 1)); }
		for ((b = ${range%-*}; b <= ${range#*-}; b++)); do
			if [ "$1" = offline ]; then
				[ -e "$memsys/memory$b" ] && bad=$((bad + 1))
				continue
			fi
			rd st "$memsys/memory$b/state"
			rd zones "$memsys/memory$b/valid_zones"
			if [ "$st" != online ] || [ "$zones" != Movable ]; then
				ktap_diag "segment $s: memory$b is $st in $zones"
				bad=$((bad + 1))
			fi
		done
	done
	[ $bad -eq 0 ]
}

# in_list N FILE: FILE (a node list such as "0-1" or "0,2") has node N
in_list() {
	local list a b r
	rd list "$2"
	IFS=, read -ra r <<<"$list"
	for a in "${r[@]}"; do
		b=${a#*-}
		a=${a%-*}
		((a <= $1 && $1 <= b)) && return 0
	done
	return 1
}

tier_of() {
	local t
	for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
		in_list "$1" "$t/nodelist" && echo "${t##*memory_tier}"
	done
}

out=$("$MDKCTL" pool online all) || ktap_diag "$out"
ktap_ok "mdkctl pool online all: all $nseg segments online, every memory block online in ZONE_MOVABLE" \
	check_segments online
size_line="node $node size: $((nseg * seg_bytes >> 20)) MB"
numa=$(numactl -H)
[[ $numa == *"$size_line"* ]]
ktap_check "numactl -H: '$size_line'"
t0=$(tier_of 0)
t1=$(tier_of "$node")
ktap_diag "memory tiers: node 0 in $t0, node $node in $t1"
[[ -n $t1 && $t1 -gt $t0 ]]
ktap_check "node $node is in a memory tier slower than node 0's"
ktap_ok "rmmod is refused while segments are online" eval '! rmmod cmm_mp 2>/dev/null'

last=$((nseg - 1))
rd range "$CMM_MP_SYS/segments/seg$last/memory_blocks"
blk=${range%-*}
echo offline >"$memsys/memory$blk/state"
rd st "$CMM_MP_SYS/segments/seg$last/state"
ktap_ok "a block offlined by hand leaves its segment 'added'" [ "$st" = added ]
dmesg_mark kmod_segments_kernel_zone
ktap_ok "onlining it into a kernel zone is refused" \
	eval "! echo online_kernel 2>/dev/null >$memsys/memory$blk/state"
log=$(dmesg_since kmod_segments_kernel_zone)
[[ $log == *"cmm_mp: segment $last: memory at "*" onlines only as online_movable"* ]]
ktap_check "the refusal is one dmesg line naming the segment"
"$MDKCTL" pool online $last >/dev/null
rd st "$CMM_MP_SYS/segments/seg$last/state"
ktap_ok "mdkctl pool online brings it back" [ "$st" = online ]

out=$("$MDKCTL" pool offline all) || ktap_diag "$out"
ktap_ok "mdkctl pool offline all: all $nseg segments offline, their memory blocks removed" \
	check_segments offline
ktap_ok "node $node has no memory left" eval "! in_list $node /sys/devices/system/node/has_memory"
ktap_diag "$(trace_count segment_state:) segment_state events"
ktap_ok "cmm_mp:segment_state traced offline -> added -> online -> added -> offline for each" \
	[ "$(trace_count 'offline -> added')" -ge "$nseg" -a \
	  "$(trace_count 'added -> online')" -ge "$nseg" -a \
	  "$(trace_count 'online -> added')" -ge "$nseg" -a \
	  "$(trace_count 'added -> offline')" -ge "$nseg" ]
ktap_finish
