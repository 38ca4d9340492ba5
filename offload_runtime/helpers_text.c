/* helpers_text.c - text, bpchar, date/timestamp and hash helpers under
 * the C collation (byte-wise).  LIKE follows PostgreSQL: '%' any string,
 * '_' one character, backslash escapes the next pattern character; a
 * pattern ending in an escape is an error in PostgreSQL, so the row goes
 * to the host, as it does when '_' would have to consume a non-ASCII byte
 * (one character may be several bytes in a multibyte encoding). */
#include <stdbool.h>
#include <string.h>

#include "helpers_internal.h"

static int
bytes_cmp (const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
  size_t n = alen < blen ? alen : blen;
  int c = n ? memcmp (a, b, n) : 0;
  if (c != 0)
    return c < 0 ? -1 : 1;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static size_t
strip_blanks (const uint8_t *s, size_t len)
{
  while (len > 0 && s[len - 1] == ' ')
    len--;
  return len;
}

OSSD_HELPER_DECL (ossd_h_text_cmp)
{
  return (uint64_t) (int64_t) bytes_cmp (ossd_helper_ptr (a1), a2,
                                         ossd_helper_ptr (a3), a4);
}

OSSD_HELPER_DECL (ossd_h_text_eq)
{
  return a2 == a4 && (a2 == 0 || memcmp (ossd_helper_ptr (a1),
                                         ossd_helper_ptr (a3), a2) == 0);
}

OSSD_HELPER_DECL (ossd_h_text_prefix)
{
  return a4 <= a2 && (a4 == 0 || memcmp (ossd_helper_ptr (a1),
                                         ossd_helper_ptr (a3), a4) == 0);
}

OSSD_HELPER_DECL (ossd_h_bpchar_eq)
{
  size_t al = strip_blanks (ossd_helper_ptr (a1), a2);
  size_t bl = strip_blanks (ossd_helper_ptr (a3), a4);
  return al == bl && (al == 0 || memcmp (ossd_helper_ptr (a1),
                                         ossd_helper_ptr (a3), al) == 0);
}

OSSD_HELPER_DECL (ossd_h_bpchar_cmp)
{
  size_t al = strip_blanks (ossd_helper_ptr (a1), a2);
  size_t bl = strip_blanks (ossd_helper_ptr (a3), a4);
  return (uint64_t) (int64_t) bytes_cmp (ossd_helper_ptr (a1), al,
                                         ossd_helper_ptr (a3), bl);
}

OSSD_HELPER_DECL (ossd_h_date_cmp)
{
  int32_t a = (int32_t) a1, b = (int32_t) a2;
  return (uint64_t) (int64_t) (a < b ? -1 : a > b ? 1 : 0);
}

OSSD_HELPER_DECL (ossd_h_timestamp_cmp)
{
  int64_t a = (int64_t) a1, b = (int64_t) a2;
  return (uint64_t) (int64_t) (a < b ? -1 : a > b ? 1 : 0);
}

/* LIKE matcher: greedy with backtracking to the last '%'.  Pattern
 * elements are '%', '_' or a literal byte (possibly escaped). */
int
ossd_text_like (const uint8_t *s, size_t slen, const uint8_t *p, size_t plen)
{
  size_t si = 0, pi = 0;
  size_t star_p = (size_t) -1, star_s = 0;
  bool undecidable = false;

  /* A trailing lone escape is an error in PostgreSQL. */
  {
    size_t k = 0;
    while (k < plen)
      {
        if (p[k] == '\\')
          {
            if (k + 1 >= plen)
              return -1;
            k += 2;
          }
        else
          k++;
      }
  }
  while (si < slen)
    {
      if (pi < plen && p[pi] == '%')
        {
          while (pi < plen && p[pi] == '%')
            pi++;
          if (pi == plen)
            return 1;           /* any match found is a real match */
          star_p = pi;
          star_s = si;
          continue;
        }
      if (pi < plen && p[pi] == '_')
        {
          if (s[si] >= 0x80)
            undecidable = true; /* '_' = one character, maybe several bytes */
          else
            {
              pi++;
              si++;
              continue;
            }
        }
      else if (pi < plen)
        {
          size_t lit = p[pi] == '\\' ? pi + 1 : pi;
          if (p[lit] == s[si])
            {
              pi = lit + 1;
              si++;
              continue;
            }
        }
      /* mismatch: retry the last '%' one byte further */
      if (star_p == (size_t) -1)
        return undecidable ? -1 : 0;
      pi = star_p;
      si = ++star_s;
    }
  while (pi < plen && p[pi] == '%')
    pi++;
  if (pi == plen)
    return 1;
  return undecidable ? -1 : 0;
}

/* Byte length of the UTF-8 character at s, as PostgreSQL's pg_utf_mblen
 * (the lead byte alone decides; a byte that leads nothing counts as one). */
static size_t
utf8_char_len (uint8_t c)
{
  if ((c & 0x80) == 0)
    return 1;
  if ((c & 0xe0) == 0xc0)
    return 2;
  if ((c & 0xf0) == 0xe0)
    return 3;
  if ((c & 0xf8) == 0xf0)
    return 4;
  return 1;
}

/* Advance *pos over up to n characters of s[0..len); -1 when a character
 * runs past len or holds a NUL byte (never so in stored text: the host
 * then decides as PostgreSQL does). */
static int
skip_chars (const uint8_t *s, size_t len, uint64_t n, bool utf8, size_t *pos)
{
  size_t p = *pos;

  if (!utf8)
    {
      *pos = (uint64_t) (len - p) < n ? len : p + (size_t) n;
      return 0;
    }
  for (; n > 0 && p < len; n--)
    {
      size_t l = utf8_char_len (s[p]);
      if (l > len - p)
        return -1;
      for (size_t k = 0; k < l; k++)
        if (s[p + k] == 0)
          return -1;
      p += l;
    }
  *pos = p;
  return 0;
}

int
ossd_text_substr (const uint8_t *s, size_t slen, uint64_t spec,
                  size_t *off, size_t *len)
{
  bool utf8 = (spec & OSSD_SUBSTR_UTF8) != 0;
  uint64_t take = OSSD_SUBSTR_TAKE (spec);
  size_t start = 0, end;

  if (spec & OSSD_SUBSTR_RTRIM)
    slen = strip_blanks (s, slen);
  if (skip_chars (s, slen, OSSD_SUBSTR_SKIP (spec), utf8, &start) < 0)
    return -1;
  end = start;
  if (take == OSSD_SUBSTR_TO_END)
    end = slen;
  else if (skip_chars (s, slen, take, utf8, &end) < 0)
    return -1;
  *off = start;
  *len = end - start;
  return 0;
}

OSSD_HELPER_DECL (ossd_h_text_substr_cmp)
{
  const uint8_t *s = ossd_helper_ptr (a1);
  size_t off, len;

  if (ossd_text_substr (s, a2, a3, &off, &len) < 0)
    return ossd_helper_give_up (st);
  return (uint64_t) (int64_t) bytes_cmp (s + off, len, ossd_helper_ptr (a4), a5);
}

OSSD_HELPER_DECL (ossd_h_text_like)
{
  int r = ossd_text_like (ossd_helper_ptr (a1), a2, ossd_helper_ptr (a3), a4);
  if (r < 0)
    return ossd_helper_give_up (st);
  return (uint64_t) r;
}

/* 64-bit hash: 8-byte lanes folded with multiply and xor-shift mixing. */
static uint64_t
mix64 (uint64_t x)
{
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  return x;
}

uint64_t
ossd_hash64 (const void *data, size_t len, uint64_t seed)
{
  const uint8_t *p = data;
  uint64_t h = mix64 (seed ^ (len * 0x9e3779b97f4a7c15ull));
  while (len >= 8)
    {
      uint64_t w;
      memcpy (&w, p, 8);
      h = mix64 (h ^ mix64 (w + 0x632be59bd9b4e019ull));
      p += 8;
      len -= 8;
    }
  if (len > 0)
    {
      uint64_t w = 0;
      memcpy (&w, p, len);
      h = mix64 (h ^ mix64 (w + 0x632be59bd9b4e019ull + len));
    }
  return h;
}

OSSD_HELPER_DECL (ossd_h_hash64)
{
  return ossd_hash64 (ossd_helper_ptr (a1), a2, a3);
}
