/* transport_nvme.c - the `nvme:/dev/nvmeXnY` transport of libossd.
 *
 * Owns: NVMe I/O passthrough to one namespace through libnvme: the
 * namespace id (NVME_IOCTL_ID), Identify Namespace for the size and the LBA
 * format in use (flbas -> lbaf[].ds), Identify Controller for MDTS, Read
 * (0x02) and Write (0x01) built by ossd_nvme_build_rw and sent with
 * nvme_io_passthru (the encoder of one piece), Flush with nvme_flush, and
 * the decoding of NVMe status codes into a one-line reason naming the
 * command, LBA and device.  The request loop (checks, pieces of at most
 * the largest transfer) is the block-transport core's (transport_block.c).
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
#include "transport_block.h"

#define NVME_TIMEOUT_MS 60000u         /* unless the client set one */
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
    return ossd_block_why (why, whylen, -e, "nvme", st->dev, what, "%s",
                           strerror (e));
  }
  const char *s = nvme_status_to_string (r, false);
  int e = nvme_status_to_errno (r, false);
  return ossd_block_why (why, whylen, e > 0 ? -e : -EIO, "nvme", st->dev,
                         what, "%s (status 0x%x)", s ? s : "unknown status",
                         (unsigned) r);
}

/* One piece: a Read or Write of cmd->nblocks blocks. */
static int
nvme_submit (void *priv, const struct ossd_block_cmd *cmd, char *why,
             size_t whylen)
{
  struct nvme_state *st = priv;
  struct ossd_nvme_rw_cmd c;
  int r = ossd_nvme_build_rw (&c, cmd->is_write, st->nsid, st->lba_bytes,
                              cmd->off, cmd->nbytes);
  if (r < 0)
    return ossd_block_why (why, whylen, r, "nvme", st->dev, cmd->what,
                           "cannot build the command");
  /* The kernel aborts the command (and resets the controller) after the
   * client's deadline; a Write only reads from the buffer. */
  r = nvme_io_passthru (st->fd, c.opcode, 0, 0, c.nsid, 0, 0,
                        c.cdw10, c.cdw11, c.cdw12, 0, 0, 0,
                        c.data_len, cmd->buf, 0, NULL,
                        cmd->timeout_ms ? cmd->timeout_ms : NVME_TIMEOUT_MS,
                        NULL);
  if (r != 0) {
    int e = errno;
    return nvme_fail (st, cmd->what, r, e, why, whylen);
  }
  return 0;
}

static int
nvme_flush_op (void *priv, char *why, size_t whylen)
{
  struct nvme_state *st = priv;
  int r = nvme_flush (st->fd, st->nsid);
  if (r != 0) {
    int e = errno;
    return nvme_fail (st, "Flush", r, e, why, whylen);
  }
  return 0;
}

static void
nvme_release (void *priv)
{
  struct nvme_state *st = priv;
  if (st == NULL)
    return;
  if (st->fd >= 0)
    close (st->fd);
  free (st);
}

static const struct ossd_block_encoder nvme_encoder = {
  .scheme = "nvme",
  .read_op = "Read",
  .write_op = "Write",
  .submit = nvme_submit,
  .flush = nvme_flush_op,
  .release = nvme_release,
};

/* The block layer's limit for one pass-through command, from the
 * namespace's request queue in sysfs (largest request, segments: the
 * kernel maps the caller's pages): the block node's own queue, or for the
 * generic char node ngXnY that of its block node nvmeXnY.  0 if unknown. */
static uint64_t
nvme_kernel_max_bytes (const char *dev, const struct stat *sb)
{
  char queue[PATH_MAX];
  const char *base = strrchr (dev, '/');

  base = base ? base + 1 : dev;
  if (S_ISBLK (sb->st_mode))
    snprintf (queue, sizeof queue, "/sys/dev/block/%u:%u/queue",
              major (sb->st_rdev), minor (sb->st_rdev));
  else if (strncmp (base, "ng", 2) == 0)
    snprintf (queue, sizeof queue, "/sys/block/nvme%s/queue", base + 2);
  else
    return 0;
  return ossd_block_queue_max_bytes (queue);
}

int
ossd_transport_open_nvme (const char *dev, struct ossd_transport **out,
                          char *why, size_t whylen)
{
  struct nvme_state *st = NULL;
  struct nvme_id_ns *ns = NULL;
  struct nvme_id_ctrl *ctrl = NULL;
  struct stat sb;
  int r, e;

  *out = NULL;
  if (whylen > 0)
    why[0] = '\0';
  r = ossd_block_check_name ("nvme", "device", "nvme:/dev/nvmeXnY", dev,
                             sizeof st->dev, why, whylen);
  if (r < 0)
    return r;

  st = calloc (1, sizeof *st);
  if (st != NULL)
    st->fd = -1;
  /* Identify data is 4096 bytes each; page-aligned for the DMA. */
  if (st == NULL
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
  r = ossd_block_need_device_node ("nvme", dev, st->fd,
                                   "an NVMe namespace node", &sb, why,
                                   whylen);
  if (r < 0)
    goto fail;

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
  uint64_t cap = (uint64_t) NVME_MAX_BLOCKS * st->lba_bytes;
  if (cap > NVME_MAX_TRANSFER_CAP)
    cap = NVME_MAX_TRANSFER_CAP;

  struct ossd_block_facts facts = {
    .dev = st->dev,
    .size_bytes = st->nsze * st->lba_bytes,
    .block_size = st->lba_bytes,
    .max_transfer = ossd_block_max_transfer (maxb,
                                             nvme_kernel_max_bytes (dev, &sb),
                                             cap),
  };
  r = ossd_block_transport_new (&nvme_encoder, st, &facts, out, why, whylen);
  if (r < 0)
    goto fail;
  free (ns);
  free (ctrl);
  if (whylen > 0)
    why[0] = '\0';
  return 0;

 fail:
  nvme_release (st);
  free (ns);
  free (ctrl);
  return r;
}
