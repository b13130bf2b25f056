#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: CO-RE across kernels: the bpf_core skeleton built against the
# vmlinux.h of every installed kernel loads and reads back correct values
# on the running kernel.
. "$(dirname "$0")/lib/lib.sh"
require_root
shopt -s nullglob
progs=("$MDK_BUILD"/tests/vm/*/bpf_core)
[ ${#progs[@]} -gt 0 ] || ksft_skip "no bpf_core builds (run make)"
ktap_plan ${#progs[@]}
for p in "${progs[@]}"; do
	k=$(basename "$(dirname "$p")")
	out=$("$p" 2>&1)
	ret=$?
	echo "$out" | sed 's/^/# /'
	if [ $ret -eq 0 ]; then
		ktap_pass "built against $k's BTF, loaded on $KVER"
	else
		ktap_fail "built against $k's BTF, loaded on $KVER (exit $ret)"
	fi
done
ktap_finish
