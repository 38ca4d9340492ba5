/* test_frame.c - framing, control block, reassembly and CRC32C. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "ossd_frame.h"

uint32_t ossd_crc32c_portable (uint32_t crc, const void *buf, size_t len);

static void
test_crc32c_known_vector (void **state)
{
  /* RFC 3720 check value for "123456789". */
  assert_int_equal (ossd_crc32c (0, "123456789", 9), 0xe3069283u);
  assert_int_equal (ossd_crc32c_portable (0, "123456789", 9), 0xe3069283u);
  /* 32 zero bytes (RFC 3720 B.4). */
  uint8_t z[32] = { 0 };
  assert_int_equal (ossd_crc32c (0, z, sizeof z), 0x8a9136aau);
}

static void
test_crc32c_paths_agree_and_chain (void **state)
{
  uint8_t buf[5000];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t) (i * 131 + 7);
  for (size_t len = 0; len < sizeof buf; len += 97)
    for (size_t off = 0; off < 9; off++)
      if (off + len <= sizeof buf)
        assert_int_equal (ossd_crc32c (0, buf + off, len),
                          ossd_crc32c_portable (0, buf + off, len));
  /* Large buffers take the three-chain path: same answers. */
  static uint8_t big[3 << 20];
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = (uint8_t) (i * 2654435761u >> 13);
  static const size_t sizes[] = { 16384, 16385, 16391, 65536 + 5, 1 << 20, (1 << 20) + 4096 + 64, 3 << 20 };
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (size_t off = 0; off < 3; off++)
      if (off + sizes[k] <= sizeof big)
        assert_int_equal (ossd_crc32c (0x1234, big + off, sizes[k]),
                          ossd_crc32c_portable (0x1234, big + off, sizes[k]));
  /* CRC while copying: same value, same bytes. */
  static uint8_t copy[3 << 20];
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    {
      memset (copy, 0, sizes[k]);
      assert_int_equal (ossd_crc32c_copy (0x77, copy, big + 1, sizes[k]),
                        ossd_crc32c_portable (0x77, big + 1, sizes[k]));
      assert_memory_equal (copy, big + 1, sizes[k]);
    }
  assert_int_equal (ossd_crc32c_copy (5, copy, big, 100), ossd_crc32c (5, big, 100));
  uint32_t whole = ossd_crc32c (0, buf, 4000);
  uint32_t part = ossd_crc32c (ossd_crc32c (0, buf, 1234), buf + 1234, 2766);
  assert_int_equal (whole, part);
}

static void
test_frame_roundtrip (void **state)
{
  uint8_t out[8192], payload[100];
  struct ossd_frame_hdr h = { 0 }, d;
  const void *chunk;
  char why[200];

  for (int i = 0; i < 100; i++)
    payload[i] = (uint8_t) i;
  h.slot = 3;
  h.nonce = 0x1122334455667788ull;
  h.sequence = 42;
  h.total_length = 100;
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  size_t n = ossd_frame_encode (&h, payload, 100, out, sizeof out);
  assert_int_equal (n, OSSD_FRAME_HDR_SIZE + 100);
  assert_int_equal (ossd_frame_decode (out, sizeof out, &d, &chunk, why, sizeof why), 0);
  assert_int_equal (d.slot, 3);
  assert_int_equal (d.nonce, 0x1122334455667788ull);
  assert_int_equal (d.sequence, 42);
  assert_int_equal (d.chunk_length, 100);
  assert_memory_equal (chunk, payload, 100);
  /* Too small a buffer is refused by the encoder. */
  assert_int_equal (ossd_frame_encode (&h, payload, 100, out, 100), 0);
}

static void
test_frame_rejects_bad_input (void **state)
{
  uint8_t out[4096];
  struct ossd_frame_hdr h = { 0 }, d;
  const void *chunk;
  char why[200];

  h.total_length = 10;
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  ossd_frame_encode (&h, "0123456789", 10, out, sizeof out);

  /* short */
  assert_int_equal (ossd_frame_decode (out, 10, &d, &chunk, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "shorter"));
  /* bad magic */
  uint8_t bad[4096];
  memcpy (bad, out, sizeof bad);
  bad[0] ^= 0xff;
  assert_int_equal (ossd_frame_decode (bad, sizeof bad, &d, &chunk, why, sizeof why), -EBADMSG);
  assert_non_null (strstr (why, "magic"));
  /* bad CRC: flip a payload byte */
  memcpy (bad, out, sizeof bad);
  bad[OSSD_FRAME_HDR_SIZE + 3] ^= 1;
  assert_int_equal (ossd_frame_decode (bad, sizeof bad, &d, &chunk, why, sizeof why), -EBADMSG);
  assert_non_null (strstr (why, "CRC32C"));
  /* chunk longer than the buffer */
  assert_int_equal (ossd_frame_decode (out, OSSD_FRAME_HDR_SIZE + 5, &d, &chunk, why, sizeof why), -EMSGSIZE);
  /* chunk outside the message */
  h.total_length = 4;
  ossd_frame_encode (&h, "0123456789", 10, out, sizeof out);
  assert_int_equal (ossd_frame_decode (out, sizeof out, &d, &chunk, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "outside"));
  /* wrong version */
  h.total_length = 10;
  ossd_frame_encode (&h, "0123456789", 10, out, sizeof out);
  out[4] = 9;
  assert_int_equal (ossd_frame_decode (out, sizeof out, &d, &chunk, why, sizeof why), -EPROTO);
}

