# pg_ossd top-level entry.  Two stages, so that a fresh machine builds on
# its first run: this file installs any missing Debian package first, then
# runs the real build (mk/build.mk) in a sub-make, which reads pkg-config,
# llvm-config and pg_config only after the packages are there.
#
#   make          build every library and tool (and the extension)
#   make test     every suite; last line "N passed, N failed"
#   make check-pg PostgreSQL's own regression SQL, all files, offload vs off
#   make demo     emulated drive + ossdfs + PostgreSQL, offload vs plain
#   make fuzz     long fuzz runs (FUZZ_SECONDS per target, default 300)
#   make deps     install the Debian packages the project needs
#   make clean    remove build/

SHELL := /bin/bash
.DEFAULT_GOAL := all
BUILD_GOALS := $(filter-out deps clean,$(or $(MAKECMDGOALS),all))

.PHONY: deps clean build-stage $(BUILD_GOALS)
deps:
	@tests/harness/install-deps

clean:
	rm -rf build

# Every other goal: packages first, then the build proper (one sub-make for
# all goals, so `make all test` builds once).
$(BUILD_GOALS): build-stage
	@:
build-stage:
	@tests/harness/install-deps --check-or-install
	@$(MAKE) --no-print-directory -f mk/build.mk $(BUILD_GOALS)
