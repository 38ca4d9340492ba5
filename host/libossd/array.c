/* array.c - arrays of drives: RAID-0 and RAID-5 geometry, the array label
 * and state on every member drive, the layout text, and where a member's
 * key is (ossd_array.h, docs/arrays.md). */
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
#define LABEL_VERSION_RAID0 1
#define LABEL_VERSION_LEVEL 2       /* byte 20 holds the level */
#define STATE_MAGIC "OSSDAST1"

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


/* ---- geometry of either level ------------------------------------------ */

uint32_t
ossd_geom_data_drives (const struct ossd_geometry *g)
{
  return g->level == OSSD_ARRAY_RAID5 ? g->n - 1 : g->n;
}

/* RAID-5: the position drive d holds in row r (n - 1 = parity). */
static uint32_t
raid5_position (uint32_t n, uint32_t d, uint64_t row)
{
  return (uint32_t) ((d + row % n) % n);
}

void
ossd_geom_locate (const struct ossd_geometry *g, uint64_t off,
                  uint32_t *drive, uint64_t *drive_off, uint64_t *run)
{
  uint64_t k, in, row, n = g->n, m = n - 1;

  if (g->level != OSSD_ARRAY_RAID5)
    {
      ossd_stripe_locate (g->unit, g->n, off, drive, drive_off, run);
      return;
    }
  k = off / g->unit;
  in = off % g->unit;
  row = k / m;
  *drive = (uint32_t) ((k % m + n - row % n) % n);
  *drive_off = row * g->unit + in;
  *run = g->unit - in;
}

uint32_t
ossd_geom_parity_drive (const struct ossd_geometry *g, uint64_t drive_off)
{
  uint64_t row = drive_off / g->unit, n = g->n;

  if (g->level != OSSD_ARRAY_RAID5)
    return UINT32_MAX;
  return (uint32_t) ((2 * n - 1 - row % n) % n);
}

bool
ossd_geom_file_offset (const struct ossd_geometry *g, uint32_t d,
                       uint64_t drive_off, uint64_t *off)
{
  uint64_t row = drive_off / g->unit;
  uint32_t pos;

  if (g->level != OSSD_ARRAY_RAID5)
    {
      *off = ossd_stripe_file_offset (g->unit, g->n, d, drive_off);
      return true;
    }
  pos = raid5_position (g->n, d, row);
  if (pos == g->n - 1)
    return false;
  *off = (row * (g->n - 1) + pos) * g->unit + drive_off % g->unit;
  return true;
}

uint64_t
ossd_geom_drive_length (const struct ossd_geometry *g, uint64_t size,
                        uint32_t d)
{
  uint64_t row_bytes, rows, rem, len, piece;
  uint32_t pos;

  if (g->level != OSSD_ARRAY_RAID5)
    return ossd_stripe_drive_length (g->unit, g->n, size, d);
  row_bytes = g->unit * (g->n - 1);
  rows = size / row_bytes;
  rem = size % row_bytes;
  len = rows * g->unit;
  if (rem == 0)
    return len;
  pos = raid5_position (g->n, d, rows);
  if (pos == g->n - 1)        /* parity: as long as the row's unit 0 */
    piece = rem < g->unit ? rem : g->unit;
  else if (rem <= (uint64_t) pos * g->unit)
    piece = 0;
  else
    piece = rem - (uint64_t) pos * g->unit < g->unit
      ? rem - (uint64_t) pos * g->unit : g->unit;
  return len + piece;
}

uint64_t
ossd_geom_logical_end (const struct ossd_geometry *g, uint64_t len, uint32_t d)
{
  uint64_t off, last = len - 1;

  if (len == 0)
    return 0;
  if (ossd_geom_file_offset (g, d, last, &off))
    return off + 1;
  /* parity reaching byte b of its row implies the row's unit 0 does */
  return (last / g->unit) * (g->n - 1) * g->unit + last % g->unit + 1;
}

