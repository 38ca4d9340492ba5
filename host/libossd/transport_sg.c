/* transport_sg.c - the `sg:/dev/sgN` transport of libossd (SCSI).
 *
 * Owns: SCSI pass-through to a drive through libsgutils2 (SG_IO on an sg
 * node or a SCSI disk node): READ CAPACITY(16) (READ CAPACITY(10) as a
 * fallback) for the size and logical block size, the block limits VPD
 * page (0xb0) for the largest transfer, the encoder that sends one piece
 * as READ(16)/WRITE(16), SYNCHRONIZE CACHE(10) for flush, and the decoding
 * of sense data into a one-line reason naming the command, the LBA and the
 * device.  The request loop (checks, pieces of at most the largest
 * transfer) is the block-transport core's (transport_block.c).
 *
 * Channel LBAs are OSSD_LBA_SIZE (4096) bytes; a device with 512-byte
 * logical blocks takes 8 of its blocks per channel LBA.  Other block sizes
 * are refused.  SCSI has no notion of our connections, so
 * knows_connections = false.
 *
 * Each command builds its own pass-through object, so calls are safe from
 * several threads at once (SG_IO is synchronous per call).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

#include "ossd_frame.h"
#include "ossd_transport.h"
#include "transport_block.h"

#define SG_TIMEOUT_SECS 60            /* per command, unless the client set one */
#define SG_DEFAULT_MAX_TRANSFER (512u * 1024)
#define SG_MAX_TRANSFER_CAP (32u * 1024 * 1024)
#define SG_SENSE_LEN 64
#define SG_RETRIES 3                  /* unit attention, aborted command */

struct sg_state
{
  int fd;
  uint32_t block_size;                /* 512 or 4096 */
  uint64_t nblocks;                   /* device logical blocks */
  char dev[PATH_MAX];
};

/* SG_DIR_IN_SHORT_OK: a data-in command whose reply may be shorter than
 * the buffer (INQUIRY, READ CAPACITY); for SG_DIR_IN a short reply is an
 * error. */
enum sg_dir { SG_DIR_NONE, SG_DIR_IN, SG_DIR_IN_SHORT_OK, SG_DIR_OUT };

/* ---- CDB builders (exposed for the unit tests) ---- */

static void
put_be32 (uint8_t *p, uint32_t v)
{
  p[0] = v >> 24;
  p[1] = v >> 16;
  p[2] = v >> 8;
  p[3] = v;
}

static void
put_be64 (uint8_t *p, uint64_t v)
{
  put_be32 (p, (uint32_t) (v >> 32));
  put_be32 (p + 4, (uint32_t) v);
}

static uint32_t
get_be32 (const uint8_t *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
    | (uint32_t) p[2] << 8 | p[3];
}

static uint64_t
get_be64 (const uint8_t *p)
{
  return (uint64_t) get_be32 (p) << 32 | get_be32 (p + 4);
}

void
ossd_sg_build_rw16 (uint8_t cdb[16], bool is_write, uint64_t lba,
                    uint32_t nblocks, bool fua)
{
  memset (cdb, 0, 16);
  cdb[0] = is_write ? 0x8a : 0x88;
  if (fua)
    cdb[1] |= 0x08;
  put_be64 (cdb + 2, lba);
  put_be32 (cdb + 10, nblocks);
}

void
ossd_sg_build_read_capacity16 (uint8_t cdb[16], uint32_t alloc_len)
{
  memset (cdb, 0, 16);
  cdb[0] = 0x9e;                      /* SERVICE ACTION IN(16) */
  cdb[1] = 0x10;                      /* READ CAPACITY(16) */
  put_be32 (cdb + 10, alloc_len);
}

/* ---- running one command ---- */

/* What went wrong, for callers that act on it. */
struct sg_fail
{
  int scat;                           /* SG_LIB_CAT_* of the sense, or -1 */
  int os_err;                         /* errno of SG_IO itself, or 0 */
};

static bool
sg_unsupported (const struct sg_fail *f)
{
  return f->scat == SG_LIB_CAT_INVALID_OP
    || f->scat == SG_LIB_CAT_ILLEGAL_REQ;
}

/* Run one CDB.  `what` names the command and its LBA for the reason, e.g.
 * "READ(16) of 8 blocks at LBA 1024".  Returns 0 or a negative errno, and
 * says in *f (if not NULL) whether the device or the OS refused. */
