/* super.c - the superblock object and "mkfs".
 *
 * Superblock = object OSSDFS_SB_OID of the partition, 64 bytes,
 * little-endian:
 *    0 "OSSDFS01"   8 u32 version (1)   12 u32 0
 *   16 u64 next free OID (advanced by CAS, OSSDFS_OID_BATCH at a time)
 *   24 u64 root directory OID   32 u64 orphan directory OID
 *   40 u64 creation time (ns since the epoch)
 * The first mount of a partition creates the partition, the superblock,
 * the root and the orphan directory in one COMPOUND, then FLUSHes.  Each
 * mount checks that no object lies beyond the next free OID (a crash can
 * not hand out an OID twice) and removes the orphans of a crash.
 * On an array (stripe.c) the superblock is drive 0's; every drive's array
 * label is checked first, and strays of the data drives are removed. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ossdfs.h"

#define SB_MAGIC "OSSDFS01"
#define SB_VERSION 1
#define SB_SIZE 64
#define SB_NEXT_OFF 16

static void
sb_encode (uint8_t out[SB_SIZE], uint64_t next)
{
  uint64_t v;
  uint32_t w = htole32 (SB_VERSION);
  struct timespec now;

  fs_now (&now);
  memset (out, 0, SB_SIZE);
  memcpy (out, SB_MAGIC, 8);
  memcpy (out + 8, &w, 4);
  v = htole64 (next);
  memcpy (out + 16, &v, 8);
  v = htole64 (OSSDFS_ROOT_OID);
  memcpy (out + 24, &v, 8);
  v = htole64 (OSSDFS_ORPHAN_OID);
  memcpy (out + 32, &v, 8);
  v = htole64 ((uint64_t) now.tv_sec * 1000000000ull + (uint64_t) now.tv_nsec);
  memcpy (out + 40, &v, 8);
}

static void
dir_inode (struct dinode *d, uint32_t mode)
{
  memset (d, 0, sizeof *d);
  d->mode = S_IFDIR | mode;
  d->uid = getuid ();
  d->gid = getgid ();
  d->nlink = 2;
  fs_now (&d->mtime);
  d->atime = d->ctime = d->btime = d->mtime;
}

static int
mkfs (struct fs *fs)
{
  uint8_t sb[SB_SIZE], root[DIR_SLOT], orphans[DIR_SLOT];
  struct dinode d;
  struct batch b;
  int r;

  fs_log (fs, "no filesystem in partition %llu of %s: creating one",
          (unsigned long long) fs->pid, fs->uri);
  sb_encode (sb, OSSDFS_FIRST_OID);
  dir_encode_header (root, OSSDFS_ROOT_OID, OSSDFS_ROOT_OID);
  dir_encode_header (orphans, OSSDFS_ORPHAN_OID, OSSDFS_ORPHAN_OID);
  batch_init (&b);
  batch_create (&b, fs->pid, OSSDFS_SB_OID);
  batch_write (&b, fs->pid, OSSDFS_SB_OID, 0, sb, sizeof sb);
  batch_create (&b, fs->pid, OSSDFS_ROOT_OID);
  batch_write (&b, fs->pid, OSSDFS_ROOT_OID, 0, root, sizeof root);
  dir_inode (&d, 0755);
  batch_inode (&b, fs, OSSDFS_ROOT_OID, &d);
  batch_create (&b, fs->pid, OSSDFS_ORPHAN_OID);
  batch_write (&b, fs->pid, OSSDFS_ORPHAN_OID, 0, orphans, sizeof orphans);
  dir_inode (&d, 0700);
  batch_inode (&b, fs, OSSDFS_ORPHAN_OID, &d);
  r = batch_run (fs, &b, "mkfs", OSSDFS_SB_OID);
  if (r == 0)
    r = fs_flush (fs, OSSDFS_SB_OID);
  return r;
}

/* Read the superblock; *next gets the next free OID. */
static int
sb_read (struct fs *fs, uint64_t *next)
{
  uint8_t sb[SB_SIZE];
  ossd_error err = { 0 };
  size_t got = 0;
  uint64_t v;
  int r;

  r = ossd_read (fs_meta (fs), fs->pid, OSSDFS_SB_OID, 0, sb, sizeof sb, &got, &err);
  if (r < 0)
    return r == -ENOENT ? r : fs_fail (fs, r, &err, "READ (superblock)",
                                       OSSDFS_SB_OID);
  if (got < SB_SIZE || memcmp (sb, SB_MAGIC, 8) != 0)
    {
      fs_log (fs, "partition %llu of %s holds something else than ossdfs (object %d is not an ossdfs superblock)",
              (unsigned long long) fs->pid, fs->uri, OSSDFS_SB_OID);
      return -EINVAL;
    }
  memcpy (&v, sb + SB_NEXT_OFF, 8);
  *next = le64toh (v);
  return 0;
}

