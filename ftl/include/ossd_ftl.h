/* ossd_ftl.h - public interface of the object FTL (ftl/).
 *
 * The FTL owns everything between object commands and the NAND model:
 * the object index {PID, OID} -> descriptor, the mapping of object pages
 * to flash pages, garbage collection, wear levelling and crash recovery.
 * It depends on nothing else in pg_ossd; the device core (device/) is its
 * only caller besides tests and bench/ftl-sim.
 *
 * Conventions
 * - Every function returning int returns 0 on success or a negative errno
 *   (-ENOENT, -EEXIST, -ENOSPC, -EINVAL, -EIO, -ENOTEMPTY, -ESTALE, ...).
 *   When it fails and `err` is not NULL, a one-line human-readable reason
 *   naming what and where is written into err->msg.
 * - An ftl_t is thread-safe: the device core calls it from many threads.
 * - Object IDs and partition IDs are 64-bit.  Partition 0 is the system
 *   partition (the device keeps its block volume and kernels there); user
 *   partitions are created with ftl_create_partition.
 * - Durability: data and metadata acknowledged by ftl_flush() survive a
 *   kill -9 of the process.  Nothing written after the last flush may
 *   corrupt what was flushed before it.
 *
 * Implementation notes (the ftl/ sources)
 * - Backends by image path: a file path = sparse image (pread/pwrite,
 *   ftl_flush = fdatasync); NULL or "" = RAM; "none:" = metadata only
 *   (simulation: no data kept, reads return zeros, not reopenable).
 * - Locking: one mutex per ftl_t serialises every call (GC runs inside the
 *   call that needs it, or in ftl_idle).
 * - Mapping unit is 4 KiB: a 16 KiB flash page holds 4 sectors packed by a
 *   write buffer, so 8 KiB writes need no read-modify-write; writes that
 *   are not 4 KiB aligned read-modify-write their edge sectors.
 * - RAM use: about 12 bytes per 4 KiB of raw flash (valid bitmap, reverse
 *   map, mapping) ~ 3 MiB per GiB, plus ~200 bytes per object; DFTL modes
 *   add ~40 bytes per cached mapping entry.
 * - ftl_flush programs partly filled pages (padding) and syncs: flushing
 *   after every 4 KiB write costs a flash page each time.
 * - ftl_open of a cleanly closed image loads a checkpoint (no scan); after
 *   a crash it scans the OOB area and replays at most ~512 MiB of writes.
 * - Statistics count 4 KiB sectors for host_reads/host_writes; waf is NAND
 *   sectors programmed (pages x sectors per page, incl. GC copies, index
 *   and translation pages and padding) per host sector written.
 */
#ifndef OSSD_FTL_H
#define OSSD_FTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ftl ftl_t;

typedef struct ftl_error
{
  char msg[256];
} ftl_error;

/* Mapping cache modes (issue 3, DESIGN.md "Object FTL"). */
enum ftl_mapping_mode
{
  FTL_MAP_RAM = 0,            /* whole mapping in RAM                      */
  FTL_MAP_DFTL = 1,           /* demand-cached, one LRU                    */
  FTL_MAP_DFTL_SPLIT = 2,     /* clean/dirty split, batched write-back     */
};

enum ftl_alloc_policy
{
  FTL_ALLOC_UNIFIED = 0,
  FTL_ALLOC_INDEX_DATA = 1,   /* mapping/index pages separated from data   */
  FTL_ALLOC_PER_OBJECT = 2,   /* per-object update blocks                  */
};

enum ftl_gc_policy
{
  FTL_GC_GREEDY = 0,
  FTL_GC_COST_BENEFIT = 1,
};

/* Geometry and behaviour fixed at format time.  Zeroed fields take the
 * defaults documented in ftl_config_defaults(). */
