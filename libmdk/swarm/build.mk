# SPDX-License-Identifier: LGPL-2.1-or-later
# SWARM-KV: the replicated key-value store over the pool's shared segments,
# its memory nodes and its linearizability checker, as libmdk-swarm.a on
# top of libmdk.  Public headers: mdk/swarm.h, mdk/memnode.h and
# mdk/lincheck.h in libmdk/include/.  Every .c here is part of the library.

SWARM_SRCS := $(sort $(wildcard libmdk/swarm/*.c))
LIBSWARM_A := $(B)/lib/libmdk-swarm.a
LIBSWARM_SAN_A := $(B)/san/lib/libmdk-swarm.a
SWARM_LIBS := -lpthread

all: $(LIBSWARM_A)

$(LIBSWARM_A): $(SWARM_SRCS:%.c=$(B)/%.o)

$(LIBSWARM_SAN_A): $(SWARM_SRCS:%.c=$(B)/san/%.o)