static void
test_control_roundtrip_and_checks (void **state)
{
  struct ossd_control c = { 0 }, d;
  uint8_t lba[OSSD_LBA_SIZE];
  char why[200];

  c.magic = OSSD_CONTROL_MAGIC;
  c.version = OSSD_PROTO_VERSION;
  c.lba_size_shift = 12;
  c.slot_count = 4;
  c.window_lbas = 8;
  c.reserved_base = 1000;
  c.total_lbas = 1000 + ossd_reserved_lbas (4, 8);
  c.slot_owner[2] = 77;
  ossd_control_encode (&c, lba);
  assert_int_equal (ossd_control_decode (lba, &d, why, sizeof why), 0);
  assert_int_equal (d.slot_owner[2], 77);
  assert_int_equal (ossd_request_lba (&d, 1), 1000 + 1 + 16);
  assert_int_equal (ossd_response_lba (&d, 1), 1000 + 1 + 16 + 8);
  assert_int_equal (ossd_response_lba (&d, 3) + 8, d.total_lbas - 1);
  lba[40] ^= 1;
  assert_int_equal (ossd_control_decode (lba, &d, why, sizeof why), -EBADMSG);
  memset (lba, 0, sizeof lba);
  assert_int_equal (ossd_control_decode (lba, &d, why, sizeof why), -ENODEV);
  assert_non_null (strstr (why, "not an ossd drive"));
  c.total_lbas++;
  ossd_control_encode (&c, lba);
  assert_int_equal (ossd_control_decode (lba, &d, why, sizeof why), -EINVAL);
}

static void
test_reassembly_in_order_and_errors (void **state)
{
  struct ossd_reassembly r;
  struct ossd_frame_hdr h = { 0 };
  char why[200];

  ossd_reassembly_init (&r, 1000);
  h.sequence = 5;
  h.total_length = 10;
  h.flags = OSSD_F_FIRST | OSSD_F_MORE;
  h.chunk_length = 4;
  assert_int_equal (ossd_reassembly_add (&r, &h, "abcd", why, sizeof why), 0);
  h.flags = OSSD_F_LAST;
  h.chunk_offset = 4;
  h.chunk_length = 6;
  assert_int_equal (ossd_reassembly_add (&r, &h, "efghij", why, sizeof why), 1);
  assert_memory_equal (r.buf, "abcdefghij", 10);

  /* continuation without FIRST */
  ossd_reassembly_reset (&r);
  assert_int_equal (ossd_reassembly_add (&r, &h, "efghij", why, sizeof why), -EINVAL);
  /* gap */
  h.flags = OSSD_F_FIRST | OSSD_F_MORE;
  h.chunk_offset = 0;
  h.chunk_length = 4;
  assert_int_equal (ossd_reassembly_add (&r, &h, "abcd", why, sizeof why), 0);
  h.flags = OSSD_F_LAST;
  h.chunk_offset = 5;
  h.chunk_length = 5;
  assert_int_equal (ossd_reassembly_add (&r, &h, "fghij", why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "out-of-order"));
  /* too large */
  h.flags = OSSD_F_FIRST;
  h.chunk_offset = 0;
  h.total_length = 5000;
  assert_int_equal (ossd_reassembly_add (&r, &h, "x", why, sizeof why), -EMSGSIZE);
  /* LAST before the end */
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  h.total_length = 10;
  h.chunk_length = 3;
  assert_int_equal (ossd_reassembly_add (&r, &h, "abc", why, sizeof why), -EINVAL);
  ossd_reassembly_free (&r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_crc32c_known_vector),
    cmocka_unit_test (test_crc32c_paths_agree_and_chain),
    cmocka_unit_test (test_frame_roundtrip),
    cmocka_unit_test (test_frame_rejects_bad_input),
    cmocka_unit_test (test_control_roundtrip_and_checks),
    cmocka_unit_test (test_reassembly_in_order_and_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
