/* ossd_scan.h - the heap-page scan engine: request, result chunks, packed
 * result formats (with inline readers), and the PostgreSQL 15 on-disk
 * layout the engine parses.
 *
 * Owns: the C form of the SCAN request (mirrors `message Scan` of
 * proto/ossd.proto), the result-chunk sink contract, the packed row /
 * host row / partial group formats.  The readers at the end are static
 * inline so pg_ossd and the device can decode chunks without linking
 * libossd_rt.a.
 *
 * The engine never includes PostgreSQL headers: it runs in the drive.  The
 * layouts it needs are re-declared here, each citing the PostgreSQL 15
 * source file that defines it.  Everything assumes a 64-bit little-endian
 * build of PostgreSQL with BLCKSZ 8192 and MAXIMUM_ALIGNOF 8 (the only
 * configuration pg_ossd supports).
 *
 * ---------------------------------------------------------------------
 * Scan semantics, in order, per line pointer of every requested block:
 *   1. page checks (header, every line pointer, every tuple header); a
 *      page failing them is handed back whole (OSSD_HB_*), never parsed.
 *   2. LP_UNUSED / LP_DEAD / LP_REDIRECT are skipped (see heap_page.c:
 *      a redirect only names the HOT chain member, which is reached
 *      through its own LP_NORMAL slot, so following it would count the
 *      member twice).
 *   3. MVCC rule of DESIGN.md: the tuple counts only if its xmin is
 *      frozen (both HEAP_XMIN_COMMITTED and HEAP_XMIN_INVALID) or its raw
 *      xmin precedes snapshot_xmin (modulo-2^32, XIDs < 3 always
 *      precede) and HEAP_XMIN_INVALID alone is not set.  xmax is ignored.
 *   4. referenced attributes are deformed (only up to the highest one).
 *   5. the filter kernel runs on the bound columns (ctx->col[i] = heap
 *      attribute bind[i]); SKIP drops the row, TO_HOST hands it back.
 *   5b. join filters: a row whose key attribute is NULL or not in a
 *      filter is dropped; a compressed or external key is kept (the host's
 *      join decides it).  A worker stops applying a filter that dropped
 *      fewer than 1 in 16 of its first 8192 rows.
 *   6. output columns: the map kernel's out[] (typed by `outputs`), then
 *      the projected heap attributes as stored (a text group key beside
 *      computed aggregate inputs; without a map kernel only these).
 *   7. rows mode (no aggregates, no group-by): one packed row per match,
 *      until `limit` rows were produced.  Aggregate mode: the output
 *      columns feed group keys and aggregate inputs.
 * A row the drive cannot decide exactly (compressed or external value in a
 * referenced column, numeric out of 128-bit range, kernel TO_HOST, group
 * table full, malformed attribute data) is handed back as a host row: the
 * raw tuple bytes and its TID.  Every host row already satisfies the MVCC
 * rule; the host evaluates quals, projection and aggregation on it with
 * PostgreSQL's own code.
 */
#ifndef OSSD_SCAN_H
#define OSSD_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ossd_join_filter.h"
#include "ossd_kernel.h"

/* =====================================================================
 * PostgreSQL 15 on-disk layout (re-declared, not copied)
 * ===================================================================== */

/* src/include/pg_config.h (BLCKSZ), src/include/storage/bufpage.h
 * (PG_PAGE_LAYOUT_VERSION, PageHeaderData, PD_VALID_FLAG_BITS). */
#define OSSD_PG_BLCKSZ 8192
#define OSSD_PG_PAGE_LAYOUT_VERSION 4
#define OSSD_PG_MAXALIGN 8
#define OSSD_PG_PD_VALID_FLAG_BITS 0x0007

struct ossd_pg_page_header
{
  uint32_t pd_lsn_xlogid;      /* PageXLogRecPtr, high half */
  uint32_t pd_lsn_xrecoff;     /* low half */
  uint16_t pd_checksum;
  uint16_t pd_flags;
  uint16_t pd_lower;           /* end of line pointer array */
  uint16_t pd_upper;           /* start of tuple space */
  uint16_t pd_special;         /* start of special space (= BLCKSZ for heap) */
  uint16_t pd_pagesize_version; /* page size | layout version */
  uint32_t pd_prune_xid;
  /* ItemIdData pd_linp[] follows at byte 24 */
};
#define OSSD_PG_PAGE_HEADER_SIZE 24

/* src/include/storage/itemid.h: ItemIdData is a 32-bit word of bit fields
 * lp_off:15, lp_flags:2, lp_len:15; with gcc on little-endian they are
 * allocated from the least significant bit. */
#define OSSD_PG_LP_UNUSED   0
#define OSSD_PG_LP_NORMAL   1
#define OSSD_PG_LP_REDIRECT 2
#define OSSD_PG_LP_DEAD     3
static inline unsigned ossd_pg_lp_off (uint32_t w) { return w & 0x7fffu; }
static inline unsigned ossd_pg_lp_flags (uint32_t w) { return (w >> 15) & 3u; }
static inline unsigned ossd_pg_lp_len (uint32_t w) { return w >> 17; }

/* src/include/access/htup_details.h: HeapTupleHeaderData (heap tuple form:
 * t_xmin, t_xmax, t_cid/t_xvac, t_ctid (6 bytes), t_infomask2, t_infomask,
 * t_hoff, t_bits[]).  Byte offsets: */
#define OSSD_PG_HT_XMIN       0
#define OSSD_PG_HT_XMAX       4
#define OSSD_PG_HT_FIELD3     8
#define OSSD_PG_HT_CTID      12
#define OSSD_PG_HT_INFOMASK2 18
#define OSSD_PG_HT_INFOMASK  20
#define OSSD_PG_HT_HOFF      22
#define OSSD_PG_HT_BITS      23   /* SizeofHeapTupleHeader */
#define OSSD_PG_MAX_ATTRS  1600   /* MaxHeapAttributeNumber, htup_details.h */

