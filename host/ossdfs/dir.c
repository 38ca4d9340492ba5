/* dir.c - the directory format and its in-memory index.
 *
 * A directory is an object made of 256-byte slots, so that an entry is
 * added, removed or renamed by rewriting one slot (one small WRITE inside
 * the namespace COMPOUND) and readdir offsets stay stable while entries
 * come and go (PostgreSQL removes files while it reads a directory):
 *
 *   slot 0 (header): 0 "OSSDDIR1"  8 u64 own OID  16 u64 parent OID
 *                    24 u32 slot size (256)  28 u32 version (1), rest 0
 *   slot i >= 1:     0 u64 OID (0 = free)  8 u32 FNV-1a hash of the name
 *                    12 u8 type (DT_*)  13 u8 name length (1..240)
 *                    14 u16 0  16 name bytes (no NUL), rest 0
 *
 * All little-endian.  The object's length is 256 * (slots in use + 1,
 * rounded to the highest slot ever used); freed slots are reused.  A
 * tablespace directory of 10 000 files is 2.5 MB, read once with one
 * pipelined READ when the directory is first used; in memory a hash
 * table maps names to entries and a stack keeps free slots.  readdir
 * offset of slot i is i + 2 ("." and ".." are 1 and 2). */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "ossdfs.h"

#define DIR_MAGIC "OSSDDIR1"
#define DIR_VERSION 1

static uint32_t
name_hash (const char *s, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (uint8_t) s[i]) * 16777619u;
  return h;
}

uint8_t
dir_type (uint32_t mode)
{
  return (uint8_t) IFTODT (mode);
}

void
dir_encode_header (uint8_t out[DIR_SLOT], uint64_t self, uint64_t parent)
{
  uint64_t v;
  uint32_t w;

  memset (out, 0, DIR_SLOT);
  memcpy (out, DIR_MAGIC, 8);
  v = htole64 (self);
  memcpy (out + 8, &v, 8);
  v = htole64 (parent);
  memcpy (out + 16, &v, 8);
  w = htole32 (DIR_SLOT);
  memcpy (out + 24, &w, 4);
  w = htole32 (DIR_VERSION);
  memcpy (out + 28, &w, 4);
}

void
dir_encode_slot (uint8_t out[DIR_SLOT], const char *name, uint64_t oid,
                 uint8_t type)
{
  size_t n = name ? strlen (name) : 0;
  uint64_t v = htole64 (oid);
  uint32_t h = htole32 (name_hash (name ? name : "", n));

  memset (out, 0, DIR_SLOT);
  if (!oid)
    return;
  memcpy (out, &v, 8);
  memcpy (out + 8, &h, 4);
  out[12] = type;
  out[13] = (uint8_t) n;
  memcpy (out + 16, name, n);
}

void
dir_free (struct dir *d)
{
  if (!d)
    return;
  for (uint32_t i = 0; i < d->nslots; i++)
    free (d->slots[i]);
  free (d->slots);
  free (d->buckets);
  free (d->freeslots);
  free (d);
}

static int
rehash (struct dir *d, uint32_t nb)
{
  struct dentry **nbk = calloc (nb, sizeof *nbk);

  if (!nbk)
    return -ENOMEM;
  for (uint32_t i = 0; i < d->nslots; i++)
    {
      struct dentry *e = d->slots[i];
      if (e)
        {
          e->hnext = nbk[e->hash & (nb - 1)];
          nbk[e->hash & (nb - 1)] = e;
        }
    }
  free (d->buckets);
  d->buckets = nbk;
  d->nbuckets = nb;
  return 0;
}

static int
grow_slots (struct dir *d, uint32_t need)
{
  if (need <= d->capslots)
    return 0;
  uint32_t cap = d->capslots ? d->capslots : 64;
  while (cap < need)
    cap *= 2;
  struct dentry **s = realloc (d->slots, cap * sizeof *s);
  if (!s)
    return -ENOMEM;
  memset (s + d->capslots, 0, (cap - d->capslots) * sizeof *s);
  d->slots = s;
  d->capslots = cap;
  return 0;
}

static int
push_free (struct dir *d, uint32_t slot)
{
  if (d->nfree == d->capfree)
    {
      uint32_t cap = d->capfree ? d->capfree * 2 : 64;
      uint32_t *f = realloc (d->freeslots, cap * sizeof *f);
      if (!f)
        return -ENOMEM;
      d->freeslots = f;
      d->capfree = cap;
    }
  d->freeslots[d->nfree++] = slot;
  return 0;
}

struct dentry *
dir_find (const struct dir *d, const char *name)
{
  size_t n = strlen (name);
  uint32_t h = name_hash (name, n);

  for (struct dentry *e = d->buckets[h & (d->nbuckets - 1)]; e; e = e->hnext)
    if (e->hash == h && e->namelen == n && memcmp (e->name, name, n) == 0)
      return e;
  return NULL;
}

uint32_t
dir_next_slot (const struct dir *d)
{
  return d->nfree ? d->freeslots[d->nfree - 1] : d->nslots;
}

