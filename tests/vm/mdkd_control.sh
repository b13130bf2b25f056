#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl against a running mdkd: status in text, JSON and CSV;
# set changes settings at runtime, all or nothing, and refuses bad values,
# unmanaged cgroups and malformed arguments; cgroup create/attach/list/
# release through libcgroup; the control socket is mode 0600 and refuses
# other users; garbage, oversized, invalid UTF-8, half-sent requests and a
# flood of clients get errors and leave the daemon answering.
. "$(dirname "$0")/lib/mdkd_lib.sh"

RAWSOCK=$MDK_BUILD/tests/vm/lib/mdkd_rawsock

require_root
require_file "$MDKD"
require_file "$RAWSOCK"

ktap_plan 9
a=mdk-test-mdkd-ctl-a-$$
new=mdk-test-mdkd-ctl-new-$$
cga=$(cg_new "$a") || ksft_skip "cannot create a cgroup"
mdkd_cgroups+=("/sys/fs/cgroup/$new")
mdkd_conf "$MDK_TMP/mdkd.conf" "interval = 500ms" "[cgroup $a]"
mdkd_start "$MDK_TMP/mdkd.conf" || ktap_finish
sleep 1

mdkctl_ status >"$MDK_TMP/status.txt"
mdkctl_ status -j >"$MDK_TMP/status.json"
mdkctl_ status --csv >"$MDK_TMP/status.csv"
cat "$MDK_TMP/status.txt" | sed 's/^/# /'
views() {
	grep -q "^$a  *senpai  *reclaim " "$MDK_TMP/status.txt" &&
		grep -q '^{"v":1,"ok":true,"daemon":{' "$MDK_TMP/status.json" &&
		grep -q "\"path\":\"$a\"" "$MDK_TMP/status.json" &&
		head -n 1 "$MDK_TMP/status.csv" | grep -q '^cgroup,mode,actuator,memory_current' &&
		grep -q "^$a,senpai,reclaim," "$MDK_TMP/status.csv"
}
ktap_ok "status in text, JSON and CSV" views

set_ok() {
	mdkctl_ set "$a" interval=2s reclaim_ratio=0.1 mode=senpai-integral &&
		mdkctl_ cgroup list >"$MDK_TMP/list.txt" &&
		grep -q "^$a  *senpai-integral  *reclaim  *2s .*+ runtime" "$MDK_TMP/list.txt"
}
ktap_ok "set changes settings at runtime" set_ok

set_refused() {
	local r1 r2 r3
	mdkctl_ set "$a" interval=1s reclaim_ratio=lots 2>"$MDK_TMP/set.err"
	r1=$?
	mdkctl_ set not-managed-$$ interval=1s 2>/dev/null
	r2=$?
	mdkctl_ set "$a" interval 2>/dev/null
	r3=$?
	mdkctl_ cgroup list >"$MDK_TMP/list.txt"
	[ $r1 -eq 1 ] && [ $r2 -eq 1 ] && [ $r3 -eq 2 ] &&
		grep -q 'reclaim_ratio: expected a number' "$MDK_TMP/set.err" &&
		grep -q "^$a .* 2s " "$MDK_TMP/list.txt"
}
ktap_ok "set refuses bad values, unmanaged cgroups, malformed arguments" set_refused

created() {
	mdkctl_ cgroup create "$new" reclaim_ratio=0.01 &&
		[ -e "/sys/fs/cgroup/$new/memory.current" ] &&
		mdkctl_ cgroup list | grep -q "^$new .* runtime$"
}
ktap_ok "cgroup create makes it (memory on) and mdkd manages it" created

sleep 300 &
sleeper=$!
attached() {
	mdkctl_ cgroup attach "$new" $sleeper &&
		grep -qx $sleeper "/sys/fs/cgroup/$new/cgroup.procs"
}
ktap_ok "cgroup attach moves a process into it" attached
kill $sleeper
wait $sleeper 2>/dev/null

released() {
	mdkctl_ cgroup release "$new" &&
		! mdkctl_ cgroup list | grep -q "^$new "
}
ktap_ok "cgroup release stops managing it" released

root_only() {
	[ "$(stat -c %a "$MDKD_SOCK")" = 600 ] &&
		! setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$MDKCTL" -s "$MDKD_SOCK" status 2>"$MDK_TMP/nobody.err" &&
		grep -q 'Permission denied' "$MDK_TMP/nobody.err"
}
ktap_ok "the socket is mode 0600 and refuses other users" root_only

abuse() {
	local r
	printf 'hello\n' >"$MDK_TMP/garbage"
	head -c 10000 /dev/zero | tr '\0' x >"$MDK_TMP/long"
	printf '{"v":1,"cmd":"\xff\xfe"}\n' >"$MDK_TMP/utf8"
	printf '{"v":9,"cmd":"ping"}\n{"v":1,"cmd":"ping"}\n' >"$MDK_TMP/two"
	"$RAWSOCK" "$MDKD_SOCK" send "$MDK_TMP/garbage" | grep -q '"ok":false,"error":"not JSON' || return 1
	"$RAWSOCK" "$MDKD_SOCK" send "$MDK_TMP/long" | grep -q 'longer than' || return 1
	"$RAWSOCK" "$MDKD_SOCK" send "$MDK_TMP/utf8" | grep -q '"ok":false' || return 1
	"$RAWSOCK" "$MDKD_SOCK" send "$MDK_TMP/two" >"$MDK_TMP/two.out"
	grep -q 'version 9 not supported' "$MDK_TMP/two.out" &&
		grep -q '"ok":true' "$MDK_TMP/two.out" || return 1
	"$RAWSOCK" "$MDKD_SOCK" half || return 1
	r=$("$RAWSOCK" "$MDKD_SOCK" flood 40)
	ktap_diag "flood of 40 clients: $r"
	[ "${r%% *}" -ge 8 ] && kill -0 "$MDKD_PID" && mdkctl_ status >/dev/null
}
ktap_ok "the socket survives garbage and floods, and still answers" abuse
mdkd_stop
ktap_ok "mdkd exits 0 on SIGTERM" [ $? -eq 0 ]
ktap_finish
