# SPDX-License-Identifier: GPL-2.0
# Sourced by the mdkd VM tests (tests/vm/mdkd_*.sh): start and stop mdkd
# on a scratch configuration, run the cold/hot workload in a cgroup, and
# clean all of it up on exit.
#
#   mdkd_require SWAP_MIB      skip unless root, with mdkd, the workload and
#                              SWAP_MIB of free swap
#   mdkd_conf FILE [LINES...]  a config whose [global] puts the socket,
#                              journal and records in $MDK_TMP, then LINES
#   mdkd_start FILE            mdkd -f -c FILE in the background, log in
#                              $MDK_TMP/mdkd.log; waits until it answers
#   mdkd_stop                  SIGTERM, wait; returns mdkd's exit status
#   mdkctl_ ARGS...            mdkctl on the scratch socket
#   cg_new NAME                a fresh cgroup under the root (removed at exit)
#   workload_start CG COLD HOT start mdkd_workload in CG and wait until it
#                              is resident; WL_PID, WL_REPORT; $WL_ARGS are
#                              more of its options (a warm set)
#   nap                        sleep 10 ms without forking (TCG makes every
#                              fork slow)
#   status_py EXPR             EXPR (python) over mdkctl status -j of the
#                              cgroup $name: its object c, c's policy p
#   smaps_kb FIELD             the workload's FIELD (Rss, Swap) in kB
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MDKD_WORKLOAD=$MDK_BUILD/tests/vm/lib/mdkd_workload
MDK_TMP=${MDK_TMP:-$(mktemp -d)}
MDKD_SOCK=$MDK_TMP/mdkd.sock
MDKD_LOG=$MDK_TMP/mdkd.log
MDKD_REC=$MDK_TMP/record.csv
MDKD_PID=
WL_PID=
mdkd_cgroups=()

mdkd_cleanup() {
	[ -n "$MDKD_PID" ] && kill -9 "$MDKD_PID" 2>/dev/null
	[ -n "$WL_PID" ] && kill -9 "$WL_PID" 2>/dev/null
	wait 2>/dev/null
	local cg
	for cg in "${mdkd_cgroups[@]}"; do
		[ -d "$cg" ] || continue
		# Anything still inside (a helper shell) goes to the root first.
		while read -r p; do echo "$p" >/sys/fs/cgroup/cgroup.procs; done \
			<"$cg/cgroup.procs" 2>/dev/null
		rmdir "$cg" 2>/dev/null
	done
}
trap mdkd_cleanup EXIT

mkfifo "$MDK_TMP/nap" && exec 9<>"$MDK_TMP/nap"
nap() {
	read -r -t 0.01 -u 9
}

mdkd_require() {
	require_root
	require_file "$MDKD"
	require_file "$MDKD_WORKLOAD"
	[ "$(awk '/SwapFree/ { print $2 }' /proc/meminfo)" -gt $(($1 << 10)) ] ||
		ksft_skip "needs $1 MiB of free swap"
}

mdkd_conf() {
	local file=$1
	shift
	{
		echo "[global]"
		echo "socket = $MDKD_SOCK"
		echo "state_dir = $MDK_TMP/state"
		echo "record_file = $MDKD_REC"
		printf '%s\n' "$@"
	} >"$file"
}

mdkctl_() {
	"$MDKCTL" -s "$MDKD_SOCK" "$@"
}

status_py() {
	mdkctl_ status -j "$name" 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
c = d['cgroups'][0]
p = c.get('policy') or {}
print($1)" 2>/dev/null
}

smaps_kb() {
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$WL_PID/smaps_rollup"
}

mdkd_start() {
	local i
	"$MDKD" -f -c "$1" 2>>"$MDKD_LOG" &
	MDKD_PID=$!
	for i in $(seq 300); do
		mdkctl_ status >/dev/null 2>&1 && return 0
		kill -0 "$MDKD_PID" 2>/dev/null || break
		sleep 0.1
	done
	ktap_diag "mdkd did not start: $(tail -n 3 "$MDKD_LOG")"
	return 1
}

mdkd_stop() {
	local ret
	kill -TERM "$MDKD_PID"
	wait "$MDKD_PID"
	ret=$?
	MDKD_PID=
	return $ret
}

cg_new() {
	local cg=/sys/fs/cgroup/$1
	mkdir "$cg" || return 1
	mdkd_cgroups+=("$cg")
	echo "$cg"
}

# workload_start CG COLD_MIB HOT_MIB [SECONDS]
workload_start() {
	local cg=$1 cold=$2 hot=$3 secs=${4:-300} i
	WL_REPORT=$MDK_TMP/workload.$RANDOM
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $MDKD_WORKLOAD --cold $cold \
		--hot $hot --seconds $secs --report $WL_REPORT ${WL_ARGS:-}" &
	WL_PID=$!
	for i in $(seq 600); do
		[ -s "$WL_REPORT" ] &&
			[ "$(cat "$cg/memory.current")" -ge $(((cold + hot) << 20)) ] &&
			return 0
		kill -0 "$WL_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

workload_stop() {
	local ret
	kill -TERM "$WL_PID"
	wait "$WL_PID"
	ret=$?
	WL_PID=
	return $ret
}

# memory.events KEY of cgroup CG.
cg_event() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.events"
}
