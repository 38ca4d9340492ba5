/* ops.c - FUSE operations on the namespace and on inode attributes:
 * lookup, forget, getattr, setattr, readlink, mknod, mkdir, symlink,
 * create, link, unlink, rmdir, rename, opendir, readdir, fsyncdir,
 * statfs, and the operation table.
 *
 * Every namespace change is one COMPOUND (batch.c): the new object, its
 * inode attribute, the directory slot and the parent's inode, or for a
 * rename both directory slots, the moved directory's ".." and the
 * replaced inode, all applied atomically by the drive; memory is updated
 * only after the drive said OK.  Namespace changes hold fs->ns_lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <inttypes.h>
#include <sys/statvfs.h>

#include "ossdfs.h"

/* ---- helpers ----------------------------------------------------------- */

/* Inodes an operation holds: references and locks, released together. */
struct held
{
  struct inode *ip[8];
  bool locked[8];
  int n;
};

static void
held_add (struct held *h, struct inode *ip, bool lock)
{
  for (int i = 0; i < h->n; i++)
    if (h->ip[i] == ip)
      {
        h->locked[i] |= lock;
        return;                 /* already held: drop the extra reference */
      }
  h->ip[h->n] = ip;
  h->locked[h->n] = lock;
  h->n++;
  if (lock)
    pthread_mutex_lock (&ip->lock);
}

/* Get oid, lock it, add it; returns it through *out. */
static int
held_get (struct fs *fs, struct held *h, uint64_t oid, struct inode **out)
{
  struct inode *ip;
  int r;

  for (int i = 0; i < h->n; i++)
    if (h->ip[i]->oid == oid)
      {
        *out = h->ip[i];
        return 0;
      }
  r = inode_get (fs, oid, &ip);
  if (r < 0)
    return r;
  held_add (h, ip, true);
  *out = ip;
  return 0;
}

static void
held_release (struct fs *fs, struct held *h)
{
  for (int i = h->n; i-- > 0;)
    if (h->locked[i])
      pthread_mutex_unlock (&h->ip[i]->lock);
  for (int i = h->n; i-- > 0;)
    inode_put (fs, h->ip[i]);
  h->n = 0;
}

/* A directory inode, locked, with its entries loaded. */
static int
held_dir (struct fs *fs, struct held *h, uint64_t oid, struct inode **out)
{
  int r = held_get (fs, h, oid, out);

  if (r == 0 && !S_ISDIR ((*out)->d.mode))
    r = -ENOTDIR;
  if (r == 0 && (*out)->removed)
    r = -ENOENT;
  if (r == 0)
    r = dir_load (fs, *out);
  return r;
}

static void
fill_entry (struct fs *fs, struct inode *ip, struct fuse_entry_param *e)
{
  memset (e, 0, sizeof *e);
  e->ino = oid_to_ino (ip->oid);
  e->generation = 1;            /* OIDs are never reused */
  inode_stat (ip, &e->attr);
  e->attr_timeout = fs->timeout;
  e->entry_timeout = fs->timeout;
}

/* Reply with ip as a new kernel reference (ip locked by the caller). */
static void
reply_entry (fuse_req_t req, struct fs *fs, struct inode *ip)
{
  struct fuse_entry_param e;

  fill_entry (fs, ip, &e);
  inode_lookup_ref (fs, ip);
  if (fuse_reply_entry (req, &e) != 0)
    inode_forget (fs, ip->oid, 1);
}

static int
check_name (const char *name)
{
  size_t n = strlen (name);
  if (n == 0)
    return -ENOENT;
  if (n > OSSDFS_NAME_MAX)
    return -ENAMETOOLONG;
  return 0;
}

static void
touch_dir (struct dinode *d)
{
  fs_now (&d->mtime);
  d->ctime = d->mtime;
}

/* Insert into a loaded directory after the drive took the slot; the
 * object's length follows the highest slot. */
