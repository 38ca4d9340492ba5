/* xattr.c - extended attributes.
 *
 * Each xattr is one object attribute in page OSSDFS_PAGE_XATTR, numbered
 * from 1, whose value is: u8 name length, the name, then the value bytes
 * (so name + value fit in the drive's 4096-byte attribute, less 1).  They
 * are loaded with the inode and kept in a list on it.
 *
 * Three read-only names are synthesized on every inode and never stored
 * or listed: user.ossd.oid (decimal object ID), user.ossd.pid (partition)
 * and user.ossd.device (the device URI) -- pg_ossd translates a relation
 * segment file to its object with them.  A fourth, user.ossd.stats, is
 * the mount's counters (stats.c); setting it to anything resets them.
 * user.ossd.layout (regular files) is where the file's bytes are: "raid0
 * n=N unit=BYTES [uuid=UUID] drives=URI,..." (stripe.c, docs/arrays.md);
 * user.ossd.device stays drive 0's URI.  user.ossd.array (every inode,
 * directories too) is the mount's layout in the same form: the drives a
 * tablespace directory's files go to (pg_ossd deploys kernels to each).
 * user.ossd.cap and user.ossd.kernelcap hand the caller a capability
 * (caps.c).  user.ossd.scan (regular files) is what a scan of the file
 * needs in one round trip: "oid", "pid", "device" and "layout" lines
 * with those attributes' values, then the caller's "cap" (and "cap.D")
 * lines; pg_ossd reads it at every scan start instead of five names.
 * user.ossd.priority (regular files, the one writable name) is the
 * file's I/O priority on its drives (priority.c, docs/qos.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "ossdfs.h"

#define XATTR_VALUE_MAX 4096

struct xattr
{
  struct xattr *next;
  uint32_t number;
  size_t namelen, vlen;
  char *name;                 /* NUL-terminated */
  uint8_t *value;
};

static struct xattr *
xattr_make (uint32_t number, const char *name, size_t namelen,
            const void *value, size_t vlen)
{
  struct xattr *x = calloc (1, sizeof *x);

  if (!x)
    return NULL;
  x->name = malloc (namelen + 1);
  x->value = malloc (vlen ? vlen : 1);
  if (!x->name || !x->value)
    {
      free (x->name);
      free (x->value);
      free (x);
      return NULL;
    }
  memcpy (x->name, name, namelen);
  x->name[namelen] = 0;
  memcpy (x->value, value, vlen);
  x->number = number;
  x->namelen = namelen;
  x->vlen = vlen;
  return x;
}

static void
xattr_destroy (struct xattr *x)
{
  free (x->name);
  free (x->value);
  free (x);
}

void
xattr_free (struct inode *ip)
{
  for (struct xattr *x = ip->xattrs, *next; x; x = next)
    {
      next = x->next;
      xattr_destroy (x);
    }
  ip->xattrs = NULL;
}

int
xattr_load (struct inode *ip, Ossd__Attribute *const *attrs, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const Ossd__Attribute *a = attrs[i];
      const uint8_t *v = a->value.data;
      struct xattr *x;

      if (a->page != OSSDFS_PAGE_XATTR || a->value.len < 2
          || (size_t) v[0] + 1 > a->value.len || v[0] == 0)
        continue;
      x = xattr_make (a->number, (const char *) v + 1, v[0], v + 1 + v[0],
                      a->value.len - 1 - v[0]);
      if (!x)
        return -ENOMEM;
      x->next = ip->xattrs;
      ip->xattrs = x;
    }
  return 0;
}

static struct xattr *
xattr_find (struct inode *ip, const char *name)
{
  for (struct xattr *x = ip->xattrs; x; x = x->next)
    if (strcmp (x->name, name) == 0)
      return x;
  return NULL;
}

/* The synthesized value of name into buf (NUL-free), or -1. */
static int
synth (struct fs *fs, struct inode *ip, const char *name, char *buf,
       size_t cap)
{
  if (strcmp (name, "user.ossd.oid") == 0)
    return snprintf (buf, cap, "%" PRIu64, ip->oid);
  if (strcmp (name, "user.ossd.pid") == 0)
    return snprintf (buf, cap, "%" PRIu64, fs->pid);
  if (strcmp (name, "user.ossd.device") == 0)
    return snprintf (buf, cap, "%s", fs->uri);
  if (strcmp (name, "user.ossd.stats") == 0)
    return stats_format (fs, buf, cap);
  if (strcmp (name, "user.ossd.layout") == 0)
    return S_ISREG (ip->d.mode) ? stripe_layout_text (fs, buf, cap) : -1;
  if (strcmp (name, "user.ossd.array") == 0)
    return stripe_layout_text (fs, buf, cap);
  return -1;
}

/* user.ossd.scan of regular file ip, into buf (ip->lock held): one
 * "name value" line per attribute a scan start reads. */
