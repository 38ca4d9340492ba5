/* test_transport_nvme.c - unit tests of the nvme: transport.
 *
 * 1. The command fields ossd_nvme_build_rw fills for 512- and 4096-byte
 *    namespaces, SLBAs above 2^32, the 65536-block limit and the
 *    rejection of unaligned or empty requests.
 * 2. Opening a missing device, a regular file and a char device that is
 *    not NVMe, through the real libnvme.
 * 3. The transport end to end against an in-memory namespace: libnvme's
 *    nvme_get_nsid, nvme_identify, nvme_io_passthru and
 *    nvme_submit_io_passthru are wrapped at link time (-Wl,--wrap=...)
 *    so that, while a fake is armed, Identify, Read, Write and Flush are
 *    answered here and NVMe status codes can be injected.  When no fake is
 *    armed the wrappers call the real library.  No real NVMe device is
 *    ever opened for writing.
 *
 * The checks every block transport passes alike (round trip, refused
 * requests, open errors) come from block_transport_checks.h.
 *
 * Link with:
 *   -lnvme -lcmocka -Wl,--wrap=nvme_get_nsid -Wl,--wrap=nvme_identify
 *   -Wl,--wrap=nvme_io_passthru -Wl,--wrap=nvme_submit_io_passthru
 */
#include <endian.h>
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

#include <libnvme.h>

#include "ossd_frame.h"
#include "ossd_transport.h"
#include "block_transport_checks.h"

#define LBA OSSD_LBA_SIZE

/* ---- 1. command fields ---- */

static void
test_build_512 (void **state)
{
  struct ossd_nvme_rw_cmd c;

  /* One 4096-byte channel LBA at LBA 3 = blocks 24..31. */
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 512, 3 * LBA, LBA), 0);
  assert_int_equal (c.opcode, 0x02);
  assert_int_equal (c.nsid, 1);
  assert_int_equal (c.slba, 24);
  assert_int_equal (c.nlb, 7);
  assert_int_equal (c.cdw10, 24);
  assert_int_equal (c.cdw11, 0);
  assert_int_equal (c.cdw12, 7);
  assert_int_equal (c.data_len, LBA);

  assert_int_equal (ossd_nvme_build_rw (&c, true, 7, 512, 0, 2 * LBA), 0);
  assert_int_equal (c.opcode, 0x01);
  assert_int_equal (c.nsid, 7);
  assert_int_equal (c.slba, 0);
  assert_int_equal (c.nlb, 15);
  assert_int_equal (c.cdw12, 15);
  assert_int_equal (c.data_len, 2 * LBA);

  /* SLBA above 2^32: cdw10 low, cdw11 high. */
  uint64_t slba = 0x123456789ull;
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 512, slba * 512, 512),
                    0);
  assert_int_equal (c.slba, slba);
  assert_int_equal (c.cdw10, 0x23456789u);
  assert_int_equal (c.cdw11, 0x1u);
  assert_int_equal (c.cdw12, 0);
  assert_int_equal (c.nlb, 0);

  /* 65536 blocks is the most; 65537 is refused. */
  assert_int_equal (ossd_nvme_build_rw (&c, true, 1, 512, 0, 65536 * 512),
                    0);
  assert_int_equal (c.nlb, 0xffff);
  assert_int_equal (c.cdw12, 0xffff);
  assert_int_equal (c.data_len, 32 * 1024 * 1024);
  assert_int_equal (ossd_nvme_build_rw (&c, true, 1, 512, 0, 65537 * 512),
                    -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, true, 1, 512, 0,
                                        (65536 + 8) * 512), -EINVAL);
}

static void
test_build_4096 (void **state)
{
  struct ossd_nvme_rw_cmd c;

  assert_int_equal (ossd_nvme_build_rw (&c, false, 2, 4096, 5 * LBA,
                                        2 * LBA), 0);
  assert_int_equal (c.opcode, 0x02);
  assert_int_equal (c.nsid, 2);
  assert_int_equal (c.slba, 5);
  assert_int_equal (c.nlb, 1);
  assert_int_equal (c.cdw10, 5);
  assert_int_equal (c.cdw11, 0);
  assert_int_equal (c.cdw12, 1);
  assert_int_equal (c.data_len, 2 * LBA);

  uint64_t slba = (1ull << 32) + 3;
  assert_int_equal (ossd_nvme_build_rw (&c, true, 1, 4096, slba * LBA, LBA),
                    0);
  assert_int_equal (c.opcode, 0x01);
  assert_int_equal (c.cdw10, 3);
  assert_int_equal (c.cdw11, 1);
  assert_int_equal (c.cdw12, 0);

  /* Largest SLBA. */
  slba = 0xffffffffffffull;
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 4096, slba * LBA, LBA),
                    0);
  assert_int_equal (c.cdw10, 0xffffffffu);
  assert_int_equal (c.cdw11, 0xffffu);

  /* 65536 blocks of 4096 = 256 MiB; one more block is refused. */
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 4096, 0,
                                        65536ull * 4096), 0);
  assert_int_equal (c.nlb, 0xffff);
  assert_int_equal (c.data_len, 256u * 1024 * 1024);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 4096, 0,
                                        65537ull * 4096), -EINVAL);
}

