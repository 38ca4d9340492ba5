/* stripe.c - regular files striped over an array of drives (RAID-0 and,
 * through parity.c, RAID-5: docs/arrays.md), and the mount-time checks of
 * the array.
 *
 * A regular file is one object with the same OID on each of the N
 * drives; unit k of the file lives on drive k % N at offset (k / N) * U
 * (ossd_array.h; RAID-5 adds a parity unit to every row of N - 1).  Drive 0 holds everything else (ossdfs.h), including
 * the file's size.  Each drive's object is as long as the file's size
 * implies for it, except for a tail never written (zeros appended, or a
 * crash): bytes past a drive's object read as zeros, like holes.
 *
 * Order of the commands across drives, so that a crash of any one drive
 * (or of ossdfs) leaves the file as it was made durable:
 *   create   data drives' objects first, then drive 0's COMPOUND that
 *            names the file (a crash in between leaves strays on the data
 *            drives, removed at the next mount: stripe_clean_strays);
 *   remove   drive 0's COMPOUND first, then the data drives' objects
 *            (strays again, the same way);
 *   size     stored on drive 0 only after a FLUSH of every drive when it
 *            grows (inode_store), so a size made durable never covers data
 *            that was not; at load, bytes a drive holds past the stored
 *            size (written, never made visible) are cut away, so they can
 *            never show through a later extension.
 * Every drive checks its own capabilities: ossdfs holds each drive's
 * master key (main.c), and hands out one capability per drive (caps.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossdfs.h"

/* fs_fail naming the drive when it is not drive 0. */
static int
drive_fail (struct fs *fs, uint32_t d, int r, const ossd_error *err,
            const char *cmd, uint64_t oid)
{
  char what[700];

  if (d == 0)
    return fs_fail (fs, r, err, cmd, oid);
  snprintf (what, sizeof what, "%s on drive %u (%s)", cmd, d,
            fs->drive[d].uri);
  return fs_fail (fs, r, err, what, oid);
}

/* ---- mount ---------------------------------------------------------------- */

