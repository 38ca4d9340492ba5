/* device_events.c - the drive-to-host direction: a ring of events (GC,
 * wear warnings, kernel log lines, slot reclaims) that hosts long-poll
 * through the event window.  Each connection keeps its own cursor. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_internal.h"

void
device_events_init (struct ossd_event_ring *r)
{
  memset (r, 0, sizeof *r);
  pthread_mutex_init (&r->lock, NULL);
  device_cond_init_monotonic (&r->cond);
  r->next_seq = 1;
}

void
device_events_destroy (struct ossd_event_ring *r)
{
  pthread_mutex_destroy (&r->lock);
  pthread_cond_destroy (&r->cond);
}

void
device_event_post (ossd_device_t *dev, int kind, uint32_t slot,
                   const char *fmt, ...)
{
  struct ossd_event_ring *r = &dev->events;
  struct ossd_event_entry *e;
  va_list ap;

  pthread_mutex_lock (&r->lock);
  e = &r->ring[r->next_seq % OSSD_EVENT_RING];
  e->seq = r->next_seq++;
  e->time_ns = device_wall_ns ();   /* for people reading the log */
  e->kind = kind;
  e->slot = slot;
  va_start (ap, fmt);
  vsnprintf (e->text, sizeof e->text, fmt, ap);
  va_end (ap);
  pthread_cond_broadcast (&r->cond);
  pthread_mutex_unlock (&r->lock);
}

int
device_events_read (ossd_device_t *dev, uint64_t *cursor, uint8_t *out,
                    uint32_t len, uint32_t timeout_ms)
{
  struct ossd_event_ring *r = &dev->events;
  struct timespec deadline;
  Ossd__EventBatch batch = OSSD__EVENT_BATCH__INIT;
  Ossd__Event evs[16], *evp[16];
  struct ossd_frame_hdr hdr = { 0 };
  size_t n = 0, packed, budget;
  uint64_t seq;

  device_deadline_after_ms (&deadline, timeout_ms);
  pthread_mutex_lock (&r->lock);
  while (r->next_seq - 1 <= *cursor)
    if (pthread_cond_timedwait (&r->cond, &r->lock, &deadline) == ETIMEDOUT)
      break;
  /* Events older than the ring are lost: skip to the oldest kept. */
  seq = *cursor + 1;
  if (r->next_seq > OSSD_EVENT_RING && seq < r->next_seq - OSSD_EVENT_RING)
    seq = r->next_seq - OSSD_EVENT_RING;
  budget = len - OSSD_FRAME_HDR_SIZE - 32;
  for (packed = 0; seq < r->next_seq && n < 16; seq++)
    {
      struct ossd_event_entry *e = &r->ring[seq % OSSD_EVENT_RING];
      size_t sz = strlen (e->text) + 40;
      if (packed + sz > budget)
        break;
      ossd__event__init (&evs[n]);
      evs[n].seq = e->seq;
      evs[n].kind = e->kind;
      evs[n].time_ns = e->time_ns;
      evs[n].slot = e->slot;
      evs[n].text = strdup (e->text);
      evp[n] = &evs[n];
      packed += sz;
      n++;
    }
  pthread_mutex_unlock (&r->lock);

  batch.n_events = n;
  batch.events = evp;
  batch.next_seq = seq;
  if (n)
    *cursor = seq - 1;
  size_t plen = ossd__event_batch__get_packed_size (&batch);
  memset (out, 0, len);
  ossd__event_batch__pack (&batch, out + OSSD_FRAME_HDR_SIZE);
  hdr.flags = OSSD_F_EVENT | OSSD_F_FIRST | OSSD_F_LAST
    | (n ? 0 : OSSD_F_NO_EVENT);
  hdr.total_length = plen;
  ossd_frame_encode (&hdr, out + OSSD_FRAME_HDR_SIZE, plen, out, len);
  for (size_t i = 0; i < n; i++)
    free (evs[i].text);
  return 0;
}
