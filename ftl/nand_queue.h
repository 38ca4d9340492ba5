/* nand_queue.h - the priority-aware queue of one NAND resource (a die or a
 * channel) and the tickets callers sleep on (nand_queue.c, nand_ticket.c;
 * docs/qos.md "Die and channel queues").
 *
 * A queue remembers the reservations it handed out that may still be
 * waiting to start, in the order it will serve them.  An operation of
 * priority p that can start at virtual time t goes ahead of every
 * reservation that would start at t or later, has a lower priority and
 * may still be overtaken (its owner can be told; overtaken fewer than
 * NAND_Q_MAX_PUSHES times); those are pushed back to after it.  Nothing started is
 * preempted, equal priorities stay first come first served, and an
 * operation that overtakes nothing is timed exactly as the plain FCFS
 * clock (queue tail) always timed it.
 */
#ifndef NAND_QUEUE_H
#define NAND_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

/* Reservations one queue remembers; older ones are sealed (never
 * overtaken again), which only makes the model more FCFS. */
#define NAND_Q_CAP 32u
/* Starvation bound: one reservation is overtaken at most this often. */
#define NAND_Q_MAX_PUSHES 4u
/* Caller tickets alive at once (sleeping callers, unused read-aheads). */
#define NAND_TICKETS 128u

struct nand_queue;
struct nand_resv
{
  uint64_t id;                 /* unique in the NAND model (nand.c) */
  /* a die reservation's transfer on its channel (0: none); when the die
   * part moves back, the transfer's slot is stale: it can no longer start
   * when planned, so any higher class may go ahead of it */
  uint64_t partner_id;
  struct nand_queue *partner_q;
  bool stale;
  uint64_t start, end;         /* virtual ns */
  uint64_t wait_len;           /* its owner waits until start + wait_len
                                  (0: the owner does not wait for it) */
  uint64_t ticket;             /* the owner's ticket handle (0: none) */
  uint8_t prio;
  uint8_t pushes;              /* times it was overtaken */
  bool pushable;               /* its owner learns a push (ticket) or
                                  nobody sleeps on it (unpaced) */
};

struct nand_queue
{
  uint64_t tail;               /* end of all reservations: the FCFS clock */
  uint64_t sealed_end;         /* end of those no longer remembered */
  uint32_t n;                  /* remembered, in service order */
  struct nand_resv r[NAND_Q_CAP];
};

/* The QoS class and ticket of the NAND operations now being timed. */
struct nand_op_class
{
  uint8_t prio;
  uint64_t ticket;
  bool pushable;
};

/* What the queues did (since ftl_reset_stats). */
struct nand_queue_counters
{
  uint64_t overtakes;          /* operations served ahead of queued ones */
  uint64_t pushes;             /* reservations pushed back (each time) */
  uint64_t bound_hits;         /* overtakes the starvation bound refused */
};

struct nand_ticket
{
  uint64_t gen;                /* atomic; 0: free */
  uint64_t done;               /* atomic; virtual ns the owner waits for */
};

struct nand_tickets
{
  struct nand_ticket t[NAND_TICKETS];
  uint64_t next_gen;
};

/* Where an operation of class prio that can start at `earliest` would
 * start on q, and the position it would take (*at): ahead of every
 * reservation of a lower class that would start at `earliest` or later
 * (and was overtaken fewer than NAND_Q_MAX_PUSHES times).  Counts the
 * overtakes the starvation bound refused. */
uint64_t nand_queue_slot (struct nand_queue *q, uint64_t earliest, uint8_t prio,
                          uint32_t *at, struct nand_queue_counters *c);
/* Put a new operation's reservation rv (rv->start from nand_queue_slot)
 * at position `at`; later reservations it overlaps move back and their
 * owners' tickets follow.  Returns 0, or -ENOSPC if `at` is past the
 * remembered ones or q is full (nand_queue_prune makes room). */
int nand_queue_insert (struct nand_queue *q, uint32_t at,
                       const struct nand_resv *rv, struct nand_tickets *tk,
                       struct nand_queue_counters *c);
/* Reservation `id` of the operation being timed lasts until new_end, its
 * owner waiting wait_len from its start; later ones of a lower class move
 * back if needed.  False if q no longer remembers it (only the tail
 * moves then). */
bool nand_queue_extend (struct nand_queue *q, uint64_t id, uint64_t new_end,
                        uint64_t wait_len, struct nand_tickets *tk,
                        struct nand_queue_counters *c);
/* The reservation `id`, or NULL. */
struct nand_resv *nand_queue_find (struct nand_queue *q, uint64_t id);
/* Forget reservations that ended by t (they can no longer be overtaken)
 * and, if q is full, seal its oldest. */
void nand_queue_prune (struct nand_queue *q, uint64_t t);

/* A ticket for an operation starting now (virtual `now`); 0 if all are
 * taken (the operation is then never pushed back).  nand_ticket_close
 * sets the completion its owner waits for; nand_ticket_raise moves it
 * later (a push); nand_ticket_done reads it: false when the ticket is no
 * longer that handle's (it completed and was reused: nothing to wait). */
uint64_t nand_ticket_open (struct nand_tickets *tk, uint64_t now);
void nand_ticket_close (struct nand_tickets *tk, uint64_t handle, uint64_t done);
void nand_ticket_raise (struct nand_tickets *tk, uint64_t handle, uint64_t done);
bool nand_ticket_done (const struct nand_tickets *tk, uint64_t handle,
                       uint64_t *done);

#endif
