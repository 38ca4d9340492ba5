# proto/ - wire schema (protoc-c), framing, CRC32C -> build/libossd_proto.a
PROTO_GEN := $(B)/proto-gen
PROTO_CPPFLAGS := -Iproto/include -I$(PROTO_GEN)
CPPFLAGS_proto := $(PROTO_CPPFLAGS)
PROTO_SRCS := $(wildcard proto/*.c)
PROTO_OBJS := $(call objs,proto,$(PROTO_SRCS)) $(B)/proto-gen/ossd.pb-c.o
PROTO_LIB := $(B)/libossd_proto.a
PROTO_LIBS := -lprotobuf-c -lcrypto
ALL_TARGETS += $(PROTO_LIB)

$(PROTO_GEN)/ossd.pb-c.c $(PROTO_GEN)/ossd.pb-c.h: proto/ossd.proto
	@mkdir -p $(PROTO_GEN)
	protoc-c --proto_path=proto --c_out=$(PROTO_GEN) proto/ossd.proto

$(B)/proto-gen/ossd.pb-c.o: $(PROTO_GEN)/ossd.pb-c.c
	$(CC) $(CFLAGS) -Wno-missing-braces -I$(PROTO_GEN) -c $< -o $@

# Everything that includes the generated header must wait for it.
$(PROTO_OBJS) : | $(PROTO_GEN)/ossd.pb-c.h

$(PROTO_LIB): $(PROTO_OBJS)
	rm -f $@ && ar rcs $@ $^

PROTO_TEST_SRCS := $(wildcard proto/tests/test_*.c)
PROTO_TESTS := $(patsubst proto/tests/%.c,$(B)/tests/proto_%,$(PROTO_TEST_SRCS))
TEST_BINS += $(PROTO_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(PROTO_TESTS))

$(B)/proto/tests/%.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/tests/proto_%: $(B)/proto/tests/%.o $(PROTO_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(PROTO_LIBS) -lcmocka
