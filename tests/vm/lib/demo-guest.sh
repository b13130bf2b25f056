#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo, inside the guest: a tour of what mdk does so far, on a real
# kernel with the emulated CMM-MP pool's NUMA node reserved.  Each section
# is one feature; the demo grows with them.
set -eu
. "$(dirname "$0")/lib.sh"

say() {
	printf '\n\033[1m== %s\033[0m\n' "$*"
}
run() {
	echo "\$ $*"
	"$@"
}

say "mdk $("$MDKCTL" version | awk '{ print $2 }') on Linux $(uname -r), $(nproc) CPUs"
run "$MDKCTL" version

say "The CMM-MP pool: NUMA node ${MDK_POOL_NODE:-?}, reserved at boot with memmap="
run numactl -H
grep -i reserved /proc/iomem | sed 's/^/  /'

say "cmm_mp.ko: the emulated CMM-MP pool"
run modinfo -F description "$CMM_MP_KO"
run insmod "$CMM_MP_KO"
dmesg | grep 'cmm_mp:' | grep -v taint | tail -n 5 | sed 's/^/  /'
run "$MDKCTL" pool status

say "A PAMT lookup: host address -> pool offset (NHA) -> device, device offset"
run "$MDKCTL" pool translate "$(printf '0x%x' $((MDK_POOL_BASE + 0x2a001000)))"

say "Segment 0 goes online: node ${MDK_POOL_NODE} appears, in a slower memory tier"
run "$MDKCTL" pool online 0
run numactl -H
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	echo "  ${t##*/}: nodes $(cat "$t/nodelist")"
done

say "Offline again (its pages migrate away), and unload"
run "$MDKCTL" pool offline 0
run numactl -H
run rmmod cmm_mp

say "cgroup v2 proactive reclaim (what mdkd drives)"
cg=/sys/fs/cgroup/mdk-demo
mkdir -p "$cg"
cd /tmp
sh -c "echo \$\$ >$cg/cgroup.procs && exec stress-ng --vm 1 --vm-bytes 192M \
	--vm-keep --vm-hang 0 --timeout 120s -q" &
pid=$!
show() {
	echo "  memory.current $(numfmt --to=iec <"$cg/memory.current")," \
		"memory.swap.current $(numfmt --to=iec <"$cg/memory.swap.current")"
}
while [ "$(cat "$cg/memory.current")" -lt $((180 << 20)) ]; do sleep 0.5; done
show
run sh -c "echo 96M >$cg/memory.reclaim"
show
echo "  $(head -n 1 "$cg/memory.pressure")"
kill $pid
wait $pid || true
rmdir "$cg"

say "libmdk: which reclaim setting, at which promotion rate (mdkctl mpc)"
t=/tmp/mdk-demo.mdkt
run "$MDKCTL" synth "$t" --pages 10000 --windows 60 --seed 1
run "$MDKCTL" trace info "$t"
run "$MDKCTL" mpc "$t"
run "$MDKCTL" mpc "$t" --target 2%
run "$MDKCTL" simulate "$t" --policy age:T=8,opp:rho=0.02
rm -f "$t"

say "SWARM-KV: a replicated key-value store, one round trip per get and update"
run "$MDKCTL" swarm bench --keys 10000 --ops 2000 --clients 2 --workloads B
run "$MDKCTL" swarm stress --replicas 5 --crash 2 --seconds 5
if [ -n "${MDK_POOL_BASE:-}" ] && "$MDKCTL" pool help >/dev/null 2>&1 &&
	! "$MDKCTL" swarm stress --cmm-mp=/nonexistent 2>&1 | grep -q "built without"; then
	echo "  on the CMM-MP pool: one shared segment per device, device 0 fails mid-run"
	run insmod "$CMM_MP_KO" devices=4
	run "$MDKCTL" swarm stress --cmm-mp --replicas 3 --crash 1 --seconds 5
	"$MDKCTL" pool recover 0 >/dev/null
	"$MDKCTL" pool offline all >/dev/null
	run rmmod cmm_mp
fi
say "mdkd: PSI-driven reclaim (the TMO law) of a cold workload"
cg=/sys/fs/cgroup/mdk-demo-mdkd
dir=/tmp/mdkd-demo
mkdir -p "$cg" "$dir"
sh -c "echo \$\$ >$cg/cgroup.procs && exec $MDK_BUILD/tests/vm/lib/mdkd_workload \
	--cold 96 --hot 16 --seconds 120" &
