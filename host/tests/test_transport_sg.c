/* test_transport_sg.c - unit tests of the sg: (SCSI) transport.
 *
 * 1. The exact CDB bytes of READ(16)/WRITE(16) and READ CAPACITY(16).
 * 2. Opening a missing device, a regular file, and a char device that is
 *    not SCSI, through the real libsgutils2.
 * 3. The transport end to end against an in-memory SCSI disk: the
 *    libsgutils2 pass-through calls are wrapped at link time
 *    (-Wl,--wrap=..., see SG_WRAPS below) so that, while a fake disk is
 *    armed, every CDB the transport sends is answered here (READ
 *    CAPACITY(16)/(10), INQUIRY block limits VPD, READ(16), WRITE(16),
 *    SYNCHRONIZE CACHE(10)) and sense data can be injected.  When no fake
 *    is armed the wrappers call the real library.
 * 4. A scsi_debug disk, if the machine has one loaded (found through
 *    sysfs: vendor "Linux", model "scsi_debug"); otherwise the test prints
 *    "# SKIP reason" and passes.  No other SCSI device is ever written.
 *
 * The checks every block transport passes alike (round trip, refused
 * requests, open errors) come from block_transport_checks.h.
 *
 * Link with:
 *   -lsgutils2 -lcmocka $(foreach f,SG_WRAPS,-Wl,--wrap=$f)
 * SG_WRAPS = scsi_pt_open_device scsi_pt_close_device
 *   construct_scsi_pt_obj_with_fd destruct_scsi_pt_obj set_scsi_pt_cdb
 *   set_scsi_pt_sense set_scsi_pt_data_in set_scsi_pt_data_out do_scsi_pt
 *   get_scsi_pt_result_category get_scsi_pt_resid get_scsi_pt_sense_len
 *   get_scsi_pt_status_response get_scsi_pt_os_err
 *   get_scsi_pt_transport_err_str
 */
#include <dirent.h>
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

#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

#include "ossd_frame.h"
#include "ossd_transport.h"
#include "block_transport_checks.h"

#define LBA OSSD_LBA_SIZE

/* ---- 1. CDB bytes ---- */

static void
test_rw16_cdb (void **state)
{
  uint8_t cdb[16];

  ossd_sg_build_rw16 (cdb, false, 0, 8, false);
  const uint8_t r0[16] = { 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                           0, 0, 0, 8, 0, 0 };
  assert_memory_equal (cdb, r0, 16);

  ossd_sg_build_rw16 (cdb, true, 0x123456789abcdef0ull, 0x01020304, true);
  const uint8_t w1[16] = { 0x8a, 0x08, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
                           0xde, 0xf0, 0x01, 0x02, 0x03, 0x04, 0, 0 };
  assert_memory_equal (cdb, w1, 16);

  /* LBA just above 2^32, and 2^32 - 1. */
  ossd_sg_build_rw16 (cdb, false, 0x100000000ull + 5, 1, false);
  const uint8_t r2[16] = { 0x88, 0, 0, 0, 0, 1, 0, 0, 0, 5,
                           0, 0, 0, 1, 0, 0 };
  assert_memory_equal (cdb, r2, 16);
  ossd_sg_build_rw16 (cdb, true, 0xffffffffull, 0x100, false);
  const uint8_t w3[16] = { 0x8a, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
                           0, 0, 0x01, 0, 0, 0 };
  assert_memory_equal (cdb, w3, 16);

  /* FUA on a READ, the largest LBA and transfer length. */
  ossd_sg_build_rw16 (cdb, false, UINT64_MAX, UINT32_MAX, true);
  const uint8_t r4[16] = { 0x88, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0 };
  assert_memory_equal (cdb, r4, 16);

  /* 4096-byte LBA 3 on a 512-byte device: LBA 24, 8 blocks. */
  ossd_sg_build_rw16 (cdb, true, 3 * 8, 8, false);
  const uint8_t w5[16] = { 0x8a, 0, 0, 0, 0, 0, 0, 0, 0, 24,
                           0, 0, 0, 8, 0, 0 };
  assert_memory_equal (cdb, w5, 16);

  /* Stale bytes are cleared. */
  memset (cdb, 0xee, sizeof cdb);
  ossd_sg_build_rw16 (cdb, false, 1, 1, false);
  assert_int_equal (cdb[14], 0);
  assert_int_equal (cdb[15], 0);
  assert_int_equal (cdb[1], 0);
}

