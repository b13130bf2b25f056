#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: SWARM-KV on the emulated CMM-MP pool, one memory node per
# pool device (one shared segment each): a checked stress run on three
# devices, the same while one device fails mid-run (its mappings are
# revoked, the node crashes, the store goes on with the other two; every
# history must be linearizable, no acknowledged write lost), and the
# bench's round-trip counts and latencies on those nodes.
. "$(dirname "$0")/lib/lib.sh"
require_root
require_file "$CMM_MP_KO"
require_file "$MDKCTL"
[ -n "${MDK_POOL_BASE:-}" ] || ksft_skip "no CMM-MP pool (tests/vm/run -p SIZE)"
"$MDKCTL" swarm stress --cmm-mp=/nonexistent 2>&1 | grep -q "built without" &&
	ksft_skip "mdkctl was built without kmod/uapi/cmm_mp.h"

SYS=/sys/kernel/cmm_mp
cleanup() {
	local d
	[ -d /sys/module/cmm_mp ] || return 0
	for d in "$SYS"/devices/dev*; do
		[ "$(cat "$d/state" 2>/dev/null)" = failed ] &&
			"$MDKCTL" pool recover "${d##*dev}" >/dev/null
	done
	"$MDKCTL" pool offline all >/dev/null
	rmmod cmm_mp
}
trap cleanup EXIT

ktap_plan 5
insmod "$CMM_MP_KO" devices=4 || { ktap_fail "insmod cmm_mp devices=4"; ktap_finish; }
ktap_ok "the pool has 4 devices" \
	test "$(ls -d "$SYS"/devices/dev* | wc -l)" -eq 4

stress() {
	local out
	out=$("$MDKCTL" swarm stress --cmm-mp --replicas 3 --clients 4 --keys 4 \
		--ops 2000 --seconds 30 "$@" 2>&1)
	local ret=$?
	echo "$out" | sed 's/^/# /'
	[ $ret -eq 0 ] && grep -q ' linearizable$' <<<"$out"
}
ktap_ok "stress on 3 devices: linearizable" stress
ktap_ok "stress while device 0 fails mid-run: linearizable" stress --crash 1
ktap_ok "device 0 is failed" test "$(cat "$SYS/devices/dev0/state")" = failed
"$MDKCTL" pool recover 0 >/dev/null

# Round trips on cmm_mp nodes, latencies from the pool map (local/remote).
csv=$("$MDKCTL" swarm bench --cmm-mp --keys 2000 --ops 1000 --clients 2 \
	--workloads B --protocols swarm,dm-abd --csv 2>&1)
echo "$csv" | sed 's/^/# /'
ktap_ok "bench on cmm_mp nodes: SWARM-KV gets take 1 round trip, DM-ABD 2" \
	awk -F, '$1 == "swarm" && $4 == "get" && $9 < 1.1 { s = 1 }
		 $1 == "dm-abd" && $4 == "get" && $9 >= 2 { d = 1 }
		 END { exit !(s && d) }' <<<"$csv"
ktap_finish
