# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The tiered runs of the experiment (mix-*), sourced by guest.sh: the
# redis workload plus, in the same cgroup, a buffer of EXP_RANDOM_MIB MiB
# of random bytes that is written once and never read again.  redis's
# values (1000 'x's) compress well, the buffer not at all, and the hot
# keys stay warm: a warm, a compressible cold and an incompressible cold
# set.  Every mix run has zswap's module, a swap disk and the CMM-MP node
# at hand but uses only its own back ends:
#
#   mix-none     no reclaimer (the footprint), and the workload's
#                access-bit trace (mix.mdkt, for tiers_bound)
#   mix-senpai   senpai, psi_threshold = EXP_STALL
#   mix-swap     mdkd backend auto over the swap disk alone (zswap off)
#   mix-zswap    ... over zswap alone
#   mix-cxl      ... over the CMM-MP node alone
#   mix-auto     ... over all three: the hierarchy
#
# each mdkd run with target_stall = EXP_STALL.  The costs are measured
# once, by mdkctl tier calibrate, before the first mix run; each run's
# mdkd reads them from a tier file of its own back ends (tier_file), the
# node's capacity a third of the cold memory, and takes zswap's saving
# from the cgroup's measured compression ratio.  TIER, KEYS,
# HOT, W, CG, log and the tools are guest.sh's.
# shellcheck disable=SC2034

RANDOM_MIB=${EXP_RANDOM_MIB:-32}
STALL=${EXP_STALL:-0.2%}
MIX_TIERS=/tmp/mdk-exp-tiers
MIX_BUF_PID=

# The back ends a mix run uses, down the hierarchy.
mix_backends() {
	case $1 in
	mix-swap) echo swap ;;
	mix-zswap) echo zswap ;;
	mix-cxl) echo cxl ;;
	mix-auto) echo cxl zswap swap ;;
	esac
}

mix_up() {
	case $1 in
	mix-zswap | mix-auto) echo 1 >/sys/module/zswap/parameters/enabled ;;
	*) echo 0 >/sys/module/zswap/parameters/enabled ;;
	esac
	insmod "$CMM_MP_KO" || return 1
	"$MDKCTL" pool online 0 >/dev/null || return 1
	TIER=$(cat /sys/kernel/cmm_mp/node)
}

mix_down() {
	echo 0 >/sys/module/zswap/parameters/enabled
	TIER=
	"$MDKCTL" pool offline all >/dev/null
	rmmod cmm_mp
}

# Once: every back end up, their costs measured into $MIX_TIERS.
mix_calibrate() {
	[ -s "$MIX_TIERS" ] && return 0
	mix_up mix-auto || return 1
	"$MDKCTL" tier calibrate --output "$MIX_TIERS" >"$MDK_OUT/calibrate.log" 2>&1
	local ret=$?
	mix_down
	cp "$MIX_TIERS" "$MDK_OUT/tiers" 2>/dev/null
	[ $ret -eq 0 ] || log "tier calibrate failed: $(tail -n 3 "$MDK_OUT/calibrate.log")"
	return $ret
}

# The run's tier file, $2/tiers: its back ends' measured lines, the node
# capped at a third of the cold memory (the cold keys, about 1.1 kB each
# in redis, and the random buffer).
mix_tier_file() {
	local cold cap b line
	cold=$(( (KEYS - HOT) * 1100 + RANDOM_MIB * 1048576 ))
	cap=$(( cold / 3 / 4096 ))
	: >"$2/tiers"
	for b in $(mix_backends "$1"); do
		line=$(grep "^$b:" "$MIX_TIERS" | sed 's/#.*//; s/,cap=[0-9KMG]*//; s/[[:space:]]*$//')
		[ -n "$line" ] || { log "run $1: no measured cost for $b"; return 1; }
		[ "$b" = cxl ] && line="$line,cap=$cap"
		echo "$line" >>"$2/tiers"
	done
}

# mdkd.conf lines of a mix run: the global ones (RUN DIR), then the
# cgroup's (RUN).
mix_conf_global() {
	case $1 in
	mix-senpai) ;;
	*) mix_tier_file "$1" "$2" && echo "tier_file = $2/tiers" ;;
	esac
}

mix_conf() {
	case $1 in
	mix-senpai)
		echo "mode = senpai"
		echo "interval = ${W}s"
		echo "reclaim_ratio = 0.05"
		echo "psi_threshold = $STALL"
		;;
	*)
		echo "mode = policy"
		echo "window = ${W}s"
		echo "backend = auto"
		echo "horizon = 24"
		echo "target_stall = $STALL"
		echo "auto_tune = on"
		echo "warmup = 3"
		;;
	esac
}

# The incompressible cold set, in the cgroup: written once, then idle.
mix_buffer_start() {
	local ready=/tmp/mdk-exp-buffer.ready
	rm -f $ready
	sh -c "echo \$\$ >$CG/cgroup.procs && exec python3 -c '
import os, sys, time
b = bytearray(os.urandom($RANDOM_MIB << 20))
open(\"$ready\", \"w\").close()
time.sleep(1e6)'" &
	MIX_BUF_PID=$!
	for _ in $(seq 600); do
		[ -e $ready ] && return 0
		sleep 0.1
	done
	log "the random buffer did not fill"
	return 1
}

mix_buffer_stop() {
	[ -n "$MIX_BUF_PID" ] || return 0
	kill "$MIX_BUF_PID" 2>/dev/null
	wait "$MIX_BUF_PID" 2>/dev/null
	MIX_BUF_PID=
}
