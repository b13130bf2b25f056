#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: daemon/'s layers as Documentation/mdkd.rst ("Source layout")
# lists them, top first, one entry a layer: every file of daemon/ has a
# layer, and includes only headers of its own layer or of a layer below
# it (so no include circle either); a header of a higher layer included
# from a lower one fails and is named.
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0 failed=0
echo "TAP version 13"
echo "1..3"

# check STATUS DESC: a case that passes if STATUS is 0.
check() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

# The layout block: "  FILE... description", continuation lines indented
# further.  Prints "LAYER NAME" for every file name an entry mentions
# (extension dropped; globs kept).
layers() {
	awk '
	/^Source layout$/ { s = 1 }
	s && /::$/ { b = 1; next }
	b && NF && /^[^ ]/ { exit }
	b && /^  [^ ]/ { n++ }
	b && n {
		for (i = 1; i <= NF; i++) {
			w = $i
			gsub(/[(),;:]/, "", w)
			if (w ~ /^[a-z_*<>]+\.[ch]$/) {
				sub(/\.[ch]$/, "", w)
				print n, w
			}
		}
	}' "$top/Documentation/mdkd.rst"
}

map=$(layers)
[ -n "$map" ]
check $? "the layout block lists daemon's files"

# The layer of daemon file $1 (a name without extension), or nothing.
layer_of() {
	local name=$1 n pat
	while read -r n pat; do
		# shellcheck disable=SC2053 # $pat is a glob on purpose
		if [[ $name == $pat ]]; then
			echo "$n"
			return
		fi
	done <<<"$map"
}

missing=
for f in "$top"/daemon/*.[ch]; do
	b=$(basename "$f")
	[ -n "$(layer_of "${b%.?}")" ] || missing+=" $b"
done
[ -z "$missing" ] || echo "# no layer:$missing"
[ -z "$missing" ]
check $? "every file of daemon/ has a layer"

up=
for f in "$top"/daemon/*.[ch]; do
	b=$(basename "$f")
	from=$(layer_of "${b%.?}")
	[ -n "$from" ] || continue
	while read -r h; do
		to=$(layer_of "$h")
		if [ -n "$to" ] && [ "$to" -lt "$from" ]; then
			up+=" $b->$h.h"
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\)\.h"$/\1/p' "$f")
done
[ -z "$up" ] || echo "# includes going up:$up"
[ -z "$up" ]
check $? "no file includes a header of a layer above its own"
[ $failed -eq 0 ]
