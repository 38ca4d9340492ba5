/* test_array.c - unit tests of ossd_array.h: RAID-0 stripe geometry
 * (odd and even drive counts, a file whose last unit is partial, every
 * byte mapped to exactly one place and back), RAID-5 geometry (the same,
 * plus one parity unit per row on its own drive, rotating), the array
 * label and state encodings, the layout text, and the key file of an
 * nbd+unix URI.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ossd_array.h"

/* Every byte offset of a file of `size` bytes goes to one (drive, offset)
 * inside that drive's implied length, the mapping is one to one, and the
 * drives' lengths add up to the size. */
static void
check_geometry (uint64_t unit, uint32_t n, uint64_t size, uint64_t step)
{
  uint64_t total = 0;
  uint64_t len[16];

  for (uint32_t d = 0; d < n; d++)
    {
      len[d] = ossd_stripe_drive_length (unit, n, size, d);
      total += len[d];
      /* the last byte of each drive's object maps below the size */
      if (len[d])
        assert_true (ossd_stripe_logical_end (unit, n, len[d], d) <= size);
    }
  assert_int_equal (total, size);
  for (uint64_t off = 0; off < size; off += step)
    {
      uint32_t d;
      uint64_t doff, run;

      ossd_stripe_locate (unit, n, off, &d, &doff, &run);
      assert_true (d < n);
      assert_true (doff < len[d]);
      assert_true (run >= 1 && (n == 1 || run <= unit));
      assert_int_equal (ossd_stripe_file_offset (unit, n, d, doff), off);
    }
}

/* RAID-5: every data byte to one (drive, offset), never a parity
 * position, one to one and back; each row's parity on a drive that holds
 * none of the row's data; drive lengths cover what they must and the
 * logical ends stay within the size; the rotation is left-symmetric. */
static void
check_raid5 (uint64_t unit, uint32_t n, uint64_t size, uint64_t step)
{
  struct ossd_geometry g = { .unit = unit, .n = n, .level = OSSD_ARRAY_RAID5 };
  uint64_t len[16], data = 0;
  char why[200];

  assert_int_equal (ossd_geom_check (&g, why, sizeof why), 0);
  assert_int_equal (ossd_geom_data_drives (&g), n - 1);
  for (uint32_t d = 0; d < n; d++)
    {
      len[d] = ossd_geom_drive_length (&g, size, d);
      if (len[d])
        assert_true (ossd_geom_logical_end (&g, len[d], d) <= size);
    }
  for (uint64_t off = 0; off < size; off += step)
    {
      uint32_t d, p;
      uint64_t doff, run, back;

      ossd_geom_locate (&g, off, &d, &doff, &run);
      assert_true (d < n);
      assert_true (doff < len[d]);
      assert_true (run >= 1 && run <= unit);
      assert_true (ossd_geom_file_offset (&g, d, doff, &back));
      assert_int_equal (back, off);
      p = ossd_geom_parity_drive (&g, doff);
      assert_true (p < n && p != d);
      /* the parity unit reaches as far as this byte's offset in its unit */
      assert_true (len[p] > doff % unit + (doff / unit) * unit);
      assert_false (ossd_geom_file_offset (&g, p, doff, &back));
      data++;
    }
  assert_true (data > 0);
  /* row r's parity: drive n-1 at row 0, then one to the left each row */
  for (uint64_t r = 0; r < 2 * n; r++)
    assert_int_equal (ossd_geom_parity_drive (&g, r * unit + 5),
                      (n - 1 + n - r % n) % n);
}

static void
test_geometry_raid5 (void **state)
{
  struct ossd_geometry g = { .unit = 65536, .n = 2, .level = OSSD_ARRAY_RAID5 };
  uint64_t total = 0;
  char why[200];

  check_raid5 (65536, 3, 10 * 65536 + 8192, 4096);
  check_raid5 (65536, 3, 8 * 65536, 8192);
  check_raid5 (8192, 5, 8192 * 11 + 1, 1);
  check_raid5 (1 << 20, 4, 3 << 20, 65536);
  check_raid5 (8192, 4, 8192, 512);         /* one unit: rows of one */
  /* whole rows: the data drives' shares add up to the size, parity is
   * one unit per row more */
  g.n = 4;
  for (uint32_t d = 0; d < 4; d++)
    total += ossd_geom_drive_length (&g, 6 * 3 * 65536, d);
  assert_int_equal (total, 6 * 4 * 65536);
  g.n = 2;
  assert_int_equal (ossd_geom_check (&g, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "raid5 over 2 drives"));
  g.n = 3;
  g.level = 6;
  assert_int_equal (ossd_geom_check (&g, why, sizeof why), -EINVAL);
}