/* t_infomask bits (htup_details.h) */
#define OSSD_PG_HEAP_HASNULL         0x0001
#define OSSD_PG_HEAP_HASVARWIDTH     0x0002
#define OSSD_PG_HEAP_HASEXTERNAL     0x0004
#define OSSD_PG_HEAP_HASOID_OLD      0x0008
#define OSSD_PG_HEAP_XMIN_COMMITTED  0x0100
#define OSSD_PG_HEAP_XMIN_INVALID    0x0200
#define OSSD_PG_HEAP_XMIN_FROZEN     (OSSD_PG_HEAP_XMIN_COMMITTED | OSSD_PG_HEAP_XMIN_INVALID)
#define OSSD_PG_HEAP_MOVED_OFF       0x4000
#define OSSD_PG_HEAP_MOVED_IN        0x8000
#define OSSD_PG_HEAP_MOVED           (OSSD_PG_HEAP_MOVED_OFF | OSSD_PG_HEAP_MOVED_IN)
/* t_infomask2 bits (htup_details.h) */
#define OSSD_PG_HEAP_NATTS_MASK      0x07FF
#define OSSD_PG_HEAP_HOT_UPDATED     0x4000
#define OSSD_PG_HEAP_ONLY_TUPLE      0x8000

/* src/include/access/transam.h: InvalidTransactionId 0, Bootstrap 1,
 * Frozen 2, FirstNormalTransactionId 3. */
#define OSSD_PG_FIRST_NORMAL_XID 3u

/* src/include/postgres.h (PG15; moved to varatt.h in PG16), little-endian
 * varlena headers: first byte xxxxxx00 = 4-byte header uncompressed,
 * xxxxxx10 = 4-byte header compressed inline, 00000001 = 1-byte external
 * (TOAST pointer, second byte = vartag), xxxxxxx1 = 1-byte header short
 * value.  A 4-byte header's length is (word >> 2); a 1-byte header's is
 * (byte >> 1); both include the header.  An external datum is
 * 2 + sizeof payload bytes: vartag 18 (VARTAG_ONDISK) has a 16-byte
 * varatt_external, 1 (INDIRECT) and 2/3 (EXPANDED) hold a pointer. */
#define OSSD_PG_VARTAG_INDIRECT   1
#define OSSD_PG_VARTAG_EXPANDED_RO 2
#define OSSD_PG_VARTAG_EXPANDED_RW 3
#define OSSD_PG_VARTAG_ONDISK    18

/* src/include/catalog/pg_type.dat: type OIDs the engine knows by value. */
enum ossd_pg_type_oid
{
  OSSD_PG_BOOLOID = 16, OSSD_PG_BYTEAOID = 17, OSSD_PG_CHAROID = 18,
  OSSD_PG_NAMEOID = 19, OSSD_PG_INT8OID = 20, OSSD_PG_INT2OID = 21,
  OSSD_PG_INT4OID = 23, OSSD_PG_TEXTOID = 25, OSSD_PG_OIDOID = 26,
  OSSD_PG_FLOAT4OID = 700, OSSD_PG_FLOAT8OID = 701,
  OSSD_PG_BPCHAROID = 1042, OSSD_PG_VARCHAROID = 1043,
  OSSD_PG_DATEOID = 1082, OSSD_PG_TIMESTAMPOID = 1114,
  OSSD_PG_TIMESTAMPTZOID = 1184, OSSD_PG_NUMERICOID = 1700,
};

/* src/backend/utils/adt/numeric.c: on-disk NUMERIC (after the varlena
 * header): uint16 header; short form (header & 0xC000 == 0x8000): sign
 * 0x2000, dscale (header & 0x1F80) >> 7, weight 7-bit two's complement in
 * 0x007F, then int16 base-10000 digits; long form (header & 0x8000 == 0):
 * header = sign (0x4000 = negative) | dscale (0x3FFF), int16 weight, then
 * digits; header & 0xC000 == 0xC000 is NaN/+Inf/-Inf. */
#define OSSD_PG_NUMERIC_SIGN_MASK 0xC000
#define OSSD_PG_NUMERIC_NEG       0x4000
#define OSSD_PG_NUMERIC_SHORT     0x8000
#define OSSD_PG_NUMERIC_SPECIAL   0xC000

/* =====================================================================
 * The request
 * ===================================================================== */

/* One attribute of the relation's tuple descriptor (pg_attribute row). */
struct ossd_scan_attr
{
  int16_t len;                 /* attlen: 1..8 or more fixed, -1 varlena, -2 cstring */
  uint8_t align;               /* attalign as bytes: 1 ('c'), 2 ('s'), 4 ('i'), 8 ('d') */
  bool byval;
  uint32_t type_oid;           /* atttypid (0 for a dropped column is fine) */
  int32_t typmod;
  bool dropped;                /* stepped over, never referenced */
  bool has_missing;            /* atthasmissing: value for tuples with fewer attributes */
  bool missing_null;           /* the missing value is NULL */
  const void *missing;         /* its datum image: by-value and fixed-length
                                * types their `len` bytes as stored in a
                                * tuple; varlena: the complete varlena with
                                * its header (a compressed/external one sends
                                * referencing rows to the host) */
  uint32_t missing_len;
};

struct ossd_block_range { uint32_t start, count; };

/* One object (relation segment file).  read_block gets the target index
 * and the block number inside the object; TIDs reported to the host use
 * first_block + block (the relation block number). */
struct ossd_scan_target
{
  uint32_t first_block;
  uint32_t nranges;
  const struct ossd_block_range *ranges;
  /* Placement of the segment over an array (docs/arrays.md):
   * stripe_count 0 or 1 = unstriped.  Else the object holds units of
   * stripe_unit_blocks blocks; this drive is stripe_index.  RAID-0
   * (stripe_parity 0): segment unit k on drive k % stripe_count at object
   * unit k / stripe_count.  RAID-5 (stripe_parity 1): rows of
   * stripe_count units, one of them parity; unit k in row
   * r = k / (count - 1) at position p = k % (count - 1), on drive
   * (p + count - r % count) % count at object unit r (ossd_array.h). */
  uint32_t stripe_unit_blocks, stripe_index, stripe_count, stripe_parity;
  /* Optional: the tuples to look at, per block of `ranges` in order
   * (a striped target's share: device_scan.c), as little-endian u16s: a count n (0 = every tuple
   * of the block), then n line pointer numbers, ascending.  The host sends
   * what an index named (a bitmap's exact pages): a row elsewhere cannot
   * satisfy the index qual, which the filter checks anyway.  A redirect is
   * followed to its heap-only tuple; an offset that does not name a root
   * tuple (past the end, a heap-only or HOT-updated tuple) makes the block
   * scanned whole.  NULL: every tuple of every block. */
  const uint8_t *tuple_offsets;
  uint32_t tuple_offsets_len;  /* bytes */
};
#define OSSD_PG_MAX_HEAP_TUPLES 291   /* MaxHeapTuplesPerPage at 8 KiB */

