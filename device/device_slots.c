/* device_slots.c - the slots of the reserved-LBA channel: claim and
 * release with nonce arbitration and lease expiry, reassembly of chunked
 * requests from the request window, and the queue of responses that
 * reads of the response window drain chunk by chunk (long-polling while
 * nothing is ready).
 *
 * Who may do what:
 *  - anyone may write a Claim to a free (or lease-expired) slot; the
 *    verdict is the slot's owner nonce in the control LBA;
 *  - only frames carrying the owner's nonce are taken as requests;
 *    others fail the WRITE itself (EPERM), since their writer cannot be
 *    reached through the owner's response window;
 *  - a malformed frame whose header names the owner's nonce gets an
 *    error response naming the problem.
 *
 * A one-chunk WRITE request flagged ACK_IN_WRITE is answered by the block
 * WRITE that carried it: the command has run (and the drive holds the
 * bytes) when that WRITE completes; success queues no response, failure
 * queues the error response as usual and fails the block WRITE with EIO
 * so that the host reads it.  The host saves the read of the response
 * window, one transport round trip per command.
 *
 * A streaming command (SCAN) runs on the slot's stream thread, started
 * with the slot's first and kept until the device goes: a thread costs
 * ~50 us to start, what a small scan takes in all.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_internal.h"

int
device_slots_init (ossd_device_t *dev, char *why, size_t whylen)
{
  dev->slots = calloc (dev->slot_count, sizeof *dev->slots);
  if (!dev->slots)
    {
      snprintf (why, whylen, "out of memory for %u slots", dev->slot_count);
      return -ENOMEM;
    }
  for (uint32_t i = 0; i < dev->slot_count; i++)
    {
      struct ossd_slot *s = &dev->slots[i];
      s->index = i;
      pthread_mutex_init (&s->lock, NULL);
      device_cond_init_monotonic (&s->cond);
      device_cond_init_monotonic (&s->space);
      pthread_cond_init (&s->stream_cv, NULL);
      ossd_reassembly_init (&s->req, OSSD_MAX_MESSAGE);
      atomic_init (&s->cancel, false);
    }
  return 0;
}

static void
slot_drain_queue_locked (struct ossd_slot *s)
{
  struct resp_msg *m, *next;

  for (m = s->head; m; m = next)
    {
      next = m->next;
      free (m->buf);
      free (m);
    }
  s->head = s->tail = NULL;
  s->queued = 0;
  pthread_cond_broadcast (&s->space);
}

/* The slot's stream thread: runs the jobs posted to it, one at a time. */
static void *
slot_stream_thread (void *arg)
{
  struct ossd_slot *s = arg;

  pthread_mutex_lock (&s->lock);
  for (;;)
    {
      void (*fn) (void *);
      void *fn_arg;

      while (!s->stream_fn && !s->stream_exit)
        pthread_cond_wait (&s->stream_cv, &s->lock);
      if (!s->stream_fn)
        break;
      fn = s->stream_fn;
      fn_arg = s->stream_arg;
      s->stream_fn = NULL;
      pthread_mutex_unlock (&s->lock);
      fn (fn_arg);
      pthread_mutex_lock (&s->lock);
      if (!s->stream_fn)        /* no next job posted meanwhile */
        s->stream_running = false;
      pthread_cond_broadcast (&s->stream_cv);
    }
  pthread_mutex_unlock (&s->lock);
  return NULL;
}

int
device_slot_run_stream (struct ossd_slot *s, void (*fn) (void *), void *arg)
{
  int e = 0;

  pthread_mutex_lock (&s->lock);
  if (!s->stream_thread_alive)
    {
      e = pthread_create (&s->stream_thread, NULL, slot_stream_thread, s);
      s->stream_thread_alive = e == 0;
    }
  if (e == 0)
    {
      atomic_store (&s->cancel, false);
      s->stream_fn = fn;
      s->stream_arg = arg;
      s->stream_running = true;
      pthread_cond_broadcast (&s->stream_cv);
    }
  pthread_mutex_unlock (&s->lock);
  return -e;
}

/* Stop a running stream (SCAN) on this slot and wait until its job has
 * ended.  Called with the slot unlocked. */
static void
slot_stop_stream (struct ossd_slot *s)
{
  pthread_mutex_lock (&s->lock);
  if (s->stream_running)
    {
      atomic_store (&s->cancel, true);
      pthread_cond_broadcast (&s->space);
      while (s->stream_running)
        pthread_cond_wait (&s->stream_cv, &s->lock);
      atomic_store (&s->cancel, false);
    }
  pthread_mutex_unlock (&s->lock);
}

