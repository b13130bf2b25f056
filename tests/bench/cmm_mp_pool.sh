#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mdkctl pool bench in a VM: pointer-chase latency and read bandwidth from
# the CPUs (node 0) to node 0's DRAM and to the CMM-MP node's memory, with
# the CMM-MP node as a ratio to node 0 measured in the same run.  Under TCG
# both are the same host RAM behind the same emulator: see "Measured" in
# Documentation/cmm_mp.rst for what the figures mean.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${KVER:-$("$top/tests/vm/kernels" | tail -n 1)}
exec "$top/tests/vm/run" -k "$kver" -s 0 --run '
set -e
insmod build/kmod/$(uname -r)/cmm_mp.ko
build/bin/mdkctl pool online 0-3 >/dev/null
build/bin/mdkctl pool bench -s 64 -r 3
build/bin/mdkctl pool offline all >/dev/null
rmmod cmm_mp'
