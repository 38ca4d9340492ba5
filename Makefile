# pg_ossd top-level build.  One non-recursive make: each component folder
# contributes its rules through <component>/component.mk.  Everything is
# built under build/.
#
#   make          build every library and tool (and the extension)
#   make test     every suite; last line "N passed, N failed"
#   make demo     emulated drive + ossdfs + PostgreSQL, offload vs plain
#   make fuzz     long fuzz runs (FUZZ_SECONDS per target, default 300)
#   make deps     install the Debian packages the project needs

.DEFAULT_GOAL := all
SHELL := /bin/bash
TOP := $(abspath .)
B := $(TOP)/build

include mk/common.mk
include proto/component.mk
include ftl/component.mk
include offload_runtime/component.mk
include device/component.mk
include host/component.mk
include bench/component.mk
include tests/integration/component.mk
include proto/fuzz/component.mk
-include pg_ossd/component.mk

.PHONY: all deps check-deps test test-programs demo fuzz clean
all: check-deps $(ALL_TARGETS)

deps:
	@tests/harness/install-deps

# Run `make deps` only when a needed package is missing.
check-deps:
	@tests/harness/install-deps --check-or-install

test: check-deps all $(TEST_BINS)
	@tests/harness/run-all $(TEST_SUITES)

# Build every test program without running the suites.
test-programs: check-deps all $(TEST_BINS)

demo: check-deps all
	@bench/demo/run-demo

fuzz: check-deps $(FUZZ_BINS)
	@tests/harness/run-fuzz $(FUZZ_SECONDS) $(FUZZ_BINS)

clean:
	rm -rf $(B)
