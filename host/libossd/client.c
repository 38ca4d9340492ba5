/* client.c - the host end of the reserved-LBA channel: connecting,
 * claiming slots (nonce in the request window, verdict in the control
 * LBA), sending chunked requests and reading responses back chunk by
 * chunk, re-reading while the drive answers PENDING.  A request that fits
 * one chunk is encoded whole (client_encode_frame) so that calls.c can
 * put its write and the read of its answer in one transport batch.
 *
 * Deadlines and reconnecting: no wait here is longer than
 * opts.timeout_ms, and each checks opts.interrupted every 100 ms (the
 * transport's waits do the same).  When the transport lost its
 * connection (the drive restarted, or a wait gave up on it), the next
 * call that takes a slot opens the URI again and claims slots afresh,
 * once the calls still holding slots on the old connection have failed
 * and let go of them (client_reconnect). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "client_internal.h"

void
client_set_error (ossd_error *err, int status, int errnum, const char *fmt,
                  ...)
{
  va_list ap;

  if (!err)
    return;
  if (status == OSSD_STATUS_TRANSPORT && errnum == ECANCELED)
    status = OSSD__STATUS__ERR_CANCELLED;
  err->status = status;
  err->errnum = errnum;
  va_start (ap, fmt);
  vsnprintf (err->msg, sizeof err->msg, fmt, ap);
  va_end (ap);
}

static uint64_t
now_ms (void)
{
  return ossd_mono_ns () / 1000000;
}

static uint64_t
random_u64 (void)
{
  uint64_t v = 0;
  while (v == 0)
    if (getrandom (&v, sizeof v, 0) != sizeof v)
      v = ((uint64_t) getpid () << 32) ^ (uint64_t) now_ms () ^ (uint64_t) clock ();
  return v;
}

static int
read_control (ossd_t *o, struct ossd_control *c, ossd_error *err)
{
  char why[300];
  uint8_t *lba;
  int r;

  if (posix_memalign ((void **) &lba, OSSD_LBA_SIZE, OSSD_LBA_SIZE))
    return -ENOMEM;
  r = ossd_transport_pread (o->t, lba, OSSD_LBA_SIZE,
                            o->t->size_bytes - OSSD_LBA_SIZE, why, sizeof why);
  if (r == 0)
    r = ossd_control_decode (lba, c, why, sizeof why);
  free (lba);
  if (r < 0)
    client_set_error (err, OSSD_STATUS_TRANSPORT, -r, "%s: %s", o->uri, why);
  return r;
}

/* Encode req as frames into the slot's request window. */
static int
send_frames (ossd_t *o, struct client_slot *s, const uint8_t *msg,
             size_t len, uint64_t sequence, ossd_error *err)
{
  size_t room = o->chunk_bytes - OSSD_FRAME_HDR_SIZE, off = 0;
  uint64_t lba = ossd_request_lba (&o->ctl, s->index);
  char why[300];

  do
    {
      struct ossd_frame_hdr h = { 0 };
      size_t n = len - off < room ? len - off : room;
      size_t io;
      int r;

      h.slot = s->index;
      h.nonce = o->nonce;
      h.sequence = sequence;
      h.total_length = len;
      h.chunk_offset = off;
      h.flags = (off == 0 ? OSSD_F_FIRST : 0)
        | (off + n == len ? OSSD_F_LAST : OSSD_F_MORE);
      io = ossd_frame_encode (&h, msg + off, n, s->buf, o->chunk_bytes);
      io = (io + OSSD_LBA_SIZE - 1) / OSSD_LBA_SIZE * OSSD_LBA_SIZE;
      memset (s->buf + OSSD_FRAME_HDR_SIZE + n, 0,
              io - OSSD_FRAME_HDR_SIZE - n);
      r = ossd_transport_pwrite (o->t, s->buf, io, lba * OSSD_LBA_SIZE, why,
                                 sizeof why);
      if (r < 0)
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                            "sending to slot %u of %s: %s", s->index, o->uri,
                            why);
          return r;
        }
      off += n;
    }
  while (off < len);
  return 0;
}

static int client_wait_locked (ossd_t *o, uint64_t deadline_ns,
                               const char *what, ossd_error *err);