struct ftl_config
{
  const char *profile;        /* a drive profile (docs/profiles.md): "default"
                                 (FEMU-like, unpaced), "mlc", "tlc",
                                 "ram-fast", or a paced one: "sata-ssd",
                                 "nvme-gen3", "nasd-1998" */
  uint32_t channels;
  uint32_t ways;              /* dies per channel */
  uint32_t planes;
  uint32_t blocks_per_plane;
  uint32_t pages_per_block;
  uint32_t page_size;         /* bytes, default 16384 */
  uint32_t oob_size;
  double over_provisioning;   /* fraction of raw space hidden, e.g. 0.07 */
  enum ftl_mapping_mode mapping_mode;
  double mapping_cache_fraction;   /* of the full mapping, DFTL modes */
  enum ftl_alloc_policy alloc_policy;
  enum ftl_gc_policy gc_policy;
  uint32_t max_open_blocks;   /* per-object policy bound */
  bool pace_real_time;        /* sleep so virtual time tracks wall time */
  /* Added fields (0 = take the profile's value). */
  uint64_t read_ns, program_ns, erase_ns;   /* NAND array times */
  uint32_t channel_mbps;      /* channel transfer rate, MB/s */
  uint32_t factory_bad_permille;   /* blocks marked bad at format */
  uint32_t wl_threshold;      /* static wear levelling erase-count gap */
  uint32_t stripe_width;      /* open host blocks a write stream stripes
                                 over (one per die); 0 = every die */
  bool gc_ignores_layout;     /* true: GC and static wear levelling pack
                                 every valid sector densely into their own
                                 stream (the behaviour before they kept
                                 whole pages on their die); for comparison
                                 (docs/sofs.md); not kept in the image */
};

/* Fill cfg with the documented defaults for `profile` (NULL = "default").
 * Returns -EINVAL for an unknown profile. */
int ftl_config_defaults (struct ftl_config *cfg, const char *profile,
                         ftl_error *err);

/* Size the geometry so that the user-visible capacity is at least
 * `capacity_bytes` (keeps the other parameters of cfg). */
int ftl_config_set_capacity (struct ftl_config *cfg, uint64_t capacity_bytes,
                             ftl_error *err);

/* Create a new, empty FTL in `image_path` (a sparse backing file; NULL or
 * "" = RAM backend, lost on close).  Overwrites an existing image.
 * image_path "none:" selects the metadata-only backend for simulation
 * (bench/ftl-sim): no data and no OOB are stored, reads return zeros,
 * timing and statistics are modelled exactly, nothing persists. */
int ftl_format (const char *image_path, const struct ftl_config *cfg,
                ftl_t **out, ftl_error *err);

/* Open an existing image, running crash recovery if it was not closed
 * cleanly.  -ENOENT if missing, -EINVAL (with a reason) if not an image. */
int ftl_open (const char *image_path, ftl_t **out, ftl_error *err);

/* Flush and release.  Safe on NULL. */
void ftl_close (ftl_t *ftl);

/* ---- partitions ---------------------------------------------------- */
int ftl_create_partition (ftl_t *ftl, uint64_t pid, ftl_error *err);
/* -ENOTEMPTY if it still holds objects. */
int ftl_remove_partition (ftl_t *ftl, uint64_t pid, ftl_error *err);
/* Up to `cap` PIDs greater than `after`, ascending; *n set to the count. */
int ftl_list_partitions (ftl_t *ftl, uint64_t after, uint64_t *pids,
                         size_t cap, size_t *n, ftl_error *err);

/* ---- objects ------------------------------------------------------- */
struct ftl_object_info
{
  uint64_t pid, oid;
  uint64_t size;              /* logical length in bytes */
  uint64_t allocated;         /* bytes of flash pages mapped */
  uint64_t version;           /* bumped by every change (NASD CAS) */
  uint64_t ctime_ns, mtime_ns;     /* device wall clock at change */
  uint8_t priority;           /* FTL_ATTR_HINT_PRIORITY, or the default */
};

