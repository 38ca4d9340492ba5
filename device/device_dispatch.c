/* device_dispatch.c - the command dispatcher: one decoded ossd.Request in,
 * one ossd.Response queued on the slot (SCAN streams several from its own
 * thread).  Every failure answers with a status and a reason naming the
 * command and the object. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"
#include "ossd_scan.h"

#define MAX_READ_BYTES (32u << 20)
#define MAX_LIST 4096u

Ossd__Status
device_status_from_errno (int err)
{
  switch (err < 0 ? -err : err)
    {
    case 0: return OSSD__STATUS__OK;
    case ENOENT: return OSSD__STATUS__ERR_NOT_FOUND;
    case EEXIST: return OSSD__STATUS__ERR_EXISTS;
    case ENOSPC: return OSSD__STATUS__ERR_NO_SPACE;
    case ENOTEMPTY: return OSSD__STATUS__ERR_NOT_EMPTY;
    case ESTALE: return OSSD__STATUS__ERR_VERSION;
    case EINVAL: case ERANGE: return OSSD__STATUS__ERR_INVALID;
    case EFBIG: case EMSGSIZE: return OSSD__STATUS__ERR_TOO_LARGE;
    case ENOTSUP: return OSSD__STATUS__ERR_UNSUPPORTED;
    case ECANCELED: return OSSD__STATUS__ERR_CANCELLED;
    case ENOSYS: return OSSD__STATUS__ERR_UNKNOWN_COMMAND;
    case EACCES: return OSSD__STATUS__ERR_PERMISSION;
    default: return OSSD__STATUS__ERR_IO;
    }
}

/* Queue an error response: "<COMMAND> (pid P, oid O): <detail>". */
static void
fail (struct ossd_slot *s, uint64_t seq, int err, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
static void
fail (struct ossd_slot *s, uint64_t seq, int err, const char *fmt, ...)
{
  char reason[512];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (reason, sizeof reason, fmt, ap);
  va_end (ap);
  device_slot_respond_error (s, seq, device_status_from_errno (err), reason);
}

static void
ok (struct ossd_slot *s, uint64_t seq, Ossd__Response *r)
{
  Ossd__Response empty = OSSD__RESPONSE__INIT;
  device_slot_respond (s, seq, r ? r : &empty, false);
}

static bool
check_obj (struct ossd_slot *s, uint64_t seq, const char *cmd,
           const Ossd__ObjectId *o)
{
  if (!o)
    {
      fail (s, seq, -EINVAL, "%s: no object id in the request", cmd);
      return false;
    }
  if (o->pid == OSSD_SYS_PID)
    {
      fail (s, seq, -EINVAL, "%s (pid 0, oid %llu): partition 0 is the drive's system partition",
            cmd, (unsigned long long) o->oid);
      return false;
    }
  return true;
}

/* How many IDs a listing returns, all pages of it (-errno on failure). */
static int64_t
count_listed (ossd_device_t *dev, bool parts, uint64_t pid, ftl_error *fe)
{
  uint64_t ids[256], after = 0;
  int64_t total = 0;
  size_t n;
  int e;

  do
    {
      e = parts ? ftl_list_partitions (dev->ftl, after, ids, 256, &n, fe)
        : ftl_list_objects (dev->ftl, pid, after, ids, 256, &n, fe);
      if (e < 0)
        return e;
      total += (int64_t) n;
      if (n)
        after = ids[n - 1];
    }
  while (n == 256);
  return total;
}

static void
cmd_info (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__InfoResult info = OSSD__INFO_RESULT__INIT;
  struct ftl_device_info fi;
  ftl_error fe = { "" };
  int e = ftl_get_info (dev->ftl, &fi, &fe);

  if (e < 0)
    return fail (s, seq, e, "INFO: %s", fe.msg);
  info.capacity_bytes = fi.capacity_bytes;
  info.used_bytes = fi.used_bytes;
  info.free_bytes = fi.free_bytes;
  info.volume_bytes = dev->volume_bytes;
  info.lba_size = OSSD_LBA_SIZE;
  info.reserved_base_lba = dev->control.reserved_base;
  info.slots = dev->slot_count;
  info.window_lbas = dev->window_lbas;
  info.page_size = fi.page_size;
  info.profile = fi.profile;
  info.mapping_mode = (char *) ftl_mapping_mode_name (fi.mapping_mode);
  info.alloc_policy = (char *) ftl_alloc_policy_name (fi.alloc_policy);
  info.gc_policy = (char *) ftl_gc_policy_name (fi.gc_policy);
  /* What a host can see: the system partition (block volume, kernels)
   * is counted by neither, as LIST PARTITIONS does not show it. */
  int64_t sys_objects = count_listed (dev, false, OSSD_SYS_PID, &fe);
  int64_t user_parts = count_listed (dev, true, 0, &fe);
  if (sys_objects < 0 || user_parts < 0)
    return fail (s, seq, sys_objects < 0 ? (int) sys_objects : (int) user_parts,
                 "INFO: %s", fe.msg);
  info.objects = fi.objects - (uint64_t) sys_objects;
  info.partitions = (uint64_t) user_parts;
  info.firmware = (char *) OSSD_FIRMWARE_VERSION;
  info.channels = fi.channels;
  info.ways = fi.ways;
  info.planes = fi.planes;
  info.blocks_per_plane = fi.blocks_per_plane;
  info.pages_per_block = fi.pages_per_block;
  info.backend = fi.backend;
  info.scan_workers = dev->opts.scan_workers;
  info.feature_bits = dev->control.feature_bits;
  info.format_profile = fi.format_profile;
  info.paced = fi.paced;
  info.time_channels = fi.time_channels;
  info.time_dies = fi.time_dies;
  info.channel_mbps = fi.channel_mbps;
  info.link_mbps = fi.link_mbps;
  info.read_ns = fi.read_ns;
  info.model_scan_mbps = fi.model_scan_mbps;
  info.model_read_mbps = fi.model_read_mbps;
  r.body_case = OSSD__RESPONSE__BODY_INFO;
  r.info = &info;
  ok (s, seq, &r);
}

#define MAX_STAT_ENTRIES 64
struct stats_builder
{
  Ossd__StatsResult__CountersEntry c[MAX_STAT_ENTRIES];
  Ossd__StatsResult__CountersEntry *cp[MAX_STAT_ENTRIES];
  Ossd__StatsResult__GaugesEntry g[MAX_STAT_ENTRIES];
  Ossd__StatsResult__GaugesEntry *gp[MAX_STAT_ENTRIES];
  size_t nc, ng;
};

static void
sb_counter (struct stats_builder *b, const char *k, uint64_t v)
{
  if (b->nc == MAX_STAT_ENTRIES)
    return;
  ossd__stats_result__counters_entry__init (&b->c[b->nc]);
  b->c[b->nc].key = (char *) k;
  b->c[b->nc].value = v;
  b->cp[b->nc] = &b->c[b->nc];
  b->nc++;
}

static void
sb_gauge (struct stats_builder *b, const char *k, double v)
{
  if (b->ng == MAX_STAT_ENTRIES)
    return;
  ossd__stats_result__gauges_entry__init (&b->g[b->ng]);
  b->g[b->ng].key = (char *) k;
  b->g[b->ng].value = v;
  b->gp[b->ng] = &b->g[b->ng];
  b->ng++;
}

static void
cmd_stats (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
           const Ossd__Stats *req)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__StatsResult res = OSSD__STATS_RESULT__INIT;
  struct stats_builder *b = calloc (1, sizeof *b);
  struct ftl_stats st;
  ftl_error fe = { "" };
  int e;

  if (!b)
    return fail (s, seq, -ENOMEM, "STATS: out of memory");
  e = ftl_get_stats (dev->ftl, &st, &fe);
  if (e < 0)
    {
      free (b);
      return fail (s, seq, e, "STATS: %s", fe.msg);
    }
  sb_counter (b, "host_reads", st.host_reads);
  sb_counter (b, "host_writes", st.host_writes);
  sb_counter (b, "host_read_bytes", st.host_read_bytes);
  sb_counter (b, "host_write_bytes", st.host_write_bytes);
  sb_counter (b, "nand_reads", st.nand_reads);
  sb_counter (b, "nand_programs", st.nand_programs);
  sb_counter (b, "nand_erases", st.nand_erases);
  sb_counter (b, "gc_valid_copies", st.gc_valid_copies);
  sb_counter (b, "gc_corrupt_copies", st.gc_corrupt_copies);
  sb_counter (b, "gc_layout_kept_pages", st.gc_layout_kept_pages);
  sb_counter (b, "gc_layout_moved_pages", st.gc_layout_moved_pages);
  sb_counter (b, "wl_migrations", st.wl_migrations);
  sb_counter (b, "gc_runs", st.gc_runs);
  sb_counter (b, "map_cache_hits", st.map_cache_hits);
  sb_counter (b, "map_cache_misses", st.map_cache_misses);
  sb_counter (b, "map_cache_evictions", st.map_cache_evictions);
  sb_counter (b, "map_reads", st.map_reads);
  sb_counter (b, "map_writes", st.map_writes);
  sb_counter (b, "max_nand_reads_per_host_read", st.max_nand_reads_per_host_read);
  sb_counter (b, "erase_count_min", st.erase_count_min);
  sb_counter (b, "erase_count_max", st.erase_count_max);
  sb_counter (b, "bad_blocks", st.bad_blocks);
  sb_counter (b, "free_blocks", st.free_blocks);
  sb_counter (b, "virtual_time_ns", st.virtual_time_ns);
  sb_counter (b, "read_lat_p50_ns", st.read_lat_p50);
  sb_counter (b, "read_lat_p99_ns", st.read_lat_p99);
  sb_counter (b, "read_lat_p999_ns", st.read_lat_p999);
  sb_counter (b, "write_lat_p50_ns", st.write_lat_p50);
  sb_counter (b, "write_lat_p99_ns", st.write_lat_p99);
  sb_counter (b, "write_lat_p999_ns", st.write_lat_p999);
  sb_counter (b, "channel_frames_in", atomic_load (&dev->ctr.frames_in));
  sb_counter (b, "channel_frames_out", atomic_load (&dev->ctr.frames_out));
  sb_counter (b, "channel_frame_errors", atomic_load (&dev->ctr.frame_errors));
  sb_counter (b, "channel_bytes_in", atomic_load (&dev->ctr.channel_bytes_in));
  sb_counter (b, "channel_bytes_out", atomic_load (&dev->ctr.channel_bytes_out));
  sb_counter (b, "commands", atomic_load (&dev->ctr.commands));
  sb_counter (b, "volume_reads", atomic_load (&dev->ctr.volume_reads));
  sb_counter (b, "volume_writes", atomic_load (&dev->ctr.volume_writes));
  sb_counter (b, "volume_bytes_read", atomic_load (&dev->ctr.volume_bytes_read));
  sb_counter (b, "volume_bytes_written", atomic_load (&dev->ctr.volume_bytes_written));
  sb_counter (b, "scans", atomic_load (&dev->ctr.scans));
  sb_counter (b, "scan_bytes_out", atomic_load (&dev->ctr.scan_bytes_out));
  sb_counter (b, "scan_blocks", atomic_load (&dev->ctr.scan_blocks));
  /* pages whose checksum a scan took as verified before, and verified */
  sb_counter (b, "scan_checksums_known",
              atomic_load (&dev->ctr.scan_checksums_known));
  sb_counter (b, "scan_checksums_verified",
              atomic_load (&dev->ctr.scan_checksums_verified));
  sb_counter (b, "cap_checks", atomic_load (&dev->ctr.cap_checks));
  sb_counter (b, "cap_refusals", atomic_load (&dev->ctr.cap_refusals));
  sb_counter (b, "cap_mac_verified", atomic_load (&dev->ctr.cap_mac_verified));
  sb_counter (b, "pace_sleeps", st.pace_sleeps);
  sb_counter (b, "pace_sleep_ns", st.pace_sleep_ns);
  sb_counter (b, "link_bytes", st.link_bytes);
  sb_counter (b, "cache_drops", st.cache_drops);
  sb_counter (b, "relocated_sectors", st.relocated_sectors);
  sb_counter (b, "qos_yields", atomic_load (&dev->qos.yields));
  sb_counter (b, "qos_yield_us", atomic_load (&dev->qos.yield_ns) / 1000);
  sb_counter (b, "qos_bound_hits", atomic_load (&dev->qos.bound_hits));
  /* the die and channel queues (ftl/nand_queue.c) */
  sb_counter (b, "qos_nand_overtakes", st.qos_overtakes);
  sb_counter (b, "qos_nand_pushes", st.qos_pushes);
  sb_counter (b, "qos_nand_bound_hits", st.qos_bound_hits);
  sb_gauge (b, "waf", st.waf);
  sb_gauge (b, "nand_reads_per_host_read", st.nand_reads_per_host_read);
  sb_gauge (b, "erase_count_mean", st.erase_count_mean);
  sb_gauge (b, "map_cache_hit_rate",
            st.map_cache_hits + st.map_cache_misses
            ? (double) st.map_cache_hits / (double) (st.map_cache_hits + st.map_cache_misses)
            : 0.0);
  res.n_counters = b->nc;
  res.counters = b->cp;
  res.n_gauges = b->ng;
  res.gauges = b->gp;
  r.body_case = OSSD__RESPONSE__BODY_STATS;
  r.stats = &res;
  ok (s, seq, &r);
  if (req && req->reset)
    ftl_reset_stats (dev->ftl);
  free (b);
}

