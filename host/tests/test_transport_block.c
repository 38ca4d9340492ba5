/* test_transport_block.c - unit tests of the block-transport core
 * (host/libossd/transport_block.c) that file:, sg: and nvme: run on.
 *
 * A fake encoder over an in-memory device records every command the core
 * hands it (direction, buffer, bytes, offset, LBA, block count, the name
 * it is given for messages) and can fail one of them.  The tests check
 * the transport the core builds (name, size rounded down, limits), the
 * splitting of requests at the largest transfer, the bounce buffer for a
 * misaligned caller buffer (and its absence otherwise), an error in the
 * third piece reported with device, command and address and stopping the
 * request there, refused requests never reaching the encoder, a batch of
 * I/Os through ossd_transport_batch, flush and close, facts the core
 * refuses, the open-time helpers, and the request-queue limits read from
 * a sysfs directory (largest request, segments as pages).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ossd_frame.h"
#include "ossd_transport.h"
#include "transport_block.h"
#include "block_transport_checks.h"

#define LBA OSSD_LBA_SIZE
#define MAX_PIECES 64

struct piece
{
  bool is_write;
  const void *buf;
  size_t nbytes;
  uint64_t off, lba;
  uint32_t nblocks;
  char what[96];
};

struct fake_dev
{
  char dev[32];
  uint8_t *data;
  size_t size;
  uint64_t fail_off;                  /* the command at this offset fails */
  int fail_err;
  int flush_err;
  int nflush, nrelease;
  int npieces;
  struct piece pieces[MAX_PIECES];
};

static int
fake_submit (void *priv, const struct ossd_block_cmd *c, char *why,
             size_t whylen)
{
  struct fake_dev *d = priv;
  assert_true (d->npieces < MAX_PIECES);
  struct piece *p = &d->pieces[d->npieces++];
  p->is_write = c->is_write;
  p->buf = c->buf;
  p->nbytes = c->nbytes;
  p->off = c->off;
  p->lba = c->lba;
  p->nblocks = c->nblocks;
  snprintf (p->what, sizeof p->what, "%s", c->what);
  assert_true (c->off + c->nbytes <= d->size);
  if (c->off == d->fail_off)
    return ossd_block_why (why, whylen, d->fail_err, "fake", d->dev, c->what,
                           "injected failure");
  if (c->is_write)
    memcpy (d->data + c->off, c->buf, c->nbytes);
  else
    memcpy (c->buf, d->data + c->off, c->nbytes);
  return 0;
}

static int
fake_flush (void *priv, char *why, size_t whylen)
{
  struct fake_dev *d = priv;
  d->nflush++;
  if (d->flush_err)
    return ossd_block_why (why, whylen, d->flush_err, "fake", d->dev,
                           "FLUSH", "injected failure");
  return 0;
}

/* The fake outlives the transport so that the tests can look at it;
 * release only counts. */
static void
fake_release (void *priv)
{
  struct fake_dev *d = priv;
  d->nrelease++;
}

static const struct ossd_block_encoder fake_encoder = {
  .scheme = "fake",
  .read_op = "READ",
  .write_op = "WRITE",
  .submit = fake_submit,
  .flush = fake_flush,
  .release = fake_release,
};

struct fixture
{
  struct fake_dev d;
  struct ossd_transport *t;
};

/* A 64-LBA device (plus a tail that is not a whole LBA) with 512-byte
 * blocks and a largest transfer of 2 LBAs. */
static struct fixture *
fixture_new (uint32_t block_size, uint32_t max_transfer, uint32_t align)
{
  struct fixture *f = calloc (1, sizeof *f);
  char why[256];
  snprintf (f->d.dev, sizeof f->d.dev, "/dev/fake0");
  f->d.size = 64 * LBA + 100;
  f->d.data = calloc (1, f->d.size);
  f->d.fail_off = UINT64_MAX;
  struct ossd_block_facts facts = {
    .dev = f->d.dev,
    .size_bytes = f->d.size,
    .block_size = block_size,
    .max_transfer = max_transfer,
    .buf_align = align,
  };
  if (ossd_block_transport_new (&fake_encoder, &f->d, &facts, &f->t, why,
                                sizeof why) != 0)
    fail_msg ("new: %s", why);
  return f;
}

