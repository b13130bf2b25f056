#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: two hosts share one CMM-MP pool (tests/vm/run --hosts 2).
# Each loads cmm_mp.ko with its own host id: both find the same devices
# (chip ids, capacities, layout), each a different local one.  Ownership
# lives in the pool's control area: host 0 onlines segment 0; host 1's
# "mdkctl pool online 0" is refused with a clear error and changes
# nothing; host 1 onlines segment 1; either host's view shows who holds
# what; offlined, the segments are free for both again.
. "$(dirname "$0")/lib/mh_lib.sh"
mh_require
trap kmod_cleanup EXIT
me=$MDK_HOST


ktap_plan 5
mh_load || ktap_bail "insmod cmm_mp.ko hosts=$MDK_HOSTS host=$me failed"
ktap_check "host $me of $MDK_HOSTS loads cmm_mp.ko"

# What this host discovered: every device's chip id, capacity and offset.
devs=$("$MDKCTL" pool status -j | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(' '.join('%x:%d:%d' % (v['chip_id'], v['capacity_bytes'], v['nha']) for v in d['devices']))")
rd self "$CMM_MP_SYS/self"
mh_put devices "$devs"
mh_put self "$self"
other=$((1 - me))
[ "$(mh_get devices $other)" = "$devs" ] && [ -n "$devs" ] &&
	[ "$(mh_get self $other)" != "$self" ]
ktap_check "both hosts see the same devices ($devs), each a different local one (here $self)"

if [ "$me" = 0 ]; then
	"$MDKCTL" pool online 0 >/dev/null
	ktap_check "host 0 onlines segment 0"
	mh_barrier online0
	mh_barrier tried
else
	mh_barrier online0
	msg=$("$MDKCTL" pool online 0 2>&1)
	ret=$?
	ktap_diag "host 1: mdkctl pool online 0: exit $ret: $msg"
	[ $ret -ne 0 ] && [[ $msg == *"owned by host 0"* ]] &&
		[ "$(seg_state 0)" = offline ]
	ktap_check "host 1 is refused segment 0 (held by host 0), nothing changed"
	mh_barrier tried
fi
if [ "$me" = 1 ]; then
	"$MDKCTL" pool online 1 >/dev/null
fi
mh_barrier online1
h0=$(seg_holder 0)
h1=$(seg_holder 1)
h2=$(seg_holder 2)
ktap_diag "host $me sees segment 0: $h0, 1: $h1, 2: $h2"
[ "$h0" = "host 0" ] && [ "$h1" = "host 1" ] && [ "$h2" = none ]
ktap_check "either host's view shows who holds what"
# Both views are read before either host lets its segment go.
mh_barrier viewed
"$MDKCTL" pool offline all >/dev/null
mh_barrier offline
[ "$(seg_holder 0)" = none ] && [ "$(seg_holder 1)" = none ]
ktap_check "offlined, segments 0 and 1 are free again"
mh_barrier done
ktap_finish
