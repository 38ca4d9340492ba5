/* transport_nvme.c - the `nvme:/dev/nvmeXnY` transport of libossd.
 *
 * Owns: NVMe I/O passthrough to one namespace through libnvme: the
 * namespace id (NVME_IOCTL_ID), Identify Namespace for the size and the LBA
 * format in use (flbas -> lbaf[].ds), Identify Controller for MDTS, Read
 * (0x02) and Write (0x01) built by ossd_nvme_build_rw and sent with
 * nvme_io_passthru, Flush with nvme_flush, and the decoding of NVMe status
 * codes into a one-line reason naming the command, LBA and device.
 *
 * Channel LBAs are OSSD_LBA_SIZE (4096) bytes; namespaces formatted with
 * 512- or 4096-byte blocks are accepted, others (and formats carrying
 * metadata) are refused.  The generic char node /dev/ngXnY works as well
 * as the block node.  NVMe has no notion of our connections, so
 * knows_connections = false.
 *
 * Every call is one ioctl on the shared fd, so calls are safe from
 * several threads at once.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libnvme.h>

#include "ossd_frame.h"
#include "ossd_transport.h"

#define NVME_TIMEOUT_MS 60000u
#define NVME_DEFAULT_MAX_TRANSFER (128u * 1024)
#define NVME_MAX_TRANSFER_CAP (32u * 1024 * 1024)
#define NVME_MAX_BLOCKS 65536u         /* NLB is 16 bits, zero-based */

struct nvme_state
{
  int fd;
  uint32_t nsid;
  uint32_t lba_bytes;                 /* 512 or 4096 */
  uint64_t nsze;                      /* namespace size in blocks */
  char dev[PATH_MAX];
};

int
ossd_nvme_build_rw (struct ossd_nvme_rw_cmd *cmd, bool is_write,
                    uint32_t nsid, uint32_t lba_bytes, uint64_t off,
                    size_t len)
{
  memset (cmd, 0, sizeof *cmd);
  if (lba_bytes < 512 || (lba_bytes & (lba_bytes - 1)) != 0)
    return -EINVAL;
  if (len == 0 || len % lba_bytes != 0 || off % lba_bytes != 0)
    return -EINVAL;
  uint64_t nblocks = len / lba_bytes;
  if (nblocks > NVME_MAX_BLOCKS || len > UINT32_MAX)
    return -EINVAL;

  cmd->opcode = is_write ? 0x01 : 0x02;
  cmd->nsid = nsid;
  cmd->slba = off / lba_bytes;
  cmd->nlb = (uint16_t) (nblocks - 1);
  cmd->cdw10 = (uint32_t) cmd->slba;
  cmd->cdw11 = (uint32_t) (cmd->slba >> 32);
  cmd->cdw12 = cmd->nlb;              /* bits 15:0; no FUA, no PRINFO */
  cmd->data_len = (uint32_t) len;
  return 0;
}

/* Fill why for a failed libnvme call: r < 0 is -1 with errno, r > 0 an
 * NVMe status.  Returns the negative errno to hand back. */
static int
nvme_fail (struct nvme_state *st, const char *what, int r, int saved_errno,
           char *why, size_t whylen)
{
  if (r < 0) {
    int e = saved_errno > 0 ? saved_errno : EIO;
    snprintf (why, whylen, "nvme: %s: %s: %s", st->dev, what, strerror (e));
    return -e;
  }
  const char *s = nvme_status_to_string (r, false);
  int e = nvme_status_to_errno (r, false);
  snprintf (why, whylen, "nvme: %s: %s: %s (status 0x%x)", st->dev, what,
            s ? s : "unknown status", (unsigned) r);
  return e > 0 ? -e : -EIO;
}

