/* test_integrity.c - the data CRC of NAND pages, end to end in the FTL:
 * a single bit flipped in a page's data (in the image file, through the
 * mapped and the pread read paths, and in the RAM backend) makes every
 * read of a sector in that page fail with an error naming object, offset
 * and NAND page, while the other pages read back intact; GC moves a
 * corrupt page's sectors without laundering them (reads still fail, after
 * a reopen too); fsck reads every page and lists each flipped one. */
#include "ftl_test_util.h"

#include <fcntl.h>

#include "ftl_internal.h"

#define OBJ_BYTES (256u << 10)

/* NAND page holding sector lpn of object pid:oid */
static uint64_t
page_of (ftl_t *f, uint64_t pid, uint64_t oid, uint32_t lpn)
{
  struct ftl_object *o = ftl_index_lookup (f, pid, oid);
  assert_non_null (o);
  ppa_t p = map_get (f, o, lpn);
  assert_true (p != PPA_NONE);
  return p / f->nand.geo.spp;
}

/* Flip bit `bit` of byte `byte` of page's data in the image file (as a
 * media error would, behind the FTL's back). */
static void
flip_in_image (ftl_t *f, const char *path, uint64_t page, uint32_t byte,
               int bit)
{
  int fd = open (path, O_RDWR);
  uint8_t c;
  off_t at = (off_t) (f->lay.data_off + page * f->nand.geo.page_size + byte);
  assert_true (fd >= 0);
  assert_int_equal (pread (fd, &c, 1, at), 1);
  c ^= (uint8_t) (1u << bit);
  assert_int_equal (pwrite (fd, &c, 1, at), 1);
  close (fd);
}

