/* main.c - ossdfs: command line, connection to the drive, mount, the
 * multi-threaded FUSE loop, and the operation table.
 *
 *   ossdfs MOUNTPOINT --device URI [--device URI...] [--partition PID]
 *          [--stripe-unit BYTES] [-o OPTS]
 *          [--foreground] [--debug] [--log FILE] [--timeout-ms N]
 *          [--spin-us N] [--threads N] [--help]
 *
 * The filesystem context (struct fs) is the only state; FUSE hands it to
 * every operation as the session's user data.  The request loop is
 * loop.c's. */
#include <errno.h>
#include <grp.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "ossdfs.h"

#define MAX_IO (1u << 20)

static void
usage (FILE *f)
{
  fprintf (f,
"Usage: ossdfs MOUNTPOINT [--device URI [--device URI...]] [options]\n"
"\n"
"Mount partition PID of an OSSD drive as a filesystem: every file and\n"
"directory is an object (OID = inode number); data is written through to\n"
"the drive before write() returns; fsync() is a drive FLUSH.  The first\n"
"mount of an empty partition creates the filesystem.\n"
"\n"
"Options:\n"
"  --device URI        drive URI (nbd+unix:///?socket=PATH, nbd://H:P,\n"
"                      sg:/dev/sgN, nvme:/dev/nvmeXnY, file:PATH, inproc:IMG)\n"
"                      (default: $OSSD_DEVICE, else the socket ossdctl device\n"
"                      start makes: $OSSD_RUNDIR/ossd.sock, /run/ossd/ossd.sock)\n"
"                      Several: an array (ossdctl array create), in its order;\n"
"                      regular files are striped over the drives, drive 0\n"
"                      holds the directories and inodes (docs/arrays.md)\n"
"  --stripe-unit BYTES the array's stripe unit must be this (default: as\n"
"                      ossdctl array create set it)\n"
"  --partition PID     partition holding the filesystem (default 1)\n"
"  -o OPT[,OPT...]     FUSE mount options (allow_other and\n"
"                      default_permissions are always on when run as root)\n"
"  -f, --foreground    do not daemonize\n"
"  -d, --debug         FUSE debug output (implies --foreground)\n"
"  --log FILE          append messages to FILE (daemon mode: else syslog)\n"
"  --timeout-ms N      per-command drive timeout (default 5000)\n"
"  --slots N           channel slots to use at most (default 16)\n"
"  --cache-s SECONDS   kernel attribute/entry cache time (default 10)\n"
"  --no-killpriv-v2    let the kernel clear suid/sgid on write (it then asks\n"
"                      for security.capability before every write)\n"
"  --spin-us N         after a request, keep polling for the next one, and\n"
"                      for the drive's replies, for up to N microseconds\n"
"                      before sleeping: a wake-up costs tens of microseconds\n"
"                      on a VM (default 200; 0 = sleep at once, no CPU spent)\n"
"  --threads N         request threads at most (default 32)\n"
"  --direct-io         no page cache for file data: every read and write goes\n"
"                      to the drive (benchmarks of the drive under a host that\n"
"                      cannot cache, e.g. bench/qos/run-pgbench)\n"
"  --no-spike-avoid    RAID-5: read a drive in a latency spike as any other\n"
"                      (default: rebuild its units from the rest of the row\n"
"                      while it is in one; docs/arrays.md)\n"
"  --key-file FILE     the drive's master key (default: $OSSD_KEY_FILE, else\n"
"                      ossd.key in $OSSD_RUNDIR or /run/ossd; not for inproc:);\n"
"                      one per --device on an array, in order (default there:\n"
"                      the ossd.key beside each drive's socket)\n"
"  --kernel-group NAME members may get a kernel capability (getxattr\n"
"                      user.ossd.kernelcap); root always may\n"
"  --cap-ttl-s N       lifetime of the capabilities handed out (default 3600)\n"
"  -h, --help          this help\n"
"\n"
"Extended attributes user.ossd.oid, user.ossd.pid and user.ossd.device\n"
"name the object behind a file, user.ossd.layout where its stripes are\n"
"(\"raid0 n=N unit=BYTES [uuid=U] drives=URI,...\"); user.ossd.scan gives those four\n"
"and the caller's capabilities in one read, a \"name value\" line each (pg_ossd\n"
"reads it at every scan start).  user.ossd.stats is the mount's counters\n"
"(set it to anything to reset them).  user.ossd.priority (regular files, 0..7,\n"
"default 4) is the file's I/O priority on its drives: the owner or root may set\n"
"it (docs/qos.md).  Unmount with fusermount3 -u MOUNTPOINT.\n");
}

