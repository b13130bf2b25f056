#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl mpc --tiers and simulate --tiers: the CSV header
# names every tier, a setting simulated prints the row its curve prints,
# --target-stall marks the one best row, a tier file is read like a list,
# and bad specs, tier lists and options exit 2 with what was expected.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
MDKCTL=${MDKCTL:-$top/build/bin/mdkctl}
[ -x "$MDKCTL" ] || ksft_skip "$MDKCTL not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 7

T=$top/tests/fixtures/mdk/mix/trace.mdkt
L="cxl:cost=2us,cap=800;zswap:cost=9us,ratio=3"
"$MDKCTL" mpc "$T" --tiers "$L" --csv tage:T1=2/4/8,T2=8/16/none >"$tmp/c.csv"
[ "$(head -n 1 "$tmp/c.csv")" = "policy,setting,max_stall,mean_stall,max_rate,savings,promotions_cxl,promotions_zswap,peak_cxl,peak_zswap,feasible" ] &&
	[ "$(wc -l <"$tmp/c.csv")" -eq 9 ]
ktap_check "mpc --tiers --csv: the header names both tiers, one row a setting (8)"

ok=1
for s in T1=2,T2=16 T1=4,T2=none T1=8,T2=16; do
	"$MDKCTL" simulate "$T" --tiers "$L" --csv "tage:$s" | tail -n 1 >"$tmp/s.csv"
	grep -qxF "$(cat "$tmp/s.csv")" "$tmp/c.csv" || { ktap_diag "$s: $(cat "$tmp/s.csv")"; ok=0; }
done
[ $ok = 1 ]
ktap_check "simulate --tiers prints, setting by setting, the curve's row"

"$MDKCTL" mpc "$T" --tiers "$L" --csv --target-stall 0.001% tage:T1=2/4/8,T2=8/16/none >"$tmp/b.csv"
[ "$(grep -c ',1$' "$tmp/b.csv")" -eq 1 ] &&
	grep -q '^tage,"T1=4,T2=none",.*,1,1$' "$tmp/b.csv"
ktap_check "--target-stall marks one best row: the feasible T1=4,T2=none"

printf '# two tiers\ncxl:cost=2us,cap=800\nzswap:cost=9us,ratio=3\n' >"$tmp/tiers"
"$MDKCTL" mpc "$T" --tiers "$tmp/tiers" --csv tage:T1=2/4/8,T2=8/16/none | cmp - "$tmp/c.csv"
ktap_check "a tier file gives the list's curve"

# topp: a schedule and a bound row per sigma; the schedule is simulate's.
"$MDKCTL" mpc "$T" --tiers "cxl:cost=2us,cap=800;zswap:cost=9us,ratio=3" \
	--csv topp:sigma=0.001%/0.01% >"$tmp/topp.csv" &&
	"$MDKCTL" simulate "$T" --tiers "cxl:cost=2us,cap=800;zswap:cost=9us,ratio=3" \
		--csv topp:sigma=0.01% >"$tmp/topp1.csv"
[ $? -eq 0 ] && [ "$(grep -c '^topp,' "$tmp/topp.csv")" = 2 ] &&
	[ "$(grep -c '^topp-bound,' "$tmp/topp.csv")" = 2 ] &&
	[ "$(sed -n 2p "$tmp/topp1.csv")" = "$(sed -n 3p "$tmp/topp.csv")" ]
ktap_check "topp: each sigma's schedule and bound; simulate gives the schedule"

ok=1
while IFS='|' read -r tiers spec want; do
	out=$("$MDKCTL" mpc "$T" --tiers "$tiers" "$spec" 2>&1)
	ret=$?
	ktap_diag "--tiers '$tiers' $spec: exit $ret: $out"
	[ $ret -eq 2 ] && [[ $out == *"$want"* ]] || ok=0
done <<'EOS'
cxl:cost=2us|tage:T2=3|T2 given, but the tier list has 1 tier
cxl:cost=2us;swap:cost=9us|tpace:T1=3|no T1
cxl:cost=2us|topp:rho=0.1|unknown parameter 'rho' (expected sigma)
cxl:cost=2us|tage:T1=0|T1=0 is out of range
cxl:cst=2us|tage|unknown key 'cst'
EOS
[ $ok = 1 ]
ktap_check "bad specs and tier lists: exit 2, what was expected"

out=$("$MDKCTL" mpc "$T" --tiers "$L" --window 1s --per-access 2>&1)
[ $? -eq 2 ] && [[ $out == *"give one D(w)"* ]] &&
	"$MDKCTL" simulate "$T" --tiers "$L" >/dev/null 2>&1
[ $? -eq 2 ]
ktap_check "--window with --per-access, or simulate without a SPEC: exit 2"
ktap_finish
