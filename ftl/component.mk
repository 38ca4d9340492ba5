# ftl/ - NAND model and object FTL -> build/libossd_ftl.a
CPPFLAGS_ftl := -Iftl/include -Iftl
FTL_SRCS := $(wildcard ftl/*.c)
FTL_OBJS := $(call objs,ftl,$(FTL_SRCS))
FTL_LIB := $(B)/libossd_ftl.a
ALL_TARGETS += $(FTL_LIB)

$(FTL_LIB): $(FTL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Unit tests: every ftl/tests/test_*.c is one cmocka binary.
FTL_TEST_SRCS := $(wildcard ftl/tests/test_*.c)
FTL_TESTS := $(patsubst ftl/tests/%.c,$(B)/tests/ftl_%,$(FTL_TEST_SRCS))
TEST_BINS += $(FTL_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(FTL_TESTS))

$(B)/tests/ftl_%: $(B)/ftl/tests/%.o $(FTL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka -lm -pthread
