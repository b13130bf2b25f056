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
#   mem.csv      t_s,current,swap,swapcached (memory.current,
#                memory.swap.current, memory.stat swapcached; every second)
#   bench.csv    t_s,kind,requests,rps (one row per redis-benchmark call)
#   sample.csv   mdkctl sample --csv of the cgroup (runs without mdkd's
#                sampler: none, senpai, damon): promotions per window
#   status.json  mdkctl status -j of the cgroup at the end (mdkd runs)
#   vmstat.0/.1  /proc/vmstat before and after; memory.stat likewise
#   damon.txt    DAMON_RECLAIM's parameters and counters (damon)
#   mdkd.conf, mdkd.log, info.txt
set -u
. "$MDK_TOP/tests/vm/lib.sh"

W=${EXP_WINDOW:-5}
WINDOWS=${EXP_WINDOWS:-10}
KEYS=${EXP_KEYS:-32768}
HOT=${EXP_HOT:-4096}
HOT_N=${EXP_HOT_N:-4000}
COLD_N=${EXP_COLD_N:-25}
TARGET=${EXP_TARGET:-5%}
PSI=${EXP_PSI:-10%}
RUNS=${EXP_RUNS:-none senpai age paw pace damon}
CG=/sys/fs/cgroup/mdk-exp
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

damon_param() {
	echo "$2" >"/sys/module/damon_reclaim/parameters/$1"
}

damon_start() {
	local p=/sys/module/damon_reclaim/parameters r
	read -r -a r < <(ram_range)
	# Act on every page idle for one window, whatever the free memory:
	# the watermarks (free memory per mille) keep the scheme active
	# from 0 to 1000; quota 512 MiB per second (no limit in practice),
	# the monitoring region is the RAM range (physical addresses).
	damon_param min_age $((W * 1000000))
	damon_param quota_ms 0
	damon_param quota_sz $((512 << 20))
	damon_param quota_reset_interval_ms 1000
	damon_param wmarks_interval 1000000
	damon_param wmarks_high 1000
	damon_param wmarks_mid 999
	damon_param wmarks_low 0
	damon_param sample_interval 5000
	damon_param aggr_interval 100000
	damon_param min_nr_regions 100
	damon_param max_nr_regions 1000
	damon_param monitor_region_start "${r[0]}"
	damon_param monitor_region_end "${r[1]}"
	damon_param enabled Y
}

damon_stop() {
	local p=/sys/module/damon_reclaim/parameters f
	for f in "$p"/*; do echo "${f##*/} $(cat "$f")"; done >"$1/damon.txt"
	damon_param enabled N
	for _ in $(seq 100); do
		[ "$(cat $p/kdamond_pid)" = -1 ] && break
		sleep 0.1
	done
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
		echo "[cgroup mdk-exp]"
		echo "psi_threshold = $PSI"
		case $run in
		senpai)
			echo "mode = senpai"
			echo "interval = ${W}s"
			echo "reclaim_ratio = 0.05"
			;;
		age | paw | pace)
			echo "mode = policy"
			echo "window = ${W}s"
			echo "backend = swap"
			echo "horizon = 24"
			echo "target_rate = $TARGET"
			case $run in
			age) echo "policy = age:T=2"; echo "auto_tune = off" ;;
			paw) echo "policy = paw:P=2,wait=2"; echo "auto_tune = off" ;;
			pace) echo "policy = pace"; echo "auto_tune = on"; echo "warmup = 3" ;;
			esac
			;;
		esac
	} >"$d/mdkd.conf"
	"$MDKD" -f -c "$d/mdkd.conf" 2>"$d/mdkd.log" &
	MDKD_PID=$!
	for _ in $(seq 300); do
		"$MDKCTL" -s "$MSOCK" status mdk-exp >/dev/null 2>&1 && return 0
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
	log "run $run: $KEYS keys, hot $HOT, $WINDOWS windows of ${W}s"
	echo "run=$run kernel=$(uname -r) window=$W windows=$WINDOWS keys=$KEYS hot=$HOT hot_n=$HOT_N cold_n=$COLD_N target=$TARGET psi=$PSI" >"$d/info.txt"
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
	senpai | age | paw | pace) mdkd_run "$run" "$d" || return 1 ;;
	damon) damon_start ;;
	esac
	case $run in
	none | senpai | damon)
		"$MDKCTL" sample "$CG" --window "${W}s" --csv >"$d/sample.csv" 2>"$d/sample.err" &
		spid=$!
		;;
	esac
	t0=$(now)
	end=$(awk -v t="$t0" -v n="$WINDOWS" -v w="$W" 'BEGIN { printf "%d", t + n * w }')
	(
		while [ "$(date +%s)" -lt "$end" ]; do
			echo "$(now),$(cat $CG/memory.current),$(cat $CG/memory.swap.current),$(awk '$1 == "swapcached" { print $2 }' $CG/memory.stat)"
			sleep 1
		done
	) >"$d/mem.csv" &
	mpid=$!
	# A window first, so the reclaimers see the load as accesses.
	sleep "$W"
	populate
	echo "$(now) loaded" >"$d/loaded"
	: >"$d/bench.csv"
	while [ "$(date +%s)" -lt "$end" ]; do
		bench hot "$HOT" "$HOT_N" 4 >>"$d/bench.csv"
		bench cold "$KEYS" "$COLD_N" 1 >>"$d/bench.csv"
	done
	wait "$mpid"
	[ -n "$MDKD_PID" ] && "$MDKCTL" -s "$MSOCK" status -j mdk-exp >"$d/status.json"
	cp /proc/vmstat "$d/vmstat.1"
	cp "$CG/memory.stat" "$d/memory.stat"
	echo "$t0 $(now)" >"$d/times"
	[ -n "$spid" ] && kill -INT "$spid" && wait "$spid"
	[ -n "$MDKD_PID" ] && kill -TERM "$MDKD_PID" && wait "$MDKD_PID"
	[ "$run" = damon ] && damon_stop "$d"
	redis-cli -s "$SOCK" shutdown nosave >/dev/null 2>&1
	wait "$rpid"
	while read -r p; do echo "$p" >/sys/fs/cgroup/cgroup.procs; done <"$CG/cgroup.procs"
	rmdir "$CG"
	log "run $run done: $(wc -l <"$d/bench.csv") benchmark calls"
}

# Read redis's binaries once outside the cgroup: their page cache is then
# charged to the root, not to the first run's cgroup.
cat /usr/bin/redis-server /usr/bin/redis-cli /usr/bin/redis-benchmark >/dev/null
log "kernel $(uname -r), $(nproc) CPUs, swap $(awk 'NR > 1 { print $1 }' /proc/swaps)"
for run in $RUNS; do
	if [ "$run" = damon ] && [ ! -d /sys/module/damon_reclaim ]; then
		log "run damon: no DAMON_RECLAIM in $(uname -r); skipped"
		continue
	fi
	run_one "$run" || log "run $run failed"
done
log "all runs done"