int
stripe_check_labels (struct fs *fs, uint64_t want_unit)
{
  struct ossd_array_label l0 = { 0 }, l;
  char u0[40] = "", u[40];
  uint32_t unreachable = 0, first = UINT32_MAX;
  int r;

  fs->geom.unit = OSSD_ARRAY_DEFAULT_UNIT;
  fs->geom.n = fs->ndrives;
  fs->geom.level = OSSD_ARRAY_RAID0;
  fs->labelled = false;
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      ossd_error err = { 0 };
      const char *uri = fs->drive[d].uri;

      if (fs->drive[d].unreachable)
        {
          unreachable++;
          continue;             /* the others' labels say what it was */
        }
      r = ossd_array_label_read (fs->drive[d].o, fs->pid, &l, &err);
      if (r == -ENOENT && fs->ndrives == 1)
        return 0;               /* an ordinary one-drive filesystem */
      if (r == -ENOENT)
        {
          fs_log (fs, "drive %u (%s) carries no array label in partition %llu: make the drives one array first (ossdctl array create --device URI ... in mount order)",
                  d, uri, (unsigned long long) fs->pid);
          return -EINVAL;
        }
      if (r == -EINVAL)
        {
          fs_log (fs, "drive %u (%s): %s", d, uri, err.msg);
          return -EINVAL;
        }
      if (r < 0)
        return drive_fail (fs, d, r, &err, "READ (array label)",
                           OSSD_ARRAY_LABEL_OID);
      ossd_array_uuid_format (l.uuid, u);
      if (first == UINT32_MAX)
        {
          first = d;
          l0 = l;
          memcpy (u0, u, sizeof u);
          if (l.count != fs->ndrives)
            {
              fs_log (fs, "drive %s is drive %u of a %u-drive array (uuid %s), mounted with %u --device: give all %u drives, in order",
                      uri, l.index, l.count, u, fs->ndrives, l.count);
              return -EINVAL;
            }
        }
      else if (memcmp (l.uuid, l0.uuid, 16) != 0)
        {
          fs_log (fs, "drive %u (%s) belongs to another array (uuid %s, drive %u's is %s)",
                  d, uri, u, first, u0);
          return -EINVAL;
        }
      if (l.index != d)
        {
          fs_log (fs, "the drive given as --device number %u (%s) is drive %u of array %s: give the drives in the order of ossdctl array info",
                  d + 1, uri, l.index, u);
          return -EINVAL;
        }
      if (l.count != l0.count || l.unit != l0.unit || l.level != l0.level)
        {
          fs_log (fs, "drive %u (%s) disagrees with drive %u about array %s (%s over %u drives, unit %" PRIu64 " against %s, %u, %" PRIu64 ")",
                  d, uri, first, u, ossd_array_level_name (l.level), l.count, l.unit,
                  ossd_array_level_name (l0.level), l0.count, l0.unit);
          return -EINVAL;
        }
    }
  if (first == UINT32_MAX)
    {
      fs_log (fs, "none of the %u drives of the array can be reached", fs->ndrives);
      return -EIO;
    }
  if (unreachable && (l0.level != OSSD_ARRAY_RAID5 || unreachable > 1))
    {
      for (uint32_t d = 0; d < fs->ndrives; d++)
        if (fs->drive[d].unreachable)
          fs_log (fs, "drive %u (%s) cannot be reached", d, fs->drive[d].uri);
      fs_log (fs, "array %s is %s over %u drives: it cannot be mounted with %u of them out of reach (%s)",
              u0, ossd_array_level_name (l0.level), l0.count, unreachable,
              l0.level == OSSD_ARRAY_RAID5 ? "RAID-5 rebuilds one drive, not more"
              : "only RAID-5 holds what a drive held elsewhere");
      return -EIO;
    }
  if (want_unit && want_unit != l0.unit)
    {
      fs_log (fs, "array %s was created with stripe unit %" PRIu64 ", not --stripe-unit %" PRIu64,
              u0, l0.unit, want_unit);
      return -EINVAL;
    }
  fs->geom.unit = l0.unit;
  fs->geom.level = l0.level;
  fs->labelled = true;
  memcpy (fs->uuid, l0.uuid, 16);
  return fs_parity (fs) ? parity_mount_state (fs) : 0;
}

