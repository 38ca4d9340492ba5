/* file.c - FUSE operations on file data: open, read, write (through to
 * the drive before the reply), flush, release, fsync (FLUSH), fallocate.
 *
 * A file's bytes are its object's bytes at the same offsets (on an array,
 * its objects' stripe units: stripe.c).  Writes do
 * not hold the inode lock while the drive works, so jobs writing to the
 * same file run in parallel; the size and times are updated afterwards.
 * The times of data writes reach the drive at close, fsync or unmount.
 *
 * Zeros written at or past the object's end on the drive (PostgreSQL
 * extends a relation with a zero page, then writes the page for real) do
 * not go to the drive: they only raise the file size, and the object's
 * length follows at the next write past it, or with SET LENGTH at fsync,
 * fdatasync, close or unmount.  The drive reads zeros there either way.
 * Such zeros, and fallocate, promise their sectors (space.c): when the
 * drive's free space cannot cover them the zeros go to the drive like any
 * write, so a full drive fails the write itself with ENOSPC, never the
 * later write of the real page, an fsync or a close. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>

#include "ossdfs.h"

void
fsop_open (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  if (S_ISDIR (ip->d.mode))
    r = -EISDIR;
  else if (ip->removed)
    r = -ENOENT;
  else
    ip->nopen++;
  pthread_mutex_unlock (&ip->lock);
  fi->keep_cache = !fs->direct_io;    /* this mount is the only writer */
  fi->direct_io = fs->direct_io;
  if (r < 0)
    fuse_reply_err (req, -r);
  else if (fuse_reply_open (req, fi) != 0)
    file_close (fs, ip);
  inode_put (fs, ip);
}

void
fsop_read (fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
         struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  ossd_error err = { 0 };
  uint64_t fsize;
  size_t got = 0;
  char *buf = NULL;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  fsize = ip->size;
  pthread_mutex_unlock (&ip->lock);
  if ((uint64_t) off >= fsize)
    size = 0;
  else if (size > fsize - (uint64_t) off)
    size = fsize - (uint64_t) off;
  if (size && !(buf = malloc (size)))
    r = -ENOMEM;
  else if (size && ip->dlen)
    {
      uint64_t t0 = ossd_mono_ns ();
      r = stripe_read (fs, ip, (uint64_t) off, buf, size);
      got = size;
      stats_done (fs, SC_DRIVE_READ, t0);
    }
  else if (size)
    {
      uint64_t t0 = ossd_mono_ns ();
      if ((r = ossd_read (fs->o, fs->pid, ip->oid, (uint64_t) off, buf,
                          size, &got, &err)) < 0)
        r = fs_fail (fs, r, &err, "READ", ip->oid);
      stats_done (fs, SC_DRIVE_READ, t0);
    }
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else
    {
      /* A read inside the size never comes back short (holes are
       * zeros), but never hand the kernel uninitialized bytes. */
      if (got < size)
        memset (buf + got, 0, size - got);
      fuse_reply_buf (req, buf, size);
    }
  free (buf);
}

static bool
is_zero (const char *buf, size_t size)
{
  return buf[0] == 0 && memcmp (buf, buf + 1, size - 1) == 0;
}

/* Under FUSE_HANDLE_KILLPRIV_V2 (killpriv.c) a write by an unprivileged
 * caller clears the file's suid/sgid bits, and any write drops its
 * security.capability, before the data is stored (the kernel's rules).
 * The kernel's cached attributes still show the old mode (a write only
 * invalidates size and times): they are invalidated (that needs no inode
 * lock, so it is safe from inside the write). */
static int
write_kill_suid (struct fs *fs, struct inode *ip, fuse_req_t req)
{
  bool killed = false;
  int r = 0;

  pthread_mutex_lock (&ip->lock);
  if (!ip->removed && inode_needs_kill_suid (ip, req))
    {
      ip->d.mode &= ~(uint32_t) S_ISUID;
      if (ip->d.mode & S_IXGRP)
        ip->d.mode &= ~(uint32_t) S_ISGID;
      fs_now (&ip->d.ctime);
      r = inode_store (fs, ip);
      killed = r == 0;
    }
  if (r == 0 && !ip->removed && ip->xattrs)
    {
      bool dropped;
      r = xattr_kill_capability_locked (fs, ip, &dropped);
      killed |= dropped;
    }
  pthread_mutex_unlock (&ip->lock);
  if (killed && fs->se)
    fuse_lowlevel_notify_inval_inode (fs->se, oid_to_ino (ip->oid), -1, 0);
  return r;
}

