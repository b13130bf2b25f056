#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SWARM-KV against its baselines, in one run (mdkctl swarm bench): YCSB A
# and B, 100K keys of 24 B, 64 B values, Zipf 0.99, 3 replicas, 4 clients,
# 2 us injected round trips; round trips per operation, latency p50/p99 as
# ratios to RAW, throughput as clients grow.  Then longer checked stress
# runs with memory nodes crashing (every history must be linearizable),
# and the stress unit test under ThreadSanitizer when the compiler has it.
#
# MDK_SWARM_BENCH_ARGS adds options to the bench (see mdkctl(8)).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
mdkctl=$top/build/bin/mdkctl
rc=0

# shellcheck disable=SC2086
"$mdkctl" swarm bench --sweep 1,2,4,8 ${MDK_SWARM_BENCH_ARGS:-} || rc=1

echo
echo "Checked stress runs (linearizability of the whole history):"
for args in "--protocol swarm --replicas 3 --crash 1 --clients 8 --keys 2" \
	"--protocol swarm --replicas 5 --crash 2 --clients 8 --keys 4" \
	"--protocol swarm --replicas 3 --crash 1 --clients 8 --keys 1 --rtt-ns 1000" \
	"--protocol dm-abd --replicas 3 --crash 1 --clients 8 --keys 2"; do
	# shellcheck disable=SC2086
	"$mdkctl" swarm stress $args --ops 20000 --seconds 20 || rc=1
done

echo
tsan=$top/build/tsan
mkdir -p "$tsan"
# shellcheck disable=SC2046
if gcc -std=gnu11 -O1 -g -fsanitize=thread -Wno-tsan -D_GNU_SOURCE \
	-DMDK_VERSION='"tsan"' -I"$top" -I"$top/libmdk/include" -I"$top/tests/unit" \
	"$top/tests/unit/test_swarm_stress.c" "$top"/libmdk/swarm/*.c "$top/libmdk/util.c" \
	-o "$tsan/test_swarm_stress" $(pkg-config --cflags --libs check) \
	-lpthread -lm 2>"$tsan/build.log"; then
	echo "ThreadSanitizer: test_swarm_stress"
	if CK_DEFAULT_TIMEOUT=600 TSAN_OPTIONS=halt_on_error=1 \
		MDK_SWARM_STRESS_SCALE=2 "$tsan/test_swarm_stress" >"$tsan/run.log" 2>&1; then
		grep -c '^ok' "$tsan/run.log" | sed 's/^/  cases passed: /'
	else
		echo "  FAILED (build/tsan/run.log):"
		grep -E 'not ok|WARNING: ThreadSanitizer' "$tsan/run.log" | head
		rc=1
	fi
else
	echo "ThreadSanitizer: not available ($(head -n 1 "$tsan/build.log"))"
fi
exit $rc
