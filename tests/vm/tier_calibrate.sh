#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl tier calibrate with the three back ends present
# (cmm_mp's node, zswap on, the guest's swap disk): the tier file lists
# cxl, zswap and swap in the order of their measured costs (under TCG
# cxl and zswap may swap places), costs above 0 and swap dearer than
# zswap, cxl with the node's free pages as cap; mdk_tiers_load reads it back (mdkctl tier
# show) and the probe cgroup is gone.  Then each back end taken away
# (zswap off, no swap device, no module) is left out with its message,
# and with none left calibrate fails.  mdkd with tier_file on that file
# shows the costs in mdkctl status and a policy-mode cgroup's compression
# ratio and counters; a bad file on reload is refused by file:line and the
# costs stay.  The measured figures are printed as diagnostics (TCG: far
# slower than hardware).
. "$(dirname "$0")/lib/mdkd_lib.sh"

PAGES=1024
ROUNDS=5

require_root
require_file "$MDKCTL"
require_file "$CMM_MP_KO"
[ -n "${MDK_POOL_BASE:-}" ] || ksft_skip "no CMM-MP pool (tests/vm/run -p)"
[ -n "${MDK_SWAP:-}" ] || ksft_skip "no swap disk"
[ -e /sys/module/zswap/parameters/enabled ] || ksft_skip "no zswap"

kmod_loaded=
cal_cleanup() {
	mdkd_cleanup
	swapon "$MDK_SWAP" 2>/dev/null
	if [ -n "$kmod_loaded" ] && [ -d /sys/module/cmm_mp ]; then
		"$MDKCTL" pool offline all >/dev/null 2>&1
		rmmod cmm_mp
	fi
}
trap cal_cleanup EXIT

# cost NAME FILE: tier NAME's cost in ns, or nothing.
cost() {
	sed -n "s/^$1:cost=\([0-9]*\)ns.*/\1/p" "$2"
}

# cal ARGS...: calibrate; stderr in $MDK_TMP/err, the status in $rc.
cal() {
	"$MDKCTL" tier calibrate --pages $PAGES --rounds $ROUNDS "$@" \
		2>"$MDK_TMP/err"
	rc=$?
}

ktap_plan 14
insmod "$CMM_MP_KO" || ktap_bail "insmod cmm_mp failed"
kmod_loaded=1
"$MDKCTL" pool online 0 >/dev/null || ktap_bail "pool online"
echo Y >/sys/module/zswap/parameters/enabled
ktap_diag "zswap compressor $(cat /sys/module/zswap/parameters/compressor), zpool $(cat /sys/module/zswap/parameters/zpool 2>/dev/null)"

F=$MDK_TMP/tiers/costs
t0=$SECONDS
cal --output "$F"
ktap_diag "calibrate: $((SECONDS - t0)) s, status $rc"
sed 's/^/# /' "$F" "$MDK_TMP/err" 2>/dev/null
costs=$(grep -v '^#' "$F" | sed 's/^[a-z]*:cost=\([0-9]*\)ns.*/\1/')
[ $rc -eq 0 ] && [ "$(grep -v '^#' "$F" | cut -d: -f1 | sort | tr '\n' ' ')" = "cxl swap zswap " ] &&
	[ "$(printf '%s\n' $costs | sort -n)" = "$(printf '%s\n' $costs)" ]
ktap_check "the file lists cxl, zswap and swap, cheapest first"
c=$(cost cxl "$F") z=$(cost zswap "$F") s=$(cost swap "$F")
[ "${c:-0}" -gt 0 ] && [ "${z:-0}" -gt 0 ] && [ "${s:-0}" -gt "$z" ]
ktap_check "costs above 0, swap ($s ns) dearer than zswap ($z ns), cxl $c ns"
free=$(($(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node1/meminfo) / 4))
cap=$(sed -n 's/^cxl:.*,cap=\([0-9]*\).*/\1/p' "$F")
[ -n "$cap" ] && [ $((cap - free)) -lt 4096 ] && [ $((free - cap)) -lt 4096 ]
ktap_check "cxl's cap ($cap) is node 1's free pages ($free)"
"$MDKCTL" tier show "$F" >"$MDK_TMP/show" &&
	[ "$(head -n 1 "$MDK_TMP/show")" = "$(grep -v '^#' "$F" | sed 's/ns/ns,save=1.000000/' | paste -sd';')" ]
ktap_check "mdk_tiers_load reads it back (mdkctl tier show)"
[ ! -e /sys/fs/cgroup/mdk-calibrate ]
ktap_check "the probe cgroup is removed"

# SIGINT mid-run: the probe child killed, the cgroup removed
"$MDKCTL" tier calibrate --pages 4096 --rounds 64 --dry-run >/dev/null 2>&1 &
cal_pid=$!
for _ in $(seq 100); do
	# cgroupfs files have no size: read it
	[ -n "$(cat /sys/fs/cgroup/mdk-calibrate/cgroup.procs 2>/dev/null)" ] && break
	sleep 0.1
