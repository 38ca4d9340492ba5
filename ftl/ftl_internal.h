/* ftl_internal.h - data structures shared by the ftl/ *.c files.
 *
 * Vocabulary
 *   sector   the 4 KiB mapping unit (FTL_SECTOR); several per flash page
 *   lpn      logical sector number inside one object (byte offset / 4096)
 *   ppa      physical sector address:
 *              (block * pages_per_block + page) * sectors_per_page + slot
 *   page     flash page number: block * pages_per_block + page
 *   seq      device-wide sequence number; page programs, meta records and
 *            object versions all draw from it, so it totally orders changes
 *
 * Persistence model (see ftl_recovery.c for the full argument)
 *   - every programmed page carries an OOB header + one entry per sector
 *     naming its owner {pid, oid, lpn}, the object size after the write
 *     and the batch it belongs to;
 *   - namespace/attribute/length changes are meta records (ftl_log.c)
 *     written as whole META pages; a record stays live until the next
 *     checkpoint and GC relocates it (it keeps its own seq);
 *   - a checkpoint (ftl_checkpoint.c) stores the whole state in a system
 *     area of the image outside the modelled NAND array; recovery loads the
 *     newest checkpoint and replays every page / record with a later seq.
 */
#ifndef FTL_INTERNAL_H
#define FTL_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_ftl.h"
#include "nand_queue.h"

#define FTL_SECTOR 4096u
#define FTL_SECTOR_SHIFT 12
#define PPA_NONE 0xffffffffu
#define BLOCK_NONE 0xffffffffu
#define SLOT_NONE 0xffffffffu
#define FTL_MAX_SPP 16u
typedef uint32_t ppa_t;

/* ---- small helpers ------------------------------------------------ */
int ftl_fail (ftl_error *err, int rc, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));
uint32_t ftl_crc32c (uint32_t crc, const void *buf, size_t len);
uint64_t ftl_wall_ns (void);
uint64_t ftl_mono_ns (void);      /* CLOCK_MONOTONIC, for pacing */

/* ---- NAND model (nand.c) ------------------------------------------ */
struct nand_geometry
{
  uint32_t channels, ways, planes, blocks_per_plane, pages_per_block;
  uint32_t page_size, oob_size;
  uint32_t dies;              /* channels * ways */
  uint32_t blocks_per_die;    /* planes * blocks_per_plane */
  uint32_t total_blocks;
  uint64_t total_pages;
  uint32_t spp;               /* sectors per page */
  uint32_t sectors_per_block;
  uint64_t total_sectors;
};

struct nand_timing
{
  uint64_t read_ns, program_ns, erase_ns;
  uint64_t xfer_ns;           /* one page over the channel */
  uint64_t xfer_sector_ns;    /* one sector over the channel */
};

/* the runtime part of a drive profile (ftl_config.c, ftl_pace.c) */
struct ftl_pace_params
{
  char name[32];
  bool paced;
  struct nand_timing tm;
  uint32_t channel_mbps, link_mbps;
  uint32_t time_channels, time_dies;
  double scan_mbps, read_mbps;
};

struct nand_backend;
struct nand_backend_ops
{
  const char *name;
  bool stores_data;           /* false for "none" */
  bool persistent;            /* true for "file" */
  int (*ftl_read_sector) (struct nand_backend *be, uint64_t page, uint32_t slot,
                      uint32_t nslots, void *buf);
  int (*read_oob) (struct nand_backend *be, uint64_t first_page,
                   uint64_t npages, void *oob);
  /* the page's data in place (a mapping), or NULL: read it with
   * ftl_read_sector; optional */
  const uint8_t *(*page_data) (struct nand_backend *be, uint64_t page);
  int (*program) (struct nand_backend *be, uint64_t page, const void *data,
                  const void *oob);
  int (*erase) (struct nand_backend *be, uint64_t first_page, uint32_t npages);
  int (*sync) (struct nand_backend *be);
  /* evict the medium's pages from every cache in front of it (the OS
   * page cache of an image, the process's mapping); optional */
  int (*drop_cache) (struct nand_backend *be);
  /* start reading pages [first, first + n) of the medium in the
   * background (a paced read overlaps its medium's own latency with the
   * modelled time); optional */
  void (*prefetch) (struct nand_backend *be, uint64_t first, uint64_t n);
  /* system area (superblock, checkpoints); file backend only */
  int (*sys_read) (struct nand_backend *be, uint64_t off, void *buf,
                   size_t len);
  int (*sys_write) (struct nand_backend *be, uint64_t off, const void *buf,
                    size_t len);
  void (*close) (struct nand_backend *be);
};

