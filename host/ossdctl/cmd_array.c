/* cmd_array.c - ossdctl array create|info|fsck: N drives as one ossdfs
 * array (docs/arrays.md).
 *
 *   array create --device URI --device URI ... [--stripe-unit BYTES]
 *                [--level raid0|raid5] [--partition PID] [--force]
 *   array info   --device URI ... [--partition PID]      (--json)
 *   array fsck   --device URI ... [--partition PID]      (--json)
 *   array rebuild --device URI ... --drive D [--partition PID]
 *
 * The drives are given in array order (drive 0 first: it holds ossdfs's
 * metadata).  Each drive's master key is the ossd.key beside its socket
 * (ossdctl device start --rundir DIR), else the default key file.
 *
 * create writes the array label (ossd_array.h) into the partition of
 * every drive; it refuses drives already labelled or whose partition
 * holds objects, unless --force (which empties the partitions first).
 * The first ossdfs mount of the drives then makes the filesystem.
 * fsck checks the labels, that every regular file of drive 0 has its
 * object on every drive and no drive holds more of it than its size
 * implies, that the data drives hold nothing else, and runs each
 * drive's own FSCK (every FTL invariant); on RAID-5, that every row's
 * parity is the XOR of its data.  rebuild (RAID-5, unmounted) writes
 * drive D's share of every file again from the other drives (a
 * replacement drive, or one that was out while the array was written),
 * then says in the array state that D is in again. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ossd_array.h"
#include "ossd_cap.h"
#include "ossd_ftl.h"
#include "ossdctl.h"

struct array_args
{
  const char *uris[OSSD_ARRAY_MAX_DRIVES];
  uint32_t n;
  uint64_t unit, pid;
  uint32_t level;
  int32_t drive;               /* rebuild --drive, -1 */
  bool force;
};

struct member
{
  ossd_t *o;
  const char *uri;
  struct ossd_array_label label;
  int label_r;                 /* 0, -ENOENT, -EINVAL... */
  char label_why[512];
};

/* Problems found, kept for the report. */
struct problems
{
  char **list;
  size_t n, cap;
};