static int
setup (void **state)
{
  *state = fixture_new (512, 2 * LBA, 0);
  return 0;
}

static int
setup_aligned (void **state)
{
  *state = fixture_new (512, 2 * LBA, 4096);
  return 0;
}

static int
teardown (void **state)
{
  struct fixture *f = *state;
  int before = f->d.nrelease;
  ossd_transport_close (f->t);
  assert_int_equal (f->d.nrelease, before + 1);
  free (f->d.data);
  free (f);
  return 0;
}

static void
check_piece (const struct fake_dev *d, int i, bool is_write, uint64_t off,
             size_t nbytes, const char *what)
{
  const struct piece *p = &d->pieces[i];
  assert_int_equal (p->is_write, is_write);
  assert_int_equal (p->off, off);
  assert_int_equal (p->nbytes, nbytes);
  assert_int_equal (p->lba, off / 512);
  assert_int_equal (p->nblocks, nbytes / 512);
  assert_string_equal (p->what, what);
}

static void
test_transport_fields (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  bt_check_fields (t, "fake", 64 * LBA, 2 * LBA);
  assert_non_null (t->ops->pread);
  assert_non_null (t->ops->pwrite);
  assert_null (t->ops->batch);        /* transport.c's loop runs batches */
  assert_null (t->ops->lost);
}

static void
test_split_at_max_transfer (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  char why[256];
  size_t len = 5 * LBA;
  uint8_t *w = malloc (len), *r = malloc (len);

  /* 5 LBAs at LBA 3: pieces of 2, 2 and 1 LBAs, straight from the
   * caller's buffer (no alignment asked for). */
  bt_fill (w, len, 1);
  assert_int_equal (t->ops->pwrite (t, w, len, 3 * LBA, why, sizeof why), 0);
  assert_int_equal (f->d.npieces, 3);
  check_piece (&f->d, 0, true, 3 * LBA, 2 * LBA,
               "WRITE of 16 blocks at LBA 24");
  check_piece (&f->d, 1, true, 5 * LBA, 2 * LBA,
               "WRITE of 16 blocks at LBA 40");
  check_piece (&f->d, 2, true, 7 * LBA, LBA, "WRITE of 8 blocks at LBA 56");
  assert_ptr_equal (f->d.pieces[0].buf, w);
  assert_ptr_equal (f->d.pieces[1].buf, w + 2 * LBA);
  assert_ptr_equal (f->d.pieces[2].buf, w + 4 * LBA);
  assert_memory_equal (f->d.data + 3 * LBA, w, len);

  f->d.npieces = 0;
  memset (r, 0, len);
  assert_int_equal (t->ops->pread (t, r, len, 3 * LBA, why, sizeof why), 0);
  assert_int_equal (f->d.npieces, 3);
  check_piece (&f->d, 0, false, 3 * LBA, 2 * LBA,
               "READ of 16 blocks at LBA 24");
  check_piece (&f->d, 2, false, 7 * LBA, LBA, "READ of 8 blocks at LBA 56");
  assert_memory_equal (r, w, len);

  /* Exactly the largest transfer, and less: one piece each. */
  f->d.npieces = 0;
  assert_int_equal (t->ops->pread (t, r, 2 * LBA, 0, why, sizeof why), 0);
  assert_int_equal (t->ops->pread (t, r, LBA, 63 * LBA, why, sizeof why), 0);
  assert_int_equal (f->d.npieces, 2);
  check_piece (&f->d, 0, false, 0, 2 * LBA, "READ of 16 blocks at LBA 0");
  check_piece (&f->d, 1, false, 63 * LBA, LBA,
               "READ of 8 blocks at LBA 504");
  free (w);
  free (r);
}

