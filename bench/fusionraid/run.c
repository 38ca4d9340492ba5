/* run.c - one policy's run: a fresh pool of aged drives, the engine with
 * that policy over it, the workloads' requests arriving open-loop at their
 * own times (the same streams for every policy), events in time order
 * until every request and every internal I/O has ended; then, for
 * FusionRAID, the space used, and again after draining every replica to
 * parity (conversion fully on).  Latencies of requests that arrived
 * during the warm-up are not counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "fr.h"

#define TAG_MASK ((1ull << 40) - 1)

static int
tag_slot (struct fr_run *run, uint64_t tag)
{
  if (tag < run->captag)
    return 0;
  uint64_t cap = run->captag ? run->captag * 2 : 65536;
  while (cap <= tag)
    cap *= 2;
  uint64_t *a = realloc (run->arrive, cap * sizeof *a);
  if (a)
    run->arrive = a;
  uint8_t *w = realloc (run->arrive_wl, cap);
  if (w)
    run->arrive_wl = w;
  uint8_t *wr = realloc (run->arrive_write, cap);
  if (wr)
    run->arrive_write = wr;
  if (!a || !w || !wr)
    {
      fprintf (stderr, "fusionraid-sim: out of memory for requests\n");
      return -ENOMEM;
    }
  run->captag = cap;
  return 0;
}

static void
on_done (void *arg, uint64_t tag, uint64_t t_done, int status)
{
  struct fr_run *run = arg;
  struct fr_result *res = run->res;
  uint32_t w = run->arrive_wl[tag];
  uint64_t t0 = run->arrive[tag];
  res->completed[w]++;
  run->reqs_live--;
  if (status < 0)
    res->errors++;
  if (t0 < run->t_measure)
    return;
  uint64_t lat = t_done - t0;
  fr_lat_add (&res->lat[w], lat);
  fr_lat_add (&res->lat[FR_MAX_WL], lat);
  if (run->arrive_write[tag])
    {
      fr_lat_add (&res->wlat[w], lat);
      fr_lat_add (&res->wlat[FR_MAX_WL], lat);
    }
  else
    {
      fr_lat_add (&res->rlat[w], lat);
      fr_lat_add (&res->rlat[FR_MAX_WL], lat);
    }
}

static void
progress (struct fr_run *run, bool final)
{
  if (!run->o->progress)
    return;
  double now = sim_wall ();
  if (!final && now - run->last_draw < 0.25)
    return;
  run->last_draw = now;
  double frac = run->t_end ? (double) run->now / (double) run->t_end : 1;
  bench_progress_bar (run->res->policy, final ? 1 : frac, now - run->wall0, final);
  fflush (stderr);
}

static int
push_next (struct fr_run *run, uint32_t w, uint64_t after)
{
  struct fr_request rq;
  if (!fr_wl_next (&run->wl[w], run->o, after, &rq) || rq.t >= run->t_end)
    return 0;
  /* the request rides in the event (workload, write, units, unit) */
  return fr_heap_push (&run->h, rq.t, EV_ARRIVAL,
                       w | ((uint64_t) rq.write << 8)
                       | ((uint64_t) rq.units << 16) | (rq.unit << 32), 0);
}

