/* nand_backend_file.c - NAND backend on a sparse image file.
 *
 * Layout (nand_file_layout_compute): superblock | mount state | OOB area
 * (oob_size bytes per page, contiguous so a recovery scan is one
 * sequential read) | data area (page_size per page) | two checkpoint
 * slots.  Unwritten areas are holes, so a multi-GiB image costs only what
 * was written.  Program = pwrite data then pwrite OOB (a page whose OOB is
 * absent or torn is treated as never programmed); erase = zero the OOB of
 * the block and punch a hole over its data; sync = fdatasync.
 *
 * Reads of data pages come from a read-only shared mapping of the data
 * area when the image is large enough to hold it: a scan reads gigabytes
 * of pages, and a memcpy from the page cache costs a fraction of a pread
 * system call per page.  Writes still go through pwrite (and fdatasync),
 * which the shared mapping sees at once.
 */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftl_internal.h"

struct file_backend
{
  struct nand_backend be;
  int fd;
  struct nand_file_layout lay;
  uint8_t *zero_oob;          /* pages_per_block * oob_size zeros */
  const uint8_t *data_map;    /* the data area, mapped read-only, or NULL */
  size_t data_map_len;
  const uint8_t *oob_map;     /* the OOB area, mapped read-only, or NULL */
  size_t oob_map_len;
};

static uint64_t
align_up (uint64_t v, uint64_t a)
{
  return (v + a - 1) / a * a;
}

void
nand_file_layout_compute (const struct nand_geometry *g,
                          struct nand_file_layout *lay)
{
  memset (lay, 0, sizeof *lay);
  lay->sb_off = 0;
  lay->state_off = 4096;
  lay->oob_off = 1u << 20;
  /* [64 KiB, 1 MiB) was never written by an older image: a hole reads as
   * zeros, i.e. "no record" */
  lay->owner_slot_size = 480u << 10;
  lay->owner_off[0] = 64u << 10;
  lay->owner_off[1] = lay->owner_off[0] + lay->owner_slot_size;
  _Static_assert ((64u << 10) + 2 * (480u << 10) <= (1u << 20),
                  "the owner's record slots end before the OOB area");
  lay->data_off = align_up (lay->oob_off + g->total_pages * g->oob_size,
                            1u << 20);
  uint64_t data_end = lay->data_off + g->total_pages * g->page_size;
  /* A checkpoint holds the mapping (<= 8 bytes per sector with the sparse
   * chunk encoding), block table and object descriptors; slots are holes
   * until used, so they are sized generously. */
  lay->ckpt_slot_size = align_up ((1ull << 30) + g->total_sectors * 12
                                  + (uint64_t) g->total_blocks * 8, 1u << 20);
  lay->ckpt_off[0] = align_up (data_end, 1u << 20);
  lay->ckpt_off[1] = lay->ckpt_off[0] + lay->ckpt_slot_size;
  lay->file_size = lay->ckpt_off[1] + lay->ckpt_slot_size;
}

static int
io_full (int fd, void *buf, size_t len, uint64_t off, bool wr)
{
  uint8_t *p = buf;
  while (len)
    {
      ssize_t r = wr ? pwrite (fd, p, len, (off_t) off)
        : pread (fd, p, len, (off_t) off);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          return -errno;
        }
      if (r == 0)
        {
          if (wr)
            return -EIO;
          memset (p, 0, len);  /* past EOF reads as erased */
          return 0;
        }
      p += r;
      len -= (size_t) r;
      off += (uint64_t) r;
    }
  return 0;
}

static int
fb_read_sector (struct nand_backend *be, uint64_t page, uint32_t slot,
                uint32_t nslots, void *buf)
{
  struct file_backend *fb = (struct file_backend *) be;
  uint64_t off = fb->lay.data_off + page * be->geo->page_size
    + (uint64_t) slot * FTL_SECTOR;
  if (fb->data_map && page < be->geo->total_pages)
    {
      memcpy (buf, fb->data_map + (off - fb->lay.data_off),
              (size_t) nslots * FTL_SECTOR);
      return 0;
    }
  return io_full (fb->fd, buf, (size_t) nslots * FTL_SECTOR, off, false);
}

/* The data of a page in place, for the data CRC check and the copy that
 * follows it (NULL without the mapping: the caller preads). */
