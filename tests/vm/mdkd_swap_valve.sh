#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd's swap valve on a 64 MiB swap device: a cgroup with
# 256 MiB of cold anonymous memory (two workloads) under an aggressive
# senpai setting.  mdkd stops swap-backed reclaim before swap is full (swap
# used never goes past swap_max_used, 80%, plus a small margin), nothing
# is OOM-killed, mdkctl status (text and JSON) names the reason; where
# memory.reclaim takes swappiness= (6.9+) reclaim goes on with file pages
# only, elsewhere it stops.  Once one workload exits and frees its swap,
# the valve opens and swap-backed reclaim resumes; a low swapout_max_rate
# closes it with its own reason.  Also: whether the kernel takes
# swappiness= (measured here), mdkd's log and --check-config agree, and
# with reclaim_swappiness = 0 a cgroup loses file pages only.
. "$(dirname "$0")/lib/mdkd_lib.sh"

SWAP_KB=65536
COLD=128 # MiB per workload, two of them
HOT=4
LIMIT=80 # swap_max_used, its default
MARGIN=4 # points over it a reclaim in flight may take

require_root
require_file "$MDKD"
require_file "$MDKD_WORKLOAD"
[ -b "${MDK_SWAP:-}" ] || ksft_skip "no swap disk (tests/vm/run --swap)"
[ -e /sys/fs/cgroup/memory.reclaim ] || ksft_skip "no memory.reclaim"
[ "$(grep -c '^/' /proc/swaps)" -eq 1 ] ||
	ksft_skip "swap other than $MDK_SWAP is on"

WL2_PID=
FWL_PID=
TRACE_PID=
swap_restore() {
	swapoff "$MDK_SWAP" 2>/dev/null
	mkswap -q "$MDK_SWAP" >/dev/null && swapon "$MDK_SWAP"
}
valve_cleanup() {
	[ -n "$WL2_PID" ] && kill -9 "$WL2_PID" 2>/dev/null
	[ -n "$FWL_PID" ] && kill -9 "$FWL_PID" 2>/dev/null
	[ -n "$TRACE_PID" ] && kill -9 "$TRACE_PID" 2>/dev/null
	mdkd_cleanup
	swap_restore
}
trap valve_cleanup EXIT
# The disk's first 64 MiB as the only swap: mkswap takes a size in KiB.
swapoff "$MDK_SWAP" && mkswap -q "$MDK_SWAP" $SWAP_KB >/dev/null &&
	swapon "$MDK_SWAP" || ksft_skip "cannot make a 64 MiB swap on $MDK_SWAP"

ktap_plan 11

swap_used_kb() {
	awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 }
		END { print t - f }' /proc/meminfo
}
swap_pct() { # 100 * used / total, one decimal
	awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 }
		END { printf "%.1f", t ? 100 * (t - f) / t : 0 }' /proc/meminfo
}
# jq EXPR: EXPR (python) over mdkctl status -j: d the reply, l the
# daemon's limits, v the valve cgroup's object, f the file-only one's.
jq() {
	mdkctl_ status -j 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
l = d['daemon']['limits']
cgs = {c['path']: c for c in d['cgroups']}
v = cgs.get('$vname') or {}
f = cgs.get('$fname') or {}
print($1)" 2>/dev/null
}
now_s() { # seconds since boot
	cut -d. -f1 /proc/uptime
}
stat_kb() { # stat_kb CG KEY: memory.stat KEY in kB
	awk -v k="$2" '$1 == k { print int($2 / 1024) }' "$1/memory.stat"
}

# Measured: does memory.reclaim take swappiness=?  6.1 says EINVAL.
vname=mdk-test-valve-$$
fname=mdk-test-valve-file-$$
vcg=$(cg_new "$vname") || ksft_skip "cannot create a cgroup"
fcg=$(cg_new "$fname") || ksft_skip "cannot create a cgroup"
takes=0
echo "0 swappiness=0" >"$vcg/memory.reclaim" 2>/dev/null && takes=1
ktap_diag "kernel $(uname -r): memory.reclaim takes swappiness=: $([ $takes = 1 ] && echo yes || echo no)"

if workload_start "$vcg" $COLD $HOT && WL2_PID=$WL_PID &&
	workload_start "$vcg" $COLD $HOT; then
	:
else
	ktap_bail "two workloads of $COLD MiB cold became resident"
fi
WL1_PID=$WL_PID
# The file-only cgroup: 32 MiB of anonymous memory and a file's pages.
files=(/boot/initrd.img-*)
sh -c "echo \$\$ >$fcg/cgroup.procs && exec $MDKD_WORKLOAD --cold 32 \
	--hot 1 --seconds 300" &
FWL_PID=$!
sh -c "echo \$\$ >$fcg/cgroup.procs && exec cat ${files[0]} >/dev/null"
sleep 2
fanon0=$(stat_kb "$fcg" anon)
ffile0=$(stat_kb "$fcg" file)
ktap_diag "valve cgroup $(($(cat "$vcg/memory.current") >> 20)) MiB; file-only cgroup: anon $((fanon0 >> 10)) MiB, file $((ffile0 >> 10)) MiB"