static void
test_read_capacity16_cdb (void **state)
{
  uint8_t cdb[16];

  memset (cdb, 0xee, sizeof cdb);
  ossd_sg_build_read_capacity16 (cdb, 32);
  const uint8_t rc[16] = { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0,
                           0, 0, 0, 32, 0, 0 };
  assert_memory_equal (cdb, rc, 16);
  ossd_sg_build_read_capacity16 (cdb, 0x01020304);
  const uint8_t rc2[16] = { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0,
                            1, 2, 3, 4, 0, 0 };
  assert_memory_equal (cdb, rc2, 16);
}

/* ---- the fake disk behind the wrapped pass-through ---- */

struct fake_disk
{
  const char *path;                   /* what the test opens */
  int fd;                             /* /dev/null stands in for it */
  uint32_t bs;                        /* logical block size */
  uint64_t nblocks;
  uint8_t *data;
  uint32_t vpd_max_blocks;            /* block limits MAXIMUM TRANSFER */
  bool no_rc16, no_vpd, no_sync;
  bool vpd_short;                     /* 20-byte block limits page */
  int unit_attentions;                /* pending UAs to report */
  uint64_t medium_error_lba;          /* READ covering it fails */
  bool write_protected;
  bool busy;                          /* SCSI status BUSY */
  int os_error;                       /* SG_IO fails with this errno */
  bool timeout;
  bool short_read;                    /* READ moves 512 bytes too few */
  /* log */
  int ncmds, nsync, nrw;
  uint8_t last_cdb[16];
  uint32_t max_nb_seen;
};

/* The armed fake (test-only global; the library keeps none). */
static struct fake_disk *fk;

struct sg_pt_base
{
  int fd;
  uint8_t cdb[16];
  int cdb_len;
  uint8_t *sense;
  int sense_max;
  uint8_t *din;
  int din_len;
  const uint8_t *dout;
  int dout_len;
  int cat, status, sense_len, resid, os_err;
};

/* Real entry points, for when no fake is armed. */
int __real_scsi_pt_open_device (const char *, bool, int);
int __real_scsi_pt_close_device (int);
struct sg_pt_base *__real_construct_scsi_pt_obj_with_fd (int, int);
void __real_destruct_scsi_pt_obj (struct sg_pt_base *);
void __real_set_scsi_pt_cdb (struct sg_pt_base *, const uint8_t *, int);
void __real_set_scsi_pt_sense (struct sg_pt_base *, uint8_t *, int);
void __real_set_scsi_pt_data_in (struct sg_pt_base *, uint8_t *, int);
void __real_set_scsi_pt_data_out (struct sg_pt_base *, const uint8_t *,
                                  int);
int __real_do_scsi_pt (struct sg_pt_base *, int, int, int);
int __real_get_scsi_pt_result_category (const struct sg_pt_base *);
int __real_get_scsi_pt_resid (const struct sg_pt_base *);
int __real_get_scsi_pt_sense_len (const struct sg_pt_base *);
int __real_get_scsi_pt_status_response (const struct sg_pt_base *);
int __real_get_scsi_pt_os_err (const struct sg_pt_base *);
char *__real_get_scsi_pt_transport_err_str (const struct sg_pt_base *, int,
                                            char *);

int __wrap_scsi_pt_open_device (const char *, bool, int);
int __wrap_scsi_pt_close_device (int);
struct sg_pt_base *__wrap_construct_scsi_pt_obj_with_fd (int, int);
void __wrap_destruct_scsi_pt_obj (struct sg_pt_base *);
void __wrap_set_scsi_pt_cdb (struct sg_pt_base *, const uint8_t *, int);
void __wrap_set_scsi_pt_sense (struct sg_pt_base *, uint8_t *, int);
void __wrap_set_scsi_pt_data_in (struct sg_pt_base *, uint8_t *, int);
void __wrap_set_scsi_pt_data_out (struct sg_pt_base *, const uint8_t *,
                                  int);
