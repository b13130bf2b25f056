# SPDX-License-Identifier: GPL-2.0
# cmm_mp.ko for every kernel in KMOD_KVERS (see the top-level Makefile), each in its own directory
# $(B)/kmod/KVER/ (sources are symlinked there: kbuild builds in M=).
# The module's options (kmod/Kconfig) are make variables here, e.g. make
# CONFIG_CMM_MP_FAULT_INJECTION=n; Kbuild gets their defaults from
# kmod/Kconfig.  Before kbuild runs, kmod/kconfig.sh checks that the kernel
# has every option the enabled ones depend on, and names the one it lacks.

KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h kmod/uapi/*.h) kmod/Kbuild \
	kmod/Kconfig kmod/kconfig.sh
KMOD_CONFIG := $(foreach v,$(filter CONFIG_CMM_MP%,$(.VARIABLES)),$(v)=$($(v)))
KMODS := $(foreach k,$(KMOD_KVERS),$(B)/kmod/$(k)/cmm_mp.ko)
KMOD_STAMP := $(B)/kmod/config

all: $(KMODS)

# The switches in a file that changes only with them: a change rebuilds.
$(KMOD_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(KMOD_CONFIG)' | cmp -s - $@ || echo '$(KMOD_CONFIG)' >$@
.PHONY: FORCE

define kmod_rules
$(B)/kmod/$(1)/cmm_mp.ko: $(KMOD_SRCS) $(KMOD_STAMP)
	$$(call msg,KMOD,$$@)
	@mkdir -p $$(@D)
	$(Q)for f in $(KMOD_SRCS:kmod/%=%); do mkdir -p $$(@D)/$$$$(dirname $$$$f) && \
		ln -sf $(CURDIR)/kmod/$$$$f $$(@D)/$$$$f; done
	$(Q)sh kmod/kconfig.sh check $(call kdir_of,$(1)) $(1) $(KMOD_CONFIG)
	$(Q)$$(MAKE) -C $(call kdir_of,$(1)) M=$(CURDIR)/$$(@D) $(KMOD_CONFIG) \
		$(if $(filter 1,$(V)),V=1,-s) modules
endef
$(foreach k,$(KMOD_KVERS),$(eval $(call kmod_rules,$(k))))

# make install-dkms: the module's sources with kmod/dkms.conf in
# $(DESTDIR)/usr/src/cmm-mp-VERSION, where DKMS builds them for each kernel
# (dkms install cmm-mp/VERSION); the cmm-mp-dkms package ships them.
DKMS_SRCDIR := /usr/src/cmm-mp-$(MDK_VERSION)
.PHONY: install-dkms
install-dkms:
	install -d $(DESTDIR)$(DKMS_SRCDIR)/uapi
	install -m 0644 $(filter-out kmod/uapi/% kmod/kconfig.sh,$(KMOD_SRCS)) kmod/dkms.conf \
		$(DESTDIR)$(DKMS_SRCDIR)/
	install -m 0644 $(filter kmod/uapi/%,$(KMOD_SRCS)) $(DESTDIR)$(DKMS_SRCDIR)/uapi/
	install -m 0755 kmod/kconfig.sh $(DESTDIR)$(DKMS_SRCDIR)/

# checkpatch.pl from the 6.1 source tree (make deps unpacks it).
CHECKPATCH ?= /usr/src/linux-source-6.1/scripts/checkpatch.pl
.PHONY: checkpatch
checkpatch:
	$(CHECKPATCH) --no-tree --strict --terse --show-types -f $(wildcard kmod/*.c kmod/*.h kmod/uapi/*.h)
