#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl swarm check, the history of several hosts' stress
# logs: a logged stress run's log checks linearizable; the same log with
# one read changed to a value never written does not; a log cut mid-run
# (a host that died) leaves its puts in flight pending and still checks;
# a malformed line is named by file and line.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
MDKCTL=${MDKCTL:-$top/build/bin/mdkctl}
[ -x "$MDKCTL" ] || ksft_skip "$MDKCTL not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 5

"$MDKCTL" swarm stress --clients 3 --ops 300 --seconds 5 --log "$tmp/a.log" >/dev/null
ktap_check "a logged stress run"
out=$("$MDKCTL" swarm check "$tmp/a.log")
ktap_diag "$out"
[[ $out == *": linearizable" ]]
ktap_check "its log checks linearizable"

# A read of a value nobody wrote.
awk '$1 == "c" { kind[$2] = $3 }
	$1 == "r" && !done && kind[$2] == "get" && $4 != "absent" { $4 = 12345; done = 1 }
	{ print }' "$tmp/a.log" >"$tmp/bad.log"
out=$("$MDKCTL" swarm check "$tmp/bad.log")
ret=$?
ktap_diag "$out"
[ $ret -eq 1 ] && [[ $out == *"NOT linearizable"* ]]
ktap_check "a read changed to a value never written is not linearizable"

# Cut before the return of a put: it is pending, the rest still checks.
n=$(awk '$1 == "c" && $3 == "put" { print NR; exit }' "$tmp/a.log")
head -n "$n" "$tmp/a.log" >"$tmp/cut.log"
printf 'c 9' >>"$tmp/cut.log" # the last line, cut by the kill
out=$("$MDKCTL" swarm check "$tmp/cut.log")
ktap_diag "$out"
[[ $out == *"(1 pending puts"*": linearizable" ]]
ktap_check "a log cut mid-run: the put in flight is pending"

printf 'c 1.1 put 0 7\n' >"$tmp/malformed.log"
out=$("$MDKCTL" swarm check "$tmp/malformed.log" 2>&1)
ret=$?
[ $ret -ne 0 ] && [[ $out == *"malformed.log:1: expected"* ]]
ktap_check "a malformed line is named (file:line, what was expected)"
ktap_finish