struct nand_backend
{
  const struct nand_backend_ops *ops;
  const struct nand_geometry *geo;
  char errmsg[160];
};

/* image layout of the file backend (all offsets in bytes) */
struct nand_file_layout
{
  uint64_t sb_off;            /* superblock, 4 KiB */
  uint64_t state_off;         /* mounted flag, 4 KiB */
  uint64_t owner_off[2];      /* the owner's record, two alternating slots
                                 (ftl_owner_record.c) between the mounted
                                 flag and the OOB area */
  uint64_t owner_slot_size;
  uint64_t oob_off;           /* total_pages * oob_size */
  uint64_t data_off;          /* total_pages * page_size */
  uint64_t ckpt_off[2];
  uint64_t ckpt_slot_size;
  uint64_t file_size;
};

void nand_file_layout_compute (const struct nand_geometry *g,
                               struct nand_file_layout *lay);
int nand_backend_file_create (const char *path, const struct nand_geometry *g,
                              const struct nand_file_layout *lay, bool create,
                              struct nand_backend **out, ftl_error *err);
int nand_backend_ram_create (const struct nand_geometry *g,
                             struct nand_backend **out, ftl_error *err);
int nand_backend_none_create (const struct nand_geometry *g,
                              struct nand_backend **out, ftl_error *err);

struct nand
{
  struct nand_geometry geo;
  struct nand_timing tm;
  /* parallelism the clocks model (drive profile): physical die d is timed
   * as die d % time_dies on channel (d % time_dies) % time_channels */
  uint32_t time_dies, time_channels;
  struct nand_backend *be;
  /* per die / channel: its reservations in service order, and its tail
   * (virtual ns it is free: the FCFS clock) (nand_queue.c) */
  struct nand_queue *dieq, *chanq;
  /* the class and ticket of the operations being timed now: the FTL call's
   * (set by op_begin under the FTL lock), else FTL_PRIORITY_DEFAULT */
  struct nand_op_class op;
  struct nand_tickets tickets;
  struct nand_queue_counters qc;
  uint64_t ops_by_prio[FTL_PRIORITY_MAX + 1];   /* operations timed per class */
  uint64_t next_resv_id;
  /* the reservations of the page read last (nand_time_read_more) */
  uint64_t last_read_die_id, last_read_chan_id;
  /* work each die / channel was given (ns, since ftl_reset_stats): the
   * busiest one bounds a saturated drive's throughput */
  uint64_t *die_busy, *chan_busy;
  /* counters */
  uint64_t reads, programs, erases;
  bool unsynced;              /* programs/erases since the last sync */
};

int nand_init (struct nand *n, const struct nand_geometry *g,
               const struct nand_timing *tm, struct nand_backend *be,
               ftl_error *err);
void nand_fini (struct nand *n);
int nand_geometry_fill (struct nand_geometry *g, const struct ftl_config *cfg,
                        ftl_error *err);
static inline uint32_t nand_die_of_block (const struct nand_geometry *g,
                                          uint32_t block)
{
  return block / g->blocks_per_die;
}
static inline uint32_t nand_channel_of_die (const struct nand_geometry *g,
                                            uint32_t die)
{
  return die % g->channels;
}
/* The clocks (die, channel) that time a block under the profile. */
static inline void nand_clocks_of_block (const struct nand *n, uint32_t block,
                                         uint32_t *die, uint32_t *ch)
{
  uint32_t d = nand_die_of_block (&n->geo, block);
  if (n->time_dies && n->time_dies < n->geo.dies)
    d %= n->time_dies;
  *die = d;
  *ch = n->time_channels ? d % n->time_channels : nand_channel_of_die (&n->geo, d);
}
/* Timing: each returns the virtual time the data is available / accepted. */
uint64_t nand_time_read (struct nand *n, uint64_t page, uint32_t nsect,
                         uint64_t t);
/* more sectors of the page just read cross the channel after it */
uint64_t nand_time_read_more (struct nand *n, uint64_t page, uint32_t nsect,
                              uint64_t done);
uint64_t nand_time_program (struct nand *n, uint64_t page, uint64_t t,
                            uint64_t *done);
