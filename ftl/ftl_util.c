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
 * table.  Used for OOB records, page data and checkpoints. */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static bool crc_hw;

static void
crc_init (void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      crc_table[i] = c;
    }
#if defined(__x86_64__)
  __builtin_cpu_init ();
  crc_hw = __builtin_cpu_supports ("sse4.2");
#endif
}

#if defined(__x86_64__)
__attribute__ ((target ("sse4.2"))) static uint32_t
crc_hw_update (uint32_t crc, const uint8_t *p, size_t len)
{
  uint64_t c = crc;
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
