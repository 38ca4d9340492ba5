# Sanitizers of every fuzzer (here and offload_runtime/): libFuzzer, ASan
# and UBSan; undefined behaviour aborts the run like a memory error.
FUZZ_SANITIZE := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

# Channel fuzzer: libFuzzer + ASan + UBSan over framing, reassembly,
# protobuf and the device dispatcher (the libraries are rebuilt with clang
# for it).
CHANNEL_FUZZ := $(B)/fuzz/fuzz_channel
CHANNEL_FUZZ_SRCS := proto/fuzz/fuzz_channel.c $(wildcard proto/*.c) \
  $(PROTO_GEN)/ossd.pb-c.c $(DEVICE_SRCS) $(wildcard ftl/*.c) $(RT_SRCS)
FUZZ_BINS += $(CHANNEL_FUZZ)
TEST_BINS += $(CHANNEL_FUZZ)
TEST_SUITES += tap:proto/tests/fuzz_channel_short.sh

$(CHANNEL_FUZZ): $(CHANNEL_FUZZ_SRCS) | $(PROTO_GEN)/ossd.pb-c.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -D_GNU_SOURCE -pthread \
	  -Wno-unused-command-line-argument $(CPPFLAGS_device) -Iftl -Ioffload_runtime \
	  $(shell $(LLVM_CONFIG) --cflags) \
	  $(CHANNEL_FUZZ_SRCS) -o $@ -lprotobuf-c -lcrypto $(RT_LDLIBS) -lm
