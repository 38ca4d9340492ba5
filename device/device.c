/* device.c - the drive's life cycle and its block address space: opening
 * (or formatting) the image, connections, and routing each block READ or
 * WRITE to the plain volume, the event window, a slot window or the
 * control LBA. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device_internal.h"
#include "ossd_jit.h"
#include "ossd_scan.h"

void
ossd_device_options_init (struct ossd_device_options *o)
{
  memset (o, 0, sizeof *o);
  o->capacity_bytes = 4ull << 30;
  o->volume_bytes = 64ull << 20;
  o->profile = NULL;            /* at format "default"; at start the image's */
  o->mapping_mode = -1;
  o->alloc_policy = -1;
  o->gc_policy = -1;
  o->slots = 32;
  o->window_lbas = 264;        /* 1 MiB of data + headers per chunk */
  o->lease_ms = 30000;
  o->poll_timeout_ms = 2000;
  o->scan_workers = 2;
  o->qos_defer_us = 2000;
  o->auto_relocate_idle_ms = 10000;
  o->auto_relocate_min_gain_pct = 20;
}

static void
device_build_control (ossd_device_t *dev)
{
  struct ossd_control *c = &dev->control;
  struct ftl_device_info fi;

  c->magic = OSSD_CONTROL_MAGIC;
  c->version = OSSD_PROTO_VERSION;
  c->lba_size_shift = 12;
  c->slot_count = dev->slot_count;
  c->window_lbas = dev->window_lbas;
  c->reserved_base = dev->volume_bytes / OSSD_LBA_SIZE;
  c->total_lbas = c->reserved_base
    + ossd_reserved_lbas (dev->slot_count, dev->window_lbas);
  if (ftl_get_info (dev->ftl, &fi, NULL) == 0)
    c->capacity_bytes = fi.capacity_bytes;
  c->feature_bits = OSSD_FEATURE_EVENTS | OSSD_FEATURE_COMPOUND
    | OSSD_FEATURE_SCAN | OSSD_FEATURE_ACK_IN_WRITE | OSSD_FEATURE_JOIN_FILTER
    | OSSD_FEATURE_CAPABILITIES | OSSD_FEATURE_PARITY_SCAN
    | OSSD_FEATURE_TEXT_SUBSTR;
  c->feature_bits &= ~dev->opts.hide_features;
  c->lease_ms = dev->opts.lease_ms;
  c->poll_timeout_ms = dev->opts.poll_timeout_ms;
  while (c->boot_nonce == 0
         && getrandom (&c->boot_nonce, sizeof c->boot_nonce, 0)
         != (ssize_t) sizeof c->boot_nonce)
    c->boot_nonce = (uint32_t) device_now_ns () | 1;
}

