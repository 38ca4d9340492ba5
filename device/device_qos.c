/* device_qos.c - object priorities honoured by the drive (issue 16 item 3,
 * docs/qos.md).
 *
 * An object's priority is its FTL hint attribute (page
 * FTL_ATTR_PAGE_HINTS, number FTL_ATTR_HINT_PRIORITY: one byte, 0 lowest
 * .. FTL_PRIORITY_MAX, absent = FTL_PRIORITY_DEFAULT), which the FTL keeps
 * with the object (ftl_object_info.priority), so reading it costs nothing
 * beside the stat a command already makes.
 *
 * Every piece of flash work the drive does for a request counts as in
 * flight at its object's priority while it runs: a host READ's read, a
 * WRITE, a batch of pages an offloaded scan reads (device_qos_begin /
 * device_qos_end).  Before a scan worker reads its next batch it yields
 * while anything of a higher priority is in flight (device_qos_yield):
 * strict priority, so a point read of a high-priority table finds the
 * dies, the channel and the CPUs the scan would have taken.  The wait is
 * bounded: at most opts.qos_defer_us per batch (default 2000 us), after
 * which the batch goes ahead whatever runs above it, so a low-priority
 * scan always reads at least one batch per bound.  A scan runs at the
 * lowest priority of the objects it scans.  Host requests never wait for
 * one another here (they take the FTL's own locks in arrival order); only
 * scans yield, because only they have work they can put off.  qos=off
 * (opts.qos_off) keeps the counts and never waits.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "device_internal.h"

/* How long a yielding scan worker sleeps between two looks. */
#define QOS_STEP_NS 20000ull
/* Higher-priority work that ended this recently still counts as going on
 * for a paced scan's read-ahead (a reader's next request is on its way). */
#define QOS_QUIET_NS 1000000ull

static unsigned
clamp_priority (unsigned prio)
{
  return prio > FTL_PRIORITY_MAX ? FTL_PRIORITY_MAX : prio;
}

void
device_qos_begin (ossd_device_t *dev, unsigned prio)
{
  atomic_fetch_add (&dev->qos.inflight[clamp_priority (prio)], 1);
}

void
device_qos_end (ossd_device_t *dev, unsigned prio)
{
  atomic_store (&dev->qos.last_end_ns[clamp_priority (prio)], device_now_ns ());
  atomic_fetch_sub (&dev->qos.inflight[clamp_priority (prio)], 1);
}

/* Is anything of a priority above prio in flight? */
static bool
higher_in_flight (ossd_device_t *dev, unsigned prio)
{
  for (unsigned p = clamp_priority (prio) + 1; p <= FTL_PRIORITY_MAX; p++)
    if (atomic_load (&dev->qos.inflight[p]))
      return true;
  return false;
}

bool
device_qos_contended (ossd_device_t *dev, unsigned prio)
{
  if (dev->opts.qos_off)
    return false;
  uint64_t now = device_now_ns ();
  for (unsigned p = clamp_priority (prio) + 1; p <= FTL_PRIORITY_MAX; p++)
    if (atomic_load (&dev->qos.inflight[p])
        || now - atomic_load (&dev->qos.last_end_ns[p]) < QOS_QUIET_NS)
      return true;
  return false;
}

void
device_qos_yield (ossd_device_t *dev, unsigned prio)
{
  if (dev->opts.qos_off || !higher_in_flight (dev, prio))
    return;
  uint64_t t0 = device_now_ns ();
  uint64_t deadline = t0 + (uint64_t) dev->opts.qos_defer_us * 1000ull;
  uint64_t now = t0;
  while (higher_in_flight (dev, prio))
    {
      if (now >= deadline)
        {
          atomic_fetch_add (&dev->qos.bound_hits, 1);
          break;
        }
      struct timespec step = { 0, (long) QOS_STEP_NS };
      nanosleep (&step, NULL);
      now = device_now_ns ();
    }
  atomic_fetch_add (&dev->qos.yields, 1);
  atomic_fetch_add (&dev->qos.yield_ns, now - t0);
}

void
device_qos_scan_begin (ossd_device_t *dev, unsigned prio)
{
  device_qos_yield (dev, prio);
  device_qos_begin (dev, prio);
}

unsigned
device_qos_class (const ossd_device_t *dev, unsigned prio)
{
  return dev->opts.qos_off ? FTL_PRIORITY_DEFAULT : clamp_priority (prio);
}

int
device_qos_check_attr (const Ossd__Attribute *a, char *why, size_t whylen)
{
  if (a->page != FTL_ATTR_PAGE_HINTS || a->number != FTL_ATTR_HINT_PRIORITY)
    return 0;
  if (a->value.len == 0)
    return 0;                   /* removing it: the default again */
  if (a->value.len != 1 || a->value.data[0] > FTL_PRIORITY_MAX)
    {
      snprintf (why, whylen, "the priority attribute (%u, %u) is one byte, 0 to %u",
                a->page, a->number, FTL_PRIORITY_MAX);
      return -EINVAL;
    }
  return 0;
}
