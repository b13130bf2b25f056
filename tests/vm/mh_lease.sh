#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: a host that dies loses its segments after the lease timeout
# (tests/vm/run --hosts 2; the last test of the list: host 1 does not come
# back).  Host 1 onlines segment 3; host 0 is refused it; then the bench
# kills host 1's VM.  Host 0 is still refused while host 1's lease runs,
# then takes the segment over: it onlines it, the control area shows it
# held by host 0, and the kernel log names the takeover.
. "$(dirname "$0")/mh_lib.sh"
mh_require
trap kmod_cleanup EXIT
me=$MDK_HOST
SEG=3
LEASE_MS=3000


# Host 1 reports two cases and dies; host 0 reports three.
ktap_plan $((me == 1 ? 2 : 3))
mh_load lease_ms=$LEASE_MS || ktap_bail "insmod cmm_mp.ko hosts=$MDK_HOSTS host=$me failed"
ktap_check "host $me loads cmm_mp.ko (lease $LEASE_MS ms)"
if [ "$me" = 1 ]; then
	"$MDKCTL" pool online $SEG >/dev/null
	ktap_check "host 1 onlines segment $SEG"
	mh_barrier held
	mh_barrier refused
	# Die with the segment online: no offline, no rmmod.
	trap - EXIT
	mh_die
fi
mh_barrier held
msg=$("$MDKCTL" pool online $SEG 2>&1)
ret=$?
[ $ret -ne 0 ] && [[ $msg == *"owned by host 1"* ]] && [ "$(seg_state $SEG)" = offline ]
ktap_check "host 0 is refused segment $SEG while host 1 lives"
mh_barrier refused
# Host 1's VM is killed now; wait until it is gone.
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
h=$(seg_holder $SEG)
ktap_diag "host 0 took segment $SEG ${secs}s after host 1 died; held by: $h; $(dmesg | grep -m1 "took segment $SEG")"
[ $took -eq 0 ] && [ "$h" = "host 0" ] && [ "$(seg_state $SEG)" = online ] &&
	[ $secs -ge $((LEASE_MS / 1000 - 1)) ] && dmesg | grep -q "took segment $SEG from host 1"
ktap_check "after the lease ($LEASE_MS ms) host 0 takes segment $SEG over"
ktap_finish
