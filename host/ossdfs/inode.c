/* inode.c - the inode cache and the inode attribute.
 *
 * Inode fields are one attribute, (OSSDFS_PAGE_INODE, 1), of the object:
 * 96 bytes, little-endian:
 *    0 u32 format version (1)   4 u32 mode   8 u32 uid   12 u32 gid
 *   16 u32 nlink   20 u32 reserved   24 u64 rdev
 *   32 atime, 48 mtime, 64 ctime, 80 btime: each i64 seconds, u32 ns, u32 0
 * The size is the object's length and is not stored twice -- except on an
 * array (stripe.c), where a regular file's size is attribute
 * (OSSDFS_PAGE_INODE, OSSD_FS_SIZE_NUMBER), a u64 little-endian.
 *
 * The cache is a hash table of struct inode keyed by OID.  An inode stays
 * while the kernel holds lookups on it, a file handle is open, or an
 * operation holds a reference; one GET ATTRIBUTES loads the inode, its
 * size and its xattrs together. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ossdfs.h"
#include "ossd_le.h"

#define INODE_VERSION 1

void
fs_now (struct timespec *ts)
{
  clock_gettime (CLOCK_REALTIME, ts);
}

static void
put_ts (uint8_t *p, const struct timespec *ts)
{
  ossd_le_put64 (p, (uint64_t) ts->tv_sec);
  ossd_le_put32 (p + 8, (uint32_t) ts->tv_nsec);
  ossd_le_put32 (p + 12, 0);
}
static void
get_ts (const uint8_t *p, struct timespec *ts)
{
  ts->tv_sec = (time_t) ossd_le_get64 (p);
  ts->tv_nsec = ossd_le_get32 (p + 8) % 1000000000u;
}

void
inode_encode (const struct dinode *d, uint8_t out[INODE_DISK_SIZE])
{
  memset (out, 0, INODE_DISK_SIZE);
  ossd_le_put32 (out, INODE_VERSION);
  ossd_le_put32 (out + 4, d->mode);
  ossd_le_put32 (out + 8, d->uid);
  ossd_le_put32 (out + 12, d->gid);
  ossd_le_put32 (out + 16, d->nlink);
  ossd_le_put64 (out + 24, d->rdev);
  put_ts (out + 32, &d->atime);
  put_ts (out + 48, &d->mtime);
  put_ts (out + 64, &d->ctime);
  put_ts (out + 80, &d->btime);
}

int
inode_decode (struct dinode *d, const uint8_t *in, size_t len)
{
  if (len < INODE_DISK_SIZE || ossd_le_get32 (in) != INODE_VERSION)
    return -EIO;
  d->mode = ossd_le_get32 (in + 4);
  d->uid = ossd_le_get32 (in + 8);
  d->gid = ossd_le_get32 (in + 12);
  d->nlink = ossd_le_get32 (in + 16);
  d->rdev = ossd_le_get64 (in + 24);
  get_ts (in + 32, &d->atime);
  get_ts (in + 48, &d->mtime);
  get_ts (in + 64, &d->ctime);
  get_ts (in + 80, &d->btime);
  return 0;
}

int
inode_table_init (struct fs *fs)
{
  fs->nbuckets = 1u << 16;
  fs->table = calloc (fs->nbuckets, sizeof *fs->table);
  return fs->table ? 0 : -ENOMEM;
}

static void
inode_free (struct inode *ip)
{
  dir_free (ip->dir);
  xattr_free (ip);
  free (ip->promise);
  free (ip->dlen);
  pthread_mutex_destroy (&ip->lock);
  pthread_mutex_destroy (&ip->parity_lock);
  free (ip);
}

void
inode_table_free (struct fs *fs)
{
  for (size_t b = 0; fs->table && b < fs->nbuckets; b++)
    for (struct inode *ip = fs->table[b], *next; ip; ip = next)
      {
        next = ip->hnext;
        inode_free (ip);
      }
  free (fs->table);
  fs->table = NULL;
}

static size_t
bucket (const struct fs *fs, uint64_t oid)
{
  return (oid * 0x9e3779b97f4a7c15ull >> 32) & (fs->nbuckets - 1);
}

/* fs->lock held. */
static struct inode *
table_find (struct fs *fs, uint64_t oid)
{
  for (struct inode *ip = fs->table[bucket (fs, oid)]; ip; ip = ip->hnext)
    if (ip->oid == oid)
      return ip;
  return NULL;
}

static struct inode *
inode_alloc (uint64_t oid)
{
  struct inode *ip = calloc (1, sizeof *ip);

  if (!ip)
    return NULL;
  ip->oid = oid;
  pthread_mutex_init (&ip->lock, NULL);
  pthread_mutex_init (&ip->parity_lock, NULL);
  return ip;
}

