#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: a crashed mdkd leaves no limit behind.  With the high-pulse
# actuator (the fallback for kernels without memory.reclaim) a kill -9 in
# the middle of a pulse does leave the lowered memory.high, and a journal
# entry for it: "mdkd --restore" (the unit's ExecStopPost=) puts max back,
# and so does the next start.  With memory.reclaim (TMO's stateless way) a
# kill -9 while reclaiming leaves memory.high, memory.max and
# memory.swap.max at max, the workload running, and a new mdkd starts over
# the stale socket.
. "$(dirname "$0")/lib/mdkd_lib.sh"

require_root
require_file "$MDKD"
require_file "$MDKD_WORKLOAD"
[ -e /sys/fs/cgroup/memory.reclaim ] || ksft_skip "no memory.reclaim"

ktap_plan 7
name=mdk-test-mdkd-crash-$$
cg=$(cg_new "$name") || ksft_skip "cannot create a cgroup"
workload_start "$cg" 24 8 || { ktap_fail "the workload became resident"; ktap_finish; }
echo 1 >"/proc/$WL_PID/clear_refs"
journal=$MDK_TMP/state/high-pulse

limits() {
	echo "high=$(cat "$cg/memory.high") max=$(cat "$cg/memory.max")" \
		"swap.max=$(cat "$cg/memory.swap.max") min=$(cat "$cg/memory.min")" \
		"low=$(cat "$cg/memory.low")"
}
clean="high=max max=max swap.max=max min=0 low=0"

# Start mdkd on CONF and kill -9 it while memory.high is lowered.
pulse_and_kill() {
	local i high=max
	mdkd_start "$1" || return 1
	for i in $(seq 3000); do
		read -r high <"$cg/memory.high"
		[ "$high" != max ] && break
		nap
	done
	kill -9 "$MDKD_PID"
	wait "$MDKD_PID" 2>/dev/null
	MDKD_PID=
	[ "$(cat "$cg/memory.high")" != max ] && [ -n "$(ls "$journal")" ]
}

# 1. high-pulse: each pulse takes half the workload, which is slow; the
# pressure it causes is not the subject here.
mdkd_conf "$MDK_TMP/pulse.conf" "[cgroup $name]" "interval = 500ms" \
	"reclaim_ratio = 0.5" "actuator = high-pulse" "psi_threshold = 100%" \
	"io_psi_threshold = 100%"
if pulse_and_kill "$MDK_TMP/pulse.conf"; then
	pulse=$(cat "$cg/memory.high")
	entry=$(ls "$journal")
	cp "$journal/$entry" "$MDK_TMP/entry"
	ktap_pass "kill -9 mid-pulse leaves memory.high at $pulse and a journal entry"
	"$MDKD" --restore -c "$MDK_TMP/pulse.conf" 2>>"$MDKD_LOG"
	restored() {
		[ "$(limits)" = "$clean" ] && [ -z "$(ls "$journal")" ]
	}
	ktap_ok "mdkd --restore puts it back ($(limits))" restored

	# The same state again (what the kill left), for the next start.
	echo "$pulse" >"$cg/memory.high"
	cp "$MDK_TMP/entry" "$journal/$entry"
	mdkd_conf "$MDK_TMP/off.conf" "[cgroup $name]" "mode = off"
	mdkd_start "$MDK_TMP/off.conf"
	restored_at_start() {
		[ "$(limits)" = "$clean" ] && [ -z "$(ls "$journal")" ] &&
			grep -q 'restored memory.high to max' "$MDKD_LOG"
	}
	ktap_ok "the next mdkd start puts it back ($(limits))" restored_at_start
	mdkd_stop
else
	ktap_fail "kill -9 mid-pulse leaves memory.high lowered and a journal entry ($(limits))"
	tail -n 5 "$MDKD_LOG" | sed 's/^/# /'
	ktap_skip "mdkd --restore puts it back"
	ktap_skip "the next mdkd start puts it back"
fi

# 2. memory.reclaim: kill -9 while reclaiming.
mdkd_conf "$MDK_TMP/reclaim.conf" "[cgroup $name]" "interval = 500ms" \
	"reclaim_ratio = 0.2"
: >"$MDKD_REC"
mdkd_start "$MDK_TMP/reclaim.conf"
for i in $(seq 2000); do
	[ "$(wc -l <"$MDKD_REC")" -ge 2 ] && break
	nap
done
ktap_diag "killing mdkd after $(wc -l <"$MDKD_REC") intervals"
kill -9 "$MDKD_PID"
wait "$MDKD_PID" 2>/dev/null
MDKD_PID=
no_limit_left() {
	[ "$(limits)" = "$clean" ] && kill -0 "$WL_PID"
}
ktap_ok "kill -9 while reclaiming leaves no limit ($(limits)), the workload runs" \
	no_limit_left
if mdkd_start "$MDK_TMP/reclaim.conf" && mdkctl_ status | grep -q "^$name "; then
	ktap_pass "a new mdkd starts over the stale socket"
else
	ktap_fail "a new mdkd starts over the stale socket"
fi
mdkd_stop
ktap_ok "mdkd stops cleanly ($(limits))" [ "$(limits)" = "$clean" ]
ktap_ok "the workload reads back all its data" workload_stop
ktap_finish
