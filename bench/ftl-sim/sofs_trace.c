/* sofs_trace.c - the trace container of the SOFS experiment (sofs.h) and
 * its MSR Cambridge loader (the line parser is trace_msr.c's). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sofs.h"

int
sofs_trace_init (struct sofs_trace *t, const char *name, uint32_t nobj)
{
  memset (t, 0, sizeof *t);
  snprintf (t->name, sizeof t->name, "%s", name);
  t->nobj = nobj;
  t->install_chunk = 1 << 20;
  t->obj_bytes = calloc (nobj ? nobj : 1, sizeof *t->obj_bytes);
  if (!t->obj_bytes)
    {
      fprintf (stderr, "ftl-sim: out of memory for trace %s\n", name);
      return -ENOMEM;
    }
  return 0;
}

void
sofs_trace_free (struct sofs_trace *t)
{
  free (t->obj_bytes);
  free (t->r);
  memset (t, 0, sizeof *t);
}

int
sofs_trace_add (struct sofs_trace *t, uint32_t obj, uint32_t stream,
                uint64_t off, uint64_t len, bool write)
{
  if (obj >= t->nobj || len == 0 || off + len > t->obj_bytes[obj])
    {
      fprintf (stderr, "ftl-sim: trace %s: request [%llu, +%llu) of object "
               "%u outside it (%u objects)\n", t->name,
               (unsigned long long) off, (unsigned long long) len, obj, t->nobj);
      return -EINVAL;
    }
  if (t->n == t->cap)
    {
      size_t cap = t->cap ? t->cap * 2 : 4096;
      struct sofs_req *r = realloc (t->r, cap * sizeof *r);
      if (!r)
        {
          fprintf (stderr, "ftl-sim: out of memory for trace %s\n", t->name);
          return -ENOMEM;
        }
      t->r = r;
      t->cap = cap;
    }
  t->r[t->n++] = (struct sofs_req) { obj, stream, off, len, write, !write };
  return 0;
}

struct disk_names
{
  char (*name)[72];
  uint32_t n;
};

static int
disk_of (struct disk_names *d, const struct msr_rec *r)
{
  char key[72];
  snprintf (key, sizeof key, "%s/%u", r->host, r->disk);
  for (uint32_t i = 0; i < d->n; i++)
    if (strcmp (d->name[i], key) == 0)
      return (int) i;
  if (d->n == 256)
    return -1;
  snprintf (d->name[d->n], sizeof d->name[0], "%s", key);
  return (int) d->n++;
}

int
sofs_trace_load_msr (struct sofs_trace *t, const char *path,
                     uint64_t max_obj_bytes, uint64_t max_reads)
{
  FILE *f = fopen (path, "r");
  if (!f)
    {
      int e = errno;
      fprintf (stderr, "ftl-sim: cannot open trace %s: %s\n", path, strerror (e));
      return -e;
    }
  struct disk_names d = { calloc (256, sizeof *d.name), 0 };
  uint64_t *extent = calloc (256, sizeof *extent);
  char line[512];
  struct msr_rec rc;
  int r = d.name && extent ? 0 : -ENOMEM;
  /* pass 1: the disks and how far each is addressed */
  while (r == 0 && fgets (line, sizeof line, f))
    if (msr_parse_line (line, &rc) && rc.size)
      {
        int di = disk_of (&d, &rc);
        if (di < 0)
          {
            fprintf (stderr, "ftl-sim: trace %s has more than 256 disks\n", path);
            r = -E2BIG;
            break;
          }
        uint64_t end = rc.off + rc.size;
        if (end > extent[di])
          extent[di] = end;
      }
  if (r == 0 && d.n == 0)
    {
      fprintf (stderr, "ftl-sim: trace %s has no records\n", path);
      r = -EINVAL;
    }
  const char *base = strrchr (path, '/');
  char name[32];
  snprintf (name, sizeof name, "%s", base ? base + 1 : path);
  char *dot = strrchr (name, '.');
  if (dot && dot != name)
    *dot = 0;   /* the case is named after the file, without .csv */
  if (r == 0)
    r = sofs_trace_init (t, name, d.n);
  for (uint32_t i = 0; r == 0 && i < d.n; i++)
    {
      uint64_t b = (extent[i] + (1 << 20) - 1) >> 20 << 20;
      t->obj_bytes[i] = b < max_obj_bytes ? b : max_obj_bytes / 1048576 * 1048576;
    }
  rewind (f);
  uint64_t reads = 0;
  while (r == 0 && fgets (line, sizeof line, f))
    {
      if (!msr_parse_line (line, &rc) || rc.size == 0)
        continue;
      uint32_t di = (uint32_t) disk_of (&d, &rc);
      uint64_t share = t->obj_bytes[di];
      uint64_t size = rc.size > share ? share : rc.size;
      uint64_t off = rc.off;
      if (off + size > share)
        {
          off %= share;
          if (off + size > share)
            off = share - size;
        }
      if (!rc.write && max_reads && reads >= max_reads)
        continue;
      reads += !rc.write;
      r = sofs_trace_add (t, di, di, off, size, rc.write);
    }
  fclose (f);
  free (d.name);
  free (extent);
  return r;
}
