#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd's policy mode with backend auto over cmm_mp's node (a
# segment online), zswap on and the swap device.  The workload (pages
# that compress, so that zswap takes them unless told not to) keeps 4 MiB
# hot, reads a 4 MiB warm set every 12 s (six 2 s windows) and grows a
# cold set by 1 MiB every window, never read again: cold memory of every
# age.  The tier list is given in the cgroup's tiers key (so no
# calibration): the node cheap to come back from (2 us a page) but
# capped at 2048 pages, zswap dear (50 us).  Within target_stall (1%) the
# warm set may go to the node (1024 pages x 2 us = 0.1% of a window) but
# not to zswap (2.5%), and the node cannot hold the growing set: it goes
# on to zswap, or to swap past zswap where the kernel has
# memory.zswap.max (Linux 5.19 on; swap is left out before).  Checked:
# the list; the growing set lands in zswap or swap (Swap of the
# workload); past zswap, the swap device takes the swap tier's pages and
# memory.zswap.max is put back, no journal entry left; the node holds pages, never
# more than the cap nor beyond tier_used_max; the warm set comes back,
# moved to DRAM and counted as the node's; the measured stall is the
# returned pages at their tiers' costs, reported beside the predicted
# one, within the target, and in the Prometheus file per tier; the hot
# set stays; the data survives.  Then,
# without the tiers key, the tiers come from the host's tier_file, zswap
# saving 1 - 1/ratio of the cgroup's measured compression ratio.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=1
WARM=4
HOT=4
GROW=64
CAP=2048 # pages the tier list lets the node hold for the cgroup
WAIT_S=200 # seconds for all of it; generous for TCG

mdkd_require 128
require_file "$CMM_MP_KO"
command -v python3 >/dev/null || ksft_skip "python3 not installed"
[ -n "${MDK_POOL_BASE:-}" ] || ksft_skip "no CMM-MP pool (tests/vm/run -p)"
ZSWAP=/sys/module/zswap/parameters/enabled
[ -w "$ZSWAP" ] || ksft_skip "no zswap in this kernel"

kmod_loaded=
zswap_was=$(cat "$ZSWAP")
auto_cleanup() {
	mdkd_cleanup
	echo "$zswap_was" >"$ZSWAP"
	if [ -n "$kmod_loaded" ] && [ -d /sys/module/cmm_mp ]; then
		"$MDKCTL" pool offline all >/dev/null 2>&1
		rmmod cmm_mp
	fi
}
trap auto_cleanup EXIT

# node_pages N: the workload's pages on node N (numa_maps).
node_pages() {
	awk -v n="N$1=" '{ for (i = 2; i <= NF; i++)
		if (index($i, n) == 1) s += substr($i, length(n) + 1) }
		END { print s + 0 }' "/proc/$WL_PID/numa_maps"
}

# node_kb N FIELD: FIELD (MemTotal, MemFree) of node N's meminfo, in kB.
node_kb() {
	local f v
	while read -r _ _ f v _; do
		[ "$f" = "$2:" ] && echo "$v" && return
	done <"/sys/devices/system/node/node$1/meminfo"
}

# auto_py EXPR: EXPR (python) over the cgroup's "auto" object a, and its
# tiers by name, t.
auto_py() {
	status_py "(lambda a: (lambda t: ($1))({x['name']: x for x in a['per_tier']}))(p['auto'])"
}

ktap_plan 10
t0=$SECONDS
insmod "$CMM_MP_KO" || ktap_bail "insmod cmm_mp failed"
kmod_loaded=1
"$MDKCTL" pool online 0 >/dev/null || ktap_bail "no pool segment online"
node=$(cat /sys/kernel/cmm_mp/node)
echo 1 >"$ZSWAP"

total1=$(node_kb "$node" MemTotal)
cap_kb=$((total1 * 9 / 10)) # tier_used_max's default, 90%

# shellcheck disable=SC2034 # status_py's cgroup
name=mdk-test-mdkd-auto-$$
cg=$(cg_new "$name") || ktap_bail "cgroup"
WL_ARGS="--warm $WARM --warm-after 12 --warm-every 12 --grow $GROW --grow-every 2 --compressible" \
	workload_start "$cg" $COLD $HOT 900 || ktap_bail "the workload did not start"
tiers="cxl:cost=2us,cap=$CAP;zswap:cost=50us,ratio=3;swap:cost=80us"
mdkd_conf "$MDK_TMP/auto.conf" "prometheus_file = $MDK_TMP/mdkd.prom" \
	"[cgroup $name]" "mode = policy" \
	"backend = auto" "tiers = $tiers" "target_stall = 1%" \
	"window = 2s" "horizon = 30" "warmup = 10" "psi_threshold = 20%"
mdkd_start "$MDK_TMP/auto.conf" || ktap_bail "mdkd did not start"

# The list restricted to what exists: swap past zswap where the cgroup
# has memory.zswap.max, else left out while zswap is on.
for _ in $(seq 100); do
	[ -n "$(auto_py "a['tiers']")" ] && break
	sleep 0.5