int
ossd_device_open (const struct ossd_device_options *opts,
                  ossd_device_t **out, char *why, size_t whylen)
{
  ossd_device_t *dev;
  ftl_error fe = { "" };
  struct stat st;
  bool exists, ram;
  int r;

  *out = NULL;
  dev = calloc (1, sizeof *dev);
  if (!dev)
    return -ENOMEM;
  dev->opts = *opts;
  if (dev->opts.lease_ms == 0)
    dev->opts.lease_ms = 30000;
  if (dev->opts.poll_timeout_ms == 0)
    dev->opts.poll_timeout_ms = 2000;
  if (dev->opts.scan_workers == 0)
    dev->opts.scan_workers = 2;
  dev->image = strdup (opts->image ? opts->image : "");
  dev->opts.image = dev->image;
  ram = dev->image[0] == '\0';
  pthread_rwlock_init (&dev->ftl_lock, NULL);
  pthread_mutex_init (&dev->conn_lock, NULL);
  device_events_init (&dev->events);
  dev->opts.key_file = NULL;   /* only used here, and not kept */
  r = device_caps_open (dev, opts->key_file, why, whylen);
  if (r < 0)
    goto fail;

  exists = !ram && stat (dev->image, &st) == 0 && st.st_size > 0;
  if (ram || opts->force_format || (!exists && opts->create))
    {
      Ossd__FtlConfig cfg = OSSD__FTL_CONFIG__INIT;
      cfg.profile = (char *) (opts->profile && *opts->profile ? opts->profile : "default");
      cfg.capacity_bytes = opts->capacity_bytes;
      cfg.mapping_mode = opts->mapping_mode < 0 ? 0 : opts->mapping_mode;
      cfg.alloc_policy = opts->alloc_policy < 0 ? 0 : opts->alloc_policy;
      cfg.gc_policy = opts->gc_policy < 0 ? 0 : opts->gc_policy;
      if (opts->volume_bytes % OSSD_LBA_SIZE)
        {
          snprintf (why, whylen, "volume size %llu is not a multiple of %u",
                    (unsigned long long) opts->volume_bytes, OSSD_LBA_SIZE);
          r = -EINVAL;
          goto fail;
        }
      if (opts->slots == 0 || opts->slots > OSSD_MAX_SLOTS
          || opts->window_lbas < 2)
        {
          snprintf (why, whylen, "slots must be 1..%u and the window at least 2 LBAs (got %u, %u)",
                    OSSD_MAX_SLOTS, opts->slots, opts->window_lbas);
          r = -EINVAL;
          goto fail;
        }
      dev->volume_bytes = opts->volume_bytes;
      dev->slot_count = opts->slots;
      dev->window_lbas = opts->window_lbas;
      r = device_format_ftl (dev, &cfg, why, whylen);
      if (r < 0)
        goto fail;
    }
  else if (!exists)
    {
      snprintf (why, whylen, "drive image %s does not exist (pass create to format a new one)",
                dev->image);
      r = -ENOENT;
      goto fail;
    }
  else
    {
      r = ftl_open (dev->image, &dev->ftl, &fe);
      if (r < 0)
        {
          snprintf (why, whylen, "cannot open drive image %s: %s",
                    dev->image, fe.msg);
          goto fail;
        }
      r = device_superblock_load (dev, why, whylen);
      if (r < 0)
        goto fail;
      /* the drive profile is chosen at start: the image keeps its format */
      if (opts->profile && *opts->profile
          && (r = ftl_set_profile (dev->ftl, opts->profile, &fe)) < 0)
        {
          snprintf (why, whylen, "%s", fe.msg);
          goto fail;
        }
    }
  device_build_control (dev);
  r = device_slots_init (dev, why, whylen);
  if (r < 0)
    goto fail;
  r = device_kernels_open (dev, why, whylen);
  if (r < 0)
    goto fail;
  dev->jit_cache = ossd_jit_cache_new (64);
  if (!dev->jit_cache)
    {
      r = -ENOMEM;
      goto fail;
    }
  /* one entry per heap page the drive can hold (bounded) */
  r = ossd_checksum_cache_new (dev->control.capacity_bytes / OSSD_PG_BLCKSZ,
                               &dev->checksum_cache);
  if (r < 0)
    {
      snprintf (why, whylen, "out of memory for the scans' checksum cache");
      goto fail;
    }
  r = device_profile_open (dev, why, whylen);
  if (r == 0)
    r = device_autoplan_open (dev, why, whylen);
  if (r == 0)
    r = device_relocate_open (dev, why, whylen);
  if (r == 0)
    r = device_persist_open (dev, why, whylen);
  if (r == 0)
    device_persist_restore (dev);   /* a lost record is logged, not fatal */
  if (r == 0 && (device_autoplan_enabled (dev) || device_persist_active (dev)))
    r = device_relocate_kick (dev);
  if (r < 0)
    goto fail;
  device_log (dev, "drive ready: %s, volume %llu MiB, %u slots of %u LBAs, capacity %llu MiB",
              ram ? "(ram)" : dev->image,
              (unsigned long long) (dev->volume_bytes >> 20), dev->slot_count,
              dev->window_lbas,
              (unsigned long long) (dev->control.capacity_bytes >> 20));
  *out = dev;
  return 0;

fail:
  ossd_device_close (dev);
  return r;
}