/* ---- init / destroy -------------------------------------------------------- */

static void
fsop_init (void *userdata, struct fuse_conn_info *conn)
{
  conn->max_write = MAX_IO;
  conn->max_readahead = MAX_IO;
  conn->max_background = 64;
  conn->congestion_threshold = 48;
  conn->want &= ~(FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_READDIRPLUS
                  | FUSE_CAP_READDIRPLUS_AUTO | FUSE_CAP_WRITEBACK_CACHE);
  if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
    conn->want |= FUSE_CAP_CACHE_SYMLINKS;
  if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
    conn->want |= FUSE_CAP_PARALLEL_DIROPS;
  if (conn->capable & FUSE_CAP_ASYNC_DIO)
    conn->want |= FUSE_CAP_ASYNC_DIO;
}

static void
fsop_destroy (void *userdata)
{
  struct fs *fs = userdata;
  ossd_error err = { 0 };
  int r;

  bool flushed = true;

  inode_store_all (fs);
  /* the data drives first, drive 0 (the metadata) last */
  for (uint32_t d = fs->ndrives; d-- > 0;)
    {
      ossd_error e2 = { 0 };
      if (fs_striped (fs) && fs_drive_failed (fs, d))
        continue;
      if ((r = ossd_flush (fs->drive[d].o, &e2)) < 0)
        {
          fs_fail (fs, r, &e2, d ? "FLUSH (unmount) of a data drive"
                   : "FLUSH (unmount)", 0);
          flushed = false;
        }
    }
  /* RAID-5: every row's parity is durable with its data */
  if (flushed)
    parity_mount_close (fs);
  (void) err;
}

const struct fuse_lowlevel_ops ossdfs_ops = {
  .init = fsop_init,
  .destroy = fsop_destroy,
  .lookup = timed_lookup,
  .forget = fsop_forget,
  .forget_multi = fsop_forget_multi,
  .getattr = timed_getattr,
  .setattr = timed_setattr,
  .readlink = fsop_readlink,
  .mknod = fsop_mknod,
  .mkdir = fsop_mkdir,
  .unlink = timed_unlink,
  .rmdir = fsop_rmdir,
  .symlink = fsop_symlink,
  .rename = fsop_rename,
  .link = fsop_link,
  .open = timed_open,
  .read = timed_read,
  .write = timed_write,
  .flush = timed_flush,
  .release = timed_release,
  .fsync = timed_fsync,
  .opendir = fsop_opendir,
  .readdir = fsop_readdir,
  .releasedir = fsop_releasedir,
  .fsyncdir = fsop_fsyncdir,
  .statfs = fsop_statfs,
  .setxattr = fsop_setxattr,
  .getxattr = timed_getxattr,
  .listxattr = fsop_listxattr,
  .removexattr = fsop_removexattr,
  .create = timed_create,
  .fallocate = fsop_fallocate,
};

/* ---- main ------------------------------------------------------------------ */

struct options
{
  const char *mountpoint, *device, *log, *key_file, *kernel_group;
  const char *devices[OSSD_ARRAY_MAX_DRIVES], *key_files[OSSD_ARRAY_MAX_DRIVES];
  uint32_t ndevices, nkey_files;
  uint64_t stripe_unit;
  char *default_device;        /* the run directory's socket, when no --device */
  uint64_t cap_ttl_s;
  char *fuse_opts;
  uint64_t pid;
  uint32_t timeout_ms, slots, spin_us, threads;
  double cache_s;
  bool foreground, debug, no_killpriv_v2, direct_io, no_spike_avoid;
};

