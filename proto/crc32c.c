/* crc32c.c - CRC32C (Castagnoli) for channel frames.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (frames carry up
 * to a megabyte, so a table-driven CRC would dominate bulk reads), and a
 * slicing-by-8 table otherwise.  Both give the same result.  Large
 * buffers run three independent crc32 chains at once (the instruction's
 * latency, not its throughput, limits one chain) and join them with the
 * CRC combination rule: crc(A||B) = crc(A) * x^(8|B|) mod P  xor  crc(B).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>

#include "ossd_frame.h"

#define CRC32C_POLY_REFLECTED 0x82f63b78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void
crc32c_build_tables (void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_REFLECTED : c >> 1;
      crc_table[0][i] = c;
    }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8)
        ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

static uint32_t
crc32c_sw (uint32_t crc, const uint8_t *p, size_t len)
{
  pthread_once (&crc_table_once, crc32c_build_tables);
  while (len >= 8)
    {
      uint64_t w;
      memcpy (&w, p, 8);
      w ^= crc;
      crc = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff]
        ^ crc_table[5][(w >> 16) & 0xff] ^ crc_table[4][(w >> 24) & 0xff]
        ^ crc_table[3][(w >> 32) & 0xff] ^ crc_table[2][(w >> 40) & 0xff]
        ^ crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
      p += 8;
      len -= 8;
    }
  while (len--)
    crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
  return crc;
}

/* a * b modulo the CRC polynomial, in the reflected bit order CRC32C
 * registers use (bit 31 is the x^0 coefficient). */
static uint32_t
gf2_mulmod (uint32_t a, uint32_t b)
{
  uint32_t product = 0;

  for (uint32_t bit = 1u << 31; bit; bit >>= 1)
    {
      if (a & bit)
        product ^= b;
      b = (b & 1) ? (b >> 1) ^ CRC32C_POLY_REFLECTED : b >> 1;
    }
  return product;
}

/* x^(8*len) mod P: square-and-multiply over the bits of len. */
static uint32_t
x_pow_8len (size_t len)
{
  uint32_t result = 1u << 31;          /* x^0 */
  uint32_t power = 1u << 23;           /* x^8 */

  while (len)
    {
      if (len & 1)
        result = gf2_mulmod (result, power);
      power = gf2_mulmod (power, power);
      len >>= 1;
    }
  return result;
}

/* CRC of A||B from crc(A) and crc(B) (both finished CRC values). */
static uint32_t
crc32c_combine (uint32_t crc_a, uint32_t crc_b, size_t len_b)
{
  return gf2_mulmod (x_pow_8len (len_b), crc_a) ^ crc_b;
}

#if defined(__x86_64__)
__attribute__ ((target ("sse4.2")))
static uint32_t
crc32c_hw (uint32_t crc, const uint8_t *p, size_t len)
{
  uint64_t c = crc;
  while (len && ((uintptr_t) p & 7))
    {
      c = __builtin_ia32_crc32qi ((uint32_t) c, *p++);
      len--;
    }
  while (len >= 8)
    {
      uint64_t w;
      memcpy (&w, p, 8);
      c = __builtin_ia32_crc32di (c, w);
      p += 8;
      len -= 8;
    }
  while (len--)
    c = __builtin_ia32_crc32qi ((uint32_t) c, *p++);
  return (uint32_t) c;
}
#endif

#if defined(__x86_64__)
/* Three chains over three equal thirds, then the tail.  Takes and returns
 * finished CRC values. */
__attribute__ ((target ("sse4.2")))
static uint32_t
crc32c_hw_3way (uint32_t crc, const uint8_t *p, size_t len)
{
  size_t third = len / 24 * 8;
  const uint8_t *a = p, *b = p + third, *c = p + 2 * third;
  uint64_t ca = (uint32_t) ~crc, cb = 0xffffffffu, cc = 0xffffffffu;

  for (size_t i = 0; i < third; i += 8)
    {
      uint64_t wa, wb, wc;
      memcpy (&wa, a + i, 8);
      memcpy (&wb, b + i, 8);
      memcpy (&wc, c + i, 8);
      ca = __builtin_ia32_crc32di (ca, wa);
      cb = __builtin_ia32_crc32di (cb, wb);
      cc = __builtin_ia32_crc32di (cc, wc);
    }
  crc = crc32c_combine (~(uint32_t) ca, ~(uint32_t) cb, third);
  crc = crc32c_combine (crc, ~(uint32_t) cc, third);
  return ~crc32c_hw (~crc, p + 3 * third, len - 3 * third);
}
#endif

/* One pass: CRC of each 8-byte word as it is stored.  Three chains, as
 * above, for large copies. */
#if defined(__x86_64__)
__attribute__ ((target ("sse4.2")))
static uint32_t
crc32c_copy_hw (uint32_t crc, uint8_t *dst, const uint8_t *src, size_t len)
{
  size_t third = len >= 16384 ? len / 24 * 8 : 0;
  uint64_t ca = (uint32_t) ~crc, cb = 0xffffffffu, cc = 0xffffffffu;

  for (size_t i = 0; i < third; i += 8)
    {
      uint64_t wa, wb, wc;
      memcpy (&wa, src + i, 8);
      memcpy (&wb, src + third + i, 8);
      memcpy (&wc, src + 2 * third + i, 8);
      memcpy (dst + i, &wa, 8);
      memcpy (dst + third + i, &wb, 8);
      memcpy (dst + 2 * third + i, &wc, 8);
      ca = __builtin_ia32_crc32di (ca, wa);
      cb = __builtin_ia32_crc32di (cb, wb);
      cc = __builtin_ia32_crc32di (cc, wc);
    }
  if (third)
    {
      crc = crc32c_combine (~(uint32_t) ca, ~(uint32_t) cb, third);
      crc = crc32c_combine (crc, ~(uint32_t) cc, third);
    }
  size_t done = 3 * third;
  memcpy (dst + done, src + done, len - done);
  return ~crc32c_hw (~crc, src + done, len - done);
}
#endif

uint32_t
ossd_crc32c_copy (uint32_t crc, void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
  if (__builtin_cpu_supports ("sse4.2"))
    return crc32c_copy_hw (crc, dst, src, len);
#endif
  memcpy (dst, src, len);
  return ossd_crc32c (crc, dst, len);
}

/* Standard CRC32C: pass crc = 0 to start; chaining works by passing the
 * previous result. */
uint32_t
ossd_crc32c (uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__)
  if (__builtin_cpu_supports ("sse4.2"))
    return len >= 16384 ? crc32c_hw_3way (crc, buf, len)
      : ~crc32c_hw (~crc, buf, len);
#endif
  return ~crc32c_sw (~crc, buf, len);
}

/* Exposed for the unit test that checks both paths agree. */
uint32_t ossd_crc32c_portable (uint32_t crc, const void *buf, size_t len);
uint32_t
ossd_crc32c_portable (uint32_t crc, const void *buf, size_t len)
{
  return ~crc32c_sw (~crc, buf, len);
}