/* CAS the next-free-OID word from `expect` to `want`.  *cur gets the
 * value found. */
static int
sb_cas_on (struct fs *fs, uint32_t d, uint64_t expect, uint64_t want,
           uint64_t *cur, bool *swapped, ossd_error *errp)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Cas c = OSSD__CAS__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err = { 0 };
  uint64_t e = htole64 (expect), w = htole64 (want), v;
  int r;

  id.pid = fs->pid;
  id.oid = OSSDFS_SB_OID;
  c.obj = &id;
  c.offset = SB_NEXT_OFF;
  c.expected.data = (uint8_t *) &e;
  c.expected.len = 8;
  c.desired.data = (uint8_t *) &w;
  c.desired.len = 8;
  req.body_case = OSSD__REQUEST__BODY_CAS;
  req.cas = &c;
  r = ossd_call (fs->drive[d].o, &req, &resp, &err);
  fs_modified_drive (fs, d);
  *errp = err;
  if (r == 0 && (resp->body_case != OSSD__RESPONSE__BODY_CAS
                 || resp->cas->current.len != 8))
    {
      fs_log (fs, "CAS (pid %llu, oid %d): malformed answer",
              (unsigned long long) fs->pid, OSSDFS_SB_OID);
      r = -EIO;
    }
  else if (r == 0)
    {
      *swapped = resp->cas->swapped;
      memcpy (&v, resp->cas->current.data, 8);
      *cur = le64toh (v);
    }
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

/* The CAS on the metadata drive; on RAID-5 the value it stored goes to
 * drive 1's copy too (parity.c takes out a drive that fails). */
static int
sb_cas (struct fs *fs, uint64_t expect, uint64_t want, uint64_t *cur,
        bool *swapped)
{
  uint32_t d = fs_meta_drive (fs);
  ossd_error err = { 0 };
  int r = sb_cas_on (fs, d, expect, want, cur, swapped, &err);

  if (r < 0 && d == 0 && parity_lost (fs, 0, r, &err, "CAS"))
    r = sb_cas_on (fs, d = 1, expect, want, cur, swapped, &err);
  else if (r == 0 && *swapped && fs_meta_copy (fs, d))
    {
      uint64_t w = htole64 (want);
      ossd_error e1 = { 0 };
      int r1 = ossd_write (fs->drive[1].o, fs->pid, OSSDFS_SB_OID,
                           SB_NEXT_OFF, &w, 8, &e1);

      fs_modified_drive (fs, 1);
      parity_copy_refused (fs, r1, &e1, "WRITE of the inode counter");
    }
  if (r < 0 && err.status)
    r = fs_fail (fs, r, &err, "CAS (inode counter)", OSSDFS_SB_OID);
  return r;
}

/* fs->lock held. */
static int
reserve_oids (struct fs *fs, uint64_t at_least)
{
  uint64_t cur, found;
  bool swapped = false;
  int r = sb_read (fs, &cur);

  if (r < 0)
    return r;
  if (cur < at_least)
    {
      /* objects beyond the counter: move it past them */
      r = sb_cas (fs, cur, at_least, &found, &swapped);
      if (r < 0)
        return r;
      cur = swapped ? at_least : found;
    }
  for (int tries = 0; tries < 100; tries++)
    {
      r = sb_cas (fs, cur, cur + OSSDFS_OID_BATCH, &found, &swapped);
      if (r < 0)
        return r;
      if (swapped)
        {
          fs->next_oid = cur;
          fs->oid_limit = cur + OSSDFS_OID_BATCH;
          return 0;
        }
      cur = found;
    }
  return -EBUSY;
}

