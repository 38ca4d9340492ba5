/* ftl_config.c - profiles (geometry and timing defaults), capacity sizing
 * and the parameters derived from a configuration (user capacity, GC
 * thresholds, checkpoint interval). */
#include <math.h>

#include "ftl_internal.h"

/* A drive profile: NAND timing, the parallelism its clocks model, the host
 * link and whether the drive paces itself to real time (docs/profiles.md).
 * time_channels x time_ways is the parallelism of the timing model, not
 * the image's physical layout (that is fixed at format, 8 x 4 dies): each
 * physical die is timed as die % (time_channels * time_ways), so a profile
 * applies to any image at drive start.  0 = the image's own. */
struct profile
{
  const char *name;
  uint32_t pages_per_block;
  uint64_t read_ns, program_ns, erase_ns;
  uint32_t channel_mbps;
  bool paced;
  uint32_t time_channels, time_ways;
  uint32_t link_mbps;           /* host link, MB/s; 0 = not modelled */
  const char *what;
};

static const struct profile profiles[] = {
  /* FEMU-like SLC-ish defaults, unpaced: time is only counted */
  { "default", 256, 40000, 200000, 2000000, 800, false, 0, 0, 0,
    "unpaced (virtual time only), FEMU-like SLC timing" },
  { "mlc", 256, 60000, 900000, 3500000, 800, false, 0, 0, 0,
    "unpaced, MLC timing" },
  { "tlc", 384, 80000, 2000000, 5000000, 1200, false, 0, 0, 0,
    "unpaced, TLC timing" },
  /* for fast functional tests and simulation */
  { "ram-fast", 256, 1000, 2000, 5000, 16000, false, 0, 0, 0,
    "unpaced, near-zero NAND times (tests, simulation)" },
  /* paced drives: requests complete no earlier than the model says */
  { "sata-ssd", 256, 50000, 300000, 3000000, 200, true, 4, 2, 550,
    "paced SATA 6 Gb/s SSD: 4 channels x 2 dies of MLC-ish flash, "
    "550 MB/s link" },
  { "nvme-gen3", 256, 50000, 300000, 3000000, 800, true, 8, 4, 3200,
    "paced NVMe PCIe Gen3 x4 SSD: 8 channels x 4 dies, 3.2 GB/s link" },
  { "nasd-1998", 256, 2300000, 2300000, 9000000, 40, true, 1, 1, 19,
    "paced disk-era drive (NASD prototype, 1998): one actuator "
    "(~6 MB/s media), 155 Mb/s ATM link" },
};

static const struct profile *
profile_find (const char *name)
{
  if (!name || !*name)
    name = "default";
  for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
    if (strcmp (profiles[i].name, name) == 0)
      return &profiles[i];
  return NULL;
}

static void
profile_names (char *buf, size_t len)
{
  size_t o = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sizeof profiles / sizeof profiles[0] && o < len; i++)
    o += (size_t) snprintf (buf + o, len - o, "%s%s", i ? ", " : "",
                            profiles[i].name);
}

/* Modelled bandwidths: a die delivers a page per tR + transfer (it holds
 * the data until the channel has moved it), a channel a page per
 * transfer; a scan is bound by the flash, a host read also by the link. */
static void
profile_model (const struct profile *p, uint32_t page_size,
               uint32_t channels, uint32_t ways, double *scan_mbps,
               double *read_mbps)
{
  double xfer_us = (double) page_size / p->channel_mbps;
  double die = (double) page_size / (p->read_ns / 1000.0 + xfer_us);
  double chan = (double) p->channel_mbps;
  uint32_t ch = p->time_channels ? p->time_channels : channels;
  uint32_t w = p->time_ways ? p->time_ways : ways;
  if (ch > channels)
    ch = channels;
  if (ch * w > channels * ways)
    w = channels * ways / ch;
  double flash = die * ch * w < chan * ch ? die * ch * w : chan * ch;
  *scan_mbps = flash;
  *read_mbps = p->link_mbps && p->link_mbps < flash ? p->link_mbps : flash;
}

