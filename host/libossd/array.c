/* array.c - arrays of drives: RAID-0 stripe geometry, the array label on
 * every member drive, the layout text, and where a member's key is
 * (ossd_array.h, docs/arrays.md). */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ossd_array.h"
#include "ossd_le.h"

#define LABEL_MAGIC "OSSDARR1"
#define LABEL_VERSION 1

/* ---- geometry ---------------------------------------------------------- */

void
ossd_stripe_locate (uint64_t unit, uint32_t n, uint64_t off, uint32_t *drive,
                    uint64_t *drive_off, uint64_t *run)
{
  uint64_t k, in;

  if (n <= 1)
    {
      *drive = 0;
      *drive_off = off;
      *run = UINT64_MAX - off;
      return;
    }
  k = off / unit;
  in = off % unit;
  *drive = (uint32_t) (k % n);
  *drive_off = (k / n) * unit + in;
  *run = unit - in;
}

uint64_t
ossd_stripe_drive_length (uint64_t unit, uint32_t n, uint64_t size, uint32_t d)
{
  uint64_t full, tail, len;

  if (n <= 1)
    return d == 0 ? size : 0;
  full = size / unit;
  tail = size % unit;
  len = (full / n + (d < full % n ? 1 : 0)) * unit;
  if (tail && full % n == d)
    len += tail;
  return len;
}

uint64_t
ossd_stripe_file_offset (uint64_t unit, uint32_t n, uint32_t d,
                         uint64_t drive_off)
{
  if (n <= 1)
    return drive_off;
  return ((drive_off / unit) * n + d) * unit + drive_off % unit;
}

uint64_t
ossd_stripe_logical_end (uint64_t unit, uint32_t n, uint64_t len, uint32_t d)
{
  return len ? ossd_stripe_file_offset (unit, n, d, len - 1) + 1 : 0;
}

int
ossd_stripe_unit_check (uint64_t unit, char *why, size_t len)
{
  if (unit == 0 || unit % OSSD_ARRAY_UNIT_ALIGN != 0 || unit > (1ull << 30))
    {
      snprintf (why, len, "stripe unit %" PRIu64 " is not a multiple of %u bytes between %u and 1 GiB",
                unit, OSSD_ARRAY_UNIT_ALIGN, OSSD_ARRAY_UNIT_ALIGN);
      return -EINVAL;
    }
  return 0;
}

/* ---- label ------------------------------------------------------------- */


void
ossd_array_label_encode (const struct ossd_array_label *l,
                         uint8_t out[OSSD_ARRAY_LABEL_SIZE])
{
  memset (out, 0, OSSD_ARRAY_LABEL_SIZE);
  memcpy (out, LABEL_MAGIC, 8);
  ossd_le_put32 (out + 8, LABEL_VERSION);
  ossd_le_put32 (out + 12, l->index);
  ossd_le_put32 (out + 16, l->count);
  ossd_le_put64 (out + 24, l->unit);
  memcpy (out + 32, l->uuid, 16);
  ossd_le_put64 (out + 48, l->created_ns);
}

int
ossd_array_label_decode (struct ossd_array_label *l, const uint8_t *buf,
                         size_t len, char *why, size_t wlen)
{
  char unit_why[160];

  if (len < OSSD_ARRAY_LABEL_SIZE || memcmp (buf, LABEL_MAGIC, 8) != 0)
    {
      snprintf (why, wlen, "object %d is not an array label", OSSD_ARRAY_LABEL_OID);
      return -EINVAL;
    }
  if (ossd_le_get32 (buf + 8) != LABEL_VERSION)
    {
      snprintf (why, wlen, "array label version %u (this build knows %d)",
                ossd_le_get32 (buf + 8), LABEL_VERSION);
      return -EINVAL;
    }
  memset (l, 0, sizeof *l);
  l->index = ossd_le_get32 (buf + 12);
  l->count = ossd_le_get32 (buf + 16);
  l->unit = ossd_le_get64 (buf + 24);
  memcpy (l->uuid, buf + 32, 16);
  l->created_ns = ossd_le_get64 (buf + 48);
  if (l->count == 0 || l->count > OSSD_ARRAY_MAX_DRIVES || l->index >= l->count)
    {
      snprintf (why, wlen, "array label says drive %u of %u", l->index, l->count);
      return -EINVAL;
    }
  if (ossd_stripe_unit_check (l->unit, unit_why, sizeof unit_why) < 0)
    {
      snprintf (why, wlen, "array label: %s", unit_why);
      return -EINVAL;
    }
  return 0;
}

int
ossd_array_label_read (ossd_t *o, uint64_t pid, struct ossd_array_label *l,
                       ossd_error *err)
{
  uint8_t buf[OSSD_ARRAY_LABEL_SIZE];
  size_t got = 0;
  int r = ossd_read (o, pid, OSSD_ARRAY_LABEL_OID, 0, buf, sizeof buf, &got,
                     err);

  if (r < 0)
    return r;
  r = ossd_array_label_decode (l, buf, got, err ? err->msg : NULL,
                               err ? sizeof err->msg : 0);
  if (r < 0 && err)
    {
      err->status = OSSD__STATUS__ERR_INVALID;
      err->errnum = EINVAL;
    }
  return r;
}