static void
test_bounce_for_misaligned_buffer (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  char why[256];
  size_t len = 3 * LBA;
  uint8_t *wb = malloc (len + 1), *rb = malloc (len + 1);
  uint8_t *w = wb + 1, *r = rb + 1;  /* never 4096-aligned */

  bt_fill (w, len, 2);
  assert_int_equal (t->ops->pwrite (t, w, len, 10 * LBA, why, sizeof why),
                    0);
  assert_int_equal (f->d.npieces, 2);
  for (int i = 0; i < 2; i++) {
    const uint8_t *b = f->d.pieces[i].buf;
    assert_int_equal ((uintptr_t) b % 4096, 0);
    assert_true (b + f->d.pieces[i].nbytes <= w || b >= w + len);
  }
  check_piece (&f->d, 0, true, 10 * LBA, 2 * LBA,
               "WRITE of 16 blocks at LBA 80");
  check_piece (&f->d, 1, true, 12 * LBA, LBA, "WRITE of 8 blocks at LBA 96");
  assert_memory_equal (f->d.data + 10 * LBA, w, len);

  f->d.npieces = 0;
  memset (r, 0, len);
  assert_int_equal (t->ops->pread (t, r, len, 10 * LBA, why, sizeof why), 0);
  assert_int_equal (f->d.npieces, 2);
  assert_int_equal ((uintptr_t) f->d.pieces[0].buf % 4096, 0);
  assert_memory_equal (r, w, len);

  /* An aligned buffer goes straight to the encoder. */
  void *a = NULL;
  assert_int_equal (posix_memalign (&a, 4096, len), 0);
  f->d.npieces = 0;
  assert_int_equal (t->ops->pread (t, a, len, 10 * LBA, why, sizeof why), 0);
  assert_ptr_equal (f->d.pieces[0].buf, a);
  assert_ptr_equal (f->d.pieces[1].buf, (uint8_t *) a + 2 * LBA);
  assert_memory_equal (a, w, len);
  free (a);
  free (wb);
  free (rb);
}

static void
test_error_in_third_piece (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  char why[256];
  size_t len = 8 * LBA;               /* four pieces of 2 LBAs */
  uint8_t *w = malloc (len), *r = malloc (len);

  bt_fill (w, len, 3);
  assert_int_equal (t->ops->pwrite (t, w, len, 20 * LBA, why, sizeof why),
                    0);
  f->d.npieces = 0;
  f->d.fail_off = 24 * LBA;           /* the third piece */
  f->d.fail_err = -EIO;
  memset (r, 0, len);
  assert_int_equal (t->ops->pread (t, r, len, 20 * LBA, why, sizeof why),
                    -EIO);
  assert_string_equal (why, "fake: /dev/fake0: READ of 16 blocks at LBA 192: "
                       "injected failure");
  /* The request stops there; what came before reached the caller. */
  assert_int_equal (f->d.npieces, 3);
  assert_memory_equal (r, w, 4 * LBA);

  /* The same through the bounce buffer, on a write. */
  f->d.npieces = 0;
  f->d.fail_err = -EROFS;
  uint8_t *wb = malloc (len + 3);
  memcpy (wb + 3, w, len);
  assert_int_equal (t->ops->pwrite (t, wb + 3, len, 20 * LBA, why,
                                    sizeof why), -EROFS);
  assert_string_equal (why, "fake: /dev/fake0: WRITE of 16 blocks at LBA "
                       "192: injected failure");
  assert_int_equal (f->d.npieces, 3);
  free (wb);
  free (w);
  free (r);
}

static void
test_byte_addressed_names (void **state)
{
  /* block_size 0: commands are named in bytes at offsets. */
  struct fixture *f = fixture_new (0, 2 * LBA, 0);
  struct ossd_transport *t = f->t;
  char why[256];
  uint8_t *buf = calloc (1, 3 * LBA);

  f->d.fail_off = 6 * LBA;
  f->d.fail_err = -ENOSPC;
  assert_int_equal (t->ops->pwrite (t, buf, 3 * LBA, 4 * LBA, why,
                                    sizeof why), -ENOSPC);
  assert_int_equal (f->d.npieces, 2);
  assert_string_equal (f->d.pieces[0].what,
                       "WRITE of 8192 bytes at offset 16384");
  assert_int_equal (f->d.pieces[0].lba, 0);
  assert_int_equal (f->d.pieces[0].nblocks, 0);
  assert_string_equal (why, "fake: /dev/fake0: WRITE of 4096 bytes at offset "
                       "24576: injected failure");
  void *s = f;
  teardown (&s);
  free (buf);
}