static int
nvme_rw (struct ossd_transport *t, bool is_write, void *buf, size_t len,
         uint64_t off, char *why, size_t whylen)
{
  struct nvme_state *st = t->priv;
  const char *op = is_write ? "Write" : "Read";

  int cr = ossd_transport_check_io (t, st->dev, op, len, off, why, whylen);
  if (cr < 0)
    return cr;

  char *p = buf;
  size_t done = 0;
  while (done < len) {
    size_t n = len - done;
    if (n > t->max_transfer)
      n = t->max_transfer;
    struct ossd_nvme_rw_cmd c;
    int r = ossd_nvme_build_rw (&c, is_write, st->nsid, st->lba_bytes,
                                off + done, n);
    if (r < 0) {
      snprintf (why, whylen, "nvme: %s: %s of %zu bytes at offset %" PRIu64
                ": cannot build the command", st->dev, op, n, off + done);
      return r;
    }
    r = nvme_io_passthru (st->fd, c.opcode, 0, 0, c.nsid, 0, 0,
                          c.cdw10, c.cdw11, c.cdw12, 0, 0, 0,
                          c.data_len, p + done, 0, NULL,
                          NVME_TIMEOUT_MS, NULL);
    if (r != 0) {
      int e = errno;
      char what[96];
      snprintf (what, sizeof what, "%s of %u blocks at LBA %" PRIu64,
                op, (unsigned) c.nlb + 1, c.slba);
      return nvme_fail (st, what, r, e, why, whylen);
    }
    done += n;
  }
  return 0;
}

static int
nvme_pread (struct ossd_transport *t, void *buf, size_t len, uint64_t off,
            char *why, size_t whylen)
{
  return nvme_rw (t, false, buf, len, off, why, whylen);
}

static int
nvme_pwrite (struct ossd_transport *t, const void *buf, size_t len,
             uint64_t off, char *why, size_t whylen)
{
  /* A Write only reads from the buffer. */
  return nvme_rw (t, true, (void *) buf, len, off, why, whylen);
}

static int
nvme_flush_op (struct ossd_transport *t, char *why, size_t whylen)
{
  struct nvme_state *st = t->priv;
  int r = nvme_flush (st->fd, st->nsid);
  if (r != 0) {
    int e = errno;
    return nvme_fail (st, "Flush", r, e, why, whylen);
  }
  return 0;
}

static void
nvme_close_op (struct ossd_transport *t)
{
  if (t == NULL)
    return;
  struct nvme_state *st = t->priv;
  if (st) {
    if (st->fd >= 0)
      close (st->fd);
    free (st);
  }
  free (t);
}

static const struct ossd_transport_ops nvme_ops = {
  .name = "nvme",
  .pread = nvme_pread,
  .pwrite = nvme_pwrite,
  .flush = nvme_flush_op,
  .close = nvme_close_op,
};

/* The block layer's limit for one request on a block node, from sysfs;
 * 0 if unknown (char node, no sysfs). */
static uint64_t
nvme_kernel_max_bytes (const struct stat *sb)
{
  char path[128];
  unsigned long kb = 0;

  if (!S_ISBLK (sb->st_mode))
    return 0;
  snprintf (path, sizeof path, "/sys/dev/block/%u:%u/queue/max_hw_sectors_kb",
            major (sb->st_rdev), minor (sb->st_rdev));
  FILE *fp = fopen (path, "re");
  if (fp == NULL)
    return 0;
  if (fscanf (fp, "%lu", &kb) != 1)
    kb = 0;
  fclose (fp);
  return (uint64_t) kb * 1024;
}