# Swap used every 200 ms, from before mdkd starts to the end.
while :; do
	echo "$(cut -d' ' -f1 /proc/uptime) $(swap_used_kb)"
	sleep 0.2
done >"$MDK_TMP/swap.trace" &
TRACE_PID=$!

conf=$MDK_TMP/mdkd.conf
start_s=$(cut -d' ' -f1 /proc/uptime)
sections=("[cgroup $vname]" "interval = 1s" "reclaim_ratio = 0.2"
	"psi_threshold = 50%")
[ $takes = 1 ] && sections+=("[cgroup $fname]" "interval = 1s"
	"reclaim_ratio = 0.1" "psi_threshold = 50%" "reclaim_swappiness = 0")
mdkd_conf "$conf" "${sections[@]}"
if mdkd_start "$conf" && mdkctl_ status | grep -q "^$vname "; then
	ktap_pass "64 MiB of swap ($(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo) kB); mdkd starts and manages the cgroup"
else
	ktap_bail "64 MiB of swap; mdkd starts and manages the cgroup"
fi

# mdkd's probe, its log and --check-config say what the kernel does.
mdkd_conf "$MDK_TMP/check.conf" "[cgroup $vname]" "reclaim_swappiness = 0"
"$MDKD" --check-config -c "$MDK_TMP/check.conf" >"$MDK_TMP/check.txt" 2>&1
sed 's/^/# check-config: /' "$MDK_TMP/check.txt"
grep 'swappiness=' "$MDKD_LOG" | sed 's/^/# log: /'
probe_agrees() {
	if [ $takes = 1 ]; then
		grep -q 'memory.reclaim takes swappiness=' "$MDKD_LOG" &&
			! grep -q 'note:' "$MDK_TMP/check.txt" &&
			[ "$(jq "l['reclaim_swappiness_supported']")" = True ]
	else
		grep -q 'memory.reclaim does not take swappiness=' "$MDKD_LOG" &&
			grep -q 'note: reclaim_swappiness is set, but memory.reclaim of this kernel does not take swappiness=' \
				"$MDK_TMP/check.txt" &&
			[ "$(jq "l['reclaim_swappiness_supported']")" = False ]
	fi
}
ktap_ok "mdkd's probe, its log and --check-config agree with the kernel (swappiness= taken: $takes)" probe_agrees

# Swap used until the valve closes (90 s at most), then 8 s more.
valve() { # the valve's state, from the text status (no python: fast)
	mdkctl_ status 2>/dev/null | sed -n 's/^swap valve: \([^:]*\): .*/\1/p'
}
max_kb=0
closed_s=
deadline=$(($(now_s) + 90))
while [ "$(now_s)" -lt "$deadline" ]; do
	u=$(swap_used_kb)
	[ "$u" -gt "$max_kb" ] && max_kb=$u
	if [ -z "$closed_s" ] && [ "$(valve)" = "closed (swap-full)" ]; then
		closed_s=$(cut -d' ' -f1 /proc/uptime)
		deadline=$(($(now_s) + 8))
		req0=$(jq "v['totals']['reclaim_requests']")
		fo0=$(jq "v['limits']['file_only_decisions']")
	fi
	sleep 0.2
done
total_kb=$(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo)
ktap_diag "swap used at most $((max_kb >> 10)) MiB of $((total_kb >> 10)) MiB ($(awk -v u="$max_kb" -v t="$total_kb" 'BEGIN { printf "%.1f", 100 * u / t }')%); valve closed $(awk -v a="$start_s" -v b="$closed_s" 'BEGIN { if (b == "") print "never"; else printf "%.1f s after mdkd started", b - a }')"
grep -E 'swap-backed reclaim (stops|resumes)' "$MDKD_LOG" | head -n 3 | sed 's/^/# log: /'
[ -n "$closed_s" ]
ktap_check "the valve closes (swap-full) before swap is full"

mdkctl_ status >"$MDK_TMP/status.txt"
sed 's/^/# /' "$MDK_TMP/status.txt"
names_reason() {
	local want=swap-full jwant="v['limits']['held']"
	[ $takes = 1 ] && want=file-only jwant="v['limits']['file_only'] and 'file-only'"
	grep -q '^swap valve: closed (swap-full): ' "$MDK_TMP/status.txt" &&
		grep -q "^$vname .* $want *\$" "$MDK_TMP/status.txt" &&
		[ "$(jq "l['swap_valve']")" = swap-full ] &&
		[ "$(jq "$jwant")" = "$want" ]
}
ktap_ok "mdkctl status, text and JSON, names the reason (swap-full; the cgroup: $([ $takes = 1 ] && echo file-only || echo held))" names_reason

# Closed: without swappiness= no request at all, with it file-only ones.
req1=$(jq "v['totals']['reclaim_requests']")
fo1=$(jq "v['limits']['file_only_decisions']")
ktap_diag "while closed: reclaim requests $req0 -> $req1, file-only decisions $fo0 -> $fo1"
if [ $takes = 1 ]; then
	[ "$fo1" -gt "$fo0" ] && [ "$((req1 - req0))" -ge "$((fo1 - fo0))" ]