void
ossd_xor_into (void *dst, const void *src, size_t n)
{
  char *d = dst;
  const char *s = src;
  size_t i = 0;

  for (; i + 8 <= n; i += 8)
    {
      uint64_t a, b;
      memcpy (&a, d + i, 8);
      memcpy (&b, s + i, 8);
      a ^= b;
      memcpy (d + i, &a, 8);
    }
  for (; i < n; i++)
    d[i] ^= s[i];
}

int
ossd_geom_check (const struct ossd_geometry *g, char *why, size_t len)
{
  if (ossd_stripe_unit_check (g->unit, why, len) < 0)
    return -EINVAL;
  if (g->level != OSSD_ARRAY_RAID0 && g->level != OSSD_ARRAY_RAID5)
    {
      snprintf (why, len, "array level %u: this build knows raid0 and raid5",
                g->level);
      return -EINVAL;
    }
  if (g->n == 0 || g->n > OSSD_ARRAY_MAX_DRIVES
      || (g->level == OSSD_ARRAY_RAID5 && g->n < 3))
    {
      snprintf (why, len, "%s over %u drives: need %u to %u", 
                ossd_array_level_name (g->level), g->n,
                g->level == OSSD_ARRAY_RAID5 ? 3 : 1, OSSD_ARRAY_MAX_DRIVES);
      return -EINVAL;
    }
  return 0;
}

const char *
ossd_array_level_name (uint32_t level)
{
  return level == OSSD_ARRAY_RAID5 ? "raid5" : level == OSSD_ARRAY_RAID0
    ? "raid0" : "unknown";
}

/* ---- label ------------------------------------------------------------- */


void
ossd_array_label_encode (const struct ossd_array_label *l,
                         uint8_t out[OSSD_ARRAY_LABEL_SIZE])
{
  memset (out, 0, OSSD_ARRAY_LABEL_SIZE);
  memcpy (out, LABEL_MAGIC, 8);
  ossd_le_put32 (out + 8, l->level == OSSD_ARRAY_RAID0 ? LABEL_VERSION_RAID0
                 : LABEL_VERSION_LEVEL);
  ossd_le_put32 (out + 12, l->index);
  ossd_le_put32 (out + 16, l->count);
  ossd_le_put32 (out + 20, l->level);
  ossd_le_put64 (out + 24, l->unit);
  memcpy (out + 32, l->uuid, 16);
  ossd_le_put64 (out + 48, l->created_ns);
}