static int
sg_exec_timeout (struct sg_state *st, const uint8_t *cdb, int cdb_len,
                 enum sg_dir dir, void *buf, uint32_t len, const char *what,
                 int timeout_secs, struct sg_fail *f, char *why,
                 size_t whylen)
{
  uint8_t sense[SG_SENSE_LEN];
  struct sg_fail dummy;
  int attempt;
  int ret = -EIO;

  if (f == NULL)
    f = &dummy;
  f->scat = -1;
  f->os_err = 0;

  for (attempt = 0; attempt < SG_RETRIES; attempt++) {
    struct sg_pt_base *pt = construct_scsi_pt_obj_with_fd (st->fd, 0);
    if (pt == NULL)
      return ossd_block_why (why, whylen, -ENOMEM, "sg", st->dev, what,
                             "out of memory");
    memset (sense, 0, sizeof sense);
    set_scsi_pt_cdb (pt, cdb, cdb_len);
    set_scsi_pt_sense (pt, sense, sizeof sense);
    if (dir == SG_DIR_IN || dir == SG_DIR_IN_SHORT_OK)
      set_scsi_pt_data_in (pt, buf, (int) len);
    else if (dir == SG_DIR_OUT)
      set_scsi_pt_data_out (pt, buf, (int) len);

    int r = do_scsi_pt (pt, -1, timeout_secs, 0);
    if (r < 0) {
      f->os_err = -r;
      destruct_scsi_pt_obj (pt);
      return ossd_block_why (why, whylen, r, "sg", st->dev, what,
                             "SG_IO failed: %s", strerror (-r));
    }
    if (r == SCSI_PT_DO_TIMEOUT) {
      destruct_scsi_pt_obj (pt);
      return ossd_block_why (why, whylen, -ETIMEDOUT, "sg", st->dev, what,
                             "timed out after %d s", timeout_secs);
    }
    if (r != 0) {
      destruct_scsi_pt_obj (pt);
      return ossd_block_why (why, whylen, -EIO, "sg", st->dev, what,
                             "pass-through refused the command (code %d)",
                             r);
    }

    int cat = get_scsi_pt_result_category (pt);
    int resid = get_scsi_pt_resid (pt);
    int slen = get_scsi_pt_sense_len (pt);
    int status = get_scsi_pt_status_response (pt);
    int os_err = get_scsi_pt_os_err (pt);
    char tbuf[128] = "";
    if (cat == SCSI_PT_RESULT_TRANSPORT_ERR)
      get_scsi_pt_transport_err_str (pt, sizeof tbuf, tbuf);
    destruct_scsi_pt_obj (pt);

    switch (cat) {
    case SCSI_PT_RESULT_GOOD:
      if (dir == SG_DIR_IN && resid > 0)
        return ossd_block_why (why, whylen, -EIO, "sg", st->dev, what,
                               "short transfer (%d of %u bytes missing)",
                               resid, len);
      return 0;

    case SCSI_PT_RESULT_STATUS: {
      char sbuf[64];
      sg_get_scsi_status_str (status, sizeof sbuf, sbuf);
      /* BUSY, TASK SET FULL */
      return ossd_block_why (why, whylen,
                             (status == 0x08 || status == 0x28) ? -EBUSY
                             : -EIO, "sg", st->dev, what,
                             "SCSI status 0x%02x (%s)", status & 0xff, sbuf);
    }

    case SCSI_PT_RESULT_SENSE: {
      if (slen > (int) sizeof sense)
        slen = sizeof sense;
      int scat = sg_err_category_sense (sense, slen);
      f->scat = scat;
      if (scat == SG_LIB_CAT_RECOVERED || scat == SG_LIB_CAT_NO_SENSE
          || scat == SG_LIB_CAT_CLEAN)
        return 0;
      struct sg_scsi_sense_hdr ssh;
      char kbuf[64] = "", abuf[128] = "", cbuf[96] = "";
      if (sg_scsi_normalize_sense (sense, slen, &ssh)) {
        sg_get_sense_key_str (ssh.sense_key, sizeof kbuf, kbuf);
        sg_get_asc_ascq_str (ssh.asc, ssh.ascq, sizeof abuf, abuf);
      }
      else
        snprintf (kbuf, sizeof kbuf, "malformed sense data");
      sg_get_category_sense_str (scat, sizeof cbuf, cbuf, 0);
      const char *asc = abuf;
      if (strncmp (asc, "Additional sense: ", 18) == 0)
        asc += 18;
      ossd_block_why (why, whylen, 0, "sg", st->dev, what, "%s: %s [%s]",
                      kbuf, asc[0] ? asc : "no additional sense", cbuf);
      switch (scat) {
      case SG_LIB_CAT_UNIT_ATTENTION:
      case SG_LIB_CAT_ABORTED_COMMAND:
        ret = -EIO;
        continue;                     /* retry */
      case SG_LIB_CAT_NOT_READY:
        return -EAGAIN;
      case SG_LIB_CAT_ILLEGAL_REQ:
      case SG_LIB_CAT_ILLEGAL_REQ_WITH_INFO:
      case SG_LIB_CAT_INVALID_OP:
        return -EINVAL;
      case SG_LIB_CAT_DATA_PROTECT:
        return -EROFS;
      default:
        return -EIO;
      }
    }

    case SCSI_PT_RESULT_TRANSPORT_ERR:
      return ossd_block_why (why, whylen, -EIO, "sg", st->dev, what,
                             "transport error: %s",
                             tbuf[0] ? tbuf : "unknown");

    case SCSI_PT_RESULT_OS_ERR:
    default:
      if (os_err <= 0)
        os_err = EIO;
      f->os_err = os_err;
      return ossd_block_why (why, whylen, -os_err, "sg", st->dev, what,
                             "%s", strerror (os_err));
    }
  }
  return ret;                         /* retries exhausted; why is set */
}