int
ossd_transport_open_nvme (const char *dev, struct ossd_transport **out,
                          char *why, size_t whylen)
{
  struct nvme_state *st = NULL;
  struct ossd_transport *t = NULL;
  struct nvme_id_ns *ns = NULL;
  struct nvme_id_ctrl *ctrl = NULL;
  struct stat sb;
  int r, e;

  *out = NULL;
  if (whylen > 0)
    why[0] = '\0';
  if (dev == NULL || dev[0] == '\0') {
    snprintf (why, whylen, "nvme: no device given (want nvme:/dev/nvmeXnY)");
    return -EINVAL;
  }
  if (strlen (dev) >= sizeof st->dev) {
    snprintf (why, whylen, "nvme: device path too long");
    return -ENAMETOOLONG;
  }

  st = calloc (1, sizeof *st);
  t = calloc (1, sizeof *t);
  /* Identify data is 4096 bytes each; page-aligned for the DMA. */
  if (st == NULL || t == NULL
      || posix_memalign ((void **) &ns, 4096, sizeof *ns) != 0
      || posix_memalign ((void **) &ctrl, 4096, sizeof *ctrl) != 0) {
    snprintf (why, whylen, "nvme: %s: out of memory", dev);
    r = -ENOMEM;
    goto fail;
  }
  strcpy (st->dev, dev);
  st->fd = open (dev, O_RDWR | O_CLOEXEC);
  if (st->fd == -1) {
    r = -errno;
    snprintf (why, whylen, "nvme: cannot open %s: %s", dev, strerror (-r));
    goto fail;
  }
  if (fstat (st->fd, &sb) == -1) {
    r = -errno;
    snprintf (why, whylen, "nvme: %s: fstat: %s", dev, strerror (-r));
    goto fail;
  }
  if (!S_ISCHR (sb.st_mode) && !S_ISBLK (sb.st_mode)) {
    snprintf (why, whylen, "nvme: %s: not an NVMe namespace node (%s); use "
              "file: for images", dev,
              S_ISREG (sb.st_mode) ? "a regular file" : "not a device");
    r = -ENODEV;
    goto fail;
  }

  if (nvme_get_nsid (st->fd, &st->nsid) != 0) {
    e = errno;
    snprintf (why, whylen, "nvme: %s: not an NVMe namespace node (want "
              "/dev/nvmeXnY): NVME_IOCTL_ID: %s", dev, strerror (e));
    r = (e == ENOTTY || e == EINVAL) ? -ENODEV : -e;
    goto fail;
  }

  memset (ns, 0, sizeof *ns);
  r = nvme_identify_ns (st->fd, st->nsid, ns);
  if (r != 0) {
    e = errno;
    char what[64];
    snprintf (what, sizeof what, "Identify Namespace %" PRIu32, st->nsid);
    r = nvme_fail (st, what, r, e, why, whylen);
    goto fail;
  }
  uint8_t fmt;
  nvme_id_ns_flbas_to_lbaf_inuse (ns->flbas, &fmt);
  if (fmt > ns->nlbaf || fmt >= 64) {
    snprintf (why, whylen, "nvme: %s: namespace %" PRIu32 " reports LBA "
              "format %u in use but has only %u", dev, st->nsid,
              (unsigned) fmt, (unsigned) ns->nlbaf + 1);
    r = -EIO;
    goto fail;
  }
  unsigned ds = ns->lbaf[fmt].ds;
  unsigned ms = le16toh (ns->lbaf[fmt].ms);
  if (ds != 9 && ds != 12) {
    snprintf (why, whylen, "nvme: %s: namespace %" PRIu32 " has 2^%u-byte "
              "logical blocks (LBA format %u); need 512 or 4096",
              dev, st->nsid, ds, (unsigned) fmt);
    r = -EINVAL;
    goto fail;
  }
  if (ms != 0) {
    snprintf (why, whylen, "nvme: %s: namespace %" PRIu32 " carries %u "
              "bytes of metadata per block (LBA format %u); format it "
              "without metadata", dev, st->nsid, ms, (unsigned) fmt);
    r = -EINVAL;
    goto fail;
  }
  st->lba_bytes = 1u << ds;
  st->nsze = le64toh (ns->nsze);

  /* Largest transfer: MDTS (units of the minimum page size, taken as
   * 4 KiB since the namespace node cannot read CAP), else a default;
   * never above the block layer's limit nor 65536 blocks. */
  uint64_t maxb = NVME_DEFAULT_MAX_TRANSFER;
  memset (ctrl, 0, sizeof *ctrl);
  if (nvme_identify_ctrl (st->fd, ctrl) == 0 && ctrl->mdts > 0
      && ctrl->mdts < 20)
    maxb = (uint64_t) 4096 << ctrl->mdts;
  uint64_t kmax = nvme_kernel_max_bytes (&sb);
  if (kmax > 0 && kmax < maxb)
    maxb = kmax;
  if (maxb > (uint64_t) NVME_MAX_BLOCKS * st->lba_bytes)
    maxb = (uint64_t) NVME_MAX_BLOCKS * st->lba_bytes;
  if (maxb > NVME_MAX_TRANSFER_CAP)
    maxb = NVME_MAX_TRANSFER_CAP;
  maxb -= maxb % OSSD_LBA_SIZE;
  if (maxb < OSSD_LBA_SIZE)
    maxb = OSSD_LBA_SIZE;

  uint64_t bytes = st->nsze * st->lba_bytes;
  t->ops = &nvme_ops;
  t->size_bytes = bytes - bytes % OSSD_LBA_SIZE;
  t->max_transfer = (uint32_t) maxb;
  t->knows_connections = false;
  t->priv = st;
  free (ns);
  free (ctrl);
  if (whylen > 0)
    why[0] = '\0';
  *out = t;
  return 0;

 fail:
  if (st && st->fd >= 0)
    close (st->fd);
  free (st);
  free (t);
  free (ns);
  free (ctrl);
  return r;
}