/* The drive holding segment unit k, and the unit of its object that
 * holds it (the placement above). */
static inline uint32_t
ossd_stripe_unit_drive (uint64_t k, uint32_t count, uint32_t parity)
{
  uint64_t r;

  if (count <= 1)
    return 0;
  if (!parity)
    return (uint32_t) (k % count);
  r = k / (count - 1);
  return (uint32_t) ((k % (count - 1) + count - r % count) % count);
}

static inline uint64_t
ossd_stripe_unit_local (uint64_t k, uint32_t count, uint32_t parity)
{
  if (count <= 1)
    return k;
  return parity ? k / (count - 1) : k / count;
}

/* The segment-local heap block of block `block` of drive index's object;
 * UINT32_MAX for a RAID-5 parity block. */
static inline uint32_t
ossd_stripe_heap_block (uint32_t unit_blocks, uint32_t index, uint32_t count,
                        uint32_t parity, uint32_t block)
{
  uint64_t row, pos;

  if (count <= 1)
    return block;             /* unstriped: unit_blocks may be 0 */
  row = block / unit_blocks;
  if (!parity)
    return (uint32_t) ((row * count + index) * unit_blocks
                       + block % unit_blocks);
  pos = (index + row % count) % count;
  if (pos == count - 1)
    return UINT32_MAX;
  return (uint32_t) ((row * (count - 1) + pos) * unit_blocks
                     + block % unit_blocks);
}

/* The relation block number of block `block` of t's object (TIDs, page
 * checksums, blocks handed to the host). */
static inline uint32_t
ossd_scan_target_relblock (const struct ossd_scan_target *t, uint32_t block)
{
  return t->first_block + ossd_stripe_heap_block (t->stripe_unit_blocks,
                                                  t->stripe_index,
                                                  t->stripe_count,
                                                  t->stripe_parity, block);
}

/* The object-local ranges of drive `index` (of `count`, units of
 * unit_blocks blocks, parity as stripe_parity) that hold the
 * segment-local heap blocks of `heap` (nheap ranges): adjacent pieces
 * merged, in object order when heap is in order (never a parity unit).
 * Writes up to cap into out (out may be NULL) and returns how many there
 * are. */
size_t ossd_stripe_local_ranges (uint32_t unit_blocks, uint32_t index,
                                 uint32_t count, uint32_t parity,
                                 const struct ossd_block_range *heap,
                                 size_t nheap, struct ossd_block_range *out,
                                 size_t cap);

struct ossd_jit_kernel;
/* A kernel as the engine sees it: the interpreter, the JIT or a plain C
 * function in tests.  exec returns OSSD_ROW_SKIP/MATCH/TO_HOST, or a
 * negative errno that aborts the scan (the engine names block and line
 * pointer in its message).  thread_init/thread_fini (optional) give each
 * worker thread its own state, passed to exec. */
typedef int (*ossd_kernel_exec_fn) (void *kernel, struct ossd_kctx *ctx, void *state);
struct ossd_scan_kernel
{
  ossd_kernel_exec_fn exec;    /* NULL: no kernel */
  void *kernel;
  void *(*thread_init) (void *kernel);
  void (*thread_fini) (void *kernel, void *state);
  bool lazy_columns;           /* exec converts lazily bound columns when the
                                * kernel loads them (the interpreter and the
                                * JIT do: ossd_rt.h); else the engine binds
                                * every column converted */
  struct ossd_jit_kernel *jit; /* set for a JIT kernel (ossd_jit_scan_kernel):
                                * the engine then JIT-compiles the scan's
                                * deform too (ossd_jit_kernel_deform) */
};

/* Type of a map kernel output column (pg_type of the expression).  A map
 * kernel can produce fixed-size by-value types and numeric.  It writes
 * ctx->out[i].value in the ABI's column representation (ints/date/
 * timestamp sign-extended; float4 AND float8 as float8 bits, like float4
 * inputs) or out[i].num for numeric at any scale 0..38; the engine turns
 * them into Datums / numeric varlenas. */
struct ossd_scan_outcol
{
  uint32_t type_oid;
  int16_t len;
  uint8_t align;
  bool byval;
  int32_t typmod;
};

enum ossd_agg_kind
{
  OSSD_AGG_COUNT_STAR = 0, OSSD_AGG_COUNT = 1, OSSD_AGG_SUM = 2,
  OSSD_AGG_AVG = 3, OSSD_AGG_MIN = 4, OSSD_AGG_MAX = 5,
};
struct ossd_scan_agg
{
  uint8_t kind;                /* enum ossd_agg_kind */
  uint32_t input;              /* output column index (unused for count(*)) */
};

/* Page read: fill page8k with block `block` of target `target`.  Returns 0,
 * -ECANCELED to abort the scan, -EBADMSG (the stored data failed its
 * integrity check: the scan fails with the reader's message, a corrupt page
 * is never scanned nor handed on), or another negative errno: the block is
 * then handed back to the host (OSSD_HB_READ_ERROR).  Called concurrently
 * from the worker threads. */
typedef int (*ossd_read_block_fn) (void *cb_arg, uint32_t target, uint32_t block,
                                   void *page8k, char *err, size_t errlen);

/* Optional batch read: fill `pages` with `count` consecutive blocks from
 * `block` (count * 8192 bytes).  Any failure makes the engine fall back to
 * read_block for those blocks, so errors stay per block. */
typedef int (*ossd_read_blocks_fn) (void *cb_arg, uint32_t target, uint32_t block,
                                    uint32_t count, void *pages, char *err, size_t errlen);
#define OSSD_SCAN_READ_BATCH 16

/* Optional in-place batch read, preferred to read_blocks: set pages[k]
 * (k < count) to block `block + k`, either in the reader's own memory (no
 * copy) or copied into scratch + k * 8192 (count * 8192 bytes); the pages
 * are read-only to the engine and stay valid and unchanged until it calls
 * release_blocks(cb_arg, token) after scanning them.  Integrity is the
 * reader's as for read_block (a corrupt page fails with -EBADMSG); any
 * other failure makes the engine fall back to read_block for those
 * blocks. */
