#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl trace report on the mix fixture: the text report's
# totals; -j parses, with arrays as long as it says and the reuses adding
# up; every --csv table has the documented header and rectangular rows,
# and --csv windows equals -j's per_window; --plot writes a PNG and an
# SVG; a missing file, a corrupt trace, a bad --plot extension and an
# unknown --csv table get clear errors.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
MDKCTL=${MDKCTL:-$top/build/bin/mdkctl}
[ -x "$MDKCTL" ] || ksft_skip "$MDKCTL not built"
PY=/usr/bin/python3
[ -x $PY ] || ksft_skip "$PY missing"
trace=$top/tests/fixtures/mdk/mix/trace.mdkt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 9

out=$("$MDKCTL" trace report "$trace")
[[ $out == *"windows      40 of 30 s"* ]] &&
	[[ $out == *"pages        1430 distinct, 12118 accesses"* ]] &&
	[[ $out == *"never (pages)                   50"* ]]
ktap_check "text report: 40 windows, 1430 pages, 12118 accesses, 50 never reused"

"$MDKCTL" trace report "$trace" -j >"$tmp/r.json" && $PY - "$tmp/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
W, K = d["windows"], len(d["idle_thresholds"])
assert (W, d["pages"], d["accesses"]) == (40, 1430, 12118), d
assert d["idle_thresholds"] == [1, 2, 4, 8, 16, 32]
assert len(d["per_window"]) == W and all(len(w["idle"]) == K for w in d["per_window"])
assert sum(w["accessed"] for w in d["per_window"]) == d["accesses"]
assert d["per_window"][-1]["footprint"] == d["pages"]
assert sum(b["reuses"] for b in d["reuse"]) == d["reuses"] == d["accesses"] - d["pages"]
p = d["popularity"]
assert sum(h["pages"] for h in p["pages_by_windows"]) == d["pages"]
assert p["pages_by_windows"][0]["windows"] == 1
assert p["pages_by_windows"][0]["pages"] == d["never_reused_pages"] == 50
h = d["heatmap"]
assert len(h["fraction"]) == len(h["ranges"]) <= 200
assert all(len(r) == len(h["columns"]) for r in h["fraction"])
assert sum(r["pages"] for r in h["ranges"]) == d["pages"]
PY
ktap_check "-j parses; its arrays and totals agree"

ok=0
declare -A header=(
	[summary]="key,value"
	[windows]="window,accessed,footprint,idle_ge_1,idle_ge_2,idle_ge_4,idle_ge_8,idle_ge_16,idle_ge_32"
	[reuse]="min_windows,max_windows,reuses"
	[popularity]="windows_accessed,pages"
	[top]="share,pages,accesses"
	[heatmap]="range,first_index,last_index,pages,column,first_window,last_window,fraction"
)
for t in summary windows reuse popularity top heatmap; do
	"$MDKCTL" trace report "$trace" --csv $t >"$tmp/$t.csv" || ok=1
	h=$(head -n1 "$tmp/$t.csv")
	[ "$h" = "${header[$t]}" ] || { ktap_diag "$t: header '$h'"; ok=1; }
	n=$(awk -F, -v n="$(awk -F, '{ print NF; exit }' "$tmp/$t.csv")" \
		'NF != n { bad++ } END { print bad + 0 }' "$tmp/$t.csv")
	[ "$n" = 0 ] || { ktap_diag "$t: $n ragged rows"; ok=1; }
done
[ $ok = 0 ]
ktap_check "--csv TABLE: the documented header, rectangular rows, for each table"

[ "$(wc -l <"$tmp/windows.csv")" = 41 ] && [ "$(wc -l <"$tmp/reuse.csv")" = 7 ] &&
	[ "$(wc -l <"$tmp/top.csv")" = 5 ] &&
	grep -qx "pages,1430" "$tmp/summary.csv" &&
	grep -qx "never_reused_pages,50" "$tmp/summary.csv" &&
	$PY - "$tmp" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1] + "/r.json"))
rows = list(csv.DictReader(open(sys.argv[1] + "/windows.csv")))
for w, r in zip(d["per_window"], rows):
	assert int(r["window"]) == w["window"] and int(r["accessed"]) == w["accessed"]
	assert int(r["footprint"]) == w["footprint"]
	assert [int(r["idle_ge_%d" % t]) for t in d["idle_thresholds"]] == w["idle"]
cells = list(csv.DictReader(open(sys.argv[1] + "/heatmap.csv")))
h = d["heatmap"]
assert len(cells) == len(h["ranges"]) * len(h["columns"])
for c in cells:
	assert abs(float(c["fraction"]) - h["fraction"][int(c["range"])][int(c["column"])]) < 1e-9
PY
ktap_check "--csv rows: 40 windows, 6 reuse buckets, 4 tops; windows and heatmap equal -j's"

"$MDKCTL" trace report "$trace" --plot "$tmp/r.png" >/dev/null &&
	[ "$(head -c 8 "$tmp/r.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	[ "$(stat -c %s "$tmp/r.png")" -gt 10000 ]
ktap_check "--plot FILE.png: a PNG file"

"$MDKCTL" trace report "$trace" --plot "$tmp/r.svg" -j >/dev/null &&
	$PY -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "{http://www.w3.org/2000/svg}svg", r.tag
assert len(list(r.iter())) > 100' "$tmp/r.svg"
ktap_check "--plot FILE.svg: an SVG document"

out=$("$MDKCTL" trace report "$tmp/missing.mdkt" 2>&1)
[ $? = 1 ] && [[ $out == *"$tmp/missing.mdkt: No such file"* ]]
ktap_check "a missing file: exit 1, named"

cp "$trace" "$tmp/bad.mdkt"
printf '\xff\xff\xff\xff' | dd of="$tmp/bad.mdkt" bs=1 seek=200 conv=notrunc 2>/dev/null
out=$("$MDKCTL" trace report "$tmp/bad.mdkt" 2>&1)
ret=$?
ktap_diag "$out"
[ $ret = 1 ] && [[ $out == *"$tmp/bad.mdkt"* ]]
ktap_check "a corrupt trace: exit 1, named"

out=$("$MDKCTL" trace report "$trace" --plot "$tmp/r.pdf" 2>&1)
ret=$?
out2=$("$MDKCTL" trace report "$trace" --csv wss 2>&1)
ret2=$?
[ $ret = 1 ] && [[ $out == *"r.pdf: expected a plot file ending in .svg or .png"* ]] &&
	[ ! -e "$tmp/r.pdf" ] && [ $ret2 = 2 ] &&
	[[ $out2 == *"--csv 'wss': expected summary, windows, reuse, popularity, top or heatmap"* ]]
ktap_check "a bad --plot extension and an unknown --csv table: refused"
ktap_finish
