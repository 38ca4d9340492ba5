/* device_offload.c - KERNEL DEPLOY/LIST/REMOVE and SCAN until the offload
 * runtime is linked into the drive: they answer ERR_UNSUPPORTED with a
 * reason, so a host learns plainly that this firmware cannot run them. */
#include <errno.h>
#include <stdio.h>

#include "device_internal.h"

int
device_kernels_open (ossd_device_t *dev, char *why, size_t whylen)
{
  return 0;
}

void
device_kernels_close (ossd_device_t *dev)
{
}

static void
unsupported (struct ossd_slot *s, uint64_t seq, const char *cmd)
{
  char reason[200];
  snprintf (reason, sizeof reason, "%s: this drive firmware (%s) has no offload runtime",
            cmd, OSSD_FIRMWARE_VERSION);
  device_slot_respond_error (s, seq, OSSD__STATUS__ERR_UNSUPPORTED, reason);
}

void
device_kernel_deploy (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                      const Ossd__KernelDeploy *kd)
{
  unsupported (s, seq, "KERNEL DEPLOY");
}

void
device_kernel_list (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq)
{
  unsupported (s, seq, "KERNEL LIST");
}

void
device_kernel_remove (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                      const Ossd__KernelRemove *kr)
{
  unsupported (s, seq, "KERNEL REMOVE");
}

void
device_scan_start (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                   const Ossd__Request *req)
{
  unsupported (s, seq, "SCAN");
}