static void
test_geometry_odd_n (void **state)
{
  check_geometry (65536, 3, 10 * 65536 + 8192, 4096);   /* partial last unit */
  check_geometry (65536, 3, 9 * 65536, 8192);           /* whole stripes */
  check_geometry (8192, 5, 8192 * 7 + 1, 1);            /* one byte over */
  check_geometry (1 << 20, 7, 3 << 20, 65536);          /* fewer units than drives */
}

static void
test_geometry_even_and_one (void **state)
{
  check_geometry (65536, 2, 5 * 65536 + 100, 100);
  check_geometry (65536, 8, 17 * 65536 - 1, 4096);
  check_geometry (65536, 1, 1000000, 999);
  /* n = 1 is the identity */
  uint32_t d;
  uint64_t doff, run;
  ossd_stripe_locate (65536, 1, 123456789, &d, &doff, &run);
  assert_int_equal (d, 0);
  assert_int_equal (doff, 123456789);
}

static void
test_geometry_values (void **state)
{
  uint32_t d;
  uint64_t doff, run;
  const uint64_t U = 65536;

  /* unit k on drive k % 3 at (k / 3) * U */
  ossd_stripe_locate (U, 3, 7 * U + 5, &d, &doff, &run);
  assert_int_equal (d, 1);
  assert_int_equal (doff, 2 * U + 5);
  assert_int_equal (run, U - 5);
  /* 4.5 units over 3 drives: 2U, 1.5U, 1U */
  assert_int_equal (ossd_stripe_drive_length (U, 3, 4 * U + U / 2, 0), 2 * U);
  assert_int_equal (ossd_stripe_drive_length (U, 3, 4 * U + U / 2, 1), U + U / 2);
  assert_int_equal (ossd_stripe_drive_length (U, 3, 4 * U + U / 2, 2), U);
  assert_int_equal (ossd_stripe_logical_end (U, 3, U + U / 2, 1), 4 * U + U / 2);
  assert_int_equal (ossd_stripe_logical_end (U, 3, 0, 1), 0);
}