static void
test_build_unaligned (void **state)
{
  struct ossd_nvme_rw_cmd c;

  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 4096, 512, LBA),
                    -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 4096, 0, 512),
                    -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 4096, 0, 0), -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 512, 100, 512),
                    -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 512, 0, 1000),
                    -EINVAL);
  /* Bad block sizes. */
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 0, 0, LBA), -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 520, 0, 520),
                    -EINVAL);
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 256, 0, 256),
                    -EINVAL);
  /* Sector-aligned on a 512-byte namespace is a valid command. */
  assert_int_equal (ossd_nvme_build_rw (&c, false, 1, 512, 512, 512), 0);
  assert_int_equal (c.slba, 1);
}

/* ---- the fake namespace behind the wrapped libnvme calls ---- */

struct fake_ns
{
  const char *path;                   /* /dev/null stands in for it */
  uint32_t nsid;
  unsigned ds;                        /* log2 block size */
  unsigned ms;                        /* metadata bytes per block */
  uint8_t fmt_index;                  /* LBA format in use */
  uint64_t nsze;
  uint8_t mdts;
  bool ctrl_fails;
  uint8_t *data;
  int status;                         /* next I/O fails with this */
  int os_error;                       /* or with -1 and this errno */
  /* log */
  int nio, nflush, nident;
  uint8_t last_opcode;
  uint32_t last_cdw10, last_cdw11, last_cdw12, last_len, max_len;
};

static struct fake_ns *fk;            /* test-only global */

int __real_nvme_get_nsid (int fd, __u32 *nsid);
int __real_nvme_identify (struct nvme_identify_args *args);
int __real_nvme_io_passthru (int, __u8, __u8, __u16, __u32, __u32, __u32,
                             __u32, __u32, __u32, __u32, __u32, __u32, __u32,
                             void *, __u32, void *, __u32, __u32 *);
int __real_nvme_submit_io_passthru (int, struct nvme_passthru_cmd *,
                                    __u32 *);
int __wrap_nvme_get_nsid (int fd, __u32 *nsid);
int __wrap_nvme_identify (struct nvme_identify_args *args);
int __wrap_nvme_io_passthru (int, __u8, __u8, __u16, __u32, __u32, __u32,
                             __u32, __u32, __u32, __u32, __u32, __u32, __u32,
                             void *, __u32, void *, __u32, __u32 *);
int __wrap_nvme_submit_io_passthru (int, struct nvme_passthru_cmd *,
                                    __u32 *);

int
__wrap_nvme_get_nsid (int fd, __u32 *nsid)
{
  if (!fk)
    return __real_nvme_get_nsid (fd, nsid);
  *nsid = fk->nsid;
  return 0;
}

int
__wrap_nvme_identify (struct nvme_identify_args *args)
{
  if (!fk)
    return __real_nvme_identify (args);
  fk->nident++;
  if (args->cns == NVME_IDENTIFY_CNS_NS) {
    struct nvme_id_ns *ns = args->data;
    if (args->nsid != fk->nsid)
      return 0x0b;                    /* Invalid Namespace or Format */
    memset (ns, 0, sizeof *ns);
    ns->nsze = htole64 (fk->nsze);
    ns->ncap = ns->nsze;
    ns->nlbaf = 3;                    /* 4 formats, zero-based */
    ns->flbas = fk->fmt_index & 0x0f;
    for (int i = 0; i < 4; i++) {
      ns->lbaf[i].ds = 9;
      ns->lbaf[i].ms = 0;
    }
    ns->lbaf[fk->fmt_index].ds = (uint8_t) fk->ds;
    ns->lbaf[fk->fmt_index].ms = htole16 ((uint16_t) fk->ms);
    return 0;
  }
  if (args->cns == NVME_IDENTIFY_CNS_CTRL) {
    struct nvme_id_ctrl *c = args->data;
    if (fk->ctrl_fails) {
      errno = EACCES;
      return -1;
    }
    memset (c, 0, sizeof *c);
    c->mdts = fk->mdts;
    return 0;
  }
  return 0x02;
}