static int
dir_add (struct inode *dp, uint32_t slot, const char *name, uint64_t oid,
         uint8_t type)
{
  int r = dir_insert (dp->dir, slot, name, oid, type);

  if (r == 0 && ((uint64_t) slot + 1) * DIR_SLOT > dp->size)
    dp->size = ((uint64_t) slot + 1) * DIR_SLOT;
  return r;
}

/* Write slot `slot` of directory dir_oid. */
static void
batch_slot (struct batch *b, struct fs *fs, uint64_t dir_oid, uint32_t slot,
            const char *name, uint64_t oid, uint8_t type)
{
  uint8_t buf[DIR_SLOT];

  dir_encode_slot (buf, name, oid, type);
  batch_write (b, fs->pid, dir_oid, (uint64_t) slot * DIR_SLOT, buf,
               DIR_SLOT);
}

/* What to do with an inode losing a name: fewer links, an orphan (still
 * open), or gone.  Adds the ops to b; *nd gets its new fields; *orphan_slot
 * the orphan directory slot when it becomes an orphan. */
enum drop_kind { DROP_LINK, DROP_ORPHAN, DROP_REMOVE };
static int
plan_drop (struct fs *fs, struct held *h, struct batch *b, struct inode *ip,
           struct dinode *nd, enum drop_kind *kind, uint32_t *orphan_slot)
{
  *nd = ip->d;
  fs_now (&nd->ctime);
  if (!S_ISDIR (ip->d.mode) && ip->d.nlink > 1)
    {
      nd->nlink--;
      batch_inode (b, fs, ip->oid, nd);
      *kind = DROP_LINK;
      return 0;
    }
  nd->nlink = 0;
  if (!S_ISDIR (ip->d.mode) && ip->nopen > 0)
    {
      struct inode *oi;
      char name[24];
      int r = held_dir (fs, h, OSSDFS_ORPHAN_OID, &oi);

      if (r < 0)
        return r;
      snprintf (name, sizeof name, "%" PRIu64, ip->oid);
      *orphan_slot = dir_next_slot (oi->dir);
      batch_slot (b, fs, OSSDFS_ORPHAN_OID, *orphan_slot, name, ip->oid,
                  dir_type (ip->d.mode));
      batch_inode (b, fs, ip->oid, nd);
      *kind = DROP_ORPHAN;
      return 0;
    }
  batch_remove (b, fs->pid, ip->oid);
  *kind = DROP_REMOVE;
  return 0;
}

/* Apply a planned drop in memory after the COMPOUND succeeded. */
static void
apply_drop (struct fs *fs, struct held *h, struct inode *ip,
            const struct dinode *nd, enum drop_kind kind,
            uint32_t orphan_slot)
{
  char name[24];
  struct inode *oi;

  ip->d = *nd;
  switch (kind)
    {
    case DROP_LINK:
      break;
    case DROP_ORPHAN:
      snprintf (name, sizeof name, "%" PRIu64, ip->oid);
      if (held_get (fs, h, OSSDFS_ORPHAN_OID, &oi) == 0 && oi->dir)
        dir_add (oi, orphan_slot, name, ip->oid, dir_type (ip->d.mode));
      ip->orphan = true;
      break;
    case DROP_REMOVE:
      if (ip->dlen)
        stripe_remove_data (fs, ip->oid);
      ip->removed = true;
      ip->dirty = false;
      space_drop (fs, ip, 0, UINT64_MAX);
      break;
    }
}

/* ---- lookup, forget, attributes ------------------------------------------ */

