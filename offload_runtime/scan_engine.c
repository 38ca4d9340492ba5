/* scan_engine.c - drives a SCAN: validates the request, splits the block
 * ranges across worker threads, and per tuple applies the MVCC rule,
 * deforms the referenced attributes, binds kernel columns, runs the filter
 * and map kernels, and produces packed rows or partial aggregates, handing
 * undecidable rows and unparsable blocks back to the host.
 *
 * Threads: the block ranges are cut into batches of OSSD_SCAN_BATCH blocks
 * which workers take from a shared atomic cursor.  Each worker keeps its
 * own chunk buffers, kernel states and group table; the sink is called
 * under one mutex, so from one thread at a time.  A limit is enforced with
 * a shared atomic row counter: exactly min(limit, matches) rows are
 * produced and all workers stop once it is reached.  With aggregates each
 * worker emits its own partial groups after the scan (the host merges
 * partial groups anyway).  No global mutable state: everything hangs off
 * the per-scan `struct scan` on the caller's stack.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_rt.h"
#include "ossd_scan.h"
#include "ossd_jit.h"

#define OSSD_SCAN_BATCH 32          /* blocks per work item */
/* A worker thread is started only for this many work items (128 blocks,
 * 1 MiB): a thread costs ~50 us to start and join, what a worker takes to
 * scan ~12 blocks, so a small scan runs faster on fewer threads. */
#define OSSD_SCAN_ITEMS_PER_WORKER 4
#define OSSD_SCAN_MAX_HOST_BLOCKS 256 /* per chunk */
#define OSSD_NUMERIC_IMG_MAX OSSD_NUMERIC_PG_MAXLEN

/* tid_pos: byte position in the target's tuple_offsets of the first
 * block's count (UINT32_MAX: the target has none) */
struct work_item { uint32_t target, start, count, tid_pos; };

struct scan
{
  const struct ossd_scan_request *req;
  struct work_item *work;
  size_t nwork;
  atomic_size_t next_work;
  atomic_bool stop;
  atomic_uint_fast64_t rows_reserved;
  pthread_mutex_t sink_mu;
  int error;                   /* first error, under sink_mu */
  char *err;
  size_t errlen;
  /* derived from the request */
  bool agg_mode;
  uint32_t ncols;              /* output columns */
  uint32_t upto;               /* deform attributes 1..upto */
  bool *want;                  /* [natts] */
  struct ossd_deform_plan deform;
  struct ossd_bind_prog fused;  /* deform + bind of the common tuple */
  ossd_bind_fn bind;           /* runs it: ossd_bind_fused, or the JIT-compiled
                                * deform of a JIT kernel's scan */
  struct ossd_jit_deform *jit_deform;  /* that deform's reference */
  bool lazy_numeric;           /* every kernel converts bound numerics itself */
  uint8_t bind_tag[OSSD_KCTX_MAX_COLS];
  uint8_t out_tag[OSSD_SCAN_MAX_OUT];
  bool out_byval[OSSD_SCAN_MAX_OUT];
  uint8_t agg_tag[OSSD_SCAN_MAX_OUT * 2];
  uint8_t key_tag[OSSD_SCAN_MAX_OUT];
  bool key_byval[OSSD_SCAN_MAX_OUT], key_varlena[OSSD_SCAN_MAX_OUT];
  bool out_key[OSSD_SCAN_MAX_OUT];  /* output column i is a group key */
  size_t chunk_bytes;
};

struct worker
{
  struct scan *sc;
  pthread_t tid;
  _Alignas (8) uint8_t page[OSSD_PG_BLCKSZ];
  uint8_t *batch;              /* OSSD_SCAN_READ_BATCH pages (read_blocks) */
  struct ossd_datum *datums;
  struct ossd_kctx ctx;
  struct ossd_numeric bind_num[OSSD_KCTX_MAX_COLS];
  int const_reason;            /* OSSD_HR_* if a constant could not be bound */
  void *fstate, *mstate;
  struct ossd_buf rows, hrows;
  uint32_t row_count, hrow_count;
  struct ossd_host_block hblocks[OSSD_SCAN_MAX_HOST_BLOCKS];
  uint32_t nhblocks;
  struct ossd_scan_counters cnt;
  struct ossd_agg_table *agg;
  struct ossd_outval outv[OSSD_SCAN_MAX_OUT];
  uint8_t outnum[OSSD_SCAN_MAX_OUT][OSSD_NUMERIC_IMG_MAX];
  struct ossd_agg_input keys[OSSD_SCAN_MAX_OUT];
  struct ossd_agg_input ins[OSSD_SCAN_MAX_OUT * 2];
  struct ossd_agg_input colin[OSSD_SCAN_MAX_OUT];   /* output columns as agg inputs */
  uint32_t jf_probes[OSSD_JF_MAX_FILTERS];          /* rows a join filter judged */
  uint32_t jf_drops[OSSD_JF_MAX_FILTERS];
  bool jf_off[OSSD_JF_MAX_FILTERS];                 /* it dropped too few: stopped */
  uint64_t flush_due_ns;        /* a time-based flush of what rows there are */
  uint64_t flush_gap_ns;        /* ... and the gap to the next one */
  char msg[256];
};

static void
set_error (struct scan *sc, int rc, const char *fmt, ...)
{
  pthread_mutex_lock (&sc->sink_mu);
  if (!sc->error)
    {
      sc->error = rc;
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (sc->err, sc->errlen, fmt, ap);
      va_end (ap);
    }
  pthread_mutex_unlock (&sc->sink_mu);
  atomic_store (&sc->stop, true);
}

/* ------------------------------------------------------------------ */
/* validation                                                          */

#define VFAIL(...) do { snprintf (err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

static bool
is_varlena_tag (uint8_t tag)
{
  return tag == OSSD_T_TEXT || tag == OSSD_T_VARCHAR || tag == OSSD_T_BPCHAR
    || tag == OSSD_T_BYTEA || tag == OSSD_T_NUMERIC;
}

/* How many of the output columns the map kernel writes: its outputs
 * come first, the projected heap attributes after them. */
static uint32_t
map_out_columns (const struct ossd_scan_request *r)
{
  return r->map.exec ? r->nout : 0;
}

/* Tag and byval of output column i. */
static void
out_shape (const struct ossd_scan_request *r, uint32_t i, uint8_t *tag, bool *byval)
{
  if (i < map_out_columns (r))
    {
      *tag = ossd_type_tag_of (r->outputs[i].type_oid);
      *byval = r->outputs[i].byval;
    }
  else
    {
      const struct ossd_scan_attr *a = &r->attrs[r->proj[i - map_out_columns (r)] - 1];
      *tag = ossd_type_tag_of (a->type_oid);
      *byval = a->byval;
    }
}

/* Storage shape of a constant's type (attlen, byval, align as heap
 * attributes have them); false for types kernels cannot take. */
static bool
const_shape (uint32_t type_oid, struct ossd_scan_attr *a)
{
  *a = (struct ossd_scan_attr) { .type_oid = type_oid, .align = 1 };
  switch (ossd_type_tag_of (type_oid))
    {
    case OSSD_T_BOOL: case OSSD_T_CHAR: a->len = 1; a->byval = true; return true;
    case OSSD_T_INT2: a->len = 2; a->byval = true; return true;
    case OSSD_T_INT4: case OSSD_T_DATE: case OSSD_T_OID: case OSSD_T_FLOAT4:
      a->len = 4; a->byval = true; return true;
    case OSSD_T_INT8: case OSSD_T_FLOAT8: case OSSD_T_TIMESTAMP: case OSSD_T_TIMESTAMPTZ:
      a->len = 8; a->byval = true; return true;
    case OSSD_T_NUMERIC: case OSSD_T_TEXT: case OSSD_T_BPCHAR: case OSSD_T_VARCHAR:
    case OSSD_T_BYTEA:
      a->len = -1; return true;
    case OSSD_T_NAME: a->len = 64; return true;
    default: return false;
    }
}