uint64_t nand_time_erase (struct nand *n, uint32_t block, uint64_t t);
uint64_t nand_max_clock (const struct nand *n);

/* ---- OOB ----------------------------------------------------------- */
#define OOB_MAGIC 0x4f4f4231u     /* "OOB1" */
enum page_kind { PAGE_DATA = 1, PAGE_META = 2, PAGE_MAP = 3 };
/* SECT_CORRUPT: a GC copy of a sector whose page failed its data CRC; it
 * maps like a copy and every read of it fails */
enum sector_kind { SECT_DEAD = 0, SECT_DATA = 1, SECT_COPY = 2,
                   SECT_CORRUPT = 3 };

struct oob_header
{
  uint32_t magic;
  uint16_t kind;
  uint16_t spp;
  uint64_t seq;
  uint32_t erase_count;
  uint32_t data_crc;          /* CRC32C of the page data (0 if not kept) */
  uint32_t used;              /* META: bytes of records */
  uint32_t crc;               /* CRC32C of header (crc=0) + entries */
};

struct oob_entry
{
  uint64_t pid, oid;
  uint64_t size;              /* object size after this write / at the copy */
  uint64_t batch;             /* 0 or the batch id it belongs to */
  uint32_t lpn;
  uint32_t kind;              /* enum sector_kind */
};

static inline uint32_t oob_bytes_needed (uint32_t spp)
{
  return (uint32_t) (sizeof (struct oob_header)
                     + spp * sizeof (struct oob_entry));
}

/* ---- page data checks (ftl_integrity.c) ----------------------------- */
struct ftl_page_view
{
  uint64_t page;              /* cached page, UINT64_MAX if none */
  const uint8_t *data;        /* page_size bytes: the mapping or buf */
  uint8_t *buf;               /* page_size, owned */
  struct oob_header h;
  struct oob_entry ent[FTL_MAX_SPP];
  bool oob_ok;                /* magic, sectors per page and header CRC */
  bool crc_ok;                /* oob_ok and the data CRC matches */
};
#define FTL_PV_CACHE 4        /* pages remembered as good; +1 spare slot */

/* forward: struct ftl below */
struct ftl;
int ftl_integrity_init (struct ftl *f);
void ftl_integrity_fini (struct ftl *f);
/* Read page's OOB and data and check them; *out stays valid until the next
 * call.  Returns only backend errors: the verdict is in the view. */
int ftl_page_view (struct ftl *f, uint64_t page,
                   const struct ftl_page_view **out);
/* A page of the mapped image whose data CRC an in-place read checks after
 * it dropped the lock, its block pinned (ftl_read_pinned): the CRC of 16 KiB
 * is most of a scan's time under the lock, and the pin keeps the page from
 * being erased and reprogrammed meanwhile. */
struct ftl_page_check
{
  uint64_t page;
  const uint8_t *data;        /* page_size bytes in the mapped image */
  uint32_t data_crc;          /* what the OOB says */
  uint32_t slot;              /* the first sector read from it, for the error */
  uint64_t lpn;
};
/* ftl_page_view, except that a page the cache does not hold and whose data
 * is in the mapped image has only its OOB checked: *check is filled and
 * *deferred set, and the view's crc_ok stands for the OOB alone until
 * ftl_page_check_data confirms it.  The view is not cached. */
int ftl_page_view_deferred (struct ftl *f, uint64_t page,
                            const struct ftl_page_view **out,
                            struct ftl_page_check *check, bool *deferred);
/* Whether a deferred page's data matches its CRC; no lock needed. */
bool ftl_page_check_data (const struct ftl *f, const struct ftl_page_check *c);
void ftl_page_forget_block (struct ftl *f, uint32_t block);
bool ftl_page_sector_good (const struct ftl_page_view *v, uint32_t slot);
/* -EIO with "data CRC mismatch in object P:O at offset X (NAND page N ...)";
 * v NULL: a SECT_CORRUPT sector still in a write buffer */
int ftl_sector_fail (struct ftl *f, const struct ftl_page_view *v,
                     uint64_t page, uint32_t slot, uint64_t pid, uint64_t oid,
                     uint64_t lpn, ftl_error *err);

/* ---- objects (ftl_index.c) ----------------------------------------- */
struct ftl_attr
{
  uint32_t page, number, len;
  uint8_t *val;
};

