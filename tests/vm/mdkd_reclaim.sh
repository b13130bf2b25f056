#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd reclaims a workload's cold set through memory.reclaim:
# 48 MiB cold and 16 MiB hot in a real cgroup, swap on; within a bounded
# number of 1 s intervals memory.current falls to the hot set (plus 24 MiB),
# while PSI "some" (memory.pressure total over the way) stays under the
# configured threshold and no interval at or above it reclaims; nothing is
# OOM-killed, no limit is set, the data survives, and mdkctl status reports
# what was reclaimed.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=48
HOT=16
MAX_INTERVALS=40
THRESHOLD=1 # percent

mdkd_require 256
[ -e /sys/fs/cgroup/memory.reclaim ] || ksft_skip "no memory.reclaim"

ktap_plan 9
name=mdk-test-mdkd-reclaim-$$
cg=$(cg_new "$name") || ksft_skip "cannot create a cgroup"
if ! workload_start "$cg" $COLD $HOT; then
	ktap_fail "the workload became resident"
	ktap_finish
fi
# As in a long-running job, the cold set has been idle for a while: clear
# the Accessed bits the fill left (the hot loop sets them again at once).
echo 1 >"/proc/$WL_PID/clear_refs"
sleep 2
before=$(cat "$cg/memory.current")
ktap_diag "workload resident: memory.current $((before >> 20)) MiB"

mdkd_conf "$MDK_TMP/mdkd.conf" "[cgroup $name]" "interval = 1s" \
	"reclaim_ratio = 0.25" "psi_threshold = ${THRESHOLD}%"
read -r _ _ _ _ t0 <"$cg/memory.pressure"
start_us=$(awk '{ printf "%d", $1 * 1000000 }' /proc/uptime)
if mdkd_start "$MDK_TMP/mdkd.conf" && mdkctl_ status | grep -q "^$name "; then
	ktap_pass "mdkd starts and manages the cgroup"
else
	ktap_fail "mdkd starts and manages the cgroup"
	ktap_finish
fi

target=$(((HOT + 24) << 20))
reached=0
for i in $(seq 900); do
	cur=$(cat "$cg/memory.current")
	n=$(($(wc -l <"$MDKD_REC") - 1))
	if [ "$cur" -le "$target" ]; then
		reached=$n
		break
	fi
	[ "$n" -gt $MAX_INTERVALS ] && break
	sleep 0.2
done
ktap_diag "memory.current $((before >> 20)) -> $((cur >> 20)) MiB after $n intervals"
[ "$reached" -gt 0 ]
ktap_ok "the cold set is reclaimed within $MAX_INTERVALS intervals" [ $? -eq 0 ]

# Averaged over the way there, PSI some stays under the threshold; and in
# every interval at or above it, the law reclaimed nothing.
read -r _ _ _ _ t1 <"$cg/memory.pressure"
end_us=$(awk '{ printf "%d", $1 * 1000000 }' /proc/uptime)
stall=$((${t1#total=} - ${t0#total=}))
share=$(awk -v s="$stall" -v t="$((end_us - start_us))" \
	'BEGIN { printf "%.4f", 100 * s / t }')
ktap_diag "PSI some over $(((end_us - start_us) / 1000)) ms: ${stall} us stalled, $share%"
cut -d, -f1,4,5,8,9,10,11,16,17,18 "$MDKD_REC" | head -n 20 | sed 's/^/# /'
ktap_ok "PSI some stayed under ${THRESHOLD}% on the way" \
	awk -v w="$share" -v t="$THRESHOLD" 'BEGIN { exit !(w < t) }'
ktap_ok "no reclaim in an interval at or above the threshold" \
	awk -F, -v t="$THRESHOLD" 'NR > 1 && $11 >= t && $8 > 0 { bad = 1 }
		END { exit bad }' "$MDKD_REC"

swap=$(cat "$cg/memory.swap.current")
ktap_ok "the cold set went to swap ($((swap >> 20)) MiB)" [ "$swap" -ge $((COLD / 2 << 20)) ]

no_oom() {
	[ "$(cg_event "$cg" oom_kill)" = 0 ] && [ "$(cg_event "$cg" oom)" = 0 ] &&
		kill -0 "$WL_PID"
}
ktap_ok "nothing was OOM-killed" no_oom

# Status counts the bytes of successful requests: at least those the
# recorder logged on the way to the target, and one of its running totals
# (memory.reclaim may take more than asked, so memory.current says less).
reclaimed=$(mdkctl_ status --csv | awk -F, -v c="$name" '$1 == c { print $6 }')
asked=$(awk -F, -v n="$reached" 'NR > 1 && NR <= n + 1 && $9 == "ok" { s += $8 }
	END { printf "%d", s }' "$MDKD_REC")
ktap_diag "mdkctl status: reclaimed $((reclaimed >> 20)) MiB; recorder: $((asked >> 20)) MiB asked and done on the way"
status_counts() {
	[ "${reclaimed:-0}" -gt 0 ] && [ "$reclaimed" -ge "$asked" ] &&
		awk -F, -v r="$reclaimed" 'NR > 1 && $19 == r { f = 1 } END { exit !f }' "$MDKD_REC"
}
ktap_ok "mdkctl status reports the bytes reclaimed, as the recorder counts them" status_counts

mdkd_stop
ret=$?
no_limit() {
	[ $ret -eq 0 ] && [ "$(cat "$cg/memory.high")" = max ] &&
		[ "$(cat "$cg/memory.max")" = max ]
}
ktap_ok "mdkd exits 0 on SIGTERM and leaves no limit (high $(cat "$cg/memory.high"), max $(cat "$cg/memory.max"))" \
	no_limit
ktap_ok "the workload reads back all its data" workload_stop
ktap_finish
