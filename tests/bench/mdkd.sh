#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark: mdkd's CPU time per interval with 100, 1000 and 2000 managed
# cgroups of a fake cgroup tree, as a ratio to reading the same files with
# pread(2) in the same run, and the resident memory per cgroup (see
# tests/bench/bench_mdkd.c).  Targets: under 1 ms per cgroup per interval,
# 50 us with the operator's limits on.  Then the caps holding: max_rate,
# host_max_rate and max_cpu against the same runs uncapped
# (tests/bench/bench_mdkd_caps.c).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/build/tests/bench/bench_mdkd
[ -x "$bench" ] || { echo "mdkd bench: $bench missing (make)"; exit 1; }
[ -x "${bench}_caps" ] || { echo "mdkd bench: ${bench}_caps missing (make)"; exit 1; }
rc=0
for n in 100 1000 2000; do
	"$bench" "$n" $((n >= 1000 ? 10 : 50)) || rc=1
done
"${bench}_caps" || rc=1
exit $rc