struct map_chunk
{
  uint32_t nmapped;
  uint32_t map_ppa;           /* DFTL: flash page of this translation page */
  uint32_t dirty_head;        /* DFTL: cached dirty entries of this page */
  uint32_t ndirty;
  uint32_t gc_pending;        /* DFTL: GC moved entries not in the cache */
  /* DFTL split mode: chunks with dirty cached entries in lists by ndirty
   * (the batch update takes the dirtiest translation page), and the clean
   * area, an LRU of whole translation pages */
  struct map_chunk *bprev, *bnext;
  struct map_chunk *lprev, *lnext;
  uint32_t in_clean;
  ppa_t ppa[];                /* entries_per_chunk */
};

struct ftl_object
{
  uint64_t pid, oid;
  uint64_t size, version, ctime_ns, mtime_ns;
  uint32_t slot;
  uint32_t hnext;             /* hash chain (slot) */
  uint8_t temperature;        /* 0 cold 1 warm 2 hot */
  uint8_t priority;           /* FTL_ATTR_HINT_PRIORITY (QoS) */
  int32_t stream;             /* per-object policy: bound stream or -1 */
  struct ftl_attr *attrs;
  uint32_t nattrs, attrs_cap;
  struct map_chunk **chunks;
  uint32_t nchunks;
  uint64_t mapped;            /* sectors mapped */
};

/* ---- write streams (ftl_alloc.c) ------------------------------------ */
enum stream_role { ROLE_HOST = 0, ROLE_META = 1, ROLE_GC = 2, ROLE_COLD = 3,
                   ROLE_OBJECT = 4 };

struct ftl_stream
{
  int role;
  bool in_use;
  uint32_t owner;             /* object slot for ROLE_OBJECT */
  uint64_t last_use;
  uint32_t width;             /* open blocks striped over dies */
  uint32_t cursor;            /* which of blocks[] the next page uses */
  uint32_t die_base;          /* first die for this stream's stripe */
  bool keeps_die;             /* lane d holds only blocks of die d, opened
                                 by ftl_gc_layout_lane_ready (ftl_gc_layout.c);
                                 the caller sets cursor to the die */
  uint32_t *blocks;           /* open block per stripe lane, BLOCK_NONE */
  /* the page being filled */
  bool active;
  uint64_t page_seq;          /* f->seq when the buffered page was started */
  uint32_t buf_block, buf_page;    /* page index within block */
  uint32_t fill;              /* sectors appended */
  uint8_t *data;              /* page_size (NULL if backend keeps no data) */
  struct oob_entry ent[FTL_MAX_SPP];
};

/* ---- blocks -------------------------------------------------------- */
enum block_state { BLK_FREE = 0, BLK_OPEN = 1, BLK_CLOSED = 2, BLK_BAD = 3,
                   BLK_VICTIM = 4 };

struct block_info
{
  uint32_t valid;             /* valid sectors */
  uint32_t erase_count;
  uint32_t write_ptr;         /* pages programmed */
  uint8_t state;
  uint8_t has_meta;
  int16_t stream;             /* OPEN: owning stream */
  uint32_t lprev, lnext;      /* CLOSED: bucket list by valid count */
  uint64_t mtime;             /* seq of last program (age for cost-benefit) */
};

/* per-die free list: min-heap by erase count (dynamic wear levelling) */
struct free_heap
{
  uint32_t *b;
  uint32_t n, cap;
};

/* ---- reverse map ---------------------------------------------------- */
#define OWNER_META 0xfffffffeu
#define OWNER_MAPFLAG 0x80000000u
struct rmap_entry
{
  uint32_t owner;             /* object slot | OWNER_MAPFLAG | OWNER_META */
  uint32_t lpn;               /* lpn, chunk index, or live-meta index */
};

struct live_meta
{
  uint64_t page;
  uint32_t used;
};

/* ---- DFTL cache simulation (ftl_map.c) ------------------------------ */
struct dftl_entry
{
  uint64_t key;               /* (slot << 32) | lpn */
  uint32_t hnext;
  uint32_t prev, next;        /* LRU list (clean or dirty area) */
  uint32_t cprev, cnext;      /* dirty entries of the same translation page */
  uint8_t dirty;
  uint8_t used;
};

struct dftl_list
{
  uint32_t head, tail, n;     /* MRU at head */
};