/* sg_exec_timeout with the default timeout (the commands of open and
 * flush). */
static int
sg_exec (struct sg_state *st, const uint8_t *cdb, int cdb_len,
         enum sg_dir dir, void *buf, uint32_t len, const char *what,
         struct sg_fail *f, char *why, size_t whylen)
{
  return sg_exec_timeout (st, cdb, cdb_len, dir, buf, len, what,
                          SG_TIMEOUT_SECS, f, why, whylen);
}

static int
sg_read_capacity (struct sg_state *st, char *why, size_t whylen)
{
  uint8_t cdb[16], buf[32];
  struct sg_fail f;
  int r;

  ossd_sg_build_read_capacity16 (cdb, sizeof buf);
  memset (buf, 0, sizeof buf);
  r = sg_exec (st, cdb, 16, SG_DIR_IN_SHORT_OK, buf, sizeof buf,
               "READ CAPACITY(16)", &f, why, whylen);
  if (r == 0) {
    st->nblocks = get_be64 (buf) + 1;
    st->block_size = get_be32 (buf + 8);
    return 0;
  }
  if (f.os_err == ENOTTY || f.os_err == EINVAL) {
    snprintf (why, whylen, "sg: %s: not a SCSI device (SG_IO: %s)",
              st->dev, strerror (f.os_err));
    return -ENODEV;
  }
  if (!sg_unsupported (&f))
    return r;

  /* Old devices: READ CAPACITY(10). */
  uint8_t cdb10[10] = { 0x25 };
  char why16[256];
  snprintf (why16, sizeof why16, "%s", why);
  memset (buf, 0, sizeof buf);
  r = sg_exec (st, cdb10, 10, SG_DIR_IN_SHORT_OK, buf, 8,
               "READ CAPACITY(10)",
               NULL, why, whylen);
  if (r < 0)
    return r;
  if (get_be32 (buf) == 0xffffffff) {
    /* Device too big for (10) but refused (16): report the (16) error. */
    snprintf (why, whylen, "%s", why16);
    return -EINVAL;
  }
  st->nblocks = (uint64_t) get_be32 (buf) + 1;
  st->block_size = get_be32 (buf + 4);
  return 0;
}

/* Block limits VPD page: MAXIMUM TRANSFER LENGTH in blocks, 0 if none or
 * if the page is not there. */
static uint32_t
sg_vpd_max_transfer_blocks (struct sg_state *st)
{
  uint8_t cdb[6] = { 0x12, 0x01, 0xb0, 0, 64, 0 };   /* INQUIRY, EVPD */
  uint8_t buf[64];
  char why[256];

  memset (buf, 0, sizeof buf);
  if (sg_exec (st, cdb, 6, SG_DIR_IN_SHORT_OK, buf, sizeof buf,
               "INQUIRY (block limits VPD)", NULL, why, sizeof why) < 0)
    return 0;
  if (buf[1] != 0xb0 || ((uint32_t) buf[2] << 8 | buf[3]) < 12)
    return 0;
  return get_be32 (buf + 8);
}

/* The kernel's own limit for one SG_IO: BLKSECTGET gives bytes (int) on
 * an sg node and 512-byte sectors (unsigned short) on a block node.
 * 0 if unknown. */
static uint64_t
sg_kernel_max_bytes (struct sg_state *st)
{
  struct stat sb;

  if (fstat (st->fd, &sb) == -1)
    return 0;
  if (S_ISCHR (sb.st_mode)) {
    int bytes = 0;
    if (ioctl (st->fd, BLKSECTGET, &bytes) == 0 && bytes > 0)
      return (uint64_t) bytes;
  }
  else if (S_ISBLK (sb.st_mode)) {
    /* SG_IO on a block node maps the caller's pages (the sg driver
     * copies): the queue's segment limit counts too */
    char queue[96];
    unsigned short sectors = 0;
    uint64_t maxb = 0;
    if (ioctl (st->fd, BLKSECTGET, &sectors) == 0 && sectors > 0)
      maxb = (uint64_t) sectors * 512;
    snprintf (queue, sizeof queue, "/sys/dev/block/%u:%u/queue",
              major (sb.st_rdev), minor (sb.st_rdev));
    uint64_t q = ossd_block_queue_max_bytes (queue);
    if (q > 0 && (maxb == 0 || q < maxb))
      maxb = q;
    return maxb;
  }
  return 0;
}