static int
add_fuse_opts (struct options *o, const char *more)
{
  size_t n = o->fuse_opts ? strlen (o->fuse_opts) : 0;
  char *s = realloc (o->fuse_opts, n + strlen (more) + 2);

  if (!s)
    return -1;
  if (n)
    s[n++] = ',';
  strcpy (s + n, more);
  o->fuse_opts = s;
  return 0;
}

/* fsname=ossdfs:URI[,URI...], with the commas and backslashes of the
 * URIs escaped (an array's drives joined by an escaped comma) */
static int
add_fsname_opt (struct options *o)
{
  size_t len = strlen ("fsname=ossdfs:") + 1;
  char *opt, *p;
  int r;

  for (uint32_t i = 0; i < o->ndevices; i++)
    len += 2 * strlen (o->devices[i]) + 2;
  if (!(opt = malloc (len)))
    return -1;
  p = stpcpy (opt, "fsname=ossdfs:");
  for (uint32_t i = 0; i < o->ndevices; i++)
    {
      if (i)
        {
          *p++ = '\\';
          *p++ = ',';
        }
      for (const char *s = o->devices[i]; *s; s++)
        {
          if (*s == ',' || *s == '\\')
            *p++ = '\\';
          *p++ = *s;
        }
    }
  *p = '\0';
  r = add_fuse_opts (o, opt);
  free (opt);
  return r;
}