static void
test_refused_never_reach_encoder (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  char why[256], buf[LBA];

  bt_check_refused (t, "/dev/fake0", 64);
  assert_int_equal (t->ops->pwrite (t, buf, 100, 0, why, sizeof why),
                    -EINVAL);
  assert_string_equal (why, "fake: /dev/fake0: WRITE of 100 bytes at offset "
                       "0 is not aligned to the 4096-byte LBA size");
  assert_int_equal (t->ops->pread (t, buf, LBA, 64 * LBA, why, sizeof why),
                    -EINVAL);
  assert_string_equal (why, "fake: /dev/fake0: READ of 4096 bytes at offset "
                       "262144 is beyond the end of the device (262144 "
                       "bytes)");
  assert_int_equal (f->d.npieces, 0);
}

static void
test_batch (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  char why[256];
  uint8_t *a = malloc (3 * LBA), *b = malloc (LBA), *c = malloc (LBA);
  uint8_t *ra = calloc (1, 3 * LBA);

  bt_fill (a, 3 * LBA, 4);
  bt_fill (b, LBA, 5);
  struct ossd_io ios[] = {
    { .buf = a, .len = 3 * LBA, .off = 0, .write = true },
    { .buf = b, .len = LBA, .off = 30 * LBA, .write = true },
    { .buf = c, .len = LBA, .off = 40 * LBA, .write = false },  /* fails */
    { .buf = ra, .len = 3 * LBA, .off = 0, .write = false },
  };
  f->d.fail_off = 40 * LBA;
  f->d.fail_err = -EIO;
  assert_int_equal (ossd_transport_batch (t, ios, 4, why, sizeof why), -EIO);
  assert_int_equal (ios[0].result, 0);
  assert_int_equal (ios[1].result, 0);
  assert_int_equal (ios[2].result, -EIO);
  assert_int_equal (ios[3].result, 0);
  assert_string_equal (why, "fake: /dev/fake0: READ of 8 blocks at LBA 320: "
                       "injected failure");
  /* 2 + 1 + 1 + 2 pieces, in the batch's order. */
  assert_int_equal (f->d.npieces, 6);
  check_piece (&f->d, 0, true, 0, 2 * LBA, "WRITE of 16 blocks at LBA 0");
  check_piece (&f->d, 1, true, 2 * LBA, LBA, "WRITE of 8 blocks at LBA 16");
  check_piece (&f->d, 2, true, 30 * LBA, LBA,
               "WRITE of 8 blocks at LBA 240");
  check_piece (&f->d, 3, false, 40 * LBA, LBA,
               "READ of 8 blocks at LBA 320");
  check_piece (&f->d, 5, false, 2 * LBA, LBA, "READ of 8 blocks at LBA 16");
  assert_memory_equal (ra, a, 3 * LBA);
  assert_memory_equal (f->d.data + 30 * LBA, b, LBA);
  free (a);
  free (b);
  free (c);
  free (ra);
}

static void
test_flush (void **state)
{
  struct fixture *f = *state;
  struct ossd_transport *t = f->t;
  char why[256];

  assert_int_equal (t->ops->flush (t, why, sizeof why), 0);
  assert_int_equal (f->d.nflush, 1);
  f->d.flush_err = -EIO;
  assert_int_equal (t->ops->flush (t, why, sizeof why), -EIO);
  assert_string_equal (why, "fake: /dev/fake0: FLUSH: injected failure");
  assert_int_equal (f->d.nflush, 2);
  assert_int_equal (f->d.npieces, 0);
  assert_int_equal (f->d.nrelease, 0);
}

