/* block_transport_checks.h - the checks the file:, sg: and nvme: unit
 * tests (and the block-transport core's own) make alike, in one place.
 *
 * Header-only (each test is one .c file): opening with the reason on
 * failure, the fields every block transport sets, a fill pattern, a
 * write/read round trip that also checks the bytes on the device, the
 * refusal of unaligned and out-of-range requests, and the open errors for
 * a missing node and a regular file.  Include after <cmocka.h>.
 */
#ifndef BLOCK_TRANSPORT_CHECKS_H
#define BLOCK_TRANSPORT_CHECKS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ossd_frame.h"
#include "ossd_transport.h"

typedef int (*bt_opener) (const char *dev, struct ossd_transport **out,
                          char *why, size_t whylen);

/* Open dev, failing the test with the reason if that fails. */
static inline struct ossd_transport *
bt_open (bt_opener open_fn, const char *dev)
{
  char why[256];
  struct ossd_transport *t = NULL;
  if (open_fn (dev, &t, why, sizeof why) != 0)
    fail_msg ("open %s: %s", dev, why);
  return t;
}

/* What every block transport says of itself after open. */
static inline void
bt_check_fields (const struct ossd_transport *t, const char *name,
                 uint64_t size_bytes, uint32_t max_transfer)
{
  assert_non_null (t);
  assert_string_equal (t->ops->name, name);
  assert_int_equal (t->size_bytes, size_bytes);
  assert_int_equal (t->max_transfer, max_transfer);
  assert_false (t->knows_connections);
  assert_non_null (t->priv);
}

/* A pattern that differs per seed, per byte and per 512-byte sector. */
static inline void
bt_fill (void *buf, size_t len, unsigned seed)
{
  uint8_t *p = buf;
  for (size_t i = 0; i < len; i++)
    p[i] = (uint8_t) (seed * 29 + i * 3 + (i >> 9));
}

/* Write nlbas LBAs at lba through t, read them back, compare; when
 * device is not NULL, the bytes must also sit there at lba's address. */
static inline void
bt_roundtrip (struct ossd_transport *t, uint64_t lba, size_t nlbas,
              unsigned seed, const uint8_t *device)
{
  char why[256];
  size_t len = nlbas * OSSD_LBA_SIZE;
  void *w = malloc (len), *r = malloc (len);
  bt_fill (w, len, seed);
  if (t->ops->pwrite (t, w, len, lba * OSSD_LBA_SIZE, why, sizeof why) != 0)
    fail_msg ("pwrite: %s", why);
  memset (r, 0, len);
  if (t->ops->pread (t, r, len, lba * OSSD_LBA_SIZE, why, sizeof why) != 0)
    fail_msg ("pread: %s", why);
  assert_memory_equal (r, w, len);
  if (device)
    assert_memory_equal (device + lba * OSSD_LBA_SIZE, w, len);
  free (w);
  free (r);
}

/* Requests that are not whole LBAs, empty, or not inside the device
 * (nlbas LBAs long) are refused with -EINVAL and a reason naming dev. */
static inline void
bt_check_refused (struct ossd_transport *t, const char *dev, uint64_t nlbas)
{
  char why[256];
  void *buf = NULL;
  assert_int_equal (posix_memalign (&buf, 4096, 2 * OSSD_LBA_SIZE), 0);

  why[0] = '\0';
  assert_int_equal (t->ops->pread (t, buf, OSSD_LBA_SIZE, 512, why,
                                   sizeof why), -EINVAL);
  assert_non_null (strstr (why, "not aligned"));
  assert_non_null (strstr (why, dev));
  assert_int_equal (t->ops->pread (t, buf, OSSD_LBA_SIZE, 100, why,
                                   sizeof why), -EINVAL);
  assert_int_equal (t->ops->pwrite (t, buf, 100, 0, why, sizeof why),
                    -EINVAL);
  assert_non_null (strstr (why, "not aligned"));
  assert_int_equal (t->ops->pwrite (t, buf, 512, 0, why, sizeof why),
                    -EINVAL);
  assert_int_equal (t->ops->pwrite (t, buf, 1000, 0, why, sizeof why),
                    -EINVAL);
  assert_int_equal (t->ops->pwrite (t, buf, OSSD_LBA_SIZE + 512, 0, why,
                                    sizeof why), -EINVAL);
  assert_int_equal (t->ops->pwrite (t, buf, 0, 0, why, sizeof why), -EINVAL);
  assert_int_equal (t->ops->pread (t, buf, 0, 0, why, sizeof why), -EINVAL);
  /* Beyond the end: the last LBA is nlbas - 1. */
  assert_int_equal (t->ops->pread (t, buf, OSSD_LBA_SIZE,
                                   nlbas * OSSD_LBA_SIZE, why, sizeof why),
                    -EINVAL);
  assert_non_null (strstr (why, "beyond the end"));
  assert_non_null (strstr (why, dev));
  assert_int_equal (t->ops->pread (t, buf, 2 * OSSD_LBA_SIZE,
                                   (nlbas - 1) * OSSD_LBA_SIZE, why,
                                   sizeof why), -EINVAL);
  assert_non_null (strstr (why, "beyond the end"));
  assert_int_equal (t->ops->pwrite (t, buf, 2 * OSSD_LBA_SIZE,
                                    (nlbas - 1) * OSSD_LBA_SIZE, why,
                                    sizeof why), -EINVAL);
  assert_int_equal (t->ops->pread (t, buf, OSSD_LBA_SIZE, UINT64_MAX - 4095,
                                   why, sizeof why), -EINVAL);
  free (buf);
}

/* The open errors every block transport gives alike: open("") is
 * -EINVAL; a node that is not there (missing, or fallback when missing
 * exists) is -ENOENT with "<scheme>: cannot open <dev>: No such file or
 * directory"; a regular file is -ENODEV with a reason containing
 * regular_want (NULL: not checked, file: takes regular files).  *out stays
 * NULL each time. */
static inline void
bt_check_open_errors (bt_opener open_fn, const char *scheme,
                      const char *missing, const char *fallback,
                      const char *regular_want)
{
  char why[256], want[300];
  struct ossd_transport *t = (void *) 1;
  const char *dev = access (missing, F_OK) != 0 ? missing : fallback;

  assert_int_equal (open_fn (dev, &t, why, sizeof why), -ENOENT);
  assert_null (t);
  snprintf (want, sizeof want, "%s: cannot open %s: No such file or "
            "directory", scheme, dev);
  assert_string_equal (why, want);
  assert_int_equal (open_fn ("", &t, why, sizeof why), -EINVAL);
  assert_null (t);
  if (regular_want == NULL)
    return;

  char path[] = "/tmp/ossd-block-test-XXXXXX";
  int fd = mkstemp (path);
  assert_true (fd >= 0);
  close (fd);
  t = (void *) 1;
  assert_int_equal (open_fn (path, &t, why, sizeof why), -ENODEV);
  assert_null (t);
  assert_non_null (strstr (why, regular_want));
  unlink (path);
}

#endif /* BLOCK_TRANSPORT_CHECKS_H */
