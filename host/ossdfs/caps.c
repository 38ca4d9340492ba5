/* caps.c - ossdfs as the file manager of NASD: it holds the drive's
 * master key (its own calls carry a device-wide capability, libossd) and
 * hands callers capabilities that follow the filesystem's permissions
 * (docs/security.md).
 *
 * getxattr user.ossd.cap on a regular file: a capability for that object,
 * with read+scan if the caller may read the file and write if it may
 * write it, judged from the file's owner, group and mode and the FUSE
 * request's uid, gid and supplementary groups (as the kernel would for
 * open).  A caller who may do neither gets EACCES.
 * getxattr user.ossd.kernelcap on any inode: a capability to deploy and
 * remove kernels (the partition of the mount), for root and the members
 * of --kernel-group; EACCES for others.
 * On an array each drive checks capabilities under its own key:
 * user.ossd.cap.D and user.ossd.kernelcap.D are drive D's (the names
 * without a suffix are drive 0's).
 * user.ossd.scan (xattr.c) carries the object's capability for every
 * drive of the array in its "cap" and "cap.D" lines (caps_scan_lines).
 * Both expire after --cap-ttl-s seconds (default 3600); pg_ossd asks
 * again for each scan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ossdfs.h"

static bool
caller_in_group (fuse_req_t req, gid_t gid)
{
  const struct fuse_ctx *ctx = fuse_req_ctx (req);
  gid_t groups[64];
  int n;

  if (ctx->gid == gid)
    return true;
  n = fuse_req_getgroups (req, 64, groups);
  for (int i = 0; i < n && i < 64; i++)
    if (groups[i] == gid)
      return true;
  return false;
}

/* Whether the caller may deploy and remove kernels: root and the members
 * of --kernel-group. */
static bool
ctx_may_deploy (struct fs *fs, fuse_req_t req)
{
  const struct fuse_ctx *ctx = fuse_req_ctx (req);

  return ctx->uid == 0
    || (fs->kernel_group_set && caller_in_group (req, fs->kernel_gid));
}

/* The rights the caller's credentials give on ip's object. */
static uint32_t
file_rights (fuse_req_t req, const struct inode *ip)
{
  const struct fuse_ctx *ctx = fuse_req_ctx (req);
  uint32_t perm, r = 0;

  if (ctx->uid == 0)
    perm = 6;
  else if (ctx->uid == ip->d.uid)
    perm = (ip->d.mode >> 6) & 7;
  else if (caller_in_group (req, ip->d.gid))
    perm = (ip->d.mode >> 3) & 7;
  else
    perm = ip->d.mode & 7;
  if (perm & 4)
    r |= OSSD_RIGHT_READ | OSSD_RIGHT_SCAN;
  if (perm & 2)
    r |= OSSD_RIGHT_WRITE;
  return r;
}

/* Give c (pid, oid, rights and version set) its expiry and drive d's MAC,
 * and format it into buf.  Returns its length, or a negative errno. */
static int
caps_mint_text (struct fs *fs, uint32_t d, struct ossd_cap *c, char *buf,
                size_t cap)
{
  int n;

  c->expiry_ns = ossd_realtime_ns () + fs->cap_ttl_ns;
  if (ossd_mint_capability (fs->drive[d].o, c, NULL) < 0)
    return -EACCES;            /* mounted without the key, or drive lost */
  n = ossd_cap_format (c, buf, cap);
  return n < 0 ? -ERANGE : n;
}

/* A capability for ip's object on drive d with the given rights, in text
 * form, into buf.  Returns its length, or a negative errno. */
static int
caps_format_file (struct fs *fs, struct inode *ip, uint32_t d, uint32_t rights,
                  char *buf, size_t cap)
{
  struct ossd_cap c = { 0 };

  c.pid = fs->pid;
  c.rights = rights;
  c.oid = ip->oid;
  c.version = ip->cap_version;
  return caps_mint_text (fs, d, &c, buf, cap);
}

int
caps_xattr (struct fs *fs, fuse_req_t req, struct inode *ip,
            const char *name, char *buf, size_t cap)
{
  struct ossd_cap c = { 0 };
  bool kernel;
  uint32_t d = 0;
  const char *base;

  kernel = strncmp (name, "user.ossd.kernelcap", 19) == 0;
  base = kernel ? name + 19 : name + 13;
  if (!kernel && strncmp (name, "user.ossd.cap", 13) != 0)
    return 0;
  if (*base == '.')
    {
      /* user.ossd.cap.D, user.ossd.kernelcap.D: for drive D of an array */
      char *end;
      unsigned long v = strtoul (base + 1, &end, 10);
      if (*end || end == base + 1 || v >= fs->ndrives)
        return -ENODATA;
      d = (uint32_t) v;
    }
  else if (*base)
    return 0;
  if (!kernel)
    {
      uint32_t rights;

      if (!S_ISREG (ip->d.mode))
        return -ENODATA;
      rights = file_rights (req, ip);
      if (rights == 0)
        return -EACCES;
      return caps_format_file (fs, ip, d, rights, buf, cap);
    }
  if (!ctx_may_deploy (fs, req))
    return -EACCES;
  c.pid = fs->pid;
  c.rights = OSSD_RIGHT_KERNEL;
  return caps_mint_text (fs, d, &c, buf, cap);
}

int
caps_scan_lines (struct fs *fs, fuse_req_t req, struct inode *ip,
                 char *buf, size_t cap)
{
  uint32_t rights = file_rights (req, ip);
  size_t len = 0;

  if (rights == 0)
    return 0;
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      char text[OSSD_CAP_TEXT_MAX + 1];
      int n = caps_format_file (fs, ip, d, rights, text, sizeof text);
      int w;

      if (n < 0)
        continue;               /* that drive checks, and says what is missing */
      if (d == 0)
        w = snprintf (buf + len, cap - len, "cap %s\n", text);
      else
        w = snprintf (buf + len, cap - len, "cap.%u %s\n", d, text);
      if (w < 0 || (size_t) w >= cap - len)
        return -ERANGE;
      len += (size_t) w;
    }
  return (int) len;
}