static ftl_t *
make_drive (const char *path, uint64_t oid_count)
{
  struct ftl_config c;
  ftl_error e = { "" };
  ftl_t *f;
  uint8_t *buf = malloc (OBJ_BYTES);

  small_config (&c);
  unlink (path ? path : "");
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  for (uint64_t oid = 1; oid <= oid_count; oid++)
    {
      fill_pattern (buf, OBJ_BYTES, oid, 0, 0);
      assert_int_equal (ftl_create_object (f, 1, oid, &e), 0);
      assert_int_equal (ftl_write (f, 1, oid, 0, buf, OBJ_BYTES, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
  free (buf);
  return f;
}

/* Read all of pid 1 object oid: 0 and the right bytes, or an error naming
 * the object and an offset inside bad_page (never wrong bytes). */
static int
read_object (ftl_t *f, uint64_t oid, char *msg, size_t msglen)
{
  uint8_t *want = malloc (OBJ_BYTES), *got = malloc (OBJ_BYTES);
  ftl_error e = { "" };
  size_t n = 0;
  fill_pattern (want, OBJ_BYTES, oid, 0, 0);
  memset (got, 0, OBJ_BYTES);
  int r = ftl_read (f, 1, oid, 0, got, OBJ_BYTES, &n, &e);
  if (r == 0)
    {
      assert_int_equal (n, OBJ_BYTES);
      if (memcmp (want, got, OBJ_BYTES) != 0)
        fail_msg ("object 1:%llu read back wrong bytes with no error",
                  (unsigned long long) oid);
    }
  snprintf (msg, msglen, "%s", e.msg);
  free (want);
  free (got);
  return r;
}

static void
expect_mismatch_at (const char *msg, uint64_t oid, uint64_t offset,
                    uint64_t page)
{
  char want[160], want_page[64];
  snprintf (want, sizeof want, "data CRC mismatch in object 1:%llu at offset %llu",
            (unsigned long long) oid, (unsigned long long) offset);
  snprintf (want_page, sizeof want_page, "NAND page %llu", (unsigned long long) page);
  if (!strstr (msg, want) || !strstr (msg, want_page))
    fail_msg ("error '%s' does not say '%s' and '%s'", msg, want, want_page);
}

static void
bitflip_in_file_image (bool use_mmap)
{
  char path[300], msg[512];
  ftl_error e = { "" };
  uint8_t buf[4096], want[4096];
  size_t n;

  snprintf (path, sizeof path, "%s", tmp_image (use_mmap ? "crc-map" : "crc-pread"));
  if (use_mmap)
    unsetenv ("OSSD_NAND_NO_MMAP");
  else
    setenv ("OSSD_NAND_NO_MMAP", "1", 1);
  ftl_t *f = make_drive (path, 3);
  uint32_t spp = f->nand.geo.spp;
  /* object 2, sector 9: flip one bit in the last sector of its page, so a
   * read of sector 9 alone (another sector of the page) fails too */
  uint64_t page = page_of (f, 1, 2, 9);
  uint32_t first_lpn = 9 - (uint32_t) (map_get (f, ftl_index_lookup (f, 1, 2), 9) % spp);
  flip_in_image (f, path, page, f->nand.geo.page_size - 100, 3);

  assert_int_equal (read_object (f, 1, msg, sizeof msg), 0);
  assert_int_equal (read_object (f, 3, msg, sizeof msg), 0);
  assert_int_equal (read_object (f, 2, msg, sizeof msg), -EIO);
  expect_mismatch_at (msg, 2, (uint64_t) first_lpn * 4096, page);
  /* one sector of that page alone: refused, nothing copied */
  memset (buf, 0xee, sizeof buf);
  assert_int_equal (ftl_read (f, 1, 2, 9 * 4096, buf, 4096, &n, &e), -EIO);
  expect_mismatch_at (e.msg, 2, 9 * 4096, page);
  assert_int_equal (n, 0);
  /* a sector of another page of the same object: fine */
  uint32_t other = first_lpn + spp;
  assert_int_equal (ftl_read (f, 1, 2, (uint64_t) other * 4096, buf, 4096, &n, &e), 0);
  fill_pattern (want, 4096, 2, (uint64_t) other * 4096, 0);
  assert_memory_equal (buf, want, 4096);
  /* and the same after a clean close and reopen */
  ftl_close (f);
  assert_int_equal (ftl_open (path, &f, &e), 0);
  assert_int_equal (read_object (f, 2, msg, sizeof msg), -EIO);
  expect_mismatch_at (msg, 2, (uint64_t) first_lpn * 4096, page);
  assert_int_equal (read_object (f, 1, msg, sizeof msg), 0);
  ftl_close (f);
  unlink (path);
  unsetenv ("OSSD_NAND_NO_MMAP");
}

static void
test_bitflip_mapped_read (void **state)
{
  bitflip_in_file_image (true);
}

static void
test_bitflip_pread_read (void **state)
{
  bitflip_in_file_image (false);
}

/* The RAM backend keeps data CRCs as well. */
static void
test_bitflip_ram (void **state)
{
  char msg[512];
  ftl_t *f = make_drive (NULL, 2);
  uint64_t page = page_of (f, 1, 1, 20);
  uint8_t *data = (uint8_t *) f->nand.be->ops->page_data (f->nand.be, page);
  data[1234] ^= 0x40;
  assert_int_equal (read_object (f, 1, msg, sizeof msg), -EIO);
  assert_non_null (strstr (msg, "data CRC mismatch in object 1:1 at offset"));
  assert_int_equal (read_object (f, 2, msg, sizeof msg), 0);
  ftl_close (f);
}

/* Overwrite object 9 (whose pages sit between object pid:oid's), then let
 * GC collect victims (fewest valid first) until it has moved `page`. */
static void
gc_until_moved (ftl_t *f, uint64_t pid, uint64_t oid, uint32_t lpn,
                uint64_t page)
{
  ftl_error e = { "" };
  struct ftl_stats st;
  uint8_t *buf = malloc (OBJ_BYTES);
  fill_pattern (buf, OBJ_BYTES, 9, 0, 1);
  assert_int_equal (ftl_write (f, 1, 9, 0, buf, OBJ_BYTES, &e), 0);
  free (buf);
  for (int round = 0; round < 16 && page_of (f, pid, oid, lpn) == page; round++)
    {
      pthread_mutex_lock (&f->lock);
      int r = ftl_gc_collect (f, 1, f->free_blocks + f->npending + 1, 0);
      pthread_mutex_unlock (&f->lock);
      assert_int_equal (r, 0);
    }
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_true (page_of (f, pid, oid, lpn) != page);
  assert_true (st.gc_corrupt_copies > 0);
}

static void
test_gc_does_not_launder (void **state)
{
  char path[300], msg[512];
  ftl_error e = { "" };
  uint64_t problems = 0;

  snprintf (path, sizeof path, "%s", tmp_image ("crc-gc"));
  ftl_t *f = make_drive (path, 2);
  /* object 1 again, its pages interleaved with pages of object 9 that the
   * churn below overwrites, so that its blocks become GC victims */
  uint8_t *buf = malloc (OBJ_BYTES);
  fill_pattern (buf, OBJ_BYTES, 1, 0, 0);
  assert_int_equal (ftl_create_object (f, 1, 9, &e), 0);
  for (uint32_t off = 0; off < OBJ_BYTES; off += 16384)
    {
      assert_int_equal (ftl_write (f, 1, 1, off, buf + off, 16384, &e), 0);
      assert_int_equal (ftl_write (f, 1, 9, off, buf, 16384, &e), 0);
    }
  /* then enough other data that those blocks fill up and close */
  assert_int_equal (ftl_create_object (f, 1, 8, &e), 0);
  for (uint32_t off = 0; off < (8u << 20); off += OBJ_BYTES)
    assert_int_equal (ftl_write (f, 1, 8, off, buf, OBJ_BYTES, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  free (buf);
  uint64_t page = page_of (f, 1, 1, 33);
  flip_in_image (f, path, page, 7, 0);
  gc_until_moved (f, 1, 1, 33, page);
  uint64_t moved_to = page_of (f, 1, 1, 33);
  /* the copy sits in a page with a good CRC, yet it is still refused */
  assert_int_equal (read_object (f, 1, msg, sizeof msg), -EIO);
  if (!strstr (msg, "data CRC mismatch in object 1:1 at offset")
      || !strstr (msg, "; found when GC moved it"))
    fail_msg ("after GC: %s", msg);
  assert_int_equal (read_object (f, 2, msg, sizeof msg), 0);
  assert_int_equal (ftl_fsck (f, &problems, &e), -EUCLEAN);
  assert_true (problems > 0);
  assert_non_null (strstr (e.msg, "GC copy of a page that failed its data CRC"));
  /* the mark is in the OOB: it survives a reopen */
  assert_int_equal (ftl_flush (f, &e), 0);
  ftl_close (f);
  assert_int_equal (ftl_open (path, &f, &e), 0);
  assert_int_equal (page_of (f, 1, 1, 33), moved_to);
  assert_int_equal (read_object (f, 1, msg, sizeof msg), -EIO);
  if (!strstr (msg, "data CRC mismatch in object 1:1 at offset"))
    fail_msg ("after reopen: %s", msg);
  ftl_close (f);
  unlink (path);
}

struct collected
{
  char lines[64][256];
  unsigned n;
};

static void
collect (void *arg, const char *problem)
{
  struct collected *c = arg;
  if (c->n < 64)
    snprintf (c->lines[c->n++], sizeof c->lines[0], "%s", problem);
}

static void
test_fsck_lists_every_flipped_page (void **state)
{
  char path[300];
  ftl_error e = { "" };
  uint64_t problems = 0, pages[5];
  struct collected c = { .n = 0 };

  snprintf (path, sizeof path, "%s", tmp_image ("crc-fsck"));
  ftl_t *f = make_drive (path, 5);
  expect_fsck_clean (f);
  for (uint64_t i = 0; i < 5; i++)
    {
      pages[i] = page_of (f, 1, i + 1, (uint32_t) (i * 11 % 64));
      flip_in_image (f, path, pages[i], (uint32_t) (i * 3001 % 16384), (int) i);
    }
  assert_int_equal (ftl_fsck_report (f, &problems, collect, &c, &e), -EUCLEAN);
  assert_int_equal (problems, 5);
  assert_int_equal (c.n, 5);
  for (uint64_t i = 0; i < 5; i++)
    {
      char want[64], obj[64];
      bool found = false;
      snprintf (want, sizeof want, "data CRC mismatch in NAND page %llu ",
                (unsigned long long) pages[i]);
      snprintf (obj, sizeof obj, "object 1:%llu at offset", (unsigned long long) i + 1);
      for (unsigned k = 0; k < c.n; k++)
        if (strstr (c.lines[k], want) && strstr (c.lines[k], obj))
          found = true;
      if (!found)
        fail_msg ("fsck did not list page %llu of object 1:%llu",
                  (unsigned long long) pages[i], (unsigned long long) i + 1);
    }
  ftl_close (f);
  unlink (path);
}

/* The CRC32C every image's OOB carries: the three-stream hardware path
 * equals the bitwise definition for every length and alignment around
 * its block sizes (a difference would fail every page of old images). */
static void
test_crc32c_matches_definition (void **state)
{
  static uint8_t b[3 * 4096 * 2 + 3 * 256 + 64];
  static const size_t lens[] = { 0, 1, 7, 8, 9, 767, 768, 769, 4096, 12287,
                                 12288, 12289, 13056, 16384, 16389, sizeof b - 3 };
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < sizeof b; i++)
    {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b[i] = (uint8_t) x;
    }
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
    for (size_t a = 0; a < 3; a++)
      {
        uint32_t want = ~0x1234u;
        for (size_t k = 0; k < lens[i]; k++)
          {
            want ^= b[a + k];
            for (int j = 0; j < 8; j++)
              want = want & 1 ? (want >> 1) ^ 0x82f63b78u : want >> 1;
          }
        assert_int_equal (ftl_crc32c (0x1234, b + a, lens[i]), ~want);
      }
  assert_int_equal (ftl_crc32c (0, "123456789", 9), 0xe3069283u);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_crc32c_matches_definition),
    cmocka_unit_test (test_bitflip_mapped_read),
    cmocka_unit_test (test_bitflip_pread_read),
    cmocka_unit_test (test_bitflip_ram),
    cmocka_unit_test (test_gc_does_not_launder),
    cmocka_unit_test (test_fsck_lists_every_flipped_page),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