static void
test_bad_facts (void **state)
{
  struct fake_dev d = { .dev = "/dev/fake1" };
  struct ossd_transport *t = (void *) 1;
  char why[256];
  struct ossd_block_facts bad[] = {
    { .dev = d.dev, .size_bytes = LBA, .max_transfer = 0 },
    { .dev = d.dev, .size_bytes = LBA, .max_transfer = LBA + 512 },
    { .dev = d.dev, .size_bytes = LBA, .max_transfer = LBA,
      .block_size = 520 },
    { .dev = d.dev, .size_bytes = LBA, .max_transfer = LBA,
      .buf_align = 3000 },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal (ossd_block_transport_new (&fake_encoder, &d, &bad[i],
                                                &t, why, sizeof why),
                      -EINVAL);
    assert_null (t);
    assert_non_null (strstr (why, "fake: /dev/fake1: unusable device facts"));
  }
  assert_int_equal (d.nrelease, 0);   /* the caller still owns priv */
}

static void
test_max_transfer (void **state)
{
  /* The device's figure, under the kernel's and the cap. */
  assert_int_equal (ossd_block_max_transfer (128 * 1024, 0, 32 << 20),
                    128 * 1024);
  assert_int_equal (ossd_block_max_transfer (1 << 20, 256 * 1024, 32 << 20),
                    256 * 1024);
  assert_int_equal (ossd_block_max_transfer (256 * 1024, 1 << 20, 32 << 20),
                    256 * 1024);
  assert_int_equal (ossd_block_max_transfer (64ull << 20, 0, 32 << 20),
                    32 << 20);
  /* Whole LBAs, at least one. */
  assert_int_equal (ossd_block_max_transfer (10000, 0, 32 << 20), 8192);
  assert_int_equal (ossd_block_max_transfer (512, 0, 32 << 20), LBA);
  assert_int_equal (ossd_block_max_transfer (1 << 20, 1000, 32 << 20), LBA);
  assert_int_equal (ossd_block_max_transfer (UINT64_MAX, 0, UINT64_MAX),
                    UINT32_MAX - UINT32_MAX % LBA);
}

static void
test_open_helpers (void **state)
{
  char why[256];
  struct stat sb;

  assert_int_equal (ossd_block_check_name ("sg", "device", "sg:/dev/sgN",
                                           "/dev/sg0", 16, why, sizeof why),
                    0);
  assert_int_equal (ossd_block_check_name ("sg", "device", "sg:/dev/sgN",
                                           "", 16, why, sizeof why),
                    -EINVAL);
  assert_string_equal (why, "sg: no device given (want sg:/dev/sgN)");
  assert_int_equal (ossd_block_check_name ("file", "path", "file:PATH",
                                           NULL, 16, why, sizeof why),
                    -EINVAL);
  assert_string_equal (why, "file: no path given (want file:PATH)");
  assert_int_equal (ossd_block_check_name ("file", "path", "file:PATH",
                                           "/0123456789abcde", 16, why,
                                           sizeof why), -ENAMETOOLONG);
  assert_string_equal (why, "file: path too long (16 bytes, at most 15)");

  int fd = open ("/dev/null", O_RDWR | O_CLOEXEC);
  assert_true (fd >= 0);
  assert_int_equal (ossd_block_need_device_node ("nvme", "/dev/null", fd,
                                                 "an NVMe namespace node",
                                                 &sb, why, sizeof why), 0);
  assert_true (S_ISCHR (sb.st_mode));
  close (fd);
  char path[] = "/tmp/ossd-block-test-XXXXXX";
  fd = mkstemp (path);
  assert_true (fd >= 0);
  assert_int_equal (ossd_block_need_device_node ("sg", path, fd,
                                                 "a SCSI device node", &sb,
                                                 why, sizeof why), -ENODEV);
  char want[128];
  snprintf (want, sizeof want, "sg: %s: not a SCSI device node (a regular "
            "file); use file: for images", path);
  assert_string_equal (why, want);
  close (fd);
  unlink (path);
  fd = open ("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_int_equal (ossd_block_need_device_node ("sg", "/tmp", fd,
                                                 "a SCSI device node", &sb,
                                                 why, sizeof why), -ENODEV);
  assert_non_null (strstr (why, "(not a device)"));
  close (fd);
  assert_int_equal (ossd_block_need_device_node ("sg", "/x", -1,
                                                 "a SCSI device node", &sb,
                                                 why, sizeof why), -EBADF);
  assert_string_equal (why, "sg: /x: fstat: Bad file descriptor");
}

