/* output.c - ossdctl's output helpers: JSON strings, a progress bar for
 * long transfers, and parsing of sizes and object addresses. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ossdctl.h"

void
json_bytes_as_string (FILE *f, const uint8_t *p, size_t n)
{
  fputc ('"', f);
  for (size_t i = 0; i < n; i++)
    {
      uint8_t ch = p[i];
      if (ch == '"' || ch == '\\')
        fprintf (f, "\\%c", ch);
      else if (ch == '\n')
        fputs ("\\n", f);
      else if (ch == '\t')
        fputs ("\\t", f);
      else if (ch < 0x20 || ch >= 0x7f)
        fprintf (f, "\\u%04x", ch);
      else
        fputc (ch, f);
    }
  fputc ('"', f);
}

void
json_string (FILE *f, const char *s)
{
  json_bytes_as_string (f, (const uint8_t *) (s ? s : ""), s ? strlen (s) : 0);
}

double
now_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
progress_start (struct progress *p, const char *label, uint64_t total,
                bool force)
{
  p->label = label;
  p->total = total;
  p->done = 0;
  p->enabled = force || (isatty (STDERR_FILENO) && total >= (8u << 20));
  p->started = now_seconds ();
  p->last_draw = 0;
}

static void
progress_draw (struct progress *p)
{
  double el = now_seconds () - p->started;
  double frac = p->total ? (double) p->done / (double) p->total : 1.0;
  int width = 30, fill = (int) (frac * width);
  double mibs = el > 0 ? p->done / 1048576.0 / el : 0;

  fprintf (stderr, "\r%-10s [", p->label);
  for (int i = 0; i < width; i++)
    fputc (i < fill ? '#' : '.', stderr);
  fprintf (stderr, "] %5.1f%% %8.1f MiB %7.1f MiB/s", frac * 100,
           p->done / 1048576.0, mibs);
  fflush (stderr);
}

void
progress_update (struct progress *p, uint64_t done)
{
  double t;

  p->done = done;
  if (!p->enabled)
    return;
  t = now_seconds ();
  if (t - p->last_draw < 0.1 && done < p->total)
    return;
  p->last_draw = t;
  progress_draw (p);
}

void
progress_finish (struct progress *p)
{
  if (!p->enabled)
    return;
  progress_draw (p);
  fputc ('\n', stderr);
}

int
parse_size (const char *s, uint64_t *out)
{
  char *end;
  unsigned long long v;

  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno || end == s)
    return -1;
  switch (toupper ((unsigned char) *end))
    {
    case 0: break;
    case 'K': v <<= 10; end++; break;
    case 'M': v <<= 20; end++; break;
    case 'G': v <<= 30; end++; break;
    case 'T': v <<= 40; end++; break;
    default: return -1;
    }
  if (*end == 'i' || *end == 'B')
    end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
  if (*end)
    return -1;
  *out = v;
  return 0;
}

/* A 32-bit number, decimal or 0x-hex, and nothing else. */
int
parse_u32 (const char *s, uint32_t *out)
{
  char *end;
  unsigned long long v;

  errno = 0;
  v = strtoull (s, &end, 0);
  if (errno || end == s || *end || *s == '-' || v > UINT32_MAX)
    return -1;
  *out = (uint32_t) v;
  return 0;
}

/* "PID:OID" (or PID/OID), decimal or 0x-hex. */
int
parse_object (const char *s, uint64_t *pid, uint64_t *oid)
{
  char *end;

  errno = 0;
  *pid = strtoull (s, &end, 0);
  if (errno || end == s || (*end != ':' && *end != '/'))
    return -1;
  s = end + 1;
  *oid = strtoull (s, &end, 0);
  if (errno || end == s || *end)
    return -1;
  return 0;
}

void
format_utc_ns (uint64_t ns, char *buf, size_t len)
{
  time_t secs = (time_t) (ns / 1000000000ull);
  struct tm tm;
  size_t n;

  gmtime_r (&secs, &tm);
  n = strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf (buf + n, len - n, ".%03uZ", (unsigned) (ns / 1000000 % 1000));
}
