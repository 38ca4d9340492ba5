/* cmd_array.c - ossdctl array create|info|fsck: N drives as one ossdfs
 * array (docs/arrays.md).
 *
 *   array create --device URI --device URI ... [--stripe-unit BYTES]
 *                [--partition PID] [--force]
 *   array info   --device URI ... [--partition PID]      (--json)
 *   array fsck   --device URI ... [--partition PID]      (--json)
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
 * drive's own FSCK (every FTL invariant). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ossd_array.h"
#include "ossdctl.h"

struct array_args
{
  const char *uris[OSSD_ARRAY_MAX_DRIVES];
  uint32_t n;
  uint64_t unit, pid;
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
    { "json", no_argument, NULL, 'j' },
    { NULL, 0, NULL, 0 },
  };
  char why[200], *end;
  int opt;

  memset (a, 0, sizeof *a);
  a->unit = OSSD_ARRAY_DEFAULT_UNIT;
  a->pid = 1;
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
  return 0;
}

/* Connect to every member with its own key; reads the labels. */
static int
connect_members (struct ctl *c, const struct array_args *a, struct member *m)
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
        return -1;
      m[d].label_r = ossd_array_label_read (m[d].o, a->pid, &m[d].label, &err);
      snprintf (m[d].label_why, sizeof m[d].label_why, "%s", err.msg);
    }
  return 0;
}

static void
disconnect_members (struct member *m, uint32_t n)
{
  for (uint32_t d = 0; d < n; d++)
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

  if (connect_members (c, a, m) < 0)
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
  l.created_ns = (uint64_t) now.tv_sec * 1000000000ull + (uint64_t) now.tv_nsec;
  /* drive 0 last: a crash halfway leaves no drive 0 claiming the array */
  for (uint32_t k = a->n; k-- > 0;)
    {
      ossd_error err = { 0 };

      l.index = k;
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
      printf ("{\"uuid\": \"%s\", \"drives\": %u, \"stripe_unit\": %" PRIu64 ", \"partition\": %" PRIu64 "}\n",
              u, a->n, a->unit, a->pid);
    }
  else
    printf ("array %s: %u drives, stripe unit %" PRIu64 " bytes, partition %" PRIu64 "\n",
            u, a->n, a->unit, a->pid);
  rc = 0;
out:
  disconnect_members (m, a->n);
  return rc;
}

/* ---- info ---------------------------------------------------------------- */

static int
array_info (struct ctl *c, const struct array_args *a)
{
  struct member m[OSSD_ARRAY_MAX_DRIVES] = { 0 };
  struct problems p = { 0 };
  char u[40] = "";
  int rc = 1;

  if (connect_members (c, a, m) < 0)
    goto out;
  check_labels (a, m, &p);
  if (m[0].label_r == 0)
    ossd_array_uuid_format (m[0].label.uuid, u);
  if (c->json)
    {
      printf ("{\"uuid\": ");
      json_string (stdout, u);
      printf (", \"drives\": %u, \"stripe_unit\": %" PRIu64 ", \"partition\": %" PRIu64 ", \"members\": [",
              a->n, m[0].label_r == 0 ? m[0].label.unit : 0, a->pid);
    }
  else
    printf ("array %s: %u drives, stripe unit %" PRIu64 " bytes, partition %" PRIu64 "\n",
            u[0] ? u : "(no label)", a->n,
            m[0].label_r == 0 ? m[0].label.unit : 0, a->pid);
  for (uint32_t d = 0; d < a->n; d++)
    {
      Ossd__InfoResult *info = NULL;
      ossd_error err = { 0 };
      uint64_t *ids = NULL;
      size_t nobj = 0;
      int r = ossd_info (m[d].o, &info, &err);

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
                  ", \"objects\": %zu, \"role\": \"%s\"}",
                  m[d].label_r == 0 ? (int) m[d].label.index : -1,
                  info->capacity_bytes, info->used_bytes, info->free_bytes,
                  nobj, d == 0 ? "metadata+data" : "data");
        }
      else
        printf ("  drive %u %s: %s, used %" PRIu64 " of %" PRIu64 " bytes (%.1f%%), %zu objects\n",
                d, m[d].uri, d == 0 ? "metadata+data" : "data",
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

/* ---- fsck ---------------------------------------------------------------- */

/* Mode and size (attribute, or -1) of object oid of drive 0; *is_inode
 * false when it has no ossdfs inode. */
static int
file_attrs (ossd_t *o, uint64_t pid, uint64_t oid, bool *is_inode,
            uint32_t *mode, bool *have_size, uint64_t *size, uint64_t *len,
            ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__GetAttributes g = OSSD__GET_ATTRIBUTES__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Response *resp = NULL;
  int r;

  id.pid = pid;
  id.oid = oid;
  g.obj = &id;
  req.body_case = OSSD__REQUEST__BODY_GET_ATTRIBUTES;
  req.get_attributes = &g;
  *is_inode = *have_size = false;
  r = ossd_call (o, &req, &resp, err);
  if (r == 0 && resp->body_case == OSSD__RESPONSE__BODY_ATTRIBUTES)
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

static int
array_fsck (struct ctl *c, const struct array_args *a)
{
  struct member m[OSSD_ARRAY_MAX_DRIVES] = { 0 };
  struct problems p = { 0 };
  uint64_t *meta = NULL, *files = NULL, unit, drive_problems = 0;
  size_t nmeta = 0, nfiles = 0, short_objects = 0;
  ossd_error err = { 0 };
  int rc = 1;

  ctl_allow_long_call (c);
  if (connect_members (c, a, m) < 0)
    goto out;
  check_labels (a, m, &p);
  unit = m[0].label_r == 0 ? m[0].label.unit : OSSD_ARRAY_DEFAULT_UNIT;
  if (a->n > 1 && p.n)
    goto report;                /* the files' places are unknown */
  if (list_all (m[0].o, a->pid, OSSD_FS_FIRST_OID - 1, &meta, &nmeta, &err) < 0)
    {
      problem (&p, "drive 0 (%s): LIST: %s", m[0].uri, err.msg);
      goto report;
    }
  if (!(files = calloc (nmeta ? nmeta : 1, sizeof *files)))
    goto out;
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
          uint64_t want = ossd_stripe_drive_length (unit, a->n, size, d);
          int r = 0;

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
      for (size_t i = 0; i < n; i++)
        if (!bsearch (&ids[i], files, nfiles, sizeof *files, cmp_u64))
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
      printf ("{\"drives\": %u, \"files\": %zu, \"short_objects\": %zu, \"ftl_problems\": %" PRIu64 ", \"problems\": %zu, \"problem_list\": [",
              a->n, nfiles, short_objects, drive_problems, p.n);
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
    printf ("array fsck: clean (%u drives, %zu striped files, %zu objects with an unwritten tail)\n",
            a->n, nfiles, short_objects);
  rc = p.n ? 1 : 0;
out:
  free (meta);
  free (files);
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
  fprintf (stderr, "ossdctl array: want create, info or fsck (ossdctl --help)\n");
  return 2;
}