struct dftl_cache
{
  uint32_t cap;               /* entries */
  uint32_t dirty_cap;         /* split mode: entries in the dirty area */
  uint32_t clean_pages_cap;   /* split mode: translation pages in the
                                 clean area (half the cache's entries) */
  struct map_chunk **bkt;     /* split mode: chunks by ndirty, [0, epc] */
  uint32_t bkt_max;           /* no chunk has more dirty entries */
  struct map_chunk *clean_head, *clean_tail;   /* split: MRU at head */
  uint32_t clean_pages;
  struct dftl_entry *e;
  uint32_t *hash;
  uint32_t hmask;
  uint32_t free_head;
  struct dftl_list clean, dirty;
  uint64_t *pending;          /* (slot << 32 | chunk) with GC updates */
  uint32_t npending, pending_cap;
};

/* ---- latency histogram ---------------------------------------------- */
#define LAT_BUCKETS (64 * 8)
struct lat_hist
{
  uint64_t n;
  uint64_t b[LAT_BUCKETS];
};

/* ---- the FTL -------------------------------------------------------- */
struct ftl
{
  pthread_mutex_t lock;
  struct ftl_config cfg;
  char profile[32];
  char *image_path;
  struct nand nand;
  struct nand_file_layout lay;
  uint32_t epc;               /* mapping entries per chunk / translation page */

  /* capacity */
  uint64_t capacity_sectors;  /* user-visible */
  uint64_t used_sectors;      /* mapped host sectors */
  uint32_t gc_reserve;        /* free blocks only GC may take */
  uint32_t gc_low, gc_high;   /* foreground / background GC targets */

  /* sequence / versions */
  uint64_t seq;               /* last assigned */
  uint64_t ckpt_seq;          /* seq of the newest checkpoint */
  uint64_t ckpt_gen;
  uint64_t pages_since_ckpt;
  uint64_t ckpt_interval_pages;

  /* objects and partitions */
  struct ftl_object **objs;
  uint32_t objs_cap, nobjs;
  uint32_t *free_slots;
  uint32_t nfree_slots;
  uint32_t *hash;
  uint32_t hmask;
  uint64_t *parts;
  uint32_t nparts, parts_cap;

  /* blocks */
  struct block_info *blk;
  uint64_t pinned_units, copied_units;   /* ftl_read_pinned */
  uint32_t *pins;                  /* per block: in-place reads holding its
                                    * pages (ftl_read_pinned); a pinned
                                    * block is not erased */
  struct free_heap *free_heap;     /* per die */
  uint32_t free_blocks;
  uint32_t bad_blocks;
  uint32_t *bucket_head;           /* CLOSED blocks by valid count */
  uint32_t die_rr;                 /* next die for width-1 streams */
  uint64_t *valid_bits;            /* per sector */
  struct rmap_entry *rmap;

  /* streams */
  struct ftl_stream *streams;
  uint32_t nstreams;
  int role_stream[4];              /* stream index per fixed role */
  int layout_stream;               /* GC's copies of whole pages, one
                                      lane per die (ftl_gc_layout.c) */
  int cold_layout_stream;          /* the same for static wear levelling */
  uint32_t obj_stream_first, obj_stream_count;

  /* meta log */
  uint8_t *meta_buf;
  uint32_t meta_used;
  uint64_t meta_max_seq;
  uint64_t meta_first_seq;         /* f->seq when the buffer got its first
                                      record */
  struct live_meta *live_meta;
  uint32_t nlive_meta, live_meta_cap;
  uint32_t live_meta_limit;

  /* batches */
  bool in_batch;
  uint64_t cur_batch;
  bool gc_running;
  bool in_barrier;            /* may take the very last free block */
  /* relocated GC victims waiting for the buffers that held their
   * superseding data to be programmed (erase without padding) */
#define GC_PENDING_MAX 8
  struct { uint32_t block; uint64_t done_seq; } pending[GC_PENDING_MAX];
  uint32_t npending;
  uint32_t gc_victims_unmapped;  /* DFTL: victims since pending flush */

  /* mapping cache (DFTL modes) */
  struct dftl_cache dc;
  uint8_t *scratch;                /* page_size scratch */
  uint8_t *scratch2;
  struct ftl_page_view pv[FTL_PV_CACHE + 1];   /* ftl_integrity.c */
  uint32_t pv_next;

  /* virtual time */
  uint64_t now;
  /* pacing (ftl_pace.c): virtual time v tracks CLOCK_MONOTONIC m as
   * v = m - pace_wall0 + pace_virt0 */
  uint64_t pace_wall0, pace_virt0;
  struct ftl_pace_params pace;     /* the profile in force */
  pthread_mutex_t link_lock;
  uint64_t link_free;              /* virtual ns the host link is free */
  struct
  {
    uint64_t sleeps, sleep_ns, link_bytes, cache_drops;
  } pst;