void
fsop_lookup (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  struct fs *fs = req_fs (req);
  struct inode *pi, *ip;
  struct dentry *de;
  uint64_t oid = 0;
  int r = check_name (name);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  if ((r = inode_get (fs, ino_to_oid (parent), &pi)) < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&pi->lock);
  r = S_ISDIR (pi->d.mode) ? dir_load (fs, pi) : -ENOTDIR;
  if (r == 0 && (de = dir_find (pi->dir, name)))
    oid = de->oid;
  pthread_mutex_unlock (&pi->lock);
  inode_put (fs, pi);
  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  if (oid == 0)
    {
      struct fuse_entry_param e;
      memset (&e, 0, sizeof e);
      e.entry_timeout = fs->timeout;    /* negative entry */
      fuse_reply_entry (req, &e);
      return;
    }
  if ((r = inode_get (fs, oid, &ip)) < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  reply_entry (req, fs, ip);
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
}

void
fsop_forget (fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
  inode_forget (req_fs (req), ino_to_oid (ino), nlookup);
  fuse_reply_none (req);
}

void
fsop_forget_multi (fuse_req_t req, size_t count,
                 struct fuse_forget_data *forgets)
{
  for (size_t i = 0; i < count; i++)
    inode_forget (req_fs (req), ino_to_oid (forgets[i].ino),
                  forgets[i].nlookup);
  fuse_reply_none (req);
}

void
fsop_getattr (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  struct stat st;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  inode_stat (ip, &st);
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  fuse_reply_attr (req, &st, fs->timeout);
}

void
fsop_setattr (fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
            struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  struct dinode nd;
  struct batch b;
  struct timespec now;
  struct stat st;
  bool cap_bump = false;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  fs_now (&now);
  nd = ip->d;
  if (to_set & FUSE_SET_ATTR_MODE)
    nd.mode = (nd.mode & S_IFMT) | (attr->st_mode & 07777);
  if (to_set & FUSE_SET_ATTR_UID)
    nd.uid = attr->st_uid;
  if (to_set & FUSE_SET_ATTR_GID)
    nd.gid = attr->st_gid;
  if (to_set & FUSE_SET_ATTR_ATIME)
    nd.atime = attr->st_atim;
  if (to_set & FUSE_SET_ATTR_ATIME_NOW)
    nd.atime = now;
  if (to_set & FUSE_SET_ATTR_MTIME)
    nd.mtime = attr->st_mtim;
  if (to_set & FUSE_SET_ATTR_MTIME_NOW)
    nd.mtime = now;
  /* FATTR_KILL_SUIDGID (= FUSE_SET_ATTR_KILL_SUID): under
   * FUSE_HANDLE_KILLPRIV_V2 the kernel leaves clearing suid/sgid on
   * truncate and chown by an unprivileged caller to us (killpriv.c). */
  if ((to_set & (FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID))
      && S_ISREG (nd.mode))
    {
      nd.mode &= ~(uint32_t) S_ISUID;
      if (nd.mode & S_IXGRP)
        nd.mode &= ~(uint32_t) S_ISGID;
    }
  nd.ctime = now;
  if (to_set & FUSE_SET_ATTR_CTIME)
    nd.ctime = attr->st_ctim;
  batch_init (&b);
  if (to_set & FUSE_SET_ATTR_SIZE)
    {
      if (S_ISDIR (nd.mode))
        r = -EISDIR;
      else if (!S_ISREG (nd.mode))
        r = -EINVAL;
      if (!(to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)))
        nd.mtime = now;
      /* RAID-5: the parity of the row the cut ends in, before the cut */
      if (r == 0 && ip->dlen && fs_parity (fs)
          && (uint64_t) attr->st_size < ip->size)
        r = parity_cut_row (fs, ip, (uint64_t) attr->st_size);
      if (ip->dlen)
        {
          /* drive 0's share and the size now; the data drives' after */
          batch_set_share_length (&b, fs->pid, ip->oid,
                                  ossd_geom_drive_length (&fs->geom,
                                                    (uint64_t) attr->st_size,
                                                    0));
          batch_size (&b, fs, ip->oid, (uint64_t) attr->st_size);
        }
      else
        batch_set_length (&b, fs->pid, ip->oid, (uint64_t) attr->st_size);
    }
  /* Zeros appended and not yet on the drive (file.c) get their length
   * in this batch: the inode stored here leaves the inode clean, and its
   * size would otherwise be lost at the next mount. */
  bool store_length = !(to_set & FUSE_SET_ATTR_SIZE) && !ip->dlen
    && ip->size > ip->drive_size;
  if (store_length)
    batch_set_length (&b, fs->pid, ip->oid, ip->size);
  if (r == 0 && ip->removed)
    r = -ENOENT;
  batch_inode (&b, fs, ip->oid, &nd);
  /* A new owner or mode revokes the capabilities handed out for the file
   * (caps.c), in the same atomic batch. */
  if (S_ISREG (nd.mode)
      && (nd.mode != ip->d.mode || nd.uid != ip->d.uid || nd.gid != ip->d.gid))
    {
      uint8_t v[8];
      for (int k = 0; k < 8; k++)
        v[k] = (uint8_t) ((ip->cap_version + 1) >> (8 * k));
      batch_set_attr (&b, fs->pid, ip->oid, OSSD_CAP_ATTR_PAGE,
                      OSSD_CAP_ATTR_VERSION, v, sizeof v);
      cap_bump = true;
    }
  if (r == 0)
    r = batch_run (fs, &b, "setattr", ip->oid);
  if (r == 0)
    {
      if (cap_bump)
        ip->cap_version++;
      if (cap_bump && ip->dlen)
        r = stripe_set_cap_version (fs, ip, ip->cap_version);
      ip->d = nd;
      /* a striped file's grown size is stored by inode_store (after a
       * FLUSH of the data), not by this batch */
      ip->dirty = ip->dlen && !(to_set & FUSE_SET_ATTR_SIZE)
        && ip->size != ip->meta_size;
      if ((to_set & FUSE_SET_ATTR_SIZE) && ip->dlen)
        {
          ip->dlen[0] = ossd_geom_drive_length (&fs->geom,
                                                (uint64_t) attr->st_size, 0);
          ip->meta_size = (uint64_t) attr->st_size;
          r = stripe_set_lengths (fs, ip, (uint64_t) attr->st_size, 1);
        }
      if (store_length)
        ip->drive_size = ip->size;
      if (to_set & FUSE_SET_ATTR_SIZE)
        {
          ip->size = ip->drive_size = (uint64_t) attr->st_size;
          if (ip->allocated > ip->size)
            ip->allocated = ip->size;
          space_drop (fs, ip, ip->size, UINT64_MAX);
        }
      inode_stat (ip, &st);
    }
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else
    fuse_reply_attr (req, &st, fs->timeout);
}

