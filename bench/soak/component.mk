# bench/soak/ - long fault soaks (not in make test): kill-drive's verifying
# writer and sqlsmith's judge.  The scripts are bench/soak/kill-drive,
# kill-stack, fuzz and sqlsmith.
SOAK_WRITER := $(B)/bench/soak_writer
ALL_TARGETS += $(SOAK_WRITER)

$(B)/bench/soak/soak_writer.o: | $(PROTO_GEN)/ossd.pb-c.h
$(SOAK_WRITER): $(B)/bench/soak/soak_writer.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

# sqlsmith_check: bench/soak/sqlsmith's judge (libpq client; the offload
# forced / offload off re-runs of what sqlsmith ran)
SQLSMITH_CHECK := $(B)/bench/sqlsmith_check
ALL_TARGETS += $(SQLSMITH_CHECK)
TEST_BINS += $(SQLSMITH_CHECK)
$(B)/bench/soak/sqlsmith_check.o: CFLAGS += $(shell pkg-config --cflags libpq)
$(SQLSMITH_CHECK): $(B)/bench/soak/sqlsmith_check.o
	$(CC) $(CFLAGS) -o $@ $< $(shell pkg-config --libs libpq) -lm
