/* ftl_owner_record.c - the owner's record (ossd_ftl.h): opaque bytes the
 * drive keeps in the image's system area (its access profile and queued
 * relocations, docs/sofs.md), in two alternating slots of
 * lay.owner_slot_size between the mounted flag and the OOB area.  A slot
 * is a 4 KiB header (magic, generation, length, CRC of the body, CRC of
 * the header) and the body after it.  A save writes the body into the
 * slot not holding the newest record, syncs, then writes the header and
 * syncs again, so a crash at any point leaves the newest complete record
 * readable in one slot; no data page, checkpoint or log record is ever
 * written here, so a torn record costs the record and nothing else. */
#include "ftl_internal.h"

#define OWNER_MAGIC 0x3143524e574f5353ull   /* "SSOWNRC1" */

struct owner_header
{
  uint64_t magic;
  uint64_t gen;
  uint64_t len;
  uint32_t body_crc;
  uint32_t crc;
};

static bool
header_ok (const struct owner_header *h, uint64_t slot_size)
{
  return h->magic == OWNER_MAGIC && h->len + 4096 <= slot_size
    && h->crc == ftl_crc32c (0, h, offsetof (struct owner_header, crc));
}

static int
read_headers (struct ftl *f, struct owner_header h[2])
{
  for (int i = 0; i < 2; i++)
    {
      int r = f->nand.be->ops->sys_read (f->nand.be, f->lay.owner_off[i], &h[i],
                                         sizeof h[i]);
      if (r < 0)
        return r;
    }
  return 0;
}

int
ftl_owner_record_save (ftl_t *f, const void *buf, size_t len, ftl_error *err)
{
  if (!f->nand.be->ops->persistent)
    return ftl_fail (err, -ENOTSUP, "the owner's record needs a file image");
  if (len > FTL_OWNER_RECORD_MAX)
    return ftl_fail (err, -E2BIG, "an owner's record of %zu bytes (at most %u)",
                     len, FTL_OWNER_RECORD_MAX);
  pthread_mutex_lock (&f->lock);
  struct owner_header h[2];
  int r = read_headers (f, h);
  uint64_t newest = 0;
  int slot = 0;
  for (int i = 0; r == 0 && i < 2; i++)
    if (header_ok (&h[i], f->lay.owner_slot_size) && h[i].gen >= newest)
      {
        newest = h[i].gen;
        slot = 1 - i;   /* the other one: the newest record stays intact */
      }
  struct owner_header nh = { OWNER_MAGIC, newest + 1, len,
                             ftl_crc32c (0, buf, len), 0 };
  nh.crc = ftl_crc32c (0, &nh, offsetof (struct owner_header, crc));
  uint64_t base = f->lay.owner_off[slot];
  if (r == 0 && len)
    r = f->nand.be->ops->sys_write (f->nand.be, base + 4096, buf, len);
  if (r == 0)
    r = f->nand.be->ops->sync (f->nand.be);
  if (r == 0)
    r = f->nand.be->ops->sys_write (f->nand.be, base, &nh, sizeof nh);
  if (r == 0)
    r = f->nand.be->ops->sync (f->nand.be);
  pthread_mutex_unlock (&f->lock);
  if (r < 0)
    return ftl_fail (err, r, "writing the owner's record failed: %s",
                     strerror (-r));
  return 0;
}

/* Slot i's body into a malloc'd buffer if it matches its header's CRC. */
static uint8_t *
body_if_intact (struct ftl *f, const struct owner_header *h, int i, int *r)
{
  uint8_t *b = malloc (h->len ? h->len : 1);
  *r = b ? 0 : -ENOMEM;
  if (!b)
    return NULL;
  *r = f->nand.be->ops->sys_read (f->nand.be, f->lay.owner_off[i] + 4096, b,
                                  h->len);
  if (*r == 0 && ftl_crc32c (0, b, h->len) == h->body_crc)
    return b;
  free (b);
  return NULL;
}

int
ftl_owner_record_load (ftl_t *f, void **out, size_t *len,
                       struct ftl_owner_record_info *info, ftl_error *err)
{
  *out = NULL;
  *len = 0;
  memset (info, 0, sizeof *info);
  if (!f->nand.be->ops->persistent)
    return ftl_fail (err, -ENOTSUP, "the owner's record needs a file image");
  pthread_mutex_lock (&f->lock);
  struct owner_header h[2];
  int r = read_headers (f, h);
  if (r < 0)
    {
      pthread_mutex_unlock (&f->lock);
      return ftl_fail (err, r, "reading the owner's record failed: %s",
                       strerror (-r));
    }
  uint8_t *body[2] = { NULL, NULL };
  bool written[2], intact[2];
  for (int i = 0; i < 2; i++)
    {
      int e = 0;
      written[i] = h[i].magic == OWNER_MAGIC;
      if (header_ok (&h[i], f->lay.owner_slot_size))
        body[i] = body_if_intact (f, &h[i], i, &e);
      intact[i] = body[i] != NULL;
      if (e == -ENOMEM)
        r = e;
    }
  pthread_mutex_unlock (&f->lock);
  /* the newest intact slot; saves always go to the other slot, so a slot
   * written but not intact is a later save a crash tore */
  int best = intact[1] && (!intact[0] || h[1].gen > h[0].gen) ? 1
    : intact[0] ? 0 : -1;
  if (best >= 0)
    {
      info->generation = h[best].gen;
      info->newest_lost = written[1 - best] && !intact[1 - best];
      *out = body[best];
      *len = h[best].len;
      free (body[1 - best]);
      if (*len == 0)
        {
          free (*out);
          *out = NULL;
          return ftl_fail (err, -ENOENT, "the owner's record is empty");
        }
      return 0;
    }
  if (r == -ENOMEM)
    return ftl_fail (err, r, "out of memory reading the owner's record");
  if (written[0] || written[1])
    return ftl_fail (err, -EBADMSG, "the owner's record is lost: no slot holds "
                     "an intact one (a save torn by a crash)");
  return ftl_fail (err, -ENOENT, "no owner's record was saved");
}