/* ---- the encoder ---- */

/* One piece: READ(16) or WRITE(16) of cmd->nblocks device blocks. */
static int
sg_submit (void *priv, const struct ossd_block_cmd *cmd, char *why,
           size_t whylen)
{
  struct sg_state *st = priv;
  uint8_t cdb[16];

  ossd_sg_build_rw16 (cdb, cmd->is_write, cmd->lba, cmd->nblocks, false);
  /* The kernel aborts the command (SCSI error handling) after the
   * client's deadline, in whole seconds; data-out: libsgutils only reads
   * from the buffer. */
  int secs = cmd->timeout_ms
    ? (int) ((cmd->timeout_ms + 999) / 1000) : SG_TIMEOUT_SECS;
  return sg_exec_timeout (st, cdb, 16,
                          cmd->is_write ? SG_DIR_OUT : SG_DIR_IN, cmd->buf,
                          (uint32_t) cmd->nbytes, cmd->what, secs, NULL, why,
                          whylen);
}

static int
sg_flush (void *priv, char *why, size_t whylen)
{
  struct sg_state *st = priv;
  uint8_t cdb[10] = { 0x35 };         /* SYNCHRONIZE CACHE(10), all LBAs */
  struct sg_fail f;
  int r = sg_exec (st, cdb, 10, SG_DIR_NONE, NULL, 0,
                   "SYNCHRONIZE CACHE(10)", &f, why, whylen);
  /* A device without a volatile cache may not implement it (sd's view). */
  if (r < 0 && sg_unsupported (&f)) {
    if (whylen > 0)
      why[0] = '\0';
    return 0;
  }
  return r;
}

static void
sg_release (void *priv)
{
  struct sg_state *st = priv;
  if (st == NULL)
    return;
  if (st->fd >= 0)
    scsi_pt_close_device (st->fd);
  free (st);
}

static const struct ossd_block_encoder sg_encoder = {
  .scheme = "sg",
  .read_op = "READ(16)",
  .write_op = "WRITE(16)",
  .submit = sg_submit,
  .flush = sg_flush,
  .release = sg_release,
};

int
ossd_transport_open_sg (const char *dev, struct ossd_transport **out,
                        char *why, size_t whylen)
{
  struct sg_state *st = NULL;
  struct stat sb;
  int r;

  *out = NULL;
  if (whylen > 0)
    why[0] = '\0';
  r = ossd_block_check_name ("sg", "device", "sg:/dev/sgN", dev,
                             sizeof st->dev, why, whylen);
  if (r < 0)
    return r;

  st = calloc (1, sizeof *st);
  if (st == NULL) {
    snprintf (why, whylen, "sg: %s: out of memory", dev);
    return -ENOMEM;
  }
  strcpy (st->dev, dev);
  st->fd = -1;

  r = scsi_pt_open_device (dev, false, 0);
  if (r < 0) {
    snprintf (why, whylen, "sg: cannot open %s: %s", dev, strerror (-r));
    goto fail;
  }
  st->fd = r;

  r = ossd_block_need_device_node ("sg", dev, st->fd, "a SCSI device node",
                                   &sb, why, whylen);
  if (r < 0)
    goto fail;

  r = sg_read_capacity (st, why, whylen);
  if (r < 0)
    goto fail;
  if (st->block_size != 512 && st->block_size != 4096) {
    snprintf (why, whylen, "sg: %s: logical block size %" PRIu32
              " is not supported (need 512 or 4096)", dev, st->block_size);
    r = -EINVAL;
    goto fail;
  }

  /* Largest transfer: VPD block limits, else a default; never above what
   * the kernel takes in one SG_IO. */
  uint64_t maxb = SG_DEFAULT_MAX_TRANSFER;
  uint32_t vpd_blocks = sg_vpd_max_transfer_blocks (st);
  if (vpd_blocks > 0)
    maxb = (uint64_t) vpd_blocks * st->block_size;

  struct ossd_block_facts facts = {
    .dev = st->dev,
    .size_bytes = st->nblocks * st->block_size,
    .block_size = st->block_size,
    .max_transfer = ossd_block_max_transfer (maxb, sg_kernel_max_bytes (st),
                                             SG_MAX_TRANSFER_CAP),
  };
  r = ossd_block_transport_new (&sg_encoder, st, &facts, out, why, whylen);
  if (r < 0)
    goto fail;
  if (whylen > 0)
    why[0] = '\0';
  return 0;

 fail:
  sg_release (st);
  return r;
}