int __wrap_do_scsi_pt (struct sg_pt_base *, int, int, int);
int __wrap_get_scsi_pt_result_category (const struct sg_pt_base *);
int __wrap_get_scsi_pt_resid (const struct sg_pt_base *);
int __wrap_get_scsi_pt_sense_len (const struct sg_pt_base *);
int __wrap_get_scsi_pt_status_response (const struct sg_pt_base *);
int __wrap_get_scsi_pt_os_err (const struct sg_pt_base *);
char *__wrap_get_scsi_pt_transport_err_str (const struct sg_pt_base *, int,
                                            char *);

int
__wrap_scsi_pt_open_device (const char *name, bool ro, int verbose)
{
  if (fk && strcmp (name, fk->path) == 0) {
    fk->fd = open ("/dev/null", O_RDWR | O_CLOEXEC);
    return fk->fd >= 0 ? fk->fd : -errno;
  }
  return __real_scsi_pt_open_device (name, ro, verbose);
}

int
__wrap_scsi_pt_close_device (int fd)
{
  if (fk && fd == fk->fd) {
    fk->fd = -1;
    return close (fd) == 0 ? 0 : -errno;
  }
  return __real_scsi_pt_close_device (fd);
}

struct sg_pt_base *
__wrap_construct_scsi_pt_obj_with_fd (int fd, int verbose)
{
  if (!fk)
    return __real_construct_scsi_pt_obj_with_fd (fd, verbose);
  struct sg_pt_base *p = calloc (1, sizeof *p);
  p->fd = fd;
  return p;
}

void
__wrap_destruct_scsi_pt_obj (struct sg_pt_base *p)
{
  if (!fk)
    __real_destruct_scsi_pt_obj (p);
  else
    free (p);
}

void
__wrap_set_scsi_pt_cdb (struct sg_pt_base *p, const uint8_t *cdb, int len)
{
  if (!fk) {
    __real_set_scsi_pt_cdb (p, cdb, len);
    return;
  }
  assert_true (len > 0 && len <= 16);
  memcpy (p->cdb, cdb, len);
  p->cdb_len = len;
}

void
__wrap_set_scsi_pt_sense (struct sg_pt_base *p, uint8_t *s, int len)
{
  if (!fk) {
    __real_set_scsi_pt_sense (p, s, len);
    return;
  }
  p->sense = s;
  p->sense_max = len;
}

void
__wrap_set_scsi_pt_data_in (struct sg_pt_base *p, uint8_t *d, int len)
{
  if (!fk) {
    __real_set_scsi_pt_data_in (p, d, len);
    return;
  }
  p->din = d;
  p->din_len = len;
}

void
__wrap_set_scsi_pt_data_out (struct sg_pt_base *p, const uint8_t *d, int len)
{
  if (!fk) {
    __real_set_scsi_pt_data_out (p, d, len);
    return;
  }
  p->dout = d;
  p->dout_len = len;
}

