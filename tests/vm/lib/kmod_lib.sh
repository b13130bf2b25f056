# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the kmod_* VM tests (it is not a test itself): what they share
# about cmm_mp.ko, on top of lib.sh.
#
#   kmod_require          skip unless root, the module is built and the
#                         bench has a pool (tests/vm/run -p)
#   kmod_load [PARAM...]  insmod cmm_mp.ko
#   kmod_cleanup          recover failed devices, offline every segment,
#                         rmmod: each test leaves the module unloaded
#   ktap_check DESC       a case from the status of the last command
#   rd VAR FILE           read the first line of FILE into VAR (a builtin:
#                         under TCG every fork and exec costs, so the
#                         tests avoid $(cat ...))
#   seg_state SEG, dev_attr DEV FILE, pool_attr FILE: the same, printed
#   mem_start MIB [CMD...] start tests/vm/lib/kmod_mem (under CMD, such as
#                         "numactl --membind=1") as coprocess MEM;
#                         $MEM_READY is its first line
#   mem_cmd CMD           send CMD, print its one-line reply
#   mem_stop              quit it
#   node_pages REPLY N    pages on node N in a "nodes ..." reply
#   trace_on EVENT... / trace_off / trace_text: cmm_mp tracepoints
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KMOD_MEM=$MDK_BUILD/tests/vm/lib/kmod_mem
CMM_MP_SYS=/sys/kernel/cmm_mp
TRACEFS=/sys/kernel/tracing

kmod_require() {
	require_root
	require_file "$CMM_MP_KO"
	require_file "$MDKCTL"
	[ -n "${MDK_POOL_BASE:-}" ] || ksft_skip "no CMM-MP pool (tests/vm/run -p SIZE)"
}

kmod_load() {
	insmod "$CMM_MP_KO" "$@"
}

kmod_cleanup() {
	local d
	[ -n "${MEM_PID:-}" ] && kill "$MEM_PID" 2>/dev/null && wait "$MEM_PID" 2>/dev/null
	[ -d /sys/module/cmm_mp ] || return 0
	trace_off
	local st
	for d in "$CMM_MP_SYS"/devices/dev*; do
		rd st "$d/state"
		[ "$st" = failed ] && "$MDKCTL" pool recover "${d##*dev}" >/dev/null
	done
	"$MDKCTL" pool offline all >/dev/null
	rmmod cmm_mp
}

rd() {
	IFS= read -r "$1" <"$2" || printf -v "$1" ''
}

seg_state() {
	cat "$CMM_MP_SYS/segments/seg$1/state"
}

dev_attr() {
	cat "$CMM_MP_SYS/devices/dev$1/$2"
}

pool_attr() {
	cat "$CMM_MP_SYS/$1"
}

mem_start() {
	local mib=$1
	shift
	coproc MEM { exec "$@" "$KMOD_MEM" "$mib"; }
	read -r -t 120 -u "${MEM[0]}" MEM_READY
}

mem_cmd() {
	local reply
	echo "$1" >&"${MEM[1]}"
	read -r -t 120 -u "${MEM[0]}" reply
	echo "$reply"
}

mem_stop() {
	echo quit >&"${MEM[1]}"
	wait "$MEM_PID"
	MEM_PID=
}

node_pages() {
	local n
	n=$(tr ' ' '\n' <<<"$1" | sed -n "s/^$2://p")
	echo "${n:-0}"
}

trace_on() {
	local e
	echo >"$TRACEFS/trace"
	for e in "$@"; do
		echo 1 >"$TRACEFS/events/cmm_mp/$e/enable"
	done
}

trace_off() {
	[ -d "$TRACEFS/events/cmm_mp" ] && echo 0 >"$TRACEFS/events/cmm_mp/enable"
	return 0
}

# trace_count PATTERN: trace lines matching the glob *PATTERN*
trace_count() {
	local line n=0
	while IFS= read -r line; do
		[[ $line == *$1* ]] && n=$((n + 1))
	done <"$TRACEFS/trace"
	echo $n
}