/* -EEXIST if it exists, -ENOENT if the partition does not. */
int ftl_create_object (ftl_t *ftl, uint64_t pid, uint64_t oid,
                       ftl_error *err);
/* Frees every page at once (informed cleaning). */
int ftl_remove_object (ftl_t *ftl, uint64_t pid, uint64_t oid,
                       ftl_error *err);
int ftl_stat_object (ftl_t *ftl, uint64_t pid, uint64_t oid,
                     struct ftl_object_info *info, ftl_error *err);
/* Up to `cap` OIDs greater than `after` in partition pid, ascending. */
int ftl_list_objects (ftl_t *ftl, uint64_t pid, uint64_t after,
                      uint64_t *oids, size_t cap, size_t *n, ftl_error *err);

/* Read len bytes at off.  Holes read as zeros; a read past the end is
 * short: *nread says how many bytes were filled. */
int ftl_read (ftl_t *ftl, uint64_t pid, uint64_t oid, uint64_t off,
              void *buf, size_t len, size_t *nread, ftl_error *err);
/* ftl_read in QoS class prio (0 lowest .. FTL_PRIORITY_MAX; the calls
 * without one use FTL_PRIORITY_DEFAULT): its NAND operations go ahead of
 * queued ones of a lower class on their dies and channels (docs/qos.md). */
int ftl_read_prio (ftl_t *ftl, unsigned prio, uint64_t pid, uint64_t oid,
                   uint64_t off, void *buf, size_t len, size_t *nread,
                   ftl_error *err);
/* In-place read, for the drive's own scans: [off, off + count * unit)
 * (off and unit multiples of 4 KiB, count <= FTL_PIN_MAX) read as by
 * ftl_read, with the same timing, statistics and data CRC check of every
 * NAND page, but a unit whose sectors lie side by side in one NAND page of
 * a mapped image is not copied: ptrs[k] points at it in the image, and
 * its NAND block is pinned (never erased) until ftl_unpin(pin).  Every
 * other unit (holes, data still in a write buffer, pages split over NAND
 * pages, an image read without a mapping) is copied to scratch + k * unit
 * and ptrs[k] points there.  On error nothing is pinned.  A short read
 * (past the object's end) is -ERANGE.  The data CRCs of mapped pages are
 * checked after the FTL lock is dropped (their blocks pinned meanwhile),
 * so that concurrent scans check their pages at once; nothing is handed
 * out before its page checked good. */
#define FTL_PIN_MAX 64
struct ftl_pin
{
  uint32_t n;
  uint32_t block[FTL_PIN_MAX];
  /* unit_id[k]: for a unit handed out in place, an identity of its stored
   * bytes (the NAND page's program sequence number and the unit's sector
   * in it): no other bytes ever carry it while the FTL is open, since a
   * page is programmed once between erases and every program takes a new
   * sequence number; 0 for a copied unit.  What a reader learns of a
   * unit's bytes (a checksum it verified) it may remember by this. */
  uint64_t unit_id[FTL_PIN_MAX];
};
int ftl_read_pinned (ftl_t *ftl, unsigned prio, uint64_t pid, uint64_t oid, uint64_t off,
                     size_t unit, uint32_t count, void *scratch,
                     const uint8_t **ptrs, struct ftl_pin *pin, ftl_error *err);
/* Release what ftl_read_pinned pinned (pin->n = 0 after). */
void ftl_unpin (ftl_t *ftl, struct ftl_pin *pin);
/* Units ftl_read_pinned handed out in place / copied, since open. */
void ftl_pinned_stats (ftl_t *ftl, uint64_t *in_place, uint64_t *copied);

/* Write len bytes at off, extending the object if needed.  -ENOSPC when
 * the drive is full (and nothing of this write is applied). */
int ftl_write (ftl_t *ftl, uint64_t pid, uint64_t oid, uint64_t off,
               const void *buf, size_t len, ftl_error *err);
