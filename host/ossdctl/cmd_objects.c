/* cmd_objects.c - object commands of ossdctl: put, get, ls, stat, rm and
 * attributes.  Large transfers go in 8 MiB pieces with a progress bar. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ossd_ftl.h"
#include "ossdctl.h"

#define PIECE (8u << 20)

static int
need_object (const char *cmd, const char *arg, uint64_t *pid, uint64_t *oid)
{
  if (!arg || parse_object (arg, pid, oid) < 0)
    {
      fprintf (stderr, "ossdctl %s: expected an object as PID:OID, got '%s'\n",
               cmd, arg ? arg : "");
      return -1;
    }
  return 0;
}

int
cmd_put (struct ctl *c, int argc, char **argv)
{
  uint64_t pid, oid, offset = 0, done = 0, total = 0;
  struct progress pr;
  ossd_error err;
  ossd_t *h;
  uint8_t *buf;
  int fd, r = 0;
  struct stat st;

  if (argc < 2 || need_object ("put", argv[1], &pid, &oid) < 0)
    {
      fprintf (stderr, "usage: ossdctl put FILE PID:OID [--offset N]\n");
      return 2;
    }
  for (int i = 2; i + 1 < argc; i++)
    if (strcmp (argv[i], "--offset") == 0 && parse_size (argv[i + 1], &offset) < 0)
      {
        fprintf (stderr, "ossdctl put: bad offset '%s'\n", argv[i + 1]);
        return 2;
      }
  fd = strcmp (argv[0], "-") == 0 ? STDIN_FILENO : open (argv[0], O_RDONLY);
  if (fd < 0)
    {
      fprintf (stderr, "ossdctl put: cannot open %s: %s\n", argv[0], strerror (errno));
      return 1;
    }
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    total = st.st_size;
  if (!(h = ctl_connect (c)))
    return 1;
  buf = malloc (PIECE);
  r = ossd_create (h, pid, oid, &err);
  if (r == -EEXIST)
    r = 0;
  if (r < 0)
    goto fail;
  progress_start (&pr, "put", total, c->progress);
  for (;;)
    {
      ssize_t n = 0, got;
      while (n < (ssize_t) PIECE && (got = read (fd, buf + n, PIECE - n)) > 0)
        n += got;
      if (n <= 0)
        break;
      r = ossd_write (h, pid, oid, offset + done, buf, (size_t) n, &err);
      if (r < 0)
        goto fail;
      done += n;
      progress_update (&pr, done);
    }
  r = ossd_flush (h, &err);
  if (r < 0)
    goto fail;
  progress_finish (&pr);
  if (c->json)
    printf ("{\"pid\": %" PRIu64 ", \"oid\": %" PRIu64 ", \"bytes\": %" PRIu64
            ", \"seconds\": %.3f}\n", pid, oid, done, now_seconds () - pr.started);
  free (buf);
  ossd_disconnect (h);
  if (fd != STDIN_FILENO)
    close (fd);
  return 0;
fail:
  free (buf);
  ossd_disconnect (h);
  if (fd != STDIN_FILENO)
    close (fd);
  return ctl_fail ("put", &err);
}

int
cmd_get (struct ctl *c, int argc, char **argv)
{
  struct ossd_object_stat st;
  uint64_t pid, oid, done = 0;
  struct progress pr;
  ossd_error err;
  ossd_t *h;
  uint8_t *buf;
  int fd, r;

  if (argc < 2 || need_object ("get", argv[0], &pid, &oid) < 0)
    {
      fprintf (stderr, "usage: ossdctl get PID:OID FILE\n");
      return 2;
    }
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_stat (h, pid, oid, &st, &err);
  if (r < 0)
    {
      ossd_disconnect (h);
      return ctl_fail ("get", &err);
    }
  fd = strcmp (argv[1], "-") == 0 ? STDOUT_FILENO
    : open (argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    {
      fprintf (stderr, "ossdctl get: cannot create %s: %s\n", argv[1], strerror (errno));
      ossd_disconnect (h);
      return 1;
    }
  buf = malloc (PIECE);
  progress_start (&pr, "get", st.size, c->progress);
  while (done < st.size)
    {
      size_t want = st.size - done < PIECE ? st.size - done : PIECE, got = 0;
      r = ossd_read (h, pid, oid, done, buf, want, &got, &err);
      if (r < 0)
        break;
      if (got == 0)
        break;
      for (size_t w = 0; w < got;)
        {
          ssize_t n = write (fd, buf + w, got - w);
          if (n < 0)
            {
              fprintf (stderr, "ossdctl get: writing %s: %s\n", argv[1], strerror (errno));
              r = -errno;
              goto out;
            }
          w += n;
        }
      done += got;
      progress_update (&pr, done);
    }
  progress_finish (&pr);
out:
  free (buf);
  ossd_disconnect (h);
  if (fd != STDOUT_FILENO)
    close (fd);
  if (r < 0 && err.msg[0])
    return ctl_fail ("get", &err);
  if (r < 0)
    return 1;
  if (c->json && fd != STDOUT_FILENO)
    printf ("{\"pid\": %" PRIu64 ", \"oid\": %" PRIu64 ", \"bytes\": %" PRIu64 "}\n",
            pid, oid, done);
  return 0;
}

int
cmd_ls (struct ctl *c, int argc, char **argv)
{
  uint64_t pid, after = 0, ids[4096];
  char *end;
  bool more, first = true;
  size_t n;
  ossd_error err;
  ossd_t *h;
  int r;

  if (argc < 1 || (pid = strtoull (argv[0], &end, 0), *end))
    {
      fprintf (stderr, "usage: ossdctl ls PID\n");
      return 2;
    }
  if (!(h = ctl_connect (c)))
    return 1;
  if (c->json)
    printf ("[");
  do
    {
      r = ossd_list (h, pid, after, ids, 4096, &n, &more, &err);
      for (size_t i = 0; r == 0 && i < n; i++)
        {
          struct ossd_object_stat st = { 0 };
          ossd_error e2;
          ossd_stat (h, pid, ids[i], &st, &e2);
          if (c->json)
            printf ("%s{\"oid\": %" PRIu64 ", \"size\": %" PRIu64 ", \"version\": %" PRIu64 "}",
                    first ? "" : ", ", ids[i], st.size, st.version);
          else
            printf ("%" PRIu64 ":%" PRIu64 "\t%" PRIu64 "\n", pid, ids[i], st.size);
          first = false;
          after = ids[i];
        }
    }
  while (r == 0 && more);
  if (c->json)
    printf ("]\n");
  ossd_disconnect (h);
  return r < 0 ? ctl_fail ("ls", &err) : 0;
}

int
cmd_rm (struct ctl *c, int argc, char **argv)
{
  uint64_t pid, oid;
  ossd_error err;
  ossd_t *h;
  int r;

  if (argc < 1 || need_object ("rm", argv[0], &pid, &oid) < 0)
    return 2;
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_remove (h, pid, oid, &err);
  ossd_disconnect (h);
  return r < 0 ? ctl_fail ("rm", &err) : 0;
}

int
cmd_stat (struct ctl *c, int argc, char **argv)
{
  struct ossd_object_stat st;
  uint64_t pid, oid;
  ossd_error err;
  ossd_t *h;
  int r;

  if (argc < 1 || need_object ("stat", argv[0], &pid, &oid) < 0)
    return 2;
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_stat (h, pid, oid, &st, &err);
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("stat", &err);
  if (c->json)
    printf ("{\"pid\": %" PRIu64 ", \"oid\": %" PRIu64 ", \"size\": %" PRIu64
            ", \"allocated\": %" PRIu64 ", \"version\": %" PRIu64
            ", \"ctime_ns\": %" PRIu64 ", \"mtime_ns\": %" PRIu64 "}\n",
            pid, oid, st.size, st.allocated, st.version, st.ctime_ns, st.mtime_ns);
  else
    printf ("object %" PRIu64 ":%" PRIu64 "\nsize:      %" PRIu64 "\nallocated: %" PRIu64
            "\nversion:   %" PRIu64 "\n", pid, oid, st.size, st.allocated, st.version);
  return 0;
}

int
cmd_attr (struct ctl *c, int argc, char **argv)
{
  uint64_t pid, oid;
  uint32_t page, number;
  ossd_error err;
  ossd_t *h;
  int r;

  if (argc < 2 || need_object ("attr", argv[1], &pid, &oid) < 0)
    {
      fprintf (stderr, "usage: ossdctl attr get|set|ls PID:OID [PAGE NUMBER [VALUE]]\n");
      return 2;
    }
  if (!(h = ctl_connect (c)))
    return 1;
  if (strcmp (argv[0], "ls") == 0)
    {
      Ossd__Response *resp = NULL;
      r = ossd_get_attrs (h, pid, oid, &resp, &err);
      if (r == 0)
        {
          const Ossd__AttributesResult *a = resp->attributes;
          if (c->json)
            printf ("[");
          for (size_t i = 0; i < a->n_attrs; i++)
            {
              if (c->json)
                {
                  printf ("%s{\"page\": %u, \"number\": %u, \"value\": ", i ? ", " : "",
                          a->attrs[i]->page, a->attrs[i]->number);
                  json_bytes_as_string (stdout, a->attrs[i]->value.data,
                                        a->attrs[i]->value.len);
                  printf ("}");
                }
              else
                printf ("0x%x\t%u\t%.*s\n", a->attrs[i]->page, a->attrs[i]->number,
                        (int) a->attrs[i]->value.len, (char *) a->attrs[i]->value.data);
            }
          if (c->json)
            printf ("]\n");
        }
      if (resp)
        ossd__response__free_unpacked (resp, NULL);
    }
  else if (argc >= 4 && (strcmp (argv[0], "get") == 0 || strcmp (argv[0], "set") == 0))
    {
      if (parse_u32 (argv[2], &page) < 0 || parse_u32 (argv[3], &number) < 0
          || argc > (strcmp (argv[0], "set") == 0 ? 5 : 4))
        {
          fprintf (stderr, "ossdctl attr %s: PAGE and NUMBER are numbers (decimal or 0x-hex), got '%s' '%s'%s\n",
                   argv[0], argv[2], argv[3],
                   argc > (strcmp (argv[0], "set") == 0 ? 5 : 4) ? ", and too many arguments" : "");
          ossd_disconnect (h);
          return 2;
        }
      if (strcmp (argv[0], "set") == 0)
        {
          const char *v = argc >= 5 ? argv[4] : "";
          r = ossd_set_attr (h, pid, oid, page, number, v, strlen (v), &err);
        }
      else
        {
          char val[4097];
          size_t len = 0;
          r = ossd_get_attr (h, pid, oid, page, number, val, sizeof val - 1, &len, &err);
          if (r == 0)
            {
              if (len > sizeof val - 1)
                len = sizeof val - 1;
              if (c->json)
                {
                  json_bytes_as_string (stdout, (uint8_t *) val, len);
                  printf ("\n");
                }
              else
                printf ("%.*s\n", (int) len, val);
            }
        }
    }
  else
    {
      fprintf (stderr, "usage: ossdctl attr get|set PID:OID PAGE NUMBER [VALUE] | attr ls PID:OID\n");
      ossd_disconnect (h);
      return 2;
    }
  ossd_disconnect (h);
  return r < 0 ? ctl_fail ("attr", &err) : 0;
}

/* priority OBJ [LEVEL]: the object's I/O priority (docs/qos.md), one byte
 * of the FTL's hint page; absent = the default. */
