#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the test bench's own logic: tests/tap-count counts nested
# kselftest TAP as documented, and tests/vm/verdict fails a run whose
# kernel log holds a BUG, WARNING, Oops or Call Trace, or whose guest never
# finished.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib.sh"
ktap_plan 7

count() {
	"$top/tests/tap-count"
}

got=$(count <<'EOF2'
TAP version 13
1..4
# selftests: mdk: a
# 1..3
# ok 1 x
# not ok 2 y
# ok 3 z # SKIP no thing
not ok 1 selftests: mdk: a # exit=1
# selftests: mdk: b
ok 2 selftests: mdk: b
# selftests: mdk: c
# ok 1 only
not ok 3 selftests: mdk: c # TIMEOUT 300s
# selftests: mdk: d
ok 4 selftests: mdk: d # SKIP
EOF2
)
# a: 1 pass 1 fail 1 skip; b: 1 pass; c: 1 pass + 1 fail (timeout); d: 1 skip
ktap_ok "tap-count counts subtests, bare programs and failures outside subtests (got $got)" \
	test "$got" = "3 2 2"

ktap_ok "tap-count of nothing is zero" test "$(count </dev/null)" = "0 0 0"

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
verdict() {
	"$top/tests/vm/verdict" "$fake" testkernel 1 >"$fake/out" 2>&1
}
echo 0 >"$fake/status"
printf 'TAP version 13\n1..1\nok 1 selftests: mdk: t\n' >"$fake/tap.txt"
printf '[    1.0] all quiet\n' >"$fake/dmesg.txt"
ktap_ok "verdict passes a clean run" verdict

for bad in "BUG: kernel NULL pointer dereference" "WARNING: CPU: 0 PID: 1 at mm/x.c:1" \
	"Oops: 0000 [#1] SMP" "Call Trace:"; do
	printf '[    1.0] %s\n' "$bad" >"$fake/dmesg.txt"
	if verdict; then
		ktap_fail "verdict fails a run whose log has '$bad'"
		break
	fi
done
[ "$ktap_failed" -eq 0 ] && ktap_pass "verdict fails runs with BUG, WARNING, Oops or Call Trace"

printf '[    1.0] all quiet\n' >"$fake/dmesg.txt"
rm -f "$fake/status"
if verdict; then ktap_fail "verdict fails a guest that never finished"; else ktap_pass "verdict fails a guest that never finished"; fi

echo 1 >"$fake/status"
if verdict; then ktap_fail "verdict fails a run with a failed test"; else ktap_pass "verdict fails a run with a failed test"; fi

echo 0 >"$fake/status"
verdict
ktap_ok "verdict ends with its own summary line" \
	grep -q '^# vm testkernel: 4 passed, 0 failed, 0 skipped$' "$fake/out"
ktap_finish
