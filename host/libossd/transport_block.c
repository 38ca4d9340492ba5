/* transport_block.c - the block-transport core under file:, sg: and nvme:.
 *
 * Owns the request loop (check, split at the largest transfer, bounce,
 * name each command, hand it to the encoder), flush, close, and the
 * open-time helpers the three transports share.  See transport_block.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ossd_frame.h"
#include "transport_block.h"

struct block_transport
{
  struct ossd_transport_ops ops;      /* the core's, named by the encoder */
  const struct ossd_block_encoder *enc;
  void *priv;                         /* the encoder's */
  struct ossd_block_facts facts;
};

int
ossd_block_why (char *why, size_t whylen, int err, const char *scheme,
                const char *dev, const char *what, const char *fmt, ...)
{
  va_list ap;
  int n = snprintf (why, whylen, "%s: %s: %s: ", scheme, dev, what);

  if (n >= 0 && (size_t) n < whylen) {
    va_start (ap, fmt);
    vsnprintf (why + n, whylen - (size_t) n, fmt, ap);
    va_end (ap);
  }
  return err;
}

/* Name one command: "<op> of N blocks at LBA L", or in bytes for a
 * byte-addressed device. */
static void
block_what (const struct ossd_block_facts *f, const char *op,
            const struct ossd_block_cmd *c, char *what, size_t len)
{
  if (f->block_size > 0)
    snprintf (what, len, "%s of %" PRIu32 " blocks at LBA %" PRIu64,
              op, c->nblocks, c->lba);
  else
    snprintf (what, len, "%s of %zu bytes at offset %" PRIu64,
              op, c->nbytes, c->off);
}

static int
block_rw (struct ossd_transport *t, bool is_write, void *buf, size_t len,
          uint64_t off, char *why, size_t whylen)
{
  struct block_transport *b = t->priv;
  const struct ossd_block_facts *f = &b->facts;
  const char *op = is_write ? b->enc->write_op : b->enc->read_op;
  int r = ossd_transport_check_io (t, f->dev, op, len, off, why, whylen);
  if (r < 0)
    return r;

  size_t piece = len < f->max_transfer ? len : f->max_transfer;
  void *bounce = NULL;
  if (f->buf_align > 1 && (uintptr_t) buf % f->buf_align != 0) {
    size_t align = f->buf_align < sizeof (void *) ? sizeof (void *)
      : f->buf_align;
    int e = posix_memalign (&bounce, align, piece);
    if (e != 0) {
      snprintf (why, whylen, "%s: %s: cannot allocate a %zu-byte bounce "
                "buffer: %s", b->enc->scheme, f->dev, piece, strerror (e));
      return -e;
    }
  }

  char *p = buf;
  size_t n;
  for (size_t done = 0; done < len; done += n) {
    char what[96];
    n = len - done < piece ? len - done : piece;
    struct ossd_block_cmd c = {
      .is_write = is_write,
      .buf = bounce ? bounce : p + done,
      .nbytes = n,
      .off = off + done,
      .lba = f->block_size ? (off + done) / f->block_size : 0,
      .nblocks = f->block_size ? (uint32_t) (n / f->block_size) : 0,
      .what = what,
      .timeout_ms = t->wait.timeout_ms,
    };
    block_what (f, op, &c, what, sizeof what);
    if (bounce && is_write)
      memcpy (bounce, p + done, n);
    r = b->enc->submit (b->priv, &c, why, whylen);
    if (r < 0)
      break;
    if (bounce && !is_write)
      memcpy (p + done, bounce, n);
  }
  free (bounce);
  return r;
}

static int
block_pread (struct ossd_transport *t, void *buf, size_t len, uint64_t off,
             char *why, size_t whylen)
{
  return block_rw (t, false, buf, len, off, why, whylen);
}

static int
block_pwrite (struct ossd_transport *t, const void *buf, size_t len,
              uint64_t off, char *why, size_t whylen)
{
  /* block_rw only reads from buf when is_write is set; the encoders'
   * write commands only read from theirs. */
  return block_rw (t, true, (void *) buf, len, off, why, whylen);
}

static int
block_flush (struct ossd_transport *t, char *why, size_t whylen)
{
  struct block_transport *b = t->priv;
  return b->enc->flush (b->priv, why, whylen);
}

static void
block_close (struct ossd_transport *t)
{
  if (t == NULL)
    return;
  struct block_transport *b = t->priv;
  if (b) {
    b->enc->release (b->priv);
    free (b);
  }
  free (t);
}