void
fsop_readlink (fuse_req_t req, fuse_ino_t ino)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  ossd_error err = { 0 };
  char buf[4097];
  size_t got = 0, len;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  len = ip->size < 4096 ? ip->size : 4096;
  if (!S_ISLNK (ip->d.mode))
    r = -EINVAL;
  else if ((r = ossd_read (fs_meta (fs), fs->pid, ip->oid, 0, buf, len, &got,
                           &err)) < 0)
    r = fs_fail (fs, r, &err, "READ (symlink)", ip->oid);
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else
    {
      buf[got] = 0;
      fuse_reply_readlink (req, buf);
    }
}

/* ---- creation ------------------------------------------------------------ */

/* Create name in parent: a file, directory, symlink (target) or special
 * file.  Returns the new inode with a reference, locked. */
static int
make_node (fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
           dev_t rdev, const char *target, struct inode **out)
{
  struct fs *fs = req_fs (req);
  const struct fuse_ctx *ctx = fuse_req_ctx (req);
  struct held h = { .n = 0 };
  struct inode *pi, *ip;
  struct dinode d, pd;
  struct batch b;
  uint8_t hdr[DIR_SLOT];
  uint64_t oid;
  uint32_t slot;
  size_t tlen = target ? strlen (target) : 0;
  int r = check_name (name);

  *out = NULL;
  if (r < 0)
    return r;
  pthread_mutex_lock (&fs->ns_lock);
  if ((r = held_dir (fs, &h, ino_to_oid (parent), &pi)) < 0)
    goto out;
  if (pi->d.nlink == 0)
    {
      r = -ENOENT;
      goto out;
    }
  if (dir_find (pi->dir, name))
    {
      r = -EEXIST;
      goto out;
    }
  if ((r = super_alloc_oid (fs, &oid)) < 0)
    goto out;
  memset (&d, 0, sizeof d);
  d.mode = mode;
  d.uid = ctx->uid;
  d.gid = ctx->gid;
  if (pi->d.mode & S_ISGID)
    {
      d.gid = pi->d.gid;
      if (S_ISDIR (mode))
        d.mode |= S_ISGID;
    }
  d.nlink = S_ISDIR (mode) ? 2 : 1;
  d.rdev = rdev;
  fs_now (&d.mtime);
  d.atime = d.ctime = d.btime = d.mtime;
  pd = pi->d;
  touch_dir (&pd);
  if (S_ISDIR (mode))
    pd.nlink++;
  slot = dir_next_slot (pi->dir);

  /* a striped file's data objects exist before drive 0 names it */
  if (fs_striped (fs) && S_ISREG (mode)
      && (r = stripe_create_data (fs, oid)) < 0)
    goto out;
  batch_init (&b);
  batch_create (&b, fs->pid, oid);
  batch_inode (&b, fs, oid, &d);
  if (fs_striped (fs) && S_ISREG (mode))
    batch_size (&b, fs, oid, 0);
  if (S_ISDIR (mode))
    {
      dir_encode_header (hdr, oid, pi->oid);
      batch_write (&b, fs->pid, oid, 0, hdr, DIR_SLOT);
    }
  if (target)
    batch_write (&b, fs->pid, oid, 0, target, tlen);
  batch_slot (&b, fs, pi->oid, slot, name, oid, dir_type (mode));
  batch_inode (&b, fs, pi->oid, &pd);
  if ((r = batch_run (fs, &b, "create", oid)) < 0)
    {
      if (fs_striped (fs) && S_ISREG (mode))
        stripe_remove_data (fs, oid);
      goto out;
    }

  if ((r = dir_add (pi, slot, name, oid, dir_type (mode))) < 0)
    goto out;
  pi->d = pd;
  ip = inode_new (fs, oid, &d, S_ISDIR (mode) ? DIR_SLOT : tlen);
  if (!ip)
    {
      r = -ENOMEM;
      goto out;
    }
  pthread_mutex_lock (&ip->lock);
  if (S_ISDIR (mode) && !ip->dir)
    ip->dir = dir_new (pi->oid);
  *out = ip;
out:
  held_release (fs, &h);
  pthread_mutex_unlock (&fs->ns_lock);
  return r;
}

