#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the test bench's own logic: tests/tap-count counts nested
# kselftest TAP as documented and fails a program or a run whose results
# do not match its plan, ktap_finish fails a test that ran other than its
# plan, and tests/vm/lib/verdict fails a run whose kernel log holds a BUG,
# WARNING, Oops or Call Trace, or whose guest never finished.  Every case
# is reported whatever the ones before it did.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
ktap_plan 14

count() {
	"$top/tests/tap-count" 2>/dev/null
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

got=$(count <<'EOF2'
TAP version 13
1..3
# selftests: mdk: short
# 1..3
# ok 1 x
# ok 2 y
ok 1 selftests: mdk: short
# selftests: mdk: unplanned
# ok 1 x
ok 2 selftests: mdk: unplanned
# selftests: mdk: planned
# TAP version 13
# 1..2
# ok 1 x
# ok 2 y # SKIP
ok 3 selftests: mdk: planned
EOF2
)
# short: 2 pass + 1 fail (plan 3); unplanned: 1 pass + 1 fail; planned: 1 + 1
ktap_ok "tap-count fails a program whose subtests miss its plan, or that has none (got $got)" \
	test "$got" = "4 2 1"

got=$(printf 'TAP version 13\n1..3\nok 1 a\nok 2 b\nTAP version 13\n1..1\nok 1 c\n' | count)
ktap_ok "tap-count fails a run that ends short of its plan, per document (got $got)" \
	test "$got" = "3 1 0"

got=$(printf 'TAP version 13\n1..0 # SKIP nothing built\n' | count)
ktap_ok "tap-count counts a skipped run as one skip (got $got)" test "$got" = "0 0 1"

# ktap_finish in a test of its own: plan 3, two cases run.
short_test() {
	bash -c '. "$1"; ktap_plan 3; ktap_pass a; ktap_pass b; ktap_finish' _ \
		"$top/tests/vm/lib/lib.sh"
}
out=$(short_test)
ret=$?
ktap_ok "ktap_finish exits 1 when the cases run are not the plan (exit $ret)" \
	eval '[ $ret -eq 1 ] && [[ $out == *"# Planned tests != run tests (3 != 2)"* ]]'
out=$(bash -c '. "$1"; ktap_plan 2; ktap_pass a; ktap_skip b; ktap_finish' _ \
	"$top/tests/vm/lib/lib.sh")
ktap_ok "ktap_finish exits 0 when they are (exit $?)" test $? -eq 0

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
verdict() {
	"$top/tests/vm/lib/verdict" "$fake" testkernel 1 >"$fake/out" 2>&1
}
echo 0 >"$fake/status"
printf 'TAP version 13\n1..1\nok 1 selftests: mdk: t\n' >"$fake/tap.txt"
printf '[    1.0] all quiet\n' >"$fake/dmesg.txt"
ktap_ok "verdict passes a clean run" verdict

missed=""
for bad in "BUG: kernel NULL pointer dereference" "WARNING: CPU: 0 PID: 1 at mm/x.c:1" \
	"Oops: 0000 [#1] SMP" "Call Trace:"; do
	printf '[    1.0] %s\n' "$bad" >"$fake/dmesg.txt"
	verdict && missed="$missed '$bad'"
done
ktap_ok "verdict fails runs with BUG, WARNING, Oops or Call Trace (passed:${missed:- none})" \
	test -z "$missed"

printf '[    1.0] all quiet\n' >"$fake/dmesg.txt"
rm -f "$fake/status"
if verdict; then ktap_fail "verdict fails a guest that never finished"; else ktap_pass "verdict fails a guest that never finished"; fi

echo 1 >"$fake/status"
if verdict; then ktap_fail "verdict fails a run with a failed test"; else ktap_pass "verdict fails a run with a failed test"; fi

echo 0 >"$fake/status"
verdict
ktap_ok "verdict ends with its own summary line" \
	grep -q '^# vm testkernel: 4 passed, 0 failed, 0 skipped$' "$fake/out"

printf 'TAP version 13\n1..1\n# selftests: mdk: t\n# 1..2\n# ok 1 a\nok 1 selftests: mdk: t\n' >"$fake/tap.txt"
if verdict; then ktap_fail "verdict fails a run with a test short of its plan"; else ktap_pass "verdict fails a run with a test short of its plan"; fi

# A host killed in its second test, as the test asked.
printf 'TAP version 13\n1..2\n# selftests: mdk: a\nok 1 selftests: mdk: a\n# selftests: mdk: b\n# 1..1\n# ok 1 x\n' >"$fake/tap.txt"
echo 0 >"$fake/killed"
"$top/tests/vm/lib/verdict" "$fake" testkernel 1 killed >"$fake/out" 2>&1
ret=$?
ktap_ok "verdict of a killed host closes the test it ran and counts its cases (exit $ret)" \
	eval '[ $ret -eq 0 ] && grep -q "^ok 2 selftests: mdk: b # killed as it asked$" "$fake/tap.txt" &&
		grep -q "^# vm testkernel: 3 passed, 0 failed, 0 skipped$" "$fake/out"'
ktap_finish