static int
scan_xattr (struct fs *fs, fuse_req_t req, struct inode *ip, char *buf,
            size_t cap)
{
  int len, n;

  if (!S_ISREG (ip->d.mode))
    return -ENODATA;
  len = snprintf (buf, cap, "oid %" PRIu64 "\npid %" PRIu64 "\ndevice %s\nlayout ",
                  ip->oid, fs->pid, fs->uri);
  if (len < 0 || (size_t) len >= cap)
    return -ERANGE;
  n = stripe_layout_text (fs, buf + len, cap - len);
  if (n < 0 || (size_t) (len + n + 1) >= cap)
    return -ERANGE;
  len += n;
  buf[len++] = '\n';
  n = caps_scan_lines (fs, req, ip, buf + len, cap - len);
  if (n < 0)
    return n;
  return len + n;
}

static bool
synthesized (const char *name)
{
  return strncmp (name, "user.ossd.", 10) == 0;
}

/* Store x (or remove number when x is NULL) and the inode's ctime. */
static int
xattr_store (struct fs *fs, struct inode *ip, uint32_t number,
             const char *name, const void *value, size_t vlen,
             struct dinode *nd)
{
  size_t namelen = name ? strlen (name) : 0;
  uint8_t *buf = malloc (1 + namelen + vlen);
  struct batch b;
  int r;

  if (!buf)
    return -ENOMEM;
  if (name)
    {
      buf[0] = (uint8_t) namelen;
      memcpy (buf + 1, name, namelen);
      memcpy (buf + 1 + namelen, value, vlen);
    }
  *nd = ip->d;
  fs_now (&nd->ctime);
  batch_init (&b);
  batch_set_attr (&b, fs->pid, ip->oid, OSSDFS_PAGE_XATTR, number, buf,
                  name ? 1 + namelen + vlen : 0);
  batch_inode (&b, fs, ip->oid, nd);
  r = batch_run (fs, &b, name ? "setxattr" : "removexattr", ip->oid);
  free (buf);
  return r;
}

/* POSIX ACLs are not supported: stored as opaque bytes they would not be
 * enforced, and `cp -p` would then trust them over the mode (a 0644 file
 * became 0600).  EOPNOTSUPP makes cp and tar fall back to chmod. */
static bool
is_posix_acl (const char *name)
{
  return strcmp (name, "system.posix_acl_access") == 0
    || strcmp (name, "system.posix_acl_default") == 0;
}

void
fsop_setxattr (fuse_req_t req, fuse_ino_t ino, const char *name,
             const char *value, size_t size, int flags)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  struct xattr *x, *nx = NULL;
  struct dinode nd;
  size_t namelen = strlen (name);
  uint32_t number = 1;
  int r;

  if (strcmp (name, "user.ossd.stats") == 0)
    {
      stats_reset (fs);         /* any value: start counting afresh */
      fuse_reply_err (req, 0);
      return;
    }
  if (strcmp (name, "user.ossd.priority") == 0)
    {
      if ((r = inode_get (fs, ino_to_oid (ino), &ip)) < 0)
        {
          fuse_reply_err (req, -r);
          return;
        }
      pthread_mutex_lock (&ip->lock);
      r = ip->removed ? -ENOENT
        : priority_xattr_set (fs, fuse_req_ctx (req)->uid, ip, value, size);
      pthread_mutex_unlock (&ip->lock);
      inode_put (fs, ip);
      fuse_reply_err (req, -r);
      return;
    }
  if (synthesized (name))
    {
      fuse_reply_err (req, EPERM);
      return;
    }
  if (is_posix_acl (name))
    {
      fuse_reply_err (req, EOPNOTSUPP);
      return;
    }
  if (namelen == 0 || namelen > 255)
    {
      fuse_reply_err (req, namelen ? ERANGE : EINVAL);
      return;
    }
  if (1 + namelen + size > XATTR_VALUE_MAX)
    {
      fuse_reply_err (req, E2BIG);
      return;
    }
  if ((r = inode_get (fs, ino_to_oid (ino), &ip)) < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  x = xattr_find (ip, name);
  if (x && (flags & XATTR_CREATE))
    r = -EEXIST;
  else if (!x && (flags & XATTR_REPLACE))
    r = -ENODATA;
  else if (ip->removed)
    r = -ENOENT;
  if (r == 0)
    {
      if (x)
        number = x->number;
      else
        for (struct xattr *y = ip->xattrs; y; y = y->next)
          if (y->number >= number)
            number = y->number + 1;
      nx = xattr_make (number, name, namelen, value, size);
      if (!nx)
        r = -ENOMEM;
    }
  if (r == 0)
    r = xattr_store (fs, ip, number, name, value, size, &nd);
  if (r == 0)
    {
      ip->d = nd;
      if (x)
        {
          /* swap contents so the list keeps its shape */
          struct xattr tmp = *x;
          nx->next = x->next;
          *x = *nx;
          tmp.next = NULL;
          *nx = tmp;
        }
      else
        {
          nx->next = ip->xattrs;
          ip->xattrs = nx;
          nx = NULL;
        }
    }
  if (nx)
    xattr_destroy (nx);
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  fuse_reply_err (req, -r);
}

