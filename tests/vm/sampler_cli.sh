#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl sample on a live workload: per-window summaries as
# CSV and text, the process table, page ids in JSON (sorted, unique), a
# PID target with a tier node, and clear errors with exit status 1 or 2
# for a missing cgroup, a bad option and a process that does not exist.
. "$(dirname "$0")/lib.sh"
require_root
require_file "$MDKCTL"
command -v stress-ng >/dev/null || ksft_skip "stress-ng not installed"
command -v python3 >/dev/null || ksft_skip "python3 not installed"

cg=/sys/fs/cgroup/mdk-sampler-cli-$$
mkdir "$cg" || ksft_skip "cannot create $cg"
sh -c "echo \$\$ >$cg/cgroup.procs && exec stress-ng --vm 1 --vm-bytes 8M \
	--vm-keep --vm-hang 1 --timeout 120s -q" &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pkill -P "$pid" 2>/dev/null
	for _ in $(seq 50); do
		[ -s "$cg/cgroup.procs" ] || break
		sleep 0.1
	done
	rmdir "$cg" 2>/dev/null
}
trap cleanup EXIT
# Wait until the stressor child runs in the cgroup.
for _ in $(seq 100); do
	[ "$(wc -l <"$cg/cgroup.procs")" -ge 2 ] && break
	sleep 0.1
done

ktap_plan 7

# Each run loads the BPF programs (seconds under TCG): three runs only.
out=$("$MDKCTL" sample "$cg" --window 1s --count 3 --csv \
	--procs "$MDK_TMP/procs.csv" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
rows=$(echo "$out" | tail -n +2 | awk -F, '$4 > 0 && $5 >= 2' | wc -l)
ktap_ok "--csv: header and 3 windows with pages of 2+ processes (exit $rc)" \
	test $rc -eq 0 -a "$(echo "$out" | head -n 1 | cut -d, -f1-4)" = \
	"window,start_s,end_s,pages" -a "$rows" -eq 3
sed 's/^/# /' "$MDK_TMP/procs.csv"
ktap_ok "--procs: the table names the stressor processes" \
	grep -q ',stress-ng' "$MDK_TMP/procs.csv"

# JSON with the ids; a relative cgroup name.
"$MDKCTL" sample "$(basename "$cg")" --window 1s --count 2 -j --pages \
	>"$MDK_TMP/out.json" 2>&1
rc=$?
check_json() {
	python3 - "$MDK_TMP/out.json" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    w = json.loads(line)
    ids = w["ids"]
    assert w["window"] == n and len(ids) == w["pages"] > 0, line[:80]
    assert all(a < b for a, b in zip(ids, ids[1:])), "not sorted"
    n += 1
assert n == 2
PY
}
ktap_ok "-j --pages: 2 JSON objects whose ids are sorted, unique and counted (exit $rc)" \
	check_json

spid=$(tail -n 1 "$cg/cgroup.procs")
out=$("$MDKCTL" sample "$spid" --window 1s --count 1 --tier-node 0 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
ktap_ok "a PID target with --tier-node 0: all pages on node 0, STAR 1.000 (exit $rc)" \
	test $rc -eq 0 -a "$(echo "$out" | grep -c '^window 0 .* pages .*1 procs.*STAR 1.000')" -eq 1

out=$("$MDKCTL" sample /sys/fs/cgroup/mdk-no-such-cgroup 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "a missing cgroup: exit 1 and a message naming it" \
	test $rc -eq 1 -a -n "$(echo "$out" | grep mdk-no-such-cgroup)"

out=$("$MDKCTL" sample "$cg" --window 2x 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "a bad --window: exit 2" test $rc -eq 2

out=$("$MDKCTL" sample 999999 --count 1 --window 100ms 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "a process that does not exist: exit 1 and a message" \
	test $rc -eq 1 -a -n "$(echo "$out" | grep 999999)"

ktap_finish
