# host/raid/ - the redundancy core of arrays of drives (FusionRAID, RAID-5
# groups, RAID-50) -> build/libossd_raid.a, public header
# host/include/ossd_raid.h; depends on nothing else of ours (drives are
# reached through the struct raid_drive_ops vtable).
RAID_SRCS := $(wildcard host/raid/*.c)
RAID_OBJS := $(call objs,host,$(RAID_SRCS))
RAID_LIB := $(B)/libossd_raid.a
ALL_TARGETS += $(RAID_LIB)

$(RAID_LIB): $(RAID_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Unit tests: every host/raid/tests/test_*.c is one cmocka binary.
RAID_TEST_SRCS := $(wildcard host/raid/tests/test_*.c)
RAID_TESTS := $(patsubst host/raid/tests/%.c,$(B)/tests/raid_%,$(RAID_TEST_SRCS))
TEST_BINS += $(RAID_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(RAID_TESTS))

$(B)/tests/raid_%: $(B)/host/raid/tests/%.o $(RAID_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka -lm -pthread