void
ossd_device_close (ossd_device_t *dev)
{
  if (!dev)
    return;
  /* the relocator's thread uses the FTL; the queue it leaves is saved
   * with the profile before it is freed */
  device_relocate_stop (dev);
  device_persist_save (dev, "close");
  device_persist_close (dev);
  device_relocate_close (dev);
  device_autoplan_close (dev);
  device_slots_destroy (dev);
  device_kernels_close (dev);
  if (dev->jit_cache)
    ossd_jit_cache_free (dev->jit_cache);
  ossd_checksum_cache_free (dev->checksum_cache);
  device_profile_close (dev);
  if (dev->ftl)
    {
      ftl_error fe;
      if (ftl_flush (dev->ftl, &fe) < 0)
        device_log (dev, "flush at close failed: %s", fe.msg);
      ftl_close (dev->ftl);
    }
  device_events_destroy (&dev->events);
  pthread_rwlock_destroy (&dev->ftl_lock);
  pthread_mutex_destroy (&dev->conn_lock);
  free (dev->image);
  free (dev);
}

uint64_t
ossd_device_size_bytes (ossd_device_t *dev)
{
  return dev->control.total_lbas * OSSD_LBA_SIZE;
}

uint64_t
ossd_device_volume_bytes (ossd_device_t *dev)
{
  return dev->volume_bytes;
}

ftl_t *
ossd_device_ftl (ossd_device_t *dev)
{
  return dev->ftl;
}

ossd_device_conn_t *
ossd_device_connect (ossd_device_t *dev, const char *peer)
{
  ossd_device_conn_t *c = calloc (1, sizeof *c);

  if (!c)
    return NULL;
  c->dev = dev;
  snprintf (c->peer, sizeof c->peer, "%s", peer ? peer : "?");
  pthread_mutex_lock (&dev->events.lock);
  c->event_cursor = dev->events.next_seq - 1;
  pthread_mutex_unlock (&dev->events.lock);
  pthread_mutex_lock (&dev->conn_lock);
  dev->connections++;
  pthread_mutex_unlock (&dev->conn_lock);
  return c;
}

void
ossd_device_disconnect (ossd_device_conn_t *c)
{
  if (!c)
    return;
  device_slots_release_conn (c->dev, c);
  pthread_mutex_lock (&c->dev->conn_lock);
  c->dev->connections--;
  pthread_mutex_unlock (&c->dev->conn_lock);
  free (c);
}

/* The control LBA is built on each read so the slot owners are current. */
static void
device_read_control (ossd_device_t *dev, uint8_t *lba)
{
  struct ossd_control c = dev->control;

  for (uint32_t i = 0; i < dev->slot_count; i++)
    {
      struct ossd_slot *s = &dev->slots[i];
      pthread_mutex_lock (&s->lock);
      if (s->owner_nonce && device_now_ms () <= s->lease_deadline_ms)
        c.slot_owner[i] = s->owner_nonce;
      pthread_mutex_unlock (&s->lock);
    }
  ossd_control_encode (&c, lba);
}

enum region_kind { R_VOLUME, R_EVENT, R_REQUEST, R_RESPONSE, R_CONTROL, R_OUTSIDE };

/* The part of an I/O at byte `off` (len bytes left) that lies in one
 * region of the address space. */
struct region_step
{
  enum region_kind kind;
  uint32_t slot;               /* R_REQUEST, R_RESPONSE */
  bool at_start;               /* begins at its window's first LBA */
  uint32_t n;                  /* bytes of this step */
};

static void
device_region_step (ossd_device_t *dev, uint64_t off, uint32_t len,
                    struct region_step *st)
{
  const struct ossd_control *c = &dev->control;
  uint64_t lba = off / OSSD_LBA_SIZE, first = lba, count = 1, rel;