int
__wrap_nvme_io_passthru (int fd, __u8 opcode, __u8 flags, __u16 rsvd,
                         __u32 nsid, __u32 cdw2, __u32 cdw3, __u32 cdw10,
                         __u32 cdw11, __u32 cdw12, __u32 cdw13, __u32 cdw14,
                         __u32 cdw15, __u32 data_len, void *data,
                         __u32 metadata_len, void *metadata,
                         __u32 timeout_ms, __u32 *result)
{
  if (!fk)
    return __real_nvme_io_passthru (fd, opcode, flags, rsvd, nsid, cdw2,
                                    cdw3, cdw10, cdw11, cdw12, cdw13, cdw14,
                                    cdw15, data_len, data, metadata_len,
                                    metadata, timeout_ms, result);
  fk->nio++;
  fk->last_opcode = opcode;
  fk->last_cdw10 = cdw10;
  fk->last_cdw11 = cdw11;
  fk->last_cdw12 = cdw12;
  fk->last_len = data_len;
  if (data_len > fk->max_len)
    fk->max_len = data_len;
  assert_int_equal (nsid, fk->nsid);
  assert_int_equal (metadata_len, 0);
  assert_true (timeout_ms > 0);
  if (fk->os_error) {
    errno = fk->os_error;
    return -1;
  }
  if (fk->status)
    return fk->status;

  uint32_t bs = 1u << fk->ds;
  uint64_t slba = (uint64_t) cdw11 << 32 | cdw10;
  uint32_t nb = (cdw12 & 0xffff) + 1;
  assert_int_equal ((uint64_t) nb * bs, data_len);
  if (slba + nb > fk->nsze)
    return 0x80;                      /* LBA Out of Range */
  if (opcode == 0x01)
    memcpy (fk->data + slba * bs, data, data_len);
  else if (opcode == 0x02)
    memcpy (data, fk->data + slba * bs, data_len);
  else
    return 0x01;                      /* Invalid Command Opcode */
  return 0;
}

int
__wrap_nvme_submit_io_passthru (int fd, struct nvme_passthru_cmd *cmd,
                                __u32 *result)
{
  if (!fk)
    return __real_nvme_submit_io_passthru (fd, cmd, result);
  assert_int_equal (cmd->opcode, 0x00);   /* only Flush comes this way */
  assert_int_equal (cmd->nsid, fk->nsid);
  fk->nflush++;
  if (fk->os_error) {
    errno = fk->os_error;
    return -1;
  }
  return fk->status;
}

static struct fake_ns *
fake_new (unsigned ds, uint64_t nsze)
{
  struct fake_ns *f = calloc (1, sizeof *f);
  f->path = "/dev/null";
  f->nsid = 1;
  f->ds = ds;
  f->nsze = nsze;
  f->fmt_index = 1;
  f->data = calloc (nsze, 1u << ds);
  return f;
}

