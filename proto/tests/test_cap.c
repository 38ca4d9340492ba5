/* test_cap.c - capabilities as data: the MAC over every field, derived
 * partition keys, key files and their mode check, the text form, scope
 * and rights matching, and the rights each command needs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ossd_cap.h"

static const uint8_t key[OSSD_KEY_BYTES] = "0123456789abcdef0123456789abcde";

static struct ossd_cap
sample (void)
{
  struct ossd_cap c = { .pid = 3, .oid = 10, .rights = OSSD_RIGHT_READ,
    .expiry_ns = 1234567890123ull, .version = 7 };
  ossd_cap_sign (key, &c);
  return c;
}

static void
test_mac_covers_every_field (void **state)
{
  struct ossd_cap c = sample (), t;
  uint8_t other[OSSD_KEY_BYTES];

  assert_true (ossd_cap_mac_ok (key, &c));
  t = c; t.pid++; assert_false (ossd_cap_mac_ok (key, &t));
  t = c; t.oid++; assert_false (ossd_cap_mac_ok (key, &t));
  t = c; t.rights |= OSSD_RIGHT_WRITE; assert_false (ossd_cap_mac_ok (key, &t));
  t = c; t.expiry_ns++; assert_false (ossd_cap_mac_ok (key, &t));
  t = c; t.version++; assert_false (ossd_cap_mac_ok (key, &t));
  t = c; t.mac[31] ^= 0x80; assert_false (ossd_cap_mac_ok (key, &t));
  memcpy (other, key, sizeof other);
  other[0] ^= 1;
  assert_false (ossd_cap_mac_ok (other, &c));
}

static void
test_partition_keys (void **state)
{
  uint8_t k0[OSSD_KEY_BYTES], k3[OSSD_KEY_BYTES], k4[OSSD_KEY_BYTES];
  uint8_t k3b[OSSD_KEY_BYTES];

  ossd_partition_key (key, 0, k0);
  ossd_partition_key (key, 3, k3);
  ossd_partition_key (key, 4, k4);
  ossd_partition_key (key, 3, k3b);
  assert_memory_equal (k0, key, OSSD_KEY_BYTES);   /* pid 0: the master key */
  assert_memory_equal (k3, k3b, OSSD_KEY_BYTES);   /* derived, so stable */
  assert_memory_not_equal (k3, k4, OSSD_KEY_BYTES);
  assert_memory_not_equal (k3, key, OSSD_KEY_BYTES);
}

static void
test_text_round_trip (void **state)
{
  struct ossd_cap c = sample (), back;
  char text[OSSD_CAP_TEXT_MAX];
  int n = ossd_cap_format (&c, text, sizeof text);

  assert_true (n > 0);
  assert_int_equal (ossd_cap_parse (text, &back), 0);
  assert_memory_equal (&back, &c, sizeof c);
  assert_true (ossd_cap_mac_ok (key, &back));
  assert_int_equal (ossd_cap_format (&c, text, 20), -ERANGE);
  assert_int_equal (ossd_cap_parse ("ossdcap1 pid=3 oid=10", &back), -EINVAL);
  ossd_cap_format (&c, text, sizeof text);
  text[strlen (text) - 1] = '\0';                   /* one hex digit short */
  assert_int_equal (ossd_cap_parse (text, &back), -EINVAL);
  ossd_cap_format (&c, text, sizeof text);
  strcat (text, " extra");
  assert_int_equal (ossd_cap_parse (text, &back), -EINVAL);
}

static void
test_key_files (void **state)
{
  char dir[] = "/tmp/ossd-test-cap.XXXXXX", path[256], why[300];
  uint8_t k[OSSD_KEY_BYTES], back[OSSD_KEY_BYTES];
  struct stat st;

  assert_non_null (mkdtemp (dir));
  snprintf (path, sizeof path, "%s/drive.key", dir);
  assert_int_equal (ossd_key_load (path, back, why, sizeof why), -ENOENT);
  assert_int_equal (ossd_key_create (path, k, why, sizeof why), 0);
  assert_int_equal (stat (path, &st), 0);
  assert_int_equal (st.st_mode & 0777, 0600);
  assert_int_equal (st.st_size, OSSD_KEY_BYTES);
  assert_int_equal (ossd_key_load (path, back, why, sizeof why), 0);
  assert_memory_equal (k, back, OSSD_KEY_BYTES);
  /* never overwritten */
  assert_int_equal (ossd_key_create (path, back, why, sizeof why), -EEXIST);
  /* a key others may read is refused */
  chmod (path, 0644);
  assert_int_equal (ossd_key_load (path, back, why, sizeof why), -EPERM);
  assert_non_null (strstr (why, "chmod 600"));
  /* a truncated one too */
  chmod (path, 0600);
  assert_int_equal (truncate (path, 16), 0);
  assert_int_equal (ossd_key_load (path, back, why, sizeof why), -EINVAL);
  unlink (path);
  rmdir (dir);
}