/* page_ids[k]: an identity of page k's bytes that no other bytes carry
 * while the reader runs (struct ftl_pin.unit_id), or 0 when it has none
 * (a copied page): with a checksum cache the engine verifies an
 * identified page's checksum once (checksum_cache.c). */
typedef int (*ossd_map_blocks_fn) (void *cb_arg, uint32_t target, uint32_t block,
                                   uint32_t count, void *scratch, const uint8_t **pages,
                                   uint64_t *page_ids, void **token, char *err,
                                   size_t errlen);
typedef void (*ossd_release_blocks_fn) (void *cb_arg, void *token);

struct ossd_scan_chunk;
/* Result sink: called from one thread at a time; everything the chunk
 * points at is valid only during the call.  A negative return aborts the
 * scan with that error. */
typedef int (*ossd_sink_fn) (void *sink_arg, const struct ossd_scan_chunk *chunk);

/* A constant kernel argument (ossd_filter('k', col, 42)): its datum image
 * as PostgreSQL stores it -- by-value types their length in bytes
 * (little-endian), varlena types with their header. */
struct ossd_scan_const
{
  uint32_t type_oid;
  bool isnull;
  const uint8_t *img;
  uint32_t len;
};

struct ossd_scan_request
{
  uint32_t ntargets;
  const struct ossd_scan_target *targets;
  uint32_t natts;
  const struct ossd_scan_attr *attrs;  /* attrs[i] is attnum i+1 */
  uint32_t snapshot_xmin;

  uint32_t nbind;              /* ctx->col[i] = heap attribute bind[i] (1-based), */
  const uint16_t *bind;        /* or, where bind[i] is 0, the next constant */
  uint32_t nconst;             /* as many as bind[] has zeros */
  const struct ossd_scan_const *consts;
  struct ossd_scan_kernel filter;
  struct ossd_scan_kernel map;
  uint32_t nout;               /* map kernel output columns */
  const struct ossd_scan_outcol *outputs;
  uint32_t nproj;              /* then output columns nout.. = these heap */
  const uint16_t *proj;        /* attnums, as stored */

  uint32_t naggs;              /* aggregate mode when naggs or ngroup_by */
  const struct ossd_scan_agg *aggs;
  uint32_t ngroup_by;
  const uint32_t *group_by;    /* output column indexes */

  uint64_t limit;              /* rows mode: stop after this many rows (0 = none) */
  uint32_t max_groups;         /* per worker; 0 = 65536 */
  uint32_t workers;            /* 0/1 = one thread; at most OSSD_SCAN_MAX_WORKERS */
  int32_t worker_nice;         /* > 0: the worker threads' nice value (a
                                * low-priority scan gives way on the CPUs;
                                * docs/qos.md), the calling thread's too
                                * when one worker runs in it; 0: unchanged */
  uint32_t chunk_bytes;        /* target size of one chunk's rows; 0 = 64 KiB */
  bool data_checksums;         /* the cluster has data checksums: verify every
                                * page's pd_checksum before scanning it */
  struct ossd_checksum_cache *checksum_cache;  /* optional: pages verified
                                * before, by map_blocks' page ids */
  uint32_t njoin_filters;      /* join filters (ossd_join_filter.h), each */
  const struct ossd_join_filter *join_filters;  /* prepared; a row passing the
                                * filter kernel is dropped unless its key passes
                                * every one (step 5b) */

  ossd_read_block_fn read_block;
  ossd_read_blocks_fn read_blocks;   /* optional; same read_arg */
  ossd_map_blocks_fn map_blocks;     /* optional (with release_blocks); same read_arg */
  ossd_release_blocks_fn release_blocks;
  void *read_arg;
  ossd_sink_fn sink;
  void *sink_arg;
};
#define OSSD_SCAN_MAX_WORKERS 64
#define OSSD_SCAN_MAX_OUT OSSD_KCTX_MAX_OUT

/* Why a block went back to the host whole. */
enum ossd_host_block_reason
{
  OSSD_HB_READ_ERROR = 1, OSSD_HB_BAD_HEADER = 2, OSSD_HB_BAD_LINE_POINTER = 3,
  OSSD_HB_BAD_TUPLE = 4,
  OSSD_HB_CHECKSUM = 5,        /* data checksums on and the page fails its
                                * PostgreSQL checksum: the host reads it and
                                * reports it as PostgreSQL does */
};
/* Why a row went back (host row record `reason`). */
enum ossd_host_row_reason
{
  OSSD_HR_TOAST = 1,           /* compressed or external value referenced */
  OSSD_HR_KERNEL = 2,          /* a kernel returned OSSD_ROW_TO_HOST */
  OSSD_HR_OVERFLOW = 3,        /* numeric beyond 128 bits / NaN / Inf, or an
                                * aggregate state would overflow */
  OSSD_HR_GROUP_FULL = 4,      /* its group is not in the full group table
                                  (the scan engine then emits the table's
                                  groups and starts a new one) */
  OSSD_HR_BAD_DATA = 5,        /* attribute data runs past the tuple */
  OSSD_HR_MOVED = 6,           /* pre-9.0 HEAP_MOVED tuple, not frozen */
};
#define OSSD_HR_FLAG_FILTER_PASSED 0x8000   /* or-ed into reason */

struct ossd_host_block { uint32_t target; uint32_t block; uint32_t reason; };

struct ossd_scan_counters
{
  uint64_t blocks_scanned;     /* blocks parsed on the drive */
  uint64_t blocks_to_host;
  uint64_t tuples_seen;        /* LP_NORMAL tuples */
  uint64_t tuples_visible;     /* passed the MVCC rule */
  uint64_t tuples_matched;     /* passed filter and map */
  uint64_t rows_out;           /* packed rows produced */
  uint64_t rows_to_host;
  uint64_t groups_out;
  uint64_t bytes_read;
  uint64_t join_filter_dropped; /* rows a join filter dropped */
  uint64_t checksums_known;    /* pages whose checksum the cache vouched for */
  uint64_t checksums_verified; /* ... and pages verified and remembered */
};

/* One result chunk.  Any part may be empty.  The final call has last set
 * and carries the totals in `counters` (earlier chunks: zero). */