/* ftl_write in QoS class prio (as ftl_read_prio). */
int ftl_write_prio (ftl_t *ftl, unsigned prio, uint64_t pid, uint64_t oid,
                    uint64_t off, const void *buf, size_t len, ftl_error *err);
/* Deallocate [off, off+len): reads as zeros, length unchanged. */
int ftl_punch (ftl_t *ftl, uint64_t pid, uint64_t oid, uint64_t off,
               uint64_t len, ftl_error *err);
/* Truncate or extend (extension reads as zeros). */
int ftl_set_length (ftl_t *ftl, uint64_t pid, uint64_t oid, uint64_t len,
                    ftl_error *err);

/* ---- attributes (OSD-2 style: page + number -> bytes) --------------- */
#define FTL_ATTR_MAX_LEN 4096

/* -ENOENT (err says which) if the object or the attribute is missing.
 * *len gets the full length; at most cap bytes are copied. */
int ftl_get_attr (ftl_t *ftl, uint64_t pid, uint64_t oid, uint32_t page,
                  uint32_t number, void *buf, size_t cap, size_t *len,
                  ftl_error *err);
/* len == 0 removes the attribute. */
int ftl_set_attr (ftl_t *ftl, uint64_t pid, uint64_t oid, uint32_t page,
                  uint32_t number, const void *buf, size_t len,
                  ftl_error *err);

struct ftl_attr_id
{
  uint32_t page, number;
};
/* Attributes of an object in (page, number) order after `after`. */
int ftl_list_attrs (ftl_t *ftl, uint64_t pid, uint64_t oid,
                    struct ftl_attr_id after, struct ftl_attr_id *ids,
                    size_t cap, size_t *n, ftl_error *err);

/* Attribute page 0x1 numbers the FTL itself interprets as hints. */
#define FTL_ATTR_PAGE_HINTS   0x1u
#define FTL_ATTR_HINT_TEMPERATURE 1u   /* one byte: 0 cold, 1 warm, 2 hot */
/* One byte: the object's I/O priority, 0 (lowest) .. FTL_PRIORITY_MAX;
 * absent: FTL_PRIORITY_DEFAULT.  The drive's QoS (device/device_qos.c)
 * schedules by it; larger values are clamped to the maximum. */
#define FTL_ATTR_HINT_PRIORITY    2u
#define FTL_PRIORITY_DEFAULT      4u
#define FTL_PRIORITY_MAX          7u

/* ---- atomic batches (COMPOUND, rename, conditional writes) ----------- */
enum ftl_op_kind
{
  FTL_OP_CREATE_OBJECT,
  FTL_OP_ENSURE_OBJECT,       /* create unless it exists (no error then) */
  FTL_OP_REMOVE_OBJECT,
  FTL_OP_WRITE,
  FTL_OP_PUNCH,
  FTL_OP_SET_LENGTH,
  FTL_OP_SET_ATTR,
};

struct ftl_op
{
  enum ftl_op_kind kind;
  uint64_t pid, oid;
  uint64_t off, len;          /* WRITE: off/len; PUNCH: range; SET_LENGTH: len */
  const void *data;           /* WRITE, SET_ATTR */
  uint32_t attr_page, attr_number;  /* SET_ATTR; len = value length */
  /* If nonzero, the op (and so the whole batch) fails with -ESTALE unless
   * the object's current version equals this (NASD conditional write). */
  uint64_t expect_version;
};

/* Apply all ops or none, atomically for readers and across crashes.
 * On failure *failed_index (if not NULL) names the op that failed. */
int ftl_apply_batch (ftl_t *ftl, const struct ftl_op *ops, size_t n,
                     size_t *failed_index, ftl_error *err);

/* ---- durability, capacity, statistics -------------------------------- */
int ftl_flush (ftl_t *ftl, ftl_error *err);