static const uint8_t *
fb_page_data (struct nand_backend *be, uint64_t page)
{
  struct file_backend *fb = (struct file_backend *) be;
  if (!fb->data_map || page >= be->geo->total_pages)
    return NULL;
  return fb->data_map + page * be->geo->page_size;
}

static int
fb_read_oob (struct nand_backend *be, uint64_t first, uint64_t n, void *oob)
{
  struct file_backend *fb = (struct file_backend *) be;
  if (fb->oob_map && first + n <= be->geo->total_pages)
    {
      memcpy (oob, fb->oob_map + first * be->geo->oob_size,
              n * be->geo->oob_size);
      return 0;
    }
  return io_full (fb->fd, oob, n * be->geo->oob_size,
                  fb->lay.oob_off + first * be->geo->oob_size, false);
}

static int
fb_program (struct nand_backend *be, uint64_t page, const void *data,
            const void *oob)
{
  struct file_backend *fb = (struct file_backend *) be;
  int r = io_full (fb->fd, (void *) data, be->geo->page_size,
                   fb->lay.data_off + page * be->geo->page_size, true);
  if (r == 0)
    r = io_full (fb->fd, (void *) oob, be->geo->oob_size,
                 fb->lay.oob_off + page * be->geo->oob_size, true);
  return r;
}

static int
fb_erase (struct nand_backend *be, uint64_t first, uint32_t npages)
{
  struct file_backend *fb = (struct file_backend *) be;
  int r = io_full (fb->fd, fb->zero_oob, (size_t) npages * be->geo->oob_size,
                   fb->lay.oob_off + first * be->geo->oob_size, true);
  if (r < 0)
    return r;
  /* keep the image sparse; failure to punch is harmless */
  (void) fallocate (fb->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    (off_t) (fb->lay.data_off + first * be->geo->page_size),
                    (off_t) ((uint64_t) npages * be->geo->page_size));
  return 0;
}

static int
fb_sync (struct nand_backend *be)
{
  struct file_backend *fb = (struct file_backend *) be;
  return fdatasync (fb->fd) < 0 ? -errno : 0;
}

static int
fb_sys_read (struct nand_backend *be, uint64_t off, void *buf, size_t len)
{
  return io_full (((struct file_backend *) be)->fd, buf, len, off, false);
}

static int
fb_sys_write (struct nand_backend *be, uint64_t off, const void *buf,
              size_t len)
{
  return io_full (((struct file_backend *) be)->fd, (void *) buf, len, off,
                  true);
}

/* Cold: unmap the process's pages of the mapping (it is read-only, so
 * nothing is lost), write back what pwrite left dirty (only clean pages can
 * be evicted) and ask the kernel to drop the image from its page cache.
 * The mapping stays valid: its next access faults the page in from the
 * storage below, as a read of a cold drive would. */
static int
fb_drop_cache (struct nand_backend *be)
{
  struct file_backend *fb = (struct file_backend *) be;
  if (fb->data_map && madvise ((void *) fb->data_map, fb->data_map_len,
                               MADV_DONTNEED) < 0)
    return -errno;
  if (fb->oob_map && madvise ((void *) fb->oob_map, fb->oob_map_len,
                              MADV_DONTNEED) < 0)
    return -errno;
  if (fdatasync (fb->fd) < 0)
    return -errno;
  int r = posix_fadvise (fb->fd, 0, 0, POSIX_FADV_DONTNEED);
  return r ? -r : 0;
}

static void
fb_prefetch (struct nand_backend *be, uint64_t first, uint64_t n)
{
  struct file_backend *fb = (struct file_backend *) be;
  posix_fadvise (fb->fd, (off_t) (fb->lay.data_off + first * be->geo->page_size),
                 (off_t) (n * be->geo->page_size), POSIX_FADV_WILLNEED);
  posix_fadvise (fb->fd, (off_t) (fb->lay.oob_off + first * be->geo->oob_size),
                 (off_t) (n * be->geo->oob_size), POSIX_FADV_WILLNEED);
}