static int
fake_teardown (void **state)
{
  if (fk) {
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
  bt_check_open_errors (ossd_transport_open_nvme, "nvme", "/dev/nvme9n1",
                        "/nonexistent/nvme9n1",
                        "not an NVMe namespace node (a regular file)");
}

static void
test_open_not_nvme (void **state)
{
  char why[256];
  struct ossd_transport *t;
  /* A char device: the real NVME_IOCTL_ID answers ENOTTY. */
  assert_int_equal (ossd_transport_open_nvme ("/dev/null", &t, why,
                                              sizeof why), -ENODEV);
  assert_string_equal (why, "nvme: /dev/null: not an NVMe namespace node "
                       "(want /dev/nvmeXnY): NVME_IOCTL_ID: Inappropriate "
                       "ioctl for device");
}

/* ---- 3. end to end on the fake namespace ---- */

static void
test_fake_512 (void **state)
{
  char why[256];
  struct ossd_transport *t;
  fk = fake_new (9, 8192 + 5);                /* 4 MiB + 5 blocks */
  fk->mdts = 3;                               /* 32 KiB */

  t = bt_open (ossd_transport_open_nvme, fk->path);
  bt_check_fields (t, "nvme", 4 * 1024 * 1024, 32 * 1024);

  bt_roundtrip (t, 3, 1, 1, fk->data);
  assert_int_equal (fk->last_opcode, 0x02);
  assert_int_equal (fk->last_cdw10, 24);
  assert_int_equal (fk->last_cdw11, 0);
  assert_int_equal (fk->last_cdw12, 7);
  bt_roundtrip (t, 1023, 1, 2, fk->data);

  /* 20 LBAs = 80 KiB: 32 + 32 + 16 KiB, each way. */
  int before = fk->nio;
  bt_roundtrip (t, 100, 20, 3, fk->data);
  assert_int_equal (fk->nio - before, 6);
  assert_int_equal (fk->max_len, 32 * 1024);
  assert_int_equal (fk->last_len, 16 * 1024);
  assert_int_equal (fk->last_cdw10, (100 + 16) * 8);

  assert_int_equal (t->ops->flush (t, why, sizeof why), 0);
  assert_int_equal (fk->nflush, 1);
  t->ops->close (t);
}

static void
test_fake_4096_defaults (void **state)
{
  struct ossd_transport *t;
  fk = fake_new (12, 1000);
  fk->fmt_index = 2;
  fk->nsid = 3;
  fk->mdts = 0;                               /* no limit -> 128 KiB */

  t = bt_open (ossd_transport_open_nvme, fk->path);
  assert_int_equal (t->size_bytes, 1000 * 4096);
  assert_int_equal (t->max_transfer, 128 * 1024);
  bt_roundtrip (t, 999, 1, 4, fk->data);
  assert_int_equal (fk->last_cdw10, 999);
  assert_int_equal (fk->last_cdw12, 0);
  bt_roundtrip (t, 0, 40, 5, fk->data);       /* 160 KiB: 2 commands */
  assert_int_equal (fk->max_len, 128 * 1024);
  t->ops->close (t);
  fake_teardown (state);

  /* Identify Controller refused: still opens, default limit. */
  fk = fake_new (12, 64);
  fk->ctrl_fails = true;
  t = bt_open (ossd_transport_open_nvme, fk->path);
  assert_int_equal (t->max_transfer, 128 * 1024);
  t->ops->close (t);
}

static void
test_fake_bad_formats (void **state)
{
  char why[256];
  struct ossd_transport *t;

  fk = fake_new (10, 64);                     /* 1024-byte blocks */
  assert_int_equal (ossd_transport_open_nvme (fk->path, &t, why, sizeof why),
                    -EINVAL);
  assert_string_equal (why, "nvme: /dev/null: namespace 1 has 2^10-byte "
                       "logical blocks (LBA format 1); need 512 or 4096");
  fake_teardown (state);

  fk = fake_new (12, 64);
  fk->ms = 8;
  assert_int_equal (ossd_transport_open_nvme (fk->path, &t, why, sizeof why),
                    -EINVAL);
  assert_non_null (strstr (why, "carries 8 bytes of metadata per block"));
}

static void
test_fake_errors (void **state)
{
  char why[256];
  struct ossd_transport *t;
  void *buf = calloc (1, 2 * LBA);
  fk = fake_new (9, 1024);
  t = bt_open (ossd_transport_open_nvme, fk->path);

  /* Unaligned and out-of-range requests never reach the device. */
  int nio = fk->nio;
  bt_check_refused (t, "/dev/null", 128);
  assert_int_equal (t->ops->pread (t, buf, LBA, 512, why, sizeof why),
                    -EINVAL);
  assert_non_null (strstr (why, "nvme: /dev/null: Read of 4096 bytes at "
                           "offset 512 is not aligned"));
  assert_int_equal (fk->nio, nio);

  /* NVMe status: decoded, naming command, LBA and device. */
  fk->status = 0x281;
  assert_int_equal (t->ops->pread (t, buf, LBA, 5 * LBA, why, sizeof why),
                    -EIO);
  assert_non_null (strstr (why, "nvme: /dev/null: Read of 8 blocks at "
                           "LBA 40: Unrecovered Read Error"));
  assert_non_null (strstr (why, "(status 0x281)"));
  fk->status = 0x02;
  assert_int_equal (t->ops->pwrite (t, buf, LBA, 0, why, sizeof why),
                    -EINVAL);
  assert_non_null (strstr (why, "Write of 8 blocks at LBA 0: Invalid Field "
                           "in Command"));
  fk->status = 0x280;
  assert_int_equal (t->ops->flush (t, why, sizeof why), -EIO);
  assert_non_null (strstr (why, "nvme: /dev/null: Flush: Write Fault"));
  fk->status = 0;

  /* The ioctl itself failing. */
  fk->os_error = EINTR;
  assert_int_equal (t->ops->pwrite (t, buf, LBA, 0, why, sizeof why),
                    -EINTR);
  assert_string_equal (why, "nvme: /dev/null: Write of 8 blocks at LBA 0: "
                       "Interrupted system call");
  fk->os_error = 0;

  t->ops->close (t);
  free (buf);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_build_512),
    cmocka_unit_test (test_build_4096),
    cmocka_unit_test (test_build_unaligned),
    cmocka_unit_test (test_open_errors),
    cmocka_unit_test (test_open_not_nvme),
    cmocka_unit_test_teardown (test_fake_512, fake_teardown),
    cmocka_unit_test_teardown (test_fake_4096_defaults, fake_teardown),
    cmocka_unit_test_teardown (test_fake_bad_formats, fake_teardown),
    cmocka_unit_test_teardown (test_fake_errors, fake_teardown),
  };
  return cmocka_run_group_tests_name ("transport_nvme", tests, NULL, NULL);
}