struct ftl_device_info
{
  uint64_t capacity_bytes;    /* user-visible */
  uint64_t used_bytes;        /* mapped user data */
  uint64_t free_bytes;
  uint32_t page_size;
  uint32_t channels, ways, planes, blocks_per_plane, pages_per_block;
  double over_provisioning;
  enum ftl_mapping_mode mapping_mode;
  enum ftl_alloc_policy alloc_policy;
  enum ftl_gc_policy gc_policy;
  char profile[32];           /* the drive profile in force */
  char format_profile[32];    /* the profile the image was formatted with */
  char backend[16];           /* "file" or "ram" */
  /* pacing (the profile in force) */
  bool paced;                 /* requests complete no earlier than modelled */
  uint32_t time_channels, time_dies;   /* parallelism the clocks model */
  uint32_t channel_mbps, link_mbps;    /* link 0 = not modelled */
  uint64_t read_ns;           /* tR */
  double model_scan_mbps;     /* flash-bound bandwidth (a drive scan) */
  double model_read_mbps;     /* host read bandwidth (flash and link) */
  uint64_t objects, partitions;
};
int ftl_get_info (ftl_t *ftl, struct ftl_device_info *info, ftl_error *err);

struct ftl_stats
{
  uint64_t host_reads, host_writes;        /* host 4 KiB sectors */
  uint64_t host_read_bytes, host_write_bytes;
  uint64_t nand_reads, nand_programs, nand_erases;
  uint64_t gc_valid_copies, gc_runs;
  uint64_t gc_corrupt_copies;              /* moved marked corrupt (data CRC) */
  /* whole valid data pages GC / static wear levelling copied to a page
   * of the die they were on (the layout kept: die, channel, the units
   * sharing the page and their order), and those that had to leave it
   * (their die had no free block to spare) */
  uint64_t gc_layout_kept_pages, gc_layout_moved_pages;
  uint64_t wl_migrations;                  /* static wear levelling moves */
  uint64_t map_cache_hits, map_cache_misses, map_cache_evictions;
  uint64_t map_reads, map_writes;          /* NAND pages for mapping */
  double waf;                              /* nand_programs / host page writes */
  double nand_reads_per_host_read;
  uint64_t max_nand_reads_per_host_read;
  uint64_t erase_count_min, erase_count_max;
  double erase_count_mean;
  uint64_t bad_blocks, free_blocks;
  uint64_t virtual_time_ns;                /* furthest die/channel clock */
  /* pacing: sleeps until modelled completion, their total, link bytes */
  uint64_t pace_sleeps, pace_sleep_ns, link_bytes, cache_drops;
  /* read/write latency percentiles, virtual time, ns */
  uint64_t read_lat_p50, read_lat_p99, read_lat_p999;
  uint64_t write_lat_p50, write_lat_p99, write_lat_p999;
  /* work given to the busiest die and the busiest channel (ns): the
   * larger is the time a drive kept saturated (a deep queue, perfect
   * scheduling) needs for the same operations */
  uint64_t busiest_die_ns, busiest_channel_ns;
  uint64_t relocated_sectors;              /* moved by ftl_relocate */
  /* QoS in the die and channel queues (docs/qos.md): operations served
   * ahead of queued lower-priority ones, reservations pushed back (each
   * time), overtakes refused by the starvation bound; NAND operations
   * timed per priority class */
  uint64_t qos_overtakes, qos_pushes, qos_bound_hits;
  uint64_t nand_ops_by_prio[FTL_PRIORITY_MAX + 1];
};
int ftl_get_stats (ftl_t *ftl, struct ftl_stats *st, ftl_error *err);
void ftl_reset_stats (ftl_t *ftl);

/* Check every invariant (each valid page owned once, counts agree, no
 * leaked blocks, every programmed page's data matches its CRC).  Returns 0 if clean, -EUCLEAN with the first problem in
 * err otherwise; *problems (if not NULL) gets the number found. */
int ftl_fsck (ftl_t *ftl, uint64_t *problems, ftl_error *err);
/* The same, handing every problem (one line of text) to report as well:
 * each page whose data fails its CRC is one, naming what it holds. */
