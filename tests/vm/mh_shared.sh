#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: a segment shared by two hosts (tests/vm/run --hosts 2) is one
# memory: both export segment 2 (mdkctl pool share) and map it through
# /dev/cmm_mp; 1 MiB that host 0 writes reads back on host 1 with the same
# SHA-256, and 1 MiB host 1 writes at the next MiB reads back on host 0.
# The control area shows the segment shared by both; unshared, it is free.
. "$(dirname "$0")/lib/mh_lib.sh"
mh_require
trap kmod_cleanup EXIT
me=$MDK_HOST
other=$((1 - me))
SEG=2


# rw write|read OFFSET: write 1 MiB of fresh random bytes at OFFSET of the
# shared segment, or read 1 MiB there; prints its SHA-256.
rw() {
	python3 - "$1" "$2" "$off" "$bytes" <<'PY'
import hashlib, mmap, os, sys
what, at, base, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fd = os.open("/dev/cmm_mp", os.O_RDWR)
m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=base)
if what == "write":
    m[at:at + (1 << 20)] = os.urandom(1 << 20)
print(hashlib.sha256(m[at:at + (1 << 20)]).hexdigest())
m.close()
os.close(fd)
PY
}

ktap_plan 4
mh_load || ktap_bail "insmod cmm_mp.ko hosts=$MDK_HOSTS host=$me failed"
"$MDKCTL" pool share $SEG >/dev/null || ktap_bail "host $me: mdkctl pool share $SEG failed"
read -r off bytes < <("$MDKCTL" pool status -j | python3 -c "
import json, sys
s = json.load(sys.stdin)['segments'][$SEG]
print(s['mmap_offset'], s['bytes'])")
mh_barrier shared
h=$(seg_holder $SEG)
ktap_diag "host $me: segment $SEG at mmap offset $off, $bytes bytes, held by: $h"
[ "$h" = "shared 0,1" ]
ktap_check "both hosts share segment $SEG"

# Host 0 writes the first MiB, host 1 the second; each reads the other's.
mine=$(rw write $((me << 20))) && mh_put sum "$mine"
theirs=$(mh_get sum $other)
mh_barrier written
seen=$(rw read $((other << 20)))
ktap_diag "host $me wrote $mine; host $other wrote $theirs, read here as $seen"
[ -n "$seen" ] && [ "$seen" = "$theirs" ]
ktap_check "the MiB host $other wrote reads back on host $me with the same SHA-256"
[ "$(rw read $((me << 20)))" = "$mine" ]
ktap_check "and this host's own MiB is intact"
mh_barrier read
"$MDKCTL" pool offline $SEG >/dev/null
mh_barrier unshared
[ "$(seg_holder $SEG)" = none ]
ktap_check "unshared by both, segment $SEG is free"
mh_barrier done
ktap_finish
