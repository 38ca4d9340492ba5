/* out.c - the buffered COPY-text writer.  Generated values hold no tab,
 * newline or backslash, so no escaping is needed. */
#include "out.h"

#include <string.h>

void
out_init (struct out *o, FILE *f)
{
  o->f = f;
  o->len = 0;
  o->checksum = 0xcbf29ce484222325ull;
  o->bytes = 0;
  o->error = 0;
}

int
out_flush (struct out *o)
{
  uint64_t h = o->checksum;
  for (size_t i = 0; i < o->len; i++)
    h = (h ^ (unsigned char) o->buf[i]) * 0x100000001b3ull;
  o->checksum = h;
  o->bytes += o->len;
  if (o->f && o->len && fwrite (o->buf, 1, o->len, o->f) != o->len)
    o->error = 1;
  o->len = 0;
  return o->error ? -1 : 0;
}

void
out_mem (struct out *o, const char *s, size_t n)
{
  if (o->len + n > sizeof o->buf)
    out_flush (o);
  memcpy (o->buf + o->len, s, n);
  o->len += n;
}

void
out_str (struct out *o, const char *s)
{
  out_mem (o, s, strlen (s));
}

void
out_int (struct out *o, int64_t v)
{
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t) -v : (uint64_t) v;
  do
    tmp[sizeof tmp - 1 - n++] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    tmp[sizeof tmp - 1 - n++] = '-';
  out_mem (o, tmp + sizeof tmp - n, (size_t) n);
}

void
out_money (struct out *o, int64_t cents)
{
  char tmp[32];
  int n = 0;
  uint64_t u = cents < 0 ? (uint64_t) -cents : (uint64_t) cents;
  tmp[sizeof tmp - 1 - n++] = (char) ('0' + u % 10);
  tmp[sizeof tmp - 1 - n++] = (char) ('0' + u / 10 % 10);
  tmp[sizeof tmp - 1 - n++] = '.';
  u /= 100;
  do
    tmp[sizeof tmp - 1 - n++] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (cents < 0)
    tmp[sizeof tmp - 1 - n++] = '-';
  out_mem (o, tmp + sizeof tmp - n, (size_t) n);
}

void
out_sep (struct out *o)
{
  out_mem (o, "\t", 1);
}

void
out_eol (struct out *o)
{
  out_mem (o, "\n", 1);
}