size_t
ftl_profile_count (void)
{
  return sizeof profiles / sizeof profiles[0];
}

int
ftl_profile_get (size_t i, const char *name, struct ftl_profile_info *out)
{
  const struct profile *p = name ? profile_find (name)
    : i < ftl_profile_count () ? &profiles[i] : NULL;
  if (!p)
    return -ENOENT;
  memset (out, 0, sizeof *out);
  out->name = p->name;
  out->description = p->what;
  out->paced = p->paced;
  out->channels = p->time_channels ? p->time_channels : 8;
  out->ways = p->time_ways ? p->time_ways : 4;
  out->read_ns = p->read_ns;
  out->program_ns = p->program_ns;
  out->erase_ns = p->erase_ns;
  out->channel_mbps = p->channel_mbps;
  out->link_mbps = p->link_mbps;
  profile_model (p, 16384, 8, 4, &out->scan_mbps, &out->read_mbps);
  return 0;
}

int
ftl_profile_runtime (const char *name, uint32_t page_size,
                     uint32_t channels, uint32_t ways,
                     struct ftl_pace_params *pp, ftl_error *err)
{
  const struct profile *p = profile_find (name);
  if (!p)
    {
      char names[160];
      profile_names (names, sizeof names);
      return ftl_fail (err, -EINVAL, "unknown drive profile '%s' (%s)", name,
                       names);
    }
  memset (pp, 0, sizeof *pp);
  snprintf (pp->name, sizeof pp->name, "%s", p->name);
  pp->paced = p->paced;
  pp->tm.read_ns = p->read_ns;
  pp->tm.program_ns = p->program_ns;
  pp->tm.erase_ns = p->erase_ns;
  pp->tm.xfer_ns = (uint64_t) page_size * 1000ull / p->channel_mbps;
  pp->tm.xfer_sector_ns = (uint64_t) FTL_SECTOR * 1000ull / p->channel_mbps;
  pp->channel_mbps = p->channel_mbps;
  pp->time_channels = p->time_channels && p->time_channels < channels
    ? p->time_channels : channels;
  uint32_t w = p->time_ways ? p->time_ways : ways;
  if (pp->time_channels * w > channels * ways)
    w = channels * ways / pp->time_channels;
  pp->time_dies = pp->time_channels * w;
  pp->link_mbps = p->link_mbps;
  profile_model (p, page_size, channels, ways, &pp->scan_mbps,
                 &pp->read_mbps);
  return 0;
}

int
ftl_config_defaults (struct ftl_config *cfg, const char *profile,
                     ftl_error *err)
{
  const struct profile *p = profile_find (profile);
  if (!p)
    {
      char names[160];
      profile_names (names, sizeof names);
      return ftl_fail (err, -EINVAL, "unknown drive profile '%s' (%s)",
                       profile, names);
    }
  memset (cfg, 0, sizeof *cfg);
  cfg->profile = p->name;
  cfg->channels = 8;
  cfg->ways = 4;
  cfg->planes = 1;
  cfg->pages_per_block = p->pages_per_block;
  cfg->page_size = 16384;
  cfg->blocks_per_plane = 64;   /* 8 GiB raw with 16 KiB x 256 pages */
  cfg->oob_size = 0;            /* = what the sectors per page need */
  cfg->over_provisioning = 0.07;
  cfg->mapping_mode = FTL_MAP_RAM;
  cfg->mapping_cache_fraction = 0.25;
  cfg->alloc_policy = FTL_ALLOC_UNIFIED;
  cfg->gc_policy = FTL_GC_GREEDY;
  cfg->max_open_blocks = 8;
  cfg->pace_real_time = p->paced;
  cfg->read_ns = p->read_ns;
  cfg->program_ns = p->program_ns;
  cfg->erase_ns = p->erase_ns;
  cfg->channel_mbps = p->channel_mbps;
  cfg->wl_threshold = 64;
  return 0;
}

