#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: cmm_mp.ko built for the running kernel carries its module
# information, loads with its dmesg line and unloads cleanly.
. "$(dirname "$0")/lib/lib.sh"
require_root
require_file "$CMM_MP_KO"

ktap_plan 6
ktap_ok "modinfo names the module's license, description and version" \
	bash -c "modinfo -F license '$CMM_MP_KO' | grep -qx GPL &&
		 modinfo -F description '$CMM_MP_KO' | grep -q CMM-MP &&
		 modinfo -F version '$CMM_MP_KO' | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'"
ktap_ok "vermagic matches the running kernel" \
	bash -c "modinfo -F vermagic '$CMM_MP_KO' | grep -q '^$KVER '"

dmesg_mark kmod_load
ktap_ok "insmod succeeds" insmod "$CMM_MP_KO"
ktap_ok "the module is live in /sys/module" \
	bash -c '[ "$(cat /sys/module/cmm_mp/initstate)" = live ]'
ktap_ok "rmmod succeeds" rmmod cmm_mp
log=$(dmesg_since kmod_load)
echo "$log" | sed 's/^/# /'
ktap_ok "dmesg shows load and unload with the cmm_mp: prefix" \
	bash -c "grep -q 'cmm_mp: loaded, version' <<<'$log' && grep -q 'cmm_mp: unloaded' <<<'$log'"
ktap_finish