/* Whether a slot of ours other than `self` holds drive slot `index`.
 * The drive knows only our nonce, so two of our slots on one drive slot
 * would cancel each other's requests for ever; after a stop every lease
 * has run out and the control block shows all of ours free. */
static bool
index_held_by_other (ossd_t *o, const struct client_slot *self,
                     uint32_t index)
{
  bool held = false;

  pthread_mutex_lock (&o->lock);
  for (uint32_t j = 0; j < o->n_slots && !held; j++)
    held = &o->slots[j] != self && o->slots[j].index == index;
  pthread_mutex_unlock (&o->lock);
  return held;
}

/* Claim a slot for `self` (NULL for a new one): its own index first when
 * that is free or still ours (a renewal), else any free one that no other
 * slot of ours holds.  The verdict is the control block's owner nonce.
 * Claims of one handle run one at a time (o->claiming). */
static int
claim_slot (ossd_t *o, const struct client_slot *self, uint32_t *index,
            ossd_error *err)
{
  int preferred = self ? (int) self->index : -1;
  struct ossd_control c;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Claim claim = OSSD__CLAIM__INIT;
  uint8_t msg[256];
  size_t len;
  struct client_slot tmp = { 0 };
  uint32_t start;
  int r;

  r = read_control (o, &c, err);
  if (r < 0)
    return r;
  claim.nonce = o->nonce;
  claim.max_chunk = o->chunk_bytes;
  claim.client = (char *) (o->opts.client_name ? o->opts.client_name : "libossd");
  req.body_case = OSSD__REQUEST__BODY_CLAIM;
  req.claim = &claim;
  len = ossd__request__pack (&req, msg);
  if (posix_memalign ((void **) &tmp.buf, OSSD_LBA_SIZE, o->chunk_bytes))
    return -ENOMEM;
  start = (uint32_t) (random_u64 () % c.slot_count);
  for (uint32_t k = preferred >= 0 ? 0 : 1; k <= c.slot_count; k++)
    {
      uint32_t i = k == 0 ? (uint32_t) preferred : (start + k) % c.slot_count;
      if (i >= c.slot_count
          || (c.slot_owner[i] != 0 && !(k == 0 && c.slot_owner[i] == o->nonce))
          || index_held_by_other (o, self, i))
        continue;
      tmp.index = i;
      r = send_frames (o, &tmp, msg, len, 0, err);
      if (r < 0)
        break;
      r = read_control (o, &c, err);
      if (r < 0)
        break;
      if (c.slot_owner[i] == o->nonce)
        {
          *index = i;
          free (tmp.buf);
          return 0;
        }
    }
  free (tmp.buf);
  if (r == 0)
    {
      client_set_error (err, OSSD__STATUS__ERR_BUSY, EBUSY,
                        "%s: all %u channel slots are claimed by other hosts",
                        o->uri, c.slot_count);
      r = -EBUSY;
    }
  return r;
}

/* claim_slot with o->lock held and no claim of ours running: marks the
 * claim running, drops the lock while it talks to the drive, and wakes
 * the waiters when done.  Returns with the lock held, so the caller
 * records the index before another claim can look at our slots. */
static int
claim_slot_locked (ossd_t *o, const struct client_slot *self,
                   uint32_t *index, ossd_error *err)
{
  int r;

  o->claiming = true;
  pthread_mutex_unlock (&o->lock);
  r = claim_slot (o, self, index, err);
  pthread_mutex_lock (&o->lock);
  o->claiming = false;
  pthread_cond_broadcast (&o->cond);
  return r;
}

/* A slot idle for half its lease may have been reclaimed by the drive:
 * claim it again (or another one) before use. */
static struct client_slot *
client_slot_renew (ossd_t *o, struct client_slot *s, ossd_error *err)
{
  uint64_t deadline = ossd_mono_ns () + (uint64_t) o->opts.timeout_ms * 1000000;
  uint32_t index;
  int r = 0;

  if (!s->recheck && now_ms () - s->last_used_ms < o->ctl.lease_ms / 2)
    return s;
  pthread_mutex_lock (&o->lock);
  while (o->claiming && r == 0)
    r = client_wait_locked (o, deadline, "waiting for a channel slot", err);
  if (r < 0)
    {
      pthread_mutex_unlock (&o->lock);
      client_slot_put (o, s);
      return NULL;
    }
  r = claim_slot_locked (o, s, &index, err);
  if (r == 0)
    {
      s->index = index;
      s->last_used_ms = now_ms ();
      s->recheck = false;
    }
  else
    s->recheck = true;          /* not ours until a claim succeeds */
  pthread_mutex_unlock (&o->lock);
  if (r < 0)
    {
      client_slot_put (o, s);
      return NULL;
    }
  return s;
}

