/* crc32c.c - CRC32C (Castagnoli) for channel frames.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (frames carry up
 * to a megabyte, so a table-driven CRC would dominate bulk reads), and a
 * slicing-by-8 table otherwise.  Both give the same result.
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

/* Standard CRC32C: pass crc = 0 to start; chaining works by passing the
 * previous result. */
uint32_t
ossd_crc32c (uint32_t crc, const void *buf, size_t len)
{
  crc = ~crc;
#if defined(__x86_64__)
  if (__builtin_cpu_supports ("sse4.2"))
    return ~crc32c_hw (crc, buf, len);
#endif
  return ~crc32c_sw (crc, buf, len);
}

/* Exposed for the unit test that checks both paths agree. */
uint32_t ossd_crc32c_portable (uint32_t crc, const void *buf, size_t len);
uint32_t
ossd_crc32c_portable (uint32_t crc, const void *buf, size_t len)
{
  return ~crc32c_sw (~crc, buf, len);
}