/* Stop the stream, then the slot's stream thread. */
static void
slot_end_stream_thread (struct ossd_slot *s)
{
  bool alive;

  slot_stop_stream (s);
  pthread_mutex_lock (&s->lock);
  alive = s->stream_thread_alive;
  s->stream_exit = true;
  s->stream_thread_alive = false;
  pthread_cond_broadcast (&s->stream_cv);
  pthread_mutex_unlock (&s->lock);
  if (alive)
    pthread_join (s->stream_thread, NULL);
}

static void
slot_free_locked (ossd_device_t *dev, struct ossd_slot *s)
{
  s->owner_nonce = 0;
  s->owner_conn = NULL;
  s->lease_deadline_ms = 0;
  ossd_reassembly_reset (&s->req);
  slot_drain_queue_locked (s);
}

void
device_slots_destroy (ossd_device_t *dev)
{
  if (!dev->slots)
    return;
  for (uint32_t i = 0; i < dev->slot_count; i++)
    {
      struct ossd_slot *s = &dev->slots[i];
      slot_end_stream_thread (s);
      pthread_mutex_lock (&s->lock);
      slot_free_locked (dev, s);
      pthread_mutex_unlock (&s->lock);
      ossd_reassembly_free (&s->req);
      pthread_mutex_destroy (&s->lock);
      pthread_cond_destroy (&s->cond);
      pthread_cond_destroy (&s->space);
      pthread_cond_destroy (&s->stream_cv);
    }
  free (dev->slots);
  dev->slots = NULL;
}

void
device_slots_release_conn (ossd_device_t *dev, ossd_device_conn_t *c)
{
  for (uint32_t i = 0; i < dev->slot_count; i++)
    {
      struct ossd_slot *s = &dev->slots[i];
      bool mine;

      pthread_mutex_lock (&s->lock);
      mine = s->owner_conn == c && s->owner_nonce != 0;
      pthread_mutex_unlock (&s->lock);
      if (!mine)
        continue;
      slot_stop_stream (s);
      pthread_mutex_lock (&s->lock);
      if (s->owner_conn == c)
        {
          slot_free_locked (dev, s);
          pthread_mutex_unlock (&s->lock);
          device_event_post (dev, OSSD__EVENT_KIND__EV_SLOT_RECLAIMED, i,
                             "slot %u freed: its connection (%s) closed", i,
                             c->peer);
        }
      else
        pthread_mutex_unlock (&s->lock);
    }
}

void
device_slot_enqueue (struct ossd_slot *s, uint8_t *buf, size_t len,
                     uint64_t sequence, bool stream_more)
{
  struct resp_msg *m = calloc (1, sizeof *m);

  if (!m)
    {
      free (buf);
      return;
    }
  m->buf = buf;
  m->len = len;
  m->sequence = sequence;
  m->stream_more = stream_more;
  pthread_mutex_lock (&s->lock);
  /* A stream producer waits while the host has not read what is queued,
   * so a slow reader bounds the drive's memory. */
  while (stream_more && s->queued >= 4 && !atomic_load (&s->cancel))
    pthread_cond_wait (&s->space, &s->lock);
  if (atomic_load (&s->cancel) && stream_more)
    {
      pthread_mutex_unlock (&s->lock);
      free (buf);
      free (m);
      return;
    }
  if (s->tail)
    s->tail->next = m;
  else
    s->head = m;
  s->tail = m;
  s->queued++;
  pthread_cond_broadcast (&s->cond);
  pthread_mutex_unlock (&s->lock);
}

void
device_slot_enqueue_read (struct ossd_slot *s, uint64_t sequence,
                          const struct deferred_read *dr, size_t len)
{
  struct resp_msg *m = calloc (1, sizeof *m);

  if (!m)
    return;
  m->len = len;
  m->sequence = sequence;
  m->deferred = true;
  m->dr = *dr;
  pthread_mutex_lock (&s->lock);
  if (s->tail)
    s->tail->next = m;
  else
    s->head = m;
  s->tail = m;
  s->queued++;
  pthread_cond_broadcast (&s->cond);
  pthread_mutex_unlock (&s->lock);
}

/* Give a deferred READ its bytes (when it cannot go straight into the
 * transport buffer), or turn it into the error response it earned. */