static void
reply_new (fuse_req_t req, struct inode *ip, int r)
{
  struct fs *fs = req_fs (req);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  reply_entry (req, fs, ip);
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
}

void
fsop_mknod (fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
          dev_t rdev)
{
  struct inode *ip;
  int r = make_node (req, parent, name, mode, rdev, NULL, &ip);
  reply_new (req, ip, r);
}

void
fsop_mkdir (fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
  struct inode *ip;
  int r = make_node (req, parent, name, S_IFDIR | (mode & 07777), 0, NULL,
                     &ip);
  reply_new (req, ip, r);
}

void
fsop_symlink (fuse_req_t req, const char *link, fuse_ino_t parent,
            const char *name)
{
  struct inode *ip;
  int r = strlen (link) > 4095 ? -ENAMETOOLONG
    : make_node (req, parent, name, S_IFLNK | 0777, 0, link, &ip);
  reply_new (req, r < 0 ? NULL : ip, r);
}

void
fsop_create (fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
           struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct fuse_entry_param e;
  struct inode *ip;
  int r = make_node (req, parent, name, S_IFREG | (mode & 07777), 0, NULL,
                     &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  ip->nopen++;
  fill_entry (fs, ip, &e);
  pthread_mutex_unlock (&ip->lock);
  inode_lookup_ref (fs, ip);
  fi->keep_cache = !fs->direct_io;
  fi->direct_io = fs->direct_io;
  if (fuse_reply_create (req, &e, fi) != 0)
    {
      inode_forget (fs, ip->oid, 1);
      file_close (fs, ip);
    }
  inode_put (fs, ip);
}

void
fsop_link (fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
         const char *newname)
{
  struct fs *fs = req_fs (req);
  struct held h = { .n = 0 };
  struct inode *pi, *ip;
  struct dinode pd, nd;
  struct batch b;
  uint32_t slot;
  int r = check_name (newname);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&fs->ns_lock);
  if ((r = held_dir (fs, &h, ino_to_oid (newparent), &pi)) < 0
      || (r = held_get (fs, &h, ino_to_oid (ino), &ip)) < 0)
    goto out;
  if (S_ISDIR (ip->d.mode))
    r = -EPERM;
  else if (ip->removed || ip->d.nlink == 0)
    r = -ENOENT;
  else if (dir_find (pi->dir, newname))
    r = -EEXIST;
  if (r < 0)
    goto out;
  pd = pi->d;
  touch_dir (&pd);
  nd = ip->d;
  nd.nlink++;
  fs_now (&nd.ctime);
  slot = dir_next_slot (pi->dir);
  batch_init (&b);
  batch_slot (&b, fs, pi->oid, slot, newname, ip->oid, dir_type (nd.mode));
  batch_inode (&b, fs, pi->oid, &pd);
  batch_inode (&b, fs, ip->oid, &nd);
  if ((r = batch_run (fs, &b, "link", ip->oid)) < 0)
    goto out;
  if ((r = dir_add (pi, slot, newname, ip->oid, dir_type (nd.mode))) < 0)
    goto out;
  pi->d = pd;
  ip->d = nd;
  reply_entry (req, fs, ip);
out:
  held_release (fs, &h);
  pthread_mutex_unlock (&fs->ns_lock);
  if (r < 0)
    fuse_reply_err (req, -r);
}

