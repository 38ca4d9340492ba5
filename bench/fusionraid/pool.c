/* pool.c - the pool of drives: D instances of the real FTL, each set up
 * and aged by bench/ftl-sim's own code (sim_open on the "none:" backend,
 * precondition_run: a sequential fill, then random 4 KiB writes until the
 * WAF is steady or --pre-max-x capacities were written), each with its own
 * seed; and the raid_drive_ops the engine drives them through.
 *
 * Time: each drive's clock is the global virtual time plus the offset it
 * had reached when preconditioning ended, so every drive starts the run
 * idle.  An I/O submitted at global time t is run on its FTL at once with
 * the FTL's host clock set to t (ftl_set_host_clock: requests queued on a
 * drive overlap on its dies, each NAND operation waiting for its die and
 * channel, foreground GC included); its completion is the FTL's host
 * clock after it, delivered as an event at that time.  A drive with
 * nothing outstanding for at least --idle-gc-min gets the gap as ftl_idle
 * (background GC), as a real drive would use it.
 *
 * A stalled drive (--stall) completes nothing for stall_ns every
 * stall_period_ns (the first window at half a period): an I/O whose
 * service overlaps a window ends that much later, as one on an
 * unresponsive drive would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fr.h"

static void
draw (const char *what, uint32_t done, uint32_t total, double t0)
{
  int w = 30, k = total ? (int) ((double) done / total * w) : w;
  char bar[32];
  for (int i = 0; i < w; i++)
    bar[i] = i < k ? '#' : '.';
  bar[w] = 0;
  fprintf (stderr, "\r%-14.14s [%s] %3u/%-3u drives  %.1fs", what, bar, done,
           total, sim_wall () - t0);
  fflush (stderr);
}

int
fr_pool_open (struct fr_pool *p, const struct fr_opts *o, bool progress)
{
  memset (p, 0, sizeof *p);
  p->n = o->drives;
  p->d = calloc (p->n, sizeof *p->d);
  p->last_done = calloc (p->n, sizeof *p->last_done);
  p->inflight = calloc (p->n, sizeof *p->inflight);
  struct sim_opts *so = p->so = calloc (p->n, sizeof *so);
  p->offset = calloc (p->n, sizeof *p->offset);
  if (!p->d || !p->last_done || !p->inflight || !so || !p->offset)
    {
      fprintf (stderr, "fusionraid-sim: out of memory for %u drives\n", p->n);
      return -ENOMEM;
    }
  double t0 = sim_wall ();
  for (uint32_t i = 0; i < p->n; i++)
    {
      so[i].cfg = o->cfg;
      so[i].capacity = o->drive_bytes;
      so[i].wl = WL_RAND;
      so[i].bs = FR_UNIT;
      so[i].span = 1;
      so[i].precondition = true;
      so[i].pre_fill = 1;
      so[i].pre_max_x = o->pre_max_x;
      so[i].pre_tol = 0.03;
      so[i].seed = o->seed * 1000003ull + i + 1;
      so[i].label = "fusionraid";
      if (progress)
        draw ("precondition", i, p->n, t0);
      int r = sim_open (&p->d[i], &so[i]);
      if (r == 0 && o->pre_max_x > 0)
        r = precondition_run (&p->d[i]);
      else if (r == 0)
        r = sim_make_volume (&p->d[i], p->d[i].cap_sectors);
      if (r < 0)
        {
          fprintf (stderr, "fusionraid-sim: drive %u: set-up failed\n", i);
          p->n = i + 1;
          return r;
        }
      uint64_t units = p->d[i].vol_sectors * SIM_SECTOR / FR_UNIT;
      if (i == 0 || units < p->drive_units)
        p->drive_units = units;
    }
  if (progress)
    {
      draw ("precondition", p->n, p->n, t0);
      fputc ('\n', stderr);
    }
  return fr_pool_measure_begin (p);
}

int
fr_pool_measure_begin (struct fr_pool *p)
{
  for (uint32_t i = 0; i < p->n; i++)
    {
      struct ftl_stats st;
      int r = sim_stats (&p->d[i], &st);
      if (r < 0)
        return r;
      uint64_t hc = ftl_host_clock (p->d[i].ftl);
      p->offset[i] = st.virtual_time_ns > hc ? st.virtual_time_ns : hc;
      ftl_reset_stats (p->d[i].ftl);
      p->last_done[i] = 0;
    }
  return 0;
}

void
fr_pool_close (struct fr_pool *p)
{
  for (uint32_t i = 0; p->d && i < p->n; i++)
    if (p->d[i].ftl)
      sim_close (&p->d[i]);
  free (p->d);
  free (p->last_done);
  free (p->inflight);
  free (p->so);
  free (p->offset);
  memset (p, 0, sizeof *p);
}

int
fr_pool_stats (struct fr_pool *p, struct fr_drive_stats *sum)
{
  memset (sum, 0, sizeof *sum);
  for (uint32_t i = 0; i < p->n; i++)
    {
      struct ftl_stats st;
      int r = sim_stats (&p->d[i], &st);
      if (r < 0)
        return r;
      sum->gc_runs += st.gc_runs;
      sum->gc_copies += st.gc_valid_copies;
      sum->erases += st.nand_erases;
      sum->host_writes += st.host_writes;
      sum->nand_programs += st.nand_programs;
    }
  sum->max_io_ns = p->io_ns_max;
  return 0;
}

/* The end of an I/O on a drive that may be stalled. */
static uint64_t
stall_delay (const struct fr_opts *o, uint32_t drive, uint64_t start,
             uint64_t done)
{
  bool stalled = false;
  for (uint32_t i = 0; i < o->nstall; i++)
    stalled |= o->stall_drive[i] == drive;
  if (!stalled || !o->stall_period_ns || !o->stall_ns)
    return done;
  uint64_t P = o->stall_period_ns, first = P / 2;
  if (done < first)
    return done;
  uint64_t k = start < first ? 0 : (start - first) / P;
  uint64_t ws = first + k * P, we = ws + o->stall_ns;
  if (start >= we)
    {
      ws += P;
      we += P;
    }
  if (done < ws)
    return done;
  uint64_t from = start > ws ? start : ws;
  return done + (we - from);
}

