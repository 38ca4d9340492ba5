# offload_runtime/ - kernel loader, verifier, interpreter, JIT, heap scan
# engine -> build/libossd_rt.a
CPPFLAGS_offload_runtime := -Ioffload_runtime/include -Ioffload_runtime
RT_SRCS := $(wildcard offload_runtime/*.c)
RT_OBJS := $(call objs,offload_runtime,$(RT_SRCS))
RT_LIB := $(B)/libossd_rt.a
ALL_TARGETS += $(RT_LIB)

$(RT_LIB): $(RT_OBJS)
	@mkdir -p $(dir $@)
	ar rcs $@ $^

RT_TEST_SRCS := $(wildcard offload_runtime/tests/test_*.c)
RT_TESTS := $(patsubst offload_runtime/tests/%.c,$(B)/tests/rt_%,$(RT_TEST_SRCS))
TEST_BINS += $(RT_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(RT_TESTS))

$(B)/tests/rt_%: $(B)/offload_runtime/tests/%.o $(RT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka -lm -pthread
