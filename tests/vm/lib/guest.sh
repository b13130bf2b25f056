#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest, chrooted into the host's read-only root, with the
# variables tests/vm/run exported (MDK_TOP, MDK_OUT, MDK_KVER, MDK_MODE,
# MDK_SWAP, MDK_POOL_*).  Mounts what a test needs, sets up swap, then runs
# the tests named in $MDK_OUT/tests (or a shell) and leaves in $MDK_OUT:
#   tap.txt    kselftest-style TAP 13 of the whole run
#   dmesg.txt  the guest's kernel log after the run
#   status     the runner's exit status (absent if the guest died first)
# Each TAP line also goes to the console prefixed with "MDK-TAP ", so that the
# host can show progress.  In "cmd" mode (tests/vm/run --run) the command's
# output goes to cmd.log and to the console prefixed with "MDK-OUT ".

set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=${TERM:-linux}
export MDK_BUILD=$MDK_TOP/build

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
hostname mdk-vm
ip link set lo up 2>/dev/null
echo "+memory +io +cpu +pids" >/sys/fs/cgroup/cgroup.subtree_control

if [ -n "${MDK_SWAP:-}" ]; then
	modprobe virtio_blk
	for _ in $(seq 50); do
		[ -b "$MDK_SWAP" ] && break
		sleep 0.1
	done
	mkswap -q "$MDK_SWAP" >/dev/null && swapon "$MDK_SWAP" ||
		echo "vm-guest: cannot enable swap on $MDK_SWAP"
fi

if [ "$MDK_MODE" = shell ]; then
	echo "mdk VM shell: kernel $MDK_KVER, tree $MDK_TOP, results $MDK_OUT"
	echo "exit the shell to power off."
	cd "$MDK_TOP" && setsid -c /bin/bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	exit 0
fi

if [ "$MDK_MODE" = cmd ]; then
	cd "$MDK_TOP" && bash "$MDK_OUT/cmd.sh" </dev/null 2>&1 |
		while IFS= read -r line; do
			echo "$line" >>"$MDK_OUT/cmd.log"
			echo "MDK-OUT $line" >/dev/console
		done
	rc=${PIPESTATUS[0]}
	dmesg >"$MDK_OUT/dmesg.txt"
	echo "$rc" >"$MDK_OUT/status"
	sync
	exit 0
fi

tests=()
while read -r t; do
	prog=$MDK_TOP/tests/vm/$t.sh
	[ -e "$prog" ] || prog=$MDK_BUILD/tests/vm/$t
	tests+=("$t=$prog")
done <"$MDK_OUT/tests"

header="kernel $MDK_KVER: $(nproc) cpus, $(free -m | awk '/^Mem/ { print $2 }') MiB"
header="$header, pool ${MDK_POOL_SIZE:-none}, swap ${MDK_SWAP:-none}"
TMPDIR=/tmp "$MDK_TOP/tests/ksft-run" --kmsg --timeout "$MDK_TEST_TIMEOUT" \
	--header "$header" "${tests[@]}" |
	while IFS= read -r line; do
		echo "$line" >>"$MDK_OUT/tap.txt"
		echo "MDK-TAP $line" >/dev/console
	done
rc=${PIPESTATUS[0]}

swapoff -a 2>/dev/null
dmesg >"$MDK_OUT/dmesg.txt"
echo "$rc" >"$MDK_OUT/status"
sync