/* Every OID of partition pid on o, ascending, from `after` on. */
int
stripe_list_all (struct fs *fs, uint32_t d, uint64_t after, uint64_t **out,
          size_t *count)
{
  uint64_t *ids = NULL;
  size_t n = 0, cap = 0;
  bool more = true;

  while (more)
    {
      ossd_error err = { 0 };
      size_t got = 0;
      int r;

      if (cap - n < 1024)
        {
          uint64_t *p = realloc (ids, (cap + 4096) * sizeof *ids);
          if (!p)
            {
              free (ids);
              return -ENOMEM;
            }
          ids = p;
          cap += 4096;
        }
      r = ossd_list (fs->drive[d].o, fs->pid, after, ids + n, 1024, &got,
                     &more, &err);
      if (r < 0)
        {
          free (ids);
          if (parity_lost (fs, d, r, &err, "LIST"))
            return -EIO;
          return drive_fail (fs, d, r, &err, "LIST", after);
        }
      if (got == 0)
        break;
      n += got;
      after = ids[n - 1];
    }
  *out = ids;
  *count = n;
  return 0;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

int
stripe_clean_strays (struct fs *fs)
{
  uint64_t *meta = NULL, *data = NULL;
  size_t nmeta = 0, ndata = 0, strays = 0;
  int r;

  if (!fs_striped (fs))
    return 0;
  if ((r = stripe_list_all (fs, fs_meta_drive (fs), OSSD_FS_FIRST_OID - 1, &meta,
                     &nmeta)) < 0)
    return r;
  qsort (meta, nmeta, sizeof *meta, cmp_u64);
  for (uint32_t d = 1; r == 0 && d < fs->ndrives; d++)
    {
      if (fs_drive_failed (fs, d))
        continue;
      if ((r = stripe_list_all (fs, d, OSSD_FS_FIRST_OID - 1, &data, &ndata)) < 0)
        {
          if (fs_drive_failed (fs, d))
            r = 0;              /* list_all took it out */
          break;
        }
      for (size_t i = 0; i < ndata; i++)
        {
          ossd_error err = { 0 };
          int e;

          if (bsearch (&data[i], meta, nmeta, sizeof *meta, cmp_u64))
            continue;
          e = ossd_remove (fs->drive[d].o, fs->pid, data[i], &err);
          fs_modified_drive (fs, d);
          if (e < 0 && e != -ENOENT)
            drive_fail (fs, d, e, &err, "REMOVE (stray)", data[i]);
          else
            strays++;
        }
      free (data);
      data = NULL;
    }
  if (strays)
    fs_log (fs, "removed %zu objects of the data drives that no file of drive 0 owned (left by a crash)",
            strays);
  free (meta);
  return r;
}

/* ---- data ------------------------------------------------------------------ */

int
stripe_read (struct fs *fs, struct inode *ip, uint64_t off, char *buf,
             size_t size)
{
  if (fs_parity (fs))
    return parity_read (fs, ip, off, buf, size);
  for (size_t pos = 0; pos < size;)
    {
      ossd_error err = { 0 };
      uint32_t d;
      uint64_t doff, run;
      size_t n, got = 0;
      int r;

      ossd_geom_locate (&fs->geom, off + pos, &d, &doff, &run);
      n = run < size - pos ? (size_t) run : size - pos;
      r = ossd_read (fs->drive[d].o, fs->pid, ip->oid, doff, buf + pos, n,
                     &got, &err);
      if (r < 0)
        return drive_fail (fs, d, r == -ENOENT ? -EIO : r, &err, "READ",
                           ip->oid);
      if (got < n)
        memset (buf + pos + got, 0, n - got);
      pos += n;
    }
  return 0;
}

int
stripe_write (struct fs *fs, struct inode *ip, uint64_t off, const char *buf,
              size_t size, uint64_t *ends)
{
  if (fs_parity (fs))
    return parity_write (fs, ip, off, buf, size, ends);
  memset (ends, 0, fs->ndrives * sizeof *ends);
  for (size_t pos = 0; pos < size;)
    {
      ossd_error err = { 0 };
      uint32_t d;
      uint64_t doff, run;
      size_t n;
      int r;

      ossd_geom_locate (&fs->geom, off + pos, &d, &doff, &run);
      n = run < size - pos ? (size_t) run : size - pos;
      r = ossd_write (fs->drive[d].o, fs->pid, ip->oid, doff, buf + pos, n,
                      &err);
      fs_modified_drive (fs, d);
      if (r < 0)
        return drive_fail (fs, d, r == -ENOENT ? -EIO : r, &err, "WRITE",
                           ip->oid);
      if (doff + n > ends[d])
        ends[d] = doff + n;
      pos += n;
    }
  return 0;
}

int
stripe_punch (struct fs *fs, struct inode *ip, uint64_t off, uint64_t len)
{
  if (fs_parity (fs))
    return parity_punch (fs, ip, off, len);
  for (uint64_t pos = 0; pos < len;)
    {
      ossd_error err = { 0 };
      uint32_t d;
      uint64_t doff, run, n;
      int r;

      ossd_geom_locate (&fs->geom, off + pos, &d, &doff, &run);
      n = run < len - pos ? run : len - pos;
      pos += n;
      if (doff >= ip->dlen[d])
        continue;               /* past the object: a hole already */
      if (n > ip->dlen[d] - doff)
        n = ip->dlen[d] - doff;
      r = ossd_punch (fs->drive[d].o, fs->pid, ip->oid, doff, n, &err);
      fs_modified_drive (fs, d);
      if (r < 0)
        return drive_fail (fs, d, r, &err, "PUNCH", ip->oid);
    }
  return 0;
}

int
stripe_set_lengths (struct fs *fs, struct inode *ip, uint64_t size,
                    uint32_t from)
{
  for (uint32_t d = from; d < fs->ndrives; d++)
    {
      uint64_t want = ossd_geom_drive_length (&fs->geom, size, d);
      ossd_error err = { 0 };
      int r;

      if (ip->dlen[d] == want || fs_drive_failed (fs, d))
        continue;
      r = ossd_set_length (fs->drive[d].o, fs->pid, ip->oid, want, &err);
      fs_modified_drive (fs, d);
      if (r < 0 && !parity_lost (fs, d, r, &err, "SET LENGTH"))
        return drive_fail (fs, d, r, &err, "SET LENGTH", ip->oid);
      ip->dlen[d] = want;
    }
  return 0;
}

int
stripe_create_data (struct fs *fs, uint64_t oid)
{
  for (uint32_t d = 1; d < fs->ndrives; d++)
    {
      ossd_error err = { 0 };
      int r;

      if (fs_drive_failed (fs, d))
        continue;               /* rebuilt whole, later */
      r = ossd_create (fs->drive[d].o, fs->pid, oid, &err);

      if (r == -EEXIST)         /* a crash left it: start it empty */
        r = ossd_set_length (fs->drive[d].o, fs->pid, oid, 0, &err);
      fs_modified_drive (fs, d);
      if (r < 0 && !parity_lost (fs, d, r, &err, "CREATE"))
        return drive_fail (fs, d, r, &err, "CREATE", oid);
    }
  return 0;
}

void
stripe_remove_data (struct fs *fs, uint64_t oid)
{
  for (uint32_t d = 1; d < fs->ndrives; d++)
    {
      ossd_error err = { 0 };
      int r;

      if (fs_drive_failed (fs, d))
        continue;
      r = ossd_remove (fs->drive[d].o, fs->pid, oid, &err);
      fs_modified_drive (fs, d);
      /* a failure leaves a stray, removed at the next mount */
      if (r < 0 && r != -ENOENT && !parity_lost (fs, d, r, &err, "REMOVE"))
        drive_fail (fs, d, r, &err, "REMOVE", oid);
    }
}

int
stripe_set_cap_version (struct fs *fs, struct inode *ip, uint64_t version)
{
  uint8_t v[8];

  for (int k = 0; k < 8; k++)
    v[k] = (uint8_t) (version >> (8 * k));
  for (uint32_t d = 1; d < fs->ndrives; d++)
    {
      ossd_error err = { 0 };
      int r;

      if (fs_drive_failed (fs, d))
        continue;
      r = ossd_set_attr (fs->drive[d].o, fs->pid, ip->oid,
                         OSSD_CAP_ATTR_PAGE, OSSD_CAP_ATTR_VERSION, v,
                         sizeof v, &err);

      fs_modified_drive (fs, d);
      if (r < 0 && !parity_lost (fs, d, r, &err, "SET ATTRIBUTES"))
        return drive_fail (fs, d, r, &err, "SET ATTRIBUTES (capability version)",
                           ip->oid);
    }
  return 0;
}

int
stripe_load (struct fs *fs, struct inode *ip, const uint64_t *size_attr,
             uint64_t drive0_len, uint64_t drive0_alloc)
{
  uint64_t size = 0, alloc = drive0_alloc, reach = 0;

  ip->dlen = calloc (fs->ndrives, sizeof *ip->dlen);
  if (!ip->dlen)
    return -ENOMEM;
  /* drive 0 out: its share as the size implies (drive0_len is drive 1's,
   * from the copy of the metadata) */
  ip->dlen[0] = fs_drive_failed (fs, 0) ? UINT64_MAX : drive0_len;
  if (fs_drive_failed (fs, 0))
    alloc = 0;
  for (uint32_t d = 1; d < fs->ndrives; d++)
    {
      struct ossd_object_stat st = { 0 };
      ossd_error err = { 0 };
      int r;

      if (fs_drive_failed (fs, d))
        {
          ip->dlen[d] = UINT64_MAX;   /* set from the size below */
          continue;
        }
      r = ossd_stat (fs->drive[d].o, fs->pid, ip->oid, &st, &err);
      if (parity_lost (fs, d, r, &err, "STAT"))
        {
          ip->dlen[d] = UINT64_MAX;
          continue;
        }
      if (r == -ENOENT)
        {
          fs_log (fs, "file object %llu is missing on drive %u (%s): the drive is not this array's, or lost it (ossdctl array fsck)",
                  (unsigned long long) ip->oid, d, fs->drive[d].uri);
          return -EIO;
        }
      if (r < 0)
        return drive_fail (fs, d, r, &err, "STAT", ip->oid);
      ip->dlen[d] = st.size;
      alloc += st.allocated;
    }
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      uint64_t e = ip->dlen[d] == UINT64_MAX ? 0
        : ossd_geom_logical_end (&fs->geom, ip->dlen[d], d);
      if (e > size)
        size = e;
    }
  ip->parity_reach = size;     /* the drives' extent, before any cut */
  if (size_attr)
    size = *size_attr;
  else
    fs_log (fs, "file object %llu has no size attribute: taking the drives' extent, %llu bytes",
            (unsigned long long) ip->oid, (unsigned long long) size);
  /* RAID-5: the last row's parity as the cut below leaves it, first */
  for (uint32_t d = 0; fs_parity (fs) && d < fs->ndrives; d++)
    if (ip->dlen[d] != UINT64_MAX
        && ip->dlen[d] > ossd_geom_drive_length (&fs->geom, size, d))
      {
        int r = parity_cut_row (fs, ip, size);
        if (r < 0)
          return r;
        break;
      }
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      uint64_t want = ossd_geom_drive_length (&fs->geom, size, d);
      uint64_t e;

      if (ip->dlen[d] == UINT64_MAX)
        ip->dlen[d] = want;     /* a failed drive: as the size implies */
      else if (ip->dlen[d] > want)
        {
          ossd_error err = { 0 };
          int r = ossd_set_length (fs->drive[d].o, fs->pid, ip->oid, want,
                                   &err);

          fs_modified_drive (fs, d);
          if (r < 0)
            return drive_fail (fs, d, r, &err, "SET LENGTH (cut past the size)",
                               ip->oid);
          fs_log (fs, "file object %llu: cut %llu bytes past its size on drive %u (written, never made durable)",
                  (unsigned long long) ip->oid,
                  (unsigned long long) (ip->dlen[d] - want), d);
          ip->dlen[d] = want;
        }
      e = ossd_geom_logical_end (&fs->geom, ip->dlen[d], d);
      if (e > reach)
        reach = e;
    }
  ip->size = ip->meta_size = size;
  ip->drive_size = reach;
  ip->parity_reach = reach;
  ip->allocated = alloc;
  return 0;
}

