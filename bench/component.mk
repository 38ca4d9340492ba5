# bench/ - benchmarks: each prints ratios measured side by side in one run
# and writes CSV + PNG under bench/results/.
CPPFLAGS_bench := $(CPPFLAGS_host)
BENCH_BINS := $(B)/bench/bench_channel
ALL_TARGETS += $(BENCH_BINS)

$(B)/bench/channel/bench_channel.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/bench/bench_channel: $(B)/bench/channel/bench_channel.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

.PHONY: bench-channel
bench-channel: $(B)/bench/bench_channel $(B)/ossdctl $(NBDKIT_PLUGIN)
	bench/channel/run

# bench/scan: TPC-H Q6 over in-memory heap pages - interpreter, JIT, C.
BENCH_SCAN_OBJS := $(call objs,bench,$(wildcard bench/scan/*.c))
$(BENCH_SCAN_OBJS): CPPFLAGS_bench += -Ioffload_runtime/include -Ioffload_runtime/tests \
  -DOSSD_RT_EXAMPLES_DIR='"$(B)/examples"'
ALL_TARGETS += $(B)/bench/bench_scan
$(B)/bench/bench_scan: $(BENCH_SCAN_OBJS) $(RT_LIB) | $(RT_EXAMPLES)
	$(CC) $(CFLAGS) -o $@ $(BENCH_SCAN_OBJS) $(RT_LIB) $(RT_LDLIBS) -lm -pthread

.PHONY: bench-scan
bench-scan: $(B)/bench/bench_scan
	bench/scan/run
