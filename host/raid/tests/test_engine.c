/* test_engine.c - the engine over a small drive model of this test's own
 * (each drive serves its I/Os one after another, in a fixed time per I/O;
 * completions are events in time order): the drive I/Os each policy's
 * requests cost (RAID-5 read-modify-write: 2 reads then 2 writes; a whole
 * stripe: K writes; FusionRAID's small write: two replicas, one in place),
 * conversion to parity and its drain, reads steered away from a slow
 * drive once the monitor has seen it, every request completing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ossd_raid.h"

#define MAXEV 4096
#define ND 7

struct ev
{
  uint64_t t, tag;
};

struct model
{
  uint64_t now;
  uint64_t busy[ND];
  uint64_t lat[ND];
  uint64_t ios[ND];
  struct ev ev[MAXEV];
  int nev;
  int done;
  struct raid_engine *e;
};

static int
m_submit (void *ctx, uint32_t drive, enum raid_io_kind kind, uint64_t off,
          uint32_t units, uint64_t tag)
{
  struct model *m = ctx;
  assert_true (drive < ND);
  assert_true (m->nev < MAXEV);
  uint64_t start = m->busy[drive] > m->now ? m->busy[drive] : m->now;
  uint64_t t = start + (kind == RAID_IO_TRIM ? 1 : m->lat[drive] * units);
  m->busy[drive] = t;
  m->ios[drive]++;
  m->ev[m->nev++] = (struct ev) { t, tag };
  return 0;
}

static uint64_t
m_now (void *ctx)
{
  return ((struct model *) ctx)->now;
}

static const struct raid_drive_ops ops = { m_submit, m_now };

static void
m_done (void *arg, uint64_t tag, uint64_t t, int status)
{
  struct model *m = arg;
  assert_int_equal (status, 0);
  m->done++;
}

/* Deliver completions in time order until none is left. */
static void
run (struct model *m)
{
  while (m->nev)
    {
      int k = 0;
      for (int i = 1; i < m->nev; i++)
        if (m->ev[i].t < m->ev[k].t)
          k = i;
      struct ev e = m->ev[k];
      m->ev[k] = m->ev[--m->nev];
      if (e.t > m->now)
        m->now = e.t;
      raid_engine_io_done (m->e, e.tag, e.t, 0);
    }
}

static struct model *
make (enum raid_policy p, bool convert)
{
  struct model *m = calloc (1, sizeof *m);
  assert_non_null (m);
  for (int d = 0; d < ND; d++)
    m->lat[d] = 100000;
  struct raid_engine_config c;
  raid_engine_config_defaults (&c);
  c.policy = p;
  c.drives = ND;
  c.width = 3;
  c.groups = 2;
  c.drive_units = 6 * 20;
  c.volumes = 2;
  c.volume_units = 40;
  c.convert = convert;
  raid_error err = { "" };
  assert_int_equal (raid_engine_create (&c, &ops, m, m_done, m, &m->e, &err),
                    0);
  return m;
}

static void
submit (struct model *m, uint32_t vol, bool write, uint64_t unit, uint32_t n)
{
  raid_error err;
  assert_int_equal (raid_engine_submit (m->e, vol, write, unit, n, 0, &err),
                    0);
}

static void
test_raid5_costs (void **state)
{
  struct model *m = make (RAID_POLICY_RAID5_GROUPS, false);
  struct raid_engine_stats st;
  submit (m, 0, true, 5, 1);          /* one unit: read-modify-write */
  raid_engine_stats (m->e, &st);
  assert_int_equal (st.io[RAID_IO_READ], 2);
  assert_int_equal (st.io[RAID_IO_WRITE], 0);   /* after the reads */
  run (m);
  raid_engine_stats (m->e, &st);
  assert_int_equal (st.io[RAID_IO_WRITE], 2);
  assert_int_equal (m->done, 1);
  submit (m, 1, true, 4, 2);          /* a whole stripe (K-1 = 2) */
  run (m);
  raid_engine_stats (m->e, &st);
  assert_int_equal (st.io[RAID_IO_WRITE], 5);
  assert_int_equal (st.io[RAID_IO_READ], 2);
  /* volume 0 lives on group 0 (drives 0-2), volume 1 on group 1 (3-5) */
  assert_int_equal (m->ios[0] + m->ios[1] + m->ios[2], 4);
  for (int d = 3; d < 6; d++)
    assert_int_equal (m->ios[d], 1);
  assert_int_equal (m->ios[6], 0);    /* the spare */
  raid_error err;
  assert_int_equal (raid_engine_submit (m->e, 0, false, 39, 2, 0, &err),
                    -EINVAL);
  raid_engine_destroy (m->e);
  free (m);
}

static void
test_fusion_write_convert_drain (void **state)
{
  struct model *m = make (RAID_POLICY_FUSION, true);
  struct raid_engine_stats st;
  submit (m, 0, true, 3, 1);
  raid_engine_stats (m->e, &st);
  assert_int_equal (st.io[RAID_IO_WRITE], 2);   /* two replicas, no reads */
  assert_int_equal (st.io[RAID_IO_READ], 0);
  assert_int_equal (st.replicated_writes, 1);
  run (m);
  assert_int_equal (m->done, 1);
  /* more small writes fill stripes; full ones are converted */
  for (int i = 0; i < 12; i++)
    submit (m, 1, true, (uint64_t) (i * 3) % 40, 1);
  run (m);
  raid_engine_stats (m->e, &st);
  assert_true (st.conversions > 0);
  assert_true (st.io[RAID_IO_TRIM] > 0);       /* freed mirrors and old data */
  const struct raid_space *sp = raid_engine_space (m->e);
  struct raid_space_usage u;
  raid_space_usage (sp, true, &u);
  uint64_t replicas_before = u.replica_units;
  raid_engine_drain (m->e);
  run (m);
  assert_false (raid_engine_busy (m->e));
  raid_space_usage (sp, true, &u);
  assert_int_equal (u.replica_units, 0);
  assert_true (replicas_before > 0 || st.conversions > 0);
  /* reads of every unit complete */
  submit (m, 0, false, 0, 40);
  submit (m, 1, false, 0, 40);
  run (m);
  assert_int_equal (m->done, 15);
  assert_int_equal (raid_engine_error (m->e, NULL), 0);
  raid_engine_destroy (m->e);
  free (m);
}

static void
test_fusion_avoids_slow_drive (void **state)
{
  struct model *m = make (RAID_POLICY_FUSION, false);
  /* replicated data everywhere */
  for (int i = 0; i < 40; i++)
    submit (m, 0, true, (uint64_t) i, 1);
  run (m);
  /* drive 2 becomes 100x slower; reads teach the monitor, then avoid it */
  m->lat[2] *= 100;
  for (int round = 0; round < 20; round++)
    {
      for (int i = 0; i < 40; i++)
        submit (m, 0, false, (uint64_t) i, 1);
      m->now += 50000;
      run (m);
    }
  struct raid_engine_stats st;
  raid_engine_stats (m->e, &st);
  assert_true (st.spikes > 0);
  assert_true (st.reads_other_replica > 0);
  assert_true (raid_monitor_in_spike (raid_engine_monitor (m->e), 2, m->now)
               || raid_monitor_spikes (raid_engine_monitor (m->e), 2) > 0);
  assert_int_equal (m->done, 40 + 20 * 40);
  raid_engine_destroy (m->e);
  free (m);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_raid5_costs),
    cmocka_unit_test (test_fusion_write_convert_drain),
    cmocka_unit_test (test_fusion_avoids_slow_drive),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