static void
slot_materialize_locked (ossd_device_t *dev, struct resp_msg *m)
{
  char why[400];
  int e = -ENOMEM;

  m->buf = malloc (m->len ? m->len : 1);
  if (m->buf)
    e = device_read_reply_fill (dev, &m->dr, m->buf, why, sizeof why);
  else
    snprintf (why, sizeof why, "READ: out of memory for %zu bytes", m->len);
  m->deferred = false;
  if (e == 0)
    return;
  free (m->buf);
  Ossd__Response r = OSSD__RESPONSE__INIT;
  r.status = e == -EAGAIN ? OSSD__STATUS__ERR_VERSION : device_status_from_errno (e);
  r.reason = why;
  m->len = ossd__response__get_packed_size (&r);
  m->buf = malloc (m->len ? m->len : 1);
  if (m->buf)
    ossd__response__pack (&r, m->buf);
  else
    m->len = 0;
}

void
device_slot_respond (struct ossd_slot *s, uint64_t sequence,
                     const Ossd__Response *resp, bool stream_more)
{
  size_t len;
  uint8_t *buf;

  if (resp->status == OSSD__STATUS__OK && !stream_more)
    {
      bool acked = false;
      pthread_mutex_lock (&s->lock);
      if (s->ack_armed && s->ack_sequence == sequence)
        acked = s->ack_ok = true;
      pthread_mutex_unlock (&s->lock);
      if (acked)
        return;                 /* the block WRITE carries the answer */
    }
  len = ossd__response__get_packed_size (resp);
  buf = malloc (len ? len : 1);
  if (!buf)
    return;
  ossd__response__pack (resp, buf);
  device_slot_enqueue (s, buf, len, sequence, stream_more);
}

void
device_slot_respond_error (struct ossd_slot *s, uint64_t sequence,
                           Ossd__Status status, const char *reason)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;

  r.status = status;
  r.reason = (char *) reason;
  device_slot_respond (s, sequence, &r, false);
}

/* Claim arbitration: called with the slot locked. */
static void
slot_claim_locked (ossd_device_t *dev, ossd_device_conn_t *conn,
                   struct ossd_slot *s, uint64_t nonce,
                   const Ossd__Claim *claim)
{
  uint64_t now = device_now_ms ();
  bool expired = s->owner_nonce && now > s->lease_deadline_ms;

  if (nonce == 0)
    return;
  if (s->owner_nonce == 0 || s->owner_nonce == nonce || expired)
    {
      if (expired && s->owner_nonce != nonce)
        device_event_post (dev, OSSD__EVENT_KIND__EV_SLOT_RECLAIMED, s->index,
                           "slot %u: lease of nonce %016llx expired, now claimed by %016llx",
                           s->index, (unsigned long long) s->owner_nonce,
                           (unsigned long long) nonce);
      if (s->owner_nonce != nonce)
        {
          ossd_reassembly_reset (&s->req);
          slot_drain_queue_locked (s);
        }
      s->owner_nonce = nonce;
      s->owner_conn = conn;
      s->lease_deadline_ms = now + dev->opts.lease_ms;
      s->max_chunk = claim->max_chunk;
    }
}

/* Peek at a frame header that failed validation: is it the owner's?  */
static bool
frame_is_from_owner (const uint8_t *buf, uint32_t len, struct ossd_slot *s,
                     uint64_t *sequence)
{
  struct ossd_frame_hdr h;

  if (len < OSSD_FRAME_HDR_SIZE)
    return false;
  memcpy (&h, buf, sizeof h);
  if (le32toh (h.magic) != OSSD_FRAME_MAGIC)
    return false;
  *sequence = le64toh (h.sequence);
  return s->owner_nonce != 0 && le64toh (h.nonce) == s->owner_nonce;
}

