# SPDX-License-Identifier: GPL-2.0
#
# mdk: proactive memory reclamation for Linux hosts with CXL memory pools.
#
#   make              build everything: libmdk, libmdk-swarm, the sampler
#                     (BPF object, skeleton, loader), mdkd, mdkctl,
#                     cmm_mp.ko for every kernel
#   make check        unit tests (ASan+UBSan) and the VM suite on every kernel
#   make demo         boot the VM with the pool and show what mdk does
#                     (both install the packages they need first: make deps)
#   make bench        benchmarks, as ratios against in-run baselines
#   make experiment   the end-to-end experiment (Documentation/experiment.rst)
#   make install      install under $(DESTDIR)$(PREFIX)
#   make python       the Python package mdk, in build/python/
#   make deb          the Debian packages (debian/), in build/deb/
#
# Variables: V=1 (show commands), KDIR=/path/to/kernel/build (build the
# module for that tree only), PREFIX (default /usr/local), DESTDIR,
# WERROR=0 (warnings are errors by default).  Every output goes to build/.

B := build

# make check and make demo set up a fresh clone themselves: the packages of
# tests/install-deps.sh are installed once (as root) and recorded in
# DEPS_STAMP, and again when that list changes; without root,
# tests/ensure-deps names the command to run and make stops.  This comes
# first: what follows asks pkg-config and /lib/modules.
DEPS_STAMP ?= $(B)/deps.stamp
ifneq ($(filter check demo,$(MAKECMDGOALS)),)
ifneq ($(shell tests/ensure-deps $(DEPS_STAMP) >&2; echo $$?),0)
$(error the packages mdk needs are missing: see above)
endif
endif

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system

MDK_VERSION := 0.1.0
MDK_SOVERSION := 0

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CC ?= cc
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
WERROR ?= 1

WARNINGS := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wvla
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
CFLAGS ?= -O2 -g
MDK_CFLAGS := -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -DMDK_VERSION='"$(MDK_VERSION)"' \
	-I. -Ilibmdk/include $(CPPFLAGS) $(CFLAGS)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

# Kernels: every installed Debian kernel with headers, oldest first.  BPF
# and the VM tests use them all; the module is built for each, or only for
# the tree KDIR names (its release read from utsrelease.h, as vermagic is).
KVERS := $(shell for k in $$(tests/vm/kernels); do \
	[ -d /lib/modules/$$k/build ] && echo $$k; done)
ifneq ($(KDIR),)
KMOD_KVERS := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
kdir_of = $(KDIR)
else
KMOD_KVERS := $(KVERS)
kdir_of = /lib/modules/$(1)/build
endif

.PHONY: all
all:

.DELETE_ON_ERROR:
.SECONDARY:

# BPF: a vmlinux.h per installed kernel, generated from the BTF inside its
# /boot/vmlinuz, and libbpf skeletons in the libbpf-tools manner
# (.bpf.c -> .bpf.o -> .skel.h).  The programs are CO-RE: the sampler's,
# which mdkd and mdkctl load, is compiled once, against the oldest kernel's
# BTF (BPF_KVER), and relocated by libbpf when it loads on any kernel.
#
# For kernel K, NAME.bpf.c anywhere in the tree becomes
# $(B)/bpf/K/NAME.bpf.o and $(B)/bpf/K/NAME.skel.h (NAME keeps its path).

EXTRACT_VMLINUX ?= /usr/src/linux-source-6.1/scripts/extract-vmlinux
BPF_KVER ?= $(firstword $(KVERS))
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH)

# The vmlinux of kernel K, with its BTF, from /boot/vmlinuz-K; bpftool
# then dumps its types as C.
$(B)/bpf/%/vmlinux.h:
	$(call msg,BTF,$@)
	@mkdir -p $(@D)
	$(Q)test -x $(EXTRACT_VMLINUX) || { echo "$(EXTRACT_VMLINUX) missing: run make deps" >&2; exit 1; }
	$(Q)$(EXTRACT_VMLINUX) /boot/vmlinuz-$* >$(@D)/vmlinux
	$(Q)$(BPFTOOL) btf dump file $(@D)/vmlinux format c >$@.tmp
	$(Q)rm -f $(@D)/vmlinux && mv $@.tmp $@

