#!/bin/sh
# Install every Debian package that mdk's build, tests, benchmarks and demo need,
# including Debian 12's two kernels (6.1 and the newest 6.12 backport) with their
# headers.  Idempotent: packages already present are left alone.  Needs root.
#
#   install-deps.sh --list     the fixed package list, one a line (the
#                              kernels are picked from apt when installing)
#   install-deps.sh --missing  what is not installed yet, one a line; no
#                              root needed (tests/ensure-deps asks)
set -eu

pkgs="build-essential pkg-config git clang llvm lld bpftool libbpf-dev libelf-dev
zlib1g-dev liblinear-dev liburing-dev libcgroup-dev cgroup-tools check libsubunit-dev
libsystemd-dev libinih-dev libjson-c-dev libnuma-dev numactl qemu-system-x86 busybox-static
cpio kmod xz-utils zstd lz4 bzip2 stressapptest stress-ng gnuplot-nox valgrind
linux-source-6.1 clang-format redis-server redis-tools sqlite3 procps
util-linux python3 debhelper dh-dkms dkms lintian
libzstd-dev libxgboost-dev python3-cffi python3-numpy python3-pandas python3-pytest python3-distributed
python3-dev
libglpk-dev
liblz4-dev"

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'ok installed'
}

case ${1:-} in
--list)
	printf '%s\n' $pkgs
	exit 0
	;;
--missing)
	for p in $pkgs linux-image-amd64 linux-headers-amd64; do
		installed "$p" || echo "$p"
	done
	installed 'linux-headers-6.12.*+deb12-amd64' || echo "linux-headers-6.12.*+deb12-amd64"
	[ -x /usr/src/linux-source-6.1/scripts/checkpatch.pl ] ||
		echo "linux-source-6.1 (its scripts unpacked)"
	exit 0
	;;
"") ;;
*)
	echo "usage: install-deps.sh [--list|--missing]" >&2
	exit 2
	;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: must run as root (apt-get)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive

apt_get() {
	apt-get -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "$@"
}

# Refresh the lists once; later runs need it only when they are missing.
if [ -z "$(ls /var/lib/apt/lists/*_Packages* 2>/dev/null)" ] ||
   [ -n "${MDK_APT_UPDATE:-}" ]; then
	apt-get -q update
fi

# The newest 6.12 kernel whose headers and signed image are both in the
# archive; failing that, the newest with the unsigned image (the same kernel:
# QEMU boots either).  apt-cache madison lists only real packages: a name
# merely referred to (a signed image not yet built) prints nothing.
has() {
	[ -n "$(apt-cache madison "$1" 2>/dev/null)" ]
}
pick_612() {
	apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\) .*/\1/p' |
		sort -V -r | {
			unsigned=""
			while read -r v; do
				if has "linux-image-$v"; then
					echo "linux-image-$v linux-headers-$v"
					exit 0
				fi
				[ -z "$unsigned" ] && has "linux-image-$v-unsigned" &&
					unsigned="linux-image-$v-unsigned linux-headers-$v"
			done
			echo "$unsigned"
		}
}
k612=$(pick_612)
if [ -z "$k612" ]; then
	# Lists may be stale: refresh once and retry.
	apt-get -q update
	k612=$(pick_612)
fi
kpkgs="linux-image-amd64 linux-headers-amd64 $k612"

missing=""
for p in $pkgs $kpkgs; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	# Kernel postinst hooks (initramfs, bootloader) are not needed: the VM
	# bench builds its own initramfs.  Skip them to save minutes.
	if ! apt_get install $missing; then
		apt-get -q update
		apt_get install $missing
	fi
fi

# checkpatch.pl, extract-vmlinux and kselftest.h ship inside the 6.1
# source tarball: unpack just those.
src=/usr/src/linux-source-6.1
if [ ! -x "$src/scripts/checkpatch.pl" ] ||
   [ ! -r "$src/tools/testing/selftests/kselftest.h" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* | head -n 1)
	tar -C /usr/src -xf "$tarball" linux-source-6.1/scripts \
		linux-source-6.1/tools/testing/selftests/kselftest.h
fi

echo "install-deps: kernels: $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | tr '\n' ' ')"