int
ftl_timing_for_profile (const char *profile, struct nand_timing *tm,
                    const struct ftl_config *cfg)
{
  const struct profile *p = profile_find (profile);
  if (!p)
    return -EINVAL;
  tm->read_ns = cfg->read_ns ? cfg->read_ns : p->read_ns;
  tm->program_ns = cfg->program_ns ? cfg->program_ns : p->program_ns;
  tm->erase_ns = cfg->erase_ns ? cfg->erase_ns : p->erase_ns;
  uint32_t mbps = cfg->channel_mbps ? cfg->channel_mbps : p->channel_mbps;
  tm->xfer_ns = (uint64_t) cfg->page_size * 1000ull / mbps;
  tm->xfer_sector_ns = (uint64_t) FTL_SECTOR * 1000ull / mbps;
  return 0;
}

/* Fill zero fields of cfg from the profile defaults. */
int
ftl_config_complete (struct ftl_config *cfg, ftl_error *err)
{
  struct ftl_config d;
  int r = ftl_config_defaults (&d, cfg->profile, err);
  if (r < 0)
    return r;
  cfg->profile = d.profile;
#define DEF(x) if (!cfg->x) cfg->x = d.x
  DEF (channels);
  DEF (ways);
  DEF (planes);
  DEF (blocks_per_plane);
  DEF (pages_per_block);
  DEF (page_size);
  DEF (mapping_cache_fraction);
  DEF (over_provisioning);
  DEF (max_open_blocks);
  DEF (read_ns);
  DEF (program_ns);
  DEF (erase_ns);
  DEF (channel_mbps);
  DEF (wl_threshold);
#undef DEF
  if (cfg->over_provisioning < 0 || cfg->over_provisioning >= 0.9)
    return ftl_fail (err, -EINVAL, "over_provisioning %.3f out of [0, 0.9)",
                     cfg->over_provisioning);
  if ((unsigned) cfg->mapping_mode > FTL_MAP_DFTL_SPLIT
      || (unsigned) cfg->alloc_policy > FTL_ALLOC_PER_OBJECT
      || (unsigned) cfg->gc_policy > FTL_GC_COST_BENEFIT)
    return ftl_fail (err, -EINVAL, "unknown mapping mode, allocation or GC "
                     "policy");
  if (cfg->mapping_cache_fraction <= 0 || cfg->mapping_cache_fraction > 1)
    cfg->mapping_cache_fraction = d.mapping_cache_fraction;
  return 0;
}

/* Blocks that must stay outside user capacity: open blocks of every
 * stream, the GC reserve and a small slack for meta pages and padding. */
static void
capacity_compute (const struct ftl_config *cfg, const struct nand_geometry *g,
                  uint32_t bad, uint64_t *user_sectors, uint32_t *gc_low)
{
  uint32_t dies = g->dies;
  uint32_t small = dies < 4 ? dies : 4;
  uint32_t host = cfg->stripe_width && cfg->stripe_width < dies
    ? cfg->stripe_width : dies;
  /* host, meta, GC, cold, GC's whole-page lanes (one per die), objects */
  uint32_t open_max = host + 1 + small + small + dies
    + (cfg->alloc_policy == FTL_ALLOC_PER_OBJECT ? cfg->max_open_blocks : 0);
  /* GC reserve: a new block for each GC stream lane + one for the erase
   * barrier's meta log + one */
  uint32_t low = small + 2;
  uint32_t good = g->total_blocks - bad;
  uint32_t slack = good / 50 > 2 ? good / 50 : 2;
  uint32_t spare_min = open_max + low + 1 + slack;
  int64_t user = (int64_t) floor (good * (1.0 - cfg->over_provisioning));
  if ((int64_t) good - user < spare_min)
    user = (int64_t) good - spare_min;
  *user_sectors = user > 0 ? (uint64_t) user * g->sectors_per_block : 0;
  *gc_low = low;
}

