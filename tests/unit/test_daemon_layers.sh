#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: daemon/'s layers as Documentation/mdkd.rst ("Source layout")
# lists them, top first, one entry a layer: every file of daemon/ has a
# layer, and includes only headers of its own layer or of a layer below
# it (so no include circle either); a header of a higher layer included
# from a lower one fails and is named.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib.sh"
ktap_plan 3

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
ktap_check "the layout block lists daemon's files"

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
[ -z "$missing" ] || ktap_diag "no layer:$missing"
[ -z "$missing" ]
ktap_check "every file of daemon/ has a layer"

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
[ -z "$up" ] || ktap_diag "includes going up:$up"
[ -z "$up" ]
ktap_check "no file includes a header of a layer above its own"
ktap_finish
