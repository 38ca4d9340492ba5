# tests/vm/ - the virtual-machine suite: the channel over the guest
# kernel's NVMe, virtio-scsi and AHCI drivers (tests/vm/README.md).
#   build/tests/ossd-vm-conformance   the conformance program run in the guest
#   make test-vm                      the suite (boots qemu under TCG)
VM_CONFORMANCE := $(B)/tests/ossd-vm-conformance
TEST_BINS += $(VM_CONFORMANCE)

$(B)/tests/vm/guest/%.o: | $(PROTO_GEN)/ossd.pb-c.h
$(VM_CONFORMANCE): $(B)/tests/vm/guest/conformance.o $(HOST_LIB_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(HOST_LINK)

# In make test too: the whole suite takes about 90 s here (TCG, 2 shared
# cores), well under the ~6 minutes past which it would move to .ci/run.
TEST_SUITES += tap:tests/vm/vm-suite.sh

.PHONY: test-vm
test-vm: all $(VM_CONFORMANCE)
	@tests/harness/run-all tap:tests/vm/vm-suite.sh
