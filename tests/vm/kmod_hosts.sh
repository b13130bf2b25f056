#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the multi-host control area with one guest.  Loaded with
# hosts=2 host=0, the pool loses the segment under its last 2 MiB; onlining,
# sharing and offlining show in segN/holder; a second host played through
# inject_peer (heartbeat, owner and sharer words written into the control
# area) makes "mdkctl pool online" fail with "segment N is owned by host 1"
# and change nothing while it beats, lets this host join its share, and
# loses its segment to this host once its heartbeat has stood still for
# lease_ms ("took segment N from host 1: lease expired", cmm_mp:takeover).
# A load with another host count is refused; host=1 joins the same area,
# with device 1 local.
. "$(dirname "$0")/lib/kmod_lib.sh"
kmod_require
trap kmod_cleanup EXIT
peer=/sys/module/cmm_mp/parameters/inject_peer
lease=2000

# A one-host run before may have used the area as segment memory: reset.
dmesg_mark kmod_hosts
kmod_load hosts=2 host=0 lease_ms=$lease ctl_reset=1 || ksft_skip "insmod hosts=2 failed"
[ -e "$peer" ] || ksft_skip "built without CONFIG_CMM_MP_FAULT_INJECTION"
ktap_plan 20
trace_on takeover

holder() {
	cat "$CMM_MP_SYS/segments/seg$1/holder"
}

# Host 1 beats before every step that needs it alive: TCG is slow.
beat() {
	echo "1 beat" >"$peer"
}

rd nseg "$CMM_MP_SYS/nr_segments"
rd seg_bytes "$CMM_MP_SYS/segment_bytes"
want=$(((MDK_POOL_SIZE - 2 * 1024 * 1024) / seg_bytes))
rd h "$CMM_MP_SYS/host"
rd hs "$CMM_MP_SYS/hosts"
rd l "$CMM_MP_SYS/lease_ms"
rd self "$CMM_MP_SYS/self"
ktap_ok "host 0 of 2, lease $lease ms, device 0 local, $want segments beside the control area" \
	[ "$h/$hs/$l/$self/$nseg" = "0/2/$lease/0/$want" ]
log=$(dmesg_since kmod_hosts)
[[ $log == *"control area at 0x"*"host 0 of 2, lease $lease ms"* ]]
ktap_check "dmesg names the control area"
rd alive "$CMM_MP_SYS/hosts_alive"
ktap_ok "hosts_alive is 0 alone, every segment's holder none" \
	[ "$alive/$(holder 0)/$(holder $((nseg - 1)))" = "0/none/none" ]

"$MDKCTL" pool online 0 >/dev/null && "$MDKCTL" pool share 1 >/dev/null
ktap_ok "online and share: owners 'host 0' and 'shared 0'" \
	[ "$(holder 0)/$(holder 1)" = "host 0/shared 0" ]
"$MDKCTL" pool offline 0 1 >/dev/null
ktap_ok "offline: owners none again" [ "$(holder 0)/$(holder 1)" = "none/none" ]

# Host 1 beats, owns segment 2 and shares segment 3.
echo "1 beat" >"$peer" && echo "1 own 2" >"$peer" && echo "1 share 3" >"$peer"
ktap_check "inject_peer: host 1 beats, owns segment 2, shares segment 3"
rd alive "$CMM_MP_SYS/hosts_alive"
ktap_ok "hosts_alive is 0,1; segment 2 owned by host 1" \
	[ "$alive/$(holder 2)" = "0,1/host 1" ]
beat
out=$("$MDKCTL" pool online 2 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "mdkctl pool online 2 fails: 'segment 2 is owned by host 1'" \
	[ $rc -ne 0 -a "$out" = "mdkctl: pool online: segment 2 is owned by host 1" ]
rd range "$CMM_MP_SYS/segments/seg2/memory_blocks"
ktap_ok "nothing changed: segment 2 offline, owner host 1, no memory block" \
	[ "$(seg_state 2)/$(holder 2)" = "offline/host 1" -a \
	  ! -e "/sys/devices/system/memory/memory${range%-*}" ]
beat
out=$("$MDKCTL" pool share 2 2>&1)
rc=$?
ktap_ok "mdkctl pool share 2 fails the same way" \
	[ $rc -ne 0 -a "$out" = "mdkctl: pool share: segment 2 is owned by host 1" ]
beat
"$MDKCTL" pool share 3 >/dev/null
ktap_ok "sharing segment 3 joins host 1: 'shared 0,1'" [ "$(holder 3)" = "shared 0,1" ]
beat
"$MDKCTL" pool offline 3 >/dev/null
ktap_ok "unsharing it leaves 'shared 1'" [ "$(holder 3)" = "shared 1" ]
beat
out=$("$MDKCTL" pool status)
ktap_diag "$(grep '^hosts:' <<<"$out")"
[[ $out == *"hosts: this host is 0 of 2, lease $lease ms"*"1 alive"* ]] &&
	grep -Eq '^2 .* host 1$' <<<"$out"
ktap_check "mdkctl pool status shows host 1 alive and segment 2 held by host 1"

# Host 1 stops beating: after the lease its segments can be taken.
sleep $((lease * 2 / 1000 + 1))
rd alive "$CMM_MP_SYS/hosts_alive"
ktap_ok "after ${lease} ms without a heartbeat host 1 is dead: hosts_alive 0" [ "$alive" = 0 ]
dmesg_mark kmod_hosts_takeover
out=$("$MDKCTL" pool online 2 2>&1)
ktap_ok "mdkctl pool online 2 takes it: owner 'host 0', online" \
	[ "$(holder 2)/$(seg_state 2)" = "host 0/online" ]
log=$(dmesg_since kmod_hosts_takeover)
rd n "$CMM_MP_SYS/takeovers"
[[ $log == *"cmm_mp: took segment 2 from host 1: lease expired"* ]] && [ "$n" = 1 ] &&
	[ "$(trace_count 'segment=2 from_host=1 to_host=0')" = 1 ]
ktap_check "dmesg 'took segment 2 from host 1: lease expired', takeovers 1, one cmm_mp:takeover"
"$MDKCTL" pool share 3 >/dev/null
ktap_ok "sharing segment 3 drops dead host 1: 'shared 0'" [ "$(holder 3)" = "shared 0" ]
"$MDKCTL" pool offline 2 3 >/dev/null
trace_off
rmmod cmm_mp

dmesg_mark kmod_hosts_magic
ktap_ok "a load with hosts=3 is refused" eval "! insmod \"$CMM_MP_KO\" hosts=3 2>/dev/null"
log=$(dmesg_since kmod_hosts_magic)
[[ $log == *"it was set up for 2 hosts, this host has hosts=3: refusing to load"* ]]
ktap_check "dmesg: 'it was set up for 2 hosts, this host has hosts=3'"

# host=1: its heartbeat word still holds what inject_peer wrote, so the
# module first watches it for a lease.
kmod_load hosts=2 host=1 lease_ms=$lease
rd h "$CMM_MP_SYS/host"
rd self "$CMM_MP_SYS/self"
rd alive "$CMM_MP_SYS/hosts_alive"
ktap_ok "host=1 joins the area: device 1 local, hosts_alive 1, segment 0 free" \
	[ "$h/$self/$alive/$(holder 0)" = "1/1/1/none" ]
ktap_finish