static void
test_unit_check (void **state)
{
  char why[160];

  assert_int_equal (ossd_stripe_unit_check (8192, why, sizeof why), 0);
  assert_int_equal (ossd_stripe_unit_check (1 << 20, why, sizeof why), 0);
  assert_int_equal (ossd_stripe_unit_check (0, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_stripe_unit_check (12288, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "multiple of 8192"));
  assert_int_equal (ossd_stripe_unit_check (2ull << 30, why, sizeof why), -EINVAL);
}

static void
test_label_roundtrip (void **state)
{
  struct ossd_array_label l = { .index = 2, .count = 3, .unit = 65536,
                                .created_ns = 1234567890123ull }, m;
  uint8_t buf[OSSD_ARRAY_LABEL_SIZE];
  char why[200];

  assert_int_equal (ossd_array_new_uuid (l.uuid), 0);
  ossd_array_label_encode (&l, buf);
  assert_memory_equal (buf, "OSSDARR1", 8);
  assert_int_equal (ossd_array_label_decode (&m, buf, sizeof buf, why, sizeof why), 0);
  assert_int_equal (m.index, 2);
  assert_int_equal (m.count, 3);
  assert_int_equal (m.unit, 65536);
  assert_int_equal (m.created_ns, l.created_ns);
  assert_memory_equal (m.uuid, l.uuid, 16);
  /* an index past the count, a bad unit, a short or foreign buffer */
  l.index = 3;
  ossd_array_label_encode (&l, buf);
  assert_int_equal (ossd_array_label_decode (&m, buf, sizeof buf, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "drive 3 of 3"));
  l.index = 0;
  l.unit = 4096;
  ossd_array_label_encode (&l, buf);
  assert_int_equal (ossd_array_label_decode (&m, buf, sizeof buf, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_array_label_decode (&m, buf, 10, why, sizeof why), -EINVAL);
  memcpy (buf, "OSSDFS01", 8);
  assert_int_equal (ossd_array_label_decode (&m, buf, sizeof buf, why, sizeof why), -EINVAL);
  /* RAID-5: version 2 with the level; RAID-0 labels stay version 1 (so
   * older builds read them) */
  l.unit = 65536;
  l.level = OSSD_ARRAY_RAID5;
  ossd_array_label_encode (&l, buf);
  assert_int_equal (buf[8], 2);
  assert_int_equal (ossd_array_label_decode (&m, buf, sizeof buf, why, sizeof why), 0);
  assert_int_equal (m.level, OSSD_ARRAY_RAID5);
  l.count = 2;
  l.index = 1;
  ossd_array_label_encode (&l, buf);
  assert_int_equal (ossd_array_label_decode (&m, buf, sizeof buf, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "raid5 over 2 drives"));
  l.level = OSSD_ARRAY_RAID0;
  ossd_array_label_encode (&l, buf);
  assert_int_equal (buf[8], 1);
}

static void
test_layout_text (void **state)
{
  const char *uris[3] = { "nbd+unix:///?socket=/a", "nbd://127.0.0.1:10809",
                          "file:/dev/x" };
  uint8_t uuid[16] = { 0xcb, 0xed, 0x97, 0x5d, 0x28, 0xd3, 0x45, 0x64,
                       0x94, 0x08, 0x47, 0x0a, 0x02, 0x9c, 0x11, 0x56 };
  struct ossd_layout l;
  char buf[512], why[300];
  struct ossd_geometry g = { .unit = 65536, .n = 3, .level = OSSD_ARRAY_RAID0 };
  int n = ossd_layout_format (buf, sizeof buf, &g, uuid, 0, uris);

  assert_true (n > 0);
  assert_string_equal (buf, "raid0 n=3 unit=65536 uuid=cbed975d-28d3-4564-9408-470a029c1156 drives=nbd+unix:///?socket=/a,nbd://127.0.0.1:10809,file:/dev/x");
  assert_int_equal (ossd_layout_parse (buf, &l, why, sizeof why), 0);
  assert_int_equal (l.n, 3);
  assert_int_equal (l.unit, 65536);
  assert_string_equal (l.uris[1], "nbd://127.0.0.1:10809");
  ossd_layout_free (&l);
  assert_int_equal (ossd_layout_parse ("raid0 n=2 unit=65536 drives=a", &l, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_layout_parse ("raid5 n=1 unit=65536 drives=a", &l, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_layout_format (buf, 20, &g, NULL, 0, uris), -ERANGE);
  g.level = OSSD_ARRAY_RAID5;
  assert_true (ossd_layout_format (buf, sizeof buf, &g, NULL, 0, uris) > 0);
  assert_string_equal (buf, "raid5 n=3 unit=65536 drives=nbd+unix:///?socket=/a,nbd://127.0.0.1:10809,file:/dev/x");
  assert_int_equal (ossd_layout_parse (buf, &l, why, sizeof why), 0);
  assert_int_equal (l.level, OSSD_ARRAY_RAID5);
  assert_int_equal (l.n, 3);
  assert_int_equal (l.out_mask, 0);
  ossd_layout_free (&l);
  /* a degraded array names the drive that is out */
  assert_true (ossd_layout_format (buf, sizeof buf, &g, NULL, 1u << 2, uris) > 0);
  assert_non_null (strstr (buf, " out=2 drives="));
  assert_int_equal (ossd_layout_parse (buf, &l, why, sizeof why), 0);
  assert_int_equal (l.out_mask, 1u << 2);
  ossd_layout_free (&l);
  assert_int_equal (ossd_layout_parse ("raid5 n=3 unit=65536 out=3 drives=a,b,c", &l, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_layout_parse ("raid0 n=3 unit=65536 out=1 drives=a,b,c", &l, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_layout_parse ("raid5 n=2 unit=65536 drives=a,b", &l, why, sizeof why), -EINVAL);
  assert_int_equal (ossd_layout_parse ("raid6 n=4 unit=65536 drives=a,b,c,d", &l, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "neither raid0 nor raid5"));
}

static void
test_key_beside_socket (void **state)
{
  char dir[] = "/tmp/ossd-test-array.XXXXXX", key[4096], uri[4200], want[4200];
  FILE *f;

  assert_non_null (mkdtemp (dir));
  snprintf (want, sizeof want, "%s/ossd.key", dir);
  f = fopen (want, "w");
  assert_non_null (f);
  fclose (f);
  snprintf (uri, sizeof uri, "nbd+unix:///?socket=%s/ossd.sock", dir);
  ossd_key_file_for_uri (uri, key, sizeof key);
  assert_string_equal (key, want);
  unlink (want);
  /* no key there: the default */
  setenv ("OSSD_KEY_FILE", "/elsewhere/k", 1);
  ossd_key_file_for_uri (uri, key, sizeof key);
  assert_string_equal (key, "/elsewhere/k");
  rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_geometry_odd_n),
    cmocka_unit_test (test_geometry_even_and_one),
    cmocka_unit_test (test_geometry_values),
    cmocka_unit_test (test_geometry_raid5),
    cmocka_unit_test (test_unit_check),
    cmocka_unit_test (test_label_roundtrip),
    cmocka_unit_test (test_layout_text),
    cmocka_unit_test (test_key_beside_socket),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
