# tests/integration/ - tests that start real servers (nbdkit, ossdfs,
# PostgreSQL) and drive them with real clients.  Each *.sh prints TAP.
INTEG_TOOLS := $(B)/tests/ossd_stress_client
TEST_BINS += $(INTEG_TOOLS)
CPPFLAGS_tests := $(CPPFLAGS_host)

$(B)/tests/%.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/tests/ossd_stress_client: $(B)/tests/integration/ossd_stress_client.o $(HOST_LIB_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

TEST_SUITES += $(patsubst %,tap:%,$(sort $(wildcard tests/integration/*.sh)))