static void
respond_ids (struct ossd_slot *s, uint64_t seq, uint64_t *ids, size_t n,
             bool more)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__IdList l = OSSD__ID_LIST__INIT;

  l.n_ids = n;
  l.ids = ids;
  l.more = more;
  r.body_case = OSSD__RESPONSE__BODY_IDS;
  r.ids = &l;
  ok (s, seq, &r);
}

static void
cmd_list (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq, bool parts,
          uint64_t pid, uint64_t after, uint32_t max)
{
  ftl_error fe = { "" };
  size_t cap = max && max < MAX_LIST ? max : MAX_LIST, n = 0;
  uint64_t *ids = malloc ((cap + 1) * sizeof *ids);
  int e;

  if (!ids)
    return fail (s, seq, -ENOMEM, "LIST: out of memory");
  /* Ask for one more than returned to learn whether there are others. */
  if (parts)
    e = ftl_list_partitions (dev->ftl, after, ids, cap + 1, &n, &fe);
  else
    e = ftl_list_objects (dev->ftl, pid, after, ids, cap + 1, &n, &fe);
  if (e < 0)
    fail (s, seq, e, "%s: %s", parts ? "LIST PARTITIONS" : "LIST", fe.msg);
  else
    respond_ids (s, seq, ids, n > cap ? cap : n, n > cap);
  free (ids);
}

