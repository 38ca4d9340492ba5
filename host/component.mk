# host/ - libossd (transports + calls), ossdctl, ossdfs
#   -> build/libossd.a, build/ossdctl, build/ossdfs
CPPFLAGS_host := -Ihost/include -Ihost/libossd $(PROTO_CPPFLAGS) \
  -Idevice/include -Iftl/include -Ioffload_runtime/include
LIBOSSD_SRCS := $(wildcard host/libossd/*.c)
LIBOSSD_OBJS := $(call objs,host,$(LIBOSSD_SRCS))
LIBOSSD := $(B)/libossd.a
# Link line for programs using libossd (inproc: pulls in the device core).
HOST_LINK := $(LIBOSSD) $(DEVICE_LINK) -lnbd -lsgutils2 -lnvme
ALL_TARGETS += $(LIBOSSD) $(B)/ossdctl

$(LIBOSSD_OBJS): | $(PROTO_GEN)/ossd.pb-c.h
$(LIBOSSD): $(LIBOSSD_OBJS)
	rm -f $@ && ar rcs $@ $^

HOST_LIB_DEPS := $(LIBOSSD) $(DEVICE_LIB) $(RT_LIB) $(FTL_LIB) $(PROTO_LIB)

OSSDCTL_SRCS := $(wildcard host/ossdctl/*.c)
OSSDCTL_OBJS := $(call objs,host,$(OSSDCTL_SRCS))
$(OSSDCTL_OBJS): | $(PROTO_GEN)/ossd.pb-c.h
$(B)/ossdctl: $(OSSDCTL_OBJS) $(HOST_LIB_DEPS)
	$(CC) $(CFLAGS) -o $@ $(OSSDCTL_OBJS) $(HOST_LINK)

OSSDFS_SRCS := $(wildcard host/ossdfs/*.c)
ifneq ($(OSSDFS_SRCS),)
OSSDFS_OBJS := $(call objs,host,$(OSSDFS_SRCS))
CPPFLAGS_host += $(shell pkg-config --cflags fuse3 2>/dev/null)
ALL_TARGETS += $(B)/ossdfs
$(OSSDFS_OBJS): | $(PROTO_GEN)/ossd.pb-c.h
$(B)/ossdfs: $(OSSDFS_OBJS) $(HOST_LIB_DEPS) $(RAID_LIB)
	$(CC) $(CFLAGS) -o $@ $(OSSDFS_OBJS) $(RAID_LIB) $(HOST_LINK) $(shell pkg-config --libs fuse3)
endif

HOST_TEST_SRCS := $(wildcard host/tests/test_*.c)
HOST_TESTS := $(patsubst host/tests/%.c,$(B)/tests/host_%,$(HOST_TEST_SRCS))
TEST_BINS += $(HOST_TESTS)
TEST_SUITES += $(patsubst %,cmocka:%,$(HOST_TESTS))

# The SG and NVMe tests put simulated devices behind the libraries' entry
# points through link-time wrapping (they pass through when unset).
comma := ,
HOST_SG_WRAPS := scsi_pt_open_device scsi_pt_close_device construct_scsi_pt_obj_with_fd \
  destruct_scsi_pt_obj set_scsi_pt_cdb set_scsi_pt_sense set_scsi_pt_data_in \
  set_scsi_pt_data_out do_scsi_pt get_scsi_pt_result_category get_scsi_pt_resid \
  get_scsi_pt_sense_len get_scsi_pt_status_response get_scsi_pt_os_err \
  get_scsi_pt_transport_err_str
HOST_NVME_WRAPS := nvme_get_nsid nvme_identify nvme_io_passthru nvme_submit_io_passthru
$(B)/tests/host_test_transport_sg: HOST_TEST_LDFLAGS := $(patsubst %,-Wl$(comma)--wrap=%,$(HOST_SG_WRAPS))
$(B)/tests/host_test_transport_nvme: HOST_TEST_LDFLAGS := $(patsubst %,-Wl$(comma)--wrap=%,$(HOST_NVME_WRAPS))

$(B)/host/tests/%.o: | $(PROTO_GEN)/ossd.pb-c.h
$(B)/tests/host_%: $(B)/host/tests/%.o $(HOST_LIB_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK) $(HOST_TEST_LDFLAGS) -lcmocka