static int
parse_args (int argc, char **argv, struct options *o)
{
  enum { OPT_DEVICE = 256, OPT_PARTITION, OPT_LOG, OPT_TIMEOUT, OPT_SLOTS,
         OPT_CACHE, OPT_NO_KILLPRIV, OPT_SPIN, OPT_THREADS, OPT_KEY_FILE,
         OPT_KERNEL_GROUP, OPT_CAP_TTL, OPT_STRIPE_UNIT, OPT_DIRECT_IO,
         OPT_NO_SPIKE_AVOID };
  static const struct option longopts[] = {
    { "device", required_argument, NULL, OPT_DEVICE },
    { "partition", required_argument, NULL, OPT_PARTITION },
    { "log", required_argument, NULL, OPT_LOG },
    { "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
    { "slots", required_argument, NULL, OPT_SLOTS },
    { "cache-s", required_argument, NULL, OPT_CACHE },
    { "no-killpriv-v2", no_argument, NULL, OPT_NO_KILLPRIV },
    { "spin-us", required_argument, NULL, OPT_SPIN },
    { "threads", required_argument, NULL, OPT_THREADS },
    { "key-file", required_argument, NULL, OPT_KEY_FILE },
    { "kernel-group", required_argument, NULL, OPT_KERNEL_GROUP },
    { "cap-ttl-s", required_argument, NULL, OPT_CAP_TTL },
    { "direct-io", no_argument, NULL, OPT_DIRECT_IO },
    { "no-spike-avoid", no_argument, NULL, OPT_NO_SPIKE_AVOID },
    { "stripe-unit", required_argument, NULL, OPT_STRIPE_UNIT },
    { "foreground", no_argument, NULL, 'f' },
    { "debug", no_argument, NULL, 'd' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  char *end;
  int c;

  o->device = getenv ("OSSD_DEVICE");
  o->pid = 1;
  o->timeout_ms = 5000;
  o->slots = 16;
  o->cache_s = 10;
  o->spin_us = 200;
  o->threads = 32;
  o->cap_ttl_s = 3600;
  while ((c = getopt_long (argc, argv, "o:fdh", longopts, NULL)) != -1)
    switch (c)
      {
      case OPT_DEVICE:
        if (o->ndevices == OSSD_ARRAY_MAX_DRIVES)
          {
            fprintf (stderr, "ossdfs: at most %d --device\n", OSSD_ARRAY_MAX_DRIVES);
            return -1;
          }
        o->devices[o->ndevices++] = optarg;
        break;
      case OPT_STRIPE_UNIT:
        {
          char why[160];
          o->stripe_unit = strtoull (optarg, &end, 0);
          if (*end || ossd_stripe_unit_check (o->stripe_unit, why, sizeof why) < 0)
            {
              fprintf (stderr, "ossdfs: --stripe-unit %s: need a multiple of 8192 up to 1 GiB\n", optarg);
              return -1;
            }
          break;
        }
      case OPT_PARTITION:
        o->pid = strtoull (optarg, &end, 0);
        if (*end || o->pid == 0)
          {
            fprintf (stderr, "ossdfs: --partition %s: need a number > 0 (partition 0 is the drive's)\n", optarg);
            return -1;
          }
        break;
      case OPT_LOG: o->log = optarg; break;
      case OPT_TIMEOUT: o->timeout_ms = (uint32_t) strtoul (optarg, NULL, 0); break;
      case OPT_SLOTS: o->slots = (uint32_t) strtoul (optarg, NULL, 0); break;
      case OPT_CACHE: o->cache_s = strtod (optarg, NULL); break;
      case OPT_NO_KILLPRIV: o->no_killpriv_v2 = true; break;
      case OPT_SPIN:
        o->spin_us = (uint32_t) strtoul (optarg, &end, 0);
        if (*end || !*optarg || o->spin_us > 1000000)
          {
            fprintf (stderr, "ossdfs: --spin-us %s: need microseconds from 0 to 1000000\n", optarg);
            return -1;
          }
        break;
      case OPT_THREADS:
        o->threads = (uint32_t) strtoul (optarg, &end, 0);
        if (*end || o->threads == 0 || o->threads > 1024)
          {
            fprintf (stderr, "ossdfs: --threads %s: need a number from 1 to 1024\n", optarg);
            return -1;
          }
        break;
      case OPT_KEY_FILE:
        if (o->nkey_files == OSSD_ARRAY_MAX_DRIVES)
          return -1;
        o->key_files[o->nkey_files++] = o->key_file = optarg;
        break;
      case OPT_KERNEL_GROUP: o->kernel_group = optarg; break;
      case OPT_CAP_TTL:
        o->cap_ttl_s = strtoull (optarg, &end, 0);
        if (*end || o->cap_ttl_s == 0)
          {
            fprintf (stderr, "ossdfs: --cap-ttl-s %s: need seconds > 0\n", optarg);
            return -1;
          }
        break;
      case OPT_DIRECT_IO: o->direct_io = true; break;
      case OPT_NO_SPIKE_AVOID: o->no_spike_avoid = true; break;
      case 'o':
        if (add_fuse_opts (o, optarg) < 0)
          return -1;
        break;
      case 'f': o->foreground = true; break;
      case 'd': o->debug = o->foreground = true; break;
      case 'h': usage (stdout); exit (0);
      default: usage (stderr); return -1;
      }
  /* GNU getopt moved the operands (the mount point) to the end. */
  if (optind + 1 != argc)
    {
      fprintf (stderr, "ossdfs: need exactly one MOUNTPOINT (see --help)\n");
      return -1;
    }
  o->mountpoint = argv[optind];
  if (o->ndevices)
    o->device = o->devices[0];
  if (o->ndevices > 1)
    for (uint32_t i = 0; i < o->ndevices; i++)
      if (strpbrk (o->devices[i], ", "))
        {
          fprintf (stderr, "ossdfs: --device %s: an array member's URI may not contain a comma or a space\n", o->devices[i]);
          return -1;
        }
  if (o->nkey_files > 1 && o->nkey_files != o->ndevices)
    {
      fprintf (stderr, "ossdfs: %u --key-file for %u --device: give one per drive, in order, or none\n",
               o->nkey_files, o->ndevices);
      return -1;
    }
  if (!o->device || !*o->device)
    {
      /* the drive `ossdctl device start` runs, as ossdctl finds it */
      const char *rundir = getenv ("OSSD_RUNDIR");

      if (asprintf (&o->default_device, "nbd+unix:///?socket=%s/ossd.sock",
                    rundir && *rundir ? rundir : "/run/ossd") < 0)
        return -1;
      o->device = o->default_device;
    }
  if (o->ndevices == 0)
    o->devices[o->ndevices++] = o->device;
  return 0;
}

int
main (int argc, char **argv)
{
  struct options o = { 0 };
  struct fs fs = { 0 };
  struct fuse_args args = FUSE_ARGS_INIT (0, NULL);
  struct fuse_session *se = NULL;
  struct ossd_connect_opts copts = { 0 };
  ossd_error err = { 0 };
  char key_file[4096];
  int r, status = 1;

  if (parse_args (argc, argv, &o) < 0)
    return 2;
  if (geteuid () == 0 && add_fuse_opts (&o, "allow_other") < 0)
    return 1;
  /* The mount's source names its drive, so that `ossdctl device stop`
   * can tell that a drive is still mounted (commas escaped for FUSE). */
  if (add_fuse_opts (&o, "default_permissions,subtype=ossdfs") < 0
      || add_fsname_opt (&o) < 0)
    return 1;

  fs.pid = o.pid;
  fs.timeout = o.cache_s;
  pthread_mutex_init (&fs.lock, NULL);
  pthread_mutex_init (&fs.ns_lock, NULL);
  pthread_mutex_init (&fs.state_lock, NULL);
  space_init (&fs);
  copts.slots = 2;
  copts.max_slots = o.slots;
  copts.timeout_ms = o.timeout_ms;
  copts.client_name = "ossdfs";
  copts.spin_us = o.spin_us;
  copts.before_wait = loop_before_drive_wait;
  copts.before_wait_arg = &fs;
  fs.cap_ttl_ns = o.cap_ttl_s * 1000000000ull;
  fs.direct_io = o.direct_io;
  fs.spike_avoid = !o.no_spike_avoid;
  pthread_mutex_init (&fs.monitor_lock, NULL);
  if (o.kernel_group)
    {
      struct group *g = getgrnam (o.kernel_group);
      if (!g)
        {
          fprintf (stderr, "ossdfs: --kernel-group %s: no such group\n", o.kernel_group);
          return 2;
        }
      fs.kernel_gid = g->gr_gid;
      fs.kernel_group_set = true;
    }
  fs.ndrives = o.ndevices;
  fs.geom.unit = o.stripe_unit;      /* checked against the labels (stripe.c) */
  if (!(fs.drive = calloc (fs.ndrives, sizeof *fs.drive)))
    return 1;
  for (uint32_t d = 0; d < fs.ndrives; d++)
    {
      const char *uri = o.devices[d];

      atomic_store (&fs.drive[d].flushed_gen, UINT64_MAX); /* first FLUSH goes */
      /* ossdfs is the file manager: it holds every drive's master key. */
      copts.key_file = NULL;
      if (o.nkey_files == fs.ndrives || (o.key_file && fs.ndrives == 1))
        copts.key_file = o.nkey_files == fs.ndrives ? o.key_files[d] : o.key_file;
      else if (strncmp (uri, "inproc:", 7) != 0)
        {
          /* one drive: the default key as always, else the one beside
           * the drive's socket; an array: each drive's beside its socket */
          ossd_default_key_file (key_file, sizeof key_file);
          if (fs.ndrives > 1 || access (key_file, F_OK) != 0)
            ossd_key_file_for_uri (uri, key_file, sizeof key_file);
          copts.key_file = key_file;
        }
      r = ossd_connect (uri, &copts, &fs.drive[d].o, &err);
      if (r < 0 && fs.ndrives > 1 && err.status == OSSD_STATUS_TRANSPORT)
        {
          /* Maybe a RAID-5 array that runs without it: the labels of the
           * others say (stripe_check_labels). */
          const char *why = err.msg[0] ? err.msg : strerror (-r);

          fprintf (stderr, "ossdfs: cannot reach drive %u of the array (%s): %s\n",
                   d, uri, why);
          r = ossd_connect_unreachable (uri, why, &fs.drive[d].o);
          if (r < 0)
            goto out;
          fs.drive[d].unreachable = true;
        }
      else if (r < 0)
        {
          fprintf (stderr, "ossdfs: cannot reach the drive %s: %s\n", uri,
                   err.msg[0] ? err.msg : strerror (-r));
          goto out;
        }
      if (!(fs.drive[d].uri = strdup (uri)))
        goto out;
    }
  fs.o = fs.drive[0].o;
  fs.uri = strdup (o.device);
  if (!fs.uri || inode_table_init (&fs) < 0)
    goto out;
  if ((r = super_mount (&fs)) < 0)
    {
      fprintf (stderr, "ossdfs: cannot mount partition %llu of %s: %s\n",
               (unsigned long long) fs.pid, fs.uri, strerror (-r));
      goto out;
    }

  if (fuse_opt_add_arg (&args, argv[0]) < 0
      || fuse_opt_add_arg (&args, "-o") < 0
      || fuse_opt_add_arg (&args, o.fuse_opts) < 0
      || (o.debug && fuse_opt_add_arg (&args, "-d") < 0))
    goto out;
  se = fuse_session_new (&args, &ossdfs_ops, sizeof ossdfs_ops, &fs);
  if (!se)
    goto out;
  fs.se = se;
  if (fuse_set_signal_handlers (se) != 0)
    goto out;
  if (fuse_session_mount (se, o.mountpoint) != 0)
    {
      fprintf (stderr, "ossdfs: cannot mount on %s\n", o.mountpoint);
      goto out_handlers;
    }
  fs.want_killpriv_v2 = !o.no_killpriv_v2;
  if (loop_setup (&fs, se, (uint64_t) o.spin_us * 1000, o.threads) < 0)
    goto out_unmount;
  if (fuse_daemonize (o.foreground) != 0)
    goto out_unmount;
  if (!o.foreground)
    {
      fs.daemon = !o.log;
      openlog ("ossdfs", LOG_PID, LOG_DAEMON);
    }
  if (o.log && !freopen (o.log, "a", stderr))
    fs.daemon = true;
  setvbuf (stderr, NULL, _IOLBF, 0);
  if (fs_striped (&fs))
    fs_log (&fs, "mounted partition %llu of a %u-drive array (%s, unit %llu, drive 0 %s) on %s",
            (unsigned long long) fs.pid, fs.ndrives,
            ossd_array_level_name (fs.geom.level),
            (unsigned long long) fs.geom.unit, fs.uri, o.mountpoint);
  else
    fs_log (&fs, "mounted partition %llu of %s on %s",
            (unsigned long long) fs.pid, fs.uri, o.mountpoint);

  if ((r = parity_watch_start (&fs)) < 0)
    {
      fs_log (&fs, "cannot watch the drives of the array: %s", strerror (-r));
      goto out_unmount;
    }
  status = loop_run (fs.loop) != 0;
  parity_watch_stop (&fs);

out_unmount:
  fuse_session_unmount (se);
out_handlers:
  fuse_remove_signal_handlers (se);
out:
  if (se)
    fuse_session_destroy (se);          /* calls fsop_destroy: store, FLUSH */
  fuse_opt_free_args (&args);
  inode_table_free (&fs);
  for (uint32_t d = 0; fs.drive && d < fs.ndrives; d++)
    {
      ossd_disconnect (fs.drive[d].o);
      free (fs.drive[d].uri);
    }
  free (fs.drive);
  raid_monitor_destroy (fs.monitor);
  loop_free (fs.loop);
  if (!status)
    fs_log (&fs, "unmounted %s", o.mountpoint);
  free (fs.uri);
  free (o.fuse_opts);
  return status;
}