/* protobuf wire helpers for the READ fast path below. */
static size_t
put_varint (uint8_t *p, uint64_t v)
{
  size_t n = 0;
  while (v >= 0x80)
    {
      p[n++] = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  p[n++] = (uint8_t) v;
  return n;
}

static size_t
varint_len (uint64_t v)
{
  size_t n = 1;
  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

/* READ answers with bulk data, so its Response is built in place: when
 * the host reads the response window, the object's bytes go from the FTL
 * straight into the transport's buffer, laid out exactly as protobuf-c
 * would pack Response{read: ReadResult{data, object_size}} (status OK is
 * the default and so absent).  The unit tests decode it with protobuf-c. */
size_t
device_read_reply_size (const struct deferred_read *dr)
{
  size_t inner = (dr->want ? 1 + varint_len (dr->want) + dr->want : 0)
    + (dr->object_size ? 1 + varint_len (dr->object_size) : 0);
  return 1 + varint_len (inner) + inner;
}

int
device_read_reply_fill (ossd_device_t *dev, const struct deferred_read *dr,
                        uint8_t *dst, char *why, size_t whylen)
{
  size_t inner, n = 0, got = 0;
  ftl_error fe = { "" };
  int e;

  inner = (dr->want ? 1 + varint_len (dr->want) + dr->want : 0)
    + (dr->object_size ? 1 + varint_len (dr->object_size) : 0);
  dst[n++] = (OSSD__RESPONSE__BODY_READ << 3) | 2;
  n += put_varint (dst + n, inner);
  if (dr->want)
    {
      dst[n++] = (1 << 3) | 2;
      n += put_varint (dst + n, dr->want);
      pthread_rwlock_rdlock (&dev->ftl_lock);
      device_qos_begin (dev, dr->priority);
      /* paced: the data crosses the link while the NAND delivers it */
      uint64_t arrival = ftl_pace_clock (dev->ftl);
      e = ftl_read_prio (dev->ftl, device_qos_class (dev, dr->priority), dr->pid,
                         dr->oid, dr->offset, dst + n, dr->want, &got, &fe);
      if (e == 0)
        ftl_link_transfer (dev->ftl, got, arrival);
      device_qos_end (dev, dr->priority);
      pthread_rwlock_unlock (&dev->ftl_lock);
      if (e < 0)
        {
          snprintf (why, whylen, "READ (pid %llu, oid %llu, offset %llu, length %llu): %s",
                    (unsigned long long) dr->pid, (unsigned long long) dr->oid,
                    (unsigned long long) dr->offset, (unsigned long long) dr->want,
                    fe.msg);
          return e;
        }
      if (got != dr->want)
        {
          snprintf (why, whylen, "READ (pid %llu, oid %llu): the object shrank during the read",
                    (unsigned long long) dr->pid, (unsigned long long) dr->oid);
          return -EAGAIN;
        }
      n += dr->want;
    }
  if (dr->object_size)
    {
      dst[n++] = 2 << 3;
      put_varint (dst + n, dr->object_size);
    }
  return 0;
}

static void
cmd_read (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
          const Ossd__Read *rd)
{
  struct ftl_object_info info;
  struct deferred_read dr;
  ftl_error fe = { "" };
  int e;

  if (!check_obj (s, seq, "READ", rd->obj))
    return;
  if (rd->length > MAX_READ_BYTES)
    return fail (s, seq, -EFBIG, "READ (pid %llu, oid %llu): length %llu exceeds %u bytes per command",
                 (unsigned long long) rd->obj->pid, (unsigned long long) rd->obj->oid,
                 (unsigned long long) rd->length, MAX_READ_BYTES);
  e = ftl_stat_object (dev->ftl, rd->obj->pid, rd->obj->oid, &info, &fe);
  if (e < 0)
    return fail (s, seq, e, "READ (pid %llu, oid %llu, offset %llu, length %llu): %s",
                 (unsigned long long) rd->obj->pid, (unsigned long long) rd->obj->oid,
                 (unsigned long long) rd->offset, (unsigned long long) rd->length,
                 fe.msg);
  dr.pid = rd->obj->pid;
  dr.oid = rd->obj->oid;
  dr.offset = rd->offset;
  dr.object_size = info.size;
  dr.want = rd->offset >= info.size ? 0
    : (info.size - rd->offset < rd->length ? info.size - rd->offset : rd->length);
  dr.priority = info.priority;
  device_profile_read (dev, s->index, dr.pid, dr.oid, dr.offset, dr.want);
  device_slot_enqueue_read (s, seq, &dr, device_read_reply_size (&dr));
}

static void
respond_write (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
               const Ossd__ObjectId *o, uint64_t offset)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__WriteResult w = OSSD__WRITE_RESULT__INIT;
  struct ftl_object_info info = { 0 };

  ftl_stat_object (dev->ftl, o->pid, o->oid, &info, NULL);
  w.version = info.version;
  w.object_size = info.size;
  w.offset = offset;
  r.body_case = OSSD__RESPONSE__BODY_WRITE;
  r.write = &w;
  ok (s, seq, &r);
}

static void
cmd_write (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
           const Ossd__Write *w)
{
  ftl_error fe = { "" };
  int e;

  if (!check_obj (s, seq, "WRITE", w->obj))
    return;
  struct ftl_object_info info = { .priority = FTL_PRIORITY_DEFAULT };
  ftl_stat_object (dev->ftl, w->obj->pid, w->obj->oid, &info, NULL);
  device_qos_begin (dev, info.priority);
  ftl_link_transfer (dev->ftl, w->data.len, ftl_pace_clock (dev->ftl));
  if (w->expect_version)
    {
      struct ftl_op op = { .kind = FTL_OP_WRITE, .pid = w->obj->pid,
        .oid = w->obj->oid, .off = w->offset, .len = w->data.len,
        .data = w->data.data, .expect_version = w->expect_version };
      e = ftl_apply_batch (dev->ftl, &op, 1, NULL, &fe);
    }
  else
    e = ftl_write_prio (dev->ftl, device_qos_class (dev, info.priority),
                        w->obj->pid, w->obj->oid, w->offset, w->data.data,
                        w->data.len, &fe);
  device_qos_end (dev, info.priority);
  if (e < 0)
    return fail (s, seq, e, "WRITE (pid %llu, oid %llu, offset %llu, %zu bytes): %s",
                 (unsigned long long) w->obj->pid, (unsigned long long) w->obj->oid,
                 (unsigned long long) w->offset, w->data.len, fe.msg);
  respond_write (dev, s, seq, w->obj, w->offset);
}

/* APPEND: write at the current end, atomically against other writers
 * through a conditional write on the object's version. */
static void
cmd_append (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
            const Ossd__Append *a)
{
  ftl_error fe = { "" };
  struct ftl_object_info info;
  int e;

  if (!check_obj (s, seq, "APPEND", a->obj))
    return;
  ftl_link_transfer (dev->ftl, a->data.len, ftl_pace_clock (dev->ftl));
  for (int tries = 0; tries < 1000; tries++)
    {
      e = ftl_stat_object (dev->ftl, a->obj->pid, a->obj->oid, &info, &fe);
      if (e < 0)
        break;
      struct ftl_op op = { .kind = FTL_OP_WRITE, .pid = a->obj->pid,
        .oid = a->obj->oid, .off = info.size, .len = a->data.len,
        .data = a->data.data, .expect_version = info.version };
      e = ftl_apply_batch (dev->ftl, &op, 1, NULL, &fe);
      if (e != -ESTALE)
        break;
    }
  if (e < 0)
    return fail (s, seq, e, "APPEND (pid %llu, oid %llu, %zu bytes): %s",
                 (unsigned long long) a->obj->pid, (unsigned long long) a->obj->oid,
                 a->data.len, fe.msg);
  respond_write (dev, s, seq, a->obj, info.size);
}

static void
cmd_get_attrs (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
               const Ossd__GetAttributes *g)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__AttributesResult res = OSSD__ATTRIBUTES_RESULT__INIT;
  struct ftl_object_info info;
  struct ftl_attr_id *ids = NULL;
  Ossd__Attribute *attrs = NULL, **attrp = NULL;
  uint8_t *vals = NULL;
  ftl_error fe = { "" };
  size_t n = 0;
  int e;

  if (!check_obj (s, seq, "GET ATTRIBUTES", g->obj))
    return;
  e = ftl_stat_object (dev->ftl, g->obj->pid, g->obj->oid, &info, &fe);
  if (e < 0)
    goto out;
  if (g->n_which)
    {
      n = g->n_which;
      ids = calloc (n, sizeof *ids);
      if (!ids)
        {
          e = -ENOMEM;
          goto out;
        }
      for (size_t i = 0; i < n; i++)
        ids[i] = (struct ftl_attr_id) { g->which[i]->page, g->which[i]->number };
    }
  else
    {
      struct ftl_attr_id after = { 0, 0 };
      size_t cap = 1024;
      ids = calloc (cap, sizeof *ids);
      if (!ids)
        {
          e = -ENOMEM;
          goto out;
        }
      /* (0,0) is never a valid attribute id: start the listing before it. */
      e = ftl_list_attrs (dev->ftl, g->obj->pid, g->obj->oid, after, ids,
                          cap, &n, &fe);
      if (e < 0)
        goto out;
    }
  attrs = calloc (n ? n : 1, sizeof *attrs);
  attrp = calloc (n ? n : 1, sizeof *attrp);
  vals = malloc ((n ? n : 1) * FTL_ATTR_MAX_LEN);
  if (!attrs || !attrp || !vals)
    {
      e = -ENOMEM;
      goto out;
    }
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    {
      size_t len = 0;
      uint8_t *v = vals + kept * FTL_ATTR_MAX_LEN;
      e = ftl_get_attr (dev->ftl, g->obj->pid, g->obj->oid, ids[i].page,
                        ids[i].number, v, FTL_ATTR_MAX_LEN, &len, &fe);
      if (e == -ENOENT && g->n_which)
        {
          e = 0;                /* absent attributes are simply omitted */
          continue;
        }
      if (e < 0)
        goto out;
      ossd__attribute__init (&attrs[kept]);
      attrs[kept].page = ids[i].page;
      attrs[kept].number = ids[i].number;
      attrs[kept].value.data = v;
      attrs[kept].value.len = len < FTL_ATTR_MAX_LEN ? len : FTL_ATTR_MAX_LEN;
      attrp[kept] = &attrs[kept];
      kept++;
    }
  res.n_attrs = kept;
  res.attrs = attrp;
  res.size = info.size;
  res.version = info.version;
  res.ctime_ns = info.ctime_ns;
  res.mtime_ns = info.mtime_ns;
  res.allocated = info.allocated;
  r.body_case = OSSD__RESPONSE__BODY_ATTRIBUTES;
  r.attributes = &res;
  ok (s, seq, &r);
out:
  if (e < 0)
    fail (s, seq, e, "GET ATTRIBUTES (pid %llu, oid %llu): %s",
          (unsigned long long) g->obj->pid, (unsigned long long) g->obj->oid,
          fe.msg[0] ? fe.msg : strerror (-e));
  free (ids);
  free (attrs);
  free (attrp);
  free (vals);
}