/* The heap attribute a join filter's key is read from has the type its
 * normalisation is for (ossd_join_filter.h). */
static bool
join_key_type_ok (uint8_t key_kind, const struct ossd_scan_attr *a)
{
  switch (key_kind)
    {
    case OSSD_JF_KEY_INT:
      return a->byval && ((a->type_oid == OSSD_PG_INT2OID && a->len == 2)
                           || (a->type_oid == OSSD_PG_INT4OID && a->len == 4)
                           || (a->type_oid == OSSD_PG_DATEOID && a->len == 4)
                           || (a->type_oid == OSSD_PG_INT8OID && a->len == 8));
    case OSSD_JF_KEY_BYTES:
      return a->len == -1 && (a->type_oid == OSSD_PG_TEXTOID || a->type_oid == OSSD_PG_VARCHAROID);
    case OSSD_JF_KEY_BPCHAR:
      return a->len == -1 && a->type_oid == OSSD_PG_BPCHAROID;
    default:
      return false;
    }
}

/* A target's tuple offsets are well formed: one list per block of its
 * ranges, each ascending within 1..OSSD_PG_MAX_HEAP_TUPLES, using up the
 * bytes exactly. */
static int
tuple_offsets_check (const struct ossd_scan_target *t, char *why, size_t whylen)
{
  uint32_t pos = 0;

  if (!t->tuple_offsets)
    {
      snprintf (why, whylen, "%u bytes without data", t->tuple_offsets_len);
      return -1;
    }
  for (uint32_t k = 0; k < t->nranges; k++)
    for (uint32_t b = 0; b < t->ranges[k].count; b++)
      {
        if ((uint64_t) pos + 2 > t->tuple_offsets_len)
          {
            snprintf (why, whylen, "%u bytes end before block %u", t->tuple_offsets_len,
                      t->ranges[k].start + b);
            return -1;
          }
        uint32_t n = ossd_rd16 (t->tuple_offsets + pos);
        pos += 2;
        if (n > OSSD_PG_MAX_HEAP_TUPLES || (uint64_t) pos + 2u * n > t->tuple_offsets_len)
          {
            snprintf (why, whylen, "block %u: %u offsets do not fit", t->ranges[k].start + b, n);
            return -1;
          }
        for (uint32_t i = 0, prev = 0; i < n; i++)
          {
            uint32_t off = ossd_rd16 (t->tuple_offsets + pos + 2 * i);
            if (off <= prev || off > OSSD_PG_MAX_HEAP_TUPLES)
              {
                snprintf (why, whylen, "block %u: offset %u after %u is out of order or range",
                          t->ranges[k].start + b, off, prev);
                return -1;
              }
            prev = off;
          }
        pos += 2 * n;
      }
  if (pos != t->tuple_offsets_len)
    {
      snprintf (why, whylen, "%u bytes for lists of %u", t->tuple_offsets_len, pos);
      return -1;
    }
  return 0;
}

