# pg_ossd build proper, run by the top Makefile after the packages are in
# place.  One non-recursive make: each component folder contributes its
# rules through <component>/component.mk.  Everything is built under build/.

.DEFAULT_GOAL := all
SHELL := /bin/bash
TOP := $(abspath .)
B := $(TOP)/build

include mk/common.mk
# First suite: a fresh machine's first build (package flags read after make deps)
TEST_SUITES += tap:tests/harness/fresh-build.sh
include proto/component.mk
include ftl/component.mk
include host/raid/component.mk
include offload_runtime/component.mk
include device/component.mk
include host/component.mk
include bench/component.mk
include bench/soak/component.mk
include tests/integration/component.mk
include tests/vm/component.mk
include proto/fuzz/component.mk
include offload_runtime/fuzz/component.mk
-include pg_ossd/component.mk

.PHONY: all test test-programs demo fuzz check-pg
all: $(ALL_TARGETS)

test: all $(TEST_BINS)
	@tests/harness/run-all $(TEST_SUITES)

# PostgreSQL's own regression SQL, every file of the list, compared with
# offload forced (jit, interpreter) and off: longer than make test's share
# of it (tests/pg/run-pg-regress-short.sh), so run on its own (and by CI).
check-pg: all pg-ossd-install
	@tests/harness/run-all tap:tests/pg/run-pg-regress.sh

# Build every test program without running the suites.
test-programs: all $(TEST_BINS)

demo: all
	@bench/demo/run-demo

fuzz: $(FUZZ_BINS)
	@tests/harness/run-fuzz $(FUZZ_SECONDS) $(FUZZ_BINS)
