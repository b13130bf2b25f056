# SPDX-License-Identifier: GPL-2.0
# mdkd (the daemon) and mdkctl (the CLI).  daemon/mdkd.c and daemon/mdkctl.c
# hold main(); mdkctl's commands are daemon/cmd_<object>.c; everything else
# in daemon/ is shared by both (and by the unit tests) through libmdkd.a.

DAEMON_PKGS := liburing libcgroup libsystemd inih json-c libbpf numa
# Messages are snprintf'ed into fixed buffers on purpose: a long path may
# cut a message short, never overflow it.  (clang lacks the option.)
EXTRA_CFLAGS_daemon/ := $(shell $(PKG_CONFIG) --cflags $(DAEMON_PKGS) 2>/dev/null) \
	-I$(BPF_SKEL_DIR) -Wno-format-truncation -Wno-unknown-warning-option
DAEMON_LIBS := $(shell $(PKG_CONFIG) --libs $(DAEMON_PKGS) 2>/dev/null) -lelf -lz -lm -lpthread

# sampler_cli.c: what mdkctl sample and record share, mdkctl's alone.
MDKCTL_SRCS := daemon/mdkctl.c daemon/sampler_cli.c $(wildcard daemon/cmd_*.c)
MDKD_SRCS := daemon/mdkd.c
LIBMDKD_SRCS := $(filter-out $(MDKCTL_SRCS) $(MDKD_SRCS),$(wildcard daemon/*.c))

LIBMDKD_A := $(B)/daemon/libmdkd.a
LIBMDKD_SAN_A := $(B)/san/daemon/libmdkd.a
MDKCTL := $(B)/bin/mdkctl
MDKD := $(B)/bin/mdkd

DAEMON_OBJS := $(patsubst %.c,$(B)/%.o,$(MDKCTL_SRCS) $(MDKD_SRCS) $(LIBMDKD_SRCS))
$(DAEMON_OBJS) $(LIBMDKD_SRCS:%.c=$(B)/san/%.o): | $(BPF_SKELS)

all: $(MDKCTL) $(MDKD)

$(LIBMDKD_A): $(LIBMDKD_SRCS:%.c=$(B)/%.o)
	$(call msg,AR,$@)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBMDKD_SAN_A): $(LIBMDKD_SRCS:%.c=$(B)/san/%.o)
	$(call msg,AR,$@)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(MDKCTL): $(MDKCTL_SRCS:%.c=$(B)/%.o) $(LIBMDKD_A) $(LIBMDK_A)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS) $(LIBMDK_LIBS)

$(MDKD): $(MDKD_SRCS:%.c=$(B)/%.o) $(LIBMDKD_A) $(LIBMDK_A)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS) $(LIBMDK_LIBS)

# make install: the unit, the default configuration (kept when one is
# installed already) beside what install-core puts in place (binaries, man
# pages).
MDKD_UNIT := $(B)/daemon/mdkd.service

$(MDKD_UNIT): daemon/mdkd.service
	@mkdir -p $(@D)
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< >$@

all: $(MDKD_UNIT)

.PHONY: install-daemon
install: install-daemon
install-daemon: $(MDKD_UNIT) install-core
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/mdk
	install -m 0644 $(MDKD_UNIT) $(DESTDIR)$(UNITDIR)/mdkd.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/mdk/mdkd.conf ] || \
		install -m 0644 daemon/mdkd.conf $(DESTDIR)$(SYSCONFDIR)/mdk/mdkd.conf