void
fsop_write (fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
          off_t off, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  ossd_error err = { 0 };
  struct space_ticket ticket = { 0 };
  uint64_t t0, ends[OSSD_ARRAY_MAX_DRIVES];
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  if (fs->killpriv_v2 && (r = write_kill_suid (fs, ip, req)) < 0)
    {
      inode_put (fs, ip);
      fuse_reply_err (req, -r);
      return;
    }
  if (size && is_zero (buf, size))
    {
      bool appended = false;
      pthread_mutex_lock (&ip->lock);
      if ((uint64_t) off >= ip->drive_size && !ip->removed
          && space_promise (fs, ip, (uint64_t) off, size) == 0)
        {
          if ((uint64_t) off + size > ip->size)
            ip->size = (uint64_t) off + size;
          fs_now (&ip->d.mtime);
          ip->d.ctime = ip->d.mtime;
          ip->dirty = true;
          appended = true;
        }
      pthread_mutex_unlock (&ip->lock);
      if (appended)
        {
          stats_done (fs, SC_WRITE_ZERO, 0);
          inode_put (fs, ip);
          fuse_reply_write (req, size);
          return;
        }
    }
  if (size)
    {
      pthread_mutex_lock (&ip->lock);
      r = space_write_begin (fs, ip, (uint64_t) off, size, &ticket);
      if (r == 0 && ip->dlen)
        ip->writers++;
      pthread_mutex_unlock (&ip->lock);
      if (r < 0)
        {
          inode_put (fs, ip);
          fuse_reply_err (req, -r);
          return;
        }
    }
  t0 = ossd_mono_ns ();
  if (size && ip->dlen)
    r = stripe_write (fs, ip, (uint64_t) off, buf, size, ends);
  else if (size && (r = ossd_write (fs->o, fs->pid, ip->oid, (uint64_t) off,
                                    buf, size, &err)) < 0)
    r = fs_fail (fs, r, &err, "WRITE", ip->oid);
  if (size)
    {
      if (!ip->dlen)
        fs_modified (fs);
      space_write_end (fs, ip, (uint64_t) off, size, &ticket, r);
    }
  stats_done (fs, SC_DRIVE_WRITE, t0);
  if (size && ip->dlen)
    {
      pthread_mutex_lock (&ip->lock);
      ip->writers--;
      for (uint32_t d = 0; r == 0 && d < fs->ndrives; d++)
        if (ends[d] > ip->dlen[d])
          ip->dlen[d] = ends[d];
      pthread_mutex_unlock (&ip->lock);
    }
  if (r == 0)
    {
      pthread_mutex_lock (&ip->lock);
      if ((uint64_t) off + size > ip->size)
        ip->size = (uint64_t) off + size;
      if ((uint64_t) off + size > ip->drive_size)
        {
          /* bytes past the object's end are newly mapped; a write below it
           * may fill a hole, which is known at the next load */
          ip->allocated += (uint64_t) off + size
            - ((uint64_t) off > ip->drive_size ? (uint64_t) off : ip->drive_size);
          ip->drive_size = (uint64_t) off + size;
        }
      fs_now (&ip->d.mtime);
      ip->d.ctime = ip->d.mtime;
      ip->dirty = true;
      pthread_mutex_unlock (&ip->lock);
    }
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else
    fuse_reply_write (req, size);
}

/* Store the times of data writes if they changed. */
static int
store_if_dirty (struct fs *fs, struct inode *ip)
{
  int r = 0;

  pthread_mutex_lock (&ip->lock);
  if (ip->dirty && !ip->removed)
    r = inode_store (fs, ip);
  pthread_mutex_unlock (&ip->lock);
  return r;
}

void
fsop_flush (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r == 0)
    {
      r = store_if_dirty (fs, ip);
      inode_put (fs, ip);
    }
  fuse_reply_err (req, -r);
}

