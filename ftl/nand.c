/* nand.c - the NAND array model: geometry, per-die and per-channel virtual
 * clocks, operation timing and counters.  Data movement is delegated to a
 * backend (nand_backend_file.c, nand_backend_ram.c, nand_backend_none.c).
 *
 * Timing model: a read occupies the die for tR, then the channel for the
 * transfer; a program first transfers over the channel (the die must be
 * idle to take the data) then occupies the die for tPROG; an erase occupies
 * the die for tBERS.  Dies overlap freely, a channel serialises transfers.
 * Each die and channel also sums the work it is given (busy time), whose
 * maximum is the time a drive kept saturated by a deep queue needs for
 * the same operations (bottleneck law; ftl_stats.busiest_*).
 * A drive profile may model fewer dies than the image has
 * (nand_clocks_of_block); a paced profile makes these clocks track real
 * time (ftl_pace.c).
 *
 * Each die and channel is a priority-aware queue (nand_queue.c): the
 * operations are timed in the QoS class of the FTL call that issues them
 * (n->op), an operation of a higher class goes ahead of queued (not yet
 * started) ones of a lower class, and with one class the clocks are the
 * plain FCFS clocks they always were.  A read's die is held until its
 * transfer ends; when a push moves one part of an operation (its die
 * time or its transfer), the other part is not moved with it, but its
 * owner's completion is (docs/qos.md says what that simplifies).
 */
#include "ftl_internal.h"

int
nand_geometry_fill (struct nand_geometry *g, const struct ftl_config *cfg,
                    ftl_error *err)
{
  memset (g, 0, sizeof *g);
  g->channels = cfg->channels;
  g->ways = cfg->ways;
  g->planes = cfg->planes;
  g->blocks_per_plane = cfg->blocks_per_plane;
  g->pages_per_block = cfg->pages_per_block;
  g->page_size = cfg->page_size;
  if (!g->channels || !g->ways || !g->planes || !g->blocks_per_plane
      || !g->pages_per_block)
    return ftl_fail (err, -EINVAL, "geometry has a zero dimension");
  if (g->page_size < 8192 || g->page_size % FTL_SECTOR
      || g->page_size / FTL_SECTOR > FTL_MAX_SPP)
    return ftl_fail (err, -EINVAL,
                     "page_size %u must be a multiple of 4096 in [8192, %u]",
                     g->page_size, FTL_MAX_SPP * FTL_SECTOR);
  g->spp = g->page_size / FTL_SECTOR;
  uint32_t need = oob_bytes_needed (g->spp);
  g->oob_size = cfg->oob_size ? cfg->oob_size : ((need + 63) / 64) * 64;
  if (g->oob_size < need)
    return ftl_fail (err, -EINVAL, "oob_size %u < %u bytes needed for %u "
                     "sectors per page", g->oob_size, need, g->spp);
  g->dies = g->channels * g->ways;
  g->blocks_per_die = g->planes * g->blocks_per_plane;
  uint64_t nb = (uint64_t) g->dies * g->blocks_per_die;
  uint64_t ns = nb * g->pages_per_block * g->spp;
  if (nb >= BLOCK_NONE || ns >= PPA_NONE)
    return ftl_fail (err, -EINVAL, "geometry too large (%llu sectors)",
                     (unsigned long long) ns);
  g->total_blocks = (uint32_t) nb;
  g->total_pages = nb * g->pages_per_block;
  g->sectors_per_block = g->pages_per_block * g->spp;
  g->total_sectors = ns;
  return 0;
}

int
nand_init (struct nand *n, const struct nand_geometry *g,
           const struct nand_timing *tm, struct nand_backend *be,
           ftl_error *err)
{
  memset (n, 0, sizeof *n);
  n->geo = *g;
  n->tm = *tm;
  n->be = be;
  n->op = (struct nand_op_class) { FTL_PRIORITY_DEFAULT, 0, true };
  n->dieq = calloc (g->dies, sizeof *n->dieq);
  n->chanq = calloc (g->channels, sizeof *n->chanq);
  n->die_busy = calloc (g->dies, sizeof (uint64_t));
  n->chan_busy = calloc (g->channels, sizeof (uint64_t));
  if (!n->dieq || !n->chanq || !n->die_busy || !n->chan_busy)
    return ftl_fail (err, -ENOMEM, "out of memory for NAND clocks");
  return 0;
}

void
nand_fini (struct nand *n)
{
  if (n->be)
    n->be->ops->close (n->be);
  n->be = NULL;
  free (n->dieq);
  free (n->chanq);
  free (n->die_busy);
  free (n->chan_busy);
  n->dieq = n->chanq = NULL;
  n->die_busy = n->chan_busy = NULL;
}

static inline uint64_t
max64 (uint64_t a, uint64_t b)
{
  return a > b ? a : b;
}

/* A reservation of [start, end) for the operation class in force; its
 * owner waits until start + wait_len. */
static uint64_t
reserve (struct nand *n, struct nand_queue *q, uint32_t at,
         uint64_t start, uint64_t end, uint64_t wait_len)
{
  struct nand_resv rv = { .id = ++n->next_resv_id, .start = start, .end = end,
                          .wait_len = wait_len, .ticket = n->op.ticket,
                          .prio = n->op.prio, .pushable = n->op.pushable };
  /* nand_queue_prune made room and `at` came from nand_queue_slot */
  (void) nand_queue_insert (q, at, &rv, &n->tickets, &n->qc);
  return rv.id;
}

/* The die reservation die_id's transfer is chan_id on cq. */
static void
link_transfer (struct nand_queue *dq, uint64_t die_id, struct nand_queue *cq,
               uint64_t chan_id)
{
  struct nand_resv *r = nand_queue_find (dq, die_id);
  if (r)
    {
      r->partner_id = chan_id;
      r->partner_q = cq;
    }
}