int
ossd_block_transport_new (const struct ossd_block_encoder *enc, void *priv,
                          const struct ossd_block_facts *facts,
                          struct ossd_transport **out, char *why,
                          size_t whylen)
{
  *out = NULL;
  if (facts->max_transfer < OSSD_LBA_SIZE
      || facts->max_transfer % OSSD_LBA_SIZE != 0
      || (facts->block_size > 0 && OSSD_LBA_SIZE % facts->block_size != 0)
      || (facts->buf_align > 1
          && (facts->buf_align & (facts->buf_align - 1)) != 0)) {
    snprintf (why, whylen, "%s: %s: unusable device facts (largest "
              "transfer %" PRIu32 ", block size %" PRIu32 ", alignment %"
              PRIu32 ")", enc->scheme, facts->dev, facts->max_transfer,
              facts->block_size, facts->buf_align);
    return -EINVAL;
  }
  struct ossd_transport *t = calloc (1, sizeof *t);
  struct block_transport *b = calloc (1, sizeof *b);
  if (t == NULL || b == NULL) {
    free (t);
    free (b);
    snprintf (why, whylen, "%s: %s: out of memory", enc->scheme, facts->dev);
    return -ENOMEM;
  }
  b->ops = (struct ossd_transport_ops) {
    .name = enc->scheme,
    .pread = block_pread,
    .pwrite = block_pwrite,
    .flush = block_flush,
    .close = block_close,
  };
  b->enc = enc;
  b->priv = priv;
  b->facts = *facts;
  t->ops = &b->ops;
  t->size_bytes = facts->size_bytes - facts->size_bytes % OSSD_LBA_SIZE;
  t->max_transfer = facts->max_transfer;
  t->knows_connections = false;
  t->priv = b;
  *out = t;
  return 0;
}

int
ossd_block_check_name (const char *scheme, const char *noun,
                       const char *usage, const char *name, size_t max,
                       char *why, size_t whylen)
{
  if (name == NULL || name[0] == '\0') {
    snprintf (why, whylen, "%s: no %s given (want %s)", scheme, noun, usage);
    return -EINVAL;
  }
  size_t len = strlen (name);
  if (len >= max) {
    snprintf (why, whylen, "%s: %s too long (%zu bytes, at most %zu)",
              scheme, noun, len, max - 1);
    return -ENAMETOOLONG;
  }
  return 0;
}

int
ossd_block_need_device_node (const char *scheme, const char *dev, int fd,
                             const char *kind, struct stat *sb, char *why,
                             size_t whylen)
{
  if (fstat (fd, sb) == -1) {
    int e = errno;
    snprintf (why, whylen, "%s: %s: fstat: %s", scheme, dev, strerror (e));
    return -e;
  }
  if (!S_ISCHR (sb->st_mode) && !S_ISBLK (sb->st_mode)) {
    snprintf (why, whylen, "%s: %s: not %s (%s); use file: for images",
              scheme, dev, kind,
              S_ISREG (sb->st_mode) ? "a regular file" : "not a device");
    return -ENODEV;
  }
  return 0;
}

/* One unsigned number from a sysfs file; false if absent or not one. */
static bool
read_sysfs_u64 (const char *dir, const char *name, uint64_t *v)
{
  char path[PATH_MAX];
  unsigned long long x;
  bool ok;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen (path, "re");
  if (fp == NULL)
    return false;
  ok = fscanf (fp, "%llu", &x) == 1;
  fclose (fp);
  if (ok)
    *v = x;
  return ok;
}

uint64_t
ossd_block_queue_max_bytes (const char *queue)
{
  uint64_t kb = 0, segs = 0, best = 0;
  long page = sysconf (_SC_PAGESIZE);

  if (read_sysfs_u64 (queue, "max_hw_sectors_kb", &kb) && kb > 0)
    best = kb * 1024;
  if (read_sysfs_u64 (queue, "max_segments", &segs) && segs > 0
      && page > 0 && (best == 0 || segs * (uint64_t) page < best))
    best = segs * (uint64_t) page;
  return best;
}

uint32_t
ossd_block_max_transfer (uint64_t want, uint64_t kernel_max, uint64_t cap)
{
  uint64_t maxb = want;

  if (kernel_max > 0 && kernel_max < maxb)
    maxb = kernel_max;
  if (maxb > cap)
    maxb = cap;
  if (maxb > UINT32_MAX)
    maxb = UINT32_MAX;
  maxb -= maxb % OSSD_LBA_SIZE;
  if (maxb < OSSD_LBA_SIZE)
    maxb = OSSD_LBA_SIZE;
  return (uint32_t) maxb;
}