/* Sleep on o->cond (o->lock held) for at most 100 ms; -ETIMEDOUT past
 * the deadline, -ECANCELED when the hook says stop. */
static int
client_wait_locked (ossd_t *o, uint64_t deadline_ns, const char *what,
                    ossd_error *err)
{
  struct timespec ts;

  if (ossd_mono_ns () >= deadline_ns)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, ETIMEDOUT,
                        "%s on the drive at %s: nothing within %u ms (timeout)",
                        what, o->uri, o->opts.timeout_ms);
      return -ETIMEDOUT;
    }
  if (o->opts.interrupted && o->opts.interrupted (o->opts.interrupted_arg))
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, ECANCELED,
                        "%s on the drive at %s: cancelled", what, o->uri);
      return -ECANCELED;
    }
  clock_gettime (CLOCK_MONOTONIC, &ts);
  ts.tv_nsec += 100 * 1000000L;
  if (ts.tv_nsec >= 1000000000L)
    {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
  pthread_cond_timedwait (&o->cond, &o->lock, &ts);
  return 0;
}

static struct ossd_transport_wait
client_transport_wait (const ossd_t *o)
{
  return (struct ossd_transport_wait) {
    .timeout_ms = o->opts.timeout_ms,
    .interrupted = o->opts.interrupted,
    .interrupted_arg = o->opts.interrupted_arg,
  };
}

static void
client_slots_free (ossd_t *o)
{
  for (uint32_t i = 0; i < o->n_slots; i++)
    {
      free (o->slots[i].buf);
      free (o->slots[i].req_lba);
      free (o->slots[i].req_buf);
      ossd_reassembly_free (&o->slots[i].ra);
      memset (&o->slots[i], 0, sizeof o->slots[i]);
    }
  o->n_slots = 0;
}

/* The transport lost its connection: open the URI again and forget the
 * slots (claimed again on demand, under a new nonce, so that nothing of
 * the old connection is taken for ours).  Called with o->lock held, no
 * slot busy and no claim running; drops the lock while connecting (the
 * others wait on o->reconnecting).  The drive must come back with the
 * channel layout it had. */
static int
client_reconnect (ossd_t *o, ossd_error *err)
{
  struct ossd_transport_wait wait = client_transport_wait (o);
  struct ossd_transport *old = o->t, *nt = NULL;
  struct ossd_control ctl;
  char why[400];
  int r;

  o->reconnecting = true;
  pthread_mutex_unlock (&o->lock);
  r = ossd_transport_open (o->uri, &wait, &nt, why, sizeof why);
  if (r < 0)
    client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                      "reconnecting to the drive at %s: %s", o->uri, why);
  else
    {
      nt->spin_ns = old->spin_ns;
      nt->before_wait = old->before_wait;
      nt->before_wait_arg = old->before_wait_arg;
      o->t = nt;
      r = read_control (o, &ctl, err);
      if (r == 0 && (ctl.total_lbas != o->ctl.total_lbas
                     || ctl.window_lbas != o->ctl.window_lbas
                     || ctl.slot_count < o->opts.max_slots))
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, ENODEV,
                            "the drive at %s came back with another channel layout (%llu LBAs, %u-LBA windows, %u slots): connect again",
                            o->uri, (unsigned long long) ctl.total_lbas,
                            ctl.window_lbas, ctl.slot_count);
          r = -ENODEV;
        }
      if (r < 0)
        {
          o->t = old;
          ossd_transport_close (nt);
        }
    }
  pthread_mutex_lock (&o->lock);
  if (r == 0)
    {
      ossd_transport_close (old);
      if (ctl.boot_nonce == 0 || ctl.boot_nonce != o->ctl.boot_nonce)
        o->restarts++;
      o->ctl = ctl;
      client_slots_free (o);
      o->nonce = random_u64 ();
    }
  o->reconnecting = false;
  pthread_cond_broadcast (&o->cond);
  return r;
}

static bool
client_slots_busy (const ossd_t *o)
{
  for (uint32_t i = 0; i < o->n_slots; i++)
    if (o->slots[i].busy)
      return true;
  return false;
}

/* With o->lock held: 1 when the transport is usable, 0 when the caller
 * must wait (a reconnect runs, or one is due but others still hold the
 * old connection), or an error from the reconnect. */
static int
client_transport_ready (ossd_t *o, ossd_error *err)
{
  if (o->unreachable)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, ENOTCONN,
                        "the drive at %s could not be reached: %s", o->uri,
                        o->unreachable);
      return -1;
    }
  if (o->reconnecting)
    return 0;
  if (!ossd_transport_lost (o->t))
    return 1;
  if (client_slots_busy (o) || o->claiming || o->bare_users)
    return 0;
  return client_reconnect (o, err) < 0 ? -1 : 0;
}

int
client_transport_get (ossd_t *o, ossd_error *err)
{
  uint64_t deadline = ossd_mono_ns () + (uint64_t) o->opts.timeout_ms * 1000000;
  int r;

  pthread_mutex_lock (&o->lock);
  while ((r = client_transport_ready (o, err)) == 0)
    if ((r = client_wait_locked (o, deadline, "waiting to reconnect", err)) < 0)
      break;
  if (r > 0)
    o->bare_users++;
  pthread_mutex_unlock (&o->lock);
  return r > 0 ? 0 : -(err && err->errnum ? err->errnum : EIO);
}

void
client_transport_put (ossd_t *o)
{
  pthread_mutex_lock (&o->lock);
  o->bare_users--;
  pthread_cond_broadcast (&o->cond);
  pthread_mutex_unlock (&o->lock);
}

struct client_slot *
client_slot_get (ossd_t *o, ossd_error *err)
{
  uint64_t deadline = ossd_mono_ns () + (uint64_t) o->opts.timeout_ms * 1000000;
  struct client_slot *s = NULL;
  uint32_t from = 0;            /* ours still to try from here on */
  bool drive_full = false;      /* every free drive slot is another host's */

  pthread_mutex_lock (&o->lock);
  for (;;)
    {
      int ready = client_transport_ready (o, err);

      if (ready < 0)
        {
          pthread_mutex_unlock (&o->lock);
          return NULL;
        }
      uint32_t i = from;

      while (ready && i < o->n_slots && o->slots[i].busy)
        i++;
      if (ready && i < o->n_slots)
        {
          s = &o->slots[i];
          from = i + 1;
          s->busy = true;
          pthread_mutex_unlock (&o->lock);
          if (client_slot_renew (o, s, err))
            return s;
          if (!err || err->errnum != EBUSY)
            return NULL;
          /* Another host took it while its lease had run out: go on
           * with our next one rather than fail on this one. */
          drive_full = true;
          pthread_mutex_lock (&o->lock);
          continue;
        }
      if (drive_full)
        {
          pthread_mutex_unlock (&o->lock);
          return NULL;          /* err says EBUSY */
        }
      if (ready && o->n_slots < o->opts.max_slots && !o->claiming)
        {
          uint32_t index;
          int r;

          r = claim_slot_locked (o, NULL, &index, err);
          if (r < 0)
            {
              if (o->n_slots == 0 || r == -ETIMEDOUT || r == -ECANCELED)
                {
                  pthread_mutex_unlock (&o->lock);
                  return NULL;
                }
              /* wait for one of ours instead, without claiming again */
              if (client_wait_locked (o, deadline, "waiting for a channel slot", err) < 0)
                {
                  pthread_mutex_unlock (&o->lock);
                  return NULL;
                }
              continue;
            }
          s = &o->slots[o->n_slots];
          s->index = index;
          s->sequence = random_u64 () >> 16;
          if (posix_memalign ((void **) &s->buf, OSSD_LBA_SIZE, o->chunk_bytes)
              || posix_memalign ((void **) &s->req_lba, OSSD_LBA_SIZE, OSSD_LBA_SIZE))
            {
              pthread_mutex_unlock (&o->lock);
              client_set_error (err, OSSD_STATUS_TRANSPORT, ENOMEM, "out of memory");
              return NULL;
            }
          ossd_reassembly_init (&s->ra, 1ull << 40);
          s->last_used_ms = now_ms ();
          s->busy = true;
          o->n_slots++;
          pthread_mutex_unlock (&o->lock);
          return s;
        }
      if (client_wait_locked (o, deadline, "waiting for a channel slot", err) < 0)
        {
          pthread_mutex_unlock (&o->lock);
          return NULL;
        }
    }
}