  /* stats */
  struct
  {
    uint64_t host_reads, host_writes, host_read_bytes, host_write_bytes;
    uint64_t gc_valid_copies, gc_runs;
    uint64_t gc_corrupt_copies;   /* sectors GC moved marked SECT_CORRUPT */
    uint64_t gc_layout_kept_pages;   /* whole valid pages GC / WL copied to
                                        a page of their own die */
    uint64_t gc_layout_moved_pages;  /* whole valid pages that went to the
                                        dense stream: no room on their die */
    uint64_t map_hits, map_misses, map_evictions, map_reads, map_writes;
    uint64_t host_read_ops, nand_reads_for_host;
    uint64_t max_nand_reads_per_host_read;
    uint64_t wl_migrations;
    uint64_t nand_reads0, nand_programs0, nand_erases0;
    uint64_t padded_sectors;
    uint64_t relocated_sectors;   /* ftl_relocate */
  } st;
  struct lat_hist read_lat, write_lat;
  uint64_t op_nand_reads;          /* NAND reads of the current host read */
  uint64_t op_done;                /* completion time of the current op */
  uint32_t wl_threshold;
  uint64_t erases_since_wl_check;
};

/* ftl_index.c */
int ftl_index_init (struct ftl *f);
void ftl_index_fini (struct ftl *f);
struct ftl_object *ftl_index_lookup (struct ftl *f, uint64_t pid, uint64_t oid);
struct ftl_object *ftl_index_insert (struct ftl *f, uint64_t pid, uint64_t oid);
void ftl_index_delete (struct ftl *f, struct ftl_object *o);
bool ftl_part_exists (struct ftl *f, uint64_t pid);
int ftl_part_add (struct ftl *f, uint64_t pid);
void ftl_part_del (struct ftl *f, uint64_t pid);
uint64_t ftl_part_count_objects (struct ftl *f, uint64_t pid);
struct ftl_attr *ftl_attr_find (struct ftl_object *o, uint32_t page,
                            uint32_t number);
int ftl_attr_set (struct ftl_object *o, uint32_t page, uint32_t number,
              const void *val, uint32_t len);

/* ftl_map.c */
static inline ppa_t map_get (struct ftl *f, struct ftl_object *o, uint32_t lpn)
{
  uint32_t c = lpn / f->epc;
  if (c >= o->nchunks || !o->chunks[c])
    return PPA_NONE;
  return o->chunks[c]->ppa[lpn % f->epc];
}
int ftl_map_set (struct ftl *f, struct ftl_object *o, uint32_t lpn, ppa_t ppa);
int ftl_map_chunk_ensure (struct ftl *f, struct ftl_object *o, uint32_t lpn);
int ftl_dftl_init (struct ftl *f);
void ftl_dftl_fini (struct ftl *f);
/* Look lpn up in the mapping cache at f->now, paying the NAND traffic of a
 * miss; returns the virtual time the entry is known (f->now on a hit), when
 * a read of the data may start. */
uint64_t ftl_dftl_lookup (struct ftl *f, struct ftl_object *o, uint32_t lpn,
                          bool for_write);
void ftl_dftl_forget_object (struct ftl *f, struct ftl_object *o);
void ftl_dftl_flush_dirty (struct ftl *f);
void ftl_dftl_drop_clean (struct ftl *f);
void ftl_dftl_gc_moved (struct ftl *f, struct ftl_object *o, uint32_t lpn);
int ftl_dftl_gc_flush_pending (struct ftl *f);
int ftl_dftl_relocate_map_page (struct ftl *f, uint32_t slot, uint32_t chunk,
                            uint64_t old_page);

/* ftl_alloc.c: streams, blocks, valid accounting */
int ftl_alloc_init (struct ftl *f);
void ftl_alloc_fini (struct ftl *f);
int ftl_stream_for_write (struct ftl *f, struct ftl_object *o);
int ftl_stream_reserve (struct ftl *f, int s);
int ftl_stream_append_owned (struct ftl *f, int s, const struct oob_entry *ent,
                         const void *data, uint32_t owner, ppa_t *out);
uint32_t ftl_alloc_stream_width (struct ftl *f, int role);
int ftl_stream_program_page (struct ftl *f, int s, uint16_t kind,
                         const void *data, uint32_t used,
                         uint64_t *page_out);
