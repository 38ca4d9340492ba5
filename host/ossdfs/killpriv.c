/* killpriv.c - asks the kernel for FUSE_HANDLE_KILLPRIV_V2, which
 * libfuse 3.14 cannot request (FUSE_CAP_HANDLE_KILLPRIV_V2 came in a
 * later libfuse; with it this file is not needed).
 *
 * Why: without it the kernel, before every write(2), asks the
 * filesystem for security.capability (a GETXATTR round trip through
 * ossdfs) to decide whether the write must drop privileges.  With it the
 * kernel marks an inode that has neither suid/sgid bits nor capabilities
 * S_NOSEC after the first check and stops asking; in return the
 * filesystem clears suid/sgid itself on write, truncate and chown by an
 * unprivileged caller (file.c, ops.c: inode_kill_suid).  PostgreSQL's
 * bulk loads write every page once or twice, so this is two FUSE round
 * trips per page saved.
 *
 * How: libfuse sends every reply through fuse_custom_io.writev, which
 * loop.c installs and which calls killpriv_writev when the option is on.
 * The first reply a session ever sends is the INIT reply
 * (the kernel sends nothing else before INIT is answered); the flag is
 * OR-ed into its fuse_init_out.flags on the way.  Everything else passes
 * through untouched.  The wire layout (fuse_out_header, fuse_init_out)
 * is the kernel's stable ABI (linux/fuse.h), mirrored here because
 * linux/fuse.h clashes with libfuse's headers.  libfuse 3.14 speaks
 * protocol 7.31; the flag dates from 7.33, but the kernel reads the
 * INIT flags whatever the minor version, and kernels older than the flag
 * ignore the bit. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "ossdfs.h"

#define WIRE_HANDLE_KILLPRIV_V2 (1u << 28)  /* linux/fuse.h */
#define WIRE_INIT_FLAGS_OFFSET  12          /* fuse_init_out.flags */
#define WIRE_MIN_MINOR          26          /* fuse_init_out as below */

struct wire_out_header           /* struct fuse_out_header */
{
  uint32_t len;
  int32_t error;
  uint64_t unique;
};

ssize_t
killpriv_writev (struct fs *fs, int fd, struct iovec *iov, int count)
{
  uint8_t init_out[256];
  struct iovec copy[2];
  const struct wire_out_header *oh = iov[0].iov_base;
  uint32_t major, minor, flags;

  if (atomic_exchange (&fs->init_reply_seen, true) || count != 2
      || iov[0].iov_len != sizeof *oh || oh->error != 0
      || iov[1].iov_len < WIRE_INIT_FLAGS_OFFSET + 4
      || iov[1].iov_len > sizeof init_out)
    return writev (fd, iov, count);
  memcpy (init_out, iov[1].iov_base, iov[1].iov_len);
  memcpy (&major, init_out, 4);
  memcpy (&minor, init_out + 4, 4);
  if (major != 7 || minor < WIRE_MIN_MINOR)
    return writev (fd, iov, count);
  memcpy (&flags, init_out + WIRE_INIT_FLAGS_OFFSET, 4);
  flags |= WIRE_HANDLE_KILLPRIV_V2;
  memcpy (init_out + WIRE_INIT_FLAGS_OFFSET, &flags, 4);
  copy[0] = iov[0];
  copy[1] = (struct iovec) { .iov_base = init_out, .iov_len = iov[1].iov_len };
  fs->killpriv_v2 = true;
  return writev (fd, copy, 2);
}

bool
inode_needs_kill_suid (const struct inode *ip, fuse_req_t req)
{
  const struct fuse_ctx *ctx = fuse_req_ctx (req);
  uint32_t m = ip->d.mode;

  /* The kernel's rule (should_remove_suid): suid always, sgid only with
   * group execute; a caller with CAP_FSETID keeps them.  libfuse 3.14
   * does not pass the kernel's "kill" flag of a write, so root stands in
   * for CAP_FSETID. */
  return S_ISREG (m) && ctx->uid != 0
    && ((m & S_ISUID) || (m & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP));
}