bool
client_slot_free_now (ossd_t *o)
{
  bool free_slot;

  pthread_mutex_lock (&o->lock);
  if (o->reconnecting || ossd_transport_lost (o->t))
    {
      /* Our own slot would keep the reconnect waiting. */
      pthread_mutex_unlock (&o->lock);
      return false;
    }
  free_slot = o->n_slots < o->opts.max_slots;
  for (uint32_t j = 0; j < o->n_slots && !free_slot; j++)
    free_slot = !o->slots[j].busy;
  pthread_mutex_unlock (&o->lock);
  return free_slot;
}

bool
ossd_slots_all_busy (ossd_t *o)
{
  bool all;

  pthread_mutex_lock (&o->lock);
  all = o->n_slots >= o->opts.max_slots;
  for (uint32_t j = 0; j < o->n_slots && all; j++)
    all = o->slots[j].busy;
  pthread_mutex_unlock (&o->lock);
  return all;
}

void
client_slot_put_after (ossd_t *o, struct client_slot *s, int r,
                       const ossd_error *err)
{
  if (r < 0 && (!err || err->status == OSSD_STATUS_TRANSPORT))
    s->recheck = true;          /* only this thread holds s (busy) */
  client_slot_put (o, s);
}

void
client_slot_put (ossd_t *o, struct client_slot *s)
{
  pthread_mutex_lock (&o->lock);
  s->last_used_ms = now_ms ();
  s->busy = false;
  pthread_cond_broadcast (&o->cond);
  pthread_mutex_unlock (&o->lock);
}

int
client_send (ossd_t *o, struct client_slot *s, const Ossd__Request *req,
             uint64_t *sequence, ossd_error *err)
{
  struct client_cap_buf cb;
  size_t len;
  uint8_t stackbuf[4096], *msg;
  int r;

  req = client_caps_attach (o, req, &cb);
  len = ossd__request__get_packed_size (req);
  msg = len <= sizeof stackbuf ? stackbuf : malloc (len);
  if (!msg)
    {
      client_caps_done (&cb);
      client_set_error (err, OSSD_STATUS_TRANSPORT, ENOMEM,
                        "out of memory for a %zu-byte request", len);
      return -ENOMEM;
    }
  ossd__request__pack (req, msg);
  client_caps_done (&cb);
  *sequence = ++s->sequence;
  r = send_frames (o, s, msg, len, *sequence, err);
  if (msg != stackbuf)
    free (msg);
  return r;
}

static size_t
round_lbas (size_t n, size_t cap)
{
  n = (n + OSSD_LBA_SIZE - 1) / OSSD_LBA_SIZE * OSSD_LBA_SIZE;
  return n > cap ? cap : n;
}

int
client_encode_small (ossd_t *o, struct client_slot *s,
                     const Ossd__Request *req, uint64_t *sequence)
{
  struct client_cap_buf cb;
  size_t len;
  struct ossd_frame_hdr h = { 0 };

  req = client_caps_attach (o, req, &cb);
  len = ossd__request__get_packed_size (req);
  if (len > OSSD_LBA_SIZE - OSSD_FRAME_HDR_SIZE)
    {
      client_caps_done (&cb);
      return -EMSGSIZE;
    }
  memset (s->req_lba, 0, OSSD_LBA_SIZE);
  ossd__request__pack (req, s->req_lba + OSSD_FRAME_HDR_SIZE);
  client_caps_done (&cb);
  *sequence = ++s->sequence;
  h.slot = s->index;
  h.nonce = o->nonce;
  h.sequence = *sequence;
  h.total_length = len;
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  ossd_frame_encode (&h, s->req_lba + OSSD_FRAME_HDR_SIZE, len, s->req_lba,
                     OSSD_LBA_SIZE);
  return 0;
}

