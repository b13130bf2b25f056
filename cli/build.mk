# SPDX-License-Identifier: GPL-2.0
# mdkctl, the one CLI: cli/mdkctl.c holds main() and the command table;
# each command is cli/cmd_<object>.c, and a big one keeps its verbs in a
# directory of its own, cli/<object>/ with an internal <object>.h: list
# that directory in MDKCTL_DIRS and its files are compiled (with the
# flags of cli/) and linked into mdkctl.  sampler_cli.c is what sample
# and record share.  The rest of cli/*.c is what every command may use
# (the control client, parsers, reports, the live curves), kept in
# libmdkctl.a, which the unit tests link too.

MDKCTL_DIRS := cli/pool/ cli/swarm/
MDKCTL_DIRS += cli/tier/
EXTRA_CFLAGS_cli/ := $(SYS_CFLAGS)
$(foreach d,$(MDKCTL_DIRS),$(eval EXTRA_CFLAGS_$(d) := $(SYS_CFLAGS)))

MDKCTL_SRCS := cli/mdkctl.c cli/sampler_cli.c $(wildcard cli/cmd_*.c) \
	$(foreach d,$(MDKCTL_DIRS),$(wildcard $(d)*.c))
LIBMDKCTL_SRCS := $(filter-out $(MDKCTL_SRCS),$(wildcard cli/*.c))
LIBMDKCTL_A := $(B)/cli/libmdkctl.a
LIBMDKCTL_SAN_A := $(B)/san/cli/libmdkctl.a
MDKCTL := $(B)/bin/mdkctl

all: $(MDKCTL)

$(LIBMDKCTL_A): $(LIBMDKCTL_SRCS:%.c=$(B)/%.o)

$(LIBMDKCTL_SAN_A): $(LIBMDKCTL_SRCS:%.c=$(B)/san/%.o)

$(MDKCTL): $(MDKCTL_SRCS:%.c=$(B)/%.o) $(LIBMDKCTL_A) $(LIBMDKD_A) $(LIBSAMPLER_A) \
		$(LIBSWARM_A) $(LIBMDK_A)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) $(LIBMDK_LIBS)

# Every library, highest layer first, for the tests, benches and fuzzers.
MDK_LIBS_A := $(LIBMDKCTL_A) $(LIBMDKD_A) $(LIBSAMPLER_A) $(LIBSWARM_A) $(LIBMDK_A)
MDK_LIBS_SAN_A := $(LIBMDKCTL_SAN_A) $(LIBMDKD_SAN_A) $(LIBSAMPLER_SAN_A) \
	$(LIBSWARM_SAN_A) $(LIBMDK_SAN_A)
MDK_ALL_SRCS := $(LIBMDK_SRCS) $(SWARM_SRCS) $(SAMPLER_SRCS) $(LIBMDKD_SRCS) \
	$(LIBMDKCTL_SRCS)
