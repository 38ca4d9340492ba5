/* priority.c - user.ossd.priority: a regular file's I/O priority on its
 * drives (docs/qos.md).
 *
 * The value is one digit, 0 (lowest) to 7, kept by the drive as the
 * object's priority attribute (the FTL's hint page); a file never set reads
 * as the drive's default, 4.  The file's owner or root may set it (a
 * higher priority only makes other files' scans wait, each for at most
 * the drive's bound per batch; PostgreSQL, which owns its files, decides
 * in SQL who may raise a table's: ossd_set_priority).  On an array every drive's object of the file gets the value, so
 * that each drive's scans of the file yield alike. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ossd_ftl.h"
#include "ossdfs.h"

int
priority_xattr_get (struct fs *fs, struct inode *ip, char *buf, size_t cap)
{
  uint8_t v = FTL_PRIORITY_DEFAULT;
  size_t len = 0;
  ossd_error err = { 0 };
  int r;

  if (!S_ISREG (ip->d.mode))
    return -ENODATA;
  r = ossd_get_attr (fs_meta (fs), fs->pid, ip->oid, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY,
                     &v, 1, &len, &err);
  if (r == -ENOENT)
    v = FTL_PRIORITY_DEFAULT;   /* never set */
  else if (r < 0)
    return r;
  return snprintf (buf, cap, "%u", v > FTL_PRIORITY_MAX ? FTL_PRIORITY_MAX : v);
}

int
priority_xattr_set (struct fs *fs, uid_t caller, struct inode *ip, const char *value,
                    size_t size)
{
  unsigned level;

  if (!S_ISREG (ip->d.mode))
    return -EINVAL;
  /* one digit, a newline allowed after it (echo N > ...) */
  if (size < 1 || size > 2 || value[0] < '0' || value[0] > (char) ('0' + FTL_PRIORITY_MAX)
      || (size == 2 && value[1] != '\n'))
    return -EINVAL;
  level = (unsigned) (value[0] - '0');
  if (caller != 0 && caller != ip->d.uid)
    return -EPERM;
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      uint8_t v = (uint8_t) level;
      ossd_error err = { 0 };
      int r;

      if (fs_striped (fs) && fs_drive_failed (fs, d))
        continue;               /* a rebuild copies it */
      r = ossd_set_attr (fs->drive[d].o, fs->pid, ip->oid, FTL_ATTR_PAGE_HINTS,
                         FTL_ATTR_HINT_PRIORITY, &v, 1, &err);
      fs_modified_drive (fs, d);
      if (r < 0 && !parity_lost (fs, d, r, &err, "SET ATTRIBUTES"))
        {
          fs_log (fs, "setxattr user.ossd.priority of object %llu on drive %u: %s",
                  (unsigned long long) ip->oid, d, err.msg);
          return r;
        }
    }
  return 0;
}