size_t
client_response_read_size (ossd_t *o, size_t size_hint)
{
  return round_lbas (size_hint + OSSD_FRAME_HDR_SIZE + 64, o->chunk_bytes);
}

int
client_encode_frame (ossd_t *o, struct client_slot *s,
                     const Ossd__Request *req, uint16_t flags,
                     uint64_t *sequence, size_t *io_len)
{
  struct client_cap_buf cb;
  size_t len, io;
  struct ossd_frame_hdr h = { 0 };

  req = client_caps_attach (o, req, &cb);
  len = ossd__request__get_packed_size (req);
  io = round_lbas (OSSD_FRAME_HDR_SIZE + len, SIZE_MAX);
  if (io > o->chunk_bytes)
    {
      client_caps_done (&cb);
      return -EMSGSIZE;
    }
  if (io > s->req_cap)
    {
      uint8_t *nb;
      if (posix_memalign ((void **) &nb, OSSD_LBA_SIZE, io))
        {
          client_caps_done (&cb);
          return -ENOMEM;
        }
      free (s->req_buf);
      s->req_buf = nb;
      s->req_cap = io;
    }
  ossd__request__pack (req, s->req_buf + OSSD_FRAME_HDR_SIZE);
  client_caps_done (&cb);
  memset (s->req_buf + OSSD_FRAME_HDR_SIZE + len, 0,
          io - OSSD_FRAME_HDR_SIZE - len);
  *sequence = ++s->sequence;
  h.slot = s->index;
  h.nonce = o->nonce;
  h.sequence = *sequence;
  h.total_length = len;
  h.flags = OSSD_F_FIRST | OSSD_F_LAST | flags;
  ossd_frame_encode (&h, s->req_buf + OSSD_FRAME_HDR_SIZE, len, s->req_buf,
                     io);
  *io_len = io;
  return 0;
}

int
client_recv_raw (ossd_t *o, struct client_slot *s, uint64_t sequence,
                 size_t size_hint, const uint8_t **msg, size_t *len,
                 bool *stream_more, ossd_error *err)
{
  return client_recv_raw_from (o, s, sequence, size_hint, 0, msg, len,
                               stream_more, err);
}

int
client_recv_raw_from (ossd_t *o, struct client_slot *s, uint64_t sequence,
                      size_t size_hint, size_t have, const uint8_t **msg,
                      size_t *len, bool *stream_more, ossd_error *err)
{
  uint64_t lba = ossd_response_lba (&o->ctl, s->index);
  uint64_t deadline = now_ms () + o->opts.timeout_ms;
  size_t want = round_lbas (size_hint + OSSD_FRAME_HDR_SIZE + 64,
                            o->chunk_bytes);
  char why[300];
  int r;

  ossd_reassembly_reset (&s->ra);
  if (have)
    want = have;
  for (;;)
    {
      struct ossd_frame_hdr h;
      const void *chunk;

      /* A frame the batch read is used as is: the drive handed it out
       * (a first chunk read again would be the second). */
      r = have ? 0 : ossd_transport_pread (o->t, s->buf, want,
                                           lba * OSSD_LBA_SIZE, why,
                                           sizeof why);
      have = 0;
      if (r < 0)
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                            "reading slot %u's response from %s: %s",
                            s->index, o->uri, why);
          return r;
        }
      r = ossd_frame_decode (s->buf, want, &h, &chunk, why, sizeof why);
      if (r < 0)
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                            "bad response frame in slot %u of %s: %s",
                            s->index, o->uri, why);
          return r;
        }
      if (h.flags & OSSD_F_PENDING)
        {
          if (now_ms () > deadline)
            {
              client_set_error (err, OSSD_STATUS_TRANSPORT, ETIMEDOUT,
                                "no response from %s in slot %u after %u ms (timeout)",
                                o->uri, s->index, o->opts.timeout_ms);
              return -ETIMEDOUT;
            }
          if (o->opts.interrupted
              && o->opts.interrupted (o->opts.interrupted_arg))
            {
              client_set_error (err, OSSD_STATUS_TRANSPORT, ECANCELED,
                                "waiting for slot %u's response from %s: cancelled",
                                s->index, o->uri);
              return -ECANCELED;
            }
          continue;
        }
      if (h.sequence != sequence)
        continue;               /* a stale answer to an abandoned request */
      if ((h.flags & (OSSD_F_FIRST | OSSD_F_LAST)) == (OSSD_F_FIRST | OSSD_F_LAST)
          && h.chunk_length == h.total_length)
        {
          /* One chunk: decode in place, no copy. */
          *msg = chunk;
          *len = h.chunk_length;
          *stream_more = h.flags & OSSD_F_STREAM;
          s->last_msg_len = *len;
          return 0;
        }
      r = ossd_reassembly_add (&s->ra, &h, chunk, why, sizeof why);
      if (r < 0)
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                            "response from %s in slot %u: %s", o->uri,
                            s->index, why);
          return r;
        }
      if (r == 1)
        {
          *msg = s->ra.buf;
          *len = s->ra.total;
          *stream_more = h.flags & OSSD_F_STREAM;
          s->last_msg_len = *len;
          return 0;
        }
      want = round_lbas (s->ra.total - s->ra.have + OSSD_FRAME_HDR_SIZE,
                         o->chunk_bytes);
    }
}

