#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd's policy mode runs L-OPP learnt live, and its rate
# guard holds the target when the workload's pattern changes.  A workload
# of 16 MiB cold, 4 MiB hot and 8 MiB warm in a real cgroup, windows of
# 2 s, policy lopp auto-tuned to a target of 2% with backend swap: the
# evaluator fits models to OPP's labels over the horizon and the cold pages
# go to swap.  Then the warm set, idle since its fill, is read every 4 s:
# pages L-OPP took for cold fault back and a window's measured rate
# exceeds the target.  The guard raises theta until it holds: from two
# windows after its last step on, no window's measured rate is above 1.5x
# the target.  The data survives.  LOPP_MODEL (lopp_model, default
# logistic) is what mdkd_policy_lopp_trees.sh sets.
. "$(dirname "$0")/lib/mdkd_lib.sh"

COLD=16
HOT=4
WARM=8
TARGET=0.02
WARM_AFTER=50 # s: the pattern change
RUN=130 # s of workload in all
WAIT_S=90
LOPP_MODEL=${LOPP_MODEL:-logistic}

mdkd_require 128
command -v python3 >/dev/null || ksft_skip "python3 not installed"


ktap_plan 5
t0=$SECONDS
name=mdk-test-mdkd-lopp-$$
cg=$(cg_new "$name") || ktap_bail "cannot create the cgroup"
WL_ARGS="--warm $WARM --warm-after $WARM_AFTER --warm-every 4"
workload_start "$cg" $COLD $HOT $RUN || ktap_bail "the workload did not start"
wl_t0=$SECONDS
mdkd_conf "$MDK_TMP/lopp.conf" "[cgroup $name]" "mode = policy" \
	"window = 2s" "horizon = 12" "psi_threshold = 20%" "policy = lopp" \
	"auto_tune = on" "target_rate = 2%" "warmup = 4" "backend = swap" \
	"evaluate = age,lopp" "drop_swap_cache = off" "lopp_model = $LOPP_MODEL"
# The drop's own promotions (the kernel's choice of pages, counted in
# every setting's curve) are not what this test is about.
mdkd_start "$MDK_TMP/lopp.conf" || ktap_bail "mdkd did not start"
mdkctl_ status | grep -q "^$name "
ktap_check "mdkd (policy lopp $LOPP_MODEL, auto-tuned to 2%, rate_guard on) manages the workload's cgroup"

# Per window: index, measured promotions, accessed pages (status, polled).
declare -A prom acc
poll() {
	local out idx m a
	out=$(status_py "p['last_window']['window'], p['last_window']['swapin_pages'] + p['last_window']['file_refault_pages'] + p['last_window']['promote_pages'], p['last_window']['pages']")
	read -r idx m a <<<"$out"
	[ -n "$a" ] || return 0
	prom[$idx]=$m
	acc[$idx]=$a
}

# Before the change: models learnt, the cold set on its way to swap.
want=$((COLD * 1024 * 8 / 10))
while [ $((SECONDS - wl_t0)) -lt $((WARM_AFTER - 4)) ]; do
	poll
	sleep 1
done
swap=$(smaps_kb Swap)
out=$(status_py "p['lopp']['trainings'], p['lopp']['rows'], p['lopp']['auc'], p['totals']['out_pages'], p['running']['setting']")
ktap_diag "before the change, after $((SECONDS - t0)) s: trainings, rows, auc, out pages, setting: $out; workload Swap ${swap} kB"
read -r trainings rows auc outp setting <<<"$out"
model=$(status_py "p['lopp']['model']")
[ "${trainings:-0}" -ge 2 ] && [ "${swap:-0}" -ge $want ] &&
	[ "${setting#lopp}" != "$setting" ] && [ "$model" = "$LOPP_MODEL" ]
ktap_check "L-OPP ($model) learns live (>= 2 models) and pages the cold set out (>= 80% of $COLD MiB in swap)"

# After the change: the warm set comes back every 4 s.
while [ $((SECONDS - wl_t0)) -lt $((RUN - 4)) ]; do
	poll
	sleep 1
done
out=$(status_py "p['lopp']['guard_steps'], p['lopp']['guard_window'], p['lopp']['guard_theta'], p['running']['setting'], p['lopp']['trainings']")
read -r steps gwin gtheta setting trainings <<<"$out"
ktap_diag "status -j, policy.lopp: $(status_py "json.dumps(p['lopp'])")"
ktap_diag "after the change: guard steps $steps, last in window $gwin, guard theta $gtheta, running $setting, $trainings models"
rates=$(for i in $(printf '%s\n' "${!acc[@]}" | sort -n); do
	echo "$i ${prom[$i]} ${acc[$i]}"
done)
ktap_diag "windows (index promotions accessed): $(echo "$rates" | tr '\n' ';')"
verdict=$(echo "$rates" | python3 -c "
import sys
t, g = $TARGET, int('${gwin:-None}' if '${gwin:-None}' != 'None' else -1)
rows = [tuple(map(int, l.split())) for l in sys.stdin if l.strip()]
change = [i for i, p, a in rows if a and p > t * a]
after = [(i, p / a) for i, p, a in rows if a and i >= g + 2]
worst = max((r for _, r in after), default=0)
print(len(change), g, len(after), '%.4f' % worst)
")
read -r over gw nafter worst <<<"$verdict"
ktap_diag "windows over the target: $over; after the guard's last step (window $gw) + 2: $nafter windows, worst rate $worst"
[ "${steps:-0}" -ge 1 ] && [ "${over:-0}" -ge 1 ]
ktap_check "the pattern change pushes a window over the target and the guard acts"
python3 -c "import sys; sys.exit(0 if $nafter >= 6 and $worst <= 1.5 * $TARGET else 1)"
ktap_check "after the guard acts the measured window rate stays within 1.5x the target (>= 6 windows)"
workload_stop
wl=$?
mdkd_stop
[ $wl -eq 0 ]
ktap_check "the workload's data is intact (exit 0)"
ktap_diag "$(basename "$0" .sh) took $((SECONDS - t0)) s"
ktap_finish
