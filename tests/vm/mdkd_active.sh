#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: active_below: with free memory above it mdkd is inactive, it
# neither samples nor reclaims its cgroup (status says inactive, the cgroup
# is held "inactive", no interval, no request), and its CPU over 30 s is
# that of an idle mdkd managing nothing (both measured in ticks from
# /proc/PID/stat, beside a sleep's); once an unmanaged cgroup takes enough
# memory that free drops below the level, mdkd becomes active and reclaims.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=32
HOT=4
WINDOW=30 # seconds of CPU measured
GAP=8 # active_below, points under the free share at the start

mdkd_require 128
[ -e /sys/fs/cgroup/memory.reclaim ] || ksft_skip "no memory.reclaim"

IDLE_PID=
SLEEP_PID=
FILL_PID=
active_cleanup() {
	local p
	for p in "$IDLE_PID" "$SLEEP_PID" "$FILL_PID"; do
		[ -n "$p" ] && kill -9 "$p" 2>/dev/null
	done
	mdkd_cleanup
}
trap active_cleanup EXIT

ktap_plan 5
name=mdk-test-active-$$
cg=$(cg_new "$name") || ksft_skip "cannot create a cgroup"
fill=$(cg_new "mdk-test-active-fill-$$") || ksft_skip "cannot create a cgroup"
workload_start "$cg" $COLD $HOT || ktap_bail "the workload became resident"

free_pct() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
		END { printf "%d", 100 * f / t }' /proc/meminfo
}
ticks() { # utime + stime of PID
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
jq() { # EXPR (python) over status -j: l the daemon's limits, c the cgroup
	mdkctl_ status -j 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
l = d['daemon']['limits']
c = d['cgroups'][0] if d['cgroups'] else {}
print($1)" 2>/dev/null
}

level=$(($(free_pct) - GAP))
ktap_diag "MemFree $(free_pct)% of $(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo) MiB; active_below = $level%"
mdkd_conf "$MDK_TMP/mdkd.conf" "active_below = $level%" "[cgroup $name]" \
	"interval = 1s" "reclaim_ratio = 0.05" "psi_threshold = 50%"
# The baseline: mdkd managing nothing, always active, its own socket.
{
	echo "[global]"
	echo "socket = $MDK_TMP/idle.sock"
	echo "state_dir = $MDK_TMP/idle-state"
} >"$MDK_TMP/idle.conf"
"$MDKD" -f -c "$MDK_TMP/idle.conf" 2>"$MDK_TMP/idle.log" &
IDLE_PID=$!
sleep 300 &
SLEEP_PID=$!
if mdkd_start "$MDK_TMP/mdkd.conf" && sleep 3 &&
	[ "$(jq "l['active']")" = False ]; then
	mdkctl_ status >"$MDK_TMP/status.txt"
	sed 's/^/# /' "$MDK_TMP/status.txt"
	grep -q '^host: inactive, ' "$MDK_TMP/status.txt"
	ktap_check "mdkd starts inactive above active_below (status: host: inactive)"
else
	ktap_bail "mdkd starts inactive above active_below"
fi

held_back() {
	[ "$(jq "c['totals']['intervals']")" = 0 ] &&
		[ "$(jq "c['totals']['reclaim_requests']")" = 0 ] &&
		[ "$(jq "c['limits']['held']")" = inactive ] &&
		[ "$(jq "c['limits']['inactive_intervals']")" -gt 0 ] &&
		grep -q "^$name .* inactive *\$" "$MDK_TMP/status.txt"
}
ktap_ok "inactive, it neither samples nor reclaims (no interval, no request, held: inactive)" held_back

# CPU over the window: the inactive mdkd, the idle one, a sleep.
kill -0 "$IDLE_PID" || ktap_diag "the idle mdkd died: $(tail -n 2 "$MDK_TMP/idle.log")"
a0=$(ticks "$MDKD_PID")
i0=$(ticks "$IDLE_PID")
s0=$(ticks "$SLEEP_PID")
sleep $WINDOW
a1=$(ticks "$MDKD_PID")
i1=$(ticks "$IDLE_PID")
s1=$(ticks "$SLEEP_PID")
inactive=$((a1 - a0))
idle=$((i1 - i0))
ktap_diag "CPU over ${WINDOW}s, ticks of 1/$(getconf CLK_TCK) s: mdkd inactive $inactive, mdkd managing nothing $idle, sleep $((s1 - s0)); still inactive: $(jq "l['active'] == False") ($(jq "l['inactive_ticks']") inactive ticks)"
# Indistinguishable from idle: within 5 ticks (0.17% of a core) over 30 s,
# under TCG; reading the host at every 1 s interval took 9 to 20.
[ "$(jq "l['active']")" = False ] && [ "$inactive" -le $((idle + 5)) ]
ktap_check "inactive, mdkd's CPU is that of an idle mdkd ($inactive vs $idle ticks in ${WINDOW}s)"

# Free memory drops below active_below: mdkd wakes and reclaims.
need=$(awk -v g=$((GAP + 6)) '/^MemTotal:/ { print int($2 / 1024 * g / 100) }' /proc/meminfo)
sh -c "echo \$\$ >$fill/cgroup.procs && exec $MDKD_WORKLOAD --cold $need \
	--hot 1 --seconds 300" &
FILL_PID=$!
t0=$(ticks "$MDKD_PID")
woke=0
for _ in $(seq 150); do
	if [ "$(jq "c['totals']['reclaim_requests']")" -gt 0 ] 2>/dev/null; then
		woke=1
		break
	fi
	sleep 0.2
done
ktap_diag "filled $need MiB: MemFree $(free_pct)%; active $(jq "l['active']"), requests $(jq "c['totals']['reclaim_requests']"), intervals $(jq "c['totals']['intervals']"); CPU meanwhile $(($(ticks "$MDKD_PID") - t0)) ticks"
[ $woke = 1 ]
ktap_check "below active_below mdkd becomes active and reclaims"

mdkd_stop
ktap_ok "mdkd exits 0 on SIGTERM" [ $? -eq 0 ]
ktap_finish
