# bench/ - benchmarks: each prints ratios measured side by side in one run
# and writes CSV + PNG under bench/results/.
CPPFLAGS_bench := $(CPPFLAGS_host) -Ibench/include
BENCH_BINS := $(B)/bench/bench_channel $(B)/bench/bench_caps
ALL_TARGETS += $(BENCH_BINS)

$(B)/bench/channel/bench_channel.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/bench/bench_channel: $(B)/bench/channel/bench_channel.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)
$(B)/bench/channel/bench_caps.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/bench/bench_caps: $(B)/bench/channel/bench_caps.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

.PHONY: bench-channel
bench-channel: $(B)/bench/bench_channel $(B)/ossdctl $(NBDKIT_PLUGIN)
	bench/channel/run

# bench/scan: TPC-H Q6 over in-memory heap pages - interpreter, JIT, C.
BENCH_SCAN_OBJS := $(call objs,bench,$(wildcard bench/scan/*.c))
$(BENCH_SCAN_OBJS): CPPFLAGS_bench += -Ioffload_runtime/include -Ioffload_runtime/tests \
  -DOSSD_RT_EXAMPLES_DIR='"$(B)/examples"'
ALL_TARGETS += $(B)/bench/bench_scan
$(B)/bench/bench_scan: $(BENCH_SCAN_OBJS) $(RT_LIB) | $(RT_EXAMPLES)
	$(CC) $(CFLAGS) -o $@ $(BENCH_SCAN_OBJS) $(RT_LIB) $(RT_LDLIBS) -lm -pthread

.PHONY: bench-scan
bench-scan: $(B)/bench/bench_scan
	bench/scan/run

# bench/drivescan: TPC-H Q6 at SF 1 through the drive's SCAN path (in-process
# drive on a file image) against a hand-written C scan of the same heap file.
BENCH_DRIVESCAN_OBJS := $(call objs,bench,$(wildcard bench/drivescan/*.c))
$(BENCH_DRIVESCAN_OBJS): CPPFLAGS_bench += -Ioffload_runtime/include -Ibench/scan \
  -DOSSD_RT_EXAMPLES_DIR='"$(B)/examples"'
$(BENCH_DRIVESCAN_OBJS): | $(PROTO_GEN)/ossd.pb-c.h
ALL_TARGETS += $(B)/bench/bench_drivescan
$(B)/bench/bench_drivescan: $(BENCH_DRIVESCAN_OBJS) $(B)/bench/scan/lineitem.o \
    $(B)/bench/scan/q6_kernels.o $(HOST_LIB_DEPS) | $(RT_EXAMPLES)
	$(CC) $(CFLAGS) -o $@ $(BENCH_DRIVESCAN_OBJS) $(B)/bench/scan/lineitem.o \
	  $(B)/bench/scan/q6_kernels.o $(HOST_LINK)

.PHONY: bench-drivescan
bench-drivescan: $(B)/bench/bench_drivescan
	bench/drivescan/run

# bench/qos: per-object QoS on an in-process paced drive (docs/qos.md):
# high-priority point reads beside a low-priority scan, QoS on and off.
BENCH_QOS_OBJS := $(call objs,bench,$(wildcard bench/qos/*.c))
$(BENCH_QOS_OBJS): CPPFLAGS_bench += -Ioffload_runtime/include -Ibench/scan -Iftl/include
$(BENCH_QOS_OBJS): | $(PROTO_GEN)/ossd.pb-c.h
ALL_TARGETS += $(B)/bench/bench_qos
$(B)/bench/bench_qos: $(BENCH_QOS_OBJS) $(B)/bench/scan/lineitem.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $(BENCH_QOS_OBJS) $(B)/bench/scan/lineitem.o $(HOST_LINK)

.PHONY: bench-qos
bench-qos: $(B)/bench/bench_qos
	bench/qos/run

# bench/profiles: drive profiles - one drive's and N drives' host read and
# drive scan bandwidth, warm, cold and paced (bench/profiles/run).
$(B)/bench/profiles/bench_drive.o: CPPFLAGS_bench += -Ioffload_runtime/include -Ibench/scan
$(B)/bench/profiles/bench_drive.o: | $(PROTO_GEN)/ossd.pb-c.h
ALL_TARGETS += $(B)/bench/bench_drive
$(B)/bench/bench_drive: $(B)/bench/profiles/bench_drive.o $(B)/bench/scan/lineitem.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $(B)/bench/profiles/bench_drive.o $(B)/bench/scan/lineitem.o $(HOST_LINK)

.PHONY: bench-profiles
bench-profiles: $(B)/bench/bench_drive $(B)/ossdctl $(NBDKIT_PLUGIN)
	bench/profiles/run

# bench/sofs: the self-optimizing layout experiment (bench/sofs/run: ftl-sim
# --workload sofs) and the access profiler's cost on a host scan (docs/sofs.md).
$(B)/bench/sofs/bench_profile_overhead.o: CPPFLAGS_bench += -Iftl/include
$(B)/bench/sofs/bench_profile_overhead.o: | $(PROTO_GEN)/ossd.pb-c.h
ALL_TARGETS += $(B)/bench/bench_profile_overhead
TEST_BINS += $(B)/bench/bench_profile_overhead
TEST_SUITES += tap:bench/sofs/test-sofs.sh
$(B)/bench/bench_profile_overhead: $(B)/bench/sofs/bench_profile_overhead.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

.PHONY: bench-sofs
bench-sofs: $(B)/bench/ftl-sim/ftl-sim $(B)/bench/ftl-sim/ftl-msr-gen $(B)/bench/bench_profile_overhead $(B)/bench/bench_drivescan
	bench/sofs/run

# bench/ftl-sim: trace-driven FTL simulator linking libossd_ftl (no I/O).
FTL_SIM_TOOLS := bench/ftl-sim/msr_gen.c bench/ftl-sim/greedy_ref.c
FTL_SIM_OBJS := $(call objs,bench,$(filter-out $(FTL_SIM_TOOLS),$(wildcard bench/ftl-sim/*.c)))
$(FTL_SIM_OBJS): CPPFLAGS_bench += -Iftl/include -Iftl
ALL_TARGETS += $(B)/bench/ftl-sim/ftl-sim $(B)/bench/ftl-sim/ftl-msr-gen $(B)/bench/ftl-sim/ftl-greedy-ref
TEST_BINS += $(B)/bench/ftl-sim/ftl-sim $(B)/bench/ftl-sim/ftl-msr-gen
TEST_SUITES += tap:bench/ftl-sim/test-sim.sh
$(B)/bench/ftl-sim/ftl-sim: $(FTL_SIM_OBJS) $(FTL_LIB)
	$(CC) $(CFLAGS) -o $@ $(FTL_SIM_OBJS) $(FTL_LIB) -lm -pthread
$(B)/bench/ftl-sim/ftl-msr-gen: $(B)/bench/ftl-sim/msr_gen.o
	$(CC) $(CFLAGS) -o $@ $< -lm
$(B)/bench/ftl-sim/ftl-greedy-ref: $(B)/bench/ftl-sim/greedy_ref.o
	$(CC) $(CFLAGS) -o $@ $<

.PHONY: bench-ftl-sim
bench-ftl-sim: $(B)/bench/ftl-sim/ftl-sim $(B)/bench/ftl-sim/ftl-msr-gen $(B)/bench/ftl-sim/ftl-greedy-ref
	bench/ftl-sim/run

# bench/tpch: our own TPC-H generator (written from the specification).
TPCH_DBGEN_OBJS := $(call objs,bench,$(wildcard bench/tpch/dbgen/*.c))
ALL_TARGETS += $(B)/bench/tpch-dbgen
TEST_BINS += $(B)/bench/tpch-dbgen
$(B)/bench/tpch-dbgen: $(TPCH_DBGEN_OBJS)
	$(CC) $(CFLAGS) -o $@ $(TPCH_DBGEN_OBJS) -lm

# bench/vm-transports: the channel per kernel driver in the VM suite's guest
# (nvme:, sg: on virtio-scsi, sg: on AHCI) beside NBD from the host.
$(B)/bench/vm-transports/vm_bench.o: | $(PROTO_GEN)/ossd.pb-c.h
ALL_TARGETS += $(B)/bench/ossd-vm-bench
$(B)/bench/ossd-vm-bench: $(B)/bench/vm-transports/vm_bench.o $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

.PHONY: bench-vm-transports
bench-vm-transports: all $(B)/tests/ossd-vm-conformance
	bench/vm-transports/run

# bench/fusionraid: the host/raid/ core over a pool of D FTLs (ftl-sim's drive
# set-up, preconditioning, MSR parser and Zipf shared by linking its objects).
FTL_SIM_LIB_OBJS := $(filter-out $(B)/bench/ftl-sim/main.o,$(FTL_SIM_OBJS))
FUSIONRAID_OBJS := $(call objs,bench,$(wildcard bench/fusionraid/*.c))
$(FUSIONRAID_OBJS): CPPFLAGS_bench += -Iftl/include
ALL_TARGETS += $(B)/bench/fusionraid/fusionraid-sim
TEST_BINS += $(B)/bench/fusionraid/fusionraid-sim
TEST_SUITES += tap:bench/fusionraid/test-fusionraid.sh
$(B)/bench/fusionraid/fusionraid-sim: $(FUSIONRAID_OBJS) $(FTL_SIM_LIB_OBJS) $(RAID_LIB) $(FTL_LIB)
	$(CC) $(CFLAGS) -o $@ $(FUSIONRAID_OBJS) $(FTL_SIM_LIB_OBJS) $(RAID_LIB) $(FTL_LIB) -lm -pthread

.PHONY: bench-fusionraid
bench-fusionraid: $(B)/bench/fusionraid/fusionraid-sim
	bench/fusionraid/run
