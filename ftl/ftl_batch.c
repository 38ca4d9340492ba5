/* ftl_batch.c - ftl_apply_batch: all ops or none.
 *
 * For readers: the whole batch runs under the FTL lock after a validation
 * pass (existence, partitions, expected versions, space), so the apply
 * pass cannot fail except on I/O errors.
 * Across crashes: every sector and meta record of the batch carries the
 * batch id; after the last op every write buffer is programmed and then a
 * COMMIT record; recovery skips batch items without a COMMIT.  GC is held
 * off during the batch (enough free blocks are reserved up front) so no
 * uncommitted sector is copied under a different batch tag.
 */
#include "ftl_internal.h"

struct sim_obj
{
  uint64_t pid, oid;
  bool exists;
  bool changed;
  uint64_t version;
};

static struct sim_obj *
sim_get (struct ftl *f, struct sim_obj *sim, size_t *nsim, uint64_t pid,
         uint64_t oid)
{
  for (size_t i = 0; i < *nsim; i++)
    if (sim[i].pid == pid && sim[i].oid == oid)
      return &sim[i];
  struct sim_obj *s = &sim[(*nsim)++];
  struct ftl_object *o = ftl_index_lookup (f, pid, oid);
  s->pid = pid;
  s->oid = oid;
  s->exists = o != NULL;
  s->changed = false;
  s->version = o ? o->version : 0;
  return s;
}

/* Validation also counts space: *new_sectors is how many sectors the
 * batch may newly map (checked against the capacity), *prog_sectors how
 * many it may program (for the free blocks it needs).  A write to an
 * object that existed before the batch and no earlier op touched maps
 * only its unmapped sectors, and SET LENGTH and PUNCH map none (they
 * rewrite mapped edge sectors at most), so removing a file or updating
 * its metadata works on a full drive (DESIGN.md "Faults"). */
static int
validate (struct ftl *f, const struct ftl_op *ops, size_t n, size_t *bad,
          uint64_t *new_sectors, uint64_t *prog_sectors, ftl_error *err)
{
  struct sim_obj *sim = calloc (n ? n : 1, sizeof *sim);
  size_t nsim = 0;
  int r = 0;
  *new_sectors = 0;
  *prog_sectors = 0;
  if (!sim)
    return ftl_fail (err, -ENOMEM, "out of memory");
  for (size_t i = 0; i < n && r == 0; i++)
    {
      const struct ftl_op *op = &ops[i];
      *bad = i;
      if (!ftl_part_exists (f, op->pid))
        {
          r = ftl_fail (err, -ENOENT, "op %zu: partition %llu does not exist",
                        i, (unsigned long long) op->pid);
          break;
        }
      struct sim_obj *s = sim_get (f, sim, &nsim, op->pid, op->oid);
      if (op->kind == FTL_OP_CREATE_OBJECT)
        {
          if (s->exists)
            r = ftl_fail (err, -EEXIST, "op %zu: object %llu:%llu exists", i,
                          (unsigned long long) op->pid,
                          (unsigned long long) op->oid);
          s->exists = true;
          s->changed = true;
          continue;
        }
      if (op->kind == FTL_OP_ENSURE_OBJECT)
        {
          if (!s->exists)
            s->exists = s->changed = true;
          continue;
        }
      if (!s->exists)
        {
          r = ftl_fail (err, -ENOENT, "op %zu: object %llu:%llu does not "
                        "exist", i, (unsigned long long) op->pid,
                        (unsigned long long) op->oid);
          break;
        }
      if (op->expect_version && (s->changed || s->version != op->expect_version))
        {
          r = ftl_fail (err, -ESTALE, "op %zu: object %llu:%llu version is "
                        "not %llu", i, (unsigned long long) op->pid,
                        (unsigned long long) op->oid,
                        (unsigned long long) op->expect_version);
          break;
        }
      switch (op->kind)
        {
        case FTL_OP_REMOVE_OBJECT:
          s->exists = false;
          break;
        case FTL_OP_WRITE:
          if (op->len && !op->data)
            r = ftl_fail (err, -EINVAL, "op %zu: write without data", i);
          else if (op->off + op->len < op->off
                   || ((op->off + op->len) >> FTL_SECTOR_SHIFT) >= 0xfffffff0ull)
            r = ftl_fail (err, -EFBIG, "op %zu: write beyond the maximum "
                          "object size", i);
          else if (op->len)
            {
              uint64_t first = op->off >> FTL_SECTOR_SHIFT;
              uint64_t end = ((op->off + op->len - 1) >> FTL_SECTOR_SHIFT) + 1;
              struct ftl_object *o = s->changed ? NULL
                : ftl_index_lookup (f, op->pid, op->oid);
              *prog_sectors += end - first;
              *new_sectors += o ? ftl_count_unmapped (f, o, first, end)
                : end - first;
            }
          break;
        case FTL_OP_PUNCH:
          *prog_sectors += 2;   /* partial edges are rewritten */
          break;
        case FTL_OP_SET_LENGTH:
          if ((op->len >> FTL_SECTOR_SHIFT) >= 0xfffffff0ull)
            r = ftl_fail (err, -EFBIG, "op %zu: length too large", i);
          *prog_sectors += 1;   /* a shrink rewrites its last sector */
          break;
        case FTL_OP_SET_ATTR:
          if (op->len > FTL_ATTR_MAX_LEN || (op->len && !op->data))
            r = ftl_fail (err, -EINVAL, "op %zu: attribute value of %llu "
                          "bytes is invalid", i,
                          (unsigned long long) op->len);
          break;
        default:
          r = ftl_fail (err, -EINVAL, "op %zu: unknown kind %d", i,
                        (int) op->kind);
        }
      s->changed = true;
    }
  free (sim);
  return r;
}

