/* batch.c - builds the COMPOUNDs through which ossdfs changes the
 * namespace atomically (create, unlink, rename, link...), and runs them.
 * A batch lives on the stack; small values are copied into it.
 *
 * RAID-5 arrays keep the metadata twice: each batch runs on drive 0, then
 * the same on drive 1 (its copy), but for the lengths of drive 0's own
 * share of striped files (batch_set_share_length) and with creates that
 * accept an existing object (drive 1 holds the file's data object from
 * before: stripe_create_data).  With drive 0 out, batches run on drive 1
 * alone; drive 1 failing or disagreeing takes it out (parity.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossdfs.h"

void
batch_init (struct batch *b)
{
  b->n = 0;
}

static Ossd__ObjectId *
next_op (struct batch *b, uint64_t pid, uint64_t oid, Ossd__CompoundOp **op)
{
  size_t i = b->n++;

  if (i >= BATCH_MAX)
    abort ();
  ossd__compound_op__init (&b->op[i]);
  ossd__object_id__init (&b->id[i]);
  b->id[i].pid = pid;
  b->id[i].oid = oid;
  b->opp[i] = &b->op[i];
  b->share[i] = false;
  *op = &b->op[i];
  return &b->id[i];
}

void
batch_create (struct batch *b, uint64_t pid, uint64_t oid)
{
  Ossd__CompoundOp *op;
  Ossd__ObjectId *id = next_op (b, pid, oid, &op);
  Ossd__Create *c = &b->body[b->n - 1].create;

  ossd__create__init (c);
  c->obj = id;
  c->exclusive = true;
  op->op_case = OSSD__COMPOUND_OP__OP_CREATE;
  op->create = c;
}

void
batch_remove (struct batch *b, uint64_t pid, uint64_t oid)
{
  Ossd__CompoundOp *op;
  Ossd__ObjectId *id = next_op (b, pid, oid, &op);
  Ossd__Remove *c = &b->body[b->n - 1].remove;

  ossd__remove__init (c);
  c->obj = id;
  op->op_case = OSSD__COMPOUND_OP__OP_REMOVE;
  op->remove = c;
}

void
batch_write (struct batch *b, uint64_t pid, uint64_t oid, uint64_t off,
             const void *data, size_t len)
{
  Ossd__CompoundOp *op;
  Ossd__ObjectId *id = next_op (b, pid, oid, &op);
  size_t i = b->n - 1;
  Ossd__Write *w = &b->body[i].write;

  ossd__write__init (w);
  w->obj = id;
  w->offset = off;
  if (len <= BATCH_SCRATCH)
    {
      memcpy (b->scratch[i], data, len);
      data = b->scratch[i];
    }
  w->data.data = (uint8_t *) data;
  w->data.len = len;
  op->op_case = OSSD__COMPOUND_OP__OP_WRITE;
  op->write = w;
}

void
batch_set_length (struct batch *b, uint64_t pid, uint64_t oid, uint64_t len)
{
  Ossd__CompoundOp *op;
  Ossd__ObjectId *id = next_op (b, pid, oid, &op);
  Ossd__SetLength *s = &b->body[b->n - 1].set_length;

  ossd__set_length__init (s);
  s->obj = id;
  s->length = len;
  op->op_case = OSSD__COMPOUND_OP__OP_SET_LENGTH;
  op->set_length = s;
}

void
batch_set_share_length (struct batch *b, uint64_t pid, uint64_t oid,
                        uint64_t len)
{
  batch_set_length (b, pid, oid, len);
  b->share[b->n - 1] = true;
}

void
batch_set_attr (struct batch *b, uint64_t pid, uint64_t oid, uint32_t page,
                uint32_t number, const void *val, size_t len)
{
  Ossd__CompoundOp *op;
  Ossd__ObjectId *id = next_op (b, pid, oid, &op);
  size_t i = b->n - 1;
  Ossd__SetAttributes *s = &b->body[i].set_attrs;

  ossd__attribute__init (&b->attr[i]);
  b->attr[i].page = page;
  b->attr[i].number = number;
  if (len <= BATCH_SCRATCH)
    {
      memcpy (b->scratch[i], val, len);
      val = b->scratch[i];
    }
  b->attr[i].value.data = (uint8_t *) val;
  b->attr[i].value.len = len;
  b->attrp[i] = &b->attr[i];
  ossd__set_attributes__init (s);
  s->obj = id;
  s->attrs = &b->attrp[i];
  s->n_attrs = 1;
  op->op_case = OSSD__COMPOUND_OP__OP_SET_ATTRIBUTES;
  op->set_attributes = s;
}

void
batch_inode (struct batch *b, struct fs *fs, uint64_t oid,
             const struct dinode *d)
{
  uint8_t buf[INODE_DISK_SIZE];

  inode_encode (d, buf);
  batch_set_attr (b, fs->pid, oid, OSSDFS_PAGE_INODE, OSSDFS_INODE_NUMBER,
                  buf, sizeof buf);
}

void
batch_size (struct batch *b, struct fs *fs, uint64_t oid, uint64_t size)
{
  uint8_t v[8];

  for (int k = 0; k < 8; k++)
    v[k] = (uint8_t) (size >> (8 * k));
  batch_set_attr (b, fs->pid, oid, OSSDFS_PAGE_INODE, OSSD_FS_SIZE_NUMBER,
                  v, sizeof v);
}

/* The batch on drive d: as built (drive 0), or as drive 1's copy of the
 * metadata takes it (copy: no share lengths, creates not exclusive). */