struct ossd_scan_chunk
{
  const uint8_t *rows;         /* packed rows */
  size_t rows_len;
  uint32_t row_count;
  const uint8_t *host_rows;    /* host row records */
  size_t host_rows_len;
  uint32_t host_row_count;
  const struct ossd_host_block *host_blocks;
  uint32_t host_block_count;
  const uint8_t *groups;       /* packed partial groups */
  size_t groups_len;
  uint32_t group_count;
  bool last;
  struct ossd_scan_counters counters;
};

/* Check a request without running it (types, indexes, aggregate inputs). */
int ossd_scan_validate (const struct ossd_scan_request *req, char *err, size_t errlen);
/* Run a scan to completion.  Returns 0 (the sink saw a last chunk) or a
 * negative errno with a message in err.  `totals` may be NULL. */
int ossd_scan_run (const struct ossd_scan_request *req, struct ossd_scan_counters *totals,
                   char *err, size_t errlen);

/* =====================================================================
 * Packed formats.  All integers little-endian; every record starts and
 * ends 8-byte aligned relative to the buffer start.
 *
 * Value encoding (one column value, used by rows, group keys, min/max):
 *   by-value (byval, len 1..8): 8 bytes = the Datum PostgreSQL 15 holds
 *     on a 64-bit machine: the stored bytes sign-extended (bool 0/1,
 *     int2/int4/date/float4-bits sign-extended as Int32GetDatum does,
 *     int8/float8/timestamp as is).  Host: tts_values[i] = that word.
 *   by-reference: u32 len, u32 0, then len bytes of the datum image,
 *     zero-padded to 8.  Varlena values are complete varlenas with a 1- or
 *     4-byte header, never compressed or external (host:
 *     PointerGetDatum(bytes); the bytes are 8-aligned).  Fixed-length
 *     by-ref types: attlen bytes; cstring: incl. the terminating NUL.
 *     Values the engine builds (group keys, min/max, map numeric output)
 *     always use a 4-byte varlena header; numerics it builds use the
 *     long format (valid everywhere in PostgreSQL).
 *
 * Packed row:
 *   u32 rec_len   (incl. this header and the tail padding; multiple of 8)
 *   u16 ncols     (output columns)
 *   u16 target
 *   u32 block     (relation block number = TID block)
 *   u16 offnum    (TID line pointer)
 *   u16 flags     (0)
 *   u8  nulls[(ncols+7)/8]  bit i set = column i IS NULL (opposite of
 *                           PostgreSQL's heap bitmap), padded to 8
 *   values of the non-null columns, in column order.
 *
 * Host row record (one per row handed back):
 *   u32 rec_len, u32 target, u32 block (relation block), u16 offnum,
 *   u16 reason (enum ossd_host_row_reason | OSSD_HR_FLAG_FILTER_PASSED),
 *   u32 tuple_len, u32 0, then tuple_len bytes: the heap tuple exactly as
 *   on the page (HeapTupleHeader first), padded to 8.
 *
 * Partial group:
 *   u32 rec_len, u16 nkeys, u16 naggs,
 *   u8 key_nulls[(nkeys+7)/8] padded to 8, key values (non-null, as above),
 *   then per aggregate a 32-byte state
 *     u8 kind, u8 flags (OSSD_AGGF_*), u16 0, i32 scale,
 *     i64 count    (count(*), count(x); number of non-null inputs for the others)
 *     u64 sum_lo, i64 sum_hi  (sum/avg: 128-bit two's complement integer,
 *                  value = sum * 10^-scale; OSSD_AGGF_FLOAT: sum_lo holds the
 *                  float8 bits of the sum and sum_hi is 0)
 *     followed, for min/max with OSSD_AGGF_HAS_VALUE, by one value
 *     (value encoding above, byval per the input column).
 * A query without GROUP BY yields exactly one group with nkeys 0 per worker
 * (count 0 when no row matched); the host combines partial groups with
 * equal keys.  Keys compare by exact bytes on the drive, so the host may see
 * one PostgreSQL group split into several partial groups (e.g. numeric 1.0
 * and 1.00, float 0 and -0, bpchar without typmod with different padding,
 * or the same key from two workers); it must merge them with PostgreSQL's
 * equality, never assume uniqueness.
 * ===================================================================== */
#define OSSD_AGGF_HAS_VALUE 0x01   /* min/max: value follows; sum: count > 0 */
#define OSSD_AGGF_FLOAT     0x02   /* sum/avg over float4/float8 */
#define OSSD_PACKED_ROW_HDR 16
#define OSSD_HOST_ROW_HDR   24
#define OSSD_GROUP_HDR       8
#define OSSD_AGG_STATE_SIZE 32

static inline uint32_t ossd_rd32 (const uint8_t *p) { uint32_t v; memcpy (&v, p, 4); return v; }
static inline uint16_t ossd_rd16 (const uint8_t *p) { uint16_t v; memcpy (&v, p, 2); return v; }
static inline uint64_t ossd_rd64 (const uint8_t *p) { uint64_t v; memcpy (&v, p, 8); return v; }
static inline size_t ossd_align8 (size_t n) { return (n + 7) & ~(size_t) 7; }

/* A decoded value: byval -> datum; by-ref -> data/len (datum image). */
struct ossd_value_view
{
  bool isnull;
  uint64_t datum;
  const uint8_t *data;
  uint32_t len;
};

/* Decode one value at buf[*pos] (bounded by end).  Returns 0 or -1. */
static inline int
ossd_value_read (const uint8_t *buf, size_t end, size_t *pos, bool byval,
                 struct ossd_value_view *v)
{
  v->isnull = false; v->datum = 0; v->data = NULL; v->len = 0;
  if (*pos + 8 > end)
    return -1;
  if (byval)
    {
      v->datum = ossd_rd64 (buf + *pos);
      *pos += 8;
      return 0;
    }
  v->len = ossd_rd32 (buf + *pos);
  if (v->len > end - *pos - 8 || ossd_align8 (v->len) > end - *pos - 8)
    return -1;
  v->data = buf + *pos + 8;
  *pos += 8 + ossd_align8 (v->len);
  return 0;
}

struct ossd_row_view
{
  uint16_t ncols, target;
  uint32_t block;
  uint16_t offnum;
};

/* Read the packed row at buf[*pos] into vals[0..ncols-1]; byval[i] tells
 * how column i is encoded.  Advances *pos.  Returns 1 for a row, 0 at the
 * end of the buffer, -1 on a malformed record. */
