# offload_runtime/ - kernel loader, verifier, interpreter, JIT, heap scan
# engine -> build/libossd_rt.a
CPPFLAGS_offload_runtime := -Ioffload_runtime/include -Ioffload_runtime
RT_SRCS := $(wildcard offload_runtime/*.c)
RT_OBJS := $(call objs,offload_runtime,$(RT_SRCS))
RT_LIB := $(B)/libossd_rt.a
ALL_TARGETS += $(RT_LIB)

$(RT_LIB): $(RT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

RT_TEST_SRCS := $(wildcard offload_runtime/tests/test_*.c)
RT_TESTS := $(patsubst offload_runtime/tests/%.c,$(B)/tests/rt_%,$(RT_TEST_SRCS))
TEST_BINS += $(RT_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(RT_TESTS))

$(B)/tests/rt_%: $(B)/offload_runtime/tests/%.o $(RT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.o %.a,$^) -lcmocka $(RT_LDLIBS) -lm -pthread

# Libraries a program linking libossd_rt.a needs (ELF loader: libelf).
RT_LDLIBS := -lelf

# LLVM JIT (jit_*.c): LLVM-C headers for those objects only; programs link
# the shared libLLVM-14.
RT_JIT_OBJS := $(call objs,offload_runtime,$(wildcard offload_runtime/jit_*.c))
$(RT_JIT_OBJS): CPPFLAGS_offload_runtime += $(shell $(LLVM_CONFIG) --cflags)
RT_LDLIBS += $(shell $(LLVM_CONFIG) --ldflags) -lLLVM-14

# Example kernels (restricted C -> eBPF ELF); tests load them from here.
RT_EXAMPLE_SRCS := $(wildcard offload_runtime/examples/*.c)
RT_EXAMPLES := $(patsubst offload_runtime/examples/%.c,$(B)/examples/%.o,$(RT_EXAMPLE_SRCS))
ALL_TARGETS += $(RT_EXAMPLES)
CPPFLAGS_offload_runtime += -DOSSD_RT_EXAMPLES_DIR='"$(B)/examples"'

$(B)/examples/%.o: offload_runtime/examples/%.c offload_runtime/include/ossd_kernel.h
	@mkdir -p $(dir $@)
	$(CLANG) -O2 -target bpf -Ioffload_runtime/include -c $< -o $@

$(RT_TESTS): | $(RT_EXAMPLES)

# Verifier fuzzer (libFuzzer + ASan + UBSan) over the runtime's loader/verifier/
# interpreter/helpers; seeds come from the verifier corpus.
RT_FUZZ_SRCS := $(wildcard offload_runtime/helpers_*.c offload_runtime/numeric_*.c \
  offload_runtime/loader_*.c offload_runtime/verifier*.c) offload_runtime/prog.c \
  offload_runtime/sha256.c offload_runtime/alu_eval.c offload_runtime/interp.c
RT_FUZZ := $(B)/fuzz/rt_fuzz_verifier
FUZZ_BINS += $(RT_FUZZ)
TEST_BINS += $(RT_FUZZ)
TEST_SUITES += tap:offload_runtime/tests/fuzz_verifier_short.sh
# The fuzzer's custom mutator on its own, under ASan (no libFuzzer).
RT_FUZZ_MUTATOR_CHECK := $(B)/fuzz/rt_fuzz_mutator_bounds
TEST_BINS += $(RT_FUZZ_MUTATOR_CHECK)

$(RT_FUZZ): offload_runtime/fuzz/fuzz_verifier.c $(RT_FUZZ_SRCS) \
    $(wildcard offload_runtime/*.h offload_runtime/include/*.h offload_runtime/tests/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -D_GNU_SOURCE \
	  -Ioffload_runtime/include -Ioffload_runtime -Ioffload_runtime/tests \
	  offload_runtime/fuzz/fuzz_verifier.c $(RT_FUZZ_SRCS) -o $@ -lelf -lm

$(RT_FUZZ_MUTATOR_CHECK): offload_runtime/tests/fuzz_mutator_bounds.c \
    offload_runtime/fuzz/fuzz_verifier.c $(RT_FUZZ_SRCS) \
    $(wildcard offload_runtime/*.h offload_runtime/include/*.h offload_runtime/tests/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=address -fno-omit-frame-pointer -D_GNU_SOURCE \
	  -Ioffload_runtime/include -Ioffload_runtime -Ioffload_runtime/tests \
	  offload_runtime/tests/fuzz_mutator_bounds.c $(RT_FUZZ_SRCS) -o $@ -lelf -lm

# Scan engine over relation files written by a real PostgreSQL 15: a
# driver linked with libossd_rt.a and a TAP script that initdb's a private
# cluster (tests/integration/pgpages_scan.sh, registered as a TAP suite by
# tests/integration/component.mk).
RT_PGPAGES_DRIVER := $(B)/tests/rt_pgpages_driver
TEST_BINS += $(RT_PGPAGES_DRIVER)

$(RT_PGPAGES_DRIVER): $(B)/offload_runtime/tests/pgpages_driver.o $(RT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(RT_LDLIBS) -lm -pthread