  st->slot = 0;
  if (lba < c->reserved_base)
    {
      st->kind = R_VOLUME;
      count = c->reserved_base - lba;
    }
  else if (lba >= c->total_lbas)
    st->kind = R_OUTSIDE;
  else if (lba == c->total_lbas - 1)
    st->kind = R_CONTROL;
  else if (lba == ossd_event_lba (c))
    st->kind = R_EVENT;
  else
    {
      rel = lba - c->reserved_base - 1;
      st->slot = (uint32_t) (rel / (2ull * c->window_lbas));
      rel %= 2ull * c->window_lbas;
      st->kind = rel >= c->window_lbas ? R_RESPONSE : R_REQUEST;
      first = ossd_request_lba (c, st->slot)
        + (st->kind == R_RESPONSE ? c->window_lbas : 0);
      count = first + c->window_lbas - lba;
    }
  st->at_start = lba == first;
  st->n = count * OSSD_LBA_SIZE < len ? (uint32_t) (count * OSSD_LBA_SIZE) : len;
}

static int
check_range (ossd_device_t *dev, uint32_t len, uint64_t off, const char *op,
             char *why, size_t whylen)
{
  if (off % OSSD_LBA_SIZE || len % OSSD_LBA_SIZE || len == 0)
    {
      snprintf (why, whylen, "%s of %u bytes at %llu is not aligned to %u-byte LBAs",
                op, len, (unsigned long long) off, OSSD_LBA_SIZE);
      return -EINVAL;
    }
  if (off + len > ossd_device_size_bytes (dev))
    {
      snprintf (why, whylen, "%s of %u bytes at %llu ends past the device (%llu bytes)",
                op, len, (unsigned long long) off,
                (unsigned long long) ossd_device_size_bytes (dev));
      return -ENOSPC;
    }
  return 0;
}

static int
volume_io (ossd_device_t *dev, bool write, void *buf, uint64_t len,
           uint64_t off, char *why, size_t whylen)
{
  ftl_error fe = { "" };
  size_t got = 0;
  int r;

  device_note_activity (dev);
  pthread_rwlock_rdlock (&dev->ftl_lock);
  uint64_t arrival = ftl_pace_clock (dev->ftl);
  if (write)
    {
      ftl_link_transfer (dev->ftl, len, arrival);
      r = ftl_write (dev->ftl, OSSD_SYS_PID, OSSD_VOLUME_OID, off, buf, len, &fe);
    }
  else
    {
      r = ftl_read (dev->ftl, OSSD_SYS_PID, OSSD_VOLUME_OID, off, buf, len,
                    &got, &fe);
      if (r == 0)
        ftl_link_transfer (dev->ftl, len, arrival);
      if (r == 0 && got < len)
        memset ((uint8_t *) buf + got, 0, len - got);
    }
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (r < 0)
    snprintf (why, whylen, "volume %s of %llu bytes at %llu: %s",
              write ? "write" : "read", (unsigned long long) len,
              (unsigned long long) off, fe.msg);
  else if (write)
    {
      atomic_fetch_add (&dev->ctr.volume_writes, 1);
      atomic_fetch_add (&dev->ctr.volume_bytes_written, len);
    }
  else
    {
      atomic_fetch_add (&dev->ctr.volume_reads, 1);
      atomic_fetch_add (&dev->ctr.volume_bytes_read, len);
      device_profile_read (dev, dev->slot_count, OSSD_SYS_PID, OSSD_VOLUME_OID,
                           off, len);
    }
  return r;
}

int
ossd_device_pread (ossd_device_conn_t *conn, void *buf, uint32_t len,
                   uint64_t off, char *why, size_t whylen)
{
  ossd_device_t *dev = conn->dev;
  uint8_t *p = buf;
  int r = check_range (dev, len, off, "read", why, whylen);

  while (r == 0 && len)
    {
      struct region_step st;
      uint32_t n, slot;

      device_region_step (dev, off, len, &st);
      n = st.n;
      slot = st.slot;
      switch (st.kind)
        {
        case R_VOLUME:
          r = volume_io (dev, false, p, n, off, why, whylen);
          break;
        case R_CONTROL:
          device_read_control (dev, p);
          break;
        case R_EVENT:
          r = device_events_read (dev, &conn->event_cursor, p, n,
                                  dev->opts.poll_timeout_ms);
          break;
        case R_RESPONSE:
          if (!st.at_start)
            {
              /* Only a read from the window's start takes a chunk. */
              memset (p, 0, n);
              break;
            }
          r = device_slot_read (conn, slot, p, n, why, whylen);
          break;
        case R_REQUEST:
          memset (p, 0, n);
          break;
        case R_OUTSIDE:
          snprintf (why, whylen, "read past the device end");
          r = -ENOSPC;
          break;
        }
      p += n;
      off += n;
      len -= n;
    }
  return r;
}

