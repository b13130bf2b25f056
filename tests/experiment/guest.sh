#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The end-to-end experiment, inside the guest (tests/experiment/run boots
# it with tests/vm/run --run).  One run per reclaimer: redis-server in a
# cgroup of its own, loaded with EXP_KEYS keys of 1000 bytes, then read by
# redis-benchmark: a hot set (keys 0..EXP_HOT-1) all the time and a few
# reads over the whole key space every round, for EXP_WINDOWS windows of
# EXP_WINDOW seconds.  The reclaimer starts before the keys are loaded, so
# that mdkd's sampler sees every page once.  Each run leaves in
# $MDK_OUT/RUN/:
#   mem.csv      t_s,current,swap,swapcached,tier (memory.current,
#                memory.swap.current, memory.stat swapcached, the bytes
#                memory.numa_stat puts on the CMM-MP node; every second)
#   bench.csv    t_s,kind,requests,rps (one row per redis-benchmark call)
#   sample.csv   mdkctl sample --csv of the cgroup (runs without mdkd's
#                sampler: none, senpai, damon): promotions per window
#   status.json  mdkctl status -j of the cgroup at the end (mdkd runs)
#   vmstat.0/.1  /proc/vmstat before and after; memory.stat likewise
#   damon.txt    the DAMON scheme's settings and stats (damon)
#   redis.mdkt   the sampled windows as an access-bit trace (age)
#   psi.0/.1     the cgroup's memory.pressure once loaded and at the end
#   mdkd.conf, mdkd.log, info.txt
# The tiered runs (mix-*, EXP_RUNS="mix-none mix-senpai mix-swap mix-zswap
# mix-cxl mix-auto") add a random buffer to the cgroup: tests/experiment/mix.sh.
set -u
. "$MDK_TOP/tests/vm/lib/lib.sh"
. "$MDK_TOP/tests/experiment/mix.sh"

W=${EXP_WINDOW:-5}
WINDOWS=${EXP_WINDOWS:-24}
KEYS=${EXP_KEYS:-32768}
HOT=${EXP_HOT:-4096}
HOT_N=${EXP_HOT_N:-4000}
COLD_N=${EXP_COLD_N:-25}
TARGET=${EXP_TARGET:-5%}
PSI=${EXP_PSI:-10%}
RUNS=${EXP_RUNS:-none senpai age age-drop paw pace lopp damon age-zswap age-cxl}
# One cgroup per run, named after it: a cgroup of an earlier run with the
# same path may linger, dying (its swap entries hold its id), and DAMON's
# memcg filter takes the first memcg with the path.
CGN=
CG=
SOCK=/tmp/mdk-exp-redis.sock
MSOCK=/tmp/mdk-exp-mdkd.sock

log() { echo "experiment: $*"; }

now() { date +%s.%N; }

