# device/ - the drive: channel endpoint, dispatcher, events, nbdkit shim
#   -> build/libossd_device.a, build/nbdkit-ossd-plugin.so
CPPFLAGS_device := -Idevice/include -Idevice $(PROTO_CPPFLAGS) -Iftl/include \
  -Ioffload_runtime/include
DEVICE_SRCS := $(filter-out device/nbdkit_plugin.c,$(wildcard device/*.c))
DEVICE_OBJS := $(call objs,device,$(DEVICE_SRCS))
DEVICE_LIB := $(B)/libossd_device.a
# Everything a program linking the device core needs, in link order.
DEVICE_LINK := $(DEVICE_LIB) $(RT_LIB) $(FTL_LIB) $(PROTO_LIB) $(PROTO_LIBS) \
  $(RT_LDLIBS) -lm -pthread
NBDKIT_PLUGIN := $(B)/nbdkit-ossd-plugin.so
ALL_TARGETS += $(DEVICE_LIB) $(NBDKIT_PLUGIN)

$(DEVICE_OBJS): | $(PROTO_GEN)/ossd.pb-c.h

$(DEVICE_LIB): $(DEVICE_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/device/nbdkit_plugin.o: | $(PROTO_GEN)/ossd.pb-c.h
$(NBDKIT_PLUGIN): $(B)/device/nbdkit_plugin.o $(DEVICE_LIB) $(RT_LIB) $(FTL_LIB) $(PROTO_LIB)
	$(CC) $(CFLAGS) -shared -o $@ $< $(DEVICE_LINK)

DEVICE_TEST_SRCS := $(wildcard device/tests/test_*.c)
DEVICE_TESTS := $(patsubst device/tests/%.c,$(B)/tests/device_%,$(DEVICE_TEST_SRCS))
TEST_BINS += $(DEVICE_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(DEVICE_TESTS))

$(B)/device/tests/%.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/tests/device_%: $(B)/device/tests/%.o $(DEVICE_LIB) $(RT_LIB) $(FTL_LIB) $(PROTO_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(DEVICE_LINK) -lcmocka