done
list=$(auto_py "a['tiers']")
left=$(auto_py "a['left_out']")
ktap_diag "tiers: $list; $left"
zmax=
[ -f "$cg/memory.zswap.max" ] && zmax=$(cat "$cg/memory.zswap.max")
pswpout0=$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)
if [ -n "$zmax" ]; then
	[[ $list == "cxl:cost=2000ns,"*";zswap:cost=50000ns,"*";swap:cost=80000ns,"* ]] &&
		[ "$left" = "" ]
	ktap_check "the cgroup's tiers: cxl, zswap and swap past zswap (memory.zswap.max $zmax)"
else
	[[ $list == "cxl:cost=2000ns,"*";zswap:cost=50000ns,"* ]] && [[ $list != *swap:cost=80* ]] &&
		[[ $left == *"swap: zswap is on and the cgroup has no memory.zswap.max"* ]] &&
		grep -q "backend auto: left out: swap" "$MDKD_LOG"
	ktap_check "the cgroup's tiers: cxl and zswap; swap left out, zswap on and no memory.zswap.max (logged)"
fi

# Until the growing set is in zswap and the warm set came back from the
# node; node 1's use sampled throughout.
max_n1=0 max_used1=0 full=0 zmoved=0 back=0 i=0
while [ $((SECONDS - t0)) -lt $WAIT_S ]; do
	n1=$(node_pages "$node")
	[ "$n1" -gt "$max_n1" ] && max_n1=$n1
	used1=$((total1 - $(node_kb "$node" MemFree)))
	[ "$used1" -gt "$max_used1" ] && max_used1=$used1
	read -r zmoved smoved back closed win setting_now < <(auto_py "t['zswap']['total']['moved'], t['swap']['total']['moved'] if 'swap' in t else 0, t['cxl']['total']['returned'], t['cxl']['closed'], p['totals']['windows'], a['setting']" | tr -d "(),'")
	[ "$closed" = tier-full ] && full=$((full + 1))
	i=$((i + 1))
	[ $((i % 10)) -eq 1 ] &&
		ktap_diag "$((SECONDS - t0)) s, window $win: $setting_now; node $n1 pages, $used1 kB used; zswap moved $zmoved, swap $smoved; cxl returned $back, $closed"
	[ $((${zmoved:-0} + ${smoved:-0})) -ge 2048 ] && [ "${back:-0}" -ge 512 ] && break
	sleep 1
done
swap=$(smaps_kb Swap)
setting=$(auto_py "a['setting']")
ktap_diag "after $((SECONDS - t0)) s: setting $setting; Swap $swap kB; node $node: max $max_n1 pages of the workload, max $max_used1 kB used of $cap_kb"
ktap_diag "per tier: $(auto_py "[(k, v['wait'], v['pages'], v['closed'], v['total']) for k, v in t.items()]")"
[ -n "$setting" ] && [ "$setting" != None ] && [ $((${zmoved:-0} + ${smoved:-0})) -ge 2048 ] &&
	[ "${swap:-0}" -ge 8192 ]
ktap_check "auto-tune runs a tiered AGE setting and the growing set lands in zswap or swap"

if [ -n "$zmax" ]; then
	# A page-out past zswap writes a page to the device: the page, or
	# one of the cgroup's compressed pages (Linux 6.8 on); not a page
	# swapped in and clean in the swap cache, which is freed as it is.
	# Without memory.zswap.max at 0, zswap keeps these compressible
	# pages and nothing reaches the device.
	pswp=$(($(awk '$1 == "pswpout" { print $2 }' /proc/vmstat) - pswpout0))
	now=$(cat "$cg/memory.zswap.max")
	nj=$(find "$MDK_TMP/state/zswap-off" -type f 2>/dev/null | wc -l)
	# The kernel's count of compressed pages written back (6.8 on).
	wb=$(status_py "p['tiers']['zswap_writebacks']")
	kwb=$(awk '$1 == "zswpwb" { print $2 }' "$cg/memory.stat")
	ktap_diag "swap tier: $smoved pages paged out past zswap; pswpout +$pswp; zswap writebacks $wb (memory.stat ${kwb:-none}); memory.zswap.max $now (was $zmax); $nj journal entries"
	[ "${smoved:-0}" -ge 1024 ] && [ "$pswp" -ge 1024 ] && [ "$now" = "$zmax" ] &&
		[ "$nj" -eq 0 ] && { { [ -z "$kwb" ] && [ "$wb" = None ]; } ||
		{ [ -n "$kwb" ] && [[ $wb =~ ^[0-9]+$ ]]; }; }
	ktap_check "past zswap: the swap device takes the swap tier's pages; memory.zswap.max put back; zswap writebacks in the status"
else
	ktap_skip "past zswap: no memory.zswap.max in this kernel"
fi

moved=$(auto_py "t['cxl']['total']['moved']")
held=$(auto_py "t['cxl']['total']['held']")
ktap_diag "cxl: $moved moved, $held held, tier-full in $full samples; numa_stat: $(grep -E '^(anon|file|swapcached) ' "$cg/memory.numa_stat" 2>/dev/null | tr '\n' ' ')"
# The warm set passes through the node, on to swap when idle T3 windows:
# half of it (512 pages) seen there at once is enough.
[ "${moved:-0}" -ge 1024 ] && [ "$max_n1" -ge 512 ] && [ "$max_n1" -le $CAP ] &&
	[ "$max_used1" -le "$cap_kb" ]
