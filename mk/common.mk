# Common compiler settings and pattern rules.
CC := gcc
CLANG := clang-14
LLVM_CONFIG := llvm-config-14
CFLAGS_COMMON := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation \
  -Wno-missing-field-initializers -fPIC -fvisibility=hidden -D_GNU_SOURCE -pthread
CFLAGS += $(CFLAGS_COMMON)
FUZZ_SECONDS ?= 300

ALL_TARGETS :=
TEST_BINS :=
TEST_SUITES :=
FUZZ_BINS :=

# $(call objs,DIR,SRCS) -> object paths under build/
objs = $(patsubst %.c,$(B)/%.o,$(2))

$(B)/%.o: %.c mk/common.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_$(firstword $(subst /, ,$<))) -MMD -MP -c $< -o $@

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Keep intermediate objects (test .o files): make would otherwise delete
# them after the test run and print that after the suite's summary line.
.SECONDARY:
