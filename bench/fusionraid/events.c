/* events.c - the simulator's event queue: a binary min-heap on (time,
 * sequence), so events at the same virtual time run in the order they
 * were made (the run is deterministic for a seed). */
#include <errno.h>
#include <stdlib.h>

#include "fr.h"

static bool
before (const struct fr_event *a, const struct fr_event *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int
fr_heap_push (struct fr_heap *h, uint64_t t, uint32_t kind, uint64_t a,
              int status)
{
  if (h->n == h->cap)
    {
      size_t cap = h->cap ? h->cap * 2 : 1024;
      struct fr_event *e = realloc (h->ev, cap * sizeof *e);
      if (!e)
        {
          fprintf (stderr, "fusionraid-sim: out of memory for events\n");
          return -ENOMEM;
        }
      h->ev = e;
      h->cap = cap;
    }
  struct fr_event ev = { t, h->seq++, kind, a, status };
  size_t i = h->n++;
  while (i > 0)
    {
      size_t p = (i - 1) / 2;
      if (!before (&ev, &h->ev[p]))
        break;
      h->ev[i] = h->ev[p];
      i = p;
    }
  h->ev[i] = ev;
  return 0;
}

bool
fr_heap_pop (struct fr_heap *h, struct fr_event *out)
{
  if (h->n == 0)
    return false;
  *out = h->ev[0];
  struct fr_event last = h->ev[--h->n];
  size_t i = 0;
  for (;;)
    {
      size_t c = 2 * i + 1;
      if (c >= h->n)
        break;
      if (c + 1 < h->n && before (&h->ev[c + 1], &h->ev[c]))
        c++;
      if (!before (&h->ev[c], &last))
        break;
      h->ev[i] = h->ev[c];
      i = c;
    }
  if (h->n)
    h->ev[i] = last;
  return true;
}

void
fr_heap_free (struct fr_heap *h)
{
  free (h->ev);
  h->ev = NULL;
  h->n = h->cap = 0;
}