static inline int
ossd_row_read (const uint8_t *buf, size_t len, size_t *pos, uint16_t ncols,
               const bool *byval, struct ossd_row_view *row, struct ossd_value_view *vals)
{
  if (*pos >= len)
    return 0;
  if (len - *pos < OSSD_PACKED_ROW_HDR)
    return -1;
  const uint8_t *r = buf + *pos;
  uint32_t rec_len = ossd_rd32 (r);
  if (rec_len < OSSD_PACKED_ROW_HDR || rec_len > len - *pos || (rec_len & 7))
    return -1;
  row->ncols = ossd_rd16 (r + 4);
  row->target = ossd_rd16 (r + 6);
  row->block = ossd_rd32 (r + 8);
  row->offnum = ossd_rd16 (r + 12);
  if (row->ncols != ncols)
    return -1;
  size_t p = OSSD_PACKED_ROW_HDR, nb = ((size_t) ncols + 7) / 8;
  if (p + ossd_align8 (nb) > rec_len)
    return -1;
  const uint8_t *nulls = r + p;
  p += ossd_align8 (nb);
  for (uint16_t i = 0; i < ncols; i++)
    {
      if (nulls[i >> 3] & (1u << (i & 7)))
        {
          vals[i] = (struct ossd_value_view) { .isnull = true };
          continue;
        }
      if (ossd_value_read (r, rec_len, &p, byval[i], &vals[i]) < 0)
        return -1;
    }
  *pos += rec_len;
  return 1;
}

struct ossd_host_row_view
{
  uint32_t target, block;
  uint16_t offnum, reason;
  const uint8_t *tuple;
  uint32_t tuple_len;
};

/* Read one host row record.  Returns 1, 0 at the end, -1 if malformed. */
static inline int
ossd_host_row_read (const uint8_t *buf, size_t len, size_t *pos, struct ossd_host_row_view *h)
{
  if (*pos >= len)
    return 0;
  if (len - *pos < OSSD_HOST_ROW_HDR)
    return -1;
  const uint8_t *r = buf + *pos;
  uint32_t rec_len = ossd_rd32 (r);
  if (rec_len < OSSD_HOST_ROW_HDR || rec_len > len - *pos || (rec_len & 7))
    return -1;
  h->target = ossd_rd32 (r + 4);
  h->block = ossd_rd32 (r + 8);
  h->offnum = ossd_rd16 (r + 12);
  h->reason = ossd_rd16 (r + 14);
  h->tuple_len = ossd_rd32 (r + 16);
  if (h->tuple_len > rec_len - OSSD_HOST_ROW_HDR)
    return -1;
  h->tuple = r + OSSD_HOST_ROW_HDR;
  *pos += rec_len;
  return 1;
}

struct ossd_agg_state_view
{
  uint8_t kind, flags;
  int32_t scale;
  int64_t count;
  uint64_t sum_lo;
  int64_t sum_hi;
  struct ossd_value_view value;  /* min/max with OSSD_AGGF_HAS_VALUE */
};

/* Read one partial group.  key_byval[nkeys], agg_byval[naggs] (the min/max
 * input column's byval; ignored for other kinds).  Returns 1, 0, -1. */
static inline int
ossd_group_read (const uint8_t *buf, size_t len, size_t *pos, uint16_t nkeys,
                 const bool *key_byval, struct ossd_value_view *keys, uint16_t naggs,
                 const bool *agg_byval, struct ossd_agg_state_view *aggs)
{
  if (*pos >= len)
    return 0;
  if (len - *pos < OSSD_GROUP_HDR)
    return -1;
  const uint8_t *r = buf + *pos;
  uint32_t rec_len = ossd_rd32 (r);
  if (rec_len < OSSD_GROUP_HDR || rec_len > len - *pos || (rec_len & 7))
    return -1;
  if (ossd_rd16 (r + 4) != nkeys || ossd_rd16 (r + 6) != naggs)
    return -1;
  size_t p = OSSD_GROUP_HDR, nb = ((size_t) nkeys + 7) / 8;
  if (p + ossd_align8 (nb) > rec_len)
    return -1;
  const uint8_t *nulls = r + p;
  p += ossd_align8 (nb);
  for (uint16_t i = 0; i < nkeys; i++)
    {
      if (nulls[i >> 3] & (1u << (i & 7)))
        keys[i] = (struct ossd_value_view) { .isnull = true };
      else if (ossd_value_read (r, rec_len, &p, key_byval[i], &keys[i]) < 0)
        return -1;
    }
  for (uint16_t a = 0; a < naggs; a++)
    {
      struct ossd_agg_state_view *s = &aggs[a];
      if (p + OSSD_AGG_STATE_SIZE > rec_len)
        return -1;
      s->kind = r[p];
      s->flags = r[p + 1];
      s->scale = (int32_t) ossd_rd32 (r + p + 4);
      s->count = (int64_t) ossd_rd64 (r + p + 8);
      s->sum_lo = ossd_rd64 (r + p + 16);
      s->sum_hi = (int64_t) ossd_rd64 (r + p + 24);
      p += OSSD_AGG_STATE_SIZE;
      s->value = (struct ossd_value_view) { .isnull = true };
      if ((s->kind == OSSD_AGG_MIN || s->kind == OSSD_AGG_MAX)
          && (s->flags & OSSD_AGGF_HAS_VALUE)
          && ossd_value_read (r, rec_len, &p, agg_byval[a], &s->value) < 0)
        return -1;
    }
  *pos += rec_len;
  return 1;
}

/* PostgreSQL's page checksum (storage/checksum_impl.h's algorithm) of an
 * 8 KiB page at relation block blkno, pd_checksum taken as zero. */
uint16_t ossd_pg_checksum_page (const uint8_t *page, uint32_t blkno);
/* With data checksums: false if a page that is not new (PageIsNew) has a
 * pd_checksum other than ossd_pg_checksum_page. */
bool ossd_pg_checksum_ok (const uint8_t *page, uint32_t blkno);

/* The pages (identified as map_blocks names them) whose checksum at a
 * block number was verified good (checksum_cache.c).  Sized for `pages`
 * pages, at most OSSD_CHECKSUM_CACHE_MAX entries of 8 bytes; safe from any
 * number of threads. */