ktap_check "pages land on the node, never more than the list's cap ($max_n1 <= $CAP) nor beyond tier_used_max"

bd=$(status_py "p['totals']['back_pages']")
ktap_diag "warm set back from the node: $back acted promotions, $bd moved back to DRAM"
[ "${back:-0}" -ge 512 ] && [ "${bd:-0}" -ge 512 ]
ktap_check "the warm set comes back from the node, moved to DRAM and counted as the node's"

report=$(auto_py "(a['stall_ns'], a['stall_share'], a['max_stall_share'], a['total_stall_ns'], a['predicted']['max_stall'], a['predicted']['mean_stall'], a['target_stall'])")
ktap_diag "stall (window ns, share, max share, total ns; predicted max, mean; target): $report"
sum=$(auto_py "sum(v['total']['returned'] * v['cost_ns'] for v in t.values()) == a['total_stall_ns'] > 0")
pred=$(auto_py "a['predicted']['max_stall'] <= a['target_stall']")
[ "$sum" = True ] && [ "$pred" = True ]
ktap_check "the measured stall (promotions x their tiers' costs) is reported beside the predicted one, within the target"

prom=$(grep -E "^mdkd_auto_" "$MDK_TMP/mdkd.prom" | tr '\n' ' ')
ktap_diag "$prom"
grep -qE "^mdkd_auto_moved_pages_total\{cgroup=\"$name\",tier=\"cxl\"\} [1-9]" "$MDK_TMP/mdkd.prom" &&
	grep -qE "^mdkd_auto_returned_pages_total\{cgroup=\"$name\",tier=\"cxl\"\} [1-9]" "$MDK_TMP/mdkd.prom" &&
	grep -qE "^mdkd_auto_moved_pages_total\{cgroup=\"$name\",tier=\"(zswap|swap)\"\} [1-9]" "$MDK_TMP/mdkd.prom" &&
	grep -qE "^mdkd_auto_stall_seconds_total\{cgroup=\"$name\"\} [0-9.e-]+$" "$MDK_TMP/mdkd.prom"
ktap_check "the Prometheus file counts moves and promotions per tier and the stall"

rss=$(smaps_kb Rss)
ktap_diag "Rss $rss kB (hot set $HOT MiB)"
[ "${rss:-0}" -ge $((HOT * 1024)) ]
ktap_check "the hot set stays resident"

# The report, for the record.
mdkctl_ status -j "$name" | python3 -c "
import json, sys
print(json.dumps(json.load(sys.stdin)['cgroups'][0]['policy']['auto'], indent=1))" |
	while IFS= read -r l; do ktap_diag "$l"; done

# Without the tiers key: the host's tier file, zswap saving what the
# cgroup's pages compress to (or left out until that is known).
printf 'cxl:cost=3us,cap=%s\nzswap:cost=60us\nswap:cost=90us\n' $CAP >"$MDK_TMP/tiers"
mdkd_conf "$MDK_TMP/auto.conf" "tier_file = $MDK_TMP/tiers" "[cgroup $name]" \
	"mode = policy" "backend = auto" "target_stall = 1%" \
	"window = 2s" "horizon = 30" "warmup = 10" "psi_threshold = 20%"
kill -HUP "$MDKD_PID"
for _ in $(seq 30); do
	[[ $(auto_py "a['tiers']") == cxl:cost=3000ns* ]] && break
	sleep 1
done
# The list and the cgroup's ratio, read together until the status shows
# the ratio the list was made with (a status read may refresh the ratio
# a window after the list's).
ok=1
for _ in $(seq 20); do
	{
		read -r ratio
		IFS= read -r host
	} < <(auto_py "'%s\\n%s %s' % (p['tiers']['ratio'], a['tiers'], a['left_out'])")
	exp=
	[ "$ratio" != None ] &&
		exp=$(python3 -c "print('zswap:cost=60000ns,save=%.6f' % (1 - 1 / $ratio))")
	[[ $host == *"cxl:cost=3000ns,save=1.000000,cap=$CAP"* ]] &&
		{ { [ -n "$exp" ] && [[ $host == *"$exp"* ]]; } ||
			{ [ -z "$exp" ] && [[ $host == *"zswap: the cgroup's compression ratio is not known yet"* ]]; }; } &&
		ok=0 && break
	sleep 0.5
done
ktap_diag "from the tier file: $host; the cgroup's ratio $ratio"
[ $ok -eq 0 ]
ktap_check "without the tiers key: the host's tier file, zswap saving 1 - 1/ratio of the cgroup's pages"

workload_stop
rc=$?
mdkd_stop
ktap_diag "mdkd_auto took $((SECONDS - t0)) s"
[ $rc -eq 0 ]
ktap_check "the workload's data is intact (exit 0)"
ktap_finish