static uint64_t
be (const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

static void
put_be (uint8_t *p, int n, uint64_t v)
{
  for (int i = n - 1; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t) v;
}

static void
check_condition (struct sg_pt_base *p, int key, int asc, int ascq)
{
  uint8_t s[18] = { 0x70, 0, (uint8_t) key, 0, 0, 0, 0, 10, 0, 0, 0, 0,
                    (uint8_t) asc, (uint8_t) ascq, 0, 0, 0, 0 };
  int n = p->sense_max < 18 ? p->sense_max : 18;
  memcpy (p->sense, s, n);
  p->sense_len = n;
  p->status = 0x02;
  p->cat = SCSI_PT_RESULT_SENSE;
}

int
__wrap_do_scsi_pt (struct sg_pt_base *p, int fd, int tmo, int verbose)
{
  if (!fk)
    return __real_do_scsi_pt (p, fd, tmo, verbose);
  assert_int_equal (p->fd, fk->fd);
  assert_true (tmo > 0);
  fk->ncmds++;
  memcpy (fk->last_cdb, p->cdb, 16);
  p->cat = SCSI_PT_RESULT_GOOD;
  if (fk->os_error)
    return -fk->os_error;
  if (fk->timeout)
    return SCSI_PT_DO_TIMEOUT;

  const uint8_t *c = p->cdb;
  switch (c[0]) {
  case 0x9e:                          /* READ CAPACITY(16) */
    assert_int_equal (p->cdb_len, 16);
    assert_int_equal (c[1], 0x10);
    if (fk->no_rc16) {
      check_condition (p, 0x05, 0x20, 0x00);  /* invalid opcode */
      return 0;
    }
    assert_true (p->din_len >= 32);
    assert_int_equal (be (c + 10, 4), (uint64_t) p->din_len);
    memset (p->din, 0, p->din_len);
    put_be (p->din, 8, fk->nblocks - 1);
    put_be (p->din + 8, 4, fk->bs);
    return 0;
  case 0x25:                          /* READ CAPACITY(10) */
    assert_int_equal (p->cdb_len, 10);
    put_be (p->din, 4, fk->nblocks - 1 > 0xffffffff ? 0xffffffff
            : fk->nblocks - 1);
    put_be (p->din + 4, 4, fk->bs);
    return 0;
  case 0x12:                          /* INQUIRY */
    assert_int_equal (p->cdb_len, 6);
    if (fk->no_vpd || c[1] != 0x01 || c[2] != 0xb0) {
      check_condition (p, 0x05, 0x24, 0x00);  /* invalid field in CDB */
      return 0;
    }
    memset (p->din, 0, p->din_len);
    p->din[1] = 0xb0;
    p->din[3] = fk->vpd_short ? 0x10 : 0x3c;
    put_be (p->din + 8, 4, fk->vpd_max_blocks);
    p->resid = p->din_len - (p->din[3] + 4);
    return 0;
  case 0x35:                          /* SYNCHRONIZE CACHE(10) */
    assert_int_equal (p->cdb_len, 10);
    if (fk->no_sync) {
      check_condition (p, 0x05, 0x20, 0x00);
      return 0;
    }
    fk->nsync++;
    return 0;
  case 0x88:                          /* READ(16) */
  case 0x8a: {                        /* WRITE(16) */
    bool w = c[0] == 0x8a;
    uint64_t lba = be (c + 2, 8);
    uint32_t nb = (uint32_t) be (c + 10, 4);
    assert_int_equal (p->cdb_len, 16);
    assert_int_equal ((uint64_t) nb * fk->bs,
                      (uint64_t) (w ? p->dout_len : p->din_len));
    fk->nrw++;
    if (nb > fk->max_nb_seen)
      fk->max_nb_seen = nb;
    if (fk->unit_attentions > 0) {
      fk->unit_attentions--;
      check_condition (p, 0x06, 0x29, 0x00);  /* power on or reset */
      return 0;
    }
    if (fk->busy) {
      p->status = 0x08;
      p->cat = SCSI_PT_RESULT_STATUS;
      return 0;
    }
    if (lba + nb > fk->nblocks) {
      check_condition (p, 0x05, 0x21, 0x00);  /* LBA out of range */
      return 0;
    }
    if (w && fk->write_protected) {
      check_condition (p, 0x07, 0x27, 0x00);
      return 0;
    }
    if (!w && fk->medium_error_lba >= lba
        && fk->medium_error_lba < lba + nb) {
      check_condition (p, 0x03, 0x11, 0x00);  /* unrecovered read error */
      return 0;
    }
    if (w)
      memcpy (fk->data + lba * fk->bs, p->dout, (size_t) nb * fk->bs);
    else
      memcpy (p->din, fk->data + lba * fk->bs, (size_t) nb * fk->bs);
    if (!w && fk->short_read)
      p->resid = 512;
    return 0;
  }
  default:
    check_condition (p, 0x05, 0x20, 0x00);
    return 0;
  }
}

int
__wrap_get_scsi_pt_result_category (const struct sg_pt_base *p)
{
  return fk ? p->cat : __real_get_scsi_pt_result_category (p);
}

int
__wrap_get_scsi_pt_resid (const struct sg_pt_base *p)
{
  return fk ? p->resid : __real_get_scsi_pt_resid (p);
}

int
__wrap_get_scsi_pt_sense_len (const struct sg_pt_base *p)
{
  return fk ? p->sense_len : __real_get_scsi_pt_sense_len (p);
}

int
__wrap_get_scsi_pt_status_response (const struct sg_pt_base *p)
{
  return fk ? p->status : __real_get_scsi_pt_status_response (p);
}

int
__wrap_get_scsi_pt_os_err (const struct sg_pt_base *p)
{
  return fk ? p->os_err : __real_get_scsi_pt_os_err (p);
}

char *
__wrap_get_scsi_pt_transport_err_str (const struct sg_pt_base *p, int n,
                                      char *b)
{
  if (!fk)
    return __real_get_scsi_pt_transport_err_str (p, n, b);
  snprintf (b, n, "fake transport error");
  return b;
}

static struct fake_disk *
fake_new (uint32_t bs, uint64_t nblocks)
{
  struct fake_disk *f = calloc (1, sizeof *f);
  f->path = "/fake/sg0";
  f->fd = -1;
  f->bs = bs;
  f->nblocks = nblocks;
  f->data = calloc (nblocks, bs);
  f->medium_error_lba = UINT64_MAX;
  return f;
}

static int
fake_teardown (void **state)
{
  if (fk) {
    assert_int_equal (fk->fd, -1);    /* the transport closed its fd */
    free (fk->data);
    free (fk);
    fk = NULL;
  }
  return 0;
}

/* ---- 2. open errors through the real library ---- */

static void
test_open_errors (void **state)
{
  bt_check_open_errors (ossd_transport_open_sg, "sg", "/dev/sg9",
                        "/nonexistent/sg9",
                        "not a SCSI device node (a regular file)");
}

static void
test_open_not_scsi (void **state)
{
  char why[256];
  struct ossd_transport *t;
  /* A char device without SG_IO: the real ioctl answers ENOTTY. */
  assert_int_equal (ossd_transport_open_sg ("/dev/zero", &t, why,
                                            sizeof why), -ENODEV);
  assert_string_equal (why, "sg: /dev/zero: not a SCSI device (SG_IO: "
                       "Inappropriate ioctl for device)");
}

/* ---- 3. end to end on the fake disk ---- */

static void
test_fake_512 (void **state)
{
  char why[256];
  struct ossd_transport *t;
  fk = fake_new (512, 8 * 1024 + 3);          /* 4 MiB + 3 blocks */
  fk->vpd_max_blocks = 256;                   /* 128 KiB */
  fk->vpd_short = true;                       /* old, 20-byte page */

  t = bt_open (ossd_transport_open_sg, fk->path);
  bt_check_fields (t, "sg", 4 * 1024 * 1024, 128 * 1024);

  /* Channel LBA 3 = device LBA 24, 8 blocks. */
  bt_roundtrip (t, 3, 1, 1, fk->data);
  const uint8_t rd[16] = { 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 24,
                           0, 0, 0, 8, 0, 0 };
  assert_memory_equal (fk->last_cdb, rd, 16);
  bt_roundtrip (t, 0, 2, 2, fk->data);
  bt_roundtrip (t, 1023, 1, 3, fk->data);     /* last whole LBA */

  /* 100 LBAs = 400 KiB: four commands of at most 256 blocks. */
  int before = fk->nrw;
  bt_roundtrip (t, 500, 100, 4, fk->data);
  assert_int_equal (fk->nrw - before, 8);
  assert_int_equal (fk->max_nb_seen, 256);

  fk->nsync = 0;
  assert_int_equal (t->ops->flush (t, why, sizeof why), 0);
  assert_int_equal (fk->nsync, 1);
  const uint8_t sc[10] = { 0x35 };
  assert_memory_equal (fk->last_cdb, sc, 10);
  t->ops->close (t);
}

static void
test_fake_4096_and_defaults (void **state)
{
  char why[256];
  struct ossd_transport *t;
  fk = fake_new (4096, 300);
  fk->no_vpd = true;                          /* -> 512 KiB default */
  fk->no_rc16 = true;                         /* -> READ CAPACITY(10) */

  t = bt_open (ossd_transport_open_sg, fk->path);
  assert_int_equal (t->size_bytes, 300 * 4096);
  assert_int_equal (t->max_transfer, 512 * 1024);
  bt_roundtrip (t, 7, 3, 5, fk->data);
  const uint8_t rd[16] = { 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 7,
                           0, 0, 0, 3, 0, 0 };
  assert_memory_equal (fk->last_cdb, rd, 16);
  /* No SYNCHRONIZE CACHE: flush still succeeds. */
  fk->no_sync = true;
  why[0] = 'x';
  assert_int_equal (t->ops->flush (t, why, sizeof why), 0);
  assert_string_equal (why, "");
  t->ops->close (t);
}

static void
test_fake_bad_block_size (void **state)
{
  char why[256];
  struct ossd_transport *t;
  fk = fake_new (520, 100);
  assert_int_equal (ossd_transport_open_sg (fk->path, &t, why, sizeof why),
                    -EINVAL);
  assert_string_equal (why, "sg: /fake/sg0: logical block size 520 is not "
                       "supported (need 512 or 4096)");
}

static void
test_fake_errors (void **state)
{
  char why[256];
  struct ossd_transport *t;
  void *buf = calloc (1, 2 * LBA);
  fk = fake_new (512, 1024);
  t = bt_open (ossd_transport_open_sg, fk->path);
  int ncmds = fk->ncmds;

  /* Unaligned and out-of-range requests never reach the device. */
  bt_check_refused (t, "/fake/sg0", 128);
  assert_int_equal (fk->ncmds, ncmds);

  /* Medium error: the reason names device, command, LBA and the sense. */
  fk->medium_error_lba = 8 * 5 + 3;
  assert_int_equal (t->ops->pread (t, buf, LBA, 5 * LBA, why, sizeof why),
                    -EIO);
  assert_non_null (strstr (why, "sg: /fake/sg0: READ(16) of 8 blocks at "
                           "LBA 40: Medium Error"));
  assert_non_null (strstr (why, "nrecovered read error"));
  fk->medium_error_lba = UINT64_MAX;

  /* Write protected -> EROFS. */
  fk->write_protected = true;
  assert_int_equal (t->ops->pwrite (t, buf, LBA, 0, why, sizeof why),
                    -EROFS);
  assert_non_null (strstr (why, "WRITE(16) of 8 blocks at LBA 0: "
                           "Data Protect"));
  fk->write_protected = false;

  /* One unit attention is retried away; endless ones are not. */
  fk->unit_attentions = 1;
  assert_int_equal (t->ops->pwrite (t, buf, LBA, 0, why, sizeof why), 0);
  fk->unit_attentions = 100;
  assert_int_equal (t->ops->pread (t, buf, LBA, 0, why, sizeof why), -EIO);
  assert_non_null (strstr (why, "Unit Attention"));
  fk->unit_attentions = 0;

  fk->busy = true;
  assert_int_equal (t->ops->pread (t, buf, LBA, 0, why, sizeof why), -EBUSY);
  assert_non_null (strstr (why, "SCSI status 0x08"));
  fk->busy = false;

  fk->timeout = true;
  assert_int_equal (t->ops->pread (t, buf, LBA, 0, why, sizeof why),
                    -ETIMEDOUT);
  assert_non_null (strstr (why, "timed out"));
  fk->timeout = false;

  fk->short_read = true;
  assert_int_equal (t->ops->pread (t, buf, LBA, 0, why, sizeof why), -EIO);
  assert_string_equal (why, "sg: /fake/sg0: READ(16) of 8 blocks at LBA 0: "
                       "short transfer (512 of 4096 bytes missing)");
  fk->short_read = false;

  fk->os_error = ENODEV;
  assert_int_equal (t->ops->flush (t, why, sizeof why), -ENODEV);
  assert_string_equal (why, "sg: /fake/sg0: SYNCHRONIZE CACHE(10): SG_IO "
                       "failed: No such device");
  fk->os_error = 0;

  t->ops->close (t);
  free (buf);
}

/* ---- 4. scsi_debug, when loaded ---- */

/* Find an sg node whose device is a scsi_debug disk.  0 or -1. */
static int
find_scsi_debug (char *dev, size_t len)
{
  DIR *d = opendir ("/sys/class/scsi_generic");
  struct dirent *de;
  int found = -1;
  if (d == NULL)
    return -1;
  while (found < 0 && (de = readdir (d)) != NULL) {
    char p[300], vendor[64] = "", model[64] = "";
    FILE *fp;
    if (strncmp (de->d_name, "sg", 2) != 0)
      continue;
    snprintf (p, sizeof p, "/sys/class/scsi_generic/%s/device/vendor",
              de->d_name);
    if ((fp = fopen (p, "r")) != NULL) {
      if (fgets (vendor, sizeof vendor, fp) == NULL)
        vendor[0] = '\0';
      fclose (fp);
    }
    snprintf (p, sizeof p, "/sys/class/scsi_generic/%s/device/model",
              de->d_name);
    if ((fp = fopen (p, "r")) != NULL) {
      if (fgets (model, sizeof model, fp) == NULL)
        model[0] = '\0';
      fclose (fp);
    }
    if (strncmp (vendor, "Linux", 5) == 0
        && strncmp (model, "scsi_debug", 10) == 0) {
      snprintf (dev, len, "/dev/%s", de->d_name);
      found = access (dev, R_OK | W_OK) == 0 ? 0 : -1;
    }
  }
  closedir (d);
  return found;
}

static void
test_scsi_debug (void **state)
{
  char dev[300], why[256];
  struct ossd_transport *t;
  if (find_scsi_debug (dev, sizeof dev) != 0) {
    /* cmocka 1.1's skip() prints "not ok N # SKIP", which the harness
     * counts as a failure: note the skip and pass instead. */
    printf ("# SKIP scsi_debug end-to-end: no scsi_debug disk (modprobe "
            "scsi_debug needs a kernel with SCSI and modules)\n");
    return;
  }
  if (ossd_transport_open_sg (dev, &t, why, sizeof why) != 0)
    fail_msg ("open %s: %s", dev, why);
  assert_true (t->size_bytes >= 2 * LBA);
  size_t len = 2 * LBA;
  uint64_t off = t->size_bytes - len;        /* a RAM disk: harmless */
  void *w = malloc (len), *r = malloc (len);
  bt_fill (w, len, 77);
  if (t->ops->pwrite (t, w, len, off, why, sizeof why) != 0)
    fail_msg ("%s", why);
  if (t->ops->flush (t, why, sizeof why) != 0)
    fail_msg ("%s", why);
  if (t->ops->pread (t, r, len, off, why, sizeof why) != 0)
    fail_msg ("%s", why);
  assert_memory_equal (r, w, len);
  t->ops->close (t);
  free (w);
  free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_rw16_cdb),
    cmocka_unit_test (test_read_capacity16_cdb),
    cmocka_unit_test (test_open_errors),
    cmocka_unit_test (test_open_not_scsi),
    cmocka_unit_test_teardown (test_fake_512, fake_teardown),
    cmocka_unit_test_teardown (test_fake_4096_and_defaults, fake_teardown),
    cmocka_unit_test_teardown (test_fake_bad_block_size, fake_teardown),
    cmocka_unit_test_teardown (test_fake_errors, fake_teardown),
    cmocka_unit_test (test_scsi_debug),
  };
  return cmocka_run_group_tests_name ("transport_sg", tests, NULL, NULL);
}
