# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell VM tests: TAP 13 output in the manner of the
# kernel's kselftest (ktap_helpers.sh), and what the tests share.
#
#   ktap_plan N          header and plan
#   ktap_ok COND DESC    COND is a command; "ok"/"not ok" DESC
#   ktap_pass DESC / ktap_fail DESC / ktap_skip DESC
#   ktap_diag TEXT       "# TEXT"
#   ktap_finish          exit 0, 1 if a case failed or the cases run do
#                        not match the plan, 4 if all skipped
#   ktap_bail DESC       a failed case DESC, then ktap_finish: the rest
#                        cannot run
#   require_root, require_file F, ksft_skip MSG (whole test skipped)

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_planned=""
ktap_n=0
ktap_failed=0
ktap_passed=0
ktap_skipped=0

ktap_plan() {
	echo "TAP version 13"
	echo "1..$1"
	ktap_planned=$1
}

ktap_diag() {
	echo "# $*"
}

ktap_pass() {
	ktap_n=$((ktap_n + 1))
	ktap_passed=$((ktap_passed + 1))
	echo "ok $ktap_n $*"
}

ktap_fail() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $*"
}

ktap_skip() {
	ktap_n=$((ktap_n + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_n $* # SKIP"
}

# ktap_ok DESC CMD...: run CMD; pass when it succeeds.
ktap_ok() {
	local desc=$1
	shift
	if "$@"; then ktap_pass "$desc"; else ktap_fail "$desc"; fi
}

# ktap_check DESC: a case that passes if the last command did:
#   [[ $x == y ]]; ktap_check "x is y"
ktap_check() {
	if [ $? -eq 0 ]; then ktap_pass "$1"; else ktap_fail "$1"; fi
}

ktap_finish() {
	echo "# Totals: pass:$ktap_passed fail:$ktap_failed skip:$ktap_skipped"
	if [ "$ktap_n" != "$ktap_planned" ]; then
		echo "# Planned tests != run tests (${ktap_planned:-no plan} != $ktap_n)"
		exit $KSFT_FAIL
	fi
	[ $ktap_failed -gt 0 ] && exit $KSFT_FAIL
	[ $ktap_passed -eq 0 ] && [ $ktap_skipped -gt 0 ] && exit $KSFT_SKIP
	exit $KSFT_PASS
}

ktap_bail() {
	ktap_fail "$1"
	ktap_finish
}

ksft_skip() {
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

MDK_TOP=${MDK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
MDK_BUILD=${MDK_BUILD:-$MDK_TOP/build}
KVER=$(uname -r)
CMM_MP_KO=$MDK_BUILD/kmod/$KVER/cmm_mp.ko
MDKCTL=$MDK_BUILD/bin/mdkctl
MDKD=$MDK_BUILD/bin/mdkd

require_root() {
	[ "$(id -u)" -eq 0 ] || ksft_skip "needs root"
}

require_file() {
	[ -e "$1" ] || ksft_skip "$1 missing"
}

# dmesg_since MARK: kernel messages logged after "mdk-mark: MARK".
dmesg_mark() {
	echo "mdk-mark: $1" >/dev/kmsg
}
dmesg_since() {
	dmesg | sed -n "/mdk-mark: $1\$/,\$p" | tail -n +2
}
