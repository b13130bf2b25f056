#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: a host that dies (tests/vm/run --hosts 2; the last test of
# the list: host 1 does not come back).  SWARM-KV runs on the pool: a
# memory node on each of three pool devices (a shared segment each) and,
# for the history's clock, a counter in a fourth.  Host 0 formats the
# store, then both hosts run stress clients on it, logging every operation
# before it starts and once it returned; host 1 also holds segment 0.
# Mid-run the bench kills host 1's VM.  Host 0's clients go on and read
# every key at the end: the logs of the three runs are one linearizable
# history, host 1's operations in flight pending (no acknowledged write
# lost).  Host 0 is refused segment 0 while host 1 lives and takes it over
# once the lease is out.
. "$(dirname "$0")/lib/mh_lib.sh"
mh_require
trap kmod_cleanup EXIT
me=$MDK_HOST
LEASE_MS=3000
SEG=0
LOGS=$MDK_SHARED/swarm

stress() {
	"$MDKCTL" swarm stress --cmm-mp --replicas 3 --keys 4 --shared-clock 3 "$@"
}

# Host 1 reports two cases and dies; host 0 reports seven.
ktap_plan $((me == 1 ? 2 : 7))
mh_load devices=4 lease_ms=$LEASE_MS ||
	ktap_bail "insmod cmm_mp.ko devices=4 hosts=$MDK_HOSTS host=$me failed"
ktap_check "host $me loads cmm_mp.ko (4 devices, lease $LEASE_MS ms)"
if [ "$me" = 1 ]; then
	mh_barrier formatted
	"$MDKCTL" pool online $SEG >/dev/null
	ktap_check "host 1 onlines segment $SEG"
	mh_barrier held
	mh_get running 0 >/dev/null
	stress --attach --clients 2 --ops 1000000 --seconds 300 \
		--log "$LOGS.1.log" >/dev/null 2>&1 &
	# Die mid-run, with clients in flight and the segment online.
	for _ in $(seq 600); do
		[ "$(wc -l <"$LOGS.1.log" 2>/dev/null)" -ge 400 ] && break
		sleep 0.1
	done
	trap - EXIT
	mh_die
fi

out=$(stress --clients 2 --ops 40 --seconds 5 --log "$LOGS.format.log" 2>&1)
ktap_diag "host 0 formats the store: $out"
[[ $out == *"operations logged"* ]]
ktap_check "host 0 formats SWARM-KV on three pool devices (a logged run)"
mh_barrier formatted
mh_barrier held
msg=$("$MDKCTL" pool online $SEG 2>&1)
ret=$?
[ $ret -ne 0 ] && [[ $msg == *"owned by host 1"* ]] && [ "$(seg_state $SEG)" = offline ]
ktap_check "host 0 is refused segment $SEG while host 1 lives"
stress --attach --clients 2 --ops 1000000 --seconds 40 --log "$LOGS.0.log" \
	>"$MDK_TMP/stress.out" 2>&1 &
spid=$!
mh_put running
while [ ! -e "$MDK_SHARED/kill-host1" ]; do sleep 0.2; done
t0=$SECONDS
took=1
for _ in $(seq 120); do
	if "$MDKCTL" pool online $SEG >/dev/null 2>&1; then
		took=0
		break
	fi
	sleep 0.5
done
secs=$((SECONDS - t0))
ktap_diag "host 0 took segment $SEG ${secs}s after host 1 died; $(dmesg | grep -m1 "took segment $SEG")"
[ $took -eq 0 ] && [ "$(seg_holder $SEG)" = "host 0" ] &&
	[ $secs -ge $((LEASE_MS / 1000 - 1)) ] && dmesg | grep -q "took segment $SEG from host 1"
ktap_check "after the lease ($LEASE_MS ms) host 0 takes segment $SEG over"
wait $spid
ret=$?
ktap_diag "host 0's stress: exit $ret: $(cat "$MDK_TMP/stress.out")"
[ $ret -eq 0 ]
ktap_check "host 0's clients run on after host 1 died, and read every key at the end"
out=$("$MDKCTL" swarm check "$LOGS.format.log" "$LOGS.0.log" "$LOGS.1.log" 2>&1)
ret=$?
ktap_diag "mdkctl swarm check: $out"
[ $ret -eq 0 ] && [[ $out == *": linearizable" ]]
ktap_check "the three runs' logs are one linearizable history (host 1's operations in flight pending)"
# Tickets of host 0's returns after host 1's last one: work done after
# the death, final reads included.
last1=$(awk '$1 == "c" { t = $6 } $1 == "r" { t = $3 } t > m { m = t }
	END { print m + 0 }' "$LOGS.1.log")
after=$(awk -v m="$last1" '$1 == "r" && $3 > m { n++ } END { print n + 0 }' "$LOGS.0.log")
ktap_diag "host 1 logged $(wc -l <"$LOGS.1.log") lines, its last ticket $last1; host 0 returned $after operations after it"
[ "$(wc -l <"$LOGS.1.log")" -ge 400 ] && [ "$after" -ge 4 ]
ktap_check "host 1 died mid-run (>= 400 log lines) and host 0 worked on after it"
ktap_finish