/* Translate compound ops into FTL batch ops (SET ATTRIBUTES expands to one
 * op per attribute).  Returns the number of ops or a negative errno. */
static int
compound_to_batch (Ossd__CompoundOp *const *cops, size_t n,
                   struct ftl_op **out, uint32_t **origin, char *why,
                   size_t whylen)
{
  size_t cap = 0, k = 0;
  struct ftl_op *ops;

  for (size_t i = 0; i < n; i++)
    cap += cops[i]->op_case == OSSD__COMPOUND_OP__OP_SET_ATTRIBUTES
      ? cops[i]->set_attributes->n_attrs : 1;
  ops = calloc (cap ? cap : 1, sizeof *ops);
  *origin = calloc (cap ? cap : 1, sizeof **origin);
  if (!ops || !*origin)
    {
      free (ops);
      return -ENOMEM;
    }
  for (size_t i = 0; i < n; i++)
    {
      const Ossd__CompoundOp *c = cops[i];
      const Ossd__ObjectId *o = NULL;
      struct ftl_op op = { 0 };

      switch (c->op_case)
        {
        case OSSD__COMPOUND_OP__OP_CREATE:
          o = c->create->obj;
          /* not exclusive: an object that exists is left as it is */
          op.kind = c->create->exclusive ? FTL_OP_CREATE_OBJECT
            : FTL_OP_ENSURE_OBJECT;
          break;
        case OSSD__COMPOUND_OP__OP_REMOVE:
          o = c->remove->obj;
          op.kind = FTL_OP_REMOVE_OBJECT;
          break;
        case OSSD__COMPOUND_OP__OP_WRITE:
          o = c->write->obj;
          op.kind = FTL_OP_WRITE;
          op.off = c->write->offset;
          op.len = c->write->data.len;
          op.data = c->write->data.data;
          op.expect_version = c->write->expect_version;
          break;
        case OSSD__COMPOUND_OP__OP_PUNCH:
          o = c->punch->obj;
          op.kind = FTL_OP_PUNCH;
          op.off = c->punch->offset;
          op.len = c->punch->length;
          break;
        case OSSD__COMPOUND_OP__OP_SET_LENGTH:
          o = c->set_length->obj;
          op.kind = FTL_OP_SET_LENGTH;
          op.len = c->set_length->length;
          break;
        case OSSD__COMPOUND_OP__OP_SET_ATTRIBUTES:
          o = c->set_attributes->obj;
          break;
        default:
          snprintf (why, whylen, "op %zu has no command", i);
          goto bad;
        }
      if (!o || o->pid == OSSD_SYS_PID)
        {
          snprintf (why, whylen, "op %zu: %s", i,
                    o ? "partition 0 is the drive's system partition"
                    : "no object id");
          goto bad;
        }
      if (c->op_case == OSSD__COMPOUND_OP__OP_SET_ATTRIBUTES)
        {
          for (size_t a = 0; a < c->set_attributes->n_attrs; a++)
            {
              const Ossd__Attribute *at = c->set_attributes->attrs[a];
              ops[k] = (struct ftl_op) { .kind = FTL_OP_SET_ATTR,
                .pid = o->pid, .oid = o->oid, .attr_page = at->page,
                .attr_number = at->number, .len = at->value.len,
                .data = at->value.data };
              (*origin)[k++] = (uint32_t) i;
            }
          continue;
        }
      op.pid = o->pid;
      op.oid = o->oid;
      ops[k] = op;
      (*origin)[k++] = (uint32_t) i;
    }
  *out = ops;
  return (int) k;
bad:
  free (ops);
  free (*origin);
  *origin = NULL;
  return -EINVAL;
}