typedef void (*ftl_fsck_report_fn) (void *arg, const char *problem);
int ftl_fsck_report (ftl_t *ftl, uint64_t *problems, ftl_fsck_report_fn report,
                     void *report_arg, ftl_error *err);

/* ---- relocation (docs/sofs.md) -------------------------------------- */
/* Lay units of object pid:oid out anew: the units order[*next..n) (unit
 * numbers, unit_bytes each, a multiple of 4 KiB) are moved to fresh
 * flash pages in that order, at most max_units of them per call (0: no
 * limit); FTL_RELOCATE_GAP in order ends the NAND page being filled (it is
 * programmed padded) so the next unit starts a page.  The first call
 * (*next == 0) starts on a page too.  Each sector moves through the copy
 * path GC uses: its current bytes, as they are (a sector whose page fails
 * its data CRC moves marked corrupt, as GC moves it), into the write
 * stream the allocation policy gives the object (its pages striped over
 * the dies), the mapping follows and the old copy becomes invalid for GC
 * to reclaim; holes and sectors still in a write buffer stay; units past
 * the object's end are ignored.  Bytes, size, version and times of the
 * object never change, and a crash at any point loses nothing: a moved
 * sector's old copy stays on flash until the new one is, as for GC.
 * *next says where to go on.  The host clock does not advance; under a
 * paced profile the call returns when the flash has done its work (so a
 * relocation loop keeps pace with the NAND).  Returns -EAGAIN (having
 * stopped early) when
 * free blocks are down to the background-GC threshold: relocation never
 * pushes the drive into foreground GC; try again after ftl_idle. */
#define FTL_RELOCATE_GAP UINT64_MAX
int ftl_relocate (ftl_t *ftl, uint64_t pid, uint64_t oid, const uint64_t *order,
                  size_t n, uint32_t unit_bytes, size_t max_units, size_t *next,
                  ftl_error *err);

/* Let background GC / wear levelling run for up to `budget_ns` of virtual
 * time (the device calls this when idle). */
int ftl_idle (ftl_t *ftl, uint64_t budget_ns, ftl_error *err);

/* The owner's record: up to FTL_OWNER_RECORD_MAX opaque bytes the FTL's
 * owner (the drive: its access profile and queued relocations,
 * docs/sofs.md) keeps in the image's system area, beside the checkpoints
 * and apart from all data and FTL metadata.  Two alternating slots, each
 * written body first, synced, then a CRC-checked header naming its
 * generation, synced: a save torn by a crash leaves the previous record
 * readable, never touches anything else.  -ENOTSUP on a RAM or
 * metadata-only drive. */
#define FTL_OWNER_RECORD_MAX ((480u << 10) - 4096u)
int ftl_owner_record_save (ftl_t *ftl, const void *buf, size_t len,
                           ftl_error *err);
struct ftl_owner_record_info
{
  uint64_t generation;        /* saves so far, of this image */
  bool newest_lost;           /* the newest save was torn: this is the one
                                 before it */
};
/* The newest intact record (*buf malloc'd, the caller frees it).
 * -ENOENT: none was ever saved (or an empty one); -EBADMSG: one was, and
 * no slot is intact (the record is lost; the FTL is not affected). */
int ftl_owner_record_load (ftl_t *ftl, void **buf, size_t *len,
                           struct ftl_owner_record_info *info, ftl_error *err);

/* The host clock of an unpaced drive in a simulation of many drives on one
 * virtual time line (bench/fusionraid).  ftl_host_clock: the virtual ns
 * the host side has reached (the completion of the last request, or the end
 * of the last ftl_idle).  ftl_set_host_clock: the next request arrives at
 * t, earlier or later than that: one arriving before earlier requests
 * completed overlaps them on the dies and channels (as requests of a deep
 * queue do: each NAND operation still waits for its die and channel), one
 * arriving later finds the drive idle (doing no background work; ftl_idle
 * is how idle time does some).  A request's latency is then
 * ftl_host_clock() after it minus t.  No effect inside a batch. */
