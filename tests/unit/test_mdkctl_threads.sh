#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkctl mpc --threads: a trace's curves on 1, 2, 3 and 8
# threads and on the default (every CPU) print the same CSV, byte for
# byte; a thread count that is 0, negative, not a number or over 1024 is
# refused with exit 2 and names the option and the range.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
MDKCTL=${MDKCTL:-$top/build/bin/mdkctl}
[ -x "$MDKCTL" ] || ksft_skip "$MDKCTL not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 7

"$MDKCTL" synth "$tmp/t.mdkt" --pages 30000 --windows 30 --seed 3 >/dev/null
ktap_check "a synthetic trace of 30000 pages"
"$MDKCTL" mpc "$tmp/t.mdkt" --csv --threads 1 >"$tmp/1.csv"
[ "$(wc -l <"$tmp/1.csv")" -gt 1000 ]
ktap_check "one thread: the five default curves"
for n in 2 3 8 default; do
	if [ $n = default ]; then
		"$MDKCTL" mpc "$tmp/t.mdkt" --csv >"$tmp/$n.csv"
	else
		"$MDKCTL" mpc "$tmp/t.mdkt" --csv --threads $n >"$tmp/$n.csv"
	fi
	cmp "$tmp/1.csv" "$tmp/$n.csv"
	ktap_check "$n threads: the same CSV as one"
done
ok=1
for bad in 0 -1 two 1025 3x ""; do
	out=$("$MDKCTL" mpc "$tmp/t.mdkt" --threads "$bad" 2>&1)
	ret=$?
	ktap_diag "--threads '$bad': exit $ret: $out"
	[ $ret -eq 2 ] && [[ $out == *"--threads '$bad': expected a thread count from 1 to 1024"* ]] || ok=0
done
[ $ok = 1 ]
ktap_check "--threads 0, -1, two, 1025, 3x and '': exit 2, the option and its range named"
ktap_finish