int
ossd_device_pwrite (ossd_device_conn_t *conn, const void *buf, uint32_t len,
                    uint64_t off, char *why, size_t whylen)
{
  ossd_device_t *dev = conn->dev;
  const uint8_t *p = buf;
  int r = check_range (dev, len, off, "write", why, whylen);

  while (r == 0 && len)
    {
      struct region_step st;
      uint32_t n, slot;

      device_region_step (dev, off, len, &st);
      n = st.n;
      slot = st.slot;
      switch (st.kind)
        {
        case R_VOLUME:
          r = volume_io (dev, true, (void *) p, n, off, why, whylen);
          break;
        case R_REQUEST:
          if (!st.at_start)
            {
              snprintf (why, whylen, "write into slot %u's request window past its first LBA: frames start at the window's first LBA",
                        slot);
              r = -EINVAL;
              break;
            }
          r = device_slot_write (conn, slot, p, n, why, whylen);
          break;
        case R_EVENT:
          {
            /* An EventAck moves this connection's cursor. */
            struct ossd_frame_hdr h;
            const void *chunk;
            char reason[200];
            Ossd__EventAck *ack;

            r = ossd_frame_decode (p, n, &h, &chunk, reason, sizeof reason);
            if (r < 0)
              {
                snprintf (why, whylen, "event window write: %s", reason);
                break;
              }
            ack = ossd__event_ack__unpack (NULL, h.chunk_length, chunk);
            if (!ack)
              {
                snprintf (why, whylen, "event window write: payload is not an ossd.EventAck");
                r = -EBADMSG;
                break;
              }
            conn->event_cursor = ack->seq;
            ossd__event_ack__free_unpacked (ack, NULL);
            break;
          }
        case R_RESPONSE:
          snprintf (why, whylen, "slot %u's response window is read-only", slot);
          r = -EPERM;
          break;
        case R_CONTROL:
          snprintf (why, whylen, "the control LBA is read-only");
          r = -EPERM;
          break;
        case R_OUTSIDE:
          snprintf (why, whylen, "write past the device end");
          r = -ENOSPC;
          break;
        }
      p += n;
      off += n;
      len -= n;
    }
  return r;
}

int
ossd_device_flush (ossd_device_conn_t *conn, char *why, size_t whylen)
{
  ossd_device_t *dev = conn->dev;
  ftl_error fe = { "" };
  int r;

  pthread_rwlock_rdlock (&dev->ftl_lock);
  r = ftl_flush (dev->ftl, &fe);
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (r < 0)
    snprintf (why, whylen, "flush: %s", fe.msg);
  return r;
}

int
ossd_device_trim (ossd_device_conn_t *conn, uint32_t len, uint64_t off,
                  char *why, size_t whylen)
{
  ossd_device_t *dev = conn->dev;
  ftl_error fe = { "" };
  int r = check_range (dev, len, off, "trim", why, whylen);

  if (r < 0)
    return r;
  if (off >= dev->volume_bytes)
    return 0;                   /* the reserved area has nothing to trim */
  if (off + len > dev->volume_bytes)
    len = (uint32_t) (dev->volume_bytes - off);
  pthread_rwlock_rdlock (&dev->ftl_lock);
  r = ftl_punch (dev->ftl, OSSD_SYS_PID, OSSD_VOLUME_OID, off, len, &fe);
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (r < 0)
    snprintf (why, whylen, "trim of %u bytes at %llu: %s", len,
              (unsigned long long) off, fe.msg);
  return r;
}

void
ossd_device_idle (ossd_device_t *dev)
{
  pthread_rwlock_rdlock (&dev->ftl_lock);
  ftl_idle (dev->ftl, 2000000, NULL);
  pthread_rwlock_unlock (&dev->ftl_lock);
}
