#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd's tier goals with cmm_mp's node (a 128 MiB segment
# online).  DRAM (node 0) is filled by an unmanaged filler and three
# policy-mode cgroups of backend cxl, windows of 2 s, whose own policy
# (age:T=60) picks nothing within the test: A holds 1 MiB cold, 1 MiB hot
# and 24 MiB of a warm set, idle until it is signalled, B and C, filled
# two windows later (younger), 40 MiB cold and 4 MiB hot each.
# dram_free_min is set (SIGHUP) 32 MiB above node 0's free memory: within
# a few windows MemFree of node 0 is within 5% of the goal and stays
# there.  Then a goal beyond what the cold pages
# hold: node 1 fills to tier_used_max and stops there (status tiers.held
# tier-full); node 1's use never exceeds the cap (sampled every 0.5 s
# throughout).  Then the goal back, the warm set read every 2 s and the
# filler gone: the pages promoted back are the warm set's (A's node-1
# pages come back, none of B's or C's cold ones, whose cgroups promote
# nothing).  A goal out of range is refused with file:line, the status
# and the Prometheus file show the goals, and the data survives.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=40
HOT=4
WARM=24
FILL=96
NEED=32 # MiB the first goal asks for

require_root
require_file "$MDKD"
require_file "$MDKD_WORKLOAD"
require_file "$CMM_MP_KO"
command -v python3 >/dev/null || ksft_skip "python3 not installed"
[ -n "${MDK_POOL_BASE:-}" ] || ksft_skip "no CMM-MP pool (tests/vm/run -p)"

CMM_MP_SYS=/sys/kernel/cmm_mp
kmod_loaded=
wl_pids=()
declare -A pid
tiers_cleanup() {
	local p
	for p in "${wl_pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	mdkd_cleanup
	if [ -n "$kmod_loaded" ] && [ -d /sys/module/cmm_mp ]; then
		"$MDKCTL" pool offline all >/dev/null 2>&1
		rmmod cmm_mp
	fi
}
trap tiers_cleanup EXIT

# node_kb N FIELD: FIELD (MemTotal, MemFree) of node N's meminfo, in kB.
node_kb() {
	local f v
	while read -r _ _ f v _; do
		[ "$f" = "$2:" ] && echo "$v" && return
	done <"/sys/devices/system/node/node$1/meminfo"
}

# n1_pages PID: the process's pages on node 1 (numa_maps).
n1_pages() {
	awk '{ for (i = 2; i <= NF; i++) if (index($i, "N1=") == 1)
		s += substr($i, 4) } END { print s + 0 }' "/proc/$1/numa_maps"
}

# tiers_py EXPR: EXPR (python) over the daemon's "tiers" object t.
tiers_py() {
	mdkctl_ status -j 2>/dev/null | python3 -c "
import json, sys
t = json.load(sys.stdin)['daemon']['tiers']
print($1)" 2>/dev/null
}

# back_pages CGROUP: the pages policy mode promoted back in CGROUP.
back_pages() {
	local name=$1
	status_py "p['totals']['back_pages']"
}

# sample: node 0's free and node 1's use (kB), the worst use so far.
max_used1=0
sample() {
	free0=$(node_kb 0 MemFree)
	used1=$(($(node_kb 1 MemTotal) - $(node_kb 1 MemFree)))
	[ "$used1" -gt "$max_used1" ] && max_used1=$used1
}

conf() {
	local goal=$1 c
	local lines=("dram_free_min = $goal%" "tier_used_max = $cap_pct%"
		"prometheus_file = $MDK_TMP/mdkd.prom")
	for c in a b c; do
		lines+=("[cgroup mdk-test-tiers-$c-$$]" "mode = policy"
			"backend = cxl" "window = 2s" "horizon = 64"
			"policy = age:T=60" "auto_tune = off"
			"psi_threshold = 20%")
	done
	mdkd_conf "$MDK_TMP/tiers.conf" "${lines[@]}"
}

ktap_plan 8
t0=$SECONDS
if ! insmod "$CMM_MP_KO"; then
	ktap_bail "insmod cmm_mp failed"
fi
kmod_loaded=1
"$MDKCTL" pool online 0 >/dev/null
node=$(cat $CMM_MP_SYS/node)
[ "$node" = 1 ] || ktap_bail "the CMM-MP node is $node, not 1"
total1=$(node_kb 1 MemTotal)
base1=$(($(node_kb 1 MemTotal) - $(node_kb 1 MemFree)))
# The cap: 80 MiB above what node 1 uses now (the first goal needs 32,
# plus what else takes DRAM meanwhile).
cap_kb=$((base1 + 80 * 1024))
cap_pct=$(python3 -c "print('%.3f' % (100.0 * $cap_kb / $total1))")
cap_kb=$(python3 -c "print(int($cap_pct / 100 * $total1))")