void
fsop_getxattr (fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  struct xattr *x;
  char sbuf[16384];
  const void *val = NULL;
  size_t len = 0;
  int r, n;

  if (is_posix_acl (name))
    {
      fuse_reply_err (req, EOPNOTSUPP);
      return;
    }
  r = inode_get (fs, ino_to_oid (ino), &ip);
  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  if ((n = caps_xattr (fs, req, ip, name, sbuf, sizeof sbuf)) != 0)
    {
      if (n < 0)
        r = n;
      val = sbuf;
      len = n > 0 ? (size_t) n : 0;
    }
  else if (strcmp (name, "user.ossd.scan") == 0)
    {
      n = scan_xattr (fs, req, ip, sbuf, sizeof sbuf);
      if (n < 0)
        r = n;
      val = sbuf;
      len = n > 0 ? (size_t) n : 0;
    }
  else if (strcmp (name, "user.ossd.priority") == 0)
    {
      n = priority_xattr_get (fs, ip, sbuf, sizeof sbuf);
      if (n < 0)
        r = n;
      val = sbuf;
      len = n > 0 ? (size_t) n : 0;
    }
  else if ((n = synth (fs, ip, name, sbuf, sizeof sbuf)) >= 0)
    {
      val = sbuf;
      len = (size_t) n < sizeof sbuf ? (size_t) n : sizeof sbuf - 1;
    }
  else if ((x = xattr_find (ip, name)))
    {
      len = x->vlen;
      if (size >= len)
        {
          memcpy (sbuf, x->value, len);
          val = sbuf;
        }
    }
  else
    r = -ENODATA;
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else if (size == 0)
    fuse_reply_xattr (req, len);
  else if (size < len)
    fuse_reply_err (req, ERANGE);
  else
    fuse_reply_buf (req, val, len);
}

void
fsop_listxattr (fuse_req_t req, fuse_ino_t ino, size_t size)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  char *buf = NULL;
  size_t len = 0;
  int r = inode_get (fs, ino_to_oid (ino), &ip);

  if (r < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  for (struct xattr *x = ip->xattrs; x; x = x->next)
    len += x->namelen + 1;
  if (size && size >= len && (buf = malloc (len ? len : 1)))
    {
      size_t pos = 0;
      for (struct xattr *x = ip->xattrs; x; x = x->next)
        {
          memcpy (buf + pos, x->name, x->namelen + 1);
          pos += x->namelen + 1;
        }
    }
  else if (size && size >= len)
    r = -ENOMEM;
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  if (r < 0)
    fuse_reply_err (req, -r);
  else if (size == 0)
    fuse_reply_xattr (req, len);
  else if (size < len)
    fuse_reply_err (req, ERANGE);
  else
    fuse_reply_buf (req, buf, len);
  free (buf);
}

/* Remove the attribute `name` of ip (ip->lock held): 0 or -ENODATA or
 * the drive's error. */
static int
xattr_remove_locked (struct fs *fs, struct inode *ip, const char *name)
{
  struct xattr *x = xattr_find (ip, name), **pp;
  struct dinode nd;
  int r;

  if (!x)
    return -ENODATA;
  if ((r = xattr_store (fs, ip, x->number, NULL, NULL, 0, &nd)) < 0)
    return r;
  ip->d = nd;
  for (pp = &ip->xattrs; *pp; pp = &(*pp)->next)
    if (*pp == x)
      {
        *pp = x->next;
        break;
      }
  xattr_destroy (x);
  return 0;
}

/* Under FUSE_HANDLE_KILLPRIV_V2 a write drops the file's capabilities,
 * whoever writes (the kernel's rule: security_inode_need_killpriv).
 * ip->lock held.  0 if there were none. */
int
xattr_kill_capability_locked (struct fs *fs, struct inode *ip, bool *killed)
{
  int r = xattr_find (ip, "security.capability")
    ? xattr_remove_locked (fs, ip, "security.capability") : -ENODATA;
  *killed = r == 0;
  return r == -ENODATA ? 0 : r;
}

void
fsop_removexattr (fuse_req_t req, fuse_ino_t ino, const char *name)
{
  struct fs *fs = req_fs (req);
  struct inode *ip;
  int r;

  if (synthesized (name))
    {
      fuse_reply_err (req, EPERM);
      return;
    }
  if ((r = inode_get (fs, ino_to_oid (ino), &ip)) < 0)
    {
      fuse_reply_err (req, -r);
      return;
    }
  pthread_mutex_lock (&ip->lock);
  r = xattr_remove_locked (fs, ip, name);
  pthread_mutex_unlock (&ip->lock);
  inode_put (fs, ip);
  fuse_reply_err (req, -r);
}