wl=$!
while [ "$(cat "$cg/memory.current")" -lt $((112 << 20)) ]; do sleep 0.5; done
echo 1 >"/proc/$wl/clear_refs" # the cold set has been idle a while
cat >"$dir/mdkd.conf" <<CONF
[global]
socket = $dir/mdkd.sock
state_dir = $dir/state
interval = 1s
[cgroup mdk-demo-mdkd]
reclaim_ratio = 0.25
psi_threshold = 1%
CONF
sed 's/^/  /' "$dir/mdkd.conf"
run "$MDKD" -c "$dir/mdkd.conf"
mdkctl() {
	echo "\$ mdkctl -s $dir/mdkd.sock $*"
	"$MDKCTL" -s "$dir/mdkd.sock" "$@"
}
mdkctl status
for _ in $(seq 60); do
	[ "$(cat "$cg/memory.current")" -le $((40 << 20)) ] && break
	sleep 0.5
done
mdkctl status
mdkctl cgroup list
echo "  memory.current $(numfmt --to=iec <"$cg/memory.current")," \
	"memory.swap.current $(numfmt --to=iec <"$cg/memory.swap.current")," \
	"memory.high $(cat "$cg/memory.high")"
pid=$("$MDKCTL" -s "$dir/mdkd.sock" status -j | sed 's/.*"pid":\([0-9]*\).*/\1/')
kill "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
kill $wl
wait $wl || true
rmdir "$cg"

say "The page sampler: accessed pages per window, promotions and STAR, from BPF"
# A workload spread over DRAM (node 0) and the CMM-MP node, touching its
# 32 MiB every second or so; mdkctl sample reports each 2 s window.  After
# the second window, memory.reclaim swaps half of it out: the next windows
# count the swap-ins as the workload touches it again.
run insmod "$CMM_MP_KO"
run "$MDKCTL" pool online 0
cg=/sys/fs/cgroup/mdk-demo-sampler
mkdir -p "$cg"
sh -c "echo \$\$ >$cg/cgroup.procs && exec numactl --interleave=0,$MDK_POOL_NODE \
	stress-ng --vm 1 --vm-bytes 32M --vm-keep --vm-hang 1 --timeout 120s -q" &
pid=$!
while [ "$(cat "$cg/memory.current")" -lt $((32 << 20)) ]; do sleep 0.5; done
out=/tmp/mdk-demo-sample.txt
: >"$out"
echo "\$ $MDKCTL sample $cg --window 2s --count 5 --tier-node $MDK_POOL_NODE"
"$MDKCTL" sample "$cg" --window 2s --count 5 --tier-node "$MDK_POOL_NODE" |
	tee "$out" &
spid=$!
while [ "$(wc -l <"$out")" -lt 2 ]; do sleep 0.2; done
run sh -c "echo 16M >$cg/memory.reclaim || true"
wait $spid
kill $pid
wait $pid || true
rmdir "$cg"
"$MDKCTL" pool offline 0 >/dev/null
rmmod cmm_mp
say "mdkd policy mode: AGE on the sampler's windows, and the live MPC of a cgroup"
# 24 MiB cold, 8 MiB hot; 2 s windows; AGE T=2 pages out what stayed idle
# two windows (process_madvise MADV_PAGEOUT), and the daemon keeps the
# curves of AGE, PAW, PACE and OPP over the windows as they come.
cg=/sys/fs/cgroup/mdk-demo-policy
dir=/tmp/mdkd-demo-policy
mkdir -p "$cg" "$dir"
cat >"$dir/mdkd.conf" <<CONF
[global]
socket = $dir/mdkd.sock
state_dir = $dir/state
[cgroup mdk-demo-policy]
mode = policy
window = 2s
policy = age:T=2
auto_tune = off
horizon = 30
CONF
sed 's/^/  /' "$dir/mdkd.conf"
run "$MDKD" -c "$dir/mdkd.conf"
# Window 0 begins at mdkd's first sample: the workload comes after it.
until "$MDKCTL" -s "$dir/mdkd.sock" status -j | grep -Eq '"windows": ?[1-9]'; do
	sleep 0.5
done
sh -c "echo \$\$ >$cg/cgroup.procs && exec $MDK_BUILD/tests/vm/lib/mdkd_workload \
	--cold 24 --hot 8 --seconds 120" &
wl=$!
for _ in $(seq 80); do
	[ "$(cat "$cg/memory.swap.current")" -ge $((22 << 20)) ] && break
	sleep 0.5
done
echo "  memory.current $(numfmt --to=iec <"$cg/memory.current")," \
	"memory.swap.current $(numfmt --to=iec <"$cg/memory.swap.current")"
mdkctl status
mdkctl mpc --live mdk-demo-policy
echo "\$ mdkctl -s $dir/mdkd.sock mpc --live mdk-demo-policy --csv | head -n 4"
"$MDKCTL" -s "$dir/mdkd.sock" mpc --live mdk-demo-policy --csv | head -n 4
pid=$("$MDKCTL" -s "$dir/mdkd.sock" status -j | sed 's/.*"pid":\([0-9]*\).*/\1/')
kill "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
kill $wl
wait $wl || true
rmdir "$cg"
say "done"