define bpf_rules
$(B)/bpf/$(1)/%.bpf.o: %.bpf.c $(B)/bpf/$(1)/vmlinux.h
	$$(call msg,BPF,$$@)
	@mkdir -p $$(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -I$(B)/bpf/$(1) -I$$(dir $$<) -MMD -MP -c $$< -o $$@
	$(Q)$(LLVM_STRIP) -g $$@

$(B)/bpf/$(1)/%.skel.h: $(B)/bpf/$(1)/%.bpf.o
	$$(call msg,GEN-SKEL,$$@)
	$(Q)$(BPFTOOL) gen skeleton $$< >$$@
endef
$(foreach k,$(KVERS),$(eval $(call bpf_rules,$(k))))

# The system libraries mdkd, mdkctl and the sampler build against.
# Messages are snprintf'ed into fixed buffers on purpose: a long path may
# cut a message short, never overflow it.  (clang lacks the option.)
SYS_PKGS := liburing libcgroup libsystemd inih json-c libbpf numa
# LZ4: mdkd's sampled compressibility (daemon/compress.c)
SYS_PKGS += liblz4
SYS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(SYS_PKGS) 2>/dev/null) \
	-Wno-format-truncation -Wno-unknown-warning-option
SYS_LIBS := $(shell $(PKG_CONFIG) --libs $(SYS_PKGS) 2>/dev/null) -lelf -lz -lm -lpthread

# Lower layers first: each may use only those included before it.
include libmdk/build.mk
include libmdk/swarm/build.mk
include bpf/build.mk
include daemon/build.mk
include cli/build.mk
include kmod/build.mk
include tests/build.mk
# The Python package (make python), on libmdk.
include libmdk/python/build.mk

# Every static library: its members are the prerequisites its build.mk
# lists.
$(B)/%.a:
	$(call msg,AR,$@)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/%.o: %.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(MDK_CFLAGS) $(EXTRA_CFLAGS_$(dir $<)) -MMD -MP -fPIC -c $< -o $@

$(B)/san/%.o: %.c
	$(call msg,CC-SAN,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(MDK_CFLAGS) $(EXTRA_CFLAGS_$(dir $<)) $(SAN_FLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# What make install installs, built alone (debian/rules builds this).
.PHONY: installables
installables: $(LIBMDK_A) $(LIBSWARM_A) $(LIBMDK_SO) $(MDKCTL) $(MDKD) $(MDKD_UNIT)

.PHONY: install
install: all install-core

.PHONY: install-core
install-core: installables
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/mdk $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(SYSCONFDIR)/mdk $(DESTDIR)$(UNITDIR)
	install -m 0644 $(LIBMDK_A) $(LIBSWARM_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIBMDK_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBMDK_SO)) $(DESTDIR)$(LIBDIR)/libmdk.so.$(MDK_SOVERSION)
	ln -sf libmdk.so.$(MDK_SOVERSION) $(DESTDIR)$(LIBDIR)/libmdk.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(MDK_VERSION)|' \
		libmdk/mdk.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/mdk.pc
	install -m 0644 libmdk/include/mdk/*.h $(DESTDIR)$(INCLUDEDIR)/mdk/
	install -m 0755 $(MDKCTL) $(DESTDIR)$(BINDIR)/
	install -m 0755 $(MDKD) $(DESTDIR)$(SBINDIR)/
	for p in $(wildcard Documentation/man/*.[358]); do \
		s=$${p##*.}; install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/; done

.PHONY: clean
clean:
	rm -rf $(B)

# Debian packages: mdk, libmdk0, libmdk-dev and cmm-mp-dkms (debian/),
# with their .changes and .buildinfo, in $(B)/deb/; lintian's findings in
# $(B)/deb/lintian.txt, and an error fails.  dpkg-buildpackage cleans and
# builds in $(B)/deb/obj only (debian/rules).
DEB_DIR := $(CURDIR)/$(B)/deb
.PHONY: deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)
	v=$$(dpkg-parsechangelog -S Version) a=$$(dpkg-architecture -qDEB_HOST_ARCH) && \
	MDK_DEB_DIR=$(DEB_DIR) env -u MAKEFLAGS -u MAKELEVEL dpkg-buildpackage -us -uc -b -Jauto \
		--changes-option=-u$(DEB_DIR) --buildinfo-option=-u$(DEB_DIR) \
		--changes-file=$(DEB_DIR)/mdk_$${v}_$$a.changes \
		--buildinfo-file=$(DEB_DIR)/mdk_$${v}_$$a.buildinfo && \
	lintian --display-info $(DEB_DIR)/mdk_$${v}_$$a.changes >$(DEB_DIR)/lintian.txt; \
	rc=$$?; cat $(DEB_DIR)/lintian.txt; exit $$rc

# Install the Debian packages the build, tests and demo need (root), and
# record it for make check and make demo.
.PHONY: deps
deps:
	tests/ensure-deps --force $(DEPS_STAMP)

# Format userspace C with the committed .clang-format.
FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' | grep -v '^kmod/')
.PHONY: format format-check
format:
	clang-format -i $(FORMAT_SRCS)
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRCS)