#define OSSD_CHECKSUM_CACHE_MAX (1u << 21)
struct ossd_checksum_cache;
int ossd_checksum_cache_new (uint64_t pages, struct ossd_checksum_cache **out);
void ossd_checksum_cache_free (struct ossd_checksum_cache *c);
bool ossd_checksum_cache_known (struct ossd_checksum_cache *c, uint64_t page_id,
                                uint32_t blkno);
/* A hint: the entry of (page_id, blkno) is about to be looked up. */
void ossd_checksum_cache_prefetch (const struct ossd_checksum_cache *c, uint64_t page_id,
                                   uint32_t blkno);
void ossd_checksum_cache_note (struct ossd_checksum_cache *c, uint64_t page_id,
                               uint32_t blkno);

/* =====================================================================
 * Engine-internal interfaces (heap_page.c, heap_deform.c, row_format.c,
 * partial_agg.c, scan_engine.c).  Exposed for the unit tests; pg_ossd
 * does not need them.
 * ===================================================================== */
/* The signature of ossd_bind_fused (below, internal) and of the
 * JIT-compiled deform with its contract (ossd_jit.h, ossd_jit_deform_fn). */
struct ossd_bind_prog;
struct ossd_col;
struct ossd_numeric;
struct ossd_datum;
typedef int (*ossd_bind_fn) (const struct ossd_bind_prog *p, const uint8_t *tup,
                             uint32_t tuplen, struct ossd_col *cols,
                             struct ossd_numeric *nums, struct ossd_datum *datums);

#ifdef OSSD_SCAN_INTERNAL

/* A float4 Datum as kernels and aggregates take it: float8 bits (the
 * generic bind in scan_engine.c and the fused one in tuple_bind.c). */
static inline uint64_t
float4_widened (uint64_t datum)
{
  float f;
  uint32_t bits = (uint32_t) datum;
  memcpy (&f, &bits, 4);
  double x = f;
  uint64_t out;
  memcpy (&out, &x, 8);
  return out;
}

/* ---- heap_page.c ---- */
/* Validate a whole page: header, every line pointer, every LP_NORMAL
 * tuple header.  0, or -EINVAL with "block B: ..." / "block B lp N: ..."
 * in err; *reason gets the OSSD_HB_* code. */
int ossd_page_check (const uint8_t *page, uint32_t block, uint32_t *reason,
                     char *err, size_t errlen);
/* Number of line pointers of a checked page. */
unsigned ossd_page_max_offnum (const uint8_t *page);
/* Line pointer `offnum` (1-based) of a checked page: its flags; for
 * LP_NORMAL, tup and tuplen are set. */
unsigned ossd_page_item (const uint8_t *page, unsigned offnum, const uint8_t **tup,
                         uint32_t *tuplen);
/* The offset an LP_REDIRECT line pointer `offnum` points to (unchecked). */
unsigned ossd_page_redirect_target (const uint8_t *page, unsigned offnum);
enum ossd_visibility { OSSD_VIS_SKIP = 0, OSSD_VIS_COUNT = 1, OSSD_VIS_HOST = 2 };
/* The MVCC rule of DESIGN.md on a tuple header. */
enum ossd_visibility ossd_tuple_visibility (const uint8_t *tup, uint32_t snapshot_xmin);
bool ossd_xid_precedes (uint32_t a, uint32_t b);

/* ---- heap_deform.c ---- */
#define OSSD_DF_COMPRESSED 0x01
#define OSSD_DF_EXTERNAL   0x02
struct ossd_datum
{
  bool isnull;
  uint8_t flags;               /* OSSD_DF_* */
  uint64_t datum;              /* byval: the Datum (sign-extended) */
  const uint8_t *ptr;          /* by-ref: datum image (varlena incl. header) */
  uint32_t len;                /* by-ref: image length */
};
/* Deform attributes 1..upto of a tuple into out[0..upto-1]; only entries
 * with want[i] set are guaranteed filled (others may be skipped over).
 * Returns 0 or -EINVAL (data past the tuple) with "attnum N: ..." in err. */
int ossd_deform (const uint8_t *tup, uint32_t tuplen, const struct ossd_scan_attr *attrs,
                 uint32_t natts, uint32_t upto, const bool *want, struct ossd_datum *out,
                 char *err, size_t errlen);
/* The same for every tuple of one scan, planned once: leading
 * fixed-length attributes at precomputed offsets, no null or missing
 * checks for tuples without nulls; other tuples go through ossd_deform.
 * attrs and want must outlive the plan. */
struct ossd_deform_step
{
  int16_t len;
  uint8_t align;
  uint8_t flags;
  uint32_t fixed_off;          /* from t_hoff, for the first nfixed steps */
};
struct ossd_deform_plan
{
  const struct ossd_scan_attr *attrs;
  const bool *want;
  uint32_t natts, upto;
  uint32_t nfixed, fixed_end;
  struct ossd_deform_step *steps;
};
int ossd_deform_plan_init (struct ossd_deform_plan *p, const struct ossd_scan_attr *attrs,
                           uint32_t natts, uint32_t upto, const bool *want);
void ossd_deform_plan_free (struct ossd_deform_plan *p);
int ossd_deform_planned (const struct ossd_deform_plan *p, const uint8_t *tup, uint32_t tuplen,
                         struct ossd_datum *out, char *err, size_t errlen);
/* Size of the varlena image at p as its header gives it (0 if malformed
 * or longer than avail for a 1-byte header); flags gets OSSD_DF_*. */
uint32_t ossd_varlena_image_size (const uint8_t *p, uint32_t avail, uint8_t *flags);
/* Varlena payload (without header) of an uncompressed, non-external image. */
static inline void
ossd_varlena_payload (const uint8_t *img, uint32_t imglen, const uint8_t **data,
                      uint32_t *len)
{
  if (imglen >= 1 && (img[0] & 0x01))
    {
      *data = img + 1;
      *len = imglen - 1;
    }
  else
    {
      *data = img + 4;
      *len = imglen >= 4 ? imglen - 4 : 0;
    }
}
/* NUMERIC conversions come from ossd_rt.h (ossd_numeric_from_pg,
 * ossd_numeric_to_pg in numeric_pg.c). */
/* Map an engine type OID to the kernel ABI's tag (OSSD_T_NONE if unknown). */
uint8_t ossd_type_tag_of (uint32_t type_oid);

