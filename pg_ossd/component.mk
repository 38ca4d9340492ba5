# pg_ossd/ - the PostgreSQL extension (PGXS), built after the libraries it
# links (libossd, device core for inproc:, runtime, FTL, proto).
#   make pg-ossd            build pg_ossd/pg_ossd.so
#   make pg-ossd-install    install it (root): needed before the pg suites;
#                           with OSSD_PG_ROOT=DIR into a private copy of
#                           PostgreSQL there instead (tests/harness/pg-private-root)
PG_OSSD_SO := pg_ossd/pg_ossd.so
PG_OSSD_SRCS := $(wildcard pg_ossd/*.c pg_ossd/*.h) pg_ossd/Makefile
ifneq ($(shell command -v pg_config 2>/dev/null),)
ALL_TARGETS += $(PG_OSSD_SO)
endif

$(PG_OSSD_SO): $(PG_OSSD_SRCS) $(LIBOSSD) $(DEVICE_LIB) $(RT_LIB) $(FTL_LIB) $(PROTO_LIB)
	$(MAKE) -C pg_ossd

.PHONY: pg-ossd pg-ossd-install
pg-ossd: $(PG_OSSD_SO)
pg-ossd-install: $(PG_OSSD_SO)
ifeq ($(OSSD_PG_ROOT),)
	$(MAKE) -C pg_ossd install
else
	tests/harness/pg-private-root "$(OSSD_PG_ROOT)"
	$(MAKE) -C pg_ossd install DESTDIR="$(OSSD_PG_ROOT)"
endif

# The pg suites install the extension themselves (they run as root and
# start the cluster as the postgres user).
TEST_BINS += pg-ossd-install
TEST_SUITES += tap:tests/pg/run-regress.sh tap:tests/pg/run-isolation.sh tap:tests/pg/run-tpch.sh \
  tap:tests/pg/run-bigseg.sh tap:tests/pg/run-checksums.sh tap:tests/pg/run-slots.sh \
  tap:tests/pg/run-pg-regress-short.sh tap:tests/pg/run-sqlsmith.sh tap:tests/pg/run-array.sh \
  tap:tests/pg/run-regress-array.sh tap:tests/pg/run-isolation-array.sh tap:tests/pg/run-regress-raid5.sh \
  tap:tests/pg/run-raid5.sh tap:tests/pg/run-scaleout.sh tap:tests/pg/run-old-drive.sh

# ossd-randq: the random differential query test (tests/pg/random-diff/),
# a libpq client run by tests/pg/run-random-diff.sh
RANDQ := $(B)/tests/ossd-randq
RANDQ_OBJS := $(call objs,,$(wildcard tests/pg/random-diff/*.c))
ifneq ($(shell command -v pg_config 2>/dev/null),)
TEST_BINS += $(RANDQ)
endif
$(RANDQ_OBJS): CFLAGS += -I$(shell pg_config --includedir 2>/dev/null)
$(RANDQ_OBJS): tests/pg/random-diff/randq.h
$(RANDQ): $(RANDQ_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -L$(shell pg_config --libdir 2>/dev/null) -lpq -lm
TEST_SUITES += tap:tests/pg/run-random-diff.sh