static void
fb_close (struct nand_backend *be)
{
  struct file_backend *fb = (struct file_backend *) be;
  if (fb->data_map)
    munmap ((void *) fb->data_map, fb->data_map_len);
  if (fb->oob_map)
    munmap ((void *) fb->oob_map, fb->oob_map_len);
  if (fb->fd >= 0)
    close (fb->fd);
  free (fb->zero_oob);
  free (fb);
}

/* Map the data and OOB areas if the image covers them (an image cut short
 * would fault on access; such an image keeps to pread, which reads zeros
 * past its end): every data read checks its page's OOB, so the OOB of a
 * page must cost no more than its data.  OSSD_NAND_NO_MMAP=1 keeps every
 * read on pread. */
static void
map_data_area (struct file_backend *fb, const struct nand_geometry *g)
{
  struct stat st;
  size_t len = (size_t) (g->total_pages * g->page_size);
  const char *no = getenv ("OSSD_NAND_NO_MMAP");

  if ((no && *no && *no != '0') || len == 0 || fstat (fb->fd, &st) < 0
      || (uint64_t) st.st_size < fb->lay.data_off + len)
    return;
  void *p = mmap (NULL, len, PROT_READ, MAP_SHARED, fb->fd,
                  (off_t) fb->lay.data_off);
  if (p == MAP_FAILED)
    return;
  fb->data_map = p;
  fb->data_map_len = len;
  len = (size_t) (g->total_pages * g->oob_size);
  p = mmap (NULL, len, PROT_READ, MAP_SHARED, fb->fd, (off_t) fb->lay.oob_off);
  if (p == MAP_FAILED)
    return;
  fb->oob_map = p;
  fb->oob_map_len = len;
}

static const struct nand_backend_ops file_ops = {
  .name = "file",
  .stores_data = true,
  .persistent = true,
  .ftl_read_sector = fb_read_sector,
  .read_oob = fb_read_oob,
  .page_data = fb_page_data,
  .program = fb_program,
  .erase = fb_erase,
  .sync = fb_sync,
  .drop_cache = fb_drop_cache,
  .prefetch = fb_prefetch,
  .sys_read = fb_sys_read,
  .sys_write = fb_sys_write,
  .close = fb_close,
};

int
nand_backend_file_create (const char *path, const struct nand_geometry *g,
                          const struct nand_file_layout *lay, bool create,
                          struct nand_backend **out, ftl_error *err)
{
  struct file_backend *fb = calloc (1, sizeof *fb);
  if (!fb)
    return ftl_fail (err, -ENOMEM, "out of memory");
  fb->fd = open (path, create ? O_RDWR | O_CREAT | O_CLOEXEC
                 : O_RDWR | O_CLOEXEC, 0644);
  if (fb->fd < 0)
    {
      int e = errno;
      free (fb);
      return ftl_fail (err, -e, "cannot open image %s: %s", path,
                       strerror (e));
    }
  fb->be.ops = &file_ops;
  fb->be.geo = g;
  /* one FTL per image: a second opener (say, an fsck next to a running
   * drive) gets EBUSY.  The header probe (g == NULL) only reads. */
  if (g && flock (fb->fd, LOCK_EX | LOCK_NB) < 0)
    {
      int e = errno == EWOULDBLOCK ? EBUSY : errno;
      close (fb->fd);
      free (fb);
      return ftl_fail (err, -e, "image %s is in use by another FTL instance",
                       path);
    }
  if (lay)
    fb->lay = *lay;
  /* truncate only once we hold the lock: check the image can take its
   * new size (a size the filesystem refuses must not cost the old
   * content), drop the old content, then size the (sparse) image */
  if (create && (ftruncate (fb->fd, (off_t) lay->file_size) < 0
                 || ftruncate (fb->fd, 0) < 0
                 || ftruncate (fb->fd, (off_t) lay->file_size) < 0))
    {
      int e = errno;
      fb_close (&fb->be);
      return ftl_fail (err, -e, "cannot size image %s to %llu bytes: %s",
                       path, (unsigned long long) lay->file_size,
                       strerror (e));
    }
  if (g)
    {
      fb->zero_oob = calloc (g->pages_per_block, g->oob_size);
      if (!fb->zero_oob)
        {
          fb_close (&fb->be);
          return ftl_fail (err, -ENOMEM, "out of memory");
        }
    }
  if (g && lay)
    map_data_area (fb, g);
  *out = &fb->be;
  return 0;
}
