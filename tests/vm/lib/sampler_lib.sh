# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the mdkctl sampler shell tests (sampler_cli.sh,
# sampler_record.sh; it is not a test itself): what they need and the
# workload they sample, on top of lib.sh.
#
#   sampler_require        skip unless root, mdkctl is built and python3
#                          is installed (the tests check output with it)
#   sampler_workload NAME  a light workload in a new cgroup
#                          /sys/fs/cgroup/NAME-$$ ($SAMPLER_CG): a shell
#                          loop ($SAMPLER_PID) forking sleep(1) children,
#                          so that processes come and go; waits until it
#                          is in the cgroup; both are removed on exit
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SAMPLER_CG=
SAMPLER_PID=

sampler_require() {
	require_root
	require_file "$MDKCTL"
	command -v python3 >/dev/null || ksft_skip "python3 not installed"
}

sampler_cleanup() {
	[ -n "$SAMPLER_PID" ] || return 0
	kill "$SAMPLER_PID" 2>/dev/null
	wait "$SAMPLER_PID" 2>/dev/null
	# The sleep children leave the cgroup a little after the loop.
	for _ in $(seq 50); do
		grep -q . "$SAMPLER_CG/cgroup.procs" || break
		sleep 0.1
	done
	rmdir "$SAMPLER_CG" 2>/dev/null
}
trap sampler_cleanup EXIT

sampler_workload() {
	SAMPLER_CG=/sys/fs/cgroup/$1-$$
	mkdir "$SAMPLER_CG" || ksft_skip "cannot create $SAMPLER_CG"
	sh -c "echo \$\$ >$SAMPLER_CG/cgroup.procs && exec bash -c \
		'while :; do sleep 0.2; done'" &
	SAMPLER_PID=$!
	for _ in $(seq 100); do
		grep -q . "$SAMPLER_CG/cgroup.procs" && break
		sleep 0.1
	done
}
