/* sim_core.c - the simulator's contact with the FTL: format on the
 * metadata-only "none:" backend, host requests with accounting, phases,
 * the stderr progress bar and periodic time-series samples. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "sim.h"

#define SIM_BUF (1u << 20)

double
sim_wall (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

uint64_t
sim_rss_kib (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  uint64_t kib = 0;
  if (!f)
    return 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "VmRSS:", 6) == 0)
      {
        kib = strtoull (line + 6, NULL, 10);
        break;
      }
  fclose (f);
  return kib;
}

int
sim_open (struct sim *s, const struct sim_opts *o)
{
  ftl_error err = { { 0 } };
  memset (s, 0, sizeof *s);
  s->o = o;
  s->rng = o->seed ? o->seed : 1;
  s->phase = "setup";
  s->buflen = SIM_BUF;
  s->buf = calloc (1, s->buflen);
  if (!s->buf)
    {
      fprintf (stderr, "ftl-sim: out of memory for the I/O buffer\n");
      return -ENOMEM;
    }
  struct ftl_config cfg = o->cfg;
  int r = 0;
  if (o->capacity)
    r = ftl_config_set_capacity (&cfg, o->capacity, &err);
  if (r == 0)
    r = ftl_format ("none:", &cfg, &s->ftl, &err);
  if (r == 0)
    r = ftl_create_partition (s->ftl, SIM_PID, &err);
  if (r == 0)
    r = ftl_get_info (s->ftl, &s->info, &err);
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: cannot set up the FTL: %s\n",
               err.msg[0] ? err.msg : strerror (-r));
      return r;
    }
  s->cap_sectors = s->info.capacity_bytes / SIM_SECTOR;
  s->wall0 = sim_wall ();
  return 0;
}

void
sim_close (struct sim *s)
{
  ftl_close (s->ftl);
  s->ftl = NULL;
  free (s->buf);
  s->buf = NULL;
}

static int
fail (const char *what, uint64_t oid, uint64_t off, uint64_t len, int r,
      const ftl_error *err)
{
  fprintf (stderr, "ftl-sim: %s of object %llu [%llu, +%llu) failed: %s\n",
           what, (unsigned long long) oid, (unsigned long long) off,
           (unsigned long long) len, err->msg[0] ? err->msg : strerror (-r));
  return r;
}

int
sim_write (struct sim *s, uint64_t oid, uint64_t off, uint64_t len)
{
  ftl_error err = { { 0 } };
  uint64_t done = 0;
  while (done < len)
    {
      uint64_t n = len - done < s->buflen ? len - done : s->buflen;
      int r = ftl_write (s->ftl, SIM_PID, oid, off + done, s->buf, n, &err);
      if (r == -ENOSPC)
        {
          s->c.enospc++;
          return r;   /* callers decide; no message */
        }
      if (r < 0)
        return fail ("write", oid, off, len, r, &err);
      done += n;
    }
  s->c.writes++;
  s->c.write_bytes += len;
  sim_tick (s);
  return 0;
}

int
sim_read (struct sim *s, uint64_t oid, uint64_t off, uint64_t len)
{
  ftl_error err = { { 0 } };
  uint64_t done = 0;
  while (done < len)
    {
      uint64_t n = len - done < s->buflen ? len - done : s->buflen;
      size_t got;
      int r = ftl_read (s->ftl, SIM_PID, oid, off + done, s->buf, n, &got,
                        &err);
      if (r < 0)
        return fail ("read", oid, off, len, r, &err);
      done += n;
    }
  s->c.reads++;
  s->c.read_bytes += len;
  sim_tick (s);
  return 0;
}

int
sim_create (struct sim *s, uint64_t oid)
{
  ftl_error err = { { 0 } };
  int r = ftl_create_object (s->ftl, SIM_PID, oid, &err);
  if (r < 0)
    return fail ("create", oid, 0, 0, r, &err);
  s->c.creates++;
  return 0;
}

int
sim_remove (struct sim *s, uint64_t oid)
{
  ftl_error err = { { 0 } };
  int r = ftl_remove_object (s->ftl, SIM_PID, oid, &err);
  if (r < 0)
    return fail ("remove", oid, 0, 0, r, &err);
  s->c.removes++;
  return 0;
}

int
sim_set_attr (struct sim *s, uint64_t oid, uint32_t page, uint32_t number,
              uint32_t len)
{
  ftl_error err = { { 0 } };
  if (len > s->buflen)
    len = (uint32_t) s->buflen;
  int r = ftl_set_attr (s->ftl, SIM_PID, oid, page, number, s->buf, len, &err);
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: setting attribute %u:%u of object %llu "
               "failed: %s\n", page, number, (unsigned long long) oid,
               err.msg[0] ? err.msg : strerror (-r));
      return r;
    }
  s->c.attr_updates++;
  return 0;
}

/* The block volume: one object of `sectors` sectors (its length is set so
 * that reads of unwritten sectors are not short). */
int
sim_make_volume (struct sim *s, uint64_t sectors)
{
  ftl_error err = { { 0 } };
  if (sectors > s->cap_sectors)
    sectors = s->cap_sectors;
  int r = ftl_create_object (s->ftl, SIM_PID, SIM_VOL_OID, &err);
  if (r == -EEXIST)
    r = 0;
  if (r == 0)
    r = ftl_set_length (s->ftl, SIM_PID, SIM_VOL_OID, sectors * SIM_SECTOR,
                        &err);
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: cannot create the block volume: %s\n",
               err.msg[0] ? err.msg : strerror (-r));
      return r;
    }
  s->vol_sectors = sectors;
  return 0;
}

int
sim_stats (struct sim *s, struct ftl_stats *st)
{
  ftl_error err = { { 0 } };
  int r = ftl_get_stats (s->ftl, st, &err);
  if (r < 0)
    fprintf (stderr, "ftl-sim: ftl_get_stats failed: %s\n", err.msg);
  return r;
}

/* ---- progress bar ---- */
static void
progress_draw (struct sim *s, bool final)
{
  double frac = s->prog_total ? (double) s->prog_done / s->prog_total : 0;
  bench_progress_bar (s->phase, frac, sim_wall () - s->wall0, final);
  fflush (stderr);
}

void
sim_phase (struct sim *s, const char *name, uint64_t total_ops)
{
  if (s->o->progress && s->prog_total)
    progress_draw (s, true);
  report_sample (s, true);   /* close the previous phase's last window */
  s->phase = name;
  s->prog_total = total_ops;
  s->prog_done = 0;
  s->prog_next_check = 4096;
  s->prog_last_wall = 0;
}

void
sim_tick (struct sim *s)
{
  s->prog_done++;
  report_sample (s, false);
  if (!s->o->progress || s->prog_done < s->prog_next_check)
    return;
  s->prog_next_check = s->prog_done + 16384;
  double now = sim_wall ();
  if (now - s->prog_last_wall < 0.25)
    return;
  s->prog_last_wall = now;
  progress_draw (s, false);
}

int
sim_measure_begin (struct sim *s)
{
  struct ftl_stats st;
  int r = sim_stats (s, &st);
  if (r < 0)
    return r;
  report_sample (s, true);
  ftl_reset_stats (s->ftl);
  s->vt0 = st.virtual_time_ns;
  s->c0 = s->c;
  s->wall_m0 = sim_wall ();
  report_rebase (s);
  return 0;
}