static void
run_batch (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
           const char *cmd, Ossd__CompoundOp *const *cops, size_t n,
           const Ossd__ObjectId *reply_obj)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__CompoundResult cr = OSSD__COMPOUND_RESULT__INIT;
  struct ftl_op *ops = NULL;
  uint32_t *origin = NULL;
  char why[256];
  ftl_error fe = { "" };
  size_t failed = 0;
  int k, e;

  k = compound_to_batch (cops, n, &ops, &origin, why, sizeof why);
  if (k < 0)
    return fail (s, seq, k, "%s: %s", cmd, why);
  e = ftl_apply_batch (dev->ftl, ops, (size_t) k, &failed, &fe);
  if (e < 0)
    {
      uint32_t at = (size_t) k > failed ? origin[failed] : 0;
      fail (s, seq, e, "%s: op %u failed, nothing applied: %s", cmd, at, fe.msg);
    }
  else if (reply_obj)
    {
      Ossd__GetAttributes all = OSSD__GET_ATTRIBUTES__INIT;
      all.obj = (Ossd__ObjectId *) reply_obj;
      cmd_get_attrs (dev, s, seq, &all);
    }
  else
    {
      r.body_case = OSSD__RESPONSE__BODY_COMPOUND;
      r.compound = &cr;
      ok (s, seq, &r);
    }
  free (ops);
  free (origin);
}

