/* nand_backend_ram.c - NAND backends kept in memory: "ram" (data and OOB in
 * anonymous memory, lost on close) and "none" (metadata-only simulation:
 * nothing is stored, reads return zeros). */
#include <sys/mman.h>

#include "ftl_internal.h"

struct ram_backend
{
  struct nand_backend be;
  uint8_t *data;
  uint8_t *oob;
  size_t data_len, oob_len;
};

static int
rb_read_sector (struct nand_backend *be, uint64_t page, uint32_t slot,
                uint32_t nslots, void *buf)
{
  struct ram_backend *rb = (struct ram_backend *) be;
  memcpy (buf, rb->data + page * be->geo->page_size
          + (uint64_t) slot * FTL_SECTOR, (size_t) nslots * FTL_SECTOR);
  return 0;
}

static const uint8_t *
rb_page_data (struct nand_backend *be, uint64_t page)
{
  struct ram_backend *rb = (struct ram_backend *) be;
  return rb->data + page * be->geo->page_size;
}

static int
rb_read_oob (struct nand_backend *be, uint64_t first, uint64_t n, void *oob)
{
  struct ram_backend *rb = (struct ram_backend *) be;
  memcpy (oob, rb->oob + first * be->geo->oob_size, n * be->geo->oob_size);
  return 0;
}

static int
rb_program (struct nand_backend *be, uint64_t page, const void *data,
            const void *oob)
{
  struct ram_backend *rb = (struct ram_backend *) be;
  memcpy (rb->data + page * be->geo->page_size, data, be->geo->page_size);
  memcpy (rb->oob + page * be->geo->oob_size, oob, be->geo->oob_size);
  return 0;
}

static int
rb_erase (struct nand_backend *be, uint64_t first, uint32_t npages)
{
  struct ram_backend *rb = (struct ram_backend *) be;
  memset (rb->oob + first * be->geo->oob_size, 0,
          (size_t) npages * be->geo->oob_size);
  return 0;
}

static int
rb_sync (struct nand_backend *be)
{
  return 0;
}

static int
rb_sys_none (struct nand_backend *be, uint64_t off, void *buf, size_t len)
{
  return -ENOTSUP;
}

static int
rb_sys_write_none (struct nand_backend *be, uint64_t off, const void *buf,
                   size_t len)
{
  return -ENOTSUP;
}

static void
rb_close (struct nand_backend *be)
{
  struct ram_backend *rb = (struct ram_backend *) be;
  if (rb->data)
    munmap (rb->data, rb->data_len);
  if (rb->oob)
    munmap (rb->oob, rb->oob_len);
  free (rb);
}

static const struct nand_backend_ops ram_ops = {
  .name = "ram",
  .stores_data = true,
  .persistent = false,
  .ftl_read_sector = rb_read_sector,
  .read_oob = rb_read_oob,
  .page_data = rb_page_data,
  .program = rb_program,
  .erase = rb_erase,
  .sync = rb_sync,
  .sys_read = rb_sys_none,
  .sys_write = rb_sys_write_none,
  .close = rb_close,
};

static int
nb_read_sector (struct nand_backend *be, uint64_t page, uint32_t slot,
                uint32_t nslots, void *buf)
{
  memset (buf, 0, (size_t) nslots * FTL_SECTOR);
  return 0;
}

static int
nb_read_oob (struct nand_backend *be, uint64_t first, uint64_t n, void *oob)
{
  memset (oob, 0, n * be->geo->oob_size);
  return 0;
}

static int
nb_program (struct nand_backend *be, uint64_t page, const void *data,
            const void *oob)
{
  return 0;
}

static int
nb_erase (struct nand_backend *be, uint64_t first, uint32_t npages)
{
  return 0;
}

static const struct nand_backend_ops none_ops = {
  .name = "none",
  .stores_data = false,
  .persistent = false,
  .ftl_read_sector = nb_read_sector,
  .read_oob = nb_read_oob,
  .program = nb_program,
  .erase = nb_erase,
  .sync = rb_sync,
  .sys_read = rb_sys_none,
  .sys_write = rb_sys_write_none,
  .close = rb_close,
};

int
nand_backend_ram_create (const struct nand_geometry *g,
                         struct nand_backend **out, ftl_error *err)
{
  struct ram_backend *rb = calloc (1, sizeof *rb);
  if (!rb)
    return ftl_fail (err, -ENOMEM, "out of memory");
  rb->be.ops = &ram_ops;
  rb->be.geo = g;
  rb->data_len = g->total_pages * g->page_size;
  rb->oob_len = g->total_pages * g->oob_size;
  /* anonymous mappings: untouched pages cost nothing */
  rb->data = mmap (NULL, rb->data_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  rb->oob = mmap (NULL, rb->oob_len, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (rb->data == MAP_FAILED || rb->oob == MAP_FAILED)
    {
      if (rb->data == MAP_FAILED)
        rb->data = NULL;
      if (rb->oob == MAP_FAILED)
        rb->oob = NULL;
      rb_close (&rb->be);
      return ftl_fail (err, -ENOMEM, "cannot map %zu bytes for the RAM "
                       "backend", rb->data_len);
    }
  *out = &rb->be;
  return 0;
}

int
nand_backend_none_create (const struct nand_geometry *g,
                          struct nand_backend **out, ftl_error *err)
{
  struct ram_backend *rb = calloc (1, sizeof *rb);
  if (!rb)
    return ftl_fail (err, -ENOMEM, "out of memory");
  rb->be.ops = &none_ops;
  rb->be.geo = g;
  *out = &rb->be;
  return 0;
}