int
device_slot_write (ossd_device_conn_t *conn, uint32_t slot,
                   const uint8_t *buf, uint32_t len, char *why, size_t whylen)
{
  ossd_device_t *dev = conn->dev;
  struct ossd_slot *s = &dev->slots[slot];
  struct ossd_frame_hdr hdr;
  const void *chunk;
  char reason[256];
  int r;

  atomic_fetch_add (&dev->ctr.frames_in, 1);
  atomic_fetch_add (&dev->ctr.channel_bytes_in, len);
  r = ossd_frame_decode (buf, len, &hdr, &chunk, reason, sizeof reason);
  if (r == 0 && hdr.slot != slot)
    {
      snprintf (reason, sizeof reason,
                "frame names slot %u but was written to slot %u's request window",
                hdr.slot, slot);
      r = -EINVAL;
    }
  if (r < 0)
    {
      uint64_t seq = 0;
      bool owner;

      atomic_fetch_add (&dev->ctr.frame_errors, 1);
      pthread_mutex_lock (&s->lock);
      owner = frame_is_from_owner (buf, len, s, &seq);
      if (owner)
        ossd_reassembly_reset (&s->req);
      pthread_mutex_unlock (&s->lock);
      if (owner)
        {
          /* The write itself succeeds; the error is the response. */
          device_slot_respond_error (s, seq, OSSD__STATUS__ERR_FRAME, reason);
          return 0;
        }
      snprintf (why, whylen, "slot %u request window: %s", slot, reason);
      device_log (dev, "%s", why);
      return r;
    }

  pthread_mutex_lock (&s->lock);
  if (hdr.nonce != s->owner_nonce || s->owner_nonce == 0
      || (s->owner_nonce && device_now_ms () > s->lease_deadline_ms))
    {
      /* Not the owner's: only a Claim is acceptable. */
      Ossd__Request *req = NULL;

      if ((hdr.flags & (OSSD_F_FIRST | OSSD_F_LAST)) == (OSSD_F_FIRST | OSSD_F_LAST))
        req = ossd__request__unpack (NULL, hdr.chunk_length, chunk);
      if (req && req->body_case == OSSD__REQUEST__BODY_CLAIM)
        {
          slot_claim_locked (dev, conn, s, hdr.nonce, req->claim);
          pthread_mutex_unlock (&s->lock);
          ossd__request__free_unpacked (req, NULL);
          return 0;
        }
      if (req)
        ossd__request__free_unpacked (req, NULL);
      if (s->owner_nonce == hdr.nonce && hdr.nonce != 0)
        snprintf (why, whylen, "slot %u: lease of nonce %016llx expired; claim the slot again",
                  slot, (unsigned long long) hdr.nonce);
      else if (s->owner_nonce == 0)
        snprintf (why, whylen, "slot %u is not claimed: write a Claim first", slot);
      else
        snprintf (why, whylen, "slot %u is owned by another host (nonce %016llx, frame has %016llx)",
                  slot, (unsigned long long) s->owner_nonce,
                  (unsigned long long) hdr.nonce);
      pthread_mutex_unlock (&s->lock);
      atomic_fetch_add (&dev->ctr.frame_errors, 1);
      return -EPERM;
    }
  s->lease_deadline_ms = device_now_ms () + dev->opts.lease_ms;
  bool first = hdr.flags & OSSD_F_FIRST;
  bool streaming = s->stream_running;
  pthread_mutex_unlock (&s->lock);

  /* A new request ends whatever the slot was still answering: the host
   * has moved on (this is also how a scan is cancelled). */
  if (first)
    {
      if (streaming)
        slot_stop_stream (s);
      pthread_mutex_lock (&s->lock);
      slot_drain_queue_locked (s);
      pthread_mutex_unlock (&s->lock);
    }

  r = ossd_reassembly_add (&s->req, &hdr, chunk, reason, sizeof reason);
  if (r < 0)
    {
      atomic_fetch_add (&dev->ctr.frame_errors, 1);
      device_slot_respond_error (s, hdr.sequence,
                                 r == -EMSGSIZE ? OSSD__STATUS__ERR_TOO_LARGE
                                 : OSSD__STATUS__ERR_FRAME, reason);
      return 0;
    }
  if (r == 0)
    return 0;                   /* more chunks to come */

  Ossd__Request *req = ossd__request__unpack (NULL, s->req.total, s->req.buf);
  uint64_t seq = s->req.sequence;
  ossd_reassembly_reset (&s->req);
  if (!req)
    {
      atomic_fetch_add (&dev->ctr.frame_errors, 1);
      snprintf (reason, sizeof reason,
                "request payload (%llu bytes, sequence %llu) is not a valid protobuf ossd.Request",
                (unsigned long long) hdr.total_length,
                (unsigned long long) seq);
      device_slot_respond_error (s, seq, OSSD__STATUS__ERR_DECODE, reason);
      return 0;
    }
  switch (req->body_case)
    {
    case OSSD__REQUEST__BODY_CLAIM:      /* renewal by the owner */
      pthread_mutex_lock (&s->lock);
      s->max_chunk = req->claim->max_chunk;
      pthread_mutex_unlock (&s->lock);
      break;
    case OSSD__REQUEST__BODY_RELEASE:
      pthread_mutex_lock (&s->lock);
      slot_free_locked (dev, s);
      pthread_mutex_unlock (&s->lock);
      break;
    default:
      atomic_fetch_add (&dev->ctr.commands, 1);
      if ((hdr.flags & OSSD_F_ACK_IN_WRITE)
          && req->body_case == OSSD__REQUEST__BODY_WRITE)
        {
          bool ok;
          pthread_mutex_lock (&s->lock);
          s->ack_sequence = seq;
          s->ack_armed = true;
          s->ack_ok = false;
          pthread_mutex_unlock (&s->lock);
          device_dispatch (dev, s, seq, req);
          pthread_mutex_lock (&s->lock);
          ok = s->ack_ok;
          s->ack_armed = false;
          pthread_mutex_unlock (&s->lock);
          if (!ok)
            {
              snprintf (why, whylen, "slot %u: WRITE (sequence %llu) failed; the reason is in the response window",
                        slot, (unsigned long long) seq);
              r = -EIO;
            }
        }
      else
        device_dispatch (dev, s, seq, req);
      break;
    }
  ossd__request__free_unpacked (req, NULL);
  return r < 0 ? r : 0;
}

