#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd's policy mode moves a workload's cold pages and leaves
# its hot ones: 24 MiB cold and 8 MiB hot in a real cgroup, windows of 2 s.
# With AGE T=2 and backend swap, the cold set goes to swap
# (process_madvise MADV_PAGEOUT: the process's Swap grows to the cold set)
# while the hot set stays resident (Rss at least the hot set, no swap-in
# counted by the sampler); drop_swap_cache, on by default, frees the swap
# cache the page-outs left (anon pages only where memory.reclaim takes
# swappiness=); and the data survives.  With backend cxl
# (cmm_mp.ko, a segment online) and auto-tune on, a setting is chosen
# after the warm-up and the cold pages land on the CMM-MP node (numa_maps)
# while the hot ones stay on node 0.  mdkctl mpc --live prints the live
# curves (human, CSV) with the running setting, the OPP headroom and the
# measured rate, and plots them.  The workload fills its sets before mdkd
# starts (swap) or after the first window (cxl): memory idle since before
# the sampler met its process is moved too.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=24
HOT=8
WAIT_S=60 # per phase, generous for TCG

mdkd_require 128
command -v python3 >/dev/null || ksft_skip "python3 not installed"

CMM_MP_SYS=/sys/kernel/cmm_mp
kmod_loaded=
policy_cleanup() {
	mdkd_cleanup
	if [ -n "$kmod_loaded" ] && [ -d /sys/module/cmm_mp ]; then
		"$MDKCTL" pool offline all >/dev/null 2>&1
		rmmod cmm_mp
	fi
}
trap policy_cleanup EXIT

# node_pages N: the workload's anonymous pages on node N (numa_maps).
node_pages() {
	awk -v n="N$1=" '{ for (i = 2; i <= NF; i++)
		if (index($i, n) == 1) s += substr($i, length(n) + 1) }
		END { print s + 0 }' "/proc/$WL_PID/numa_maps"
}

# phase NAME WHEN LINES...: a fresh cgroup and mdkd managing it in policy
# mode, the workload started in it before mdkd (WHEN "before") or once a
# window has ended ("after").  Either way its fill is older than the
# window in which the sampler meets it -- the first one, or (the workload
# moves itself in, then execs) a later one -- and is never touched again:
# it is seen only because the sampler reports a met process's resident
# pages.
phase() {
	local tag=$1 when=$2 i
	shift 2
	name=mdk-test-mdkd-policy-$tag-$$
	cg=$(cg_new "$name") || return 1
	if [ "$when" = before ]; then
		workload_start "$cg" $COLD $HOT || return 1
	fi
	mdkd_conf "$MDK_TMP/$tag.conf" "[cgroup $name]" "mode = policy" \
		"window = 2s" "horizon = 30" "psi_threshold = 20%" "$@"
	mdkd_start "$MDK_TMP/$tag.conf" || return 1
	mdkctl_ status | grep -q "^$name " || return 1
	[ "$when" = before ] && return 0
	# Just after a window's end, so that the fill (about a second under
	# TCG) stays within one window: a page first touched between a walk
	# and its reset is never reported, and the fill is never touched again.
	local w w0=
	for i in $(seq 600); do
		w=$(status_py "p.get('totals', {}).get('windows', 0)") 2>/dev/null
		[ -n "$w0" ] && [ "${w:-0}" -gt "$w0" ] && break
		[ -z "$w0" ] && [ "${w:-0}" -ge 1 ] && w0=$w
		sleep 0.1
	done
	workload_start "$cg" $COLD $HOT
}

phase_end() {
	local wl
	workload_stop
	wl=$?
	mdkd_stop
	ktap_diag "$(grep -c . "$MDKD_LOG") log lines; last: $(tail -n 2 "$MDKD_LOG" | tr '\n' ' ')"
	return $wl
}

ktap_plan 14
t0=$SECONDS

# ---- swap ----
if ! phase swap before "policy = age:T=2" "auto_tune = off" "backend = swap"; then
	ktap_fail "mdkd (policy age:T=2, backend swap) manages the cgroup and the workload runs"
	ktap_finish
