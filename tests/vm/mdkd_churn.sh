#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd under cgroup churn: 200 cgroups a second made and
# removed under a [cgroup churn/*] glob (tests/vm/lib/cg_churn), with a
# rescan every second.  Every cgroup alive longer than a rescan (and a
# margin) when mdkctl status -j is sampled is managed, and none removed
# that long ago still is; once the churn stops and a rescan passed, the
# managed cgroups are exactly those there; mdkd answers, its descriptors
# are back to what they were before the churn and its resident memory
# stopped growing.  Then again, shorter, with mdkd built with ASan, LSan
# and UBSan: no report at exit.
. "$(dirname "$0")/lib/mdkd_lib.sh"

CHURN=$MDK_BUILD/tests/vm/lib/cg_churn
MDKD_SAN=$MDK_BUILD/san/bin/mdkd
RATE=200
SECONDS_PLAIN=${MDK_CHURN_SECONDS:-60}
SECONDS_SAN=${MDK_CHURN_SAN_SECONDS:-20}
MARGIN=2 # s: a rescan under TCG, on top of rescan_interval
STATIC=5 # cgroups there all along

require_root
require_file "$MDKD"
require_file "$MDKD_SAN"
require_file "$CHURN"
command -v python3 >/dev/null || ksft_skip "needs python3"

ktap_plan 9
top=mdk-test-churn-$$
cgtop=$(cg_new "$top") || ksft_skip "cannot create a cgroup"
# What a churn cut short left, before the lib's cleanup removes the rest.
trap '[ -n "$churn_pid" ] && kill $churn_pid 2>/dev/null; wait; rmdir "$cgtop"/c-* 2>/dev/null; mdkd_cleanup' EXIT
echo +memory >"$cgtop/cgroup.subtree_control"
for i in $(seq $STATIC); do
	mkdir "$cgtop/s-$i" && mdkd_cgroups=("$cgtop/s-$i" "${mdkd_cgroups[@]}")
done
mdkd_conf "$MDK_TMP/mdkd.conf" "rescan_interval = 1s" "log_level = notice" \
	"[cgroup $top/*]" "interval = 2s"

now_us() {
	date +%s%6N
}

fds() {
	ls "/proc/$MDKD_PID/fd" | wc -l
}

rss_kb() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$MDKD_PID/status"
}

# check_samples LOG DIR: the managed cgroups of each status sample in DIR
# (N.json, taken between the times in N.t) against the tree LOG says was
# there; prints "samples checked missing stale slowest_ms".
check_samples() {
	python3 - "$@" "$top" $((1000000 + MARGIN * 1000000)) <<'EOF2'
import glob, json, sys
log, d, top, grace = sys.argv[1:]
grace = int(grace)
made, gone = {}, {}
for line in open(log):
    f = line.split()
    if len(f) == 3:
        (made if f[0] == '+' else gone)[top + '/' + f[1]] = int(f[2])
n = checked = missing = stale = slowest = 0
for tf in glob.glob(d + '/*.t'):
    t0, t1 = map(int, open(tf).read().split())
    try:
        managed = {c['path'] for c in json.load(open(tf[:-2] + '.json'))['cgroups']}
    except (ValueError, KeyError):
        missing += 1
        continue
    must = [c for c, t in made.items()
            if t < t0 - grace and gone.get(c, 1 << 62) > t1]
    n += 1
    checked += len(must)
    missing += len([c for c in must if c not in managed])
    stale += len([c for c in managed if c in gone and gone[c] < t0 - grace])
    slowest = max(slowest, (t1 - t0) // 1000)
print(n, checked, missing, stale, slowest)
EOF2
}

# managed_now: the managed cgroups under $top, one a line, sorted.
managed_now() {
	mdkctl_ status -j | python3 -c "
import json, sys
print('\n'.join(sorted(c['path'] for c in json.load(sys.stdin)['cgroups'])))"
}

cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$MDKD_PID/stat"
}