int
ossd_array_label_write (ossd_t *o, uint64_t pid,
                        const struct ossd_array_label *l, ossd_error *err)
{
  uint8_t buf[OSSD_ARRAY_LABEL_SIZE];
  int r;

  ossd_array_label_encode (l, buf);
  r = ossd_create (o, pid, OSSD_ARRAY_LABEL_OID, err);
  if (r < 0 && r != -EEXIST)
    return r;
  return ossd_write (o, pid, OSSD_ARRAY_LABEL_OID, 0, buf, sizeof buf, err);
}

int
ossd_array_new_uuid (uint8_t uuid[16])
{
  if (getrandom (uuid, 16, 0) != 16)
    return -EIO;
  uuid[6] = (uint8_t) ((uuid[6] & 0x0f) | 0x40);   /* version 4 */
  uuid[8] = (uint8_t) ((uuid[8] & 0x3f) | 0x80);   /* variant 1 */
  return 0;
}

void
ossd_array_uuid_format (const uint8_t u[16], char *buf)
{
  char *p = buf;

  for (int i = 0; i < 16; i++)
    {
      if (i == 4 || i == 6 || i == 8 || i == 10)
        *p++ = '-';
      p += sprintf (p, "%02x", u[i]);
    }
  *p = '\0';
}

/* ---- layout text ------------------------------------------------------- */

int
ossd_layout_format (char *buf, size_t len, uint32_t n, uint64_t unit,
                    const uint8_t *uuid, const char *const *uris)
{
  size_t pos;
  int k;

  k = snprintf (buf, len, "raid0 n=%u unit=%" PRIu64, n, unit);
  if (k < 0 || (size_t) k >= len)
    return -ERANGE;
  pos = (size_t) k;
  if (uuid)
    {
      char u[40];
      ossd_array_uuid_format (uuid, u);
      k = snprintf (buf + pos, len - pos, " uuid=%s", u);
      if (k < 0 || (size_t) k >= len - pos)
        return -ERANGE;
      pos += (size_t) k;
    }
  for (uint32_t i = 0; i < n; i++)
    {
      k = snprintf (buf + pos, len - pos, "%s%s", i ? "," : " drives=",
                    uris[i]);
      if (k < 0 || (size_t) k >= len - pos)
        return -ERANGE;
      pos += (size_t) k;
    }
  return (int) pos;
}

void
ossd_layout_free (struct ossd_layout *l)
{
  for (uint32_t i = 0; i < OSSD_ARRAY_MAX_DRIVES; i++)
    {
      free (l->uris[i]);
      l->uris[i] = NULL;
    }
}

int
ossd_layout_parse (const char *text, struct ossd_layout *l, char *why,
                   size_t wlen)
{
  char *copy = strdup (text), *save = NULL, *tok;
  uint32_t nuris = 0;
  bool have_n = false, have_unit = false;
  int r = 0;

  memset (l, 0, sizeof *l);
  if (!copy)
    return -ENOMEM;
  tok = strtok_r (copy, " ", &save);
  if (!tok || strcmp (tok, "raid0") != 0)
    {
      snprintf (why, wlen, "layout \"%s\": not raid0", text);
      r = -EINVAL;
    }
  while (r == 0 && (tok = strtok_r (NULL, " ", &save)))
    {
      char *end;
      if (strncmp (tok, "n=", 2) == 0)
        {
          unsigned long v = strtoul (tok + 2, &end, 10);
          if (*end || v == 0 || v > OSSD_ARRAY_MAX_DRIVES)
            r = -EINVAL;
          l->n = (uint32_t) v;
          have_n = true;
        }
      else if (strncmp (tok, "unit=", 5) == 0)
        {
          l->unit = strtoull (tok + 5, &end, 10);
          if (*end || ossd_stripe_unit_check (l->unit, why, wlen) < 0)
            r = -EINVAL;
          have_unit = true;
        }
      else if (strncmp (tok, "drives=", 7) == 0)
        {
          char *s2 = NULL;
          for (char *u = strtok_r (tok + 7, ",", &s2); u && r == 0;
               u = strtok_r (NULL, ",", &s2))
            {
              if (nuris == OSSD_ARRAY_MAX_DRIVES)
                r = -EINVAL;
              else if (!(l->uris[nuris++] = strdup (u)))
                r = -ENOMEM;
            }
        }
      /* uuid= and unknown words: informational */
    }
  if (r == 0 && (!have_n || !have_unit || nuris != l->n))
    r = -EINVAL;
  if (r == -EINVAL)
    snprintf (why, wlen, "layout \"%s\": want \"raid0 n=N unit=BYTES drives=URI,...\" with N URIs", text);
  if (r < 0)
    ossd_layout_free (l);
  free (copy);
  return r;
}

/* ---- keys -------------------------------------------------------------- */

void
ossd_key_file_for_uri (const char *uri, char *buf, size_t len)
{
  const char *s = strstr (uri, "socket=");

  if (strncmp (uri, "nbd+unix:", 9) == 0 && s)
    {
      const char *path = s + 7, *end = strchr (path, '&'), *slash;
      size_t plen = end ? (size_t) (end - path) : strlen (path);

      slash = memrchr (path, '/', plen);
      if (slash && (size_t) (slash - path) + 10 < len)
        {
          snprintf (buf, len, "%.*s/ossd.key", (int) (slash - path), path);
          if (access (buf, F_OK) == 0)
            return;
        }
    }
  ossd_default_key_file (buf, len);
}
