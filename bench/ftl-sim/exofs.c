/* exofs.c - exofs-like metadata traffic for the object scenarios of
 * ftl-sim (--exofs-inode-bytes N): what the Linux exofs file system (an
 * OSD file system, fs/exofs, the host side of the OSSD slides,
 * references/000) sends besides file data.
 *   mkfs    the super-block object (0x10000) and the root directory object
 *           (0x10002): a 4 KiB super block, an empty directory page, the
 *           root inode
 *   create  OSD CREATE of the file object, its inode (SET ATTRIBUTE), the
 *           directory page holding the new entry rewritten, the directory
 *           inode (mtime, size), the super block (next id, file count)
 *   write   the data, then the file's inode (size, mtime): exofs marks the
 *           inode dirty on every write that moves i_size and writes it
 *           back with one SET ATTRIBUTE; here every write request is
 *           followed by it (the write-through bound of that traffic)
 *   unlink  the directory page without the entry, the directory inode, the
 *           super block, OSD REMOVE of the object
 * An inode is struct exofs_fcb in the attribute (EXOFS_APAGE_FS_DATA,
 * EXOFS_ATTR_INODE_DATA), ~60 bytes: the FTL logs it as a small meta
 * record.  N is what the drive stores per inode update: 60 is exofs's own
 * attribute; 16384 models the OSSD of the slides, whose object descriptor
 * (one 16 KiB page: header, block table, attributes) is rewritten on each
 * attribute update (values above 4 KiB, the FTL's attribute limit, are
 * written as several 4 KiB attributes of the same page).
 * With N = 0 the calls are plain create / write / remove. */
#include "sim.h"

#define EXOFS_SUPER_OID 0x10000ull
#define EXOFS_ROOT_OID 0x10002ull
#define EXOFS_APAGE_FS_DATA (0x10000u + 3)   /* OSD_APAGE_APP_DEFINED_FIRST + 3 */
#define EXOFS_ATTR_INODE_DATA 1u
#define EXOFS_BLOCK 4096u       /* directory page, super block */

static int
inode_update (struct sim *s, uint64_t oid)
{
  uint32_t left = s->o->exofs_inode_bytes, n = EXOFS_ATTR_INODE_DATA;
  int r = 0;
  while (left && r == 0)
    {
      uint32_t len = left < 4096 ? left : 4096;
      r = sim_set_attr (s, oid, EXOFS_APAGE_FS_DATA, n++, len);
      left -= len;
    }
  return r;
}

/* The directory page with the entries changed, its inode, the super
 * block. */
static int
namespace_change (struct sim *s)
{
  int r = sim_write (s, EXOFS_ROOT_OID, 0, EXOFS_BLOCK);
  if (r == 0)
    r = inode_update (s, EXOFS_ROOT_OID);
  if (r == 0)
    r = sim_write (s, EXOFS_SUPER_OID, 0, EXOFS_BLOCK);
  return r;
}

int
exofs_mkfs (struct sim *s)
{
  if (!s->o->exofs_inode_bytes)
    return 0;
  int r = sim_create (s, EXOFS_SUPER_OID);
  if (r == 0)
    r = sim_create (s, EXOFS_ROOT_OID);
  if (r == 0)
    r = inode_update (s, EXOFS_ROOT_OID);
  if (r == 0)
    r = namespace_change (s);
  return r;
}

int
exofs_create (struct sim *s, uint64_t oid)
{
  int r = sim_create (s, oid);
  if (r == 0 && s->o->exofs_inode_bytes)
    {
      r = inode_update (s, oid);
      if (r == 0)
        r = namespace_change (s);
    }
  return r;
}

int
exofs_write (struct sim *s, uint64_t oid, uint64_t off, uint64_t len)
{
  int r = sim_write (s, oid, off, len);
  if (r == 0 && s->o->exofs_inode_bytes)
    r = inode_update (s, oid);
  return r;
}

int
exofs_unlink (struct sim *s, uint64_t oid)
{
  int r = 0;
  if (s->o->exofs_inode_bytes)
    r = namespace_change (s);
  if (r == 0)
    r = sim_remove (s, oid);
  return r;
}