static int
pool_submit (void *ctx, uint32_t drive, enum raid_io_kind kind,
             uint64_t offset, uint32_t units, uint64_t tag)
{
  struct fr_run *run = ctx;
  struct fr_pool *p = &run->pool;
  if (drive >= p->n || offset + units > p->drive_units)
    return -ERANGE;
  struct sim *s = &p->d[drive];
  uint64_t off = p->offset[drive], now = run->now;
  if (p->inflight[drive] == 0 && now > p->last_done[drive]
      && now - p->last_done[drive] >= run->o->idle_gc_min_ns)
    {
      ftl_set_host_clock (s->ftl, p->last_done[drive] + off);
      ftl_idle (s->ftl, now - p->last_done[drive], NULL);
    }
  ftl_set_host_clock (s->ftl, now + off);
  int r;
  uint64_t b = offset * FR_UNIT, len = (uint64_t) units * FR_UNIT;
  if (kind == RAID_IO_READ)
    r = sim_read (s, SIM_VOL_OID, b, len);
  else if (kind == RAID_IO_WRITE)
    r = sim_write (s, SIM_VOL_OID, b, len);
  else
    {
      ftl_error err = { { 0 } };
      r = ftl_punch (s->ftl, SIM_PID, SIM_VOL_OID, b, len, &err);
      if (r < 0)
        fprintf (stderr, "fusionraid-sim: trim on drive %u failed: %s\n",
                 drive, err.msg);
    }
  uint64_t done = ftl_host_clock (s->ftl);
  done = done > off + now ? done - off : now;
  done = stall_delay (run->o, drive, now, done);
  if (done > p->last_done[drive])
    p->last_done[drive] = done;
  if (done - now > p->io_ns_max)
    p->io_ns_max = done - now;
  p->inflight[drive]++;
  p->ios++;
  return fr_heap_push (&run->h, done, EV_IO_DONE,
                       tag | ((uint64_t) drive << 40), r);
}

static uint64_t
pool_now (void *ctx)
{
  return ((struct fr_run *) ctx)->now;
}

const struct raid_drive_ops fr_pool_ops = { pool_submit, pool_now };
