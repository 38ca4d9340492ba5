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
  n->die_clock = calloc (g->dies, sizeof (uint64_t));
  n->chan_clock = calloc (g->channels, sizeof (uint64_t));
  n->die_busy = calloc (g->dies, sizeof (uint64_t));
  n->chan_busy = calloc (g->channels, sizeof (uint64_t));
  if (!n->die_clock || !n->chan_clock || !n->die_busy || !n->chan_busy)
    return ftl_fail (err, -ENOMEM, "out of memory for NAND clocks");
  return 0;
}

void
nand_fini (struct nand *n)
{
  if (n->be)
    n->be->ops->close (n->be);
  n->be = NULL;
  free (n->die_clock);
  free (n->chan_clock);
  free (n->die_busy);
  free (n->chan_busy);
  n->die_clock = n->chan_clock = NULL;
  n->die_busy = n->chan_busy = NULL;
}

static inline uint64_t
max64 (uint64_t a, uint64_t b)
{
  return a > b ? a : b;
}

uint64_t
nand_time_read (struct nand *n, uint64_t page, uint32_t nsect, uint64_t t)
{
  uint32_t block = (uint32_t) (page / n->geo.pages_per_block);
  uint32_t die, ch;
  nand_clocks_of_block (n, block, &die, &ch);
  uint64_t start = max64 (t, n->die_clock[die]);
  uint64_t ready = start + n->tm.read_ns;
  uint64_t xs = max64 (ready, n->chan_clock[ch]);
  uint64_t xfer = nsect >= n->geo.spp ? n->tm.xfer_ns
    : n->tm.xfer_sector_ns * nsect;
  uint64_t done = xs + xfer;
  n->die_clock[die] = done;
  n->chan_clock[ch] = done;
  n->die_busy[die] += n->tm.read_ns + xfer;
  n->chan_busy[ch] += xfer;
  n->reads++;
  return done;
}

uint64_t
nand_time_read_more (struct nand *n, uint64_t page, uint32_t nsect,
                     uint64_t done)
{
  uint32_t block = (uint32_t) (page / n->geo.pages_per_block);
  uint32_t die, ch;
  nand_clocks_of_block (n, block, &die, &ch);
  uint64_t xs = max64 (done, n->chan_clock[ch]);
  uint64_t end = xs + n->tm.xfer_sector_ns * nsect;
  n->die_clock[die] = max64 (n->die_clock[die], end);
  n->chan_clock[ch] = end;
  n->die_busy[die] += n->tm.xfer_sector_ns * nsect;
  n->chan_busy[ch] += n->tm.xfer_sector_ns * nsect;
  return end;
}

uint64_t
nand_time_program (struct nand *n, uint64_t page, uint64_t t, uint64_t *done)
{
  uint32_t block = (uint32_t) (page / n->geo.pages_per_block);
  uint32_t die, ch;
  nand_clocks_of_block (n, block, &die, &ch);
  uint64_t xs = max64 (t, max64 (n->chan_clock[ch], n->die_clock[die]));
  uint64_t accepted = xs + n->tm.xfer_ns;
  n->chan_clock[ch] = accepted;
  n->die_clock[die] = accepted + n->tm.program_ns;
  n->die_busy[die] += n->tm.xfer_ns + n->tm.program_ns;
  n->chan_busy[ch] += n->tm.xfer_ns;
  if (done)
    *done = n->die_clock[die];
  n->programs++;
  return accepted;
}

uint64_t
nand_time_erase (struct nand *n, uint32_t block, uint64_t t)
{
  uint32_t die, ch;
  nand_clocks_of_block (n, block, &die, &ch);
  uint64_t start = max64 (t, n->die_clock[die]);
  n->die_clock[die] = start + n->tm.erase_ns;
  n->die_busy[die] += n->tm.erase_ns;
  n->erases++;
  return n->die_clock[die];
}

uint64_t
nand_max_clock (const struct nand *n)
{
  uint64_t m = 0;
  for (uint32_t i = 0; i < n->geo.dies; i++)
    m = max64 (m, n->die_clock[i]);
  for (uint32_t i = 0; i < n->geo.channels; i++)
    m = max64 (m, n->chan_clock[i]);
  return m;
}
