#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd's configuration on a real system.  A malformed file is
# refused at start with file:line and the key, and mdkd exits 1;
# --check-config agrees.  SIGHUP with a bad file keeps the running
# configuration (and reports the error in mdkctl status); SIGHUP with a
# good one applies it without losing controller state.  Drop-ins
# (mdkd.conf.d/*.conf): SIGHUP rereads them all and applies all or nothing
# (a bad one names its file:line and keeps a good one beside it out), and
# --dump-config names the file:line of every value.  A managed cgroup
# removed at runtime is noticed, logged and released.
. "$(dirname "$0")/lib/mdkd_lib.sh"

require_root
require_file "$MDKD"

ktap_plan 11
a=mdk-test-mdkd-cfg-a-$$
b=mdk-test-mdkd-cfg-b-$$
cga=$(cg_new "$a") && cgb=$(cg_new "$b") || ksft_skip "cannot create cgroups"

# 1. Refused at start, with the line and the key.
mdkd_conf "$MDK_TMP/bad.conf" "interval = 1s" "[cgroup $a]" \
	"reclaim_ratio = lots"
"$MDKD" -f -c "$MDK_TMP/bad.conf" >"$MDK_TMP/start.out" 2>&1
ret=$?
ktap_diag "$(cat "$MDK_TMP/start.out")"
refused_at_start() {
	[ $ret -eq 1 ] &&
		grep -q 'bad.conf:7: reclaim_ratio: expected a number' "$MDK_TMP/start.out"
}
ktap_ok "a malformed file is refused at start with file:line: key" refused_at_start

"$MDKD" --check-config -c "$MDK_TMP/bad.conf" >"$MDK_TMP/check.out" 2>&1
ret_bad=$?
printf '[global]\n[cgroup x]\n' >"$MDK_TMP/ok.conf"
"$MDKD" --check-config -c "$MDK_TMP/ok.conf" >/dev/null 2>&1
ret_ok=$?
check_config() {
	[ $ret_bad -eq 1 ] && [ $ret_ok -eq 0 ] &&
		grep -q 'bad.conf:7: reclaim_ratio' "$MDK_TMP/check.out"
}
ktap_ok "--check-config refuses it too, and accepts a good one" check_config

# 2. Reloads.  Status columns: 1 cgroup, 2 mode, 17 intervals.
mdkd_conf "$MDK_TMP/mdkd.conf" "interval = 500ms" "reclaim_ratio = 0.001" \
	"[cgroup $a]" "[cgroup $b]"
mdkd_start "$MDK_TMP/mdkd.conf" || ktap_finish
sleep 1
status() {
	mdkctl_ status --csv >"$MDK_TMP/status.csv"
	mdkctl_ cgroup list >"$MDK_TMP/list.txt"
	mdkctl_ status >"$MDK_TMP/status.txt"
}
col() { # col CGROUP N
	awk -F, -v c="$1" -v n="$2" '$1 == c { print $n }' "$MDK_TMP/status.csv"
}
status
before=$(col "$a" 17)
mdkd_conf "$MDK_TMP/mdkd.conf" "interval = 500ms" "reclaim_ratio = 0.001" \
	"[cgroup $a]" "mode = sometimes" "[cgroup $b]"
kill -HUP "$MDKD_PID"
sleep 1
status
ktap_diag "$(grep 'last reload failed' "$MDK_TMP/status.txt")"
kept_old() {
	grep -q "last reload failed: .*mdkd.conf:8: mode: expected one of" \
		"$MDK_TMP/status.txt" && [ "$(col "$a" 2)" = senpai ] &&
		kill -0 "$MDKD_PID" &&
		grep -q 'keeping the previous configuration' "$MDKD_LOG"
}
ktap_ok "SIGHUP with a bad file keeps the old configuration" kept_old

mdkd_conf "$MDK_TMP/mdkd.conf" "interval = 500ms" "reclaim_ratio = 0.001" \
	"[cgroup $a]" "mode = off" "[cgroup $b]" "interval = 1500ms"
kill -HUP "$MDKD_PID"
sleep 1
status
after=$(col "$a" 17)
applied() {
	[ "$(col "$a" 2)" = off ] &&
		grep -q "^$b .* 1.5s " "$MDK_TMP/list.txt" &&
		! grep -q 'last reload failed' "$MDK_TMP/status.txt"
}
ktap_ok "SIGHUP with a good file applies it" applied
ktap_ok "the reloads kept the controller state (intervals $before -> $after)" \
	[ "${after:-0}" -gt "${before:-0}" ]

# 2b. Drop-ins beside the file, all or nothing.
mkdir -p "$MDK_TMP/mdkd.conf.d"
printf '[cgroup %s]\ninterval = 2s\n' "$b" >"$MDK_TMP/mdkd.conf.d/50-b.conf"
printf '[global]\nlog_level = loud\n' >"$MDK_TMP/mdkd.conf.d/60-bad.conf"
kill -HUP "$MDKD_PID"
sleep 1
status
ktap_diag "$(grep 'last reload failed' "$MDK_TMP/status.txt")"
dropin_refused() {
	grep -q "last reload failed: .*60-bad.conf:2: log_level" \
		"$MDK_TMP/status.txt" &&
		grep -q "^$b .* 1.5s " "$MDK_TMP/list.txt"
}
ktap_ok "SIGHUP with a bad drop-in applies none of them (file:line named)" \
	dropin_refused
rm "$MDK_TMP/mdkd.conf.d/60-bad.conf"
kill -HUP "$MDKD_PID"
sleep 1
status
dropin_applied() {
	grep -q "^$b .* 2s " "$MDK_TMP/list.txt" &&
		! grep -q 'last reload failed' "$MDK_TMP/status.txt"
}
ktap_ok "SIGHUP with good drop-ins applies them" dropin_applied
"$MDKD" --dump-config -c "$MDK_TMP/mdkd.conf" >"$MDK_TMP/dump.txt" 2>&1
ktap_diag "$(grep -A1 "^\[cgroup $b\]" "$MDK_TMP/dump.txt" | tail -n 4)"
ktap_ok "--dump-config names the drop-in's file:line of a value" \
	grep -q "^interval = 2s *; $MDK_TMP/mdkd.conf.d/50-b.conf:2" \
	"$MDK_TMP/dump.txt"

# 3. A managed cgroup removed at runtime.
rmdir "$cgb"
for i in $(seq 50); do
	grep -q "$b: cgroup removed" "$MDKD_LOG" && break
	sleep 0.2
done
ktap_ok "a removed cgroup is noticed and logged" \
	grep -q "$b: cgroup removed; no longer managed" "$MDKD_LOG"
status
released() {
	[ -z "$(col "$b" 1)" ] && [ "$(col "$a" 1)" = "$a" ]
}
ktap_ok "it is released, the others stay managed" released
mdkd_stop
ktap_ok "mdkd exits 0 on SIGTERM" [ $? -eq 0 ]
ktap_finish
