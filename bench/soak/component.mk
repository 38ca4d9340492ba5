# bench/soak/ - long fault soaks (not in make test): kill-drive's verifying
# writer.  The scripts are bench/soak/kill-drive and bench/soak/kill-stack.
SOAK_WRITER := $(B)/bench/soak_writer
ALL_TARGETS += $(SOAK_WRITER)

$(B)/bench/soak/soak_writer.o: | $(PROTO_GEN)/ossd.pb-c.h
$(SOAK_WRITER): $(B)/bench/soak/soak_writer.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)