/* ---- space and layout -------------------------------------------------- */

int
stripe_space (struct fs *fs, uint64_t *capacity, uint64_t *free_bytes,
              uint64_t *objects)
{
  uint64_t min_free = UINT64_MAX;
  uint32_t counted = 0;

  *capacity = *objects = 0;
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      Ossd__InfoResult *info = NULL;
      ossd_error err = { 0 };
      int r;

      if (fs_drive_failed (fs, d))
        continue;
      r = ossd_info (fs->drive[d].o, &info, &err);
      if (r < 0 && parity_lost (fs, d, r, &err, "INFO"))
        continue;
      if (r < 0)
        return drive_fail (fs, d, r, &err, "INFO", 0);
      *capacity += info->capacity_bytes;
      counted++;
      if (info->free_bytes < min_free)
        min_free = info->free_bytes;
      if (d == 0)
        *objects = info->objects;
      ossd__info_result__free_unpacked (info, NULL);
    }
  if (!counted)
    min_free = 0;
  /* striping fills the drives evenly: the fullest one bounds the rest;
   * under RAID-5 one drive in N holds parity */
  *free_bytes = min_free * ossd_geom_data_drives (&fs->geom);
  if (fs_parity (fs) && counted)
    *capacity = *capacity / counted * (fs->ndrives - 1);
  return 0;
}

int
stripe_layout_text (struct fs *fs, char *buf, size_t cap)
{
  const char *uris[OSSD_ARRAY_MAX_DRIVES];
  uint64_t out = 0;

  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      uris[d] = fs->drive[d].uri;
      if (fs_drive_failed (fs, d))
        out |= 1ull << d;
    }
  return ossd_layout_format (buf, cap, &fs->geom,
                             fs->labelled ? fs->uuid : NULL, out, uris);
}