fi
ktap_pass "mdkd (policy age:T=2, backend swap) manages the cgroup and the workload runs"
want=$((COLD * 1024 * 9 / 10))
swap=0
for _ in $(seq $((WAIT_S * 2))); do
	swap=$(smaps_kb Swap)
	[ "${swap:-0}" -ge $want ] && break
	sleep 0.5
done
rss=$(smaps_kb Rss)
ktap_diag "after $((SECONDS - t0)) s: Swap ${swap} kB, Rss ${rss} kB, memory.swap.current $(($(cat "$cg/memory.swap.current") >> 10)) kB"
[ "${swap:-0}" -ge $want ]
ktap_check "the cold set ($COLD MiB) is paged out: Swap >= 90% of it"
[ "${rss:-0}" -ge $((HOT * 1024)) ] && [ "${swap:-0}" -le $(((COLD + HOT / 2) * 1024)) ]
ktap_check "the hot set ($HOT MiB) stays resident: Rss >= $HOT MiB, Swap below cold + hot/2"
sleep 4 # two more windows: a hot page paged out would be swapped in
out=$(status_py "p['running']['setting'], p['totals']['out_pages'], p['acted']['promotions'], p['measured']['windows'], c['last']['reason'], p['measured']['promotions']")
ktap_diag "status: setting, out_pages, acted promotions, windows, reason, measured promotions: $out"
read -r setting outp prom wins _ meas <<<"$out"
# Acted: promotions of the pages the policy moved out.  The measured ones
# add what the swap-cache drop's reclaim took besides (the kernel's pick).
[ "$setting" = "age:T=2" ] && [ "${outp:-0}" -ge $((COLD * 256 * 9 / 10)) ] &&
	[ "${prom:-1}" -le $((HOT * 256 / 20)) ] && [ "${wins:-0}" -ge 3 ]
ktap_check "mdkctl status: age:T=2 runs, the cold pages moved out, (almost) no promotion of what it moved"

# The live curves now, while the horizon still holds the windows that
# paged the cold set out (later it holds only windows with nothing
# resident to save).
live=$(mdkctl_ mpc --live "$name" 2>&1)
rc=$?
echo "$live" | sed 's/^/# /'
[ $rc -eq 0 ] && [[ $live == *"best savings (setting) at a max window promotion rate"* ]] &&
	[[ $live == *"running: age:T=2"* ]] && [[ $live == *"headroom"* ]] &&
	[[ $live == *"measured"* ]] && [[ $live == *"predicted"* ]]
ktap_check "mdkctl mpc --live: the live curves, the running setting, OPP headroom, measured rate"
live=$(mdkctl_ mpc --live "$name" --csv 2>&1)
python3 - "$live" <<'PY'
import csv, io, sys
text = sys.argv[1]
assert text.startswith("policy,p1,p2,max_rate,mean_rate,p99_rate,savings,promotions\n"), text[:200]
rows = list(csv.DictReader(io.StringIO(text)))
pols = {r["policy"] for r in rows}
assert {"age", "opp"} <= pols, pols
age = {float(r["p1"]): r for r in rows if r["policy"] == "age"}
assert float(age[2.0]["savings"]) > 0, age[2.0]
PY
ktap_check "mdkctl mpc --live --csv: mdkctl mpc's header, age and opp curves, age:T=2 saves"
if command -v gnuplot >/dev/null; then
	mdkctl_ mpc --live "$name" --plot "$MDK_TMP/live.svg" >/dev/null 2>"$MDK_TMP/plot.err"
	grep -q "<svg" "$MDK_TMP/live.svg" 2>/dev/null
	ktap_check "mdkctl mpc --live --plot writes an SVG ($(head -c 200 "$MDK_TMP/plot.err"))"
else
	ktap_skip "mdkctl mpc --live --plot: gnuplot not installed"
fi
# The pages went to a swap device: written back, they would sit in the
# swap cache, charged to the cgroup; drop_swap_cache (the default) reclaims
# them at the windows' ends.  What else the kernel's reclaim takes comes
# back as promotions (the status check above bounds them).
# A page swapped back in stays in the swap cache too, mapped and in use,
# while swap is less than half full: what the page-outs left is the swap
# cache less what came back (on 6.1 the drop's reclaim, the kernel's
# choice of pages, takes some hot ones, which come back so): the
# cgroup's swap-ins, or the sampler's measured promotions, the larger.
cached=0 swapin=0 left=0
for _ in $(seq $((WAIT_S * 2))); do
	cached=$(awk '$1 == "swapcached" { print int($2 / 1024) }' "$cg/memory.stat")
	swapin=$(status_py "c['totals']['swapin_bytes'] >> 10")
	[ "${swapin:-0}" -lt $((${meas:-0} * 4)) ] && swapin=$((meas * 4))
	left=$((${cached:-0} - ${swapin:-0}))
	[ "$left" -le $((COLD * 1024 / 10)) ] && break
	sleep 0.5