/* Events until none is left. */
static int
loop (struct fr_run *run)
{
  struct fr_event ev;
  raid_error err = { { 0 } };
  while (fr_heap_pop (&run->h, &ev))
    {
      run->now = ev.t;
      if (ev.kind == EV_IO_DONE)
        {
          uint32_t d = (uint32_t) (ev.a >> 40);
          run->pool.inflight[d]--;
          raid_engine_io_done (run->eng, ev.a & TAG_MASK, ev.t, ev.status);
          continue;
        }
      uint32_t w = (uint32_t) (ev.a & 0xff);
      bool write = (ev.a >> 8) & 1;
      uint32_t units = (uint32_t) ((ev.a >> 16) & 0xffff);
      uint64_t unit = ev.a >> 32;
      uint64_t tag = run->next_tag++;
      int r = tag_slot (run, tag);
      if (r < 0)
        return r;
      run->arrive[tag] = ev.t;
      run->arrive_wl[tag] = (uint8_t) w;
      run->arrive_write[tag] = write;
      run->res->generated[w]++;
      run->reqs_live++;
      r = raid_engine_submit (run->eng, w, write, unit, units, tag, &err);
      if (r < 0)
        {
          fprintf (stderr, "fusionraid-sim: %s\n", err.msg);
          return r;
        }
      if ((r = push_next (run, w, ev.t)) < 0)
        return r;
      progress (run, false);
    }
  if (raid_engine_error (run->eng, &err))
    {
      fprintf (stderr, "fusionraid-sim: %s: %s\n", run->res->policy, err.msg);
      return raid_engine_error (run->eng, NULL);
    }
  return 0;
}

int
fr_run_policy (const struct fr_opts *o, uint32_t pi, struct fr_result *res)
{
  struct fr_run *run = calloc (1, sizeof *run);
  if (!run)
    return -ENOMEM;
  run->o = o;
  run->pi = pi;
  run->res = res;
  snprintf (res->policy, sizeof res->policy, "%s", o->policy_name[pi]);
  run->wall0 = sim_wall ();
  int r = fr_pool_open (&run->pool, o, o->progress);
  struct raid_engine_config c;
  raid_engine_config_defaults (&c);
  c.policy = o->policy[pi];
  c.drives = o->drives;
  c.width = o->width;
  c.groups = o->groups;
  c.drive_units = run->pool.drive_units;
  c.volumes = o->nwl;
  c.volume_units = (uint64_t) (o->volume_frac * (double) run->pool.drive_units
                               * (o->width - 1));
  c.convert = o->policy_convert[pi];
  c.spike_avoid = o->policy_spike[pi];
  c.mon = o->mon;
  raid_error err = { { 0 } };
  if (r == 0)
    {
      r = raid_engine_create (&c, &fr_pool_ops, run, on_done, run, &run->eng,
                              &err);
      if (r < 0)
        fprintf (stderr, "fusionraid-sim: %s: %s\n", res->policy, err.msg);
    }
  for (uint32_t w = 0; r == 0 && w < o->nwl; w++)
    r = fr_wl_open (&run->wl[w], &o->wl[w], w, c.volume_units, o->seed);
  run->t_measure = (uint64_t) (o->warmup_s * 1e9);
  run->t_end = run->t_measure + (uint64_t) (o->seconds * 1e9);
  for (uint32_t w = 0; r == 0 && w < o->nwl; w++)
    r = push_next (run, w, 0);
  if (r == 0)
    r = loop (run);
  progress (run, true);
  res->virtual_ns = run->now;
  if (r == 0 && run->eng && raid_engine_space (run->eng))
    {
      res->has_space = true;
      raid_space_usage (raid_engine_space (run->eng), true, &res->space_end);
      raid_engine_drain (run->eng);
      r = loop (run);
      raid_space_usage (raid_engine_space (run->eng), true,
                        &res->space_drained);
    }
  if (run->eng)
    raid_engine_stats (run->eng, &res->es);
  if (r == 0)
    r = fr_pool_stats (&run->pool, &res->ds);
  if (r == 0 && run->reqs_live)
    {
      fprintf (stderr, "fusionraid-sim: %s: %llu requests never completed\n",
               res->policy, (unsigned long long) run->reqs_live);
      r = -EIO;
    }
  res->wall_s = sim_wall () - run->wall0;
  for (uint32_t w = 0; w < o->nwl; w++)
    fr_wl_close (&run->wl[w]);
  raid_engine_destroy (run->eng);
  fr_pool_close (&run->pool);
  fr_heap_free (&run->h);
  free (run->arrive);
  free (run->arrive_wl);
  free (run->arrive_write);
  free (run);
  return r;
}
