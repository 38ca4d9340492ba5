/* trace_msr.c - replay of block traces in the MSR Cambridge CSV format:
 *   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
 * (Timestamp in Windows filetime, 100 ns units; Type "Read" or "Write";
 * Offset and Size in bytes).  A first pass counts the records and the
 * distinct (Hostname, DiskNumber) disks; the second pass replays them.
 * Each disk gets an equal share of the user capacity: either a region of
 * the block-volume object (default) or an object of its own
 * (--trace-per-disk).  Offsets beyond the share wrap around (counted as
 * "wrapped").  Lines that are not records (a header, blank lines) are
 * skipped and counted.  With --trace-idle, gaps between records of more
 * than 1 ms are given to ftl_idle (background GC). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim.h"

#define MAX_DISKS 256
#define DISK_OID0 1000ull


struct disks
{
  char name[MAX_DISKS][72];
  unsigned n;
};

/* Parse one CSV line; false if it is not a record. */
bool
msr_parse_line (char *line, struct msr_rec *r)
{
  char *f[7];
  int n = 0;
  for (char *p = line; n < 7; n++)
    {
      f[n] = p;
      char *c = strchr (p, ',');
      if (!c)
        {
          n++;
          break;
        }
      *c = 0;
      p = c + 1;
    }
  if (n < 6)
    return false;
  char *end;
  r->ts = strtoull (f[0], &end, 10);
  if (end == f[0])
    return false;
  snprintf (r->host, sizeof r->host, "%s", f[1]);
  r->disk = (unsigned) strtoul (f[2], NULL, 10);
  if (strncasecmp (f[3], "read", 4) == 0)
    r->write = false;
  else if (strncasecmp (f[3], "write", 5) == 0)
    r->write = true;
  else
    return false;
  r->off = strtoull (f[4], &end, 10);
  if (end == f[4])
    return false;
  r->size = strtoull (f[5], &end, 10);
  return end != f[5];
}

static int
disk_index (struct disks *d, const struct msr_rec *r, bool add)
{
  char key[72];
  snprintf (key, sizeof key, "%s/%u", r->host, r->disk);
  for (unsigned i = 0; i < d->n; i++)
    if (strcmp (d->name[i], key) == 0)
      return (int) i;
  if (!add || d->n == MAX_DISKS)
    return -1;
  snprintf (d->name[d->n], sizeof d->name[0], "%s", key);
  return (int) d->n++;
}

static int
scan (FILE *f, struct disks *d, uint64_t *nrec)
{
  char line[512];
  struct msr_rec r;
  *nrec = 0;
  while (fgets (line, sizeof line, f))
    if (msr_parse_line (line, &r))
      {
        if (disk_index (d, &r, true) < 0)
          {
            fprintf (stderr, "ftl-sim: trace has more than %d disks\n",
                     MAX_DISKS);
            return -E2BIG;
          }
        (*nrec)++;
      }
  return 0;
}

int
trace_msr_replay (struct sim *s, const char *path)
{
  const struct sim_opts *o = s->o;
  if (!path)
    {
      fprintf (stderr, "ftl-sim: workload msr needs --trace FILE\n");
      return -EINVAL;
    }
  FILE *f = fopen (path, "r");
  if (!f)
    {
      int e = errno;
      fprintf (stderr, "ftl-sim: cannot open trace %s: %s\n", path,
               strerror (e));
      return -e;
    }
  struct disks *d = calloc (1, sizeof *d);
  uint64_t nrec = 0;
  int r = d ? scan (f, d, &nrec) : -ENOMEM;
  if (r == 0 && d->n == 0)
    {
      fprintf (stderr, "ftl-sim: trace %s has no records\n", path);
      r = -EINVAL;
    }
  /* each disk's share, whole 1 MiB units */
  uint64_t share = 0;
  if (r == 0)
    share = s->cap_sectors * SIM_SECTOR / d->n / 1048576 * 1048576;
  if (r == 0 && share == 0)
    {
      fprintf (stderr, "ftl-sim: %u disks do not fit the device\n", d->n);
      r = -EINVAL;
    }
  if (r == 0 && !o->trace_per_disk)
    r = sim_make_volume (s, s->cap_sectors);
  for (unsigned i = 0; r == 0 && o->trace_per_disk && i < d->n; i++)
    r = sim_create (s, DISK_OID0 + i);
  if (r == 0)
    r = sim_measure_begin (s);
  if (r < 0)
    goto out;
  rewind (f);
  sim_phase (s, "msr", nrec);
  char line[512];
  struct msr_rec rc;
  uint64_t prev_ts = 0;
  while (r == 0 && fgets (line, sizeof line, f))
    {
      if (!msr_parse_line (line, &rc))
        {
          s->trace_skipped++;
          continue;
        }
      s->trace_records++;
      unsigned di = (unsigned) disk_index (d, &rc, false);
      if (rc.size == 0)
        {
          s->trace_skipped++;
          continue;
        }
      uint64_t size = rc.size > share ? share : rc.size;
      uint64_t off = rc.off;
      if (off + size > share)
        {
          off = off % share;
          if (off + size > share)
            off = share - size;
          s->trace_wrapped++;
        }
      uint64_t oid = o->trace_per_disk ? DISK_OID0 + di : SIM_VOL_OID;
      if (!o->trace_per_disk)
        off += (uint64_t) di * share;
      if (o->trace_idle && prev_ts && rc.ts > prev_ts
          && (rc.ts - prev_ts) * 100 > 1000000)
        ftl_idle (s->ftl, (rc.ts - prev_ts) * 100, NULL);
      prev_ts = rc.ts;
      if (rc.write)
        {
          r = sim_write (s, oid, off, size);
          if (r == -ENOSPC)
            fprintf (stderr, "ftl-sim: trace record %llu: drive full\n",
                     (unsigned long long) s->trace_records);
          s->trace_writes++;
        }
      else
        {
          r = sim_read (s, oid, off, size);
          s->trace_reads++;
        }
    }
out:
  fclose (f);
  free (d);
  return r;
}
