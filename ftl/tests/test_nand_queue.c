/* test_nand_queue.c - the priority-aware die and channel queues of the
 * NAND model (ftl/nand_queue.c, ftl/nand.c, docs/qos.md), in virtual time
 * only: with one priority the clocks are the old FCFS clocks exactly; a
 * high-priority read arriving behind queued low-priority work completes
 * first, and the work it overtook completes later, its tickets following;
 * nothing started is preempted; equal priorities keep their order; the
 * starvation bound stops overtaking after NAND_Q_MAX_PUSHES pushes. */
#include "ftl_test_util.h"
#include "ftl_internal.h"

#define T_READ 50000ull
#define T_PROG 300000ull
#define T_ERASE 3000000ull
#define T_XFER 80000ull          /* a page */
#define T_XSECT 20000ull         /* a sector */

/* 2 channels x 2 ways, 4 sectors a page, 8 blocks a die, 4 pages a block */
static void
make_nand (struct nand *n)
{
  struct nand_geometry g = { 0 };
  g.channels = 2;
  g.ways = 2;
  g.planes = 1;
  g.blocks_per_plane = 8;
  g.pages_per_block = 4;
  g.page_size = 16384;
  g.spp = 4;
  g.dies = 4;
  g.blocks_per_die = 8;
  g.total_blocks = 32;
  g.total_pages = 128;
  struct nand_timing tm = { T_READ, T_PROG, T_ERASE, T_XFER, T_XSECT };
  ftl_error e = { "" };
  assert_int_equal (nand_init (n, &g, &tm, NULL, &e), 0);
}

/* first page of a block on die d (block = die * blocks_per_die + i) */
static uint64_t
page_on_die (uint32_t d, uint32_t i)
{
  return (uint64_t) (d * 8 + i) * 4;
}

static void
set_class (struct nand *n, uint8_t prio, uint64_t ticket)
{
  n->op = (struct nand_op_class) { prio, ticket, true };
}

/* ---- the old FCFS model, as nand.c had it: the reference ---- */
struct fcfs
{
  uint64_t die[4], chan[2];
};

static uint64_t
max64 (uint64_t a, uint64_t b)
{
  return a > b ? a : b;
}

static void
where (uint64_t page, uint32_t *d, uint32_t *c)
{
  *d = (uint32_t) (page / 4 / 8);
  *c = *d % 2;
}

static uint64_t
ref_read (struct fcfs *m, uint64_t page, uint32_t nsect, uint64_t t)
{
  uint32_t d, c;
  where (page, &d, &c);
  uint64_t start = max64 (t, m->die[d]);
  uint64_t xs = max64 (start + T_READ, m->chan[c]);
  uint64_t done = xs + (nsect >= 4 ? T_XFER : T_XSECT * nsect);
  m->die[d] = m->chan[c] = done;
  return done;
}

static uint64_t
ref_read_more (struct fcfs *m, uint64_t page, uint32_t nsect, uint64_t done)
{
  uint32_t d, c;
  where (page, &d, &c);
  uint64_t end = max64 (done, m->chan[c]) + T_XSECT * nsect;
  m->die[d] = max64 (m->die[d], end);
  m->chan[c] = end;
  return end;
}

static uint64_t
ref_program (struct fcfs *m, uint64_t page, uint64_t t, uint64_t *done)
{
  uint32_t d, c;
  where (page, &d, &c);
  uint64_t xs = max64 (t, max64 (m->chan[c], m->die[d]));
  m->chan[c] = xs + T_XFER;
  m->die[d] = m->chan[c] + T_PROG;
  *done = m->die[d];
  return m->chan[c];
}

static uint64_t
ref_erase (struct fcfs *m, uint32_t block, uint64_t t)
{
  uint32_t d = block / 8;
  m->die[d] = max64 (t, m->die[d]) + T_ERASE;
  return m->die[d];
}

