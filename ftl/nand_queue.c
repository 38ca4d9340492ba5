/* nand_queue.c - the priority-aware service order of one NAND resource
 * (a die or a channel): which reservations an arriving operation goes
 * ahead of, and how far those move back (nand_queue.h, docs/qos.md).
 *
 * Reservations are kept in service order; they do not overlap, so their
 * ends do not decrease along the list.  Overtaking needs only the
 * reservations that have not started yet: the ones that ended are
 * forgotten (their end kept as sealed_end), and when the list is full the
 * oldest is sealed too, which can only make the model more first come
 * first served, never less.
 *
 * An operation may go ahead of what would start at or after the moment
 * it can start itself (`earliest`: its arrival on a die, the end of its
 * read on a channel): at that moment both are ready and the resource
 * picks the higher class; what started before is in progress.  The parts
 * of one operation are not moved together: a read pushed back on its die
 * keeps its transfer slot (moved only when the channel itself is
 * overtaken; that slot never starts before the read that overtook it is
 * ready, so it is never in that read's way) but that slot is marked
 * stale: it cannot start as planned, so whatever of a higher class comes
 * next may go ahead of it, in progress or not by its times.  Its owner
 * waits for the later of the two parts.
 */
#include <errno.h>
#include <string.h>

#include "nand_queue.h"

static inline uint64_t
max64 (uint64_t a, uint64_t b)
{
  return a > b ? a : b;
}

static void
drop_front (struct nand_queue *q)
{
  q->sealed_end = max64 (q->sealed_end, q->r[0].end);
  q->n--;
  memmove (&q->r[0], &q->r[1], q->n * sizeof q->r[0]);
}

void
nand_queue_prune (struct nand_queue *q, uint64_t t)
{
  while (q->n && q->r[0].end <= t)
    drop_front (q);
  while (q->n >= NAND_Q_CAP)
    drop_front (q);
}

struct nand_resv *
nand_queue_find (struct nand_queue *q, uint64_t id)
{
  for (uint32_t j = q->n; j-- > 0;)
    if (q->r[j].id == id)
      return &q->r[j];
  return NULL;
}

/* May an operation of class prio that can start at `earliest` go ahead
 * of r? */
static bool
may_overtake (const struct nand_resv *r, uint64_t earliest, uint8_t prio)
{
  return (r->start >= earliest || r->stale) && r->prio < prio && r->pushable;
}

uint64_t
nand_queue_slot (struct nand_queue *q, uint64_t earliest, uint8_t prio,
                 uint32_t *at, struct nand_queue_counters *c)
{
  uint32_t k = q->n;
  while (k > 0 && may_overtake (&q->r[k - 1], earliest, prio))
    {
      if (q->r[k - 1].pushes >= NAND_Q_MAX_PUSHES)
        {
          c->bound_hits++;
          break;
        }
      k--;
    }
  if (k == q->n)
    {
      *at = k;
      return max64 (earliest, q->tail);  /* FCFS, exactly the old clock */
    }
  uint64_t s = max64 (earliest, k ? q->r[k - 1].end : q->sealed_end);
  /* what is over by then stays ahead: nothing to overtake there */
  while (k < q->n && q->r[k].end <= s)
    k++;
  *at = k;
  return k == q->n ? max64 (s, q->tail) : s;
}

/* Move the reservations after position `from` back as far as they now
 * overlap it, up to the first of class stop_prio or above;
 * count_push: they were overtaken (the starvation bound counts it). */
static void
push_back_after (struct nand_queue *q, uint32_t from, unsigned stop_prio,
                 bool count_push, struct nand_tickets *tk,
                 struct nand_queue_counters *c)
{
  uint64_t prev_end = q->r[from].end;
  for (uint32_t j = from + 1; j < q->n; j++)
    {
      struct nand_resv *r = &q->r[j];
      if (r->start >= prev_end || r->prio >= stop_prio)
        break;                          /* the rest was already clear */
      uint64_t delta = prev_end - r->start;
      r->start += delta;
      r->end += delta;
      if (count_push)
        {
          r->pushes++;
          c->pushes++;
        }
      if (r->ticket && r->wait_len)
        nand_ticket_raise (tk, r->ticket, r->start + r->wait_len);
      if (r->partner_id)
        {
          struct nand_resv *p = nand_queue_find (r->partner_q, r->partner_id);
          if (p)
            p->stale = true;
        }
      prev_end = r->end;
    }
  q->tail = max64 (q->tail, prev_end);
}

int
nand_queue_insert (struct nand_queue *q, uint32_t at,
                   const struct nand_resv *rv, struct nand_tickets *tk,
                   struct nand_queue_counters *c)
{
  if (at > q->n || q->n >= NAND_Q_CAP)
    return -ENOSPC;
  if (at < q->n)
    c->overtakes++;
  memmove (&q->r[at + 1], &q->r[at], (q->n - at) * sizeof q->r[0]);
  q->r[at] = *rv;
  q->n++;
  q->tail = max64 (q->tail, rv->end);
  /* every reservation after `at` is one it may overtake */
  push_back_after (q, at, UINT8_MAX + 1u, true, tk, c);
  return 0;
}

bool
nand_queue_extend (struct nand_queue *q, uint64_t id, uint64_t new_end,
                   uint64_t wait_len, struct nand_tickets *tk,
                   struct nand_queue_counters *c)
{
  q->tail = max64 (q->tail, new_end);
  struct nand_resv *r = nand_queue_find (q, id);
  if (!r)
    return false;
  r->wait_len = wait_len;
  if (new_end <= r->end)
    return true;
  r->end = new_end;
  /* what it pushes now is what the same operation overtook a moment ago
   * (the extension is its own work): not a new push.  Its own class and
   * above keep their times, as the FCFS clock kept them. */
  push_back_after (q, (uint32_t) (r - q->r), r->prio, false, tk, c);
  return true;
}
