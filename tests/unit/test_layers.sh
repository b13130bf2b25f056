#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the tree's layers, read from its #include lines.  Lowest
# first: kmod/uapi (the module's ABI), libmdk, libmdk/swarm, bpf (the
# sampler's loader), daemon, cli; a file includes only headers of its own
# layer or of lower ones.  A source and its header are one unit, and no
# units include each other in a circle (a package's private header,
# *_int.h or internal.h, is its package's and ties no circle).  kmod/ and
# tests/ stand apart.  Then the checker itself: a tree with an up-include
# and one with a circle must fail it.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib/lib.sh"
command -v python3 >/dev/null || ksft_skip "python3 missing"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check_layers DIR: every up-include and circle of DIR's tracked C files,
# one a line; exits 1 when there is any.
check_layers() {
	(cd "$1" && git ls-files '*.c' '*.h') | python3 -c '
import os, re, sys
top = sys.argv[1]
files = [f for f in sys.stdin.read().split() if not f.startswith("tests/")]
layers = [("kmod/uapi/", 0), ("libmdk/swarm/", 2), ("libmdk/", 1),
	  ("bpf/", 3), ("daemon/", 4), ("cli/", 5)]
def layer(f):
	return next((n for p, n in layers if f.startswith(p)), None)
def resolve(src, name):
	for base in (os.path.dirname(src), "", "libmdk/include"):
		p = os.path.normpath(os.path.join(base, name))
		if os.path.exists(os.path.join(top, p)):
			return p
unit = lambda f: re.sub(r"\.[ch]$", "", f)
private = lambda f: re.search(r"(_int|/internal)\.h$", f)
edges, bad = {}, []
for f in files:
	for line in open(os.path.join(top, f), errors="replace"):
		m = re.match(r"\s*#\s*include\s+\"([^\"]+)\"", line)
		t = m and resolve(f, m.group(1))
		if not t:
			continue
		lf, lt = layer(f), layer(t)
		if lf is not None and lt is not None and lt > lf:
			bad.append("up-include: %s includes %s" % (f, t))
		if unit(f) != unit(t) and not private(t):
			edges.setdefault(unit(f), set()).add(unit(t))
# Tarjan: the strongly connected units of more than one are the circles.
index, low, stack, on, n = {}, {}, [], set(), [0]
sys.setrecursionlimit(100000)
def visit(v):
	index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
	for w in edges.get(v, ()):
		if w not in index:
			visit(w); low[v] = min(low[v], low[w])
		elif w in on:
			low[v] = min(low[v], index[w])
	if low[v] == index[v]:
		comp = []
		while not comp or comp[-1] != v:
			comp.append(stack.pop()); on.discard(comp[-1])
		if len(comp) > 1:
			bad.append("circle: " + " <-> ".join(sorted(comp)))
for v in list(edges):
	if v not in index:
		visit(v)
print("\n".join(bad))
sys.exit(1 if bad else 0)' "$1"
}

ktap_plan 3

out=$(check_layers "$top")
ret=$?
[ -n "$out" ] && while read -r l; do ktap_diag "$l"; done <<<"$out"
[ $ret -eq 0 ]
ktap_check "no include points up a layer and no units include each other in a circle"

# A lower layer that includes a higher one.
mkdir -p "$tmp/up/libmdk" "$tmp/up/cli"
echo '#include "cli/parse.h"' >"$tmp/up/libmdk/a.c"
: >"$tmp/up/cli/parse.h"
git -C "$tmp/up" init -q && git -C "$tmp/up" add -A
out=$(check_layers "$tmp/up")
[ $? -eq 1 ] && [[ $out == "up-include: libmdk/a.c includes cli/parse.h" ]]
ktap_check "the check fails a libmdk file that includes a cli header"

# Two daemon units that include each other.
mkdir -p "$tmp/circle/daemon"
printf '#include "b.h"\n' >"$tmp/circle/daemon/a.c"
: >"$tmp/circle/daemon/a.h"
printf '#include "a.h"\n' >"$tmp/circle/daemon/b.c"
: >"$tmp/circle/daemon/b.h"
git -C "$tmp/circle" init -q && git -C "$tmp/circle" add -A
out=$(check_layers "$tmp/circle")
[ $? -eq 1 ] && [[ $out == "circle: daemon/a <-> daemon/b" ]]
ktap_check "the check fails two units that include each other"

ktap_finish