static void
test_scope_and_rights (void **state)
{
  struct ossd_cap obj = { .pid = 3, .oid = 10, .rights = OSSD_RIGHT_READ | OSSD_RIGHT_SCAN };
  struct ossd_cap part = { .pid = 3, .oid = 0, .rights = OSSD_RIGHT_READ | OSSD_RIGHT_KERNEL };
  struct ossd_cap dev = { .pid = 0, .rights = OSSD_RIGHTS_ALL };
  struct ossd_cap_need read10 = { .pid = 3, .oid = 10, .rights = OSSD_RIGHT_READ };
  struct ossd_cap_need write10 = { .pid = 3, .oid = 10, .rights = OSSD_RIGHT_WRITE };
  struct ossd_cap_need read11 = { .pid = 3, .oid = 11, .rights = OSSD_RIGHT_READ };
  struct ossd_cap_need read4 = { .pid = 4, .oid = 10, .rights = OSSD_RIGHT_READ };
  struct ossd_cap_need list3 = { .pid = 3, .oid = 0, .rights = OSSD_RIGHT_READ };
  struct ossd_cap_need admin = { .rights = OSSD_RIGHT_ADMIN, .device = true };
  struct ossd_cap_need kern = { .rights = OSSD_RIGHT_KERNEL, .any_partition = true };

  assert_true (ossd_cap_covers (&obj, &read10));
  assert_false (ossd_cap_covers (&obj, &write10));
  assert_false (ossd_cap_covers (&obj, &read11));
  assert_false (ossd_cap_covers (&obj, &list3));     /* one object is not the partition */
  assert_false (ossd_cap_covers (&obj, &kern));
  assert_true (ossd_cap_covers (&part, &read11));
  assert_false (ossd_cap_covers (&part, &read4));
  assert_true (ossd_cap_covers (&part, &list3));
  assert_true (ossd_cap_covers (&part, &kern));
  assert_false (ossd_cap_covers (&part, &admin));
  assert_true (ossd_cap_covers (&dev, &admin));
  assert_true (ossd_cap_covers (&dev, &read4));
  dev.rights = OSSD_RIGHT_READ;
  assert_false (ossd_cap_covers (&dev, &admin));
}

static void
test_rights_per_command (void **state)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__ObjectId a = OSSD__OBJECT_ID__INIT, b = OSSD__OBJECT_ID__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__SetAttributes sa = OSSD__SET_ATTRIBUTES__INIT;
  Ossd__Attribute at = OSSD__ATTRIBUTE__INIT, *atp = &at;
  Ossd__Scan sc = OSSD__SCAN__INIT;
  Ossd__ScanTarget t1 = OSSD__SCAN_TARGET__INIT, t2 = OSSD__SCAN_TARGET__INIT;
  Ossd__ScanTarget *tp[2] = { &t1, &t2 };
  Ossd__Stats st = OSSD__STATS__INIT;
  Ossd__Info info = OSSD__INFO__INIT;
  Ossd__Format fmt = OSSD__FORMAT__INIT;
  struct ossd_cap_need n[4];

  a.pid = 3; a.oid = 10; b.pid = 3; b.oid = 11;
  rd.obj = &a;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  assert_int_equal (ossd_request_needs (&req, n, 4), 1);
  assert_int_equal (n[0].rights, OSSD_RIGHT_READ);
  assert_int_equal (n[0].oid, 10);

  at.page = 0x10001;
  sa.obj = &a; sa.n_attrs = 1; sa.attrs = &atp;
  req.body_case = OSSD__REQUEST__BODY_SET_ATTRIBUTES;
  req.set_attributes = &sa;
  assert_int_equal (ossd_request_needs (&req, n, 4), 1);
  assert_int_equal (n[0].rights, OSSD_RIGHT_ATTR);
  at.page = OSSD_CAP_ATTR_PAGE;
  ossd_request_needs (&req, n, 4);
  assert_int_equal (n[0].rights, OSSD_RIGHT_ATTR | OSSD_RIGHT_ADMIN);

  t1.obj = &a; t2.obj = &b;
  sc.n_targets = 2; sc.targets = tp;
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &sc;
  assert_int_equal (ossd_request_needs (&req, n, 1), 2);   /* reports the count */
  assert_int_equal (ossd_request_needs (&req, n, 4), 2);
  assert_int_equal (n[1].oid, 11);
  assert_int_equal (n[1].rights, OSSD_RIGHT_SCAN);

  req.body_case = OSSD__REQUEST__BODY_FORMAT;
  req.format = &fmt;
  assert_int_equal (ossd_request_needs (&req, n, 4), 1);
  assert_true (n[0].device);
  req.body_case = OSSD__REQUEST__BODY_INFO;
  req.info = &info;
  assert_int_equal (ossd_request_needs (&req, n, 4), 0);
  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &st;
  assert_int_equal (ossd_request_needs (&req, n, 4), 0);
  st.reset = true;
  assert_int_equal (ossd_request_needs (&req, n, 4), 1);
  assert_true (n[0].device);

  /* a device FLUSH is open; one that drops the drive's caches is admin */
  Ossd__Flush fl = OSSD__FLUSH__INIT;
  fl.scope = OSSD__FLUSH_SCOPE__FLUSH_DEVICE;
  req.body_case = OSSD__REQUEST__BODY_FLUSH;
  req.flush = &fl;
  assert_int_equal (ossd_request_needs (&req, n, 4), 0);
  fl.drop_caches = true;
  assert_int_equal (ossd_request_needs (&req, n, 4), 1);
  assert_true (n[0].device);
  assert_int_equal (n[0].rights, OSSD_RIGHT_ADMIN);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_mac_covers_every_field),
    cmocka_unit_test (test_partition_keys),
    cmocka_unit_test (test_text_round_trip),
    cmocka_unit_test (test_key_files),
    cmocka_unit_test (test_scope_and_rights),
    cmocka_unit_test (test_rights_per_command),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
