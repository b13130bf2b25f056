#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sampler's cost (Documentation/sampler.rst, "Cost"): boots each
# installed kernel in the VM with 2 GiB and no pool, and runs
# build/tests/bench/bench_sampler there on a 1 GiB workload.  Figures are
# CPU time of the sampling thread per GiB of resident memory per window,
# and their ratio to writing "1" to /proc/PID/clear_refs over the same
# memory in the same run (the issue's target: at most 3x).  Under TCG the
# absolute numbers are 10-50x a host's; the ratios are what to compare.
# SAMPLER_BENCH_ARGS passes options to bench_sampler (-s MIB -r ROUNDS
# -f PERCENT -p small|thp); SAMPLER_BENCH_KERNELS limits the kernels.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bench=build/tests/bench/bench_sampler
[ -x "$bench" ] || { echo "bench sampler: $bench missing (run make)"; exit 1; }
kernels=${SAMPLER_BENCH_KERNELS:-$(tests/vm/kernels)}
rc=0
for k in $kernels; do
	echo "--- $k"
	tests/vm/run -k "$k" -m 2048M -p 0 -s 0 -o "build/bench/sampler-$k" \
		--run "$bench ${SAMPLER_BENCH_ARGS:-}" | grep -v '^ok\|^# vm\|^vm:' || rc=1
	[ "$(cat "build/bench/sampler-$k/status" 2>/dev/null)" = 0 ] || rc=1
done
exit $rc
