#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl record writes the sampler's windows as a libmdk
# trace that libmdk reads back: a cgroup recorded for 3 windows of 1 s
# gives a closed trace of 3 windows with the window length, page size and
# a description of the page ids in its header; its ids, exported as CSV,
# belong to the process numbers of --procs and sort within each window;
# mdkctl mpc runs on it.  Recording until SIGINT closes the trace too.
. "$(dirname "$0")/lib/sampler_lib.sh"
sampler_require
sampler_workload mdk-sampler-record

ktap_plan 6
t=$MDK_TMP/cg.mdkt
out=$("$MDKCTL" record "$SAMPLER_CG" --window 1s --duration 3s -o "$t" \
	--procs "$MDK_TMP/procs.csv" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
ktap_ok "record 3 windows of 1 s (exit $rc)" test $rc -eq 0 -a -s "$t"

"$MDKCTL" trace info -j "$t" >"$MDK_TMP/info.json" 2>&1
sed 's/^/# /' "$MDK_TMP/info.json"
check_info() {
	python3 - "$MDK_TMP/info.json" <<'PY'
import json, sys
i = json.load(open(sys.argv[1]))
flat = json.dumps(i)
assert i["windows"] == 3, i["windows"]
assert i["records"] > 0
assert i["window_seconds"] == 1 and i["page_size"] == 4096, flat
assert not i["physical"], flat
assert "page id = process << 44" in i["description"], flat
PY
}
ktap_ok "trace info: 3 windows, 1 s, 4096-byte pages, the id layout described" \
	check_info

"$MDKCTL" trace export "$t" "$MDK_TMP/cg.csv"
check_ids() {
	python3 - "$MDK_TMP/cg.csv" "$MDK_TMP/procs.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
procs = {int(r["proc"]) for r in csv.DictReader(open(sys.argv[2]))}
wins = {}
for w, p in rows:
    wins.setdefault(int(w), []).append(int(p))
assert sorted(wins) == [0, 1, 2], sorted(wins)
for ids in wins.values():
    assert ids == sorted(set(ids)), "ids not sorted and unique"
    assert {i >> 44 for i in ids} <= procs, "unknown process numbers"
print("# %d ids, processes %s" % (len(rows), sorted(procs)))
PY
}
ktap_ok "its ids: sorted and unique per window, of the processes in --procs" \
	check_ids

out=$("$MDKCTL" mpc "$t" --policy age --csv 2>&1)
rc=$?
echo "$out" | head -n 4 | sed 's/^/# /'
ktap_ok "mdkctl mpc reads the recorded trace (exit $rc)" \
	test $rc -eq 0 -a "$(echo "$out" | head -n 1 | cut -d, -f1)" = policy

t2=$MDK_TMP/pid.mdkt
"$MDKCTL" record "$SAMPLER_PID" --window 1s -o "$t2" >"$MDK_TMP/rec.out" \
	2>"$MDK_TMP/rec.err" &
rec=$!
# Interrupt it once it reported two windows.
for _ in $(seq 600); do
	[ "$(wc -l <"$MDK_TMP/rec.out")" -ge 2 ] && break
	sleep 0.1
done
kill -INT $rec
wait $rec
rc=$?
sed 's/^/# /' "$MDK_TMP/rec.err"
n=$("$MDKCTL" trace info -j "$t2" 2>&1 | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["windows"])' 2>/dev/null)
ktap_ok "record until SIGINT: exit $rc, a closed trace of ${n:-?} windows" \
	test $rc -eq 0 -a "${n:-0}" -ge 2

out=$("$MDKCTL" record "$SAMPLER_CG" --window 1s 2>&1)
rc=$?
ktap_diag "$out"
ktap_ok "no -o: exit 2" test $rc -eq 2
ktap_finish
