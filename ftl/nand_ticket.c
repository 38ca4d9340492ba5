/* nand_ticket.c - the tickets callers sleep on (nand_queue.h).
 *
 * Under a paced profile a caller sleeps until its operation's modelled
 * completion, without the FTL lock.  A later operation of a higher
 * priority may push that completion back (nand_queue.c), so the caller
 * sleeps on a ticket instead of a fixed time: when it wakes it looks
 * again and sleeps on if the ticket moved.  Tickets are written under the
 * FTL lock and read without it, hence the atomics; a slot is reused only
 * once its completion has passed, and a handle whose slot was reused has
 * nothing left to wait for (a completion that passed is never pushed:
 * only reservations that have not started move).
 */
#include <stdint.h>

#include "nand_queue.h"

static uint64_t
load (const uint64_t *p)
{
  return __atomic_load_n (p, __ATOMIC_SEQ_CST);
}

static void
store (uint64_t *p, uint64_t v)
{
  __atomic_store_n (p, v, __ATOMIC_SEQ_CST);
}

uint64_t
nand_ticket_open (struct nand_tickets *tk, uint64_t now)
{
  for (uint32_t i = 0; i < NAND_TICKETS; i++)
    {
      uint32_t idx = (uint32_t) ((tk->next_gen + i) % NAND_TICKETS);
      struct nand_ticket *t = &tk->t[idx];
      if (load (&t->gen) && load (&t->done) > now)
        continue;                       /* someone may still wait on it */
      uint64_t gen = ++tk->next_gen;
      /* the generation first: a reader of the old handle that sees the
       * new (unfinished) completion then sees the new generation too */
      store (&t->gen, gen);
      store (&t->done, UINT64_MAX);
      return gen * NAND_TICKETS + idx;
    }
  return 0;
}

static struct nand_ticket *
ticket_of (const struct nand_tickets *tk, uint64_t handle)
{
  return (struct nand_ticket *) &tk->t[handle % NAND_TICKETS];
}

void
nand_ticket_close (struct nand_tickets *tk, uint64_t handle, uint64_t done)
{
  struct nand_ticket *t = ticket_of (tk, handle);
  if (handle && load (&t->gen) == handle / NAND_TICKETS)
    store (&t->done, done);
}

void
nand_ticket_raise (struct nand_tickets *tk, uint64_t handle, uint64_t done)
{
  struct nand_ticket *t = ticket_of (tk, handle);
  if (handle && load (&t->gen) == handle / NAND_TICKETS
      && load (&t->done) < done)
    store (&t->done, done);
}

bool
nand_ticket_done (const struct nand_tickets *tk, uint64_t handle,
                  uint64_t *done)
{
  if (!handle)
    return false;
  const struct nand_ticket *t = ticket_of (tk, handle);
  uint64_t gen = handle / NAND_TICKETS;
  if (load (&t->gen) != gen)
    return false;
  uint64_t d = load (&t->done);
  if (load (&t->gen) != gen)
    return false;
  *done = d;
  return true;
}
