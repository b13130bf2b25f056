#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl's Memory Designer's Kit commands run on this kernel
# and agree with each other: synth -> trace info -> mpc --csv -> simulate
# (every curve point checked equals its exact simulation), --target picks
# settings within the rate, export/import round-trips, mrc's LRU curve
# never rises, and a damaged trace is refused with its offset.
. "$(dirname "$0")/lib/lib.sh"
require_file "$MDKCTL"

dir=${MDK_TMP:-/tmp}/mdk_cli.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
t=$dir/t.mdkt

ktap_plan 8
ktap_ok "synth writes a 24-window trace" \
	bash -c "'$MDKCTL' synth '$t' --pages 1000 --windows 24 --seed 4 >'$dir/synth.txt'"
records=$(sed -n 's/.*pages, \([0-9]*\) records.*/\1/p' "$dir/synth.txt")
ktap_diag "$(cat "$dir/synth.txt")"

"$MDKCTL" trace info -j "$t" >"$dir/info.json"
ktap_ok "trace info -j reports its windows and records" \
	bash -c "grep -q '\"windows\":24,' '$dir/info.json' &&
		 grep -q '\"records\":$records,' '$dir/info.json'"

"$MDKCTL" mpc "$t" --csv >"$dir/mpc.csv"
ktap_ok "mpc --csv: the exact header, every default grid (23, 23, 23, 146, 529)" \
	awk -F, 'NR == 1 { if ($0 != "policy,p1,p2,max_rate,mean_rate,p99_rate,savings,promotions") exit 1; next }
		 { n[$1]++ }
		 END { exit !(n["age"] == 23 && n["vmin"] == 23 && n["paw"] == 23 &&
			      n["opp"] == 146 && n["pace"] == 529) }' "$dir/mpc.csv"

# Every point of a sample of settings equals its simulation, row for row.
specs="age:T=1/3/9/23,vmin:T=2/7,paw:P=1/4/12,wait=2,pace:P=1/6,A=1/3/20,opp:rho=0/0.01/0.05/0.3/1"
"$MDKCTL" simulate "$t" --policy "$specs" --csv | tail -n +2 >"$dir/sim.csv"
ok=1
n=0
while IFS= read -r row; do
	n=$((n + 1))
	grep -qxF "$row" "$dir/mpc.csv" || { ktap_diag "not on the curve: $row"; ok=0; }
done <"$dir/sim.csv"
ktap_diag "$n simulated settings"
ktap_ok "simulate gives exactly the curve's rows for $n settings" \
	bash -c "[ $ok = 1 ] && [ $n = 20 ]"

"$MDKCTL" mpc "$t" --target 2% --csv >"$dir/target.csv"
ktap_ok "mpc --target 2%: one setting per policy, each within 2%, OPP saves most" \
	awk -F, 'NR > 1 { n++; if ($4 > 0.02) bad = 1; s[$1] = $7 }
		 END { if (n != 5 || bad) exit 1
		       for (p in s) if (s[p] > s["opp"]) exit 1 }' "$dir/target.csv"

"$MDKCTL" trace export "$t" "$dir/t.csv"
"$MDKCTL" trace import "$dir/t.csv" "$dir/u.mdkt"
ktap_ok "export then import gives the same curve" \
	bash -c "'$MDKCTL' mpc '$dir/u.mdkt' --csv --policy age,opp | cmp -s - <(grep -E '^(policy|age|opp),' '$dir/mpc.csv')"

"$MDKCTL" mrc "$t" --policy lru --csv >"$dir/mrc.csv"
ktap_ok "mrc --csv: header, LRU misses never rise with the size" \
	awk -F, 'NR == 1 { if ($0 != "policy,size,misses,miss_ratio") exit 1; next }
		 { if (NR > 2 && $3 > last) exit 1; last = $3; n++ }
		 END { exit n < 10 }' "$dir/mrc.csv"

head -c 3000 "$t" >"$dir/cut.mdkt"
"$MDKCTL" trace info "$dir/cut.mdkt" >/dev/null 2>"$dir/cut.err"
rc=$?
ktap_diag "$(cat "$dir/cut.err")"
ktap_ok "a truncated trace fails (exit 1) naming the file and offset" \
	bash -c "[ $rc = 1 ] && grep -q 'cut.mdkt: offset [0-9]*:' '$dir/cut.err'"
ktap_finish
