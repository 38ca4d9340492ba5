# offload_runtime/fuzz/ - libFuzzer harnesses for what the runtime parses
# from outside (ELF kernel images, heap pages), built with clang under
# ASan + UBSan ($(FUZZ_SANITIZE), proto/fuzz/component.mk).  Each has a
# short run in `make test` and runs for FUZZ_SECONDS in `make fuzz`.

# ELF kernel loader (ossd_prog_load on client-sent images); seeds are the
# example kernels $(B)/examples/*.o.
RT_FUZZ_ELF := $(B)/fuzz/rt_fuzz_elf_loader
FUZZ_BINS += $(RT_FUZZ_ELF)
TEST_BINS += $(RT_FUZZ_ELF)
TEST_SUITES += tap:offload_runtime/tests/fuzz_elf_loader_short.sh

$(RT_FUZZ_ELF): offload_runtime/fuzz/fuzz_elf_loader.c $(RT_FUZZ_SRCS) \
    $(wildcard offload_runtime/*.h offload_runtime/include/*.h) | $(RT_EXAMPLES)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -D_GNU_SOURCE \
	  -Ioffload_runtime/include -Ioffload_runtime \
	  offload_runtime/fuzz/fuzz_elf_loader.c $(RT_FUZZ_SRCS) -o $@ -lelf -lm

# Heap-page scan engine (page check, deform, ossd_scan_run) on arbitrary
# 8 KiB pages; the whole runtime is linked (the engine reaches the JIT
# adapter), as in the channel fuzzer.
RT_FUZZ_HEAP := $(B)/fuzz/rt_fuzz_heap_page
FUZZ_BINS += $(RT_FUZZ_HEAP)
TEST_BINS += $(RT_FUZZ_HEAP)
TEST_SUITES += tap:offload_runtime/tests/fuzz_heap_page_short.sh

$(RT_FUZZ_HEAP): offload_runtime/fuzz/fuzz_heap_page.c $(RT_SRCS) \
    $(wildcard offload_runtime/*.h offload_runtime/include/*.h offload_runtime/tests/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -D_GNU_SOURCE -pthread \
	  -Wno-unused-command-line-argument \
	  -Ioffload_runtime/include -Ioffload_runtime -Ioffload_runtime/tests \
	  $(shell $(LLVM_CONFIG) --cflags) \
	  offload_runtime/fuzz/fuzz_heap_page.c $(RT_SRCS) -o $@ $(RT_LDLIBS) -lm

# Join filters as a drive receives them (ossd_join_filter_prepare, probes,
# a scan through an accepted filter); builds its own page, no seeds needed.
RT_FUZZ_JF := $(B)/fuzz/rt_fuzz_join_filter
FUZZ_BINS += $(RT_FUZZ_JF)
TEST_BINS += $(RT_FUZZ_JF)
TEST_SUITES += tap:offload_runtime/tests/fuzz_join_filter_short.sh

$(RT_FUZZ_JF): offload_runtime/fuzz/fuzz_join_filter.c $(RT_SRCS) \
    $(wildcard offload_runtime/*.h offload_runtime/include/*.h offload_runtime/tests/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -D_GNU_SOURCE -pthread \
	  -Wno-unused-command-line-argument \
	  -Ioffload_runtime/include -Ioffload_runtime -Ioffload_runtime/tests \
	  $(shell $(LLVM_CONFIG) --cflags) \
	  offload_runtime/fuzz/fuzz_join_filter.c $(RT_SRCS) -o $@ $(RT_LDLIBS) -lm
