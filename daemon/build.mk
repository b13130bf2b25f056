# SPDX-License-Identifier: GPL-2.0
# mdkd, the daemon: daemon/mdkd.c holds main(); the rest of daemon/ is its
# core, modes (mode_*.c) and actuators (act_*.c), kept in libmdkd.a, which
# the unit tests and mdkctl (for the control protocol and cgroup access)
# link too.  Its files are layered, includes and calls going down only:
# Documentation/mdkd.rst, "Source layout".

EXTRA_CFLAGS_daemon/ := $(SYS_CFLAGS)

MDKD_SRCS := daemon/mdkd.c
LIBMDKD_SRCS := $(filter-out $(MDKD_SRCS),$(wildcard daemon/*.c))

LIBMDKD_A := $(B)/daemon/libmdkd.a
LIBMDKD_SAN_A := $(B)/san/daemon/libmdkd.a
MDKD := $(B)/bin/mdkd

all: $(MDKD)

$(LIBMDKD_A): $(LIBMDKD_SRCS:%.c=$(B)/%.o)

$(LIBMDKD_SAN_A): $(LIBMDKD_SRCS:%.c=$(B)/san/%.o)

$(MDKD): $(MDKD_SRCS:%.c=$(B)/%.o) $(LIBMDKD_A) $(LIBSAMPLER_A) $(LIBMDK_A)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) $(LIBMDK_LIBS)

# mdkd with ASan, LSan and UBSan, for the VM tests that look for leaks and
# memory errors under load (tests/vm/mdkd_churn.sh).
MDKD_SAN := $(B)/san/bin/mdkd

$(MDKD_SAN): $(MDKD_SRCS:%.c=$(B)/san/%.o) $(LIBMDKD_SAN_A) \
		$(LIBSAMPLER_SAN_A) $(LIBMDK_SAN_A)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(SYS_LIBS) $(LIBMDK_LIBS)

tests: $(MDKD_SAN)

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

# The decision core links alone: test_controller links only the core and
# the pure modes, with what they use below them (cgroup.c, psi.c); a call
# from the core into the rest of the daemon fails to link there.
MDKD_CORE_SRCS := daemon/controller.c daemon/mode_senpai.c \
	daemon/mode_senpai_integral.c daemon/mode_off.c daemon/cgroup.c \
	daemon/psi.c

$(B)/tests/unit/test_controller: $(B)/san/tests/unit/test_controller.o \
		$(MDKD_CORE_SRCS:%.c=$(B)/san/%.o)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CHECK_LIBS) -lm
