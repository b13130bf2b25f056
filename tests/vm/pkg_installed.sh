#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the installed Debian packages, not the build tree: cmm_mp
# as DKMS built it for this kernel loads through modprobe from
# /lib/modules/KVER/updates and the packaged mdkctl drives its pool; the
# packaged mdkd, run as its unit runs it on the shipped configuration,
# checks it, answers mdkctl on the default socket, manages no cgroup and
# stops cleanly, and its ExecStopPost --restore has nothing to undo; a
# cgroup named in a configuration is managed; the sampler's CO-RE BPF
# object inside mdkctl loads on this kernel.  Not in tests/vm/TESTS: the
# packages must be installed first (make vmcheck-packages, CI's packages
# stage).
. "$(dirname "$0")/lib/lib.sh"

MDKD=/usr/sbin/mdkd
MDKCTL=/usr/bin/mdkctl
CONF=/etc/mdk/mdkd.conf
SOCK=/run/mdk/mdkd.sock
tmp=$(mktemp -d)
cg=/sys/fs/cgroup/mdk-test-pkg-$$
pid=
sleeper=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	wait 2>/dev/null
	[ -d "$cg" ] && rmdir "$cg" 2>/dev/null
	[ -d /sys/module/cmm_mp ] && "$MDKCTL" pool offline all >/dev/null 2>&1 &&
		modprobe -r cmm_mp
	rm -rf "$tmp"
}
trap cleanup EXIT

require_root
dpkg-query -W -f='${Status}' mdk cmm-mp-dkms 2>/dev/null | grep -q 'ok installed' ||
	ksft_skip "packages mdk and cmm-mp-dkms not installed (make deb, then apt-get install ./build/deb/*.deb)"
[ -n "${MDK_POOL_BASE:-}" ] || ksft_skip "no CMM-MP pool (tests/vm/run -p SIZE)"

ktap_plan 10

owners=$(dpkg-query -S "$MDKD" "$MDKCTL" "$CONF" 2>/dev/null | cut -d: -f1 | sort -u)
[ "$owners" = mdk ]
ktap_check "mdkd, mdkctl and mdkd.conf are the mdk package's ($owners)"

ko=$(modinfo -n cmm_mp 2>/dev/null)
ktap_diag "modinfo -n cmm_mp: $ko"
[[ $ko == /lib/modules/$KVER/updates/* ]] &&
	modinfo -F vermagic cmm_mp | grep -q "^$KVER " &&
	[ "$(modinfo -F version cmm_mp)" = "$(dpkg-query -W -f='${Version}' cmm-mp-dkms)" ]
ktap_check "cmm_mp is DKMS's, in /lib/modules/$KVER/updates, for $KVER, of the package's version"

dmesg_mark pkg_installed
modprobe cmm_mp && [ "$(cat /sys/module/cmm_mp/initstate)" = live ] &&
	dmesg_since pkg_installed | grep -q 'cmm_mp: loaded, version'
ktap_check "modprobe cmm_mp loads it"

"$MDKCTL" pool status >"$tmp/pool.txt" 2>&1 &&
	"$MDKCTL" pool online 0 >/dev/null &&
	[ "$(cat /sys/kernel/cmm_mp/segments/seg0/state)" = online ] &&
	"$MDKCTL" pool offline 0 >/dev/null &&
	[ "$(cat /sys/kernel/cmm_mp/segments/seg0/state)" = offline ]
ktap_check "the packaged mdkctl reads the pool and onlines and offlines a segment"
sed 's/^/# /' "$tmp/pool.txt" | head -n 8

out=$("$MDKD" --check-config --config "$CONF" 2>&1)
ktap_diag "$out"
[[ $out == *"0 [cgroup] sections"* ]]
ktap_check "the shipped configuration checks and names no cgroup"

# As mdkd.service runs it: systemd makes RuntimeDirectory=mdk (0700).
mkdir -m 0700 -p /run/mdk
"$MDKD" --foreground --config "$CONF" 2>"$tmp/mdkd.log" &
pid=$!
for _ in $(seq 300); do
	"$MDKCTL" status -j >"$tmp/status.json" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
ktap_diag "$(head -c 300 "$tmp/status.json")"
[ -S "$SOCK" ] && grep -q '"ok":true' "$tmp/status.json" &&
	grep -q '"cgroups":\[\]' "$tmp/status.json"
ktap_check "the unit's mdkd answers mdkctl on $SOCK and manages no cgroup"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
sed 's/^/# mdkd: /' "$tmp/mdkd.log" | tail -n 5
[ $rc -eq 0 ] && "$MDKD" --restore --config "$CONF" 2>&1 | sed 's/^/# /' &&
	[ "${PIPESTATUS[0]}" -eq 0 ]
ktap_check "SIGTERM stops it with status 0 ($rc); ExecStopPost's --restore succeeds"

# A cgroup named in a configuration (a drop-in would do the same).
mkdir "$cg"
sleep 600 &
sleeper=$!
echo "$sleeper" >"$cg/cgroup.procs"
printf '[global]\nsocket = %s/mdkd.sock\nstate_dir = %s\n[cgroup %s]\n' \
	"$tmp" "$tmp" "${cg#/sys/fs/cgroup/}" >"$tmp/mdkd.conf"
"$MDKD" --foreground --config "$tmp/mdkd.conf" 2>>"$tmp/mdkd.log" &
pid=$!
for _ in $(seq 300); do
	"$MDKCTL" -s "$tmp/mdkd.sock" status >"$tmp/status.txt" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
sed 's/^/# /' "$tmp/status.txt"
grep -q "^${cg#/sys/fs/cgroup/} " "$tmp/status.txt"
ktap_check "a cgroup the configuration names is managed"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ]
ktap_check "and mdkd stops cleanly again ($rc)"

# The sampler's BPF object is inside mdkctl, relocated for this kernel.
out=$("$MDKCTL" sample "$sleeper" --window 1s --count 1 --csv 2>"$tmp/sample.err")
rc=$?
echo "$out" | cat - "$tmp/sample.err" | sed 's/^/# /' | head -n 4
[ $rc -eq 0 ] && [ "$(echo "$out" | head -n 1 | cut -d, -f1)" = window ] &&
	[ "$(echo "$out" | wc -l)" -eq 2 ]
ktap_check "mdkctl sample loads the packaged BPF object on $KVER"
ktap_finish