static void
count_class (struct nand *n)
{
  n->ops_by_prio[n->op.prio > FTL_PRIORITY_MAX ? FTL_PRIORITY_MAX : n->op.prio]++;
}

/* The die first reads the page (tR), then the data crosses the channel;
 * the die is held until it has.  The die's place is taken first, so the
 * transfer is placed knowing what the read overtook there. */
uint64_t
nand_time_read (struct nand *n, uint64_t page, uint32_t nsect, uint64_t t)
{
  uint32_t block = (uint32_t) (page / n->geo.pages_per_block);
  uint32_t die, ch, kd, kc;
  nand_clocks_of_block (n, block, &die, &ch);
  struct nand_queue *dq = &n->dieq[die], *cq = &n->chanq[ch];
  nand_queue_prune (dq, t);
  nand_queue_prune (cq, t);
  uint64_t start = nand_queue_slot (dq, t, n->op.prio, &kd, &n->qc);
  uint64_t ready = start + n->tm.read_ns;
  uint64_t die_id = reserve (n, dq, kd, start, ready, n->tm.read_ns);
  uint64_t xs = nand_queue_slot (cq, ready, n->op.prio, &kc, &n->qc);
  uint64_t xfer = nsect >= n->geo.spp ? n->tm.xfer_ns
    : n->tm.xfer_sector_ns * nsect;
  uint64_t done = xs + xfer;
  n->last_read_chan_id = reserve (n, cq, kc, xs, done, xfer);
  link_transfer (dq, die_id, cq, n->last_read_chan_id);
  nand_queue_extend (dq, die_id, done, done - start, &n->tickets, &n->qc);
  n->last_read_die_id = die_id;
  n->die_busy[die] += n->tm.read_ns + xfer;
  n->chan_busy[ch] += xfer;
  n->reads++;
  count_class (n);
  return done;
}

uint64_t
nand_time_read_more (struct nand *n, uint64_t page, uint32_t nsect,
                     uint64_t done)
{
  uint32_t block = (uint32_t) (page / n->geo.pages_per_block);
  uint32_t die, ch, kc;
  nand_clocks_of_block (n, block, &die, &ch);
  struct nand_queue *dq = &n->dieq[die], *cq = &n->chanq[ch];
  uint64_t x = n->tm.xfer_sector_ns * nsect;
  nand_queue_prune (cq, done);
  uint64_t xs = nand_queue_slot (cq, done, n->op.prio, &kc, &n->qc);
  uint64_t end = xs + x;
  /* right behind the page's own transfer: that transfer grows; else the
   * sectors get a transfer of their own */
  struct nand_resv *own = nand_queue_find (cq, n->last_read_chan_id);
  if (own && own->end == done && xs == done)
    nand_queue_extend (cq, own->id, end, end - own->start, &n->tickets, &n->qc);
  else
    n->last_read_chan_id = reserve (n, cq, kc, xs, end, x);
  struct nand_resv *die_r = nand_queue_find (dq, n->last_read_die_id);
  nand_queue_extend (dq, n->last_read_die_id, end,
                     die_r ? end - die_r->start : 0, &n->tickets, &n->qc);
  n->die_busy[die] += x;
  n->chan_busy[ch] += x;
  return end;
}

/* The data crosses the channel into an idle die, which then programs. */
uint64_t
nand_time_program (struct nand *n, uint64_t page, uint64_t t, uint64_t *done)
{
  uint32_t block = (uint32_t) (page / n->geo.pages_per_block);
  uint32_t die, ch, kd, kc;
  nand_clocks_of_block (n, block, &die, &ch);
  struct nand_queue *dq = &n->dieq[die], *cq = &n->chanq[ch];
  nand_queue_prune (dq, t);
  nand_queue_prune (cq, t);
  uint64_t work = n->tm.xfer_ns + n->tm.program_ns;
  uint64_t sd = nand_queue_slot (dq, t, n->op.prio, &kd, &n->qc);
  uint64_t die_id = reserve (n, dq, kd, sd, sd + work, n->tm.xfer_ns);
  uint64_t xs = nand_queue_slot (cq, sd, n->op.prio, &kc, &n->qc);
  uint64_t accepted = xs + n->tm.xfer_ns;
  /* its writer waits for the die to take the data, not for the program */
  link_transfer (dq, die_id, cq, reserve (n, cq, kc, xs, accepted, n->tm.xfer_ns));
  nand_queue_extend (dq, die_id, xs + work, accepted - sd, &n->tickets, &n->qc);
  n->die_busy[die] += work;
  n->chan_busy[ch] += n->tm.xfer_ns;
  if (done)
    *done = xs + work;
  n->programs++;
  count_class (n);
  return accepted;
}

uint64_t
nand_time_erase (struct nand *n, uint32_t block, uint64_t t)
{
  uint32_t die, ch, kd;
  nand_clocks_of_block (n, block, &die, &ch);
  struct nand_queue *dq = &n->dieq[die];
  nand_queue_prune (dq, t);
  uint64_t start = nand_queue_slot (dq, t, n->op.prio, &kd, &n->qc);
  uint64_t end = start + n->tm.erase_ns;
  reserve (n, dq, kd, start, end, n->tm.erase_ns);
  n->die_busy[die] += n->tm.erase_ns;
  n->erases++;
  count_class (n);
  return end;
}

uint64_t
nand_max_clock (const struct nand *n)
{
  uint64_t m = 0;
  for (uint32_t i = 0; i < n->geo.dies; i++)
    m = max64 (m, n->dieq[i].tail);
  for (uint32_t i = 0; i < n->geo.channels; i++)
    m = max64 (m, n->chanq[i].tail);
  return m;
}