static int
batch_run_on (struct fs *fs, struct batch *b, uint32_t d, bool copy,
              ossd_error *err)
{
  Ossd__CompoundOp *ops[BATCH_MAX];
  uint32_t failed = 0;
  size_t n = 0;
  int r;

  for (size_t i = 0; i < b->n; i++)
    {
      if (d != 0 && b->share[i])
        continue;
      if (copy && b->op[i].op_case == OSSD__COMPOUND_OP__OP_CREATE)
        b->body[i].create.exclusive = false;
      ops[n++] = b->opp[i];
    }
  if (n == 0)
    return 0;
  r = ossd_compound (fs->drive[d].o, ops, n, &failed, err);
  fs_modified_drive (fs, d);
  return r;
}

int
batch_run (struct fs *fs, struct batch *b, const char *what, uint64_t oid)
{
  ossd_error err = { 0 };
  char cmd[96];
  uint64_t t0 = ossd_mono_ns ();
  uint64_t bytes = 0;
  uint32_t d = fs_meta_drive (fs);
  int r;

  if (b->n == 0)
    return 0;
  /* the writes may map new sectors: space.c counts them */
  for (size_t i = 0; i < b->n; i++)
    if (b->op[i].op_case == OSSD__COMPOUND_OP__OP_WRITE
        && b->op[i].write->data.len)
      {
        uint64_t off = b->op[i].write->offset;
        uint64_t end = off + b->op[i].write->data.len;
        bytes += ((end + 4095) & ~4095ull) - (off & ~4095ull);
      }
  space_batch_begin (fs, bytes);
  r = batch_run_on (fs, b, d, d != 0, &err);
  if (r < 0 && d == 0 && parity_lost (fs, 0, r, &err, "COMPOUND"))
    {
      /* drive 0 went out under it: its copy carries the change alone */
      d = 1;
      memset (&err, 0, sizeof err);
      r = batch_run_on (fs, b, d, true, &err);
    }
  else if (r == 0 && fs_meta_copy (fs, d))
    {
      ossd_error e1 = { 0 };

      snprintf (cmd, sizeof cmd, "COMPOUND for %s", what);
      parity_copy_refused (fs, batch_run_on (fs, b, 1, true, &e1), &e1, cmd);
    }
  space_batch_end (fs, bytes);
  stats_done (fs, SC_DRIVE_COMPOUND, t0);
  if (r < 0)
    {
      snprintf (cmd, sizeof cmd, "COMPOUND for %s", what);
      return fs_fail (fs, r, &err, cmd, oid);
    }
  return 0;
}
