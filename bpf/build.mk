# SPDX-License-Identifier: GPL-2.0
# bpf/: the page Accessed-bit sampler, in the libbpf-tools manner: the
# BPF program (sampler.bpf.c), the header it shares with its loader
# (sampler.h), CO-RE fixes for older kernels (core_fixes.bpf.h) and the
# loader, every other .c here (sampler_int.h lists them), as
# libmdk-sampler.a for mdkd, mdkctl and the tests.  Its API:
# bpf/loader.h.  No file here may take the name of one of libbpf's
# headers: "bpf/NAME.h" and <bpf/NAME.h> share the -I. path.

SAMPLER_SRCS := $(filter-out %.bpf.c,$(sort $(wildcard bpf/*.c)))
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(BPF_SRCS:%.bpf.c=$(B)/bpf/$(BPF_KVER)/%.skel.h)
EXTRA_CFLAGS_bpf/ := $(SYS_CFLAGS) -I$(B)/bpf/$(BPF_KVER)/bpf

LIBSAMPLER_A := $(B)/lib/libmdk-sampler.a
LIBSAMPLER_SAN_A := $(B)/san/lib/libmdk-sampler.a

all: $(BPF_SKELS) $(LIBSAMPLER_A)

$(SAMPLER_SRCS:%.c=$(B)/%.o) $(SAMPLER_SRCS:%.c=$(B)/san/%.o): | $(BPF_SKELS)

$(LIBSAMPLER_A): $(SAMPLER_SRCS:%.c=$(B)/%.o)

$(LIBSAMPLER_SAN_A): $(SAMPLER_SRCS:%.c=$(B)/san/%.o)