# churn_run MDKD SECONDS: start it, churn, check; sets base_fds, end_fds,
# rss_mid, rss_end, samples, checked, missing, stale, left, made.
churn_pid=
churn_run() {
	local secs=$2 log=$MDK_TMP/churn.$2.log out=$MDK_TMP/churn.$2.out
	local d=$MDK_TMP/samples.$2 t0 i=0 cpu res
	MDKD=$1 MDKD_LOG=$MDK_TMP/mdkd.$2.log
	mdkd_start "$MDK_TMP/mdkd.conf" || return 1
	mkdir -p "$d"
	sleep 2
	base_fds=$(fds)
	cpu=$(cpu_ticks)
	"$CHURN" "$cgtop" $RATE "$secs" "$log" >"$out" 2>&1 &
	churn_pid=$!
	t0=$SECONDS rss_mid=
	while kill -0 $churn_pid 2>/dev/null; do
		i=$((i + 1))
		echo -n "$(now_us) " >"$d/$i.t"
		mdkctl_ status -j >"$d/$i.json"
		now_us >>"$d/$i.t"
		[ -z "$rss_mid" ] && [ $((SECONDS - t0)) -ge $((secs / 4)) ] &&
			rss_mid=$(rss_kb)
		sleep 1
	done
	wait $churn_pid
	churn_pid=
	cpu=$(($(cpu_ticks) - cpu))
	ktap_diag "$(cat "$out")"
	made=$(grep -c '^+' "$log")
	sleep $((1 + MARGIN))
	left=$(diff <(managed_now) <(cd /sys/fs/cgroup && ls -d "$top"/*/ |
		sed 's|/$||' | sort) | grep -c '^[<>]')
	end_fds=$(fds)
	rss_end=$(rss_kb)
	res=($(check_samples "$log" "$d"))
	samples=${res[0]:-0} checked=${res[1]:-0} missing=${res[2]:-1}
	stale=${res[3]:-1}
	ktap_diag "$samples samples (slowest ${res[4]:-?} ms): $checked cgroups due managed, $missing not, $stale removed ones still managed;" \
		"mdkd's CPU $((cpu * 100 / $(getconf CLK_TCK) / (SECONDS - t0)))%;" \
		"after: $left differences, fds $base_fds -> $end_fds, VmRSS ${rss_mid:-?} -> $rss_end kB"
}

# The plain build, for the full minute.
churn_run "$MDKD" "$SECONDS_PLAIN"
ktap_ok "$RATE cgroups a second for ${SECONDS_PLAIN}s: every one alive past a rescan managed, none removed still managed ($checked checked)" \
	eval '[ "$made" -ge $((RATE * SECONDS_PLAIN)) ] && [ "$samples" -gt 3 ] &&
		[ "$checked" -gt 0 ] && [ "$missing" -eq 0 ] && [ "$stale" -eq 0 ]'
ktap_ok "after the churn and a rescan: the managed cgroups are those there ($STATIC)" \
	eval '[ "$left" -eq 0 ] && [ "$(managed_now | wc -l)" -eq $STATIC ]'
ktap_ok "mdkd answers, its descriptors back to the baseline ($base_fds -> $end_fds)" \
	eval 'mdkctl_ status >/dev/null && [ "$end_fds" -eq "$base_fds" ]'
# Over the last 3/4 (9,000 cgroups), under 1 kB a cgroup: the allocator's
# heap settles a few MB above where it stood at the first quarter.
ktap_ok "resident memory stopped growing (${rss_mid:-?} -> $rss_end kB)" \
	eval '[ -n "$rss_mid" ] && [ "$rss_end" -le $((rss_mid + 8192)) ]'
ktap_ok "mdkd exits 0" mdkd_stop

# The sanitizer build: leaks show at exit.
churn_run "$MDKD_SAN" "$SECONDS_SAN"
ktap_ok "with ASan: every cgroup managed, none removed left ($checked checked)" \
	eval '[ "$made" -ge $((RATE * SECONDS_SAN)) ] && [ "$samples" -gt 1 ] &&
		[ "$checked" -gt 0 ] && [ "$missing" -eq 0 ] && [ "$stale" -eq 0 ] &&
		[ "$left" -eq 0 ]'
ktap_ok "with ASan: descriptors back to the baseline ($base_fds -> $end_fds)" \
	eval '[ "$end_fds" -eq "$base_fds" ]'
mdkd_stop
ret=$?
ktap_ok "with ASan: exits 0" test $ret -eq 0
san_clean() {
	grep -E -A12 'Sanitizer|runtime error:' "$MDKD_LOG" >"$MDK_TMP/san.txt"
	sed 's/^/# /' "$MDK_TMP/san.txt" | head -n 60
	[ ! -s "$MDK_TMP/san.txt" ]
}
ktap_ok "with ASan: no leak or error reported at exit" san_clean
ktap_finish