static void
cmd_set_attrs (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
               Ossd__SetAttributes *sa)
{
  Ossd__CompoundOp op = OSSD__COMPOUND_OP__INIT, *opp = &op;

  if (!check_obj (s, seq, "SET ATTRIBUTES", sa->obj))
    return;
  for (size_t i = 0; i < sa->n_attrs; i++)
    {
      char why[160];

      if (sa->attrs[i]->value.len > FTL_ATTR_MAX_LEN)
        return fail (s, seq, -EFBIG, "SET ATTRIBUTES (pid %llu, oid %llu): attribute (%u, %u) is %zu bytes, the limit is %u",
                     (unsigned long long) sa->obj->pid, (unsigned long long) sa->obj->oid,
                     sa->attrs[i]->page, sa->attrs[i]->number,
                     sa->attrs[i]->value.len, FTL_ATTR_MAX_LEN);
      if (device_qos_check_attr (sa->attrs[i], why, sizeof why) < 0)
        return fail (s, seq, -EINVAL, "SET ATTRIBUTES (pid %llu, oid %llu): %s",
                     (unsigned long long) sa->obj->pid, (unsigned long long) sa->obj->oid,
                     why);
    }
  op.op_case = OSSD__COMPOUND_OP__OP_SET_ATTRIBUTES;
  op.set_attributes = sa;
  run_batch (dev, s, seq, "SET ATTRIBUTES", &opp, 1, sa->obj);
}

/* CAS: compare `expected` with the bytes at offset and write `desired`
 * only if they match, as one conditional write on the object's version. */
static void
cmd_cas (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
         const Ossd__Cas *c)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__CasResult cr = OSSD__CAS_RESULT__INIT;
  uint8_t cur[64];
  ftl_error fe = { "" };
  struct ftl_object_info info;
  size_t got;
  int e;

  if (!check_obj (s, seq, "CAS", c->obj))
    return;
  if (c->expected.len != c->desired.len || c->expected.len == 0
      || c->expected.len > sizeof cur)
    return fail (s, seq, -EINVAL, "CAS (pid %llu, oid %llu): expected and desired must have the same length, 1..%zu bytes (got %zu and %zu)",
                 (unsigned long long) c->obj->pid, (unsigned long long) c->obj->oid,
                 sizeof cur, c->expected.len, c->desired.len);
  for (int tries = 0; tries < 1000; tries++)
    {
      e = ftl_stat_object (dev->ftl, c->obj->pid, c->obj->oid, &info, &fe);
      if (e == 0)
        e = ftl_read (dev->ftl, c->obj->pid, c->obj->oid, c->offset, cur,
                      c->expected.len, &got, &fe);
      if (e < 0)
        break;
      if (got < c->expected.len)
        memset (cur + got, 0, c->expected.len - got);
      cr.swapped = memcmp (cur, c->expected.data, c->expected.len) == 0;
      if (!cr.swapped)
        break;
      struct ftl_op op = { .kind = FTL_OP_WRITE, .pid = c->obj->pid,
        .oid = c->obj->oid, .off = c->offset, .len = c->desired.len,
        .data = c->desired.data, .expect_version = info.version };
      e = ftl_apply_batch (dev->ftl, &op, 1, NULL, &fe);
      if (e != -ESTALE)
        break;
    }
  if (e < 0)
    return fail (s, seq, e, "CAS (pid %llu, oid %llu, offset %llu): %s",
                 (unsigned long long) c->obj->pid, (unsigned long long) c->obj->oid,
                 (unsigned long long) c->offset, fe.msg);
  ftl_stat_object (dev->ftl, c->obj->pid, c->obj->oid, &info, NULL);
  cr.current.data = cr.swapped ? c->desired.data : cur;
  cr.current.len = c->expected.len;
  cr.version = info.version;
  r.body_case = OSSD__RESPONSE__BODY_CAS;
  r.cas = &cr;
  ok (s, seq, &r);
}