/* ---- tuple_bind.c ---- */
/* Kernel column c (of type tag) from a deformed datum d of an attribute
 * (or constant) shaped like a; a NUMERIC goes to *num, converted now or,
 * with lazy_numeric, when a kernel first reads it.  0 or an OSSD_HR_*
 * reason (a toasted value, a numeric that does not convert). */
int ossd_bind_datum (struct ossd_col *c, uint8_t tag, const struct ossd_datum *d,
                     const struct ossd_scan_attr *a, struct ossd_numeric *num,
                     bool lazy_numeric);
/* The fused deform + bind program of one scan (tuple_bind.c): compiled
 * once from the request, run per tuple. */
struct ossd_bind_sink
{
  uint8_t col;                 /* ctx->col[] index */
  uint8_t op;                  /* how the value is written (tuple_bind.c) */
  uint8_t tag;                 /* enum ossd_type_tag */
};
struct ossd_bind_step
{
  uint32_t fixed_off;          /* from t_hoff, or UINT32_MAX: walked */
  int16_t len;
  uint8_t align;
  uint8_t walk;                /* how the attribute is found (tuple_bind.c) */
  uint8_t sink;                /* what it writes: one column's op, or many */
  uint8_t col, tag;            /* that one column */
  bool byval;
  bool put_datum;              /* also fill datums[attno] */
  uint8_t nsinks;
  uint16_t attno;              /* 0-based */
  uint16_t first_sink;
  uint16_t count;              /* varlenas skipped by one step */
};
struct ossd_bind_prog
{
  uint32_t upto;               /* attributes 1..upto */
  uint32_t fixed_end;          /* end of the fixed-offset prefix, from t_hoff */
  uint32_t nsteps, nsinks;
  struct ossd_bind_step *steps;
  struct ossd_bind_sink *sinks;
};
/* Compile: bind[k] (1-based attnum, 0 = a constant, skipped) goes to
 * column k with type tag bind_tag[k]; put_datum[i] asks for datums[i]
 * too.  0 or -ENOMEM. */
int ossd_bind_prog_init (struct ossd_bind_prog *p, const struct ossd_scan_attr *attrs,
                         uint32_t natts, uint32_t upto, const uint16_t *bind, uint32_t nbind,
                         const uint8_t *bind_tag, bool lazy_numeric, const bool *put_datum);
void ossd_bind_prog_free (struct ossd_bind_prog *p);
/* Same program (field by field)?  And a private copy of one (0 or
 * -ENOMEM; free it with ossd_bind_prog_free). */
bool ossd_bind_prog_equal (const struct ossd_bind_prog *a, const struct ossd_bind_prog *b);
int ossd_bind_prog_copy (struct ossd_bind_prog *dst, const struct ossd_bind_prog *src);
/* Run on one tuple: 0 with cols[], nums[] and the asked datums[] written
 * exactly as ossd_deform_planned + ossd_bind_datum would, or 1 when the
 * tuple needs that generic path (nulls, missing attributes, a toasted,
 * malformed or truncated value, a numeric that does not convert). */
int ossd_bind_fused (const struct ossd_bind_prog *p, const uint8_t *tup, uint32_t tuplen,
                     struct ossd_col *cols, struct ossd_numeric *nums,
                     struct ossd_datum *datums);

/* ---- row_format.c ---- */
struct ossd_buf
{
  uint8_t *data;
  size_t len, cap;
};
int ossd_buf_reserve (struct ossd_buf *b, size_t more);
void ossd_buf_free (struct ossd_buf *b);
/* An output value ready for encoding. */
struct ossd_outval
{
  bool isnull;
  bool byval;
  uint64_t datum;              /* byval */
  const uint8_t *ptr;          /* by-ref image ... */
  uint32_t len;
  const uint8_t *payload;      /* ... or, when set, a varlena payload the
                                * encoder wraps in a 4-byte header */
};
int ossd_value_append (struct ossd_buf *b, const struct ossd_outval *v);
int ossd_row_append (struct ossd_buf *b, uint16_t target, uint32_t block, uint16_t offnum,
                     uint16_t ncols, const struct ossd_outval *vals);
int ossd_host_row_append (struct ossd_buf *b, uint32_t target, uint32_t block, uint16_t offnum,
                          uint16_t reason, const uint8_t *tup, uint32_t tuplen);

/* ---- partial_agg.c ---- */
struct ossd_agg_table;
/* The typed input of one aggregate / one group key, as the engine hands it. */
struct ossd_agg_input
{
  bool isnull;
  uint8_t tag;                 /* enum ossd_type_tag */
  uint64_t value;              /* ints/date/timestamp sign-extended; floats: float8 bits */
  struct ossd_numeric num;     /* numeric */
  const uint8_t *payload;      /* text-like and other by-ref: bytes (no header) */
  uint32_t len;
};
struct ossd_agg_table *ossd_agg_table_new (uint32_t naggs, const struct ossd_scan_agg *aggs,
                                           const uint8_t *agg_tags, uint32_t nkeys,
                                           const uint8_t *key_tags, const bool *key_byval,
                                           const bool *key_varlena, uint32_t max_groups);
void ossd_agg_table_free (struct ossd_agg_table *t);
/* Drop every group of a keyed table (after they were emitted). */
void ossd_agg_table_reset (struct ossd_agg_table *t);
/* Accumulate one row: 0 done, OSSD_HR_GROUP_FULL or OSSD_HR_OVERFLOW (row
 * not applied at all: hand it to the host), -ENOMEM. */
int ossd_agg_table_add (struct ossd_agg_table *t, const struct ossd_agg_input *keys,
                        const struct ossd_agg_input *inputs);
uint32_t ossd_agg_table_groups (const struct ossd_agg_table *t);
/* Encode groups [from, ...) into b until b reaches `budget` bytes; returns
 * the index after the last group written (or -ENOMEM). */
long ossd_agg_table_emit (const struct ossd_agg_table *t, uint32_t from, struct ossd_buf *b,
                          size_t budget);
bool ossd_agg_tag_sum_ok (uint8_t tag);
bool ossd_agg_tag_minmax_ok (uint8_t tag);
bool ossd_agg_tag_key_ok (uint8_t tag);

#endif /* OSSD_SCAN_INTERNAL */

#endif /* OSSD_SCAN_H */