int
dir_insert (struct dir *d, uint32_t slot, const char *name, uint64_t oid,
            uint8_t type)
{
  size_t n = strlen (name);
  struct dentry *e;
  int r;

  if (n == 0 || n > OSSDFS_NAME_MAX || slot == 0)
    return -EINVAL;
  if ((r = grow_slots (d, slot + 1)) < 0)
    return r;
  if (d->count + 1 > d->nbuckets && (r = rehash (d, d->nbuckets * 2)) < 0)
    return r;
  e = malloc (sizeof *e + n + 1);
  if (!e)
    return -ENOMEM;
  e->oid = oid;
  e->slot = slot;
  e->hash = name_hash (name, n);
  e->type = type;
  e->namelen = (uint8_t) n;
  memcpy (e->name, name, n + 1);
  if (d->slots[slot])         /* replacing an entry in place (rename) */
    dir_erase (d, d->slots[slot]), d->nfree--;
  /* take `slot` off the free stack (it is usually the top) */
  for (uint32_t i = d->nfree; i-- > 0;)
    if (d->freeslots[i] == slot)
      {
        d->freeslots[i] = d->freeslots[--d->nfree];
        break;
      }
  for (uint32_t i = d->nslots; i < slot; i++)
    push_free (d, i);         /* a gap (never happens in practice) */
  if (slot >= d->nslots)
    d->nslots = slot + 1;
  d->slots[slot] = e;
  e->hnext = d->buckets[e->hash & (d->nbuckets - 1)];
  d->buckets[e->hash & (d->nbuckets - 1)] = e;
  d->count++;
  return 0;
}

void
dir_erase (struct dir *d, struct dentry *e)
{
  struct dentry **pp;

  for (pp = &d->buckets[e->hash & (d->nbuckets - 1)]; *pp; pp = &(*pp)->hnext)
    if (*pp == e)
      {
        *pp = e->hnext;
        break;
      }
  d->slots[e->slot] = NULL;
  d->count--;
  push_free (d, e->slot);
  free (e);
}

static int
dir_parse (struct fs *fs, uint64_t oid, struct dir *d, const uint8_t *buf,
           size_t len)
{
  uint64_t v;
  uint32_t nslots = (uint32_t) (len / DIR_SLOT);
  int r;

  if (len < DIR_SLOT || memcmp (buf, DIR_MAGIC, 8) != 0)
    {
      fs_log (fs, "object (pid %llu, oid %llu) is not a directory (bad header)",
              (unsigned long long) fs->pid, (unsigned long long) oid);
      return -EIO;
    }
  memcpy (&v, buf + 16, 8);
  d->parent = le64toh (v);
  if ((r = grow_slots (d, nslots)) < 0)
    return r;
  d->nslots = 1;
  for (uint32_t i = 1; i < nslots; i++)
    {
      const uint8_t *s = buf + (size_t) i * DIR_SLOT;
      char name[OSSDFS_NAME_MAX + 1];
      uint8_t n = s[13];

      memcpy (&v, s, 8);
      v = le64toh (v);
      if (v == 0 || n == 0 || n > OSSDFS_NAME_MAX)
        {
          if (v)
            fs_log (fs, "directory (pid %llu, oid %llu) slot %u: bad name length %u, ignored",
                    (unsigned long long) fs->pid, (unsigned long long) oid, i, n);
          d->nslots = i + 1;
          push_free (d, i);
          continue;
        }
      memcpy (name, s + 16, n);
      name[n] = 0;
      if ((r = dir_insert (d, i, name, v, s[12])) < 0)
        return r;
    }
  d->nslots = nslots;
  return 0;
}

int
dir_load (struct fs *fs, struct inode *ip)
{
  struct dir *d;
  uint8_t *buf;
  ossd_error err = { 0 };
  size_t got = 0;
  int r;

  if (ip->dir)
    return 0;
  if (!S_ISDIR (ip->d.mode))
    return -ENOTDIR;
  d = calloc (1, sizeof *d);
  buf = malloc (ip->size ? ip->size : 1);
  if (!d || !buf || rehash (d, 64) < 0)
    {
      free (buf);
      dir_free (d);
      return -ENOMEM;
    }
  r = ossd_read (fs_meta (fs), fs->pid, ip->oid, 0, buf, ip->size, &got, &err);
  if (r < 0)
    r = fs_fail (fs, r, &err, "READ (directory)", ip->oid);
  else
    r = dir_parse (fs, ip->oid, d, buf, got);
  free (buf);
  if (r < 0)
    {
      dir_free (d);
      return r;
    }
  /* Free slots are popped from the top: put the lowest on top. */
  for (uint32_t i = 0, j = d->nfree; i < j / 2; i++)
    {
      uint32_t t = d->freeslots[i];
      d->freeslots[i] = d->freeslots[j - 1 - i];
      d->freeslots[j - 1 - i] = t;
    }
  ip->dir = d;
  return 0;
}

struct dir *
dir_new (uint64_t parent)
{
  struct dir *d = calloc (1, sizeof *d);

  if (!d || rehash (d, 64) < 0 || grow_slots (d, 1) < 0)
    {
      dir_free (d);
      return NULL;
    }
  d->parent = parent;
  d->nslots = 1;
  return d;
}