static uint64_t
splitmix (uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Every operation kind, random arrivals (some in the past of the clocks,
 * some ahead), one priority: the same times as the FCFS model, op for
 * op, whatever that priority is. */
static void
test_single_priority_is_fcfs_exactly (void **state)
{
  for (uint8_t prio = 0; prio <= FTL_PRIORITY_MAX; prio += 3)
    {
      struct nand n;
      struct fcfs m = { { 0 }, { 0 } };
      make_nand (&n);
      set_class (&n, prio, 0);
      uint64_t seed = 42 + prio, t = 0, last_page = 0, last_done = 0;
      bool have_read = false;
      for (int i = 0; i < 20000; i++)
        {
          uint64_t r = splitmix (&seed);
          t += (r >> 8) % 120000;
          uint64_t at = (r & 1) ? t : (t > 500000 ? t - 500000 : 0);
          uint64_t page = (r >> 20) % 128;
          switch ((r >> 4) % 5)
            {
            case 0:
            case 1:
              {
                uint32_t ns = 1 + (uint32_t) ((r >> 40) % 4);
                uint64_t a = nand_time_read (&n, page, ns, at);
                assert_int_equal (a, ref_read (&m, page, ns, at));
                last_page = page;
                last_done = a;
                have_read = true;
                break;
              }
            case 2:
              if (have_read)
                {
                  uint64_t a = nand_time_read_more (&n, last_page, 1, last_done);
                  assert_int_equal (a, ref_read_more (&m, last_page, 1, last_done));
                  last_done = a;
                }
              break;
            case 3:
              {
                uint64_t d1, d2;
                uint64_t a = nand_time_program (&n, page, at, &d1);
                assert_int_equal (a, ref_program (&m, page, at, &d2));
                assert_int_equal (d1, d2);
                have_read = false;
                break;
              }
            case 4:
              {
                uint32_t b = (uint32_t) (page / 4);
                assert_int_equal (nand_time_erase (&n, b, at), ref_erase (&m, b, at));
                have_read = false;
                break;
              }
            }
        }
      for (int d = 0; d < 4; d++)
        assert_int_equal (n.dieq[d].tail, m.die[d]);
      for (int c = 0; c < 2; c++)
        assert_int_equal (n.chanq[c].tail, m.chan[c]);
      assert_int_equal (n.qc.overtakes, 0);
      assert_int_equal (n.qc.pushes, 0);
      nand_fini (&n);
    }
}

/* Die 0 busy with a low-priority read, three more low reads queued on it;
 * a high-priority read of die 0 arriving meanwhile waits only for the one
 * in progress, and each queued read ends later by what it gave way. */
static void
test_high_read_overtakes_queued_low_reads (void **state)
{
  struct nand n;
  struct nand_tickets *tk = &n.tickets;
  make_nand (&n);
  uint64_t low_ticket[4], low_done[4];
  for (int i = 0; i < 4; i++)
    {
      low_ticket[i] = nand_ticket_open (tk, 0);
      assert_true (low_ticket[i] != 0);
      set_class (&n, 0, low_ticket[i]);
      low_done[i] = nand_time_read (&n, page_on_die (0, (uint32_t) i), 4, 0);
      nand_ticket_close (tk, low_ticket[i], low_done[i]);
    }
  /* FCFS: each waits for the one before: 130, 260, 390, 520 us */
  for (int i = 0; i < 4; i++)
    assert_int_equal (low_done[i], (uint64_t) (i + 1) * (T_READ + T_XFER));

  set_class (&n, 6, 0);
  uint64_t t = 10000;                  /* the first low read is in progress */
  uint64_t hi = nand_time_read (&n, page_on_die (0, 5), 2, t);
  uint64_t hi_len = T_READ + 2 * T_XSECT;
  /* after the one in progress, before the three queued */
  assert_int_equal (hi, low_done[0] + hi_len);
  assert_true (hi < low_done[1]);
  uint64_t done;
  assert_true (nand_ticket_done (tk, low_ticket[0], &done));
  assert_int_equal (done, low_done[0]);             /* started: kept */
  for (int i = 1; i < 4; i++)
    {
      assert_true (nand_ticket_done (tk, low_ticket[i], &done));
      assert_int_equal (done, low_done[i] + hi_len);  /* pushed back */
    }
  /* ahead on the die and on the channel; the three on the die and the
   * second one's transfer moved back */
  assert_int_equal (n.qc.overtakes, 2);
  assert_int_equal (n.qc.pushes, 4);
  /* the die is now free when the last pushed read ends */
  assert_int_equal (n.dieq[0].tail, low_done[3] + hi_len);
  nand_fini (&n);
}

/* Nothing in progress is preempted, and a high-priority read ahead of
 * which nothing waits is timed as FCFS would time it. */
static void
test_started_work_is_not_preempted (void **state)
{
  struct nand n;
  make_nand (&n);
  set_class (&n, 0, 0);
  uint64_t erase_end = nand_time_erase (&n, 0, 0);    /* die 0, 3 ms */
  set_class (&n, 7, 0);
  uint64_t hi = nand_time_read (&n, page_on_die (0, 1), 4, 1000);
  assert_int_equal (hi, erase_end + T_READ + T_XFER);
  assert_int_equal (n.qc.overtakes, 0);
  nand_fini (&n);
}

/* Equal priorities stay first come first served: a priority-6 read does
 * not overtake queued priority-6 reads, only the lower ones behind them. */
static void
test_equal_priority_keeps_order (void **state)
{
  struct nand n;
  make_nand (&n);
  set_class (&n, 6, 0);
  uint64_t a = nand_time_read (&n, page_on_die (0, 0), 4, 0);
  uint64_t b = nand_time_read (&n, page_on_die (0, 1), 4, 0);
  set_class (&n, 2, 0);
  uint64_t c = nand_time_read (&n, page_on_die (0, 2), 4, 0);
  set_class (&n, 6, 0);
  uint64_t d = nand_time_read (&n, page_on_die (0, 3), 4, 1000);
  assert_true (a < b);
  assert_int_equal (d, b + T_READ + T_XFER);          /* after b, before c */
  assert_true (d < c + T_READ + T_XFER);
  assert_int_equal (n.qc.pushes, 2);            /* c on the die and channel */
  nand_fini (&n);
}

/* The channel is a queue too: two dies on channel 0; the high read on
 * die 2 gets its transfer ahead of a low transfer queued on the channel. */
static void
test_channel_transfer_priority (void **state)
{
  struct nand n;
  make_nand (&n);
  uint64_t tk_low = nand_ticket_open (&n.tickets, 0);
  set_class (&n, 1, tk_low);
  /* die 0 and die 2 share channel 0 */
  uint64_t l1 = nand_time_read (&n, page_on_die (0, 0), 4, 0);   /* xfer 50..130 */
  uint64_t l2 = nand_time_read (&n, page_on_die (0, 1), 4, 0);   /* die 130..260 */
  nand_ticket_close (&n.tickets, tk_low, l2);
  assert_int_equal (l1, T_READ + T_XFER);
  set_class (&n, 5, 0);
  /* die 2 idle: ready at 60 us; the channel is in progress with l1's
   * transfer until 130, then l2's transfer (queued, 180..260) gives way */
  uint64_t hi = nand_time_read (&n, page_on_die (2, 0), 4, 10000);
  assert_int_equal (hi, l1 + T_XFER);
  uint64_t done;
  assert_true (nand_ticket_done (&n.tickets, tk_low, &done));
  assert_true (done > l2);
  assert_true (n.qc.overtakes >= 1);
  nand_fini (&n);
}

/* Starvation bound: one queued low read is overtaken NAND_Q_MAX_PUSHES
 * times, then the next high read waits behind it. */
static void
test_starvation_bound (void **state)
{
  struct nand n;
  make_nand (&n);
  set_class (&n, 0, 0);
  uint64_t busy = nand_time_erase (&n, 0, 0);          /* die 0 until 3 ms */
  uint64_t low = nand_time_read (&n, page_on_die (0, 1), 4, 0);
  assert_int_equal (low, busy + T_READ + T_XFER);
  set_class (&n, 7, 0);
  uint64_t hi_len = T_READ + T_XSECT;
  uint64_t hi = 0;
  for (unsigned i = 0; i < NAND_Q_MAX_PUSHES; i++)
    {
      hi = nand_time_read (&n, page_on_die (0, 2), 1, 1000 + i);
      assert_int_equal (hi, busy + (i + 1) * hi_len);  /* ahead of `low` */
    }
  /* each time its die time and its transfer */
  assert_int_equal (n.qc.pushes, 2 * NAND_Q_MAX_PUSHES);
  uint64_t low_now = low + NAND_Q_MAX_PUSHES * hi_len;
  /* the next one may not push it again */
  uint64_t last = nand_time_read (&n, page_on_die (0, 3), 1, 2000);
  assert_int_equal (last, low_now + hi_len);
  assert_int_equal (n.qc.pushes, 2 * NAND_Q_MAX_PUSHES);
  assert_true (n.qc.bound_hits >= 1);
  nand_fini (&n);
}

/* Tickets: a closed ticket reads its completion, a push raises it (never
 * lowers it), a ticket is reused only once its completion passed, and its
 * old handle then has nothing to wait for. */
static void
test_tickets (void **state)
{
  struct nand_tickets tk;
  memset (&tk, 0, sizeof tk);
  uint64_t done;
  uint64_t h = nand_ticket_open (&tk, 100);
  assert_true (h != 0);
  nand_ticket_close (&tk, h, 500);
  assert_true (nand_ticket_done (&tk, h, &done));
  assert_int_equal (done, 500);
  nand_ticket_raise (&tk, h, 400);
  assert_true (nand_ticket_done (&tk, h, &done));
  assert_int_equal (done, 500);
  nand_ticket_raise (&tk, h, 700);
  assert_true (nand_ticket_done (&tk, h, &done));
  assert_int_equal (done, 700);
  /* every other slot taken before 700: h's slot is not reused */
  uint64_t hs[NAND_TICKETS];
  unsigned got = 0;
  for (unsigned i = 0; i < NAND_TICKETS; i++)
    if ((hs[i] = nand_ticket_open (&tk, 600)) != 0)
      {
        nand_ticket_close (&tk, hs[i], 10000);
        got++;
      }
  assert_int_equal (got, NAND_TICKETS - 1);
  assert_true (nand_ticket_done (&tk, h, &done));
  assert_int_equal (done, 700);
  /* after 700 it is */
  uint64_t h2 = nand_ticket_open (&tk, 800);
  assert_true (h2 != 0 && h2 != h);
  assert_false (nand_ticket_done (&tk, h, &done));
  assert_false (nand_ticket_done (&tk, 0, &done));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_single_priority_is_fcfs_exactly),
    cmocka_unit_test (test_high_read_overtakes_queued_low_reads),
    cmocka_unit_test (test_started_work_is_not_preempted),
    cmocka_unit_test (test_equal_priority_keeps_order),
    cmocka_unit_test (test_channel_transfer_priority),
    cmocka_unit_test (test_starvation_bound),
    cmocka_unit_test (test_tickets),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