/* ---- removal ------------------------------------------------------------- */

static void
remove_name (fuse_req_t req, fuse_ino_t parent, const char *name, bool isdir)
{
  struct fs *fs = req_fs (req);
  struct held h = { .n = 0 };
  struct inode *pi, *ip;
  struct dentry *de;
  struct dinode pd, nd;
  struct batch b;
  enum drop_kind kind = DROP_REMOVE;
  uint32_t oslot = 0;
  int r = check_name (name);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&fs->ns_lock);
  if ((r = held_dir (fs, &h, ino_to_oid (parent), &pi)) < 0)
    goto out;
  if (!(de = dir_find (pi->dir, name)))
    {
      r = -ENOENT;
      goto out;
    }
  if ((r = held_get (fs, &h, de->oid, &ip)) < 0)
    goto out;
  if (ip == pi)
    r = -EINVAL;
  else if (isdir && !S_ISDIR (ip->d.mode))
    r = -ENOTDIR;
  else if (!isdir && S_ISDIR (ip->d.mode))
    r = -EISDIR;
  else if (isdir && (r = dir_load (fs, ip)) == 0 && ip->dir->count > 0)
    r = -ENOTEMPTY;
  if (r < 0)
    goto out;
  pd = pi->d;
  touch_dir (&pd);
  if (isdir)
    pd.nlink--;
  batch_init (&b);
  batch_slot (&b, fs, pi->oid, de->slot, NULL, 0, 0);
  batch_inode (&b, fs, pi->oid, &pd);
  if ((r = plan_drop (fs, &h, &b, ip, &nd, &kind, &oslot)) < 0)
    goto out;
  if ((r = batch_run (fs, &b, isdir ? "rmdir" : "unlink", ip->oid)) < 0)
    goto out;
  dir_erase (pi->dir, de);
  pi->d = pd;
  apply_drop (fs, &h, ip, &nd, kind, oslot);
out:
  held_release (fs, &h);
  pthread_mutex_unlock (&fs->ns_lock);
  fuse_reply_err (req, -r);
}

