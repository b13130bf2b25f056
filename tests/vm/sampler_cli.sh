#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl sample on a live workload (a shell loop forking
# sleep children): per-window CSV summaries of a cgroup, the process
# table, a PID target's page ids in JSON (sorted, unique, counted) with a
# tier node, and clear errors with exit status 1 or 2 for a missing
# cgroup, a bad option, a process that does not exist and a bad PID list.
. "$(dirname "$0")/lib/sampler_lib.sh"
sampler_require
sampler_workload mdk-sampler-cli

ktap_plan 7

# Each run loads the BPF programs (seconds under TCG): two runs only.
out=$("$MDKCTL" sample "$(basename "$SAMPLER_CG")" --window 1s --count 3 --csv \
	--procs "$MDK_TMP/procs.csv" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
rows=$(echo "$out" | tail -n +2 | awk -F, '$4 > 0 && $5 >= 1' | wc -l)
ktap_ok "--csv, cgroup relative to /sys/fs/cgroup: header and 3 windows with pages (exit $rc)" \
	test $rc -eq 0 -a "$(echo "$out" | head -n 1 | cut -d, -f1-4)" = \
	"window,start_s,end_s,pages" -a "$rows" -eq 3
sed 's/^/# /' "$MDK_TMP/procs.csv"
ktap_ok "--procs: the table names the shell and its sleep children" \
	grep -q ',bash,.*' "$MDK_TMP/procs.csv"

# A PID target: JSON with the ids, and a tier node.
"$MDKCTL" sample "$SAMPLER_PID" --window 1s --count 2 -j --pages --tier-node 0 \
	>"$MDK_TMP/out.json" 2>&1
rc=$?
sed 's/^/# /; s/\(.\{200\}\).*/\1.../' "$MDK_TMP/out.json"
check_json() {
	python3 - "$MDK_TMP/out.json" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    w = json.loads(line)
    ids = w["ids"]
    assert w["window"] == n and len(ids) == w["pages"] > 0, line[:80]
    assert w["procs"] == 1 and w["star"] == 1.0, line[:80]
    assert all(a < b for a, b in zip(ids, ids[1:])), "not sorted"
    assert len({i >> 44 for i in ids}) == 1, "one process number"
    n += 1
assert n == 2
PY
}
ktap_ok "a PID, -j --pages --tier-node 0: 2 objects, ids sorted, unique, counted, all on node 0 (exit $rc)" \
	check_json

out=$("$MDKCTL" sample /sys/fs/cgroup/mdk-no-such-cgroup 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "a missing cgroup: exit 1 and a message naming it" \
	test $rc -eq 1 -a -n "$(echo "$out" | grep mdk-no-such-cgroup)"

out=$("$MDKCTL" sample "$SAMPLER_CG" --window 2x 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "a bad --window: exit 2" test $rc -eq 2

out=$("$MDKCTL" sample 999999 --count 1 --window 100ms 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "a process that does not exist: exit 1 and a message" \
	test $rc -eq 1 -a -n "$(echo "$out" | grep 999999)"

out=$("$MDKCTL" sample 12,x 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "not a PID list: taken for a cgroup name, exit 1" test $rc -eq 1
ktap_finish