int
ossd_array_label_decode (struct ossd_array_label *l, const uint8_t *buf,
                         size_t len, char *why, size_t wlen)
{
  char unit_why[160];
  uint32_t version;
  struct ossd_geometry g;

  if (len < OSSD_ARRAY_LABEL_SIZE || memcmp (buf, LABEL_MAGIC, 8) != 0)
    {
      snprintf (why, wlen, "object %d is not an array label", OSSD_ARRAY_LABEL_OID);
      return -EINVAL;
    }
  version = ossd_le_get32 (buf + 8);
  if (version != LABEL_VERSION_RAID0 && version != LABEL_VERSION_LEVEL)
    {
      snprintf (why, wlen, "array label version %u (this build knows %d and %d)",
                version, LABEL_VERSION_RAID0, LABEL_VERSION_LEVEL);
      return -EINVAL;
    }
  memset (l, 0, sizeof *l);
  l->index = ossd_le_get32 (buf + 12);
  l->count = ossd_le_get32 (buf + 16);
  l->level = version == LABEL_VERSION_RAID0 ? 0 : ossd_le_get32 (buf + 20);
  l->unit = ossd_le_get64 (buf + 24);
  memcpy (l->uuid, buf + 32, 16);
  l->created_ns = ossd_le_get64 (buf + 48);
  if (l->count == 0 || l->count > OSSD_ARRAY_MAX_DRIVES || l->index >= l->count)
    {
      snprintf (why, wlen, "array label says drive %u of %u", l->index, l->count);
      return -EINVAL;
    }
  g.unit = l->unit;
  g.n = l->count;
  g.level = l->level;
  if (ossd_geom_check (&g, unit_why, sizeof unit_why) < 0)
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
ossd_array_state_read (ossd_t *o, uint64_t pid, struct ossd_array_state *s,
                       ossd_error *err)
{
  uint8_t buf[OSSD_ARRAY_STATE_SIZE];
  size_t got = 0;
  int r = ossd_read (o, pid, OSSD_ARRAY_STATE_OID, 0, buf, sizeof buf, &got,
                     err);

  if (r < 0)
    return r;
  if (got < OSSD_ARRAY_STATE_SIZE || memcmp (buf, STATE_MAGIC, 8) != 0)
    {
      if (err)
        {
          snprintf (err->msg, sizeof err->msg,
                    "object %d of partition %" PRIu64 " is not an array state",
                    OSSD_ARRAY_STATE_OID, pid);
          err->status = OSSD__STATUS__ERR_INVALID;
          err->errnum = EINVAL;
        }
      return -EINVAL;
    }
  s->epoch = ossd_le_get64 (buf + 8);
  s->stale_mask = ossd_le_get64 (buf + 16);
  s->flags = ossd_le_get64 (buf + 24);
  return 0;
}

int
ossd_array_state_write (ossd_t *o, uint64_t pid,
                        const struct ossd_array_state *s, ossd_error *err)
{
  uint8_t buf[OSSD_ARRAY_STATE_SIZE] = { 0 };
  int r;

  memcpy (buf, STATE_MAGIC, 8);
  ossd_le_put64 (buf + 8, s->epoch);
  ossd_le_put64 (buf + 16, s->stale_mask);
  ossd_le_put64 (buf + 24, s->flags);
  r = ossd_create (o, pid, OSSD_ARRAY_STATE_OID, err);
  if (r < 0 && r != -EEXIST)
    return r;
  if ((r = ossd_write (o, pid, OSSD_ARRAY_STATE_OID, 0, buf, sizeof buf,
                       err)) < 0)
    return r;
  return ossd_flush (o, err);
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
ossd_layout_format (char *buf, size_t len, const struct ossd_geometry *g,
                    const uint8_t *uuid, uint64_t out_mask,
                    const char *const *uris)
{
  size_t pos;
  uint32_t n = g->n;
  int k;

  k = snprintf (buf, len, "%s n=%u unit=%" PRIu64,
                ossd_array_level_name (g->level), n, g->unit);
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
  for (uint32_t i = 0, first = 1; i < n; i++)
    if (out_mask & (1ull << i))
      {
        k = snprintf (buf + pos, len - pos, "%s%u", first ? " out=" : ",", i);
        if (k < 0 || (size_t) k >= len - pos)
          return -ERANGE;
        pos += (size_t) k;
        first = 0;
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
  if (tok && strcmp (tok, "raid5") == 0)
    l->level = OSSD_ARRAY_RAID5;
  else if (!tok || strcmp (tok, "raid0") != 0)
    {
      snprintf (why, wlen, "layout \"%s\": neither raid0 nor raid5", text);
      free (copy);
      return -EINVAL;
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
      else if (strncmp (tok, "out=", 4) == 0)
        {
          char *s2 = NULL;
          for (char *d = strtok_r (tok + 4, ",", &s2); d && r == 0;
               d = strtok_r (NULL, ",", &s2))
            {
              unsigned long v = strtoul (d, &end, 10);
              if (*end || v >= OSSD_ARRAY_MAX_DRIVES)
                r = -EINVAL;
              else
                l->out_mask |= 1ull << v;
            }
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
  if (r == 0 && (!have_n || !have_unit || nuris != l->n
                 || (l->level == OSSD_ARRAY_RAID5 && l->n < 3)
                 || (l->out_mask >> l->n) != 0
                 || (l->out_mask && l->level != OSSD_ARRAY_RAID5)))
    r = -EINVAL;
  if (r == -EINVAL)
    snprintf (why, wlen, "layout \"%s\": want \"raid0|raid5 n=N unit=BYTES drives=URI,...\" with N URIs (raid5: N >= 3)", text);
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
