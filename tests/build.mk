# SPDX-License-Identifier: GPL-2.0
# Tests.
#
# Unit tests: tests/unit/test_<source>.c, each a Check suite built with
# ASan and UBSan against the sanitized libraries (cli, daemon, sampler,
# swarm, libmdk), run by
# tests/unit/run.  VM tests: tests/vm/NAME.sh, or tests/vm/NAME.c built to
# $(B)/tests/vm/NAME; a test with a tests/vm/NAME.bpf.c is built once per
# kernel, against that kernel's vmlinux.h, to $(B)/tests/vm/KVER/NAME.  The
# VM bench's own parts (what the guest runs, the tests' shell libraries
# and C helpers, helper programs built to $(B)/tests/vm/lib/NAME) are in
# tests/vm/lib/; tests/vm/run boots it.

KSELFTEST_DIR ?= /usr/src/linux-source-6.1/tools/testing/selftests
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/unit/%)
EXTRA_CFLAGS_tests/unit/ := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null) \
	$(SYS_CFLAGS) -Itests/unit

# The helpers the unit tests share (tests/unit/NAME.c with its NAME.h:
# traces, brute forces, checks, a fake cgroup tree) are built once into
# one archive that each unit test links.
UNIT_HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
UNIT_HELPERS_A := $(B)/san/tests/unit/libunit.a

$(UNIT_HELPERS_A): $(UNIT_HELPER_SRCS:%.c=$(B)/san/%.o)

$(B)/tests/unit/%: $(B)/san/tests/unit/%.o $(UNIT_HELPERS_A) $(MDK_LIBS_SAN_A)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(CHECK_LIBS) $(SYS_LIBS) $(LIBMDK_LIBS)

# The kernel-free parts of kmod/ are unit-tested in userspace:
# test_cmm_mp_pamt links kmod/cmm_mp_pamt.c and test_cmm_mp_owner
# kmod/cmm_mp_owner.c, built against tests/unit/kshim.h for the few kernel
# types they use.
EXTRA_CFLAGS_kmod/ := -Ikmod -Itests/unit
$(B)/tests/unit/test_cmm_mp_pamt: $(B)/san/kmod/cmm_mp_pamt.o
$(B)/tests/unit/test_cmm_mp_owner: $(B)/san/kmod/cmm_mp_owner.o
EXTRA_CFLAGS_tests/unit/ += -Ikmod

# Tiered OPP's test checks it against a GLPK integer program
# (tests/unit/tier_ilp.c): only that test links GLPK, libmdk never does.
$(B)/tests/unit/test_tier_opp: CHECK_LIBS += -lglpk