/* FSCK's problem list: the first FSCK_LIST_MAX lines (a response window
 * holds them with room to spare). */
#define FSCK_LIST_MAX 256
struct fsck_list
{
  char **line;
  size_t n;
};

static void
fsck_list_add (void *arg, const char *problem)
{
  struct fsck_list *fl = arg;
  char **grown, *copy;

  if (fl->n >= FSCK_LIST_MAX)
    return;
  if (fl->n % 32 == 0)
    {
      grown = realloc (fl->line, (fl->n + 32) * sizeof *grown);
      if (!grown)
        return;
      fl->line = grown;
    }
  copy = strdup (problem);
  if (copy)
    fl->line[fl->n++] = copy;
}

static void
cmd_format (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
            const Ossd__Format *f)
{
  Ossd__FtlConfig defaults = OSSD__FTL_CONFIG__INIT;
  char why[300];
  int e;

  if (f->volume_bytes && f->volume_bytes != dev->volume_bytes)
    return fail (s, seq, -EINVAL, "FORMAT: the block volume is %llu bytes while the drive serves; restart the drive with the new size (asked for %llu)",
                 (unsigned long long) dev->volume_bytes,
                 (unsigned long long) f->volume_bytes);
  pthread_rwlock_wrlock (&dev->ftl_lock);
  device_kernels_close (dev);
  e = device_format_ftl (dev, f->config ? f->config : &defaults, why, sizeof why);
  if (e == 0)
    e = device_kernels_open (dev, why, sizeof why);
  else if (dev->ftl)
    {
      /* the format failed and the previous FTL is back: so are its kernels */
      char kwhy[300];
      if (device_kernels_open (dev, kwhy, sizeof kwhy) < 0)
        snprintf (why + strlen (why), sizeof why - strlen (why),
                  "; reloading the deployed kernels: %s", kwhy);
    }
  if (dev->ftl)
    {
      struct ftl_device_info fi;
      if (ftl_get_info (dev->ftl, &fi, NULL) == 0)
        dev->control.capacity_bytes = fi.capacity_bytes;
    }
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (e < 0)
    return fail (s, seq, e, "FORMAT: %s", why);
  device_event_post (dev, OSSD__EVENT_KIND__EV_FORMAT, s->index,
                     "drive formatted (capacity %llu bytes)",
                     (unsigned long long) dev->control.capacity_bytes);
  ok (s, seq, NULL);
}