static void
put_file (const char *dir, const char *name, const char *text)
{
  char path[256];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen (path, "w");
  assert_non_null (f);
  fputs (text, f);
  fclose (f);
}

static void
test_queue_limits (void **state)
{
  /* A request queue in sysfs, as virtio-scsi's looks in the VM suite's
   * guest: 32764 KiB per request but 126 segments, so 126 pages. */
  char dir[] = "/tmp/ossd-queue-test-XXXXXX";
  long page = sysconf (_SC_PAGESIZE);
  assert_non_null (mkdtemp (dir));
  assert_int_equal (ossd_block_queue_max_bytes (dir), 0);   /* neither */
  put_file (dir, "max_hw_sectors_kb", "32764\n");
  assert_int_equal (ossd_block_queue_max_bytes (dir), 32764ull * 1024);
  put_file (dir, "max_segments", "126\n");
  assert_int_equal (ossd_block_queue_max_bytes (dir), 126ull * page);
  /* the request limit when it is the smaller (NVMe: 512 KiB, 127) */
  put_file (dir, "max_hw_sectors_kb", "256\n");
  assert_int_equal (ossd_block_queue_max_bytes (dir), 256 * 1024);
  put_file (dir, "max_hw_sectors_kb", "junk\n");
  assert_int_equal (ossd_block_queue_max_bytes (dir), 126ull * page);
  char path[300];
  snprintf (path, sizeof path, "%s/max_hw_sectors_kb", dir);
  unlink (path);
  snprintf (path, sizeof path, "%s/max_segments", dir);
  unlink (path);
  rmdir (dir);
  assert_int_equal (ossd_block_queue_max_bytes ("/nonexistent/queue"), 0);
}

static void
test_why_format (void **state)
{
  char why[256], small[12];

  assert_int_equal (ossd_block_why (why, sizeof why, -EIO, "sg", "/dev/sg0",
                                    "READ(16) of 8 blocks at LBA 40",
                                    "Medium Error: %s [%d]", "x", 3), -EIO);
  assert_string_equal (why, "sg: /dev/sg0: READ(16) of 8 blocks at LBA 40: "
                       "Medium Error: x [3]");
  /* Tiny buffers are respected, and a zero-length one is not touched. */
  assert_int_equal (ossd_block_why (small, sizeof small, -EIO, "nvme",
                                    "/dev/nvme0n1", "Flush", "%s", "fault"),
                    -EIO);
  assert_string_equal (small, "nvme: /dev/");
  why[0] = 'z';
  assert_int_equal (ossd_block_why (why, 0, -EINVAL, "a", "b", "c", "d"),
                    -EINVAL);
  assert_int_equal (why[0], 'z');
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_transport_fields, setup, teardown),
    cmocka_unit_test_setup_teardown (test_split_at_max_transfer, setup,
                                     teardown),
    cmocka_unit_test_setup_teardown (test_bounce_for_misaligned_buffer,
                                     setup_aligned, teardown),
    cmocka_unit_test_setup_teardown (test_error_in_third_piece,
                                     setup_aligned, teardown),
    cmocka_unit_test (test_byte_addressed_names),
    cmocka_unit_test (test_queue_limits),
    cmocka_unit_test_setup_teardown (test_refused_never_reach_encoder, setup,
                                     teardown),
    cmocka_unit_test_setup_teardown (test_batch, setup, teardown),
    cmocka_unit_test_setup_teardown (test_flush, setup, teardown),
    cmocka_unit_test (test_bad_facts),
    cmocka_unit_test (test_max_transfer),
    cmocka_unit_test (test_open_helpers),
    cmocka_unit_test (test_why_format),
  };
  return cmocka_run_group_tests_name ("transport_block", tests, NULL, NULL);
}