done
probe=$(cat /sys/fs/cgroup/mdk-calibrate/cgroup.procs 2>/dev/null)
kill -INT $cal_pid
wait $cal_pid
st=$?
sleep 0.5
[ -n "$probe" ] && [ $st -eq 130 ] && [ ! -e /sys/fs/cgroup/mdk-calibrate ] &&
	! kill -0 "$probe" 2>/dev/null
ktap_check "SIGINT mid-run: the probe (pid ${probe:-none}) killed, the cgroup removed, status $st"

# mdkd: the costs host-wide, a policy-mode cgroup's ratio and counters
name=mdk-test-tcal-$$
cg=$(cg_new "$name") || ktap_bail "cgroup"
workload_start "$cg" 16 4 || ktap_bail "the workload did not start"
mdkd_conf "$MDK_TMP/t.conf" "tier_file = $F" "[cgroup $name]" \
	"mode = policy" "backend = swap" "window = 1s" "policy = age:T=60" \
	"auto_tune = off"
mdkd_start "$MDK_TMP/t.conf" || ktap_bail "mdkd did not start"
for _ in $(seq 100); do
	[ "$(status_py "p['totals']['windows']")" -ge 2 ] 2>/dev/null && break
	sleep 0.3
done
mdkctl_ status >"$MDK_TMP/status"
sed 's/^/# /' "$MDK_TMP/status"
cxl_us=$(awk "BEGIN { printf \"%.1f\", $c / 1000 }")
grep "^tier costs: " "$MDK_TMP/status" | grep -q "cxl $cxl_us us (cap $cap pages)" &&
	grep "^tier costs: " "$MDK_TMP/status" | grep " zswap [0-9.]* us" |
	grep " swap [0-9.]* us" | grep -q "; from $F, 20"
ktap_check "mdkctl status shows the costs, cxl's cap, the file and its date"
out=$(status_py "'%.3f %s %s' % (p['tiers']['ratio'], p['tiers']['ratio_source'], p['tiers']['swapins_source'])")
ktap_diag "ratio, its source, swap-ins' source: $out"
set -- $out
[ -n "$1" ] && python3 -c "import sys; sys.exit(not $1 >= 1)" &&
	grep -Eq "^  tiers: ratio [0-9.]+ \((sampled|memory.stat), saves" "$MDK_TMP/status"
ktap_check "the cgroup's compression ratio ($1, $2) in status -j and status"
printf 'cxl:cost=1us\nswap:cost=nothing\n' >"$F"
kill -HUP "$MDKD_PID"
sleep 1
mdkctl_ status >"$MDK_TMP/status"
grep -q "last reload failed: $F:2 (tier swap): cost 'nothing'" "$MDK_TMP/status" &&
	grep "^tier costs: " "$MDK_TMP/status" | grep -q "cxl $cxl_us us"
ktap_check "a bad tier file on reload: refused by file:line, the costs kept"
mdkd_stop
workload_stop 2>/dev/null

echo N >/sys/module/zswap/parameters/enabled
cal --dry-run >"$MDK_TMP/out"
[ $rc -eq 0 ] && ! grep -q '^zswap:' "$MDK_TMP/out" &&
	grep -q '^swap:' "$MDK_TMP/out" &&
	grep -q 'zswap left out: zswap is off' "$MDK_TMP/err"
ktap_check "zswap off: zswap left out with its message"

swapoff "$MDK_SWAP"
cal --dry-run >"$MDK_TMP/out"
[ $rc -eq 0 ] && [ "$(grep -v '^#' "$MDK_TMP/out" | cut -d: -f1)" = cxl ] &&
	grep -q 'swap left out: no swap device' "$MDK_TMP/err"
ktap_check "no swap device: swap left out with its message, cxl kept"
sed 's/^/# /' "$MDK_TMP/err"

"$MDKCTL" pool offline all >/dev/null && rmmod cmm_mp && kmod_loaded=
cal --dry-run >"$MDK_TMP/out"
[ $rc -eq 1 ] && [ ! -s "$MDK_TMP/out" ] &&
	grep -q 'cxl left out: no CMM-MP node' "$MDK_TMP/err" &&
	grep -q 'no back end could be measured' "$MDK_TMP/err"
ktap_check "nothing measurable: status 1, every reason given"

swapon "$MDK_SWAP"
cal --output "$MDK_TMP/swap-only"
[ $rc -eq 0 ] && [ "$(grep -v '^#' "$MDK_TMP/swap-only" | cut -d: -f1)" = swap ] &&
	grep -q 'cxl left out: no CMM-MP node' "$MDK_TMP/err"
ktap_check "without the module: swap alone, cxl left out with its message"
cal --rounds 0
[ $rc -eq 2 ] && grep -q "expected 1 to 64 rounds" "$MDK_TMP/err"
ktap_check "a bad option is refused with what was expected"
ktap_finish
