/* ftl_util.c - error reporting, CRC32C and the wall clock used by the FTL. */
#include <time.h>

#include "ftl_internal.h"

int
ftl_fail (ftl_error *err, int rc, const char *fmt, ...)
{
  if (err)
    {
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (err->msg, sizeof err->msg, fmt, ap);
      va_end (ap);
    }
  return rc;
}

uint64_t
ftl_wall_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* CRC32C (Castagnoli): SSE4.2 instruction when the CPU has it, else a
 * table.  Used for OOB records, page data (checked on every read, so its
 * speed matters) and checkpoints.
 *
 * The crc32 instruction has a latency of three cycles and a throughput of
 * one, so the hardware path runs three independent streams over adjacent
 * thirds of a block and joins them: the CRC register is linear, so
 * reg(A B, r) = shift_|B|(reg(A, r)) ^ reg(B, 0), where shift_n multiplies
 * by x^(8n) modulo the polynomial; for the two block lengths used the shift
 * is a table of four bytes' contributions, built once. */
#define CRC_POLY 0x82f63b78u
#define CRC_LONG 4096u          /* bytes per stream, long blocks */
#define CRC_SHORT 256u          /* bytes per stream, short blocks */
static uint32_t crc_table[256];
static uint32_t crc_shift_long[4][256], crc_shift_short[4][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static bool crc_hw;

/* a * b modulo the polynomial (bit-reflected: bit 31 is x^0) */
static uint32_t
crc_multmodp (uint32_t a, uint32_t b)
{
  uint32_t m = 1u << 31, p = 0;
  for (;;)
    {
      if (a & m)
        {
          p ^= b;
          if ((a & (m - 1)) == 0)
            break;
        }
      m >>= 1;
      b = b & 1 ? (b >> 1) ^ CRC_POLY : b >> 1;
    }
  return p;
}

/* x^(8n) modulo the polynomial */
static uint32_t
crc_x8n (size_t n)
{
  uint32_t r = 1u << 31, sq = 1u << 23;   /* x^0; x^8 */
  while (n)
    {
      if (n & 1)
        r = crc_multmodp (sq, r);
      sq = crc_multmodp (sq, sq);
      n >>= 1;
    }
  return r;
}

static void
crc_shift_table (uint32_t t[4][256], size_t n)
{
  uint32_t x = crc_x8n (n);
  for (uint32_t k = 0; k < 4; k++)
    for (uint32_t b = 0; b < 256; b++)
      t[k][b] = crc_multmodp (x, b << (8 * k));
}

static inline uint32_t
crc_shift (const uint32_t t[4][256], uint32_t crc)
{
  return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff]
    ^ t[3][crc >> 24];
}

static void
crc_init (void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ CRC_POLY : c >> 1;
      crc_table[i] = c;
    }
  crc_shift_table (crc_shift_long, CRC_LONG);
  crc_shift_table (crc_shift_short, CRC_SHORT);
#if defined(__x86_64__)
  __builtin_cpu_init ();
  crc_hw = __builtin_cpu_supports ("sse4.2");
#endif
}

#if defined(__x86_64__)
/* three streams of `blk` bytes each from p, joined into crc */
__attribute__ ((target ("sse4.2"))) static inline uint64_t
crc_hw_3way (uint64_t c0, const uint8_t *p, size_t blk,
             const uint32_t t[4][256])
{
  uint64_t c1 = 0, c2 = 0;
  for (size_t i = 0; i < blk; i += 8)
    {
      uint64_t v0, v1, v2;
      memcpy (&v0, p + i, 8);
      memcpy (&v1, p + blk + i, 8);
      memcpy (&v2, p + 2 * blk + i, 8);
      c0 = __builtin_ia32_crc32di (c0, v0);
      c1 = __builtin_ia32_crc32di (c1, v1);
      c2 = __builtin_ia32_crc32di (c2, v2);
    }
  c0 = crc_shift (t, (uint32_t) c0) ^ c1;
  return crc_shift (t, (uint32_t) c0) ^ c2;
}

__attribute__ ((target ("sse4.2"))) static uint32_t
crc_hw_update (uint32_t crc, const uint8_t *p, size_t len)
{
  uint64_t c = crc;
  while (len >= 3 * CRC_LONG)
    {
      c = crc_hw_3way (c, p, CRC_LONG, crc_shift_long);
      p += 3 * CRC_LONG;
      len -= 3 * CRC_LONG;
    }
  while (len >= 3 * CRC_SHORT)
    {
      c = crc_hw_3way (c, p, CRC_SHORT, crc_shift_short);
      p += 3 * CRC_SHORT;
      len -= 3 * CRC_SHORT;
    }
  while (len >= 8)
    {
      uint64_t v;
      memcpy (&v, p, 8);
      c = __builtin_ia32_crc32di (c, v);
      p += 8;
      len -= 8;
    }
  uint32_t c32 = (uint32_t) c;
  while (len--)
    c32 = __builtin_ia32_crc32qi (c32, *p++);
  return c32;
}
#endif

uint32_t
ftl_crc32c (uint32_t crc, const void *buf, size_t len)
{
  const uint8_t *p = buf;
  pthread_once (&crc_once, crc_init);
  crc = ~crc;
#if defined(__x86_64__)
  if (crc_hw)
    return ~crc_hw_update (crc, p, len);
#endif
  while (len--)
    crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