done
cur=$(($(cat "$cg/memory.current") >> 10))
rss=$(smaps_kb Rss)
out=$(status_py "p['totals']['swap_cache_drops'], p['totals']['swap_cache_freed_bytes'] >> 10, p['measured']['promotions'], p['totals']['swap_cache_drop_pages']")
read -r drops freed prom2 pages <<<"$out"
ktap_diag "drop_swap_cache (default): swapcached ${cached} kB, swapped in $swapin kB, memory.current $cur kB, Rss $rss kB; drops $drops ($pages pages), $freed kB freed; measured promotions $prom -> $prom2"
[ "$left" -le $((COLD * 1024 / 10)) ] && [ "${drops:-0}" -ge 1 ] &&
	[ "$cur" -le $(((HOT + COLD / 4) * 1024)) ] &&
	[ "${rss:-0}" -ge $((HOT * 1024)) ]
ktap_check "by default the swap cache the page-outs left is freed (swapcached less swap-ins under 10% of the cold set, memory.current under hot + cold/4); the hot set is resident"
# The kernel takes swappiness= on memory.reclaim (6.9 on) or not (6.1):
# mdkd's drop follows (anon only, or the kernel's choice).
want=any takes=no
echo "0 swappiness=200" >"$cg/memory.reclaim" 2>/dev/null && want=anon takes=yes
[ "$pages" = "$want" ]
ktap_check "the drop reclaims $want pages (memory.reclaim takes swappiness=: $takes)"
phase_end
ktap_check "the workload's data is intact after the swap-out (exit 0)"

# ---- cxl ----
if [ -z "${MDK_POOL_BASE:-}" ] || [ ! -f "${CMM_MP_KO:-}" ]; then
	for _ in 1 2 3 4; do ktap_skip "backend cxl: no CMM-MP pool (tests/vm/run -p)"; done
	ktap_finish
fi
if ! insmod "$CMM_MP_KO"; then
	for _ in 1 2 3 4; do ktap_skip "backend cxl: insmod cmm_mp failed"; done
	ktap_finish
fi
kmod_loaded=1
"$MDKCTL" pool online 0 >/dev/null
node=$(cat $CMM_MP_SYS/node)
if ! phase cxl after "policy = age" "auto_tune = on" "warmup = 3" \
	"target_rate = 1%" "backend = cxl"; then
	ktap_fail "mdkd (auto-tuned age, backend cxl, node $node) manages the cgroup"
	ktap_finish
fi
ktap_pass "mdkd (auto-tuned age, backend cxl, node $node) manages the cgroup"
want=$((COLD * 256 * 9 / 10))
on=0
for _ in $(seq $((WAIT_S * 2))); do
	on=$(node_pages "$node")
	[ "$on" -ge $want ] && break
	sleep 0.5
done
home=$(node_pages 0)
ktap_diag "after $((SECONDS - t0)) s: $on pages on node $node, $home on node 0"
ktap_diag "totals: $(status_py "' '.join('%s %s' % kv for kv in p['totals'].items())")"
[ "$on" -ge $want ]
ktap_check "the cold set lands on the CMM-MP node $node (numa_maps, >= 90%)"
out=$(status_py "p['running']['setting'], p['running']['tuned'], p['totals']['tune_changes']")
ktap_diag "status: setting, tuned, tune changes: $out"
read -r setting tuned _ <<<"$out"
[ "$home" -ge $((HOT * 256)) ] && [[ $setting == age:T=* ]] && [ "$tuned" = True ]
ktap_check "auto-tune chose $setting; the hot set stays on node 0"
phase_end
ktap_check "the workload's data is intact after demotion (exit 0)"
ktap_diag "mdkd_policy took $((SECONDS - t0)) s"
ktap_finish