int ftl_stream_flush (struct ftl *f, int s);
int ftl_streams_flush_all (struct ftl *f);
void ftl_sector_invalidate (struct ftl *f, ppa_t ppa);
void ftl_sector_validate (struct ftl *f, ppa_t ppa, uint32_t owner, uint32_t lpn);
static inline bool sector_is_valid (const struct ftl *f, ppa_t p)
{
  return (f->valid_bits[p >> 6] >> (p & 63)) & 1;
}
bool ftl_sector_in_buffer (struct ftl *f, ppa_t ppa, const uint8_t **data,
                       struct oob_entry **ent);
void ftl_block_bucket_remove (struct ftl *f, uint32_t b);
void ftl_block_bucket_insert (struct ftl *f, uint32_t b);
int ftl_block_alloc (struct ftl *f, uint32_t die, bool for_gc, uint32_t *out);
/* A free block of `die` only (its most worn one if most_worn, else its
 * least worn), opened; -ENOSPC if the die has none.  No reserve check:
 * the caller keeps one. */
#define FTL_ANY_DIE UINT32_MAX
int ftl_block_alloc_on_die (struct ftl *f, uint32_t die, bool most_worn,
                            uint32_t *out);
void ftl_stream_close_lane (struct ftl *f, int s, uint32_t lane);
void ftl_block_make_free (struct ftl *f, uint32_t b);
void ftl_free_heap_push (struct ftl *f, uint32_t die, uint32_t b);
void ftl_streams_patch_object (struct ftl *f, struct ftl_object *o,
                           uint64_t new_size);
void ftl_streams_release_object (struct ftl *f, struct ftl_object *o);

/* ftl_log.c: meta records */
enum meta_type
{
  META_PART_CREATE = 1, META_PART_REMOVE, META_OBJ_CREATE, META_OBJ_REMOVE,
  META_PUNCH, META_SETLEN, META_SETATTR, META_COMMIT,
};
struct meta_rec
{
  uint32_t len;               /* whole record incl. header, 8-aligned */
  uint16_t type;
  uint16_t flags;
  uint64_t seq;
  uint64_t batch;
  uint64_t pid, oid;
  uint64_t a, b;
  uint64_t time_ns;
  /* payload follows */
};
int ftl_log_append (struct ftl *f, uint16_t type, uint64_t pid, uint64_t oid,
                uint64_t a, uint64_t b, const void *payload, uint32_t plen,
                uint64_t *seq_out);
int ftl_log_append_raw (struct ftl *f, const struct meta_rec *r);
int ftl_log_flush (struct ftl *f);
void ftl_live_meta_add (struct ftl *f, uint64_t page, uint32_t used);
void ftl_live_meta_remove (struct ftl *f, uint32_t idx);
void ftl_live_meta_kill_all (struct ftl *f);

/* ftl_ops.c: state changes shared by the API, batches and replay */
int ftl_op_write (struct ftl *f, struct ftl_object *o, uint64_t off,
              const void *buf, size_t len, ftl_error *err);
int ftl_op_punch (struct ftl *f, struct ftl_object *o, uint64_t off, uint64_t len,
              bool log, ftl_error *err);
int ftl_op_set_length (struct ftl *f, struct ftl_object *o, uint64_t len,
                   bool log, ftl_error *err);
int ftl_op_remove (struct ftl *f, struct ftl_object *o, bool log, ftl_error *err);
int ftl_op_create (struct ftl *f, uint64_t pid, uint64_t oid, bool log,
               struct ftl_object **out, ftl_error *err);
int ftl_op_set_attr (struct ftl *f, struct ftl_object *o, uint32_t page,
                 uint32_t number, const void *val, uint32_t len, bool log,
                 ftl_error *err);
void ftl_unmap_range (struct ftl *f, struct ftl_object *o, uint64_t first,
                  uint64_t end);
int ftl_read_sector (struct ftl *f, ppa_t ppa, void *buf, uint64_t *t_done);
uint64_t ftl_count_unmapped (struct ftl *f, struct ftl_object *o, uint64_t first,
                         uint64_t end);
static inline uint64_t next_seq (struct ftl *f) { return ++f->seq; }

/* ftl_gc.c */
int ftl_gc_foreground (struct ftl *f);
int ftl_gc_collect (struct ftl *f, uint32_t nvictims_max, uint32_t want_free,
                uint64_t budget_ns);