int
ftl_apply_batch (ftl_t *f, const struct ftl_op *ops, size_t n,
                 size_t *failed_index, ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  size_t bad = 0;
  uint64_t new_sectors, prog_sectors;
  if (!ops && n)
    return ftl_fail (err, -EINVAL, "batch of %zu ops without ops", n);
  pthread_mutex_lock (&f->lock);
  int r = validate (f, ops, n, &bad, &new_sectors, &prog_sectors, err);
  if (r == 0 && f->used_sectors + new_sectors > f->capacity_sectors)
    r = ftl_fail (err, -ENOSPC, "drive full: batch needs up to %llu new "
                  "sectors", (unsigned long long) new_sectors);
  if (r == 0)
    {
      /* free blocks for everything the batch may program, GC now */
      uint64_t pages = (prog_sectors + g->spp - 1) / g->spp + n + 2
        + f->nstreams;
      uint32_t need = (uint32_t) ((pages + g->pages_per_block - 1)
                                  / g->pages_per_block) + f->gc_low + 2;
      if (f->free_blocks < need)
        ftl_gc_collect (f, UINT32_MAX, need, 0);
      if (f->free_blocks < need)
        ftl_gc_erase_pending_all (f);
      if (f->free_blocks < need)
        r = ftl_fail (err, -ENOSPC, "batch needs %u free blocks, only %u "
                      "can be made free", need, f->free_blocks);
      bad = 0;
    }
  if (r < 0)
    {
      if (failed_index)
        *failed_index = bad;
      pthread_mutex_unlock (&f->lock);
      return r;
    }
  ftl_pace_call_begin (f, FTL_PRIORITY_DEFAULT);
  f->op_done = f->now;
  f->in_batch = true;
  f->cur_batch = next_seq (f);
  for (size_t i = 0; i < n && r == 0; i++)
    {
      const struct ftl_op *op = &ops[i];
      struct ftl_object *o = ftl_index_lookup (f, op->pid, op->oid);
      bad = i;
      switch (op->kind)
        {
        case FTL_OP_CREATE_OBJECT:
          r = ftl_op_create (f, op->pid, op->oid, true, NULL, err);
          break;
        case FTL_OP_ENSURE_OBJECT:
          if (!o)
            r = ftl_op_create (f, op->pid, op->oid, true, NULL, err);
          break;
        case FTL_OP_REMOVE_OBJECT:
          r = ftl_op_remove (f, o, true, err);
          break;
        case FTL_OP_WRITE:
          r = ftl_op_write (f, o, op->off, op->data, (size_t) op->len, err);
          break;
        case FTL_OP_PUNCH:
          r = ftl_op_punch (f, o, op->off, op->len, true, err);
          break;
        case FTL_OP_SET_LENGTH:
          r = ftl_op_set_length (f, o, op->len, true, err);
          break;
        case FTL_OP_SET_ATTR:
          r = ftl_op_set_attr (f, o, op->attr_page, op->attr_number, op->data,
                           (uint32_t) op->len, true, err);
          break;
        }
    }
  if (r == 0)
    r = ftl_streams_flush_all (f);
  if (r == 0)
    r = ftl_log_append (f, META_COMMIT, 0, 0, 0, 0, NULL, 0, NULL);
  if (r == 0)
    r = ftl_log_flush (f);
  f->in_batch = false;
  if (r == 0)
    r = ftl_streams_flush_all (f);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  if (f->op_done > f->now)
    f->now = f->op_done;
  if (r < 0 && failed_index)
    *failed_index = bad;
  uint64_t ticket = ftl_pace_call_end (f);
  pthread_mutex_unlock (&f->lock);
  ftl_pace_wait_ticket (f, ticket);
  return r;
}