/* Remove an orphan (unlinked while open) at its last close. */
static void
remove_orphan (struct fs *fs, struct inode *ip)
{
  struct inode *oi;
  struct dentry *e;
  struct batch b;
  char name[24];
  uint8_t zero[DIR_SLOT];

  pthread_mutex_lock (&fs->ns_lock);
  if (inode_get (fs, OSSDFS_ORPHAN_OID, &oi) < 0)
    {
      pthread_mutex_unlock (&fs->ns_lock);
      return;
    }
  pthread_mutex_lock (&oi->lock);
  pthread_mutex_lock (&ip->lock);
  snprintf (name, sizeof name, "%llu", (unsigned long long) ip->oid);
  if (ip->orphan && !ip->removed && ip->nopen == 0 && dir_load (fs, oi) == 0)
    {
      e = dir_find (oi->dir, name);
      memset (zero, 0, sizeof zero);
      batch_init (&b);
      batch_remove (&b, fs->pid, ip->oid);
      if (e)
        batch_write (&b, fs->pid, OSSDFS_ORPHAN_OID,
                     (uint64_t) e->slot * DIR_SLOT, zero, DIR_SLOT);
      if (batch_run (fs, &b, "orphan removal", ip->oid) == 0)
        {
          if (ip->dlen)
            stripe_remove_data (fs, ip->oid);
          if (e)
            dir_erase (oi->dir, e);
          ip->removed = true;
          ip->orphan = false;
          ip->dirty = false;
          space_drop (fs, ip, 0, UINT64_MAX);
        }
    }
  pthread_mutex_unlock (&ip->lock);
  pthread_mutex_unlock (&oi->lock);
  inode_put (fs, oi);
  pthread_mutex_unlock (&fs->ns_lock);
}

void
file_close (struct fs *fs, struct inode *ip)
{
  bool orphan;

  pthread_mutex_lock (&ip->lock);
  if (ip->nopen)
    ip->nopen--;
  orphan = ip->orphan && ip->nopen == 0;
  if (!orphan && ip->dirty && !ip->removed)
    inode_store (fs, ip);
  pthread_mutex_unlock (&ip->lock);
  if (orphan)
    remove_orphan (fs, ip);
}

void
fsop_release (fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;

  if (inode_get (fs, ino_to_oid (ino), &ip) == 0)
    {
      file_close (fs, ip);
      inode_put (fs, ip);
    }
  fuse_reply_err (req, 0);
}

void
fsop_fsync (fuse_req_t req, fuse_ino_t ino, int datasync,
          struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r == 0)
    {
      /* fdatasync too: the length may be pending (zeros appended) */
      r = store_if_dirty (fs, ip);
      if (r == 0)
        r = fs_flush (fs, ip->oid);
      inode_put (fs, ip);
    }
  fuse_reply_err (req, -r);
}

void
fsop_fallocate (fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
              off_t len, struct fuse_file_info *fi)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  ossd_error err = { 0 };
  uint64_t end = (uint64_t) off + (uint64_t) len;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  if (mode == 0)
    {
      /* Objects allocate on write: only the length changes, and the new
       * sectors are promised (space.c), so the call fails if the drive
       * cannot store them. */
      if (end > ip->size
          && (r = space_promise (fs, ip, ip->size, end - ip->size)) == 0)
        {
          if (ip->dlen)
            r = stripe_set_lengths (fs, ip, end, 0);
          else
            {
              r = ossd_set_length (fs->o, fs->pid, ip->oid, end, &err);
              fs_modified (fs);
              if (r < 0)
                r = fs_fail (fs, r, &err, "SET LENGTH", ip->oid);
            }
          if (r < 0)
            space_drop (fs, ip, ip->size, UINT64_MAX);
          else
            {
              ip->size = ip->drive_size = end;
              fs_now (&ip->d.mtime);
              ip->d.ctime = ip->d.mtime;
              ip->dirty = true;
            }
        }
    }
  else if (mode == FALLOC_FL_KEEP_SIZE)
    {
      /* sectors past the object's end on the drive are surely unmapped:
       * promise those */
      uint64_t from = (uint64_t) off > ip->drive_size ? (uint64_t) off
        : ip->drive_size;
      r = end > from ? space_promise (fs, ip, from, end - from) : 0;
    }
  else if (mode == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE))
    {
      if ((uint64_t) off < ip->size)
        {
          uint64_t n = end > ip->size ? ip->size - (uint64_t) off
            : (uint64_t) len;
          if (ip->dlen)
            r = stripe_punch (fs, ip, (uint64_t) off, n);
          else
            {
              r = ossd_punch (fs->o, fs->pid, ip->oid, (uint64_t) off, n,
                              &err);
              fs_modified (fs);
              if (r < 0)
                r = fs_fail (fs, r, &err, "PUNCH", ip->oid);
            }
          if (r == 0)
            space_drop (fs, ip, (uint64_t) off, (uint64_t) off + n);
        }
    }
  else
    r = -EOPNOTSUPP;
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  fuse_reply_err (req, -r);
}
