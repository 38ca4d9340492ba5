/* transport_file.c - the `file:PATH` transport of libossd.
 *
 * Owns: opening a block device or a regular file (a drive image), its
 * size, and the encoder that moves one piece with pread/pwrite (retried on
 * EINTR and on short transfers).  The request loop - checks, pieces of at
 * most 4 MiB, the bounce buffer - is the block-transport core's
 * (transport_block.c).  O_DIRECT is used so that the drive, not the host
 * page cache, answers every READ of the channel (a long-poll on the event
 * window must reach the device each time); a caller buffer that is not
 * 4096-aligned goes through the core's aligned bounce buffer.  A
 * filesystem that refuses O_DIRECT (tmpfs, some FUSE mounts) falls back to
 * buffered I/O, and open() says so in `why`.
 *
 * Size: BLKGETSIZE64 for block devices, st_size for regular files, rounded
 * down to a whole LBA.  Flush: fdatasync (a cache flush on block devices).
 * The transport keeps no connection, so knows_connections = false.
 *
 * All calls are safe from several threads at once: pread/pwrite carry
 * their own offsets and the bounce buffer belongs to the call.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "ossd_frame.h"
#include "ossd_transport.h"
#include "transport_block.h"

#define FILE_MAX_TRANSFER (4u * 1024 * 1024)
#define FILE_ALIGN 4096u

struct file_state
{
  int fd;
  bool direct;                 /* opened with O_DIRECT */
  char path[PATH_MAX];
};

/* One piece: a pread or pwrite of exactly cmd->nbytes, retried on EINTR
 * and on short transfers. */
static int
file_submit (void *priv, const struct ossd_block_cmd *cmd, char *why,
             size_t whylen)
{
  struct file_state *st = priv;
  char *p = cmd->buf;
  size_t done = 0;

  while (done < cmd->nbytes) {
    size_t len = cmd->nbytes - done;
    off_t at = (off_t) (cmd->off + done);
    ssize_t r = cmd->is_write ? pwrite (st->fd, p + done, len, at)
      : pread (st->fd, p + done, len, at);
    if (r < 0) {
      int e = errno;
      if (e == EINTR)
        continue;
      if (done == 0)
        return ossd_block_why (why, whylen, -e, "file", st->path, cmd->what,
                               "%s", strerror (e));
      return ossd_block_why (why, whylen, -e, "file", st->path, cmd->what,
                             "%s after %zu bytes", strerror (e), done);
    }
    if (r == 0)
      return ossd_block_why (why, whylen, -EIO, "file", st->path, cmd->what,
                             "unexpected end of file at offset %" PRIu64
                             " (truncated while open?)", cmd->off + done);
    done += (size_t) r;
  }
  return 0;
}

static int
file_flush (void *priv, char *why, size_t whylen)
{
  struct file_state *st = priv;

  if (fdatasync (st->fd) == -1) {
    int e = errno;
    snprintf (why, whylen, "file: %s: fdatasync failed: %s",
              st->path, strerror (e));
    return -e;
  }
  return 0;
}

static void
file_release (void *priv)
{
  struct file_state *st = priv;
  if (st == NULL)
    return;
  if (st->fd >= 0)
    close (st->fd);
  free (st);
}

static const struct ossd_block_encoder file_encoder = {
  .scheme = "file",
  .read_op = "pread",
  .write_op = "pwrite",
  .submit = file_submit,
  .flush = file_flush,
  .release = file_release,
};

int
ossd_transport_open_file (const char *path, struct ossd_transport **out,
                          char *why, size_t whylen)
{
  struct file_state *st = NULL;
  struct stat sb;
  uint64_t size;
  int e;

  *out = NULL;
  if (whylen > 0)
    why[0] = '\0';
  int r = ossd_block_check_name ("file", "path", "file:PATH", path,
                                 sizeof st->path, why, whylen);
  if (r < 0)
    return r;

  st = calloc (1, sizeof *st);
  if (st == NULL) {
    snprintf (why, whylen, "file: %s: out of memory", path);
    return -ENOMEM;
  }
  strcpy (st->path, path);

  st->direct = true;
  st->fd = open (path, O_RDWR | O_CLOEXEC | O_DIRECT);
  if (st->fd == -1 && errno == EINVAL) {
    /* tmpfs and some FUSE filesystems refuse O_DIRECT. */
    st->direct = false;
    st->fd = open (path, O_RDWR | O_CLOEXEC);
  }
  if (st->fd == -1) {
    e = errno;
    snprintf (why, whylen, "file: cannot open %s: %s", path, strerror (e));
    goto fail;
  }

  if (fstat (st->fd, &sb) == -1) {
    e = errno;
    snprintf (why, whylen, "file: %s: fstat: %s", path, strerror (e));
    goto fail;
  }
  if (S_ISBLK (sb.st_mode)) {
    int ssz = 0;
    if (ioctl (st->fd, BLKGETSIZE64, &size) == -1) {
      e = errno;
      snprintf (why, whylen, "file: %s: BLKGETSIZE64: %s", path,
                strerror (e));
      goto fail;
    }
    if (ioctl (st->fd, BLKSSZGET, &ssz) == 0 && ssz > (int) OSSD_LBA_SIZE) {
      snprintf (why, whylen, "file: %s: logical block size %d is larger "
                "than the %u-byte LBA size", path, ssz, OSSD_LBA_SIZE);
      e = EINVAL;
      goto fail;
    }
  }
  else if (S_ISREG (sb.st_mode))
    size = (uint64_t) sb.st_size;
  else {
    snprintf (why, whylen, "file: %s: not a block device or regular file",
              path);
    e = EINVAL;
    goto fail;
  }

  struct ossd_block_facts facts = {
    .dev = st->path,
    .size_bytes = size,
    .block_size = 0,                  /* pread/pwrite take byte offsets */
    .max_transfer = FILE_MAX_TRANSFER,
    .buf_align = st->direct ? FILE_ALIGN : 0,
  };
  r = ossd_block_transport_new (&file_encoder, st, &facts, out, why, whylen);
  if (r < 0) {
    e = -r;
    goto fail;
  }
  if (!st->direct)
    snprintf (why, whylen, "file: %s: the filesystem refuses O_DIRECT; "
              "using buffered I/O", path);
  return 0;

 fail:
  file_release (st);
  return -e;
}