else
	[ "$req1" = "$req0" ] && [ "$fo1" = 0 ]
fi
ktap_check "while closed, reclaim $([ $takes = 1 ] && echo goes on with file pages only || echo stops)"

no_oom() {
	[ "$(cg_event "$vcg" oom_kill)" = 0 ] && kill -0 "$WL1_PID" &&
		kill -0 "$WL2_PID"
}
ktap_ok "nothing was OOM-killed" no_oom

# reclaim_swappiness = 0: file pages go, anonymous memory stays.
file_only() {
	local anon file swap
	anon=$(stat_kb "$fcg" anon)
	file=$(stat_kb "$fcg" file)
	swap=$(($(cat "$fcg/memory.swap.current") >> 10))
	ktap_diag "reclaim_swappiness = 0: anon $fanon0 -> $anon kB, file $ffile0 -> $file kB, swap $swap kB"
	[ "$swap" -lt 1024 ] && [ $((fanon0 - anon)) -lt 1024 ] &&
		[ "$file" -lt $((ffile0 / 2)) ]
}
if [ $takes = 1 ]; then
	ktap_ok "with reclaim_swappiness = 0 only file pages are reclaimed" file_only
else
	ktap_skip "with reclaim_swappiness = 0 only file pages are reclaimed: the kernel does not take swappiness="
fi

# One workload exits: its swap is freed, the valve opens, reclaim resumes.
kill -9 "$WL2_PID"
wait "$WL2_PID" 2>/dev/null
WL2_PID=
low_kb=$(swap_used_kb)
req2=$(jq "v['totals']['reclaim_requests']")
opened=0
deadline=$(($(now_s) + 60))
while [ "$(now_s)" -lt "$deadline" ]; do
	[ "$(valve)" = open ] && opened=1
	u=$(swap_used_kb)
	[ "$u" -lt "$low_kb" ] && low_kb=$u
	[ $opened = 1 ] && [ "$u" -ge $((low_kb + 8192)) ] && break
	sleep 0.2
done
req3=$(jq "v['totals']['reclaim_requests']")
ktap_diag "after the exit: swap $((low_kb >> 10)) -> $((u >> 10)) MiB, reclaim requests $req2 -> $req3"
[ $opened = 1 ] && [ "$u" -ge $((low_kb + 8192)) ] && [ "$req3" -gt "$req2" ]
ktap_check "once swap is freed the valve opens and swap-backed reclaim resumes"

# Over all of it, at swap_max_used = 80%: the trace's highest, and each
# request with the swap used after it.
kill "$TRACE_PID"
TRACE_PID=
top_kb=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$MDK_TMP/swap.trace")
awk '$2 != last { printf "%s:%d ", $1, $2 / 1024; last = $2 }
	END { print "" }' "$MDK_TMP/swap.trace" | fold -w 76 -s |
	sed 's/^/# swap MiB over time: /'
awk -F, 'NR == 1 || $8 > 0 { print $1, $4, $7, $8, $9 }' "$MDKD_REC" |
	head -n 30 | sed 's/^/# record: /'
ktap_diag "whole run at ${LIMIT}%: swap used at most $((top_kb >> 10)) MiB; overshoot learnt $(jq "round(l['swap_overshoot'], 2)")"
ktap_ok "swap used never went past ${LIMIT}% + ${MARGIN}, closing and reopening" \
	awk -v u="$top_kb" -v t="$total_kb" -v m=$((LIMIT + MARGIN)) \
	'BEGIN { exit !(100 * u <= m * t) }'
# swapout_max_rate: 2 MiB/s of reclaim against a 256 KiB/s limit.
mdkd_conf "$conf" "swap_max_used = 100%" "swapout_max_rate = 256k" \
	"[cgroup $vname]" "interval = 1s" "reclaim_ratio = 0.2" \
	"psi_threshold = 50%" "max_rate = 2M" "backoff_max = 0"
kill -HUP "$MDKD_PID"
# Closed, it opens again a reading after the swap-out stops: poll often.
rate_closed=0
for _ in $(seq 300); do
	mdkctl_ status >"$MDK_TMP/status.txt"
	if grep -q '^swap valve: closed (swapout-rate)' "$MDK_TMP/status.txt"; then
		rate_closed=1
		break
	fi
	sleep 0.05
done
grep '^swap valve' "$MDK_TMP/status.txt" | sed 's/^/# /'
[ $rate_closed = 1 ] &&
	grep -q '^swap valve: closed (swapout-rate): .*(max 256.0K/s)' "$MDK_TMP/status.txt"
ktap_check "a low swapout_max_rate closes the valve (swapout-rate)"

mdkd_stop
ret=$?
data_ok() {
	[ $ret -eq 0 ] && workload_stop
}
ktap_ok "mdkd exits 0; the remaining workload reads back all its data" data_ok
kill "$FWL_PID" 2>/dev/null
ktap_finish