void
device_dispatch (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                 const Ossd__Request *req)
{
  ftl_error fe = { "" };
  char why[512];
  int e = 0;

  device_note_activity (dev);   /* background relocation waits */
  /* Capabilities first: a refused command touches nothing. */
  pthread_rwlock_rdlock (&dev->ftl_lock);
  e = device_caps_check (dev, s, req, why, sizeof why);
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (e < 0)
    return device_slot_respond_error (s, seq, device_status_from_errno (e), why);

  if (req->body_case == OSSD__REQUEST__BODY_FORMAT)
    return cmd_format (dev, s, seq, req->format);
  if (!dev->ftl)
    return fail (s, seq, -EIO, "the drive has no FTL (a FORMAT failed and its image could not be opened again): format it");
  if (req->body_case == OSSD__REQUEST__BODY_SCAN)
    return device_scan_start (dev, s, seq, req);
  if (req->body_case == OSSD__REQUEST__BODY_PROFILE)
    return device_profile_command (dev, s, seq, req->profile);

  pthread_rwlock_rdlock (&dev->ftl_lock);
  switch (req->body_case)
    {
    case OSSD__REQUEST__BODY_INFO:
      cmd_info (dev, s, seq);
      break;
    case OSSD__REQUEST__BODY_STATS:
      cmd_stats (dev, s, seq, req->stats);
      break;
    case OSSD__REQUEST__BODY_FSCK:
      {
        Ossd__Response r = OSSD__RESPONSE__INIT;
        Ossd__FsckResult fr = OSSD__FSCK_RESULT__INIT;
        struct fsck_list fl = { NULL, 0 };
        uint64_t problems = 0;
        e = ftl_fsck_report (dev->ftl, &problems, fsck_list_add, &fl, &fe);
        fr.problems = problems;
        fr.first_problem = fe.msg;
        fr.problem_list = fl.line;
        fr.n_problem_list = fl.n;
        r.body_case = OSSD__RESPONSE__BODY_FSCK;
        r.fsck = &fr;
        if (e < 0 && problems == 0)
          fail (s, seq, e, "FSCK: %s", fe.msg);
        else
          ok (s, seq, &r);
        for (size_t i = 0; i < fl.n; i++)
          free (fl.line[i]);
        free (fl.line);
        break;
      }
    case OSSD__REQUEST__BODY_CREATE_PARTITION:
      if (req->create_partition->pid == OSSD_SYS_PID)
        fail (s, seq, -EEXIST, "CREATE PARTITION 0: partition 0 is the drive's system partition");
      else if ((e = ftl_create_partition (dev->ftl, req->create_partition->pid, &fe)) < 0)
        fail (s, seq, e, "CREATE PARTITION %llu: %s",
              (unsigned long long) req->create_partition->pid, fe.msg);
      else
        ok (s, seq, NULL);
      break;
    case OSSD__REQUEST__BODY_REMOVE_PARTITION:
      if (req->remove_partition->pid == OSSD_SYS_PID)
        fail (s, seq, -EINVAL, "REMOVE PARTITION 0: partition 0 is the drive's system partition");
      else if ((e = ftl_remove_partition (dev->ftl, req->remove_partition->pid, &fe)) < 0)
        fail (s, seq, e, "REMOVE PARTITION %llu: %s",
              (unsigned long long) req->remove_partition->pid, fe.msg);
      else
        ok (s, seq, NULL);
      break;
    case OSSD__REQUEST__BODY_LIST_PARTITIONS:
      cmd_list (dev, s, seq, true, 0, req->list_partitions->after,
                req->list_partitions->max);
      break;
    case OSSD__REQUEST__BODY_LIST:
      cmd_list (dev, s, seq, false, req->list->pid, req->list->after,
                req->list->max);
      break;
    case OSSD__REQUEST__BODY_CREATE:
      if (!check_obj (s, seq, "CREATE", req->create->obj))
        break;
      e = ftl_create_object (dev->ftl, req->create->obj->pid,
                             req->create->obj->oid, &fe);
      if (e == -EEXIST && !req->create->exclusive)
        e = 0;
      if (e < 0)
        fail (s, seq, e, "CREATE (pid %llu, oid %llu): %s",
              (unsigned long long) req->create->obj->pid,
              (unsigned long long) req->create->obj->oid, fe.msg);
      else
        respond_write (dev, s, seq, req->create->obj, 0);
      break;
    case OSSD__REQUEST__BODY_REMOVE:
      if (!check_obj (s, seq, "REMOVE", req->remove->obj))
        break;
      e = ftl_remove_object (dev->ftl, req->remove->obj->pid,
                             req->remove->obj->oid, &fe);
      if (e < 0)
        fail (s, seq, e, "REMOVE (pid %llu, oid %llu): %s",
              (unsigned long long) req->remove->obj->pid,
              (unsigned long long) req->remove->obj->oid, fe.msg);
      else
        ok (s, seq, NULL);
      break;
    case OSSD__REQUEST__BODY_READ:
      cmd_read (dev, s, seq, req->read);
      break;
    case OSSD__REQUEST__BODY_WRITE:
      cmd_write (dev, s, seq, req->write);
      break;
    case OSSD__REQUEST__BODY_APPEND:
      cmd_append (dev, s, seq, req->append);
      break;
    case OSSD__REQUEST__BODY_PUNCH:
      if (!check_obj (s, seq, "PUNCH", req->punch->obj))
        break;
      e = ftl_punch (dev->ftl, req->punch->obj->pid, req->punch->obj->oid,
                     req->punch->offset, req->punch->length, &fe);
      if (e < 0)
        fail (s, seq, e, "PUNCH (pid %llu, oid %llu, offset %llu, length %llu): %s",
              (unsigned long long) req->punch->obj->pid,
              (unsigned long long) req->punch->obj->oid,
              (unsigned long long) req->punch->offset,
              (unsigned long long) req->punch->length, fe.msg);
      else
        respond_write (dev, s, seq, req->punch->obj, req->punch->offset);
      break;
    case OSSD__REQUEST__BODY_SET_LENGTH:
      if (!check_obj (s, seq, "SET LENGTH", req->set_length->obj))
        break;
      e = ftl_set_length (dev->ftl, req->set_length->obj->pid,
                          req->set_length->obj->oid,
                          req->set_length->length, &fe);
      if (e < 0)
        fail (s, seq, e, "SET LENGTH (pid %llu, oid %llu, length %llu): %s",
              (unsigned long long) req->set_length->obj->pid,
              (unsigned long long) req->set_length->obj->oid,
              (unsigned long long) req->set_length->length, fe.msg);
      else
        respond_write (dev, s, seq, req->set_length->obj, 0);
      break;
    case OSSD__REQUEST__BODY_GET_ATTRIBUTES:
      cmd_get_attrs (dev, s, seq, req->get_attributes);
      break;
    case OSSD__REQUEST__BODY_SET_ATTRIBUTES:
      cmd_set_attrs (dev, s, seq, req->set_attributes);
      break;
    case OSSD__REQUEST__BODY_FLUSH:
      /* Every scope flushes the whole log: the FTL's durability point is
       * device-wide, which is at least what a narrower scope promises. */
      e = ftl_flush (dev->ftl, &fe);
      if (e == 0 && req->flush->drop_caches)
        {
          /* cold: the next reads come from the image's storage */
          e = ftl_drop_caches (dev->ftl, &fe);
          if (e == 0)
            device_log (dev, "caches dropped (FLUSH with drop_caches)");
        }
      if (e < 0)
        fail (s, seq, e, "FLUSH: %s", fe.msg);
      else
        ok (s, seq, NULL);
      break;
    case OSSD__REQUEST__BODY_CAS:
      cmd_cas (dev, s, seq, req->cas);
      break;
    case OSSD__REQUEST__BODY_COMPOUND:
      if (req->compound->n_ops == 0)
        fail (s, seq, -EINVAL, "COMPOUND: no ops");
      else
        run_batch (dev, s, seq, "COMPOUND", req->compound->ops,
                   req->compound->n_ops, NULL);
      break;
    case OSSD__REQUEST__BODY_KERNEL_DEPLOY:
      device_kernel_deploy (dev, s, seq, req->kernel_deploy);
      break;
    case OSSD__REQUEST__BODY_KERNEL_LIST:
      device_kernel_list (dev, s, seq);
      break;
    case OSSD__REQUEST__BODY_KERNEL_REMOVE:
      device_kernel_remove (dev, s, seq, req->kernel_remove);
      break;
    case OSSD__REQUEST__BODY_CANCEL:
      ok (s, seq, NULL);
      break;
    default:
      fail (s, seq, -ENOSYS, "unknown command (request body case %d): this drive runs %s",
            (int) req->body_case, OSSD_FIRMWARE_VERSION);
      break;
    }
  pthread_rwlock_unlock (&dev->ftl_lock);
}