int ftl_gc_relocate_block (struct ftl *f, uint32_t b, int stream);
/* ftl_gc.c: copy the valid data sector `ppa` (of an object) into stream
 * s the way GC does (bytes as stored, SECT_COPY or SECT_CORRUPT, mapping
 * switched, old copy invalidated). */
int ftl_gc_copy_sector (struct ftl *f, ppa_t ppa, int s);
/* ftl_gc_layout.c: whole pages keep their die */
bool ftl_gc_layout_page_whole (struct ftl *f, uint64_t page);
int ftl_gc_layout_lane_ready (struct ftl *f, uint32_t die, bool cold,
                              bool *ready);
int ftl_gc_layout_copy_page (struct ftl *f, uint64_t page, bool cold,
                             bool *kept);
void ftl_gc_layout_close_cold (struct ftl *f);
int ftl_gc_erase_barrier (struct ftl *f);
int ftl_gc_erase_block (struct ftl *f, uint32_t b);
int ftl_gc_erase_pending_all (struct ftl *f);
uint32_t ftl_gc_pick_victim (struct ftl *f);

/* ftl_wear.c */
void ftl_wear_after_erase (struct ftl *f, uint32_t b);
int ftl_wear_static_check (struct ftl *f, uint64_t budget_ns);
void ftl_wear_mark_factory_bad (struct ftl *f, uint32_t permille, uint64_t seed);

/* ftl_checkpoint.c */
int ftl_ckpt_write (struct ftl *f, bool clean, ftl_error *err);
int ftl_ckpt_load (struct ftl *f, uint64_t *seq, bool *clean, ftl_error *err);
int ftl_ckpt_maybe (struct ftl *f);
int ftl_sb_write (struct ftl *f, ftl_error *err);
int ftl_sb_read_config (struct nand_backend *be, struct ftl_config *cfg,
                    char *profile, ftl_error *err);
int ftl_state_write (struct ftl *f, uint32_t mounted);
int ftl_state_read (struct nand_backend *be, uint32_t *mounted);

/* ftl_recovery.c */
int ftl_recovery_rebuild_from_maps (struct ftl *f);
int ftl_recovery_replay (struct ftl *f, uint64_t ckpt_seq, ftl_error *err);

/* ftl_fsck.c */
void ftl_debug_dump_blocks (ftl_t *f, FILE *out);

/* ftl_stats.c */
void ftl_lat_record (struct lat_hist *h, uint64_t ns);
uint64_t ftl_lat_percentile (const struct lat_hist *h, double q);

/* ftl_config.c, ftl_pace.c: the runtime part of a drive profile */
int ftl_profile_runtime (const char *name, uint32_t page_size,
                         uint32_t channels, uint32_t ways,
                         struct ftl_pace_params *pp, ftl_error *err);
int ftl_pace_apply (struct ftl *f, const char *name, ftl_error *err);
/* paced: the op's start is now (the wall clock), not the previous op's end */
void ftl_pace_op_begin (struct ftl *f);
/* the absolute CLOCK_MONOTONIC deadline to sleep to for virtual time t,
 * 0 when unpaced; ftl_pace_sleep_until sleeps (no lock held) */
uint64_t ftl_pace_deadline (struct ftl *f, uint64_t t);
void ftl_pace_sleep_until (struct ftl *f, uint64_t deadline);
/* An FTL call's NAND work in QoS class prio: begin (under the lock) sets
 * the class and, paced, opens a ticket; end closes it with f->op_done and
 * returns it (0 when unpaced or none); wait sleeps (no lock held) until
 * the ticket's completion, however often it is pushed back. */
struct nand_op_class ftl_pace_default_class (const struct ftl *f);
void ftl_pace_call_begin (struct ftl *f, unsigned prio);
uint64_t ftl_pace_call_end (struct ftl *f);
void ftl_pace_wait_ticket (struct ftl *f, uint64_t ticket);

/* ftl_config.c */
int ftl_timing_for_profile (const char *profile, struct nand_timing *tm,
                        const struct ftl_config *cfg);
int ftl_derive (struct ftl *f, ftl_error *err);
int ftl_config_complete (struct ftl_config *cfg, ftl_error *err);

/* ftl.c */
int ftl_new (const struct ftl_config *cfg, struct ftl **out, ftl_error *err);
void ftl_free (struct ftl *f);

#endif
