# SPDX-License-Identifier: LGPL-2.1-or-later
# libmdk: the Memory Designer's Kit, as libmdk.a, libmdk.so and mdk.pc.
# Every .c under libmdk/ but libmdk/swarm/ (libmdk-swarm, its own archive)
# is part of the library: adding a policy or a module needs no change here.

LIBMDK_SRCS := $(sort $(shell find libmdk -path libmdk/swarm -prune -o -name '*.c' -print))
LIBMDK_OBJS := $(LIBMDK_SRCS:%.c=$(B)/%.o)
LIBMDK_SAN_OBJS := $(LIBMDK_SRCS:%.c=$(B)/san/%.o)
LIBMDK_A := $(B)/lib/libmdk.a
LIBMDK_SO := $(B)/lib/libmdk.so.$(MDK_VERSION)
LIBMDK_SAN_A := $(B)/san/lib/libmdk.a
LIBMDK_PC := $(B)/lib/pkgconfig/mdk.pc
LIBMDK_LIBS := -llinear -lxgboost -lz -lzstd -lm -lpthread

# The sources' layers (what may call what) are drawn at the top of
# libmdk/internal.h.
all: $(LIBMDK_A) $(LIBMDK_SO) $(LIBMDK_PC)

$(LIBMDK_A): $(LIBMDK_OBJS)

$(LIBMDK_SAN_A): $(LIBMDK_SAN_OBJS)

$(LIBMDK_SO): $(LIBMDK_OBJS) libmdk/libmdk.map
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libmdk.so.$(MDK_SOVERSION) \
		-Wl,--version-script=libmdk/libmdk.map -o $@ $(LIBMDK_OBJS) $(LIBMDK_LIBS)
	$(Q)ln -sf $(notdir $@) $(B)/lib/libmdk.so.$(MDK_SOVERSION)
	$(Q)ln -sf libmdk.so.$(MDK_SOVERSION) $(B)/lib/libmdk.so

$(LIBMDK_PC): libmdk/mdk.pc.in
	@mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(abspath $(B))|' -e 's|@LIBDIR@|$(abspath $(B))/lib|' \
		-e 's|@INCLUDEDIR@|$(abspath libmdk/include)|' \
		-e 's|@VERSION@|$(MDK_VERSION)|' $< >$@