int
super_alloc_oid (struct fs *fs, uint64_t *oid)
{
  int r = 0;

  pthread_mutex_lock (&fs->lock);
  if (fs->next_oid >= fs->oid_limit)
    r = reserve_oids (fs, 0);
  if (r == 0)
    *oid = fs->next_oid++;
  pthread_mutex_unlock (&fs->lock);
  return r;
}

/* The highest OID in the partition (0 if none). */
static int
highest_oid (struct fs *fs, uint64_t from, uint64_t *max)
{
  uint64_t ids[1024];
  size_t n;
  bool more = true;
  ossd_error err = { 0 };
  int r;

  *max = 0;
  while (more)
    {
      r = ossd_list (fs_meta (fs), fs->pid, from, ids, 1024, &n, &more, &err);
      if (r < 0)
        return fs_fail (fs, r, &err, "LIST", from);
      if (n == 0)
        break;
      *max = ids[n - 1];
      from = ids[n - 1];
    }
  return 0;
}

/* Remove what the orphan directory lists (left by a crash). */
static int
clean_orphans (struct fs *fs)
{
  struct inode *ip;
  int r = inode_get (fs, OSSDFS_ORPHAN_OID, &ip);

  if (r < 0)
    return r;
  pthread_mutex_lock (&ip->lock);
  r = dir_load (fs, ip);
  for (uint32_t i = 1; r == 0 && ip->dir && i < ip->dir->nslots; i++)
    {
      struct dentry *e = ip->dir->slots[i];
      uint8_t zero[DIR_SLOT];
      struct batch b;

      if (!e)
        continue;
      dir_encode_slot (zero, NULL, 0, 0);
      batch_init (&b);
      batch_remove (&b, fs->pid, e->oid);
      batch_write (&b, fs->pid, OSSDFS_ORPHAN_OID, (uint64_t) i * DIR_SLOT,
                   zero, DIR_SLOT);
      r = batch_run (fs, &b, "orphan removal", e->oid);
      if (r == -ENOENT)
        {
          /* the object went already: just clear the slot */
          batch_init (&b);
          batch_write (&b, fs->pid, OSSDFS_ORPHAN_OID,
                       (uint64_t) i * DIR_SLOT, zero, DIR_SLOT);
          r = batch_run (fs, &b, "orphan removal", e->oid);
        }
      if (r == 0)
        {
          stripe_remove_data (fs, e->oid);
          dir_erase (ip->dir, e);
        }
    }
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  return r;
}

int
super_mount (struct fs *fs)
{
  ossd_error err = { 0 };
  uint64_t next = 0, max = 0;
  int r;

  /* Drive 0 out of reach: only an array that has it already (labelled,
   * RAID-5) can mount, from the others (stripe_check_labels). */
  r = fs->drive[0].unreachable ? 0
    : ossd_create_partition (fs->o, fs->pid, &err);
  if (r < 0 && r != -EEXIST)
    return fs_fail (fs, r, &err, "CREATE PARTITION", 0);
  if ((r = stripe_check_labels (fs, fs->geom.unit)) < 0)
    return r;
  r = sb_read (fs, &next);
  if (r == -ENOENT)
    {
      if ((r = mkfs (fs)) < 0)
        return r;
      r = sb_read (fs, &next);
    }
  if (r < 0)
    return r;
  r = highest_oid (fs, next ? next - 1 : 0, &max);
  if (r < 0)
    return r;
  if (max >= next)
    fs_log (fs, "objects up to OID %llu lie beyond the inode counter %llu: moving it",
            (unsigned long long) max, (unsigned long long) next);
  pthread_mutex_lock (&fs->lock);
  r = reserve_oids (fs, max >= next ? max + 1 : 0);
  pthread_mutex_unlock (&fs->lock);
  if (r < 0)
    return r;
  if ((r = clean_orphans (fs)) < 0)
    return r;
  if ((r = stripe_clean_strays (fs)) < 0)
    return r;
  return parity_mount_open (fs);
}
