/* device_format.c - formatting the FTL for the drive and the drive's own
 * superblock (channel geometry and volume size), kept as an attribute of
 * a system object so that it survives like any other flushed data. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device_internal.h"

int
device_write_superblock (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ossd_superblock sb = { 0 };
  ftl_error fe = { "" };
  struct timespec ts;
  int r;

  clock_gettime (CLOCK_REALTIME, &ts);
  sb.magic = htole32 (OSSD_SB_MAGIC);
  sb.version = htole32 (1);
  sb.volume_bytes = htole64 (dev->volume_bytes);
  sb.slots = htole32 (dev->slot_count);
  sb.window_lbas = htole32 (dev->window_lbas);
  sb.device_id = htole64 (dev->control.device_id);
  sb.formatted_ns = htole64 ((uint64_t) ts.tv_sec * 1000000000ull + ts.tv_nsec);
  r = ftl_set_attr (dev->ftl, OSSD_SYS_PID, OSSD_SUPERBLOCK_OID,
                    OSSD_SB_ATTR_PAGE, 1, &sb, sizeof sb, &fe);
  if (r < 0)
    snprintf (why, whylen, "writing the drive superblock: %s", fe.msg);
  return r;
}

int
device_superblock_load (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ossd_superblock sb;
  ftl_error fe = { "" };
  size_t len = 0;
  int r;

  r = ftl_get_attr (dev->ftl, OSSD_SYS_PID, OSSD_SUPERBLOCK_OID,
                    OSSD_SB_ATTR_PAGE, 1, &sb, sizeof sb, &len, &fe);
  if (r < 0 || len != sizeof sb || le32toh (sb.magic) != OSSD_SB_MAGIC)
    {
      snprintf (why, whylen, "image %s has no pg_ossd drive superblock (%s): format it first",
                dev->image, r < 0 ? fe.msg : "bad size or magic");
      return r < 0 ? r : -EINVAL;
    }
  dev->volume_bytes = le64toh (sb.volume_bytes);
  dev->slot_count = le32toh (sb.slots);
  dev->window_lbas = le32toh (sb.window_lbas);
  dev->control.device_id = le64toh (sb.device_id);
  if (dev->slot_count == 0 || dev->slot_count > OSSD_MAX_SLOTS
      || dev->window_lbas < 2 || dev->volume_bytes % OSSD_LBA_SIZE)
    {
      snprintf (why, whylen, "drive superblock is inconsistent (slots %u, window %u, volume %llu)",
                dev->slot_count, dev->window_lbas,
                (unsigned long long) dev->volume_bytes);
      return -EINVAL;
    }
  return 0;
}

/* Put a freshly formatted FTL in dev->ftl.  A failed format leaves the
 * drive as it was: a RAM drive keeps its old FTL until the new one
 * exists; an image (which only one FTL may hold) is closed for the format
 * and opened again if the format fails (the file backend checks that the
 * image can take its new size before it drops any content). */
static int
replace_ftl (ossd_device_t *dev, const struct ftl_config *fc, char *why,
             size_t whylen)
{
  ftl_error fe = { "" }, oe = { "" };
  ftl_t *fresh = NULL;
  int r;

  if (!dev->image[0])
    {
      r = ftl_format (NULL, fc, &fresh, &fe);
      if (r < 0)
        {
          snprintf (why, whylen, "format of (ram): %s", fe.msg);
          return r;
        }
      if (dev->ftl)
        ftl_close (dev->ftl);
      dev->ftl = fresh;
      return 0;
    }
  if (dev->ftl)
    {
      ftl_close (dev->ftl);
      dev->ftl = NULL;
    }
  r = ftl_format (dev->image, fc, &dev->ftl, &fe);
  if (r == 0)
    return 0;
  dev->ftl = NULL;
  if (ftl_open (dev->image, &dev->ftl, &oe) < 0)
    {
      dev->ftl = NULL;
      snprintf (why, whylen, "format of %s: %s; reopening the previous image failed too: %s",
                dev->image, fe.msg, oe.msg);
      return r;
    }
  snprintf (why, whylen, "format of %s: %s (the drive keeps its previous contents)",
            dev->image, fe.msg);
  return r;
}

/* (Re)create the FTL with cfg and lay out the system objects.  Called at
 * open (no FTL yet) and by FORMAT (with ftl_lock held exclusively). */
int
device_format_ftl (ossd_device_t *dev, const Ossd__FtlConfig *cfg, char *why,
                   size_t whylen)
{
  struct ftl_config fc;
  ftl_error fe = { "" };
  int r;

  r = ftl_config_defaults (&fc, cfg->profile && *cfg->profile ? cfg->profile : NULL, &fe);
  if (r == 0 && cfg->page_size)
    fc.page_size = cfg->page_size;
  if (r == 0 && cfg->over_provisioning > 0)
    fc.over_provisioning = cfg->over_provisioning;
  if (r == 0)
    {
      fc.mapping_mode = cfg->mapping_mode;
      fc.alloc_policy = cfg->alloc_policy;
      fc.gc_policy = cfg->gc_policy;
      if (cfg->mapping_cache_fraction > 0)
        fc.mapping_cache_fraction = cfg->mapping_cache_fraction;
      r = ftl_config_set_capacity (&fc, cfg->capacity_bytes
                                   ? cfg->capacity_bytes : (4ull << 30), &fe);
    }
  if (r < 0)
    {
      snprintf (why, whylen, "format: %s", fe.msg);
      return r;
    }
  r = replace_ftl (dev, &fc, why, whylen);
  if (r < 0)
    return r;
  /* the objects the profile and the relocation jobs name are gone */
  if (dev->profile)
    ftl_profile_reset (dev->profile);
  device_relocate_drop (dev);
  device_autoplan_forget (dev);
  if (dev->control.device_id == 0)
    {
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      dev->control.device_id = ((uint64_t) ts.tv_nsec << 32)
        ^ (uint64_t) ts.tv_sec ^ ((uint64_t) getpid () << 16);
    }
  r = ftl_create_partition (dev->ftl, OSSD_SYS_PID, &fe);
  if (r < 0 && r != -EEXIST)
    goto fail;
  r = ftl_create_object (dev->ftl, OSSD_SYS_PID, OSSD_SUPERBLOCK_OID, &fe);
  if (r < 0)
    goto fail;
  r = ftl_create_object (dev->ftl, OSSD_SYS_PID, OSSD_VOLUME_OID, &fe);
  if (r < 0)
    goto fail;
  r = ftl_set_length (dev->ftl, OSSD_SYS_PID, OSSD_VOLUME_OID,
                      dev->volume_bytes, &fe);
  if (r < 0)
    goto fail;
  r = device_write_superblock (dev, why, whylen);
  if (r < 0)
    return r;
  r = ftl_flush (dev->ftl, &fe);
  if (r < 0)
    goto fail;
  return 0;

fail:
  snprintf (why, whylen, "laying out system objects: %s", fe.msg);
  return r;
}
