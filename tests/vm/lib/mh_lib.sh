# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the multi-host VM tests (tests/vm/mh_*.sh, run by
# tests/vm/run --hosts N from tests/vm/TESTS.multihost): every host runs
# the same test, picks its part by $MDK_HOST and meets the others through
# files in $MDK_SHARED, a directory every guest mounts.  On top of
# kmod_lib.sh:
#
#   mh_require            skip unless kmod_require holds and there are
#                         at least two hosts
#   mh_load [PARAM...]    insmod cmm_mp.ko as host $MDK_HOST of $MDK_HOSTS
#   mh_put NAME [VALUE]   publish NAME (with VALUE) from this host
#   mh_get NAME HOST      print what HOST published as NAME, waiting for it
#                         (MH_WAIT seconds, default 300); fails on timeout
#   mh_barrier NAME       publish NAME, then wait until every host did
#   mh_die                have the bench kill this guest, now (a host that
#                         dies): never returns
. "$(dirname "${BASH_SOURCE[0]}")/kmod_lib.sh"

MH_WAIT=${MH_WAIT:-300}
# Names are per test, so that tests of one run never meet each other's.
MH_TEST=$(basename "$0" .sh)

mh_require() {
	kmod_require
	[ "${MDK_HOSTS:-1}" -ge 2 ] && [ -d "${MDK_SHARED:-}" ] ||
		ksft_skip "needs several hosts (tests/vm/run --hosts 2)"
}

mh_load() {
	kmod_load hosts="$MDK_HOSTS" host="$MDK_HOST" "$@"
}

mh_put() {
	local f=$MDK_SHARED/$MH_TEST.$1.$MDK_HOST
	printf '%s\n' "${2:-}" >"$f.tmp" && mv "$f.tmp" "$f"
}

mh_get() {
	local f=$MDK_SHARED/$MH_TEST.$1.$2 i
	for ((i = 0; i < MH_WAIT * 10; i++)); do
		if [ -e "$f" ]; then
			cat "$f"
			return 0
		fi
		sleep 0.1
	done
	ktap_diag "host $MDK_HOST: no '$1' from host $2 after ${MH_WAIT}s"
	return 1
}

mh_barrier() {
	local h
	mh_put "$1"
	for ((h = 0; h < MDK_HOSTS; h++)); do
		mh_get "$1" $h >/dev/null || return 1
	done
}

mh_die() {
	sync
	: >"$MDK_SHARED/kill-host$MDK_HOST"
	while :; do sleep 1; done
}

# seg_holder SEG: which hosts hold segment SEG in the pool's control area,
# as the module shows it ("none", "host H", "shared H,H").
seg_holder() {
	cat "$CMM_MP_SYS/segments/seg$1/holder"
}
