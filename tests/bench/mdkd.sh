#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark: mdkd's CPU time per interval with 100 and 1000 managed cgroups
# of a fake cgroup tree, as a ratio to reading the same files with pread(2)
# in the same run (see tests/bench/bench_mdkd.c).  Target: under 1 ms per
# cgroup per interval.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/build/tests/bench/bench_mdkd
[ -x "$bench" ] || { echo "mdkd bench: $bench missing (make)"; exit 1; }
rc=0
for n in 100 1000; do
	"$bench" "$n" $((n >= 1000 ? 10 : 50)) || rc=1
done
exit $rc
