#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the PSI guard holds in mdkd's policy mode.  A managed cgroup
# holds the cold/hot workload (24 MiB cold, 8 MiB hot) in one child and a
# thrasher in another: 48 MiB read in a loop under a memory.high of
# 8 MiB, so the subtree's memory pressure stays above psi_threshold (0.5%).
# With AGE T=2 (which would page the cold set out within three windows)
# mdkd pauses every page-out while the thrasher runs: reason "pressure",
# paused windows counted, the cold set still resident.  Once the thrasher
# is gone the page-outs resume and the cold set goes to swap.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=24
HOT=8
WAIT_S=60

mdkd_require 128
command -v python3 >/dev/null || ksft_skip "python3 not installed"

TH_PID=
psi_cleanup() {
	[ -n "$TH_PID" ] && kill -9 "$TH_PID" 2>/dev/null
	mdkd_cleanup
}
trap psi_cleanup EXIT


ktap_plan 5
t0=$SECONDS
name=mdk-test-mdkd-psi-$$
cg=$(cg_new "$name") || ktap_bail "cannot create the cgroup"
echo "+memory" >"$cg/cgroup.subtree_control"
mkdir "$cg/work" "$cg/thrash"
mdkd_cgroups=("$cg/work" "$cg/thrash" "${mdkd_cgroups[@]}")
echo $((8 << 20)) >"$cg/thrash/memory.high"
sh -c "echo \$\$ >$cg/thrash/cgroup.procs && exec $MDKD_WORKLOAD --cold 1 \
	--hot 48 --seconds 300" &
TH_PID=$!
workload_start "$cg/work" $COLD $HOT || ktap_bail "the workload did not start"
mdkd_conf "$MDK_TMP/psi.conf" "[cgroup $name]" "mode = policy" \
	"window = 2s" "horizon = 30" "psi_threshold = 0.5%" \
	"policy = age:T=2" "auto_tune = off" "backend = swap"
mdkd_start "$MDK_TMP/psi.conf"
mdkctl_ status | grep -q "^$name "
ktap_check "mdkd (policy age:T=2, psi_threshold 0.5%) manages a cgroup with a thrashing child"

# Six windows under pressure: AGE T=2 picks the cold set from the third.
paused=0
for _ in $(seq $((WAIT_S * 2))); do
	paused=$(status_py "p['totals']['paused_windows']")
	[ "${paused:-0}" -ge 3 ] && break
	sleep 0.5
done
out=$(status_py "p['totals']['paused_windows'], p['totals']['picked_pages'], p['totals']['out_pages'], c['last']['reason']")
swap=$(smaps_kb Swap)
ktap_diag "under pressure, after $((SECONDS - t0)) s: paused windows, picked, out, last reason: $out; workload Swap ${swap} kB; $(head -n 1 "$cg/memory.pressure")"
read -r paused picked outp reason <<<"$out"
[ "${paused:-0}" -ge 3 ] && [ "${picked:-0}" -ge $((COLD * 256 * 9 / 10)) ] &&
	[ "$reason" = pressure ]
ktap_check "pressure pauses the page-outs: >= 3 paused windows with the cold set picked, reason pressure"
[ "${outp:-1}" -eq 0 ] && [ "${swap:-0}" -le $((COLD * 1024 / 10)) ]
ktap_check "nothing paged out by mdkd while paused: out_pages 0, the cold set resident"

kill -TERM "$TH_PID"
wait "$TH_PID" 2>/dev/null
TH_PID=
want=$((COLD * 1024 * 9 / 10))
for _ in $(seq $((WAIT_S * 2))); do
	swap=$(smaps_kb Swap)
	[ "${swap:-0}" -ge $want ] && break
	sleep 0.5
done
out=$(status_py "p['totals']['paused_windows'], p['totals']['out_pages'], c['last']['reason']")
ktap_diag "without the thrasher, after $((SECONDS - t0)) s: paused windows, out, last reason: $out; workload Swap ${swap} kB"
[ "${swap:-0}" -ge $want ]
ktap_check "the thrasher gone, the page-outs resume: the cold set ($COLD MiB) goes to swap"
workload_stop
wl=$?
mdkd_stop
[ $wl -eq 0 ]
ktap_check "the workload's data is intact (exit 0)"
ktap_diag "mdkd_policy_psi took $((SECONDS - t0)) s"
ktap_finish