VM_BPF_TESTS := $(patsubst %.bpf.c,%,$(wildcard tests/vm/*.bpf.c))
# tests/vm/lib/NAME.c with a NAME.h are helpers the C tests link (one
# archive); the other tests/vm/lib/*.c are helper programs.
VM_LIB_SRCS := $(patsubst %.h,%.c,$(wildcard tests/vm/lib/*.h))
VM_LIB_A := $(B)/tests/vm/lib/libvmtest.a
VM_C_SRCS := $(filter-out $(VM_BPF_TESTS:%=%.c) %.bpf.c,$(wildcard tests/vm/*.c)) \
	$(filter-out $(VM_LIB_SRCS),$(wildcard tests/vm/lib/*.c))
VM_TESTS := $(VM_C_SRCS:tests/vm/%.c=$(B)/tests/vm/%) \
	$(foreach k,$(KVERS),$(VM_BPF_TESTS:tests/vm/%=$(B)/tests/vm/$(k)/%))
EXTRA_CFLAGS_tests/vm/ := -I$(KSELFTEST_DIR) -Itests/vm \
	$(shell $(PKG_CONFIG) --cflags libbpf numa 2>/dev/null)
EXTRA_CFLAGS_tests/vm/lib/ := $(EXTRA_CFLAGS_tests/vm/)
VM_LIBS := $(shell $(PKG_CONFIG) --libs libbpf numa 2>/dev/null) -lelf -lz -lpthread

$(VM_LIB_A): $(VM_LIB_SRCS:%.c=$(B)/%.o)

# Plain C tests may use any library of the tree, e.g. the sampler's
# loader.
$(B)/tests/vm/%: $(B)/tests/vm/%.o $(VM_LIB_A) $(MDK_LIBS_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) $(VM_LIBS) $(LIBMDK_LIBS)

define vm_bpf_rules
$(B)/tests/vm/$(1)/%: tests/vm/%.c $(B)/bpf/$(1)/tests/vm/%.skel.h $(LIBMDK_A)
	$$(call msg,CC,$$@)
	@mkdir -p $$(@D)
	$(Q)$(CC) $(MDK_CFLAGS) $(EXTRA_CFLAGS_tests/vm/) -I$(B)/bpf/$(1)/tests/vm \
		-o $$@ $$< $(LIBMDK_A) $(VM_LIBS) $(LIBMDK_LIBS)
endef
$(foreach k,$(KVERS),$(eval $(call vm_bpf_rules,$(k))))

.PHONY: tests
tests: $(UNIT_TESTS) $(VM_TESTS)
all: tests

.PHONY: check unit vmcheck vmcheck-multihost vmshell
check: all
	tests/check

unit: $(UNIT_TESTS)
	tests/check --unit

vmcheck: all
	tests/check --vm

# Two guests sharing one CMM-MP pool (tests/vm/run --hosts 2), on every
# kernel: the multi-host suite, kept out of make check for its time.
vmcheck-multihost: all
	tests/check --multihost

# The installed Debian packages (make deb, apt-get install ./build/deb/*.deb)
# on every kernel, side by side as make check boots them:
# tests/vm/pkg_installed.sh, which loads the module DKMS built and runs
# /usr/sbin/mdkd and /usr/bin/mdkctl; results in $(B)/vm/KVER-packages/,
# the bench's output in $(B)/vm/KVER-packages.log.  Needs no build: CI's
# packages stage runs it.
.PHONY: vmcheck-packages
vmcheck-packages:
	@mkdir -p $(B)/vm; pids=; for k in $$(tests/vm/kernels); do \
		tests/vm/run -k $$k -o $(B)/vm/$$k-packages pkg_installed \
			>$(B)/vm/$$k-packages.log 2>&1 & pids="$$pids $$!"; \
	done; rc=0; for p in $$pids; do wait $$p || rc=1; done; \
	for k in $$(tests/vm/kernels); do cat $(B)/vm/$$k-packages.log; done; exit $$rc

# make vmshell [KVER=...]: an interactive guest with the pool and swap.
vmshell: all
	tests/vm/run --shell $(if $(KVER),-k $(KVER))

# make demo [KVER=...]: boot the newest kernel (or KVER) with the pool and
# tour what mdk does.
.PHONY: demo
demo: all
	tests/vm/run $(if $(KVER),-k $(KVER)) --run tests/vm/lib/demo-guest.sh

# make experiment: the end-to-end experiment (Documentation/experiment.rst):
# redis in the VM under each reclaimer; results in build/experiment/,
# copied to Documentation/experiment/.  Every installed kernel, or
# EXP_KERNELS="KVER..."; EXP_* of tests/experiment/guest.sh for the workload.
# Then the tiered runs (tests/experiment/mix.sh), into Documentation/experiment/tiers.*.
.PHONY: experiment
experiment: all
	tests/experiment/run --docs
	tests/experiment/run --tiers --docs

# Benchmarks: tests/bench/NAME.sh, each printing ratios against a baseline
# measured in the same run; C helpers tests/bench/bench_NAME.c are built to
# $(B)/tests/bench/bench_NAME against the tree's libraries.
BENCH_SRCS := $(wildcard tests/bench/bench_*.c)
BENCHES := $(BENCH_SRCS:tests/bench/%.c=$(B)/tests/bench/%)
EXTRA_CFLAGS_tests/bench/ := $(SYS_CFLAGS) -O3
# bench_mdkd and bench_mdkd_caps run the daemon on the unit tests' fake cgroup tree.
$(B)/tests/bench/bench_mdkd $(B)/tests/bench/bench_mdkd_caps: \
		$(B)/tests/unit/fakecg.o

$(B)/tests/bench/%: $(B)/tests/bench/%.o $(MDK_LIBS_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) $(LIBMDK_LIBS)

all: $(BENCHES)

.PHONY: bench
bench: all
	tests/bench/run $(BENCH)

# Fuzzing: tests/fuzz/fuzz_NAME.c is a libFuzzer target (LLVMFuzzerTestOneInput)
# built with clang, ASan and UBSan against clang-built copies of the tree's
# libraries ($(B)/fuzz/).  Seeds: tests/fuzz/corpus/NAME/.  make fuzz runs each
# target for FUZZ_SECONDS; make check does too.
FUZZ_SECONDS ?= 10
FUZZ_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -g -O1
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZERS := $(FUZZ_SRCS:tests/fuzz/%.c=$(B)/tests/fuzz/%)
FUZZ_LIB_OBJS := $(patsubst %.c,$(B)/fuzz/%.o,$(MDK_ALL_SRCS))
EXTRA_CFLAGS_tests/fuzz/ := $(SYS_CFLAGS)

$(B)/fuzz/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(filter-out -O2 -Wformat=2,$(MDK_CFLAGS)) $(EXTRA_CFLAGS_$(dir $<)) \
		$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_LIB_OBJS): | $(BPF_SKELS)

$(B)/tests/fuzz/%: $(B)/fuzz/tests/fuzz/%.o $(FUZZ_LIB_OBJS)
	$(call msg,LD-FUZZ,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(SYS_LIBS) $(LIBMDK_LIBS)

.PHONY: fuzzers fuzz
fuzzers: $(FUZZERS)
all: fuzzers
fuzz: fuzzers
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/check --fuzz