int
device_slot_read (ossd_device_conn_t *conn, uint32_t slot, uint8_t *buf,
                  uint32_t len, char *why, size_t whylen)
{
  ossd_device_t *dev = conn->dev;
  struct ossd_slot *s = &dev->slots[slot];
  struct ossd_frame_hdr hdr = { 0 };
  struct timespec deadline;
  struct resp_msg *m;
  size_t room = len - OSSD_FRAME_HDR_SIZE, n;

  pthread_mutex_lock (&s->lock);
  if (s->owner_nonce == 0)
    {
      pthread_mutex_unlock (&s->lock);
      snprintf (why, whylen, "slot %u response window read, but the slot is not claimed", slot);
      return -EPERM;
    }
  device_deadline_after_ms (&deadline, dev->opts.poll_timeout_ms);
  while (!s->head)
    if (pthread_cond_timedwait (&s->cond, &s->lock, &deadline) == ETIMEDOUT)
      break;
  m = s->head;
  hdr.slot = slot;
  hdr.nonce = s->owner_nonce;
  if (!m)
    {
      pthread_mutex_unlock (&s->lock);
      hdr.flags = OSSD_F_PENDING;
      memset (buf, 0, OSSD_FRAME_HDR_SIZE);
      ossd_frame_encode (&hdr, NULL, 0, buf, len);
      return 0;
    }
  if (m->deferred && m->len <= room)
    {
      /* The whole READ answer fits: build it in the caller's buffer. */
      char why[400];
      if (device_read_reply_fill (dev, &m->dr, buf + OSSD_FRAME_HDR_SIZE,
                                  why, sizeof why) == 0)
        {
          hdr.sequence = m->sequence;
          hdr.total_length = m->len;
          hdr.flags = OSSD_F_FIRST | OSSD_F_LAST;
          ossd_frame_encode (&hdr, buf + OSSD_FRAME_HDR_SIZE, m->len, buf, len);
          n = m->len;
          m->sent = m->len;
          goto sent;
        }
    }
  if (m->deferred)
    slot_materialize_locked (dev, m);
  n = m->len - m->sent;
  if (n > room)
    n = room;
  hdr.sequence = m->sequence;
  hdr.total_length = m->len;
  hdr.chunk_offset = m->sent;
  hdr.flags = (m->sent == 0 ? OSSD_F_FIRST : 0)
    | (m->sent + n == m->len ? OSSD_F_LAST : OSSD_F_MORE)
    | (m->stream_more ? OSSD_F_STREAM : 0);
  ossd_frame_encode (&hdr, m->buf + m->sent, n, buf, len);
  m->sent += n;
sent:
  if (m->sent == m->len)
    {
      s->head = m->next;
      if (!s->head)
        s->tail = NULL;
      s->queued--;
      pthread_cond_broadcast (&s->space);
      free (m->buf);
      free (m);
    }
  pthread_mutex_unlock (&s->lock);
  atomic_fetch_add (&dev->ctr.frames_out, 1);
  atomic_fetch_add (&dev->ctr.channel_bytes_out, OSSD_FRAME_HDR_SIZE + n);
  return 0;
}
