# SPDX-License-Identifier: GPL-2.0
# BPF: a vmlinux.h per installed kernel, generated from the BTF inside its
# /boot/vmlinuz, and libbpf skeletons in the libbpf-tools manner
# (.bpf.c -> .bpf.o -> .skel.h).  The programs are CO-RE: the ones mdkctl
# and mdkd ship are compiled once, against the oldest kernel's BTF
# (BPF_KVER), and relocated by libbpf when they load on any kernel.
#
# For kernel K, NAME.bpf.c anywhere in the tree becomes
# $(B)/bpf/K/NAME.bpf.o and $(B)/bpf/K/NAME.skel.h (NAME keeps its path).

EXTRACT_VMLINUX ?= /usr/src/linux-source-6.1/scripts/extract-vmlinux
BPF_KVER ?= $(firstword $(KVERS))
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf

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
$(B)/bpf/$(1)/%.bpf.o: %.bpf.c $(B)/bpf/$(1)/vmlinux.h $(wildcard bpf/*.h)
	$$(call msg,BPF,$$@)
	@mkdir -p $$(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -I$(B)/bpf/$(1) -I$$(dir $$<) -c $$< -o $$@
	$(Q)$(LLVM_STRIP) -g $$@

$(B)/bpf/$(1)/%.skel.h: $(B)/bpf/$(1)/%.bpf.o
	$$(call msg,GEN-SKEL,$$@)
	$(Q)$(BPFTOOL) gen skeleton $$< >$$@
endef
$(foreach k,$(KVERS),$(eval $(call bpf_rules,$(k))))

# The programs mdkd and mdkctl load.
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(BPF_SRCS:%.bpf.c=$(B)/bpf/$(BPF_KVER)/%.skel.h)
BPF_SKEL_DIR := $(B)/bpf/$(BPF_KVER)/bpf

all: $(BPF_SKELS)