int
ftl_config_set_capacity (struct ftl_config *cfg, uint64_t capacity_bytes,
                         ftl_error *err)
{
  struct ftl_config c = *cfg;
  int r = ftl_config_complete (&c, err);
  if (r < 0)
    return r;
  uint32_t lo = 1, hi = 1;
  for (;;)
    {
      struct nand_geometry g;
      c.blocks_per_plane = hi;
      r = nand_geometry_fill (&g, &c, err);
      if (r < 0)
        return ftl_fail (err, -EINVAL, "capacity %llu bytes is too large "
                         "for this geometry",
                         (unsigned long long) capacity_bytes);
      uint64_t us;
      uint32_t low;
      capacity_compute (&c, &g, 0, &us, &low);
      if (us * FTL_SECTOR >= capacity_bytes)
        break;
      lo = hi + 1;
      hi *= 2;
    }
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      struct nand_geometry g;
      c.blocks_per_plane = mid;
      nand_geometry_fill (&g, &c, NULL);
      uint64_t us;
      uint32_t low;
      capacity_compute (&c, &g, 0, &us, &low);
      if (us * FTL_SECTOR >= capacity_bytes)
        hi = mid;
      else
        lo = mid + 1;
    }
  /* leave room for factory bad blocks */
  if (c.factory_bad_permille)
    hi += hi * c.factory_bad_permille / 1000 + 1;
  cfg->blocks_per_plane = hi;
  return 0;
}

int
ftl_derive (struct ftl *f, ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  f->epc = g->page_size / sizeof (ppa_t);
  uint32_t low;
  capacity_compute (&f->cfg, g, f->bad_blocks, &f->capacity_sectors, &low);
  if (f->capacity_sectors == 0)
    return ftl_fail (err, -EINVAL, "geometry too small: %u blocks leave no "
                     "user capacity after over-provisioning and reserves",
                     g->total_blocks);
  f->gc_reserve = low;
  f->gc_low = low + 1;
  uint32_t extra = g->total_blocks / 32 > 2 ? g->total_blocks / 32 : 2;
  f->gc_high = low + extra;
  /* bounds the crash-recovery replay window (<= 32 Ki pages = 512 MiB at
   * 16 KiB pages) against checkpoint cost (a few MiB per GiB mapped) */
  f->ckpt_interval_pages = g->total_pages / 8;
  if (f->ckpt_interval_pages < 4096)
    f->ckpt_interval_pages = 4096;
  if (f->ckpt_interval_pages > 32768)
    f->ckpt_interval_pages = 32768;
  f->live_meta_limit = g->total_pages / 256 > 16
    ? (uint32_t) (g->total_pages / 256) : 16;
  f->wl_threshold = f->cfg.wl_threshold;
  return 0;
}

const char *
ftl_mapping_mode_name (enum ftl_mapping_mode m)
{
  switch (m)
    {
    case FTL_MAP_RAM: return "ram";
    case FTL_MAP_DFTL: return "dftl";
    case FTL_MAP_DFTL_SPLIT: return "dftl-split";
    }
  return "?";
}

const char *
ftl_alloc_policy_name (enum ftl_alloc_policy p)
{
  switch (p)
    {
    case FTL_ALLOC_UNIFIED: return "unified";
    case FTL_ALLOC_INDEX_DATA: return "index-data";
    case FTL_ALLOC_PER_OBJECT: return "per-object";
    }
  return "?";
}

const char *
ftl_gc_policy_name (enum ftl_gc_policy p)
{
  switch (p)
    {
    case FTL_GC_GREEDY: return "greedy";
    case FTL_GC_COST_BENEFIT: return "cost-benefit";
    }
  return "?";
}