fill_cg=$(cg_new mdk-test-tiers-fill-$$) || ktap_bail "cgroup"
workload_start "$fill_cg" $FILL 1 || ktap_bail "the filler did not start"
wl_pids+=("$WL_PID")
fill_pid=$WL_PID
for c in a b c; do
	cg_new mdk-test-tiers-$c-$$ >/dev/null || ktap_bail "cgroup"
done
WL_ARGS="--warm $WARM --warm-after 100000 --warm-every 2" \
	workload_start /sys/fs/cgroup/mdk-test-tiers-a-$$ 1 1 ||
	ktap_bail "workload a did not start"
wl_pids+=("$WL_PID")
pid[a]=$WL_PID
WL_PID=
ktap_diag "filler and A filled after $((SECONDS - t0)) s; node 1: $total1 kB, $base1 kB used, cap $cap_pct% = $cap_kb kB"

# Out of range: refused with file:line.
printf '[global]\ndram_free_min = 99%%\n' >"$MDK_TMP/bad.conf"
out=$("$MDKD" --check-config -c "$MDK_TMP/bad.conf" 2>&1)
rc=$?
printf '[global]\ntier_used_max = 0%%\n' >"$MDK_TMP/bad2.conf"
out2=$("$MDKD" --check-config -c "$MDK_TMP/bad2.conf" 2>&1)
rc2=$?
ktap_diag "$out / $out2"
[ $rc -ne 0 ] && [[ $out == *"bad.conf:2: dram_free_min: expected a percentage from 0% to 95%"* ]] &&
	[ $rc2 -ne 0 ] && [[ $out2 == *"bad2.conf:2: tier_used_max: expected a percentage from 1% to 100%"* ]]
ktap_check "dram_free_min 99% and tier_used_max 0% are refused with file:line"

# The goal off for two windows: mdkd's own memory is in before the goal.
conf 0
if ! mdkd_start "$MDK_TMP/tiers.conf"; then
	ktap_bail "mdkd did not start"
fi
# shellcheck disable=SC2034 # status_py's cgroup
name=mdk-test-tiers-a-$$
for _ in $(seq 100); do
	[ "$(status_py "p.get('totals', {}).get('windows', 0)")" -ge 2 ] && break
	sleep 0.5
done
# B and C fill once A's pages are two windows old: A's are the coldest.
for c in b c; do
	workload_start /sys/fs/cgroup/mdk-test-tiers-$c-$$ $COLD $HOT ||
		ktap_bail "workload $c did not start"
	wl_pids+=("$WL_PID")
	pid[$c]=$WL_PID
done
WL_PID=
sleep 2 # a window: B's and C's pages met
n=$(mdkctl_ status | grep -c "^mdk-test-tiers-[abc]-$$ ")
[ "$n" = 3 ]
ktap_check "mdkd manages the three cgroups (policy, backend cxl, node $node)"

