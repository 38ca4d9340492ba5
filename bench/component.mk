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
