/* transport_file.c - the `file:PATH` transport of libossd.
 *
 * Owns: opening a block device or a regular file (a drive image) and moving
 * whole LBAs to and from it with pread/pwrite.  O_DIRECT is used so that
 * the drive, not the host page cache, answers every READ of the channel
 * (a long-poll on the event window must reach the device each time); a
 * caller buffer that is not 4096-aligned goes through an aligned bounce
 * buffer.  A filesystem that refuses O_DIRECT (tmpfs, some FUSE mounts)
 * falls back to buffered I/O, and open() says so in `why`.
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

#define FILE_MAX_TRANSFER (4u * 1024 * 1024)
#define FILE_ALIGN 4096u

struct file_state
{
  int fd;
  bool direct;                 /* opened with O_DIRECT */
  bool is_blk;
  char path[PATH_MAX];
};

static int
file_check (struct ossd_transport *t, struct file_state *st, const char *op,
            size_t len, uint64_t off, char *why, size_t whylen)
{
  return ossd_transport_check_io (t, st->path, op, len, off, why, whylen);
}

/* One pread or pwrite of exactly len bytes, retried on EINTR and on short
 * transfers. */
static int
file_io (struct file_state *st, bool is_write, void *buf, size_t len,
         uint64_t off, char *why, size_t whylen)
{
  char *p = buf;
  size_t done = 0;

  while (done < len) {
    ssize_t r = is_write
      ? pwrite (st->fd, p + done, len - done, (off_t) (off + done))
      : pread (st->fd, p + done, len - done, (off_t) (off + done));
    if (r < 0) {
      int e = errno;
      if (e == EINTR)
        continue;
      snprintf (why, whylen, "file: %s: %s of %zu bytes at offset %" PRIu64
                " failed: %s", st->path, is_write ? "pwrite" : "pread",
                len - done, off + done, strerror (e));
      return -e;
    }
    if (r == 0) {
      snprintf (why, whylen, "file: %s: %s at offset %" PRIu64
                ": unexpected end of file (truncated while open?)",
                st->path, is_write ? "pwrite" : "pread", off + done);
      return -EIO;
    }
    done += (size_t) r;
  }
  return 0;
}

static int
file_rw (struct ossd_transport *t, bool is_write, void *buf, size_t len,
         uint64_t off, char *why, size_t whylen)
{
  struct file_state *st = t->priv;
  int r = file_check (t, st, is_write ? "write" : "read", len, off,
                      why, whylen);
  if (r < 0)
    return r;

  if (!st->direct || ((uintptr_t) buf % FILE_ALIGN) == 0)
    return file_io (st, is_write, buf, len, off, why, whylen);

  /* O_DIRECT with an unaligned caller buffer: bounce. */
  size_t bsz = len < FILE_MAX_TRANSFER ? len : FILE_MAX_TRANSFER;
  void *bounce;
  int e = posix_memalign (&bounce, FILE_ALIGN, bsz);
  if (e != 0) {
    snprintf (why, whylen, "file: %s: cannot allocate a %zu-byte bounce "
              "buffer: %s", st->path, bsz, strerror (e));
    return -e;
  }
  char *p = buf;
  for (size_t done = 0; done < len; done += bsz) {
    size_t n = len - done < bsz ? len - done : bsz;
    if (is_write)
      memcpy (bounce, p + done, n);
    r = file_io (st, is_write, bounce, n, off + done, why, whylen);
    if (r < 0)
      break;
    if (!is_write)
      memcpy (p + done, bounce, n);
  }
  free (bounce);
  return r;
}

static int
file_pread (struct ossd_transport *t, void *buf, size_t len, uint64_t off,
            char *why, size_t whylen)
{
  return file_rw (t, false, buf, len, off, why, whylen);
}

static int
file_pwrite (struct ossd_transport *t, const void *buf, size_t len,
             uint64_t off, char *why, size_t whylen)
{
  /* file_rw only reads from buf when is_write is set. */
  return file_rw (t, true, (void *) buf, len, off, why, whylen);
}

static int
file_flush (struct ossd_transport *t, char *why, size_t whylen)
{
  struct file_state *st = t->priv;

  if (fdatasync (st->fd) == -1) {
    int e = errno;
    snprintf (why, whylen, "file: %s: fdatasync failed: %s",
              st->path, strerror (e));
    return -e;
  }
  return 0;
}

static void
file_close (struct ossd_transport *t)
{
  if (t == NULL)
    return;
  struct file_state *st = t->priv;
  if (st) {
    if (st->fd >= 0)
      close (st->fd);
    free (st);
  }
  free (t);
}

static const struct ossd_transport_ops file_ops = {
  .name = "file",
  .pread = file_pread,
  .pwrite = file_pwrite,
  .flush = file_flush,
  .close = file_close,
};

int
ossd_transport_open_file (const char *path, struct ossd_transport **out,
                          char *why, size_t whylen)
{
  struct file_state *st = NULL;
  struct ossd_transport *t = NULL;
  struct stat sb;
  uint64_t size;
  int e;

  *out = NULL;
  if (whylen > 0)
    why[0] = '\0';
  if (path == NULL || path[0] == '\0') {
    snprintf (why, whylen, "file: no path given (want file:PATH)");
    return -EINVAL;
  }
  if (strlen (path) >= sizeof st->path) {
    snprintf (why, whylen, "file: path too long");
    return -ENAMETOOLONG;
  }

  st = calloc (1, sizeof *st);
  t = calloc (1, sizeof *t);
  if (st == NULL || t == NULL) {
    e = errno;
    snprintf (why, whylen, "file: %s: out of memory", path);
    goto fail;
  }
  strcpy (st->path, path);
  st->fd = -1;

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
    st->is_blk = true;
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

  t->ops = &file_ops;
  t->size_bytes = size - size % OSSD_LBA_SIZE;
  t->max_transfer = FILE_MAX_TRANSFER;
  t->knows_connections = false;
  t->priv = st;
  *out = t;
  if (!st->direct)
    snprintf (why, whylen, "file: %s: the filesystem refuses O_DIRECT; "
              "using buffered I/O", path);
  return 0;

 fail:
  if (st && st->fd >= 0)
    close (st->fd);
  free (st);
  free (t);
  return -e;
}