int
client_recv (ossd_t *o, struct client_slot *s, uint64_t sequence,
             size_t size_hint, Ossd__Response **resp, bool *stream_more,
             ossd_error *err)
{
  return client_recv_from (o, s, sequence, size_hint, 0, resp, stream_more,
                           err);
}

int
client_recv_from (ossd_t *o, struct client_slot *s, uint64_t sequence,
                  size_t size_hint, size_t have, Ossd__Response **resp,
                  bool *stream_more, ossd_error *err)
{
  const uint8_t *msg;
  size_t len;
  int r;

  *resp = NULL;
  r = client_recv_raw_from (o, s, sequence, size_hint, have, &msg, &len,
                            stream_more, err);
  if (r < 0)
    return r;
  *resp = ossd__response__unpack (NULL, len, msg);
  if (!*resp)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                        "response from %s in slot %u (%zu bytes) does not decode as ossd.Response",
                        o->uri, s->index, len);
      return -EPROTO;
    }
  return 0;
}

/* A handle's state before it reaches the drive. */
static int
client_handle_init (ossd_t *o, const char *uri,
                    const struct ossd_connect_opts *opts)
{
  pthread_condattr_t ca;

  if (opts)
    o->opts = *opts;
  if (o->opts.max_slots == 0)
    o->opts.max_slots = 4;
  if (o->opts.timeout_ms == 0)
    o->opts.timeout_ms = 60000;
  if (!(o->uri = strdup (uri ? uri : "")))
    return -ENOMEM;
  pthread_mutex_init (&o->lock, NULL);
  pthread_condattr_init (&ca);
  pthread_condattr_setclock (&ca, CLOCK_MONOTONIC);
  pthread_cond_init (&o->cond, &ca);
  pthread_condattr_destroy (&ca);
  pthread_mutex_init (&o->cap_lock, NULL);
  o->nonce = random_u64 ();
  return 0;
}

int
ossd_connect_unreachable (const char *uri, const char *why, ossd_t **out)
{
  ossd_t *o = calloc (1, sizeof *o);

  *out = NULL;
  if (!o || client_handle_init (o, uri, NULL) < 0
      || !(o->unreachable = strdup (why && *why ? why : "unknown reason")))
    {
      if (o && o->uri)
        ossd_disconnect (o);
      else
        free (o);
      return -ENOMEM;
    }
  *out = o;
  return 0;
}