void
fsop_unlink (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  remove_name (req, parent, name, false);
}

void
fsop_rmdir (fuse_req_t req, fuse_ino_t parent, const char *name)
{
  remove_name (req, parent, name, true);
}

void
fsop_rename (fuse_req_t req, fuse_ino_t parent, const char *name,
           fuse_ino_t newparent, const char *newname, unsigned int flags)
{
  struct fs *fs = req_fs (req);
  struct held h = { .n = 0 };
  struct inode *pa, *pb, *si, *ti = NULL;
  struct dentry *es, *et;
  struct dinode pad, pbd, sd, td, *pbdp;
  struct batch b;
  enum drop_kind kind = DROP_REMOVE;
  uint32_t tslot, oslot = 0;
  uint64_t soid;
  uint8_t stype, hdr[DIR_SLOT];
  bool isdir, moves;
  int r;

  if ((r = check_name (name)) < 0 || (r = check_name (newname)) < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  if (flags & ~RENAME_NOREPLACE)
    {
      fuse_reply_err (req, EINVAL);       /* RENAME_EXCHANGE, WHITEOUT */
      return;
    }
  pthread_mutex_lock (&fs->ns_lock);
  if ((r = held_dir (fs, &h, ino_to_oid (parent), &pa)) < 0
      || (r = held_dir (fs, &h, ino_to_oid (newparent), &pb)) < 0)
    goto out;
  if (!(es = dir_find (pa->dir, name)))
    {
      r = -ENOENT;
      goto out;
    }
  if ((r = held_get (fs, &h, es->oid, &si)) < 0)
    goto out;
  if (si == pa || si == pb)
    {
      r = -EINVAL;
      goto out;
    }
  isdir = S_ISDIR (si->d.mode);
  moves = pa != pb;
  et = dir_find (pb->dir, newname);
  if (et)
    {
      if (flags & RENAME_NOREPLACE)
        r = -EEXIST;
      else if (et->oid == es->oid)
        r = 1;                  /* same inode: nothing to do */
      else if ((r = held_get (fs, &h, et->oid, &ti)) == 0)
        {
          if (ti == pa || ti == pb)
            r = -EINVAL;
          else if (isdir && !S_ISDIR (ti->d.mode))
            r = -ENOTDIR;
          else if (!isdir && S_ISDIR (ti->d.mode))
            r = -EISDIR;
          else if (isdir && (r = dir_load (fs, ti)) == 0
                   && ti->dir->count > 0)
            r = -ENOTEMPTY;
        }
      if (r)
        {
          r = r > 0 ? 0 : r;
          goto out;
        }
    }
  soid = si->oid;
  stype = es->type;
  pad = pa->d;
  touch_dir (&pad);
  pbd = pb->d;
  touch_dir (&pbd);
  pbdp = moves ? &pbd : &pad;
  sd = si->d;
  fs_now (&sd.ctime);
  if (isdir && moves)
    {
      pad.nlink--;
      pbd.nlink++;
    }
  tslot = et ? et->slot : dir_next_slot (pb->dir);

  batch_init (&b);
  batch_slot (&b, fs, pb->oid, tslot, newname, soid, stype);
  batch_slot (&b, fs, pa->oid, es->slot, NULL, 0, 0);
  if (isdir && moves)
    {
      dir_encode_header (hdr, soid, pb->oid);
      batch_write (&b, fs->pid, soid, 0, hdr, DIR_SLOT);
    }
  if (ti)
    {
      if (S_ISDIR (ti->d.mode))
        pbdp->nlink--;
      if ((r = plan_drop (fs, &h, &b, ti, &td, &kind, &oslot)) < 0)
        goto out;
    }
  batch_inode (&b, fs, pa->oid, &pad);
  if (moves)
    batch_inode (&b, fs, pb->oid, &pbd);
  batch_inode (&b, fs, soid, &sd);
  if ((r = batch_run (fs, &b, "rename", soid)) < 0)
    goto out;

  dir_erase (pa->dir, es);
  if (et)
    dir_erase (pb->dir, et);
  dir_add (pb, tslot, newname, soid, stype);
  if (moves)
    {
      pa->d = pad;
      pb->d = pbd;
    }
  else
    pa->d = pad;
  si->d = sd;
  if (isdir && moves && si->dir)
    si->dir->parent = pb->oid;
  if (ti)
    apply_drop (fs, &h, ti, &td, kind, oslot);
out:
  held_release (fs, &h);
  pthread_mutex_unlock (&fs->ns_lock);
  fuse_reply_err (req, -r);
}

/* ---- directories --------------------------------------------------------- */

void
fsop_opendir (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r == 0)
    {
      if (!S_ISDIR (ip->d.mode))
        r = -ENOTDIR;
      inode_put (fs, ip);
    }
  if (r < 0)
    fuse_reply_err (req, -r);
  else
    fuse_reply_open (req, fi);
}

