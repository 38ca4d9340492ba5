#!/bin/sh
# phase-conformance.sh - the channel conformance suite over the three
# kernel drivers' transports, and over the NVMe generic char node and the
# SCSI disk's block node (guest side; see conformance.c).
exec ossd-vm-conformance --key-file "$OSSD_KEY_FILE" --timeout-ms "$TIMEOUT_MS" \
  --kernel-timeout "nvme=$NVME_IO_TIMEOUT" --kernel-timeout "scsi=$SCSI_TIMEOUT" \
  --kernel-timeout "sata=$SCSI_TIMEOUT" --kernel-timeout "nvme-ng=$NVME_IO_TIMEOUT" \
  --kernel-timeout "scsi-sd=$SCSI_TIMEOUT" \
  --pages /vm/pages.bin --expect "$PAGES_EXPECT" --xmin "$PAGES_XMIN" $DEVS $DEVS_MORE
