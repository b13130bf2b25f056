#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the set-up step of make check and make demo
# (tests/ensure-deps) with a fake tests/install-deps.sh: as root it
# installs once and records the list's hash, does nothing the second
# time, installs again when the list changes or with --force (make deps),
# and records nothing when the install fails; without root it installs
# nothing and names "sudo make deps", unless the stamp is current or
# nothing is missing (then it records); the Makefile runs it for check
# and demo, and stops there without root.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 10

# The fake: --list prints $tmp/list, --missing $tmp/missing; installing
# appends to $tmp/runs and exits with $tmp/rc.
cat >"$tmp/install-deps.sh" <<FAKE
case \${1:-} in
--list) cat "$tmp/list" ;;
--missing) cat "$tmp/missing" ;;
*) echo run >>"$tmp/runs"; exit \$(cat "$tmp/rc") ;;
esac
FAKE
printf 'gcc\nclang\n' >"$tmp/list"
echo libbpf-dev >"$tmp/missing"
echo 0 >"$tmp/rc"
export MDK_INSTALL_DEPS=$tmp/install-deps.sh
stamp=$tmp/build/deps.stamp
runs() {
	[ -e "$tmp/runs" ] && wc -l <"$tmp/runs" || echo 0
}
ensure() {
	MDK_UID=$1 "$top/tests/ensure-deps" "${@:2}" 2>"$tmp/err"
}

ensure 0 "$stamp" && [ "$(runs)" -eq 1 ] &&
	[ "$(cat "$stamp")" = "$(printf 'gcc\nclang\n' | sha256sum | cut -d' ' -f1)" ]
ktap_check "root, no stamp: installs once and records the list's hash"

ensure 0 "$stamp" && [ "$(runs)" -eq 1 ]
ktap_check "root, stamp current: nothing runs"

printf 'gcc\nclang\nlintian\n' >"$tmp/list"
ensure 0 "$stamp" && [ "$(runs)" -eq 2 ]
ktap_check "the list changed: installs again"

ensure 0 --force "$stamp" && [ "$(runs)" -eq 3 ]
ktap_check "--force (make deps) installs even with a current stamp"

old=$(cat "$stamp")
printf 'gcc\n' >"$tmp/list"
echo 100 >"$tmp/rc"
! ensure 0 "$stamp" && [ "$(runs)" -eq 4 ] && [ "$(cat "$stamp")" = "$old" ]
ktap_check "a failed install fails and records nothing"

! ensure 1000 "$stamp" && [ "$(runs)" -eq 4 ] &&
	grep -qx '    sudo make deps' "$tmp/err" && grep -q 'libbpf-dev' "$tmp/err"
ktap_check "not root, stamp stale: installs nothing, names the missing package and 'sudo make deps'"
sed 's/^/# /' "$tmp/err"

echo 0 >"$tmp/rc"
ensure 0 "$stamp"
ensure 1000 "$stamp" && [ "$(runs)" -eq 5 ] && [ ! -s "$tmp/err" ]
ktap_check "not root, stamp current: nothing runs, nothing said"

printf 'gcc\nclang\n' >"$tmp/list"
: >"$tmp/missing"
ensure 1000 "$stamp" && [ "$(runs)" -eq 5 ] &&
	[ "$(cat "$stamp")" = "$(printf 'gcc\nclang\n' | sha256sum | cut -d' ' -f1)" ]
ktap_check "not root, nothing missing: records without installing"

# The Makefile's wiring: make check and make demo run it before anything.
echo libbpf-dev >"$tmp/missing"
printf 'gcc\nclang\nnew\n' >"$tmp/list"
out=$(cd "$top" && MDK_UID=1000 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n check DEPS_STAMP="$stamp" 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ $out == *"sudo make deps"* ]] && [[ $out != *tests/check* ]] &&
	[ "$(runs)" -eq 5 ]
ktap_check "make check without root stops before building, naming 'sudo make deps'"

out=$(cd "$top" && MDK_UID=0 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n demo DEPS_STAMP="$stamp" 2>&1)
rc=$?
[ $rc -eq 0 ] && [ "$(runs)" -eq 6 ] && [[ $out == *demo-guest.sh* ]]
ktap_check "make demo as root installs first, then goes on"
ktap_finish