sample
total0=$(node_kb 0 MemTotal)
goal_kb=$((free0 + NEED * 1024))
goal_pct=$(python3 -c "print('%.3f' % (100.0 * $goal_kb / $total0))")
goal_kb=$(python3 -c "print(int($goal_pct / 100 * $total0))")
w0=$(status_py "p['totals']['windows']")
ktap_diag "node 0: $total0 kB, $free0 kB free; goal $goal_pct% = $goal_kb kB"
conf "$goal_pct"
kill -HUP "$MDKD_PID"
tol=$((goal_kb / 20))
ok=
for _ in $(seq 80); do
	sample
	d=$((free0 - goal_kb))
	[ ${d#-} -le $tol ] && ok=1 && break
	sleep 0.5
done
w1=$(status_py "p['totals']['windows']")
ktap_diag "after $((w1 - w0)) windows: node 0 free $free0 kB, goal $goal_kb kB ($(((free0 - goal_kb) * 1000 / goal_kb))/1000 off); node 1 used $used1 kB"
[ -n "$ok" ]
ktap_check "node 0's free memory reaches the goal within 5% ($((w1 - w0)) windows)"
worst=0
for _ in $(seq 12); do # 3 windows more
	sample
	d=$((free0 - goal_kb))
	[ ${d#-} -gt ${worst#-} ] && worst=$d
	sleep 0.5
done
w2=$(status_py "p['totals']['windows']")
ktap_diag "over windows $((w1 - w0))..$((w2 - w0)): worst $worst kB off the goal ($((worst * 1000 / goal_kb))/1000); tiers: $(tiers_py "t['need_bytes'], t['threshold_age'], t['demoted_bytes'] >> 10, t['goal_picked_bytes'] >> 10")"
[ ${worst#-} -le $tol ]
ktap_check "and holds there 3 windows later (worst $worst kB off)"

# A goal beyond the cold pages: node 1 fills to the cap and stops.
conf "$(python3 -c "print('%.3f' % min(95, $goal_pct + 100.0 * 200 * 1024 / $total0))")"
kill -HUP "$MDKD_PID"
held=
for _ in $(seq 60); do
	sample
	held=$(tiers_py "t['held']")
	[ "$held" = tier-full ] && break
	sleep 0.5
done
for _ in $(seq 8); do # two windows at the cap
	sample
	sleep 0.5
done
reason=$(status_py "c['last']['reason']")
tiers_line=$(mdkctl_ status | grep '^tiers: ')
ktap_diag "$tiers_line"
ktap_diag "node 1: max used $max_used1 kB of the cap $cap_kb kB ($((max_used1 * 1000 / cap_kb))/1000); held $held, last reason $reason; tier_full $(tiers_py "t['tier_full']")"
[ "$held" = tier-full ] && [ "$reason" = tier-full ] && [ "$max_used1" -le "$cap_kb" ] &&
	[[ $tiers_line == *"held: tier-full"* ]] &&
	[ "$max_used1" -ge $((cap_kb - 8 * 1024)) ]
ktap_check "node 1 fills to tier_used_max and never beyond it (status -j and text: tier-full, the cgroup's reason too)"

prom=$(grep -E "^mdkd_(tier|dram)_" "$MDK_TMP/mdkd.prom" | tr '\n' ' ')
ktap_diag "$prom"
[[ $prom == *"mdkd_tier_full 1"* ]] && [[ $prom == *"mdkd_dram_free_min_ratio 0."* ]] &&
	[[ $prom == *mdkd_tier_used_ratio* ]] && [[ $prom == *mdkd_tier_demoted_bytes_total* ]]
ktap_check "the Prometheus file has the tier goals (mdkd_tier_full 1)"

# The goal back, the warm set read again, the filler gone: DRAM has room.
conf "$goal_pct"
kill -HUP "$MDKD_PID"
a1=$(n1_pages "${pid[a]}")
b1=$(($(n1_pages "${pid[b]}") + $(n1_pages "${pid[c]}")))
kill -USR1 "${pid[a]}"
kill -TERM "$fill_pid"
wait "$fill_pid"
for _ in $(seq 60); do
	sample
	[ "$(n1_pages "${pid[a]}")" -le 320 ] && break
	sleep 0.5
done
sleep 4
a2=$(n1_pages "${pid[a]}")
b2=$(($(n1_pages "${pid[b]}") + $(n1_pages "${pid[c]}")))
ba=$(back_pages mdk-test-tiers-a-$$)
bb=$(back_pages mdk-test-tiers-b-$$)
bc=$(back_pages mdk-test-tiers-c-$$)
ktap_diag "A (warm set): $a1 -> $a2 pages on node 1, $ba promoted; B and C (cold): $b1 -> $b2 on node 1, $bb and $bc promoted; tiers: $(tiers_py "t['promoted_bytes'] >> 12, t['promote_cut']")"
[ "$a1" -ge 1024 ] && [ "$a2" -le 320 ] && [ "${ba:-0}" -ge $(((a1 - 320) * 9 / 10)) ] &&
	[ $((${bb:-9} + ${bc:-9})) -le 8 ] && [ "$b2" -ge $((b1 * 99 / 100)) ]
# B's and C's processes may touch a few pages of their own (stack, the
# report) that the goal demoted as idle; their cold sets stay.
ktap_check "the pages promoted back are the warm set's, read again; no cold page comes back (B and C: 8 pages at most)"

rc=0
for c in a b c; do
	kill -TERM "${pid[$c]}"
	wait "${pid[$c]}" || rc=1
done
wl_pids=()
mdkd_stop
[ $rc -eq 0 ]
ktap_check "the workloads' data is intact (exit 0)"
ktap_diag "mdkd_tiers took $((SECONDS - t0)) s"
ktap_finish