static void
problem (struct problems *p, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
static void
problem (struct problems *p, const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;

  va_start (ap, fmt);
  if (vasprintf (&s, fmt, ap) < 0)
    s = NULL;
  va_end (ap);
  if (p->n == p->cap)
    {
      size_t cap = p->cap ? 2 * p->cap : 16;
      char **l = realloc (p->list, cap * sizeof *l);
      if (!l)
        {
          free (s);
          return;
        }
      p->list = l;
      p->cap = cap;
    }
  if (s)
    p->list[p->n++] = s;
}

static void
problems_free (struct problems *p)
{
  for (size_t i = 0; i < p->n; i++)
    free (p->list[i]);
  free (p->list);
}

static int
parse_array_args (const char *cmd, int argc, char **argv, struct array_args *a,
                  bool allow_create_flags)
{
  static const struct option longopts[] = {
    { "device", required_argument, NULL, 'd' },
    { "stripe-unit", required_argument, NULL, 'u' },
    { "partition", required_argument, NULL, 'p' },
    { "force", no_argument, NULL, 'f' },
    { "level", required_argument, NULL, 'l' },
    { "drive", required_argument, NULL, 'D' },
    { "json", no_argument, NULL, 'j' },
    { NULL, 0, NULL, 0 },
  };
  char why[200], *end;
  int opt;

  memset (a, 0, sizeof *a);
  a->unit = OSSD_ARRAY_DEFAULT_UNIT;
  a->pid = 1;
  a->drive = -1;
  optind = 1;
  while ((opt = getopt_long (argc + 1, argv - 1, "", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'd':
        if (a->n == OSSD_ARRAY_MAX_DRIVES)
          {
            fprintf (stderr, "ossdctl array %s: at most %d drives\n", cmd, OSSD_ARRAY_MAX_DRIVES);
            return -1;
          }
        if (strpbrk (optarg, ", "))
          {
            fprintf (stderr, "ossdctl array %s: --device %s: an array member's URI may not contain a comma or a space\n", cmd, optarg);
            return -1;
          }
        a->uris[a->n++] = optarg;
        break;
      case 'u':
        if (!allow_create_flags || parse_size (optarg, &a->unit) < 0
            || ossd_stripe_unit_check (a->unit, why, sizeof why) < 0)
          {
            fprintf (stderr, "ossdctl array %s: --stripe-unit %s: %s\n", cmd, optarg,
                     allow_create_flags ? "need a multiple of 8 KiB up to 1 GiB (e.g. 1M, 256K)"
                     : "only array create takes it");
            return -1;
          }
        break;
      case 'p':
        a->pid = strtoull (optarg, &end, 0);
        if (*end || a->pid == 0)
          {
            fprintf (stderr, "ossdctl array %s: --partition %s: need a number > 0\n", cmd, optarg);
            return -1;
          }
        break;
      case 'f':
        if (!allow_create_flags)
          {
            fprintf (stderr, "ossdctl array %s: only array create takes --force\n", cmd);
            return -1;
          }
        a->force = true;
        break;
      case 'l':
        if (!allow_create_flags)
          {
            fprintf (stderr, "ossdctl array %s: only array create takes --level\n", cmd);
            return -1;
          }
        if (strcmp (optarg, "raid5") == 0 || strcmp (optarg, "5") == 0)
          a->level = OSSD_ARRAY_RAID5;
        else if (strcmp (optarg, "raid0") == 0 || strcmp (optarg, "0") == 0)
          a->level = OSSD_ARRAY_RAID0;
        else
          {
            fprintf (stderr, "ossdctl array %s: --level %s: want raid0 or raid5\n", cmd, optarg);
            return -1;
          }
        break;
      case 'D':
        a->drive = (int32_t) strtol (optarg, &end, 10);
        if (*end || a->drive < 0 || strcmp (cmd, "rebuild") != 0)
          {
            fprintf (stderr, "ossdctl array %s: --drive %s: %s\n", cmd, optarg,
                     strcmp (cmd, "rebuild") ? "only array rebuild takes it"
                     : "need a drive index");
            return -1;
          }
        break;
      case 'j':
        break;                  /* main.c saw it */
      default:
        return -1;
      }
  if (optind != argc + 1)
    {
      fprintf (stderr, "ossdctl array %s: unexpected argument '%s'\n", cmd, argv[optind - 1]);
      return -1;
    }
  if (a->n == 0)
    {
      fprintf (stderr, "ossdctl array %s: name the drives with --device URI, drive 0 first\n", cmd);
      return -1;
    }
  if (allow_create_flags)
    {
      struct ossd_geometry g = { .unit = a->unit, .n = a->n, .level = a->level };
      if (ossd_geom_check (&g, why, sizeof why) < 0)
        {
          fprintf (stderr, "ossdctl array %s: %s\n", cmd, why);
          return -1;
        }
    }
  if (strcmp (cmd, "rebuild") == 0 && (a->drive < 0 || (uint32_t) a->drive >= a->n))
    {
      fprintf (stderr, "ossdctl array rebuild: --drive D: the index of the drive to rebuild, 0..%u\n",
               a->n ? a->n - 1 : 0);
      return -1;
    }
  return 0;
}

/* Connect to every member with its own key; reads the labels. */
static int
connect_members (struct ctl *c, const struct array_args *a, struct member *m,
                 bool allow_missing)
{
  char key[4096];

  for (uint32_t d = 0; d < a->n; d++)
    {
      ossd_error err = { 0 };
      struct ctl one = *c;

      m[d].uri = a->uris[d];
      one.device = a->uris[d];
      if (!c->key_file && strncmp (a->uris[d], "inproc:", 7) != 0)
        {
          ossd_key_file_for_uri (a->uris[d], key, sizeof key);
          one.key_file = access (key, R_OK) == 0 ? key : "";
        }
      if (!(m[d].o = ctl_connect (&one)))
        {
          if (!allow_missing)
            return -1;
          m[d].label_r = -ENOTCONN;
          snprintf (m[d].label_why, sizeof m[d].label_why, "unreachable");
          continue;
        }
      m[d].label_r = ossd_array_label_read (m[d].o, a->pid, &m[d].label, &err);
      snprintf (m[d].label_why, sizeof m[d].label_why, "%s", err.msg);
    }
  return 0;
}

static void
disconnect_members (struct member *m, uint32_t n)
{
  for (uint32_t d = 0; d < n; d++)
    if (m[d].o)
      ossd_disconnect (m[d].o);
}

/* The label problems of the members (none: the drives form one array in
 * the order given). */
static void
check_labels (const struct array_args *a, const struct member *m,
              struct problems *p)
{
  char u0[40], u[40];

  for (uint32_t d = 0; d < a->n; d++)
    {
      const struct ossd_array_label *l = &m[d].label;

      if (m[d].label_r == -ENOENT)
        {
          problem (p, "drive %u (%s) has no array label in partition %" PRIu64 " (ossdctl array create)",
                   d, m[d].uri, a->pid);
          continue;
        }
      if (m[d].label_r < 0)
        {
          problem (p, "drive %u (%s): array label: %s", d, m[d].uri, m[d].label_why);
          continue;
        }
      ossd_array_uuid_format (l->uuid, u);
      if (l->count != a->n)
        problem (p, "drive %u (%s) is drive %u of a %u-drive array (uuid %s), %u drives given",
                 d, m[d].uri, l->index, l->count, u, a->n);
      else if (l->index != d)
        problem (p, "drive given as number %u (%s) is drive %u of array %s: wrong order",
                 d, m[d].uri, l->index, u);
      if (d > 0 && m[0].label_r == 0)
        {
          ossd_array_uuid_format (m[0].label.uuid, u0);
          if (memcmp (l->uuid, m[0].label.uuid, 16) != 0)
            problem (p, "drive %u (%s) belongs to array %s, drive 0 to %s", d, m[d].uri, u, u0);
          else if (l->unit != m[0].label.unit)
            problem (p, "drive %u (%s) says stripe unit %" PRIu64 ", drive 0 %" PRIu64,
                     d, m[d].uri, l->unit, m[0].label.unit);
          else if (l->level != m[0].label.level)
            problem (p, "drive %u (%s) says %s, drive 0 %s", d, m[d].uri,
                     ossd_array_level_name (l->level),
                     ossd_array_level_name (m[0].label.level));
        }
    }
}

/* Every OID of the partition after `after`, ascending. */
static int
list_all (ossd_t *o, uint64_t pid, uint64_t after, uint64_t **out, size_t *n,
          ossd_error *err)
{
  uint64_t *ids = NULL;
  size_t cnt = 0, cap = 0;
  bool more = true;

  while (more)
    {
      size_t got = 0;
      int r;

      if (cap - cnt < 1024)
        {
          uint64_t *q = realloc (ids, (cap + 4096) * sizeof *ids);
          if (!q)
            {
              free (ids);
              return -ENOMEM;
            }
          ids = q;
          cap += 4096;
        }
      r = ossd_list (o, pid, after, ids + cnt, 1024, &got, &more, err);
      if (r < 0)
        {
          free (ids);
          return r;
        }
      if (got == 0)
        break;
      cnt += got;
      after = ids[cnt - 1];
    }
  *out = ids;
  *n = cnt;
  return 0;
}

/* ---- create -------------------------------------------------------------- */

static int
array_create (struct ctl *c, const struct array_args *a)
{
  struct member m[OSSD_ARRAY_MAX_DRIVES] = { 0 };
  struct ossd_array_label l = { 0 };
  struct timespec now;
  char u[40];
  int rc = 1;

  if (connect_members (c, a, m, false) < 0)
    goto out;
  for (uint32_t d = 0; d < a->n; d++)
    {
      ossd_error err = { 0 };
      uint64_t *ids = NULL;
      size_t n = 0;
      int r = ossd_create_partition (m[d].o, a->pid, &err);

      if (r < 0 && r != -EEXIST)
        {
          fprintf (stderr, "ossdctl: array create: drive %u (%s): %s\n", d, m[d].uri, err.msg);
          goto out;
        }
      if (m[d].label_r == 0 && !a->force)
        {
          ossd_array_uuid_format (m[d].label.uuid, u);
          fprintf (stderr, "ossdctl: array create: drive %u (%s) is already drive %u of a %u-drive array (uuid %s); --force makes a new array (its files are lost)\n",
                   d, m[d].uri, m[d].label.index, m[d].label.count, u);
          goto out;
        }
      if ((r = list_all (m[d].o, a->pid, 0, &ids, &n, &err)) < 0)
        {
          fprintf (stderr, "ossdctl: array create: drive %u (%s): LIST: %s\n", d, m[d].uri, err.msg);
          goto out;
        }
      if (n && !a->force)
        {
          fprintf (stderr, "ossdctl: array create: partition %" PRIu64 " of drive %u (%s) holds %zu objects (a filesystem?); --force empties it\n",
                   a->pid, d, m[d].uri, n);
          free (ids);
          goto out;
        }
      for (size_t i = 0; i < n; i++)
        if ((r = ossd_remove (m[d].o, a->pid, ids[i], &err)) < 0 && r != -ENOENT)
          {
            fprintf (stderr, "ossdctl: array create: drive %u (%s): REMOVE %" PRIu64 ": %s\n",
                     d, m[d].uri, ids[i], err.msg);
            free (ids);
            goto out;
          }
      free (ids);
    }
  if (ossd_array_new_uuid (l.uuid) < 0)
    {
      fprintf (stderr, "ossdctl: array create: no random numbers for the uuid\n");
      goto out;
    }
  clock_gettime (CLOCK_REALTIME, &now);
  l.count = a->n;
  l.unit = a->unit;
  l.level = a->level;
  l.created_ns = (uint64_t) now.tv_sec * 1000000000ull + (uint64_t) now.tv_nsec;
  /* drive 0 last: a crash halfway leaves no drive 0 claiming the array */
  for (uint32_t k = a->n; k-- > 0;)
    {
      ossd_error err = { 0 };

      struct ossd_array_state st = { .epoch = 1, .stale_mask = 0 };

      l.index = k;
      if (a->level == OSSD_ARRAY_RAID5
          && ossd_array_state_write (m[k].o, a->pid, &st, &err) < 0)
        {
          fprintf (stderr, "ossdctl: array create: drive %u (%s): array state: %s\n", k, m[k].uri, err.msg);
          goto out;
        }
      if (ossd_array_label_write (m[k].o, a->pid, &l, &err) < 0
          || ossd_flush (m[k].o, &err) < 0)
        {
          fprintf (stderr, "ossdctl: array create: drive %u (%s): %s\n", k, m[k].uri, err.msg);
          goto out;
        }
    }
  ossd_array_uuid_format (l.uuid, u);
  if (c->json)
    {
      printf ("{\"uuid\": \"%s\", \"level\": \"%s\", \"drives\": %u, \"stripe_unit\": %" PRIu64 ", \"partition\": %" PRIu64 "}\n",
              u, ossd_array_level_name (a->level), a->n, a->unit, a->pid);
    }
  else
    printf ("array %s: %s, %u drives, stripe unit %" PRIu64 " bytes, partition %" PRIu64 "\n",
            u, ossd_array_level_name (a->level), a->n, a->unit, a->pid);
  rc = 0;
out:
  disconnect_members (m, a->n);
  return rc;
}

/* ---- info ---------------------------------------------------------------- */

static const char *
state_name (uint32_t level, uint64_t stale)
{
  if (level != OSSD_ARRAY_RAID5)
    return stale ? "incomplete" : "striped";
  return stale == 0 ? "clean" : __builtin_popcountll (stale) == 1
    ? "degraded" : "failed";
}

/* The newest array state among the members (RAID-5): its stale mask. */
static uint64_t
array_state (const struct array_args *a, const struct member *m,
             struct problems *p, uint64_t *epoch)
{
  struct ossd_array_state best = { 0 };

  for (uint32_t d = 0; d < a->n; d++)
    {
      struct ossd_array_state st;
      ossd_error err = { 0 };
      int r;

      if (!m[d].o)
        continue;
      r = ossd_array_state_read (m[d].o, a->pid, &st, &err);
      if (r == -ENOENT)
        problem (p, "drive %u (%s) has no array state (a RAID-5 member always has one)",
                 d, m[d].uri);
      else if (r < 0)
        problem (p, "drive %u (%s): array state: %s", d, m[d].uri, err.msg);
      else if (st.epoch > best.epoch)
        best = st;
    }
  *epoch = best.epoch;
  return best.stale_mask;
}

static int
array_info (struct ctl *c, const struct array_args *a)
{
  struct member m[OSSD_ARRAY_MAX_DRIVES] = { 0 };
  struct problems p = { 0 };
  char u[40] = "";
  uint32_t level;
  uint64_t stale = 0, epoch = 0;
  int rc = 1;

  if (connect_members (c, a, m, true) < 0)
    goto out;
  check_labels (a, m, &p);
  if (m[0].label_r == 0)
    ossd_array_uuid_format (m[0].label.uuid, u);
  level = m[0].label_r == 0 ? m[0].label.level : OSSD_ARRAY_RAID0;
  if (level == OSSD_ARRAY_RAID5)
    stale = array_state (a, m, &p, &epoch);
  for (uint32_t d = 0; d < a->n; d++)
    if (!m[d].o)
      stale |= 1ull << d;
  if (c->json)
    {
      printf ("{\"uuid\": ");
      json_string (stdout, u);
      printf (", \"level\": \"%s\", \"state\": \"%s\", \"epoch\": %" PRIu64 ", \"drives\": %u, \"stripe_unit\": %" PRIu64 ", \"partition\": %" PRIu64 ", \"members\": [",
              ossd_array_level_name (level), state_name (level, stale), epoch,
              a->n, m[0].label_r == 0 ? m[0].label.unit : 0, a->pid);
    }
  else
    printf ("array %s: %s, %u drives, stripe unit %" PRIu64 " bytes, partition %" PRIu64 ", %s\n",
            u[0] ? u : "(no label)", ossd_array_level_name (level), a->n,
            m[0].label_r == 0 ? m[0].label.unit : 0, a->pid,
            state_name (level, stale));
  for (uint32_t d = 0; d < a->n; d++)
    {
      Ossd__InfoResult *info = NULL;
      ossd_error err = { 0 };
      uint64_t *ids = NULL;
      size_t nobj = 0;
      const char *in = !m[d].o ? "unreachable"
        : stale & (1ull << d) ? "out of date" : "in";
      int r;

      if (!m[d].o)
        {
          if (c->json)
            {
              printf ("%s{\"index\": %u, \"uri\": ", d ? ", " : "", d);
              json_string (stdout, m[d].uri);
              printf (", \"state\": \"%s\"}", in);
            }
          else
            printf ("  drive %u %s: unreachable\n", d, m[d].uri);
          continue;
        }
      r = ossd_info (m[d].o, &info, &err);
      if (r < 0)
        {
          problem (&p, "drive %u (%s): INFO: %s", d, m[d].uri, err.msg);
          continue;
        }
      if (list_all (m[d].o, a->pid, 0, &ids, &nobj, &err) < 0)
        problem (&p, "drive %u (%s): LIST: %s", d, m[d].uri, err.msg);
      free (ids);
      if (c->json)
        {
          printf ("%s{\"index\": %u, \"uri\": ", d ? ", " : "", d);
          json_string (stdout, m[d].uri);
          printf (", \"label_index\": %d, \"capacity_bytes\": %" PRIu64
                  ", \"used_bytes\": %" PRIu64 ", \"free_bytes\": %" PRIu64
                  ", \"objects\": %zu, \"role\": \"%s\", \"state\": \"%s\"}",
                  m[d].label_r == 0 ? (int) m[d].label.index : -1,
                  info->capacity_bytes, info->used_bytes, info->free_bytes,
                  nobj, d == 0 ? "metadata+data" : "data", in);
        }
      else
        printf ("  drive %u %s: %s%s, used %" PRIu64 " of %" PRIu64 " bytes (%.1f%%), %zu objects\n",
                d, m[d].uri, d == 0 ? "metadata+data" : "data",
                stale & (1ull << d) ? ", OUT OF DATE (ossdctl array rebuild)" : "",
                info->used_bytes, info->capacity_bytes,
                info->capacity_bytes ? 100.0 * (double) info->used_bytes / (double) info->capacity_bytes : 0.0,
                nobj);
      ossd__info_result__free_unpacked (info, NULL);
    }
  if (c->json)
    {
      printf ("], \"problems\": [");
      for (size_t i = 0; i < p.n; i++)
        {
          printf (i ? ", " : "");
          json_string (stdout, p.list[i]);
        }
      printf ("]}\n");
    }
  else
    for (size_t i = 0; i < p.n; i++)
      printf ("  problem: %s\n", p.list[i]);
  rc = p.n ? 1 : 0;
out:
  problems_free (&p);
  disconnect_members (m, a->n);
  return rc;
}

/* ---- RAID-5: drive 1's copy of the metadata --------------------------------
 * ossdfs keeps every object of drive 0 on drive 1 too: the same
 * attributes of its own pages (inode, size, xattrs), capability version
 * and priority, and for everything but regular files (superblock,
 * directories, symlinks) the same bytes.  Labels and array state are each
 * drive's own. */

static bool
meta_attr_page (uint32_t page)
{
  return page >= OSSD_FS_PAGE_INODE || page == OSSD_CAP_ATTR_PAGE
    || page == FTL_ATTR_PAGE_HINTS;
}

static bool
meta_object (uint64_t oid)
{
  return oid != OSSD_ARRAY_LABEL_OID && oid != OSSD_ARRAY_STATE_OID;
}

/* Every attribute of object oid on o, or NULL with *r and err set. */
static Ossd__Response *
get_all_attrs (ossd_t *o, uint64_t pid, uint64_t oid, int *r, ossd_error *err)
{
  Ossd__Response *resp;

  *r = ossd_get_attrs (o, pid, oid, &resp, err);
  return resp;
}

/* Make object oid on drive `to` what drive `from` holds of the metadata:
 * its attributes and, for anything but a regular file (`regular`), its
 * bytes and length.  The object is created when missing. */
static int
copy_meta_object (const struct array_args *a, const struct member *m,
                  uint32_t from, uint32_t to, uint64_t oid, bool regular,
                  ossd_error *err)
{
  Ossd__Response *resp;
  char *buf = NULL;
  int r = ossd_create (m[to].o, a->pid, oid, err);

  if (r < 0 && r != -EEXIST)
    return r;
  if (!(resp = get_all_attrs (m[from].o, a->pid, oid, &r, err)))
    return r;
  for (size_t i = 0; r == 0 && i < resp->attributes->n_attrs; i++)
    {
      const Ossd__Attribute *at = resp->attributes->attrs[i];
      if (meta_attr_page (at->page))
        r = ossd_set_attr (m[to].o, a->pid, oid, at->page, at->number,
                           at->value.data, at->value.len, err);
    }
  if (r == 0 && !regular)
    {
      uint64_t len = resp->attributes->size;
      size_t got = 0;

      if (len && !(buf = malloc (len)))
        r = -ENOMEM;
      else if (len && (r = ossd_read (m[from].o, a->pid, oid, 0, buf, len,
                                      &got, err)) == 0)
        r = ossd_write (m[to].o, a->pid, oid, 0, buf, got, err);
      if (r == 0)
        r = ossd_set_length (m[to].o, a->pid, oid, len, err);
    }
  free (buf);
  ossd__response__free_unpacked (resp, NULL);
  return r;
}

/* fsck: drive 1's copy of object oid agrees with drive 0's (attributes of
 * the metadata pages; bytes of what is not a regular file). */
static void
check_meta_copy (const struct array_args *a, const struct member *m,
                 uint64_t oid, bool regular, struct problems *p)
{
  Ossd__Response *r0, *r1;
  ossd_error err = { 0 };
  int r;

  if (!(r0 = get_all_attrs (m[0].o, a->pid, oid, &r, &err)))
    return;                   /* drive 0's own check reports it */
  if (!(r1 = get_all_attrs (m[1].o, a->pid, oid, &r, &err)))
    {
      problem (p, "object %" PRIu64 ": missing from drive 1's copy of the metadata (%s)", oid, err.msg);
      ossd__response__free_unpacked (r0, NULL);
      return;
    }
  for (size_t i = 0; i < r0->attributes->n_attrs; i++)
    {
      const Ossd__Attribute *x = r0->attributes->attrs[i];
      bool same = false;

      if (!meta_attr_page (x->page))
        continue;
      for (size_t k = 0; k < r1->attributes->n_attrs && !same; k++)
        {
          const Ossd__Attribute *y = r1->attributes->attrs[k];
          same = y->page == x->page && y->number == x->number
            && y->value.len == x->value.len
            && memcmp (y->value.data, x->value.data, x->value.len) == 0;
        }
      if (!same)
        problem (p, "object %" PRIu64 ": attribute (0x%x, %u) differs in drive 1's copy of the metadata",
                 oid, x->page, x->number);
    }
  if (!regular)
    {
      uint64_t len = r0->attributes->size;
      char *b0 = len ? malloc (len) : NULL, *b1 = len ? malloc (len) : NULL;
      size_t g0 = 0, g1 = 0;

      if (len != r1->attributes->size)
        problem (p, "object %" PRIu64 ": %" PRIu64 " bytes on drive 0, %" PRIu64 " in drive 1's copy",
                 oid, len, r1->attributes->size);
      else if (len && b0 && b1
               && ossd_read (m[0].o, a->pid, oid, 0, b0, len, &g0, &err) == 0
               && ossd_read (m[1].o, a->pid, oid, 0, b1, len, &g1, &err) == 0
               && (g0 != g1 || memcmp (b0, b1, g0) != 0))
        problem (p, "object %" PRIu64 ": its bytes differ in drive 1's copy of the metadata", oid);
      free (b0);
      free (b1);
    }
  ossd__response__free_unpacked (r0, NULL);
  ossd__response__free_unpacked (r1, NULL);
}

/* ---- RAID-5 rows: reading every drive at once ----------------------------- */

struct range_read
{
  ossd_t *o;
  uint64_t pid, oid, off;
  size_t len;
  char *buf;
  int r;
  ossd_error err;
};

static void *
range_read_thread (void *arg)
{
  struct range_read *rr = arg;
  size_t got = 0;

  rr->r = ossd_read (rr->o, rr->pid, rr->oid, rr->off, rr->buf, rr->len, &got,
                     &rr->err);
  if (rr->r == -ENOENT)         /* no object: nothing stored (reported apart) */
    rr->r = 0;
  else if (rr->r == 0 && got < rr->len)
    memset (rr->buf + got, 0, rr->len - got);
  else if (rr->r < 0)
    got = 0;
  return NULL;
}

/* Read [off, off+len) of object oid from every drive but `skip` into
 * bufs[d], one thread per drive (a rebuild reads all survivors at once).
 * 0, or the first failure with its drive in *bad. */
static int
read_drives (const struct array_args *a, const struct member *m, uint32_t skip,
             uint64_t oid, uint64_t off, size_t len, char **bufs,
             uint32_t *bad, ossd_error *err)
{
  struct range_read rr[OSSD_ARRAY_MAX_DRIVES];
  pthread_t th[OSSD_ARRAY_MAX_DRIVES];
  bool started[OSSD_ARRAY_MAX_DRIVES] = { false };
  int r = 0;

  for (uint32_t d = 0; d < a->n; d++)
    {
      if (d == skip)
        continue;
      rr[d] = (struct range_read) { .o = m[d].o, .pid = a->pid, .oid = oid,
                                    .off = off, .len = len, .buf = bufs[d] };
      started[d] = pthread_create (&th[d], NULL, range_read_thread, &rr[d]) == 0;
      if (!started[d])
        range_read_thread (&rr[d]);
    }
  for (uint32_t d = 0; d < a->n; d++)
    {
      if (d == skip)
        continue;
      if (started[d])
        pthread_join (th[d], NULL);
      if (rr[d].r < 0 && r == 0)
        {
          r = rr[d].r;
          *bad = d;
          *err = rr[d].err;
        }
    }
  return r;
}

/* Rows read per round: about 8 MiB of each drive. */
static uint64_t
rows_per_round (uint64_t unit)
{
  return unit >= (8u << 20) ? 1 : (8u << 20) / unit;
}

static char **
drive_bufs (uint32_t n, size_t len)
{
  char **b = calloc (n, sizeof *b);

  for (uint32_t d = 0; b && d < n; d++)
    if (!(b[d] = malloc (len)))
      {
        while (d-- > 0)
          free (b[d]);
        free (b);
        return NULL;
      }
  return b;
}

static void
drive_bufs_free (char **b, uint32_t n)
{
  for (uint32_t d = 0; b && d < n; d++)
    free (b[d]);
  free (b);
}

/* fsck of one RAID-5 file: every row's units XOR to zero (the parity is
 * the XOR of the data).  Rows whose drives disagree are listed. */
static void
check_parity (const struct array_args *a, const struct member *m,
              const struct ossd_geometry *g, uint64_t oid, uint64_t size,
              char **bufs, struct problems *p, uint64_t *rows_checked)
{
  uint64_t row_bytes = g->unit * (g->n - 1);
  uint64_t rows = (size + row_bytes - 1) / row_bytes, per = rows_per_round (g->unit);

  for (uint64_t r0 = 0; r0 < rows; r0 += per)
    {
      uint64_t nr = rows - r0 < per ? rows - r0 : per;
      size_t len = (size_t) (nr * g->unit);
      ossd_error err = { 0 };
      uint32_t bad = 0;

      if (read_drives (a, m, UINT32_MAX, oid, r0 * g->unit, len, bufs, &bad,
                       &err) < 0)
        {
          problem (p, "file object %" PRIu64 ": READ of rows %" PRIu64 "..%" PRIu64 " on drive %u (%s): %s",
                   oid, r0, r0 + nr - 1, bad, m[bad].uri, err.msg);
          return;
        }
      for (uint32_t d = 1; d < a->n; d++)
        ossd_xor_into (bufs[0], bufs[d], len);
      for (uint64_t r = 0; r < nr; r++)
        {
          const char *x = bufs[0] + r * g->unit;
          for (uint64_t i = 0; i < g->unit; i++)
            if (x[i])
              {
                problem (p, "file object %" PRIu64 ": row %" PRIu64 " (drive offset %" PRIu64 "): parity on drive %u is not the XOR of the data (first difference at byte %" PRIu64 " of the unit)",
                         oid, r0 + r, (r0 + r) * g->unit,
                         ossd_geom_parity_drive (g, (r0 + r) * g->unit), i);
                break;
              }
        }
      *rows_checked += nr;
    }
}

/* ---- fsck ---------------------------------------------------------------- */

/* Mode and size (attribute, or -1) of object oid of drive 0; *is_inode
 * false when it has no ossdfs inode. */
static int
file_attrs (ossd_t *o, uint64_t pid, uint64_t oid, bool *is_inode,
            uint32_t *mode, bool *have_size, uint64_t *size, uint64_t *len,
            ossd_error *err)
{
  Ossd__Response *resp = NULL;
  int r;

  *is_inode = *have_size = false;
  r = ossd_get_attrs (o, pid, oid, &resp, err);
  if (r == 0)
    {
      *len = resp->attributes->size;
      for (size_t i = 0; i < resp->attributes->n_attrs; i++)
        {
          const Ossd__Attribute *at = resp->attributes->attrs[i];
          if (at->page != OSSD_FS_PAGE_INODE)
            continue;
          if (at->number == OSSD_FS_INODE_NUMBER && at->value.len >= 8)
            {
              *is_inode = true;
              *mode = (uint32_t) at->value.data[4] | (uint32_t) at->value.data[5] << 8
                | (uint32_t) at->value.data[6] << 16 | (uint32_t) at->value.data[7] << 24;
            }
          else if (at->number == OSSD_FS_SIZE_NUMBER && at->value.len == 8)
            {
              *size = 0;
              for (int k = 0; k < 8; k++)
                *size |= (uint64_t) at->value.data[k] << (8 * k);
              *have_size = true;
            }
        }
    }
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

static int
cmp_u64 (const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;
  return a < b ? -1 : a > b;
}

/* n as text, in a static buffer (one use per statement). */
static const char *
u64_text (uint64_t n)
{
  static char buf[24];

  snprintf (buf, sizeof buf, "%" PRIu64, n);
  return buf;
}

static int
array_fsck (struct ctl *c, const struct array_args *a)
{
  struct member m[OSSD_ARRAY_MAX_DRIVES] = { 0 };
  struct problems p = { 0 };
  uint64_t *meta = NULL, *files = NULL, drive_problems = 0, rows = 0;
  uint64_t stale = 0, epoch = 0;
  size_t nmeta = 0, nfiles = 0, short_objects = 0;
  struct ossd_geometry g;
  char **bufs = NULL;
  ossd_error err = { 0 };
  int rc = 1;

  ctl_allow_long_call (c);
  if (connect_members (c, a, m, false) < 0)
    goto out;
  check_labels (a, m, &p);
  g.unit = m[0].label_r == 0 ? m[0].label.unit : OSSD_ARRAY_DEFAULT_UNIT;
  g.n = a->n;
  g.level = m[0].label_r == 0 ? m[0].label.level : OSSD_ARRAY_RAID0;
  if (a->n > 1 && p.n)
    goto report;                /* the files' places are unknown */
  if (g.level == OSSD_ARRAY_RAID5)
    {
      stale = array_state (a, m, &p, &epoch);
      if (stale)
        problem (&p, "the array is %s: drive(s) 0x%" PRIx64 " out of date (ossdctl array rebuild --drive D); their parity and lengths not checked",
                 state_name (g.level, stale), stale);
      else if (!(bufs = drive_bufs (a->n, (size_t) (rows_per_round (g.unit) * g.unit))))
        goto out;
    }
  if (list_all (m[0].o, a->pid, OSSD_FS_FIRST_OID - 1, &meta, &nmeta, &err) < 0)
    {
      problem (&p, "drive 0 (%s): LIST: %s", m[0].uri, err.msg);
      goto report;
    }
  if (!(files = calloc (nmeta ? nmeta : 1, sizeof *files)))
    goto out;
  /* the superblock, root and orphan directories: drive 1 keeps them too */
  for (uint64_t oid = 1; bufs && oid <= 3; oid++)
    check_meta_copy (a, m, oid, false, &p);
  for (size_t i = 0; i < nmeta; i++)
    {
      bool is_inode, have_size;
      uint32_t mode = 0;
      uint64_t size = 0, len0 = 0;

      if (file_attrs (m[0].o, a->pid, meta[i], &is_inode, &mode, &have_size,
                      &size, &len0, &err) < 0)
        {
          problem (&p, "drive 0: object %" PRIu64 ": GET ATTRIBUTES: %s", meta[i], err.msg);
          continue;
        }
      if (bufs)               /* RAID-5, every drive in: the metadata copy */
        check_meta_copy (a, m, meta[i], is_inode && S_ISREG (mode), &p);
      if (!is_inode || !S_ISREG (mode) || a->n == 1)
        continue;
      files[nfiles++] = meta[i];
      if (!have_size)
        {
          problem (&p, "file object %" PRIu64 ": no size attribute on drive 0", meta[i]);
          continue;
        }
      for (uint32_t d = 0; d < a->n; d++)
        {
          struct ossd_object_stat st = { 0 };
          uint64_t want = ossd_geom_drive_length (&g, size, d);
          int r = 0;

          if (stale & (1ull << d))
            continue;
          if (d == 0)
            st.size = len0;
          else
            r = ossd_stat (m[d].o, a->pid, meta[i], &st, &err);
          if (r == -ENOENT)
            problem (&p, "file object %" PRIu64 " (%" PRIu64 " bytes): missing on drive %u (%s)",
                     meta[i], size, d, m[d].uri);
          else if (r < 0)
            problem (&p, "file object %" PRIu64 ": STAT on drive %u (%s): %s",
                     meta[i], d, m[d].uri, err.msg);
          else if (st.size > want)
            problem (&p, "file object %" PRIu64 " (%" PRIu64 " bytes): drive %u holds %" PRIu64 " bytes, its layout implies %" PRIu64,
                     meta[i], size, d, st.size, want);
          else if (st.size < want)
            short_objects++;      /* a tail never written: reads as zeros */
        }
      if (bufs)
        check_parity (a, m, &g, meta[i], size, bufs, &p, &rows);
    }
  qsort (files, nfiles, sizeof *files, cmp_u64);
  /* what else the data drives hold */
  for (uint32_t d = 1; d < a->n; d++)
    {
      uint64_t *ids = NULL;
      size_t n = 0;

      if (list_all (m[d].o, a->pid, OSSD_FS_FIRST_OID - 1, &ids, &n, &err) < 0)
        {
          problem (&p, "drive %u (%s): LIST: %s", d, m[d].uri, err.msg);
          continue;
        }
      if (stale & (1ull << d))
        {
          free (ids);
          continue;
        }
      for (size_t i = 0; i < n; i++)
        if (!bsearch (&ids[i], files, nfiles, sizeof *files, cmp_u64)
            && !(g.level == OSSD_ARRAY_RAID5 && d == 1
                 && bsearch (&ids[i], meta, nmeta, sizeof *meta, cmp_u64)))
          problem (&p, "drive %u (%s): object %" PRIu64 " belongs to no file of drive 0 (a stray: the next mount removes it)",
                   d, m[d].uri, ids[i]);
      free (ids);
    }
  /* each drive's own FTL check */
  for (uint32_t d = 0; d < a->n; d++)
    {
      Ossd__Request req = OSSD__REQUEST__INIT;
      Ossd__Fsck f = OSSD__FSCK__INIT;
      Ossd__Response *resp = NULL;

      req.body_case = OSSD__REQUEST__BODY_FSCK;
      req.fsck = &f;
      if (ossd_call (m[d].o, &req, &resp, &err) < 0)
        problem (&p, "drive %u (%s): FSCK: %s", d, m[d].uri, err.msg);
      else
        {
          drive_problems += resp->fsck->problems;
          for (size_t i = 0; i < resp->fsck->n_problem_list; i++)
            problem (&p, "drive %u (%s): %s", d, m[d].uri, resp->fsck->problem_list[i]);
          if (resp->fsck->problems > resp->fsck->n_problem_list)
            problem (&p, "drive %u (%s): %" PRIu64 " more FTL problems not listed", d, m[d].uri,
                     resp->fsck->problems - resp->fsck->n_problem_list);
        }
      if (resp)
        ossd__response__free_unpacked (resp, NULL);
    }
report:
  if (c->json)
    {
      printf ("{\"drives\": %u, \"level\": \"%s\", \"files\": %zu, \"short_objects\": %zu, \"parity_rows\": %" PRIu64 ", \"ftl_problems\": %" PRIu64 ", \"problems\": %zu, \"problem_list\": [",
              a->n, ossd_array_level_name (g.level), nfiles, short_objects,
              rows, drive_problems, p.n);
      for (size_t i = 0; i < p.n; i++)
        {
          printf (i ? ", " : "");
          json_string (stdout, p.list[i]);
        }
      printf ("]}\n");
    }
  else if (p.n)
    {
      printf ("array fsck: %zu problems\n", p.n);
      for (size_t i = 0; i < p.n; i++)
        printf ("  problem: %s\n", p.list[i]);
    }
  else
    printf ("array fsck: clean (%u drives, %zu striped files, %zu objects with an unwritten tail%s%s)\n",
            a->n, nfiles, short_objects,
            g.level == OSSD_ARRAY_RAID5 ? "; raid5, parity rows checked: " : "",
            g.level == OSSD_ARRAY_RAID5 ? u64_text (rows) : "");
  rc = p.n ? 1 : 0;
out:
  drive_bufs_free (bufs, a->n);
  free (meta);
  free (files);
  problems_free (&p);
  disconnect_members (m, a->n);
  return rc;
}

/* ---- rebuild ------------------------------------------------------------- */

/* Copy attribute (page, number) of object oid from drive `from` to `to`,
 * when it has one. */
static int
copy_attr (const struct array_args *a, const struct member *m, uint32_t from,
           uint32_t to, uint64_t oid, uint32_t page, uint32_t number,
           ossd_error *err)
{
  uint8_t v[64];
  size_t len = 0;
  int r = ossd_get_attr (m[from].o, a->pid, oid, page, number, v, sizeof v,
                         &len, err);

  if (r == -ENOENT || (r == 0 && len == 0))
    return 0;
  if (r < 0)
    return r;
  return ossd_set_attr (m[to].o, a->pid, oid, page, number, v,
                        len < sizeof v ? len : sizeof v, err);
}

static bool
all_zero (const char *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return false;
  return true;
}

/* Drive D's object of one file: the XOR of the other drives, row by row,
 * written where it is not zeros (a fresh object reads zeros elsewhere). */
static int
rebuild_file (const struct array_args *a, const struct member *m,
              const struct ossd_geometry *g, uint32_t D, uint64_t oid,
              uint64_t size, char **bufs, struct progress *pr,
              uint64_t *done, ossd_error *err)
{
  uint64_t len = ossd_geom_drive_length (g, size, D);
  uint64_t per = rows_per_round (g->unit), rows = (len + g->unit - 1) / g->unit;
  uint32_t src = D == 1 ? 2 : 1;   /* a data drive other than D: its attributes */
  int r = ossd_create (m[D].o, a->pid, oid, err);

  if (r == -EEXIST)
    r = ossd_set_length (m[D].o, a->pid, oid, 0, err);
  if (r < 0)
    return r;
  if (src >= a->n)
    src = 0;
  if ((r = copy_attr (a, m, src, D, oid, OSSD_CAP_ATTR_PAGE,
                      OSSD_CAP_ATTR_VERSION, err)) < 0
      || (r = copy_attr (a, m, src, D, oid, FTL_ATTR_PAGE_HINTS,
                         FTL_ATTR_HINT_PRIORITY, err)) < 0)
    return r;
  for (uint64_t r0 = 0; r0 < rows; r0 += per)
    {
      uint64_t off = r0 * g->unit;
      size_t n = (size_t) ((rows - r0 < per ? rows - r0 : per) * g->unit);
      uint32_t bad = 0, first = D == 0 ? 1 : 0;

      if (n > len - off)
        n = (size_t) (len - off);
      if ((r = read_drives (a, m, D, oid, off, n, bufs, &bad, err)) < 0)
        {
          char what[sizeof err->msg];
          snprintf (what, sizeof what, "drive %u (%s): %s", bad, m[bad].uri,
                    err->msg);
          snprintf (err->msg, sizeof err->msg, "%s", what);
          return r;
        }
      for (uint32_t d = 0; d < a->n; d++)
        if (d != D && d != first)
          ossd_xor_into (bufs[first], bufs[d], n);
      for (size_t at = 0; at < n; at += (size_t) g->unit)
        {
          size_t piece = n - at < g->unit ? n - at : (size_t) g->unit;
          if (!all_zero (bufs[first] + at, piece)
              && (r = ossd_write (m[D].o, a->pid, oid, off + at,
                                  bufs[first] + at, piece, err)) < 0)
            return r;
        }
      *done += n;
      progress_update (pr, *done);
    }
  return ossd_set_length (m[D].o, a->pid, oid, len, err);
}

static int
array_rebuild (struct ctl *c, const struct array_args *a)
{
  struct member m[OSSD_ARRAY_MAX_DRIVES] = { 0 };
  struct problems p = { 0 };
  struct ossd_array_state st = { 0 };
  struct ossd_array_label l;
  struct ossd_geometry g;
  uint64_t *meta = NULL, *oids = NULL, *sizes = NULL, total = 0, done = 0;
  uint64_t *old = NULL, stale, epoch = 0;
  size_t nmeta = 0, nfiles = 0, nold = 0;
  uint32_t D = (uint32_t) a->drive, src;
  bool *regular = NULL;
  struct progress pr;
  char **bufs = NULL, u[40];
  ossd_error err = { 0 };
  double t0;
  int rc = 1, r;

  ctl_allow_long_call (c);
  if (connect_members (c, a, m, false) < 0)
    goto out;
  /* every label but D's must be right; D may be blank (a new drive) */
  check_labels (a, m, &p);
  for (size_t i = 0; i < p.n; i++)
    if (m[D].label_r != 0 && strstr (p.list[i], m[D].uri))
      continue;
    else
      {
        fprintf (stderr, "ossdctl: array rebuild: %s\n", p.list[i]);
        goto out;
      }
  l = m[D == 0 ? 1 : 0].label;
  if (l.level != OSSD_ARRAY_RAID5)
    {
      fprintf (stderr, "ossdctl: array rebuild: the array is %s: only a RAID-5 array holds what a drive held elsewhere\n",
               ossd_array_level_name (l.level));
      goto out;
    }
  g.unit = l.unit;
  g.n = a->n;
  g.level = l.level;
  stale = array_state (a, m, &p, &epoch);
  if (stale & ~(1ull << D))
    {
      fprintf (stderr, "ossdctl: array rebuild: other drives are out of date too (mask 0x%" PRIx64 "): drive %u cannot be rebuilt from them\n",
               (uint64_t) (stale & ~(1ull << D)), D);
      goto out;
    }
  /* the objects of the metadata (drive 0, or drive 1's copy when drive 0
   * is the one rebuilt), and the files among them */
  src = D == 0 ? 1 : 0;
  r = ossd_create_partition (m[D].o, a->pid, &err);
  if ((r < 0 && r != -EEXIST)
      || list_all (m[src].o, a->pid, 0, &meta, &nmeta, &err) < 0
      || list_all (m[D].o, a->pid, 0, &old, &nold, &err) < 0)
    {
      fprintf (stderr, "ossdctl: array rebuild: %s\n", err.msg);
      goto out;
    }
  if (!(oids = calloc (nmeta + 1, sizeof *oids))
      || !(sizes = calloc (nmeta + 1, sizeof *sizes))
      || !(regular = calloc (nmeta + 1, sizeof *regular))
      || !(bufs = drive_bufs (a->n, (size_t) (rows_per_round (g.unit) * g.unit))))
    goto out;
  for (size_t i = 0; i < nmeta; i++)
    {
      bool is_inode, have_size;
      uint32_t mode = 0;
      uint64_t size = 0, len0 = 0;

      if (!meta_object (meta[i]))
        continue;
      if (file_attrs (m[src].o, a->pid, meta[i], &is_inode, &mode, &have_size,
                      &size, &len0, &err) < 0)
        {
          fprintf (stderr, "ossdctl: array rebuild: drive %u: object %" PRIu64 ": %s\n", src, meta[i], err.msg);
          goto out;
        }
      regular[i] = is_inode && S_ISREG (mode);
      if (!regular[i])
        continue;
      if (!have_size)
        {
          fprintf (stderr, "ossdctl: array rebuild: file object %" PRIu64 " has no size attribute on drive 0 (ossdctl array fsck)\n", meta[i]);
          goto out;
        }
      oids[nfiles] = meta[i];
      sizes[nfiles++] = size;
      total += ossd_geom_drive_length (&g, size, D);
    }
  /* what D holds of files that are gone (a stale drive) goes first;
   * oids[] and meta[] are ascending, as LIST gave them */
  for (size_t i = 0; i < nold; i++)
    if (meta_object (old[i])
        && !bsearch (&old[i], D <= 1 ? meta : oids, D <= 1 ? nmeta : nfiles,
                     sizeof *oids, cmp_u64)
        && (r = ossd_remove (m[D].o, a->pid, old[i], &err)) < 0 && r != -ENOENT)
      {
        fprintf (stderr, "ossdctl: array rebuild: drive %u: REMOVE %" PRIu64 ": %s\n", D, old[i], err.msg);
        goto out;
      }
  t0 = now_seconds ();
  progress_start (&pr, "rebuild", total, c->progress);
  for (size_t i = 0; i < nfiles; i++)
    if ((r = rebuild_file (a, m, &g, D, oids[i], sizes[i], bufs, &pr, &done,
                           &err)) < 0)
      {
        progress_finish (&pr);
        fprintf (stderr, "ossdctl: array rebuild: file object %" PRIu64 ": %s\n", oids[i], err.msg);
        goto out;
      }
  progress_finish (&pr);
  /* drives 0 and 1 hold the metadata: the copy of the other one */
  for (size_t i = 0; D <= 1 && i < nmeta; i++)
    if (meta_object (meta[i])
        && (r = copy_meta_object (a, m, src, D, meta[i], regular[i], &err)) < 0)
      {
        fprintf (stderr, "ossdctl: array rebuild: drive %u: metadata object %" PRIu64 " from drive %u: %s\n",
                 D, meta[i], src, err.msg);
        goto out;
      }
  if (ossd_flush (m[D].o, &err) < 0)
    {
      fprintf (stderr, "ossdctl: array rebuild: drive %u: FLUSH: %s\n", D, err.msg);
      goto out;
    }
  /* D carries the array's label again, then every drive says it is in */
  l.index = D;
  st.epoch = epoch + 1;
  st.stale_mask = stale & ~(1ull << D);
  if (ossd_array_label_write (m[D].o, a->pid, &l, &err) < 0
      || ossd_flush (m[D].o, &err) < 0)
    {
      fprintf (stderr, "ossdctl: array rebuild: drive %u: label: %s\n", D, err.msg);
      goto out;
    }
  for (uint32_t d = 0; d < a->n; d++)
    if (ossd_array_state_write (m[d].o, a->pid, &st, &err) < 0)
      {
        fprintf (stderr, "ossdctl: array rebuild: drive %u: array state: %s\n", d, err.msg);
        goto out;
      }
  ossd_array_uuid_format (l.uuid, u);
  {
    double secs = now_seconds () - t0;
    if (c->json)
      printf ("{\"uuid\": \"%s\", \"drive\": %u, \"files\": %zu, \"bytes\": %" PRIu64 ", \"seconds\": %.3f, \"epoch\": %" PRIu64 "}\n",
              u, D, nfiles, total, secs, st.epoch);
    else
      printf ("array %s: drive %u rebuilt from %u drives: %zu files, %" PRIu64 " bytes in %.2f s (%.1f MB/s); the array is clean\n",
              u, D, a->n - 1, nfiles, total, secs,
              secs > 0 ? (double) total / secs / 1e6 : 0.0);
  }
  rc = 0;
out:
  drive_bufs_free (bufs, a->n);
  free (meta);
  free (old);
  free (oids);
  free (sizes);
  free (regular);
  problems_free (&p);
  disconnect_members (m, a->n);
  return rc;
}

int
cmd_array (struct ctl *c, int argc, char **argv)
{
  struct array_args a;
  const char *sub = argc > 0 ? argv[0] : "";

  if (strcmp (sub, "create") == 0)
    {
      if (parse_array_args (sub, argc - 1, argv + 1, &a, true) < 0)
        return 2;
      return array_create (c, &a);
    }
  if (strcmp (sub, "info") == 0 || strcmp (sub, "fsck") == 0)
    {
      if (parse_array_args (sub, argc - 1, argv + 1, &a, false) < 0)
        return 2;
      return sub[0] == 'i' ? array_info (c, &a) : array_fsck (c, &a);
    }
  if (strcmp (sub, "rebuild") == 0)
    {
      if (parse_array_args (sub, argc - 1, argv + 1, &a, false) < 0)
        return 2;
      return array_rebuild (c, &a);
    }
  fprintf (stderr, "ossdctl array: want create, info, fsck or rebuild (ossdctl --help)\n");
  return 2;
}