# The largest System RAM range of /proc/iomem: node 0's memory above 4 GiB
# does not exist here, so this is the RAM redis lives in.
ram_range() {
	local a b best=0 bs=0 be=0 line
	while IFS= read -r line; do
		case $line in
		[0-9a-f]*" : System RAM") ;;
		*) continue ;;
		esac
		a=${line%%-*}
		b=${line#*-}
		b=${b%% *}
		a=$((16#$a))
		b=$((16#$b + 1))
		[ $((b - a)) -gt "$best" ] && best=$((b - a)) bs=$a be=$b
	done </proc/iomem
	echo "$bs $be"
}

DAMON=/sys/kernel/mm/damon/admin/kdamonds

damon_w() {
	echo "$2" >"$DAMON/0/$1" || log "damon: cannot write $2 to $1"
}

# DAMON_RECLAIM's own scheme (mm/damon/reclaim.c: page out regions not
# accessed for min_age, under a quota, between watermarks) set up through
# DAMON's sysfs interface, because the module cannot run it on 6.12.117:
# damon_reclaim_apply_parameters() puts the scheme and the monitoring
# attributes on the running context and then damon_commit_ctx() replaces
# them with those of the empty parameter context, so kdamond monitors
# with the default attributes and no scheme (nr_reclaim_tried_regions
# stays 0).  min_age one window (in aggregation intervals), no quota (a
# size quota is charged whole regions, the free memory's included, and
# the oldest -- free memory -- go first: 512 MiB a second never reached
# redis), no watermarks (the module's 500/400/200 per mille of free memory
# never activate it in a 1 GiB guest with memory free), at least 500
# regions (2 MiB at most: with the module's 10, the idle free memory merges
# into regions of 100 MiB and each of redis's also holds a hot page, so
# none is ever idle), the physical RAM range redis lives in, and a memcg
# filter so that it acts on the experiment's cgroup only, as the other
# reclaimers do.
damon_start() {
	local r s=contexts/0/schemes/0
	read -r -a r < <(ram_range)
	echo 1 >"$DAMON/nr_kdamonds"
	damon_w contexts/nr_contexts 1
	damon_w contexts/0/operations paddr
	damon_w contexts/0/monitoring_attrs/intervals/sample_us 5000
	damon_w contexts/0/monitoring_attrs/intervals/aggr_us 100000
	damon_w contexts/0/monitoring_attrs/intervals/update_us 1000000
	damon_w contexts/0/monitoring_attrs/nr_regions/min 500
	damon_w contexts/0/monitoring_attrs/nr_regions/max 1000
	damon_w contexts/0/targets/nr_targets 1
	damon_w contexts/0/targets/0/regions/nr_regions 1
	damon_w contexts/0/targets/0/regions/0/start "${r[0]}"
	damon_w contexts/0/targets/0/regions/0/end "${r[1]}"
	damon_w contexts/0/schemes/nr_schemes 1
	damon_w $s/action pageout
	damon_w $s/access_pattern/sz/min 4096
	damon_w $s/access_pattern/sz/max $((1 << 40))
	damon_w $s/access_pattern/nr_accesses/min 0
	damon_w $s/access_pattern/nr_accesses/max 0
	damon_w $s/access_pattern/age/min $((W * 10))
	damon_w $s/access_pattern/age/max 4294967295
	damon_w $s/quotas/ms 0
	damon_w $s/quotas/bytes 0
	damon_w $s/quotas/reset_interval_ms 1000
	damon_w $s/watermarks/metric none
	damon_w $s/filters/nr_filters 1
	damon_w $s/filters/0/type memcg
	damon_w $s/filters/0/memcg_path "/$CGN"
	damon_w $s/filters/0/matching N
	damon_w state on
}

damon_stop() {
	local s=$DAMON/0/contexts/0/schemes/0 f
	damon_w state update_schemes_stats
	for f in $s/action $s/access_pattern/*/* $s/quotas/ms $s/quotas/bytes \
		$s/quotas/reset_interval_ms $s/watermarks/metric \
		$s/filters/0/* $s/stats/*; do
		echo "${f#"$s/"} $(cat "$f")"
	done >"$1/damon.txt"
	damon_w state off
	echo 0 >"$DAMON/nr_kdamonds"
}

# The tier node's bytes of the cgroup (memory.numa_stat anon + file).
tier_bytes() {
	[ -n "$TIER" ] || { echo 0; return; }
	awk -v n="N$TIER=" '$1 == "anon" || $1 == "file" {
		for (i = 2; i <= NF; i++)
			if (index($i, n) == 1) s += substr($i, length(n) + 1) }
		END { print s + 0 }' "$CG/memory.numa_stat"
}

# Back ends other than the swap disk, around a run: zswap in front of
# it, or cmm_mp.ko with a segment online as the CXL tier.
TIER=
backend_up() {
	case $1 in
	*-zswap) echo 1 >/sys/module/zswap/parameters/enabled ;;
	*-cxl)
		insmod "$CMM_MP_KO" || return 1
		"$MDKCTL" pool online 0 >/dev/null || return 1
		TIER=$(cat /sys/kernel/cmm_mp/node)
		;;
	esac
}

backend_down() {
	case $1 in
	*-zswap) echo 0 >/sys/module/zswap/parameters/enabled ;;
	*-cxl)
		TIER=
		"$MDKCTL" pool offline all >/dev/null
		rmmod cmm_mp
		;;
	esac
}

mdkd_run() { # RUN DIR: mdkd on the cgroup in the run's mode
	local run=$1 d=$2
	{
		echo "[global]"
		echo "socket = $MSOCK"
		echo "state_dir = /tmp/mdk-exp-state"
		echo "record_file = $d/record.csv"
		echo "log_level = info"
		echo "rescan_interval = 1s"
		case $run in
		mix-*) mix_conf_global "$run" "$d" ;;
		esac
		echo "[cgroup $CGN]"
		case $run in
		mix-*) mix_conf "$run" ;;
		*) echo "psi_threshold = $PSI" ;;
		esac
		case $run in
		mix-*) ;;
		senpai)
			echo "mode = senpai"
			echo "interval = ${W}s"
			echo "reclaim_ratio = 0.05"
			;;
		age | paw | pace | lopp | age-*)
			echo "mode = policy"
			echo "window = ${W}s"
			echo "backend = $([ "$run" = age-cxl ] && echo cxl || echo swap)"
			echo "horizon = 24"
			echo "target_rate = $TARGET"
			case $run in
			age | age-*) echo "policy = age:T=2"; echo "auto_tune = off" ;;
			paw) echo "policy = paw:P=2,wait=2"; echo "auto_tune = off" ;;
			pace) echo "policy = pace"; echo "auto_tune = on"; echo "warmup = 3" ;;
			lopp) echo "policy = lopp"; echo "auto_tune = on"; echo "warmup = 3" ;;
			esac
			# The age run's windows, as a trace: L-OPP against the
			# others offline (Documentation/mdk.rst, "L-OPP results").
			[ "$run" = age ] && echo "trace_file = $d/redis.mdkt"
			# age: the swap cache kept (drop_swap_cache's default
			# is on), as a reference for age-drop, the defaults.
			[ "$run" = age ] && echo "drop_swap_cache = off"
			;;
		esac
	} >"$d/mdkd.conf"
	"$MDKD" -f -c "$d/mdkd.conf" 2>"$d/mdkd.log" &
	MDKD_PID=$!
	for _ in $(seq 300); do
		"$MDKCTL" -s "$MSOCK" status "$CGN" >/dev/null 2>&1 && return 0
		kill -0 "$MDKD_PID" 2>/dev/null || break
		sleep 0.1
	done
	log "mdkd did not start: $(tail -n 3 "$d/mdkd.log")"
	return 1
}

populate() {
	awk -v n="$KEYS" 'BEGIN { v = sprintf("%1000s", ""); gsub(/ /, "x", v)
		for (i = 0; i < n; i++)
			printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$1000\r\n%s\r\n", i, v }' |
		redis-cli -s "$SOCK" --pipe >/dev/null
}

# bench KIND KEYSPACE N CLIENTS: one redis-benchmark call, one CSV row.
bench() {
	local rps
	rps=$(redis-benchmark -s "$SOCK" -t get -r "$2" -n "$3" -c "$4" --csv 2>/dev/null |
		awk -F'"' '$2 == "GET" { print $4 }')
	echo "$(now),$1,$3,${rps:-0}"
}

run_one() {
	local run=$1 d=$MDK_OUT/$1 t0 end rpid mpid spid
	mkdir -p "$d"
	CGN=mdk-exp-$run
	CG=/sys/fs/cgroup/$CGN
	log "run $run: $KEYS keys, hot $HOT, $WINDOWS windows of ${W}s"
	echo "run=$run kernel=$(uname -r) window=$W windows=$WINDOWS keys=$KEYS hot=$HOT hot_n=$HOT_N cold_n=$COLD_N target=$TARGET psi=$PSI stall=$STALL random_mib=$RANDOM_MIB" >"$d/info.txt"
	mkdir "$CG" || return 1
	rm -f "$SOCK"
	sh -c "echo \$\$ >$CG/cgroup.procs && exec redis-server --port 0 \
		--unixsocket $SOCK --save '' --appendonly no --logfile $d/redis.log" &
	rpid=$!
	for _ in $(seq 300); do
		redis-cli -s "$SOCK" ping >/dev/null 2>&1 && break
		sleep 0.1
	done
	cp /proc/vmstat "$d/vmstat.0"
	MDKD_PID=
	spid=
	case $run in
	mix-*) mix_up "$run" || return 1 ;;
	*) backend_up "$run" || return 1 ;;
	esac
	case $run in
	senpai | age | paw | pace | lopp | age-* | mix-[!n]*) mdkd_run "$run" "$d" || return 1 ;;
	damon) damon_start ;;
	esac
	case $run in
	none | senpai | damon | mix-senpai)
		"$MDKCTL" sample "$CG" --window "${W}s" --csv >"$d/sample.csv" 2>"$d/sample.err" &
		spid=$!
		;;
	mix-none) # the workload's access-bit trace: tiered OPP's bound
		"$MDKCTL" record "$CG" -o "$d/mix.mdkt" --window "${W}s" -q 2>"$d/record.err" &
		spid=$!
		;;
	esac
	t0=$(now)
	end=$(awk -v t="$t0" -v n="$WINDOWS" -v w="$W" 'BEGIN { printf "%d", t + n * w }')
	(
		while [ "$(date +%s)" -lt "$end" ]; do
			echo "$(now),$(cat $CG/memory.current),$(cat $CG/memory.swap.current),$(awk '$1 == "swapcached" { print $2 }' $CG/memory.stat),$(tier_bytes)"
			sleep 1
		done
	) >"$d/mem.csv" &
	mpid=$!
	# A window first, so the reclaimers see the load as accesses.
	sleep "$W"
	populate
	case $run in
	mix-*) mix_buffer_start || return 1 ;;
	esac
	echo "$(now) loaded" >"$d/loaded"
	cp "$CG/memory.pressure" "$d/psi.0"
	: >"$d/bench.csv"
	while [ "$(date +%s)" -lt "$end" ]; do
		bench hot "$HOT" "$HOT_N" 4 >>"$d/bench.csv"
		bench cold "$KEYS" "$COLD_N" 1 >>"$d/bench.csv"
	done
	wait "$mpid"
	[ -n "$MDKD_PID" ] && "$MDKCTL" -s "$MSOCK" status -j "$CGN" >"$d/status.json"
	cp /proc/vmstat "$d/vmstat.1"
	cp "$CG/memory.pressure" "$d/psi.1"
	cp "$CG/memory.stat" "$d/memory.stat"
	echo "$t0 $(now)" >"$d/times"
	[ -n "$spid" ] && kill -INT "$spid" && wait "$spid"
	[ -n "$MDKD_PID" ] && kill -TERM "$MDKD_PID" && wait "$MDKD_PID"
	[ "$run" = damon ] && damon_stop "$d"
	cp "$CG/memory.numa_stat" "$d/memory.numa_stat"
	mix_buffer_stop
	redis-cli -s "$SOCK" shutdown nosave >/dev/null 2>&1
	wait "$rpid"
	while read -r p; do echo "$p" >/sys/fs/cgroup/cgroup.procs; done <"$CG/cgroup.procs"
	rmdir "$CG"
	case $run in
	mix-*) mix_down ;;
	*) backend_down "$run" ;;
	esac
	log "run $run done: $(wc -l <"$d/bench.csv") benchmark calls"
}

# Read redis's binaries once outside the cgroup: their page cache is then
# charged to the root, not to the first run's cgroup.
cat /usr/bin/redis-server /usr/bin/redis-cli /usr/bin/redis-benchmark >/dev/null
log "kernel $(uname -r), $(nproc) CPUs, swap $(awk 'NR > 1 { print $1 }' /proc/swaps)"
for run in $RUNS; do
	if [ "$run" = damon ] && [ ! -d $DAMON ]; then
		log "run damon: no DAMON sysfs interface in $(uname -r); skipped"
		continue
	fi
	if [ "$run" = age-cxl ] && [ -z "${MDK_POOL_BASE:-}" ]; then
		log "run age-cxl: no CMM-MP pool (tests/vm/run -p); skipped"
		continue
	fi
	case $run in
	mix-*)
		if [ -z "${MDK_POOL_BASE:-}" ]; then
			log "run $run: no CMM-MP pool (tests/vm/run -p); skipped"
			continue
		fi
		mix_calibrate || { log "run $run: no tier costs; skipped"; continue; }
		;;
	esac
	run_one "$run" || log "run $run failed"
done
log "all runs done"