int
cmd_priority (struct ctl *c, int argc, char **argv)
{
  uint64_t pid, oid;
  uint32_t level = 0;
  ossd_error err;
  ossd_t *h;
  int r;
  char *args[3];
  int n = 0;

  /* the operands, without a --json among them (main has seen it) */
  for (int i = 0; i < argc && n < 3; i++)
    if (strcmp (argv[i], "--json") != 0)
      args[n++] = argv[i];
  argc = n;
  argv = args;
  if (argc < 1 || argc > 2 || need_object ("priority", argv[0], &pid, &oid) < 0
      || (argc == 2 && (parse_u32 (argv[1], &level) < 0 || level > FTL_PRIORITY_MAX)))
    {
      fprintf (stderr, "usage: ossdctl priority PID:OID [LEVEL]   (LEVEL 0 lowest .. %u, default %u)\n",
               FTL_PRIORITY_MAX, FTL_PRIORITY_DEFAULT);
      return 2;
    }
  if (!(h = ctl_connect (c)))
    return 1;
  if (argc == 2)
    {
      uint8_t v = (uint8_t) level;
      r = ossd_set_attr (h, pid, oid, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY, &v, 1, &err);
    }
  else
    {
      uint8_t v = FTL_PRIORITY_DEFAULT;
      size_t len = 0;
      bool set = true;
      struct ossd_object_stat st;
      r = ossd_stat (h, pid, oid, &st, &err);
      bool exists = r == 0;
      if (exists)
        r = ossd_get_attr (h, pid, oid, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY, &v, 1,
                           &len, &err);
      if (exists && r == -ENOENT)
        {
          r = 0;              /* the object exists, never set: the default */
          v = FTL_PRIORITY_DEFAULT;
          set = false;
        }
      if (r == 0)
        {
          if (c->json)
            printf ("{\"pid\": %llu, \"oid\": %llu, \"priority\": %u, \"set\": %s}\n",
                    (unsigned long long) pid, (unsigned long long) oid, v, set ? "true" : "false");
          else
            printf ("%u%s\n", v, set ? "" : " (default)");
        }
    }
  ossd_disconnect (h);
  return r < 0 ? ctl_fail ("priority", &err) : 0;
}