/* Insert ip unless another thread got there first; returns the winner
 * with a reference taken. */
static struct inode *
table_insert (struct fs *fs, struct inode *ip)
{
  struct inode *old;
  size_t b = bucket (fs, ip->oid);

  pthread_mutex_lock (&fs->lock);
  old = table_find (fs, ip->oid);
  if (old)
    {
      old->refs++;
      pthread_mutex_unlock (&fs->lock);
      inode_free (ip);
      return old;
    }
  ip->refs = 1;
  ip->hnext = fs->table[b];
  fs->table[b] = ip;
  pthread_mutex_unlock (&fs->lock);
  return ip;
}

/* One GET ATTRIBUTES with no selection: every attribute plus the size. */
static int
inode_load (struct fs *fs, uint64_t oid, struct inode **out)
{
  Ossd__Response *resp = NULL;
  ossd_error err = { 0 };
  struct inode *ip;
  bool have_inode = false, have_size = false;
  uint64_t size_attr = 0;
  int r;

  r = ossd_get_attrs (fs_meta (fs), fs->pid, oid, &resp, &err);
  if (r < 0)
    {
      r = fs_fail (fs, r, &err, "GET ATTRIBUTES (inode)", oid);
      goto out;
    }
  ip = inode_alloc (oid);
  if (!ip)
    {
      r = -ENOMEM;
      goto out;
    }
  ip->size = ip->drive_size = resp->attributes->size;
  ip->allocated = resp->attributes->allocated;
  for (size_t i = 0; i < resp->attributes->n_attrs; i++)
    {
      const Ossd__Attribute *a = resp->attributes->attrs[i];
      if (a->page == OSSDFS_PAGE_INODE && a->number == OSSDFS_INODE_NUMBER)
        have_inode = inode_decode (&ip->d, a->value.data, a->value.len) == 0;
      else if (a->page == OSSD_CAP_ATTR_PAGE && a->number == OSSD_CAP_ATTR_VERSION)
        for (size_t k = 0; k < a->value.len && k < 8; k++)
          ip->cap_version |= (uint64_t) a->value.data[k] << (8 * k);
      else if (a->page == OSSDFS_PAGE_INODE && a->number == OSSD_FS_SIZE_NUMBER
               && a->value.len == 8)
        {
          for (size_t k = 0; k < 8; k++)
            size_attr |= (uint64_t) a->value.data[k] << (8 * k);
          have_size = true;
        }
    }
  if (!have_inode)
    {
      fs_log (fs, "object (pid %llu, oid %llu) has no valid inode attribute",
              (unsigned long long) fs->pid, (unsigned long long) oid);
      inode_free (ip);
      r = -EIO;
      goto out;
    }
  r = xattr_load (ip, resp->attributes->attrs, resp->attributes->n_attrs);
  if (r == 0 && fs_striped (fs) && S_ISREG (ip->d.mode))
    r = stripe_load (fs, ip, have_size ? &size_attr : NULL,
                     resp->attributes->size, resp->attributes->allocated);
  if (r < 0)
    {
      inode_free (ip);
      goto out;
    }
  *out = table_insert (fs, ip);
out:
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

int
inode_get (struct fs *fs, uint64_t oid, struct inode **out)
{
  struct inode *ip;

  pthread_mutex_lock (&fs->lock);
  ip = table_find (fs, oid);
  if (ip)
    ip->refs++;
  pthread_mutex_unlock (&fs->lock);
  if (ip)
    {
      *out = ip;
      return 0;
    }
  return inode_load (fs, oid, out);
}

struct inode *
inode_new (struct fs *fs, uint64_t oid, const struct dinode *d, uint64_t size)
{
  struct inode *ip = inode_alloc (oid);

  if (!ip)
    return NULL;
  ip->d = *d;
  ip->size = ip->drive_size = size;
  if (fs_striped (fs) && S_ISREG (d->mode)
      && !(ip->dlen = calloc (fs->ndrives, sizeof *ip->dlen)))
    {
      inode_free (ip);
      return NULL;
    }
  return table_insert (fs, ip);
}

/* fs->lock held: unlink and free ip if nothing refers to it. */
static void
maybe_free (struct fs *fs, struct inode *ip)
{
  struct inode **pp;

  if (ip->refs || ip->nlookup || ip->nopen || ip->oid == OSSDFS_ROOT_OID)
    return;
  if (ip->dirty && !ip->removed)
    return;                     /* keep until stored (unmount stores) */
  for (pp = &fs->table[bucket (fs, ip->oid)]; *pp; pp = &(*pp)->hnext)
    if (*pp == ip)
      {
        *pp = ip->hnext;
        break;
      }
  /* nothing can write it now: unwritten promises go back */
  space_drop (fs, ip, 0, UINT64_MAX);
  inode_free (ip);
}

void
inode_put (struct fs *fs, struct inode *ip)
{
  if (!ip)
    return;
  pthread_mutex_lock (&fs->lock);
  ip->refs--;
  maybe_free (fs, ip);
  pthread_mutex_unlock (&fs->lock);
}

void
inode_lookup_ref (struct fs *fs, struct inode *ip)
{
  pthread_mutex_lock (&fs->lock);
  ip->nlookup++;
  pthread_mutex_unlock (&fs->lock);
}

void
inode_forget (struct fs *fs, uint64_t oid, uint64_t n)
{
  struct inode *ip;

  pthread_mutex_lock (&fs->lock);
  ip = table_find (fs, oid);
  if (ip)
    {
      ip->nlookup = ip->nlookup > n ? ip->nlookup - n : 0;
      maybe_free (fs, ip);
    }
  pthread_mutex_unlock (&fs->lock);
}

void
inode_stat (const struct inode *ip, struct stat *st)
{
  memset (st, 0, sizeof *st);
  st->st_ino = ip->oid;
  st->st_mode = ip->d.mode;
  st->st_nlink = ip->d.nlink;
  st->st_uid = ip->d.uid;
  st->st_gid = ip->d.gid;
  st->st_rdev = ip->d.rdev;
  st->st_size = (off_t) ip->size;
  st->st_blksize = 65536;
  /* what the drive maps, so that sparse files look sparse (du, cp
   * --sparse); a hole filled since the inode was loaded counts later */
  st->st_blocks = (blkcnt_t) ((ip->allocated + 4095) / 4096 * 8);
  st->st_atim = ip->d.atime;
  st->st_mtim = ip->d.mtime;
  st->st_ctim = ip->d.ctime;
}

/* inode_store of a striped regular file: a size that grew is stored only
 * after every drive was FLUSHed (the data it covers is durable first);
 * the drives' objects get the lengths the size implies unless writes are
 * in flight (they may be extending them right now). */
static int
inode_store_striped (struct fs *fs, struct inode *ip)
{
  uint64_t want0 = ossd_geom_drive_length (&fs->geom, ip->size, 0);
  bool lengths = ip->writers == 0;
  struct batch b;
  int r;

  if (ip->size > ip->meta_size && (r = fs_flush (fs, ip->oid)) < 0)
    return r;
  if (lengths && (r = stripe_set_lengths (fs, ip, ip->size, 1)) < 0)
    return r;
  batch_init (&b);
  if (lengths && ip->dlen[0] != want0)
    batch_set_share_length (&b, fs->pid, ip->oid, want0);
  if (ip->size != ip->meta_size)
    batch_size (&b, fs, ip->oid, ip->size);
  batch_inode (&b, fs, ip->oid, &ip->d);
  r = batch_run (fs, &b, "inode update", ip->oid);
  if (r == 0)
    {
      ip->dirty = false;
      ip->meta_size = ip->size;
      if (lengths)
        {
          ip->dlen[0] = want0;
          ip->drive_size = ip->size;
        }
    }
  return r;
}

int
inode_store (struct fs *fs, struct inode *ip)
{
  struct batch b;
  int r;

  if (ip->removed)
    return 0;
  if (ip->dlen)
    return inode_store_striped (fs, ip);
  batch_init (&b);
  if (ip->size > ip->drive_size)
    batch_set_length (&b, fs->pid, ip->oid, ip->size);
  batch_inode (&b, fs, ip->oid, &ip->d);
  r = batch_run (fs, &b, "inode update", ip->oid);
  if (r == 0)
    {
      ip->dirty = false;
      if (ip->size > ip->drive_size)
        ip->drive_size = ip->size;
    }
  return r;
}

void
inode_store_all (struct fs *fs)
{
  for (size_t b = 0; b < fs->nbuckets; b++)
    for (;;)
      {
        struct inode *ip, *found = NULL;

        pthread_mutex_lock (&fs->lock);
        for (ip = fs->table[b]; ip && !found; ip = ip->hnext)
          if (ip->dirty && !ip->removed)
            {
              found = ip;
              ip->refs++;
            }
        pthread_mutex_unlock (&fs->lock);
        if (!found)
          break;
        pthread_mutex_lock (&found->lock);
        if (inode_store (fs, found) < 0)
          found->dirty = false;     /* logged; do not loop on a dead drive */
        pthread_mutex_unlock (&found->lock);
        inode_put (fs, found);
      }
}