/* Add one entry; false when the buffer is full. */
static bool
add_entry (fuse_req_t req, char *buf, size_t size, size_t *pos,
           const char *name, uint64_t oid, mode_t mode, off_t next)
{
  struct stat st;
  size_t n;

  memset (&st, 0, sizeof st);
  st.st_ino = oid;
  st.st_mode = mode;
  n = fuse_add_direntry (req, buf + *pos, size - *pos, name, &st, next);
  if (n > size - *pos)
    return false;
  *pos += n;
  return true;
}

void
fsop_readdir (fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
            struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  char *buf;
  size_t pos = 0;
  bool room = true;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  buf = malloc (size ? size : 1);
  if (!buf)
    {
      inode_put (fs, ip);
      fuse_reply_err (req, ENOMEM);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  r = ip->removed ? 0 : dir_load (fs, ip);
  if (r == 0 && off < 1)
    room = add_entry (req, buf, size, &pos, ".", ip->oid, S_IFDIR, 1);
  if (r == 0 && room && off < 2)
    room = add_entry (req, buf, size, &pos, "..",
                      ip->dir ? ip->dir->parent : ip->oid, S_IFDIR, 2);
  for (uint32_t s = off < 2 ? 1 : (uint32_t) (off - 1);
       r == 0 && room && ip->dir && !ip->removed && s < ip->dir->nslots; s++)
    {
      const struct dentry *e = ip->dir->slots[s];
      if (e)
        room = add_entry (req, buf, size, &pos, e->name, e->oid,
                          (mode_t) DTTOIF (e->type), (off_t) s + 2);
    }
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else
    fuse_reply_buf (req, buf, pos);
  free (buf);
}

void
fsop_releasedir (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  fuse_reply_err (req, 0);
}

void
fsop_fsyncdir (fuse_req_t req, fuse_ino_t ino, int datasync,
             struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  int r = fs_flush (fs, ino_to_oid (ino));

  fuse_reply_err (req, -r);
}

void
fsop_statfs (fuse_req_t req, fuse_ino_t ino)
{
  struct fs *fs = req_fs (req);
  uint64_t capacity, free_bytes, objects;
  struct statvfs sv;
  int r = stripe_space (fs, &capacity, &free_bytes, &objects);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  memset (&sv, 0, sizeof sv);
  sv.f_bsize = 4096;
  sv.f_frsize = 4096;
  sv.f_blocks = capacity / 4096;
  sv.f_bfree = free_bytes / 4096;
  {
    /* space promised to zeros kept off the drive is not available */
    uint64_t promised = space_promised (fs);
    sv.f_bavail = free_bytes > promised ? (free_bytes - promised) / 4096 : 0;
  }
  sv.f_files = sv.f_blocks;
  sv.f_ffree = sv.f_files > objects ? sv.f_files - objects : 0;
  sv.f_favail = sv.f_ffree;
  sv.f_namemax = OSSDFS_NAME_MAX;
  fuse_reply_statfs (req, &sv);
}