uint64_t ftl_host_clock (ftl_t *ftl);
void ftl_set_host_clock (ftl_t *ftl, uint64_t t_ns);

/* ---- drive profiles and real-time pacing (ftl_pace.c) -------------- */
struct ftl_profile_info
{
  const char *name, *description;
  bool paced;
  uint32_t channels, ways;    /* parallelism of the timing model */
  uint64_t read_ns, program_ns, erase_ns;
  uint32_t channel_mbps, link_mbps;
  double scan_mbps, read_mbps;     /* modelled, 16 KiB pages */
};
size_t ftl_profile_count (void);
/* The profile named `name`, or (name NULL) the i-th.  -ENOENT if none. */
int ftl_profile_get (size_t i, const char *name, struct ftl_profile_info *out);

/* Put profile `name` in force on an open drive (timing, modelled
 * parallelism, host link, pacing); the image's format is not changed.
 * -EINVAL for an unknown name. */
int ftl_set_profile (ftl_t *ftl, const char *name, ftl_error *err);

/* The pacing clock now (ns of the drive's virtual time that tracks
 * CLOCK_MONOTONIC), or 0 when the profile in force is unpaced: a caller
 * takes it when a request arrives and hands it to ftl_link_transfer. */
uint64_t ftl_pace_clock (ftl_t *ftl);
/* Charge `bytes` crossing the host link for a request that arrived at
 * `arrival` (ftl_pace_clock) and sleep until the transfer's modelled end:
 * the link serialises transfers; a transfer overlaps the NAND work of its
 * own request.  No-op when unpaced or the profile models no link. */
void ftl_link_transfer (ftl_t *ftl, uint64_t bytes, uint64_t arrival);

/* The drive's own read-ahead (a drive scan knows what it reads next).
 * ftl_read_ahead charges the NAND clocks for reading [off, off+len) as if
 * issued now (in class prio), moves nothing and returns the ticket of its
 * modelled completion (0 when unpaced); ftl_read_reserved then reads that
 * range without charging it again and sleeps until the ticket's
 * completion.  So the NAND time of the next batch runs while the caller
 * works on this one; a reservation never used only delays later reads,
 * never hastens one.  A ticket is an opaque handle, not a time: a call of
 * a higher class may push the completion back after it was returned. */
/* ftl_read that does not sleep: *ticket gets its paced completion's
 * ticket (0: none), to wait for with ftl_pace_wait after other work. */
int ftl_read_deadline (ftl_t *ftl, unsigned prio, uint64_t pid, uint64_t oid,
                       uint64_t off, void *buf, size_t len, size_t *nread,
                       uint64_t *ticket, ftl_error *err);
void ftl_pace_wait (ftl_t *ftl, uint64_t ticket);
int ftl_read_ahead (ftl_t *ftl, unsigned prio, uint64_t pid, uint64_t oid,
                    uint64_t off, size_t len, uint64_t *ticket, ftl_error *err);
int ftl_read_reserved (ftl_t *ftl, uint64_t pid, uint64_t oid, uint64_t off,
                       void *buf, size_t len, size_t *nread,
                       uint64_t ticket, ftl_error *err);

/* Make the drive cold: drop the FTL's page cache and the clean entries of
 * its mapping cache (DFTL modes), write back and evict
 * the image's pages from the OS page cache (and the process's mapping of
 * them), so the next reads come from the backing file's storage. */
int ftl_drop_caches (ftl_t *ftl, ftl_error *err);

const char *ftl_mapping_mode_name (enum ftl_mapping_mode m);
const char *ftl_alloc_policy_name (enum ftl_alloc_policy p);
const char *ftl_gc_policy_name (enum ftl_gc_policy p);

#ifdef __cplusplus
}
#endif
#endif /* OSSD_FTL_H */
