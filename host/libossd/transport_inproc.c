/* transport_inproc.c - the device core linked into this process
 * (inproc:IMAGE, inproc:ram: for a throw-away RAM drive).  For tests and
 * simulators: the same channel bytes as over NBD, with no socket.
 * inproc:IMAGE?create=1&size=1G&volume=16M formats a missing image;
 * profile=NAME puts a drive profile in force, qos=0 switches the drive's
 * QoS off (docs/qos.md), qos_defer_us=N bounds a scan's wait;
 * auto_relocate=1, auto_relocate_idle_ms=N, auto_relocate_min_gain=PCT
 * the automatic relocation policy (docs/sofs.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_device.h"
#include "ossd_transport.h"

struct inproc
{
  ossd_device_t *dev;
  ossd_device_conn_t *conn;
};

static int
inproc_pread (struct ossd_transport *t, void *buf, size_t len, uint64_t off,
              char *why, size_t whylen)
{
  struct inproc *p = t->priv;
  return ossd_device_pread (p->conn, buf, (uint32_t) len, off, why, whylen);
}

static int
inproc_pwrite (struct ossd_transport *t, const void *buf, size_t len,
               uint64_t off, char *why, size_t whylen)
{
  struct inproc *p = t->priv;
  return ossd_device_pwrite (p->conn, buf, (uint32_t) len, off, why, whylen);
}

static int
inproc_flush (struct ossd_transport *t, char *why, size_t whylen)
{
  struct inproc *p = t->priv;
  return ossd_device_flush (p->conn, why, whylen);
}

static void
inproc_close (struct ossd_transport *t)
{
  struct inproc *p = t->priv;
  if (p)
    {
      ossd_device_disconnect (p->conn);
      ossd_device_close (p->dev);
      free (p);
    }
  free (t);
}

static const struct ossd_transport_ops inproc_ops = {
  .name = "inproc",
  .pread = inproc_pread,
  .pwrite = inproc_pwrite,
  .flush = inproc_flush,
  .close = inproc_close,
};

/* Parse "PATH?key=value&..." into options. */
static int
inproc_parse (const char *spec, char **path, struct ossd_device_options *o,
              char *why, size_t whylen)
{
  char *s = strdup (spec), *q, *tok, *save = NULL;

  if (!s)
    return -ENOMEM;
  q = strchr (s, '?');
  if (q)
    *q++ = '\0';
  *path = strdup (strcmp (s, "ram:") == 0 || strcmp (s, "ram") == 0 ? "" : s);
  for (tok = q ? strtok_r (q, "&", &save) : NULL; tok;
       tok = strtok_r (NULL, "&", &save))
    {
      char *eq = strchr (tok, '=');
      unsigned long long v;
      char unit = 0;

      if (!eq)
        goto bad;
      *eq++ = '\0';
      if (strcmp (tok, "profile") == 0)
        {
          /* the profile table's own name: it outlives this string */
          struct ftl_profile_info pi;
          if (ftl_profile_get (0, eq, &pi) < 0)
            goto bad;
          o->profile = pi.name;
          continue;
        }
      if (sscanf (eq, "%llu%c", &v, &unit) < 1)
        goto bad;
      if (unit == 'K' || unit == 'k') v <<= 10;
      else if (unit == 'M' || unit == 'm') v <<= 20;
      else if (unit == 'G' || unit == 'g') v <<= 30;
      if (strcmp (tok, "create") == 0) o->create = v != 0;
      else if (strcmp (tok, "format") == 0) o->force_format = v != 0;
      else if (strcmp (tok, "size") == 0) o->capacity_bytes = v;
      else if (strcmp (tok, "volume") == 0) o->volume_bytes = v;
      else if (strcmp (tok, "slots") == 0) o->slots = (uint32_t) v;
      else if (strcmp (tok, "window") == 0) o->window_lbas = (uint32_t) v;
      else if (strcmp (tok, "poll_ms") == 0) o->poll_timeout_ms = (uint32_t) v;
      else if (strcmp (tok, "lease_ms") == 0) o->lease_ms = (uint32_t) v;
      else if (strcmp (tok, "qos") == 0) o->qos_off = v == 0;
      else if (strcmp (tok, "qos_defer_us") == 0) o->qos_defer_us = (uint32_t) v;
      else if (strcmp (tok, "auto_relocate") == 0) o->auto_relocate = v != 0;
      else if (strcmp (tok, "auto_relocate_idle_ms") == 0)
        o->auto_relocate_idle_ms = (uint32_t) v;
      else if (strcmp (tok, "auto_relocate_min_gain") == 0)
        o->auto_relocate_min_gain_pct = (uint32_t) v;
      else goto bad;
      continue;
    bad:
      snprintf (why, whylen, "inproc: bad option '%s' in '%s'", tok, spec);
      free (s);
      free (*path);
      return -EINVAL;
    }
  free (s);
  return 0;
}

int
ossd_transport_open_inproc (const char *spec, struct ossd_transport **out,
                            char *why, size_t whylen)
{
  struct ossd_device_options o;
  struct ossd_transport *t;
  struct inproc *p;
  char *path = NULL;
  int r;

  ossd_device_options_init (&o);
  r = inproc_parse (spec, &path, &o, why, whylen);
  if (r < 0)
    return r;
  o.image = path;
  t = calloc (1, sizeof *t);
  p = calloc (1, sizeof *p);
  if (!t || !p)
    {
      free (t);
      free (p);
      free (path);
      return -ENOMEM;
    }
  r = ossd_device_open (&o, &p->dev, why, whylen);
  free (path);
  if (r < 0)
    {
      free (t);
      free (p);
      return r;
    }
  p->conn = ossd_device_connect (p->dev, "inproc");
  t->ops = &inproc_ops;
  t->priv = p;
  t->size_bytes = ossd_device_size_bytes (p->dev);
  t->max_transfer = 32u << 20;
  t->knows_connections = true;
  ossd_device_master_key (p->dev, t->master_key);
  t->has_master_key = true;
  *out = t;
  return 0;
}
