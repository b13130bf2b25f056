#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the mdkd binary on a configuration with drop-ins:
# --dump-config prints every key with the file:line that set it (the
# drop-ins read in byte order after the file, other names ignored), its
# output is a configuration that dumps again to the same values,
# --check-config counts the files, and a bad drop-in makes both fail
# with its file:line and print nothing.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
[ -x "$MDKD" ] || ksft_skip "$MDKD not built (make build/bin/mdkd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 6

mkdir -p "$tmp/etc/mdkd.conf.d" "$tmp/copy"
cat >"$tmp/etc/mdkd.conf" <<'EOF'
[global]
interval = 10s
reclaim_ratio = 0.001

[cgroup workload.slice/*]
psi_threshold = 0.05
EOF
cat >"$tmp/etc/mdkd.conf.d/50-db.conf" <<'EOF'
[global]
prometheus_file = /run/mdk/mdkd.prom

[cgroup workload.slice/db.service]
; the database: half the default pressure
psi_threshold = 0.025
EOF
printf '[global]\ninterval = 5s\n' >"$tmp/etc/mdkd.conf.d/90-local.conf"
printf '[global]\ninterval = 1s\n' >"$tmp/etc/mdkd.conf.d/90-local.conf.bak"
printf 'not a configuration\n' >"$tmp/etc/mdkd.conf.d/README"

out=$("$MDKD" --dump-config -c "$tmp/etc/mdkd.conf" 2>"$tmp/err")
rc=$?
while IFS= read -r l; do ktap_diag "$l"; done <<<"${out//$tmp/\$TMP}"
d=$tmp/etc/mdkd.conf.d
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
	grep -qxF "interval = 5s ; $d/90-local.conf:2" <<<"$out" &&
	grep -qxF "reclaim_ratio = 0.001 ; $tmp/etc/mdkd.conf:3" <<<"$out" &&
	grep -qxF "prometheus_file = /run/mdk/mdkd.prom ; $d/50-db.conf:2" <<<"$out" &&
	grep -qxF "socket = /run/mdk/mdkd.sock ; default" <<<"$out"
ktap_check "--dump-config names the file:line of each [global] value, or default"

grep -qxF "[cgroup workload.slice/*] ; $tmp/etc/mdkd.conf:5" <<<"$out" &&
	grep -qxF "[cgroup workload.slice/db.service] ; $d/50-db.conf:4" <<<"$out" &&
	grep -qxF "psi_threshold = 0.025% ; $d/50-db.conf:6" <<<"$out" &&
	! grep -q "README\|\.bak" <<<"$out"
ktap_check "and of each [cgroup] section and its keys, in reading order; other names ignored"

# The dump as a configuration (elsewhere: no drop-ins beside it).
printf '%s\n' "$out" >"$tmp/copy/mdkd.conf"
again=$("$MDKD" --dump-config -c "$tmp/copy/mdkd.conf")
values() { sed -e 's/ ; .*//' -e '/^;/d'; }
[ -n "$again" ] && [ "$(values <<<"$out")" = "$(values <<<"$again")" ]
ktap_check "the dump parses, and dumps again to the same keys and values"

check=$("$MDKD" --check-config -c "$tmp/etc/mdkd.conf" 2>&1)
ktap_diag "${check//$tmp/\$TMP}"
[ "$check" = "$tmp/etc/mdkd.conf: ok, 3 files, 2 [cgroup] sections" ]
ktap_check "--check-config reads the drop-ins"

printf '[global]\ninterval = 5s\n\nbogus = 1\n' >"$d/60-bad.conf"
"$MDKD" --dump-config -c "$tmp/etc/mdkd.conf" >"$tmp/out" 2>"$tmp/err"
rc=$?
ktap_diag "$(sed "s|$tmp|\$TMP|g" "$tmp/err")"
[ $rc -ne 0 ] && [ ! -s "$tmp/out" ] &&
	grep -qF "$d/60-bad.conf:4: bogus: unknown key" "$tmp/err"
ktap_check "a bad drop-in: --dump-config fails with its file:line, prints nothing"

"$MDKD" --check-config -c "$tmp/etc/mdkd.conf" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -qF "$d/60-bad.conf:4: bogus: unknown key" "$tmp/err"
ktap_check "and --check-config too"
ktap_finish