int
ossd_connect (const char *uri, const struct ossd_connect_opts *opts,
              ossd_t **out, ossd_error *err)
{
  ossd_t *o = calloc (1, sizeof *o);
  char why[400];
  int r;

  *out = NULL;
  if (!o || client_handle_init (o, uri, opts) < 0)
    {
      free (o);
      return -ENOMEM;
    }
  {
    struct ossd_transport_wait wait = client_transport_wait (o);
    r = ossd_transport_open (uri, &wait, &o->t, why, sizeof why);
  }
  if (r < 0)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, -r, "%s", why);
      goto fail;
    }
  o->t->spin_ns = (uint64_t) o->opts.spin_us * 1000;
  o->t->before_wait = o->opts.before_wait;
  o->t->before_wait_arg = o->opts.before_wait_arg;
  r = client_caps_init (o, err);
  if (r < 0)
    goto fail;
  if (o->t->size_bytes < 4 * OSSD_LBA_SIZE)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, ENODEV,
                        "%s is %llu bytes: too small to be an ossd drive",
                        uri, (unsigned long long) o->t->size_bytes);
      r = -ENODEV;
      goto fail;
    }
  r = read_control (o, &o->ctl, err);
  if (r < 0)
    goto fail;
  if (o->ctl.total_lbas * OSSD_LBA_SIZE != o->t->size_bytes)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, EINVAL,
                        "%s: control block says %llu LBAs but the device has %llu bytes",
                        uri, (unsigned long long) o->ctl.total_lbas,
                        (unsigned long long) o->t->size_bytes);
      r = -EINVAL;
      goto fail;
    }
  o->chunk_bytes = o->ctl.window_lbas * OSSD_LBA_SIZE;
  if (o->t->max_transfer && o->chunk_bytes > o->t->max_transfer)
    o->chunk_bytes = o->t->max_transfer / OSSD_LBA_SIZE * OSSD_LBA_SIZE;
  if (o->opts.max_chunk && o->chunk_bytes > o->opts.max_chunk)
    o->chunk_bytes = o->opts.max_chunk / OSSD_LBA_SIZE * OSSD_LBA_SIZE;
  if (o->chunk_bytes < OSSD_LBA_SIZE)
    o->chunk_bytes = OSSD_LBA_SIZE;
  if (o->opts.max_slots > o->ctl.slot_count)
    o->opts.max_slots = o->ctl.slot_count;
  o->slots = calloc (o->opts.max_slots, sizeof *o->slots);
  if (!o->slots)
    {
      r = -ENOMEM;
      goto fail;
    }
  /* Claim the first slot now so a busy drive fails at connect time. */
  {
    struct client_slot *s = client_slot_get (o, err);
    if (!s)
      {
        r = -(err && err->errnum ? err->errnum : EBUSY);
        goto fail;
      }
    client_slot_put (o, s);
  }
  *out = o;
  return 0;
fail:
  ossd_disconnect (o);
  return r;
}

void
ossd_disconnect_at_exit (ossd_t *o)
{
  /* A drive that frees a connection's slots when it goes needs no
   * Release (one round trip per slot) nor the NBD disconnect's wait for
   * the server to close (~1 ms): a parallel query waits for its workers
   * to exit. */
  if (o && o->t && o->t->knows_connections)
    o->t->close_at_once = true;
  ossd_disconnect (o);
}

void
ossd_disconnect (ossd_t *o)
{
  if (!o)
    return;
  if (o->t)
    {
      Ossd__Request req = OSSD__REQUEST__INIT;
      Ossd__Release rel = OSSD__RELEASE__INIT;
      uint64_t seq;

      req.body_case = OSSD__REQUEST__BODY_RELEASE;
      req.release = &rel;
      /* Not on a lost connection (nothing to release), not past a
       * failure (a stalled drive would hold each send a timeout), and
       * not when the drive frees them as the connection goes
       * (ossd_disconnect_at_exit). */
      for (uint32_t i = 0; i < o->n_slots && !o->t->close_at_once
           && !ossd_transport_lost (o->t); i++)
        if (client_send (o, &o->slots[i], &req, &seq, NULL) < 0)
          break;
      ossd_transport_close (o->t);
    }
  if (o->slots)
    client_slots_free (o);
  free (o->slots);
  free (o->uri);
  free (o->unreachable);
  client_caps_free (o);
  pthread_mutex_destroy (&o->lock);
  pthread_cond_destroy (&o->cond);
  free (o);
}

const struct ossd_control *
ossd_control_block (ossd_t *o)
{
  return &o->ctl;
}

const char *
ossd_uri (ossd_t *o)
{
  return o->uri;
}

uint64_t
ossd_drive_restarts (ossd_t *o)
{
  uint64_t n;

  pthread_mutex_lock (&o->lock);
  n = o->restarts;
  pthread_mutex_unlock (&o->lock);
  return n;
}
