/* raid_engine_internal.h - what the engine's files share: the records of
 * requests, per-stripe sub-operations, conversions and drive I/Os, and the
 * helpers that issue drive I/Os.  Not part of the public interface.
 *
 * Every owner of drive I/Os (a request, a stripe operation, a conversion)
 * counts its I/Os in `pending`, starting at 1 while it issues them (a
 * guard, dropped last), so an I/O that fails at submit and completes at
 * once cannot finish its owner half-issued.
 */
#ifndef RAID_ENGINE_INTERNAL_H
#define RAID_ENGINE_INTERNAL_H

#include "ossd_raid.h"

enum owner_kind
{
  OWN_REQ = 0,                /* a read (or a fusion write) of a request */
  OWN_SOP = 1,                /* one stripe of a fixed-layout write */
  OWN_CONV = 2,               /* a conversion */
  OWN_NONE = 3,               /* trims: nobody waits */
};

struct pool
{
  char *mem;
  size_t size;                /* record size; first field: uint32_t next */
  uint32_t cap, free_head, used;
};

struct req
{
  uint32_t next;
  uint32_t vol, n;
  uint32_t pending;
  uint64_t unit, user_tag;
  int status;
  uint64_t t_last;            /* latest completion among its I/Os */
  bool write;
};

/* A fixed-layout write's work on one stripe: phase 0 reads (old data and
 * parity, or the other data), phase 1 writes data and parity. */
enum sop_mode
{
  SOP_FULL = 0,
  SOP_RMW = 1,
  SOP_RCW = 2,
};

struct sop
{
  uint32_t next;
  uint32_t req;
  uint32_t pos0, m;           /* data positions [pos0, pos0 + m) written */
  uint32_t pending;
  uint64_t stripe;
  uint8_t mode, phase;
};

struct conv
{
  uint32_t next;
  uint32_t pending;
  uint64_t stripe;
  uint8_t phase;              /* 0: reading data, 1: writing parity */
  int status;
};

struct io_rec
{
  uint32_t next;
  uint32_t owner;
  uint32_t drive;
  uint8_t owner_kind, kind;
  uint64_t t_submit;
  uint64_t stripe;            /* fusion data writes: the stripe, else ~0 */
};

struct raid_engine
{
  struct raid_engine_config c;
  struct raid_layout L;
  const struct raid_drive_ops *ops;
  void *ops_ctx;
  raid_done_fn done;
  void *done_arg;
  struct raid_monitor *mon;
  struct raid_space *sp;      /* FUSION */
  uint64_t **fbmt;            /* FUSION: per volume, unit -> block */
  uint64_t stripes_per_vol;
  struct pool reqs, sops, convs, ios;
  uint32_t conv_inflight;
  bool draining;
  uint64_t outstanding;       /* drive I/Os in flight */
  struct raid_engine_stats st;
  int err;
  raid_error errmsg;
};

/* pools (raid_engine.c) */
uint32_t pool_get (struct pool *p);
void *pool_at (struct pool *p, uint32_t i);
void pool_put (struct pool *p, uint32_t i);

/* Issue one drive I/O on behalf of an owner (raid_engine.c). */
void eng_io (struct raid_engine *e, enum owner_kind ok, uint32_t owner,
             uint32_t drive, enum raid_io_kind kind, uint64_t offset,
             uint32_t units, uint64_t stripe);
/* Issue reads of a list of units, adjacent units of a drive merged. */
void eng_read_units (struct raid_engine *e, enum owner_kind ok, uint32_t owner,
                     struct raid_unit_addr *u, uint32_t n);
void eng_trims (struct raid_engine *e, const struct raid_trim *t);
/* One I/O of request r ended (or its guard was dropped): finish it at 0. */
void eng_req_put (struct raid_engine *e, uint32_t r, uint64_t t, int status);
void eng_set_error (struct raid_engine *e, int r, const char *msg);
static inline uint64_t
eng_now (struct raid_engine *e)
{
  return e->ops->now (e->ops_ctx);
}

/* fixed layouts (raid_engine_fixed.c) */
int fixed_submit (struct raid_engine *e, uint32_t r);
void fixed_sop_put (struct raid_engine *e, uint32_t s, uint64_t t, int status);

/* fusion (raid_engine_fusion.c) */
int fusion_init (struct raid_engine *e, raid_error *err);
void fusion_fini (struct raid_engine *e);
int fusion_submit (struct raid_engine *e, uint32_t r);
void fusion_io_done (struct raid_engine *e, const struct io_rec *io);
void fusion_conv_put (struct raid_engine *e, uint32_t c, uint64_t t,
                      int status);
void fusion_pump (struct raid_engine *e);

#endif