int
ossd_scan_validate (const struct ossd_scan_request *r, char *err, size_t errlen)
{
  if (!r->read_block || !r->sink)
    VFAIL ("scan: read_block and sink callbacks are required");
  if (!r->map_blocks != !r->release_blocks)
    VFAIL ("scan: map_blocks and release_blocks go together");
  if (r->ntargets > UINT16_MAX || (r->ntargets && !r->targets))
    VFAIL ("scan: bad target list (%u targets)", r->ntargets);
  if (r->natts > OSSD_PG_MAX_ATTRS || (r->natts && !r->attrs))
    VFAIL ("scan: bad tuple descriptor (%u attributes)", r->natts);
  if (r->snapshot_xmin < OSSD_PG_FIRST_NORMAL_XID)
    VFAIL ("scan: snapshot xmin %u is not a normal transaction id", r->snapshot_xmin);
  if (r->workers > OSSD_SCAN_MAX_WORKERS)
    VFAIL ("scan: %u workers (max %u)", r->workers, OSSD_SCAN_MAX_WORKERS);
  for (uint32_t i = 0; i < r->natts; i++)
    {
      const struct ossd_scan_attr *a = &r->attrs[i];
      if (!(a->len > 0 || a->len == -1 || a->len == -2))
        VFAIL ("attnum %u: bad attlen %d", i + 1, a->len);
      if (a->align != 1 && a->align != 2 && a->align != 4 && a->align != 8)
        VFAIL ("attnum %u: bad alignment %u", i + 1, a->align);
      if (a->byval && a->len != 1 && a->len != 2 && a->len != 4 && a->len != 8)
        VFAIL ("attnum %u: by-value attribute of length %d", i + 1, a->len);
      if (a->has_missing && !a->missing_null && !a->dropped)
        {
          if (!a->missing)
            VFAIL ("attnum %u: missing value without data", i + 1);
          if (a->len > 0 && a->missing_len != (uint32_t) a->len)
            VFAIL ("attnum %u: missing value of %u bytes for attlen %d", i + 1,
                   a->missing_len, a->len);
        }
    }
  for (uint32_t t = 0; t < r->ntargets; t++)
    {
      const struct ossd_scan_target *tg = &r->targets[t];
      if (tg->nranges && !tg->ranges)
        VFAIL ("target %u: no ranges", t);
      if (tg->tuple_offsets || tg->tuple_offsets_len)
        {
          char why[160];
          if (tuple_offsets_check (tg, why, sizeof why) < 0)
            VFAIL ("target %u: tuple offsets: %s", t, why);
        }
    }
  if (r->nbind > OSSD_KCTX_MAX_COLS || (r->nbind && !r->bind))
    VFAIL ("scan: %u bound columns (max %u)", r->nbind, OSSD_KCTX_MAX_COLS);
  uint32_t nzero = 0;
  for (uint32_t i = 0; i < r->nbind; i++)
    if (r->bind[i] == 0)
      nzero++;
  if (nzero != r->nconst || (r->nconst && !r->consts))
    VFAIL ("scan: %u constant bindings for %u constants", nzero, r->nconst);
  for (uint32_t k = 0; k < r->nconst; k++)
    {
      const struct ossd_scan_const *c = &r->consts[k];
      struct ossd_scan_attr a;
      if (!const_shape (c->type_oid, &a))
        VFAIL ("constant %u: unsupported type %u", k, c->type_oid);
      if (c->isnull)
        continue;
      if (!c->img || (a.len > 0 && c->len != (uint32_t) a.len))
        VFAIL ("constant %u: %u bytes for a type of length %d", k, c->len, a.len);
      uint8_t flags = 0;
      if (a.len == -1 && (c->len == 0 || ossd_varlena_image_size (c->img, c->len, &flags) != c->len
                          || flags))
        VFAIL ("constant %u: malformed, compressed or external varlena image", k);
    }
  for (uint32_t i = 0; i < r->nbind; i++)
    {
      uint32_t an = r->bind[i];
      if (an == 0)
        continue;
      if (an < 1 || an > r->natts)
        VFAIL ("binding %u: attnum %u out of range", i, an);
      const struct ossd_scan_attr *a = &r->attrs[an - 1];
      if (a->dropped)
        VFAIL ("binding %u: attnum %u is dropped", i, an);
      if (ossd_type_tag_of (a->type_oid) == OSSD_T_NONE || a->len == -2)
        VFAIL ("binding %u: attnum %u has unsupported type %u", i, an, a->type_oid);
    }
  uint32_t ncols = 0;
  if (r->map.exec)
    {
      if (r->nout < 1 || r->nout > OSSD_KCTX_MAX_OUT || !r->outputs)
        VFAIL ("scan: map kernel with %u output columns (1..%u)", r->nout, OSSD_KCTX_MAX_OUT);
      for (uint32_t i = 0; i < r->nout; i++)
        {
          const struct ossd_scan_outcol *o = &r->outputs[i];
          uint8_t tag = ossd_type_tag_of (o->type_oid);
          bool fixed = o->byval && (o->len == 1 || o->len == 2 || o->len == 4 || o->len == 8);
          if (tag == OSSD_T_NONE || (!fixed && tag != OSSD_T_NUMERIC))
            VFAIL ("output %u: type %u cannot be produced by a map kernel", i, o->type_oid);
        }
      ncols = r->nout;
    }
  /* projected attributes: the output columns without a map kernel, the
   * ones after its outputs with one (a text group key beside computed
   * aggregate inputs) */
  if (r->nproj > OSSD_SCAN_MAX_OUT - ncols || (r->nproj && !r->proj))
    VFAIL ("scan: %u projected columns beside %u computed (max %u in all)", r->nproj,
           ncols, OSSD_SCAN_MAX_OUT);
  for (uint32_t i = 0; i < r->nproj; i++)
    if (r->proj[i] < 1 || r->proj[i] > r->natts || r->attrs[r->proj[i] - 1].dropped)
      VFAIL ("projection %u: attnum %u out of range or dropped", i, r->proj[i]);
  ncols += r->nproj;
  if (r->naggs > OSSD_SCAN_MAX_OUT * 2 || (r->naggs && !r->aggs))
    VFAIL ("scan: %u aggregates (max %u)", r->naggs, OSSD_SCAN_MAX_OUT * 2);
  for (uint32_t i = 0; i < r->naggs; i++)
    {
      const struct ossd_scan_agg *ag = &r->aggs[i];
      if (ag->kind > OSSD_AGG_MAX)
        VFAIL ("aggregate %u: unknown kind %u", i, ag->kind);
      if (ag->kind == OSSD_AGG_COUNT_STAR)
        continue;
      if (ag->input >= ncols)
        VFAIL ("aggregate %u: input column %u of %u", i, ag->input, ncols);
      uint8_t tag;
      bool byval;
      out_shape (r, ag->input, &tag, &byval);
      if ((ag->kind == OSSD_AGG_SUM || ag->kind == OSSD_AGG_AVG) && !ossd_agg_tag_sum_ok (tag))
        VFAIL ("aggregate %u: sum/avg over unsupported type (tag %u)", i, tag);
      if ((ag->kind == OSSD_AGG_MIN || ag->kind == OSSD_AGG_MAX) && !ossd_agg_tag_minmax_ok (tag))
        VFAIL ("aggregate %u: min/max over unsupported type (tag %u)", i, tag);
      if (ag->kind == OSSD_AGG_COUNT && tag == OSSD_T_NONE && byval)
        continue;
    }
  if (r->njoin_filters > OSSD_JF_MAX_FILTERS || (r->njoin_filters && !r->join_filters))
    VFAIL ("scan: %u join filters (max %u)", r->njoin_filters, OSSD_JF_MAX_FILTERS);
  for (uint32_t i = 0; i < r->njoin_filters; i++)
    {
      const struct ossd_join_filter *f = &r->join_filters[i];
      if (f->attnum < 1 || f->attnum > r->natts || r->attrs[f->attnum - 1].dropped)
        VFAIL ("join filter %u: attnum %u out of range or dropped", i, f->attnum);
      if (!join_key_type_ok (f->key_kind, &r->attrs[f->attnum - 1]))
        VFAIL ("join filter %u: key kind %u does not fit attnum %u of type %u", i,
               f->key_kind, f->attnum, r->attrs[f->attnum - 1].type_oid);
      if (f->kind == OSSD_JF_EXACT ? !f->slots
          : f->kind != OSSD_JF_BLOOM || !f->bloom || f->hashes < 1
            || f->hashes > OSSD_JF_MAX_HASHES || f->bloom_bytes < OSSD_JF_MIN_BLOOM_BYTES
            || (f->bloom_bytes & (f->bloom_bytes - 1)))
        VFAIL ("join filter %u: not prepared (ossd_join_filter_prepare)", i);
    }
  if (r->ngroup_by > OSSD_SCAN_MAX_OUT || (r->ngroup_by && !r->group_by))
    VFAIL ("scan: %u group-by columns (max %u)", r->ngroup_by, OSSD_SCAN_MAX_OUT);
  for (uint32_t i = 0; i < r->ngroup_by; i++)
    {
      if (r->group_by[i] >= ncols)
        VFAIL ("group-by %u: column %u of %u", i, r->group_by[i], ncols);
      uint8_t tag;
      bool byval;
      out_shape (r, r->group_by[i], &tag, &byval);
      if (!ossd_agg_tag_key_ok (tag))
        VFAIL ("group-by %u: unsupported key type", i);
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* per-row work                                                        */

/* Send every group of one worker's table, chunk by chunk (from a worker
 * thread while the scan runs, or at its end). */
static int
emit_worker_groups (struct scan *sc, const struct ossd_agg_table *t, uint64_t *groups_out)
{
  struct ossd_buf b = { 0 };
  uint32_t g = 0, n = ossd_agg_table_groups (t);
  int rc = 0;

  while (g < n && rc == 0)
    {
      b.len = 0;
      long next = ossd_agg_table_emit (t, g, &b, sc->chunk_bytes);
      pthread_mutex_lock (&sc->sink_mu);
      if (next < 0)
        {
          rc = (int) next;
          snprintf (sc->err, sc->errlen, "scan: cannot encode partial groups (%d)", rc);
        }
      else if (sc->error)
        rc = sc->error;
      else
        {
          struct ossd_scan_chunk ch = { .groups = b.data, .groups_len = b.len,
                                        .group_count = (uint32_t) (next - g) };
          *groups_out += ch.group_count;
          rc = sc->req->sink (sc->req->sink_arg, &ch);
          if (rc < 0)
            snprintf (sc->err, sc->errlen, "scan: result sink failed (%d)", rc);
        }
      if (rc < 0 && !sc->error)
        sc->error = rc;
      pthread_mutex_unlock (&sc->sink_mu);
      g = (uint32_t) next;
    }
  ossd_buf_free (&b);
  if (rc < 0)
    atomic_store (&sc->stop, true);
  return rc;
}

static int
flush (struct worker *w, bool force)
{
  struct scan *sc = w->sc;
  if (!force && w->rows.len < sc->chunk_bytes && w->hrows.len < sc->chunk_bytes
      && w->nhblocks < OSSD_SCAN_MAX_HOST_BLOCKS)
    return 0;
  if (!w->row_count && !w->hrow_count && !w->nhblocks)
    return 0;
  struct ossd_scan_chunk ch = {
    .rows = w->rows.data, .rows_len = w->rows.len, .row_count = w->row_count,
    .host_rows = w->hrows.data, .host_rows_len = w->hrows.len,
    .host_row_count = w->hrow_count, .host_blocks = w->hblocks,
    .host_block_count = w->nhblocks,
  };
  int rc = 0;
  pthread_mutex_lock (&sc->sink_mu);
  if (!sc->error)
    {
      rc = sc->req->sink (sc->req->sink_arg, &ch);
      if (rc < 0)
        {
          sc->error = rc;
          snprintf (sc->err, sc->errlen, "scan: result sink failed (%d)", rc);
        }
    }
  else
    rc = sc->error;
  pthread_mutex_unlock (&sc->sink_mu);
  w->rows.len = w->hrows.len = 0;
  w->row_count = w->hrow_count = w->nhblocks = 0;
  if (rc < 0)
    atomic_store (&sc->stop, true);
  return rc < 0 ? rc : 0;
}

static int
host_row (struct worker *w, uint32_t target, uint32_t relblock, unsigned offnum,
          uint16_t reason, const uint8_t *tup, uint32_t tuplen)
{
  int rc = ossd_host_row_append (&w->hrows, target, relblock, (uint16_t) offnum, reason,
                                 tup, tuplen);
  if (rc < 0)
    return rc;
  w->hrow_count++;
  w->cnt.rows_to_host++;
  return flush (w, false);
}

static int
host_block (struct worker *w, uint32_t target, uint32_t relblock, uint32_t reason)
{
  w->hblocks[w->nhblocks++] = (struct ossd_host_block) { target, relblock, reason };
  w->cnt.blocks_to_host++;
  return flush (w, false);
}

/* Fill ctx->col[] from the deformed tuple.  0 or an OSSD_HR_* reason. */
static uint64_t
sext (uint64_t v, int len)
{
  switch (len)
    {
    case 1: return (uint64_t) (int64_t) (int8_t) v;
    case 2: return (uint64_t) (int64_t) (int16_t) v;
    case 4: return (uint64_t) (int64_t) (int32_t) v;
    default: return v;
    }
}

/* ctx->col[i] from a deformed datum d of an attribute (or constant)
 * shaped like a.  0 or an OSSD_HR_* reason. */
static inline int
bind_one (struct worker *w, uint32_t i, const struct ossd_datum *d,
          const struct ossd_scan_attr *a)
{
  return ossd_bind_datum (&w->ctx.col[i], w->sc->bind_tag[i], d, a, &w->bind_num[i],
                          w->sc->lazy_numeric);
}

/* The heap columns of this row; constants were bound once, by
 * bind_constants. */
static int
bind_columns (struct worker *w)
{
  const struct ossd_scan_request *r = w->sc->req;
  w->ctx.ncols = r->nbind;
  for (uint32_t i = 0; i < r->nbind; i++)
    {
      uint16_t an = r->bind[i];
      if (an == 0)
        continue;
      int reason = bind_one (w, i, &w->datums[an - 1], &r->attrs[an - 1]);
      if (reason)
        return reason;
    }
  return 0;
}

/* Constant kernel arguments: bound once per worker (kernels cannot write
 * ctx->col; a numeric is converted on first use and stays so). */
static void
bind_constants (struct worker *w)
{
  const struct ossd_scan_request *r = w->sc->req;
  uint32_t k = 0;
  for (uint32_t i = 0; i < r->nbind; i++)
    {
      if (r->bind[i] != 0)
        continue;
      const struct ossd_scan_const *c = &r->consts[k++];
      struct ossd_scan_attr a;
      struct ossd_datum d = { .isnull = c->isnull };
      const_shape (c->type_oid, &a);
      if (!c->isnull && a.byval)
        {
          uint64_t v = 0;
          memcpy (&v, c->img, (size_t) a.len);
          d.datum = sext (v, a.len);
        }
      else if (!c->isnull)
        {
          d.ptr = c->img;
          d.len = c->len;
        }
      int reason = bind_one (w, i, &d, &a);
      if (reason && !w->const_reason)
        w->const_reason = reason;   /* every row its kernel sees goes to the host */
    }
}

/* Why a kernel sent its row to the host: a bound numeric it read could
 * not be converted (the reason bind_columns gave before binding became
 * lazy), else the kernel's own choice. */
static uint16_t
kernel_host_reason (struct worker *w)
{
  const struct ossd_scan_request *r = w->sc->req;
  for (uint32_t i = 0; i < r->nbind; i++)
    {
      if (w->sc->bind_tag[i] != OSSD_T_NUMERIC || w->ctx.col[i].isnull)
        continue;
      int rc = ossd_numeric_bind_failure (&w->bind_num[i]);
      if (rc == -ERANGE)
        return OSSD_HR_OVERFLOW;
      if (rc < 0)
        return OSSD_HR_BAD_DATA;
    }
  return OSSD_HR_KERNEL;
}


/* Output column values of a matched row into w->outv[] (and, in aggregate
 * mode, w->colin[]).  0 or an OSSD_HR_* reason. */
static int
output_columns (struct worker *w)
{
  struct scan *sc = w->sc;
  const struct ossd_scan_request *r = sc->req;
  uint32_t nmapped = map_out_columns (r);
  for (uint32_t i = 0; i < sc->ncols; i++)
    {
      struct ossd_outval *ov = &w->outv[i];
      struct ossd_agg_input *in = &w->colin[i];
      uint8_t tag = sc->out_tag[i];
      *ov = (struct ossd_outval) { .byval = sc->out_byval[i] };
      *in = (struct ossd_agg_input) { .tag = tag };
      if (i < nmapped)
        {
          const struct ossd_outcol *o = &w->ctx.out[i];
          if (o->isnull)
            {
              ov->isnull = in->isnull = true;
              continue;
            }
          if (tag == OSSD_T_NUMERIC)
            {
              in->num = o->num;
              if (o->num.scale < 0 || o->num.scale > 38)
                return OSSD_HR_OVERFLOW;
              if (sc->agg_mode && sc->out_key[i])
                {
                  /* a group key: the same varlena payload a projected
                   * numeric key has (the value encoding of partial groups
                   * does not depend on the kernel) */
                  size_t n;
                  if (ossd_numeric_to_pg (&o->num, w->outnum[i], OSSD_NUMERIC_IMG_MAX, &n) < 0
                      || n < 4)
                    return OSSD_HR_OVERFLOW;
                  in->payload = w->outnum[i] + 4;
                  in->len = (uint32_t) n - 4;
                }
              else if (!sc->agg_mode)
                {
                  size_t n;
                  if (ossd_numeric_to_pg (&o->num, w->outnum[i], OSSD_NUMERIC_IMG_MAX, &n) < 0)
                    return OSSD_HR_OVERFLOW;
                  ov->ptr = w->outnum[i];
                  ov->len = (uint32_t) n;
                }
              continue;
            }
          in->value = o->value;
          if (tag == OSSD_T_FLOAT4)
            {
              /* a map kernel writes float4 outputs widened to float8 bits,
               * like float4 inputs; the Datum holds the float4 bits */
              double x;
              memcpy (&x, &o->value, 8);
              float f = (float) x;
              uint32_t bits;
              memcpy (&bits, &f, 4);
              ov->datum = sext (bits, 4);
            }
          else
            {
              ov->datum = sext (o->value, r->outputs[i].len);
              in->value = ov->datum;
            }
          continue;
        }
      /* projection of a heap attribute, as stored */
      uint16_t attnum = r->proj[i - nmapped];
      const struct ossd_scan_attr *a = &r->attrs[attnum - 1];
      const struct ossd_datum *d = &w->datums[attnum - 1];
      if (d->isnull)
        {
          ov->isnull = in->isnull = true;
          continue;
        }
      if (d->flags & (OSSD_DF_COMPRESSED | OSSD_DF_EXTERNAL))
        return OSSD_HR_TOAST;
      if (a->byval)
        {
          ov->datum = tag == OSSD_T_OID ? (d->datum & 0xffffffffu) : d->datum;
          in->value = tag == OSSD_T_FLOAT4 ? float4_widened (d->datum) : d->datum;
          continue;
        }
      ov->ptr = d->ptr;
      ov->len = d->len;
      if (!sc->agg_mode)
        continue;
      const uint8_t *p = d->ptr;
      uint32_t len = d->len;
      if (a->len == -1)
        ossd_varlena_payload (d->ptr, d->len, &p, &len);
      if (tag == OSSD_T_NUMERIC)
        {
          int rc = ossd_numeric_from_pg (p, len, &in->num);
          if (rc == -ERANGE)
            return OSSD_HR_OVERFLOW;
          if (rc < 0)
            return OSSD_HR_BAD_DATA;
        }
      in->payload = p;
      in->len = len;
    }
  return 0;
}

/* Step 5b: may the row join?  Its key of every filter normalised as the
 * host normalised the build side's (ossd_join_filter.h).  A NULL key never
 * joins; a compressed or external one cannot be read here and is kept.
 * A filter that dropped fewer than 1 in 16 of its first JF_TRIAL rows
 * (say, the build side holds every key) only costs time: the worker stops
 * applying it -- the host's join decides those rows anyway. */
#define JF_TRIAL 8192
static bool
join_filters_pass (struct worker *w)
{
  const struct ossd_scan_request *r = w->sc->req;
  for (uint32_t i = 0; i < r->njoin_filters; i++)
    {
      const struct ossd_join_filter *f = &r->join_filters[i];
      const struct ossd_datum *d = &w->datums[f->attnum - 1];
      uint8_t img[8];
      const uint8_t *p;
      uint32_t len;
      bool pass;
      if (w->jf_off[i])
        continue;
      if (d->isnull)
        pass = false;
      else if (f->key_kind == OSSD_JF_KEY_INT)
        {
          ossd_jf_int_image ((int64_t) d->datum, img);
          pass = ossd_join_filter_test (f, img, 8);
        }
      else if (d->flags & (OSSD_DF_COMPRESSED | OSSD_DF_EXTERNAL))
        pass = true;
      else
        {
          ossd_varlena_payload (d->ptr, d->len, &p, &len);
          if (f->key_kind == OSSD_JF_KEY_BPCHAR)
            len = (uint32_t) ossd_jf_bpchar_len (p, len);
          pass = ossd_join_filter_test (f, p, len);
        }
      if (w->jf_probes[i] < JF_TRIAL)
        {
          w->jf_drops[i] += !pass;
          if (++w->jf_probes[i] == JF_TRIAL && w->jf_drops[i] < JF_TRIAL / 16)
            w->jf_off[i] = true;
        }
      if (!pass)
        return false;
    }
  return true;
}

/* Process one visible tuple.  0 to go on, 1 to stop (limit), <0 error. */
static int
process_tuple (struct worker *w, uint32_t target, uint32_t relblock, unsigned offnum,
               const uint8_t *tup, uint32_t tuplen)
{
  struct scan *sc = w->sc;
  const struct ossd_scan_request *r = sc->req;
  int reason = 0;
  uint16_t passed = 0;
  bool bound = false;
  if (sc->upto)
    {
      /* the fused program for the common tuple, else the generic path */
      bound = sc->bind (&sc->fused, tup, tuplen, w->ctx.col, w->bind_num, w->datums) == 0;
      if (!bound
          && ossd_deform_planned (&sc->deform, tup, tuplen, w->datums, w->msg,
                                  sizeof w->msg) < 0)
        return host_row (w, target, relblock, offnum, OSSD_HR_BAD_DATA, tup, tuplen);
    }
  if (r->filter.exec || r->map.exec)
    {
      if (bound)
        w->ctx.ncols = r->nbind;
      else
        reason = bind_columns (w);
      if (!reason)
        reason = w->const_reason;
      if (reason)
        return host_row (w, target, relblock, offnum, (uint16_t) reason, tup, tuplen);
      w->ctx.block = relblock;
      w->ctx.offnum = offnum;
    }
  if (r->filter.exec)
    {
      w->ctx.nout = 0;
      int k = r->filter.exec (r->filter.kernel, &w->ctx, w->fstate);
      if (k < 0 || k > OSSD_ROW_TO_HOST)
        {
          set_error (sc, k < 0 ? k : -EINVAL, "block %u lp %u: filter kernel failed (%d)",
                     relblock, offnum, k);
          return -1;
        }
      if (k == OSSD_ROW_SKIP)
        return 0;
      if (k == OSSD_ROW_TO_HOST)
        return host_row (w, target, relblock, offnum, kernel_host_reason (w), tup, tuplen);
      passed = OSSD_HR_FLAG_FILTER_PASSED;
    }
  if (r->njoin_filters && !join_filters_pass (w))
    {
      w->cnt.join_filter_dropped++;
      return 0;
    }
  if (r->map.exec)
    {
      w->ctx.nout = r->nout;
      memset (w->ctx.out, 0, r->nout * sizeof w->ctx.out[0]);
      int k = r->map.exec (r->map.kernel, &w->ctx, w->mstate);
      if (k < 0 || k > OSSD_ROW_TO_HOST)
        {
          set_error (sc, k < 0 ? k : -EINVAL, "block %u lp %u: map kernel failed (%d)",
                     relblock, offnum, k);
          return -1;
        }
      if (k == OSSD_ROW_SKIP)
        return 0;
      if (k == OSSD_ROW_TO_HOST)
        return host_row (w, target, relblock, offnum,
                         (uint16_t) (kernel_host_reason (w) | passed), tup, tuplen);
    }
  reason = output_columns (w);
  if (reason)
    return host_row (w, target, relblock, offnum, (uint16_t) (reason | passed), tup, tuplen);
  if (sc->agg_mode)
    {
      for (uint32_t k = 0; k < r->ngroup_by; k++)
        w->keys[k] = w->colin[r->group_by[k]];
      for (uint32_t a = 0; a < r->naggs; a++)
        if (r->aggs[a].kind != OSSD_AGG_COUNT_STAR)
          w->ins[a] = w->colin[r->aggs[a].input];
      int rc = ossd_agg_table_add (w->agg, w->keys, w->ins);
      if (rc == OSSD_HR_GROUP_FULL)
        {
          /* more groups than the table holds: send them as they are
           * (partial states, merged by the host like any worker's) and go
           * on with an empty table; a scan in key order (lineitem by
           * l_orderkey) thus aggregates on the drive whatever the number
           * of groups */
          if (emit_worker_groups (sc, w->agg, &w->cnt.groups_out) < 0)
            return -1;
          ossd_agg_table_reset (w->agg);
          rc = ossd_agg_table_add (w->agg, w->keys, w->ins);
        }
      if (rc < 0)
        {
          set_error (sc, rc, "block %u lp %u: aggregate table: out of memory", relblock,
                     offnum);
          return -1;
        }
      if (rc > 0)
        return host_row (w, target, relblock, offnum, (uint16_t) (rc | passed), tup, tuplen);
      w->cnt.tuples_matched++;
      return 0;
    }
  uint64_t n = atomic_fetch_add (&sc->rows_reserved, 1);
  if (r->limit && n >= r->limit)
    {
      atomic_store (&sc->stop, true);
      return 1;
    }
  w->cnt.tuples_matched++;
  int rc = ossd_row_append (&w->rows, (uint16_t) target, relblock, (uint16_t) offnum,
                            (uint16_t) sc->ncols, w->outv);
  if (rc < 0)
    {
      set_error (sc, rc, "block %u lp %u: cannot build result row (%d)", relblock, offnum, rc);
      return -1;
    }
  w->row_count++;
  w->cnt.rows_out++;
  if (r->limit && n + 1 >= r->limit)
    atomic_store (&sc->stop, true);
  return flush (w, false) < 0 ? -1 : 0;
}

/* The page's PostgreSQL checksum is good: verified now, or before for
 * the same bytes (page_id, checksum_cache.c). */
static bool
page_checksum_good (struct worker *w, const uint8_t *page, uint64_t page_id,
                    uint32_t relblock)
{
  const struct ossd_scan_request *r = w->sc->req;

  if (page_id && r->checksum_cache
      && ossd_checksum_cache_known (r->checksum_cache, page_id, relblock))
    {
      w->cnt.checksums_known++;
      return true;
    }
  if (!ossd_pg_checksum_ok (page, relblock))
    return false;
  if (page_id && r->checksum_cache)
    {
      ossd_checksum_cache_note (r->checksum_cache, page_id, relblock);
      w->cnt.checksums_verified++;
    }
  return true;
}

/* Scan one page already in memory; page_id names its bytes (0: no name,
 * see map_blocks). */
/* The tuples of `page` to look at when an index named them (see
 * ossd_scan_target.tuple_offsets): into out[] (ascending, each once), a
 * redirect followed to its heap-only tuple.  Returns how many, or -1 when
 * the page does not match the list (an offset past the end, a heap-only
 * or HOT-updated tuple named directly, a redirect to anything else): the
 * page is then scanned whole, which is always right. */
static int
named_tuples (const uint8_t *page, const uint8_t *list, unsigned n, uint16_t *out)
{
  unsigned maxoff = ossd_page_max_offnum (page);
  uint64_t seen[(OSSD_PG_MAX_HEAP_TUPLES + 64) / 64] = { 0 };
  int m = 0;

  for (unsigned i = 0; i < n; i++)
    {
      unsigned off = ossd_rd16 (list + 2 * i);
      const uint8_t *tup;
      uint32_t tuplen;
      if (off > maxoff)
        return -1;
      unsigned flags = ossd_page_item (page, off, &tup, &tuplen);
      bool redirected = false;
      if (flags == OSSD_PG_LP_REDIRECT)
        {
          off = ossd_page_redirect_target (page, off);
          if (off < 1 || off > maxoff)
            return -1;
          flags = ossd_page_item (page, off, &tup, &tuplen);
          redirected = true;
        }
      if (flags != OSSD_PG_LP_NORMAL)
        continue;               /* unused or dead: no row there */
      if (tuplen < OSSD_PG_HT_INFOMASK2 + 2)
        return -1;
      uint16_t infomask2 = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2);
      if ((infomask2 & OSSD_PG_HEAP_HOT_UPDATED)
          || ((infomask2 & OSSD_PG_HEAP_ONLY_TUPLE) != 0) != redirected)
        return -1;
      if (seen[off / 64] & (1ull << (off % 64)))
        continue;
      seen[off / 64] |= 1ull << (off % 64);
      out[m++] = (uint16_t) off;
    }
  return m;
}

static int
scan_page (struct worker *w, uint32_t target, uint32_t block,
           const uint8_t *page, uint64_t page_id, const uint8_t *named, unsigned nnamed)
{
  struct scan *sc = w->sc;
  const struct ossd_scan_request *r = sc->req;
  uint32_t relblock = ossd_scan_target_relblock (&r->targets[target], block);
  uint32_t reason;
  int rc;

  w->cnt.bytes_read += OSSD_PG_BLCKSZ;
  /* a page failing its PostgreSQL checksum goes to the host, which reads it
   * through shared buffers and reports it as PostgreSQL always does */
  if (r->data_checksums && !page_checksum_good (w, page, page_id, relblock))
    return host_block (w, target, relblock, OSSD_HB_CHECKSUM) < 0 ? -1 : 0;
  if (ossd_page_check (page, relblock, &reason, w->msg, sizeof w->msg) < 0)
    return host_block (w, target, relblock, reason) < 0 ? -1 : 0;
  w->cnt.blocks_scanned++;
  unsigned maxoff = ossd_page_max_offnum (page);
  uint16_t offs[OSSD_PG_MAX_HEAP_TUPLES];
  int noffs = nnamed ? named_tuples (page, named, nnamed, offs) : -1;
  unsigned nvisit = noffs >= 0 ? (unsigned) noffs : maxoff;
  for (unsigned i = 0; i < nvisit; i++)
    {
      unsigned off = noffs >= 0 ? offs[i] : i + 1;
      const uint8_t *tup;
      uint32_t tuplen;
      if (ossd_page_item (page, off, &tup, &tuplen) != OSSD_PG_LP_NORMAL)
        continue;
      w->cnt.tuples_seen++;
      switch (ossd_tuple_visibility (tup, r->snapshot_xmin))
        {
        case OSSD_VIS_SKIP:
          continue;
        case OSSD_VIS_HOST:
          w->cnt.tuples_visible++;
          if (host_row (w, target, relblock, off, OSSD_HR_MOVED, tup, tuplen) < 0)
            return -1;
          continue;
        case OSSD_VIS_COUNT:
          break;
        }
      w->cnt.tuples_visible++;
      rc = process_tuple (w, target, relblock, off, tup, tuplen);
      if (rc != 0)
        return rc;
      if (atomic_load_explicit (&sc->stop, memory_order_relaxed))
        return 1;
    }
  return 0;
}

/* Read one block through read_block, then scan it. */
static int
scan_block (struct worker *w, uint32_t target, uint32_t block, const uint8_t *named,
            unsigned nnamed)
{
  struct scan *sc = w->sc;
  const struct ossd_scan_request *r = sc->req;
  uint32_t relblock = ossd_scan_target_relblock (&r->targets[target], block);
  int rc = r->read_block (r->read_arg, target, block, w->page, w->msg, sizeof w->msg);

  if (rc == -ECANCELED)
    {
      set_error (sc, rc, "target %u block %u: scan cancelled by the reader", target, block);
      return -1;
    }
  if (rc == -EBADMSG)
    {
      /* the stored data is corrupt (a NAND page's data CRC): the scan fails
       * with the reader's reason rather than hand the host a block it
       * would only fail to read in turn */
      set_error (sc, rc, "target %u block %u: %s", target, block, w->msg);
      return -1;
    }
  if (rc < 0)
    return host_block (w, target, relblock, OSSD_HB_READ_ERROR) < 0 ? -1 : 0;
  return scan_page (w, target, block, w->page, 0, named, nnamed);
}

/* Rows flow out early: a selective scan fills its 64 KiB chunk only at
 * the end, and the host's joins above it would wait for the whole scan.
 * A worker holding rows sends them FIRST_FLUSH_NS after it started, then
 * after gaps that double (at most MAX_FLUSH_GAP_NS), so a long scan adds
 * a dozen small chunks, not one per millisecond.  Partial aggregates are
 * not rows: they go at the end. */
#define FIRST_FLUSH_NS 1000000ull
#define MAX_FLUSH_GAP_NS 256000000ull

static uint64_t
scan_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static int
flush_if_due (struct worker *w)
{
  uint64_t now;

  if (!w->row_count && !w->hrow_count && !w->nhblocks)
    return 0;
  now = scan_now_ns ();
  if (now < w->flush_due_ns)
    return 0;
  if (w->flush_gap_ns < MAX_FLUSH_GAP_NS)
    w->flush_gap_ns *= 2;
  w->flush_due_ns = now + w->flush_gap_ns;
  return flush (w, true);
}

/* Scan `count` blocks from `start`: in batches through map_blocks (pages
 * scanned where the reader keeps them) or read_blocks (one read for many
 * pages) when the reader offers them, block by block through read_block
 * otherwise or when a batch read fails (so that an unreadable block is
 * handed back alone). */
static int
scan_range (struct worker *w, uint32_t target, uint32_t start, uint32_t count,
            uint32_t tid_pos)
{
  const struct ossd_scan_request *r = w->sc->req;
  const uint8_t *tids = tid_pos != UINT32_MAX ? r->targets[target].tuple_offsets : NULL;
  int rc = 0;

  for (uint32_t b = 0; b < count && rc == 0;)
    {
      uint32_t n = count - b < OSSD_SCAN_READ_BATCH ? count - b : OSSD_SCAN_READ_BATCH;
      const uint8_t *pages[OSSD_SCAN_READ_BATCH];
      uint64_t page_ids[OSSD_SCAN_READ_BATCH];
      const uint8_t *named[OSSD_SCAN_READ_BATCH];
      unsigned nnamed[OSSD_SCAN_READ_BATCH];
      void *token = NULL;
      /* each block's list of named tuples (validated: ossd_scan_validate) */
      for (uint32_t k = 0; k < n; k++)
        {
          nnamed[k] = tids ? ossd_rd16 (tids + tid_pos) : 0;
          named[k] = tids ? tids + tid_pos + 2 : NULL;
          if (tids)
            tid_pos += 2 + 2 * nnamed[k];
        }
      /* pages in place also for one block: no copy, and the page's id
       * lets a page verified before skip its checksum (an index names
       * scattered blocks, mostly ranges of one) */
      if (r->map_blocks && w->batch)
        {
          /* pages in place; on any failure block by block, so that a
           * corrupt or unreadable block fails or goes back alone, with
           * read_block's message */
          if (r->map_blocks (r->read_arg, target, start + b, n, w->batch, pages,
                             page_ids, &token, w->msg, sizeof w->msg) == 0)
            {
              if (r->data_checksums && r->checksum_cache)
                for (uint32_t k = 0; k < n; k++)
                  if (page_ids[k])
                    ossd_checksum_cache_prefetch
                      (r->checksum_cache, page_ids[k],
                       ossd_scan_target_relblock (&r->targets[target], start + b + k));
              for (uint32_t k = 0; k < n && rc == 0; k++)
                rc = scan_page (w, target, start + b + k, pages[k], page_ids[k],
                                named[k], nnamed[k]);
              r->release_blocks (r->read_arg, token);
            }
          else
            for (uint32_t k = 0; k < n && rc == 0; k++)
              rc = scan_block (w, target, start + b + k, named[k], nnamed[k]);
        }
      else if (r->read_blocks && w->batch && n > 1
          && r->read_blocks (r->read_arg, target, start + b, n, w->batch,
                             w->msg, sizeof w->msg) == 0)
        for (uint32_t k = 0; k < n && rc == 0; k++)
          rc = scan_page (w, target, start + b + k,
                          w->batch + (size_t) k * OSSD_PG_BLCKSZ, 0, named[k], nnamed[k]);
      else
        for (uint32_t k = 0; k < n && rc == 0; k++)
          rc = scan_block (w, target, start + b + k, named[k], nnamed[k]);
      b += n;
      if (rc == 0 && flush_if_due (w) < 0)
        rc = -1;
    }
  return rc;
}

static void *
worker_main (void *arg)
{
  struct worker *w = arg;
  struct scan *sc = w->sc;
  const struct ossd_scan_request *r = sc->req;
  /* Linux: PRIO_PROCESS with a thread id sets that thread alone; a
   * refusal only leaves the worker at its old priority */
  if (r->worker_nice > 0)
    (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), r->worker_nice);
  if (r->filter.exec && r->filter.thread_init)
    w->fstate = r->filter.thread_init (r->filter.kernel);
  if (r->map.exec && r->map.thread_init)
    w->mstate = r->map.thread_init (r->map.kernel);
  bind_constants (w);
  w->flush_gap_ns = FIRST_FLUSH_NS;
  w->flush_due_ns = scan_now_ns () + FIRST_FLUSH_NS;
  while (!atomic_load (&sc->stop))
    {
      size_t i = atomic_fetch_add (&sc->next_work, 1);
      if (i >= sc->nwork)
        break;
      const struct work_item *it = &sc->work[i];
      int rc = 0;
      rc = scan_range (w, it->target, it->start, it->count, it->tid_pos);
      if (rc != 0)
        break;
    }
  flush (w, true);
  if (r->filter.exec && r->filter.thread_fini)
    r->filter.thread_fini (r->filter.kernel, w->fstate);
  if (r->map.exec && r->map.thread_fini)
    r->map.thread_fini (r->map.kernel, w->mstate);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */

static int
build_work (struct scan *sc)
{
  const struct ossd_scan_request *r = sc->req;
  size_t n = 0;
  for (uint32_t t = 0; t < r->ntargets; t++)
    for (uint32_t k = 0; k < r->targets[t].nranges; k++)
      n += (r->targets[t].ranges[k].count + OSSD_SCAN_BATCH - 1) / OSSD_SCAN_BATCH;
  sc->work = calloc (n ? n : 1, sizeof *sc->work);
  if (!sc->work)
    return -ENOMEM;
  for (uint32_t t = 0; t < r->ntargets; t++)
    {
      const struct ossd_scan_target *tg = &r->targets[t];
      uint32_t pos = 0;           /* in tuple_offsets, as validated */
      for (uint32_t k = 0; k < tg->nranges; k++)
        {
          const struct ossd_block_range *br = &tg->ranges[k];
          for (uint32_t b = 0; b < br->count; b += OSSD_SCAN_BATCH)
            {
              uint32_t c = br->count - b < OSSD_SCAN_BATCH ? br->count - b : OSSD_SCAN_BATCH;
              sc->work[sc->nwork++] = (struct work_item) {
                t, br->start + b, c, tg->tuple_offsets ? pos : UINT32_MAX };
              if (tg->tuple_offsets)
                for (uint32_t i = 0; i < c; i++)
                  pos += 2 + 2 * ossd_rd16 (tg->tuple_offsets + pos);
            }
        }
    }
  return 0;
}

static int
derive (struct scan *sc)
{
  const struct ossd_scan_request *r = sc->req;
  sc->agg_mode = r->naggs || r->ngroup_by;
  sc->lazy_numeric = (!r->filter.exec || r->filter.lazy_columns)
    && (!r->map.exec || r->map.lazy_columns);
  sc->ncols = map_out_columns (r) + r->nproj;
  sc->chunk_bytes = r->chunk_bytes ? r->chunk_bytes : 64 * 1024;
  sc->want = calloc (r->natts ? r->natts : 1, sizeof (bool));
  if (!sc->want)
    return -ENOMEM;
  for (uint32_t i = 0, k = 0; i < r->nbind; i++)
    {
      if (r->bind[i] == 0)
        {
          sc->bind_tag[i] = ossd_type_tag_of (r->consts[k++].type_oid);
          continue;
        }
      sc->want[r->bind[i] - 1] = true;
      sc->bind_tag[i] = ossd_type_tag_of (r->attrs[r->bind[i] - 1].type_oid);
    }
  for (uint32_t i = 0; i < r->nproj; i++)
    sc->want[r->proj[i] - 1] = true;
  for (uint32_t i = 0; i < r->njoin_filters; i++)
    sc->want[r->join_filters[i].attnum - 1] = true;
  for (uint32_t i = 0; i < r->natts; i++)
    if (sc->want[i])
      sc->upto = i + 1;
  if (ossd_deform_plan_init (&sc->deform, r->attrs, r->natts, sc->upto, sc->want) < 0)
    return -ENOMEM;
  /* the fused program writes the bound columns, and the datums only of
   * what is projected as stored or join-filtered */
  bool *put_datum = calloc (r->natts ? r->natts : 1, sizeof (bool));
  if (!put_datum)
    return -ENOMEM;
  for (uint32_t i = 0; i < r->nproj; i++)
    put_datum[r->proj[i] - 1] = true;
  for (uint32_t i = 0; i < r->njoin_filters; i++)
    put_datum[r->join_filters[i].attnum - 1] = true;
  bool kernels = r->filter.exec || r->map.exec;
  int rc = ossd_bind_prog_init (&sc->fused, r->attrs, r->natts, sc->upto, r->bind,
                                kernels ? r->nbind : 0, sc->bind_tag, sc->lazy_numeric,
                                put_datum);
  free (put_datum);
  if (rc < 0)
    return rc;
  sc->bind = ossd_bind_fused;
  for (uint32_t i = 0; i < sc->ncols; i++)
    out_shape (r, i, &sc->out_tag[i], &sc->out_byval[i]);
  for (uint32_t a = 0; a < r->naggs; a++)
    sc->agg_tag[a] = r->aggs[a].kind == OSSD_AGG_COUNT_STAR ? OSSD_T_NONE
      : sc->out_tag[r->aggs[a].input];
  for (uint32_t k = 0; k < r->ngroup_by; k++)
    {
      uint32_t c = r->group_by[k];
      sc->key_tag[k] = sc->out_tag[c];
      sc->key_byval[k] = sc->out_byval[c];
      sc->key_varlena[k] = is_varlena_tag (sc->out_tag[c]);
      sc->out_key[c] = true;
    }
  return 0;
}

/* A JIT kernel's scan of at least JIT_DEFORM_MIN_BLOCKS blocks runs its
 * bind program JIT-compiled too (jit_deform.c; kept by the kernel for its
 * next scans).  The compile takes 10-35 ms and saves ~8 ns a tuple
 * (bench/results/drivescan.txt), so it pays from ~1-4 million tuples; a
 * smaller scan, or a failed compile, runs ossd_bind_fused, which gives
 * the same results. */
#define JIT_DEFORM_MIN_BLOCKS 16384

static void
choose_bind (struct scan *sc)
{
  const struct ossd_scan_request *r = sc->req;
  struct ossd_jit_kernel *jk = r->filter.jit ? r->filter.jit : r->map.jit;
  uint64_t blocks = 0;
  char why[160];
  for (size_t i = 0; i < sc->nwork; i++)
    blocks += sc->work[i].count;
  if (jk && sc->fused.nsteps && blocks >= JIT_DEFORM_MIN_BLOCKS
      && ossd_jit_kernel_deform (jk, &sc->fused, &sc->jit_deform, why, sizeof why) == 0)
    sc->bind = ossd_jit_deform_fn (sc->jit_deform);
}

static void
add_counters (struct ossd_scan_counters *t, const struct ossd_scan_counters *c)
{
  t->blocks_scanned += c->blocks_scanned;
  t->blocks_to_host += c->blocks_to_host;
  t->tuples_seen += c->tuples_seen;
  t->tuples_visible += c->tuples_visible;
  t->tuples_matched += c->tuples_matched;
  t->rows_out += c->rows_out;
  t->rows_to_host += c->rows_to_host;
  t->groups_out += c->groups_out;
  t->bytes_read += c->bytes_read;
  t->join_filter_dropped += c->join_filter_dropped;
  t->checksums_known += c->checksums_known;
  t->checksums_verified += c->checksums_verified;
}


int
ossd_scan_run (const struct ossd_scan_request *req, struct ossd_scan_counters *totals,
               char *err, size_t errlen)
{
  int rc = ossd_scan_validate (req, err, errlen);
  if (rc < 0)
    return rc;
  struct scan sc = { .req = req, .err = err, .errlen = errlen };
  pthread_mutex_init (&sc.sink_mu, NULL);
  atomic_init (&sc.next_work, 0);
  atomic_init (&sc.stop, false);
  atomic_init (&sc.rows_reserved, 0);
  struct worker *ws = NULL;
  uint32_t nw = req->workers ? req->workers : 1, started = 0;
  struct ossd_scan_counters tot = { 0 };
  if ((rc = derive (&sc)) < 0 || (rc = build_work (&sc)) < 0)
    {
      snprintf (err, errlen, "scan: out of memory");
      goto out;
    }
  choose_bind (&sc);
  size_t most = (sc.nwork + OSSD_SCAN_ITEMS_PER_WORKER - 1) / OSSD_SCAN_ITEMS_PER_WORKER;
  if (nw > most)
    nw = most ? (uint32_t) most : 1;
  ws = calloc (nw, sizeof *ws);
  if (!ws)
    {
      rc = -ENOMEM;
      snprintf (err, errlen, "scan: out of memory for %u workers", nw);
      goto out;
    }
  for (uint32_t i = 0; i < nw; i++)
    {
      ws[i].sc = &sc;
      ws[i].datums = calloc (req->natts ? req->natts : 1, sizeof *ws[i].datums);
      /* Without the batch buffer the worker reads block by block. */
      if (req->read_blocks || req->map_blocks)
        ws[i].batch = aligned_alloc (64, (size_t) OSSD_SCAN_READ_BATCH * OSSD_PG_BLCKSZ);
      if (sc.agg_mode)
        ws[i].agg = ossd_agg_table_new (req->naggs, req->aggs, sc.agg_tag, req->ngroup_by,
                                        sc.key_tag, sc.key_byval, sc.key_varlena,
                                        req->max_groups);
      if (!ws[i].datums || (sc.agg_mode && !ws[i].agg))
        {
          rc = -ENOMEM;
          snprintf (err, errlen, "scan: out of memory for worker %u", i);
          goto out;
        }
    }
  /* The calling thread is worker 0, one thread fewer to start, unless
   * the workers run niced: the caller (a drive slot's stream thread, kept
   * for its next scans) could not always take its nice value back. */
  uint32_t first = req->worker_nice > 0 ? 0 : 1;
  for (started = first; started < nw; started++)
    if (pthread_create (&ws[started].tid, NULL, worker_main, &ws[started]) != 0)
      {
        set_error (&sc, -EAGAIN, "scan: cannot start worker thread %u", started);
        break;
      }
  if (first == 1)
    worker_main (&ws[0]);
  for (uint32_t i = first; i < started; i++)
    pthread_join (ws[i].tid, NULL);
  for (uint32_t i = 0; i < nw; i++)
    add_counters (&tot, &ws[i].cnt);
  rc = sc.error;
  for (uint32_t i = 0; rc == 0 && sc.agg_mode && i < nw; i++)
    rc = emit_worker_groups (&sc, ws[i].agg, &tot.groups_out);
  if (rc == 0)
    {
      struct ossd_scan_chunk last = { .last = true, .counters = tot };
      rc = req->sink (req->sink_arg, &last);
      if (rc < 0)
        snprintf (err, errlen, "scan: result sink failed (%d)", rc);
    }
  if (totals)
    *totals = tot;
out:
  if (ws)
    for (uint32_t i = 0; i < nw; i++)
      {
        free (ws[i].datums);
        free (ws[i].batch);
        ossd_agg_table_free (ws[i].agg);
        ossd_buf_free (&ws[i].rows);
        ossd_buf_free (&ws[i].hrows);
      }
  free (ws);
  free (sc.work);
  ossd_deform_plan_free (&sc.deform);
  ossd_bind_prog_free (&sc.fused);
  ossd_jit_deform_release (sc.jit_deform);
  free (sc.want);
  pthread_mutex_destroy (&sc.sink_mu);
  return rc;
}
