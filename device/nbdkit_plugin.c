/* nbdkit_plugin.c - a thin nbdkit shim over the device core, so that any
 * NBD client reaches the emulated drive (`nbdkit --unix SOCK
 * build/nbdkit-ossd-plugin.so image=FILE ...`).  Each NBD connection is a
 * device connection: its slots are freed when it closes.
 *
 * Two exports: "" is the whole drive (volume, channel, control LBA), for
 * libossd; "volume" is only the plain block volume, for standard block
 * tools (qemu-img, nbdcopy, fio) that must never touch the channel. */
#define NBDKIT_API_VERSION 2
#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
#include <nbdkit-plugin.h>

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ossd_device.h"
#include "ossd_jit.h"

static struct ossd_device_options opts;
static char *image;
static char *key_file;           /* key=FILE; NULL: IMAGE.key */
static char *profile;
static ossd_device_t *dev;
static atomic_uint connection_counter;

static void
ossd_plugin_load (void)
{
  ossd_device_options_init (&opts);
  /* The drive moves megabyte buffers per command: keep freed memory
   * instead of returning it to the kernel, so that every command does not
   * page-fault its buffers in again (this process is the drive's own). */
  mallopt (M_MMAP_THRESHOLD, 64 << 20);
  mallopt (M_TRIM_THRESHOLD, 256 << 20);
}

static void
ossd_plugin_unload (void)
{
  ossd_device_close (dev);
  free (image);
  free (key_file);
  free (profile);
}

static int
parse_u32 (const char *what, const char *value, uint32_t *out)
{
  return nbdkit_parse_uint32_t (what, value, out);
}

static int
parse_policy (const char *key, const char *value, const char *const names[],
              int *out)
{
  for (int i = 0; names[i]; i++)
    if (strcmp (value, names[i]) == 0)
      {
        *out = i;
        return 0;
      }
  nbdkit_error ("%s: unknown value '%s'", key, value);
  return -1;
}

static int
ossd_plugin_config (const char *key, const char *value)
{
  static const char *const mapping[] = { "ram", "dftl", "dftl-split", NULL };
  static const char *const alloc[] = { "unified", "index-data", "per-object", NULL };
  static const char *const gc[] = { "greedy", "cost-benefit", NULL };
  int64_t n;
  int b;

  if (strcmp (key, "image") == 0)
    {
      /* nbdkit changes directory to / when it daemonizes: keep an
       * absolute path (the image may not exist yet). */
      free (image);
      if (value[0] == '/' || strcmp (value, "ram:") == 0)
        image = strdup (value);
      else
        {
          char cwd[4096];
          if (!getcwd (cwd, sizeof cwd))
            {
              nbdkit_error ("getcwd: %m");
              return -1;
            }
          if (asprintf (&image, "%s/%s", cwd, value) < 0)
            image = NULL;
        }
      if (!image)
        {
          nbdkit_error ("out of memory");
          return -1;
        }
    }
  else if (strcmp (key, "key") == 0)
    {
      /* The master key file (docs/security.md); absolute for the same
       * reason as the image. */
      free (key_file);
      if (value[0] == '/')
        key_file = strdup (value);
      else
        {
          char cwd[4096];
          if (!getcwd (cwd, sizeof cwd) || asprintf (&key_file, "%s/%s", cwd, value) < 0)
            key_file = NULL;
        }
      if (!key_file)
        {
          nbdkit_error ("key: out of memory or no working directory");
          return -1;
        }
      opts.key_file = key_file;
    }
  else if (strcmp (key, "create") == 0)
    {
      if ((b = nbdkit_parse_bool (value)) < 0)
        return -1;
      opts.create = b;
    }
  else if (strcmp (key, "format") == 0)
    {
      if ((b = nbdkit_parse_bool (value)) < 0)
        return -1;
      opts.force_format = b;
    }
  else if (strcmp (key, "size") == 0 || strcmp (key, "capacity") == 0)
    {
      if ((n = nbdkit_parse_size (value)) < 0)
        return -1;
      opts.capacity_bytes = n;
    }
  else if (strcmp (key, "volume") == 0)
    {
      if ((n = nbdkit_parse_size (value)) < 0)
        return -1;
      opts.volume_bytes = n;
    }
  else if (strcmp (key, "profile") == 0)
    {
      struct ftl_profile_info pi;
      if (ftl_profile_get (0, value, &pi) < 0)
        {
          char names[200] = "";
          size_t o = 0;
          for (size_t i = 0; ftl_profile_get (i, NULL, &pi) == 0 && o < sizeof names; i++)
            o += (size_t) snprintf (names + o, sizeof names - o, "%s%s", i ? ", " : "", pi.name);
          nbdkit_error ("profile: unknown drive profile '%s' (%s)", value, names);
          return -1;
        }
      free (profile);
      profile = strdup (value);
      opts.profile = profile;
    }
  else if (strcmp (key, "slots") == 0)
    return parse_u32 (key, value, &opts.slots);
  else if (strcmp (key, "window") == 0)
    return parse_u32 (key, value, &opts.window_lbas);
  else if (strcmp (key, "lease_ms") == 0)
    return parse_u32 (key, value, &opts.lease_ms);
  else if (strcmp (key, "poll_ms") == 0)
    return parse_u32 (key, value, &opts.poll_timeout_ms);
  else if (strcmp (key, "workers") == 0)
    return parse_u32 (key, value, &opts.scan_workers);
  else if (strcmp (key, "access_profile") == 0)
    {
      if (strcmp (value, "on") != 0 && strcmp (value, "off") != 0)
        {
          nbdkit_error ("access_profile: 'on' or 'off', not '%s'", value);
          return -1;
        }
      opts.access_profile_off = strcmp (value, "off") == 0;
    }
  else if (strcmp (key, "auto_relocate") == 0)
    {
      if (strcmp (value, "on") != 0 && strcmp (value, "off") != 0)
        {
          nbdkit_error ("auto_relocate: 'on' or 'off', not '%s'", value);
          return -1;
        }
      opts.auto_relocate = strcmp (value, "on") == 0;
    }
  else if (strcmp (key, "auto_relocate_idle_ms") == 0)
    return parse_u32 (key, value, &opts.auto_relocate_idle_ms);
  else if (strcmp (key, "auto_relocate_min_gain") == 0)
    return parse_u32 (key, value, &opts.auto_relocate_min_gain_pct);
  else if (strcmp (key, "qos") == 0)
    {
      if (strcmp (value, "on") != 0 && strcmp (value, "off") != 0)
        {
          nbdkit_error ("qos: 'on' or 'off', not '%s'", value);
          return -1;
        }
      opts.qos_off = strcmp (value, "off") == 0;
    }
  else if (strcmp (key, "qos_defer_us") == 0)
    return parse_u32 (key, value, &opts.qos_defer_us);
  else if (strcmp (key, "hide_features") == 0)
    return nbdkit_parse_uint64_t (key, value, &opts.hide_features);
  else if (strcmp (key, "mapping") == 0)
    return parse_policy (key, value, mapping, &opts.mapping_mode);
  else if (strcmp (key, "alloc") == 0)
    return parse_policy (key, value, alloc, &opts.alloc_policy);
  else if (strcmp (key, "gc") == 0)
    return parse_policy (key, value, gc, &opts.gc_policy);
  else
    {
      nbdkit_error ("unknown parameter '%s' (see nbdkit ossd --help)", key);
      return -1;
    }
  return 0;
}

static int
ossd_plugin_config_complete (void)
{
  if (!image)
    {
      nbdkit_error ("the image=FILE parameter is required (image=ram: for a RAM drive)");
      return -1;
    }
  if (strcmp (image, "ram:") == 0)
    image[0] = '\0';
  opts.image = image;
  return 0;
}

static void
log_to_nbdkit (void *arg, const char *msg)
{
  nbdkit_debug ("%s", msg);
}

/* Open the drive after nbdkit has forked into the background, so that
 * threads the device starts belong to the serving process. */
static int
ossd_plugin_after_fork (void)
{
  char why[512];
  int r;

  opts.log = log_to_nbdkit;
  /* Pay LLVM's one-time start-up now, not in the first scan. */
  if (ossd_jit_warm_up (why, sizeof why) < 0)
    nbdkit_debug ("JIT warm-up failed (scans will use the interpreter): %s", why);
  r = ossd_device_open (&opts, &dev, why, sizeof why);
  if (r < 0)
    {
      nbdkit_error ("%s", why);
      errno = -r;
      return -1;
    }
  return 0;
}

struct handle
{
  ossd_device_conn_t *conn;
  bool volume_only;
};

static int
ossd_plugin_list_exports (int readonly, int is_tls, struct nbdkit_exports *e)
{
  if (nbdkit_add_export (e, "", "the whole drive: block volume + reserved-LBA channel") == -1)
    return -1;
  return nbdkit_add_export (e, "volume", "the plain block volume only");
}

static void *
ossd_plugin_open (int readonly)
{
  const char *name = nbdkit_export_name ();
  struct handle *h;
  char peer[32];

  if (name && *name && strcmp (name, "volume") != 0)
    {
      nbdkit_error ("unknown export '%s' (exports: \"\" for the drive, \"volume\" for the plain volume)",
                    name);
      return NULL;
    }
  h = calloc (1, sizeof *h);
  if (!h)
    return NULL;
  h->volume_only = name && strcmp (name, "volume") == 0;
  snprintf (peer, sizeof peer, "nbd-conn-%u",
            atomic_fetch_add (&connection_counter, 1) + 1);
  h->conn = ossd_device_connect (dev, peer);
  if (!h->conn)
    {
      free (h);
      nbdkit_error ("out of memory for a connection");
      return NULL;
    }
  return h;
}

static void
ossd_plugin_close (void *handle)
{
  struct handle *h = handle;
  ossd_device_disconnect (h->conn);
  free (h);
}

static int64_t
ossd_plugin_get_size (void *handle)
{
  struct handle *h = handle;
  return (int64_t) (h->volume_only ? ossd_device_volume_bytes (dev)
                    : ossd_device_size_bytes (dev));
}

static int
ossd_plugin_block_size (void *handle, uint32_t *minimum, uint32_t *preferred,
                        uint32_t *maximum)
{
  *minimum = 4096;
  *preferred = 4096;
  *maximum = 0xffffffff;
  return 0;
}

#define REPORT(r, why) \
  do { if ((r) < 0) { nbdkit_error ("%s", (why)); errno = -(r); return -1; } } while (0)

#define CONN(handle) (((struct handle *) (handle))->conn)

static int
ossd_plugin_pread (void *handle, void *buf, uint32_t count, uint64_t offset,
                   uint32_t flags)
{
  char why[512];
  int r = ossd_device_pread (CONN (handle), buf, count, offset, why, sizeof why);
  REPORT (r, why);
  return 0;
}

static int
ossd_plugin_pwrite (void *handle, const void *buf, uint32_t count,
                    uint64_t offset, uint32_t flags)
{
  char why[512];
  int r = ossd_device_pwrite (CONN (handle), buf, count, offset, why, sizeof why);
  REPORT (r, why);
  if (flags & NBDKIT_FLAG_FUA)
    {
      r = ossd_device_flush (CONN (handle), why, sizeof why);
      REPORT (r, why);
    }
  return 0;
}

static int
ossd_plugin_flush (void *handle, uint32_t flags)
{
  char why[512];
  int r = ossd_device_flush (CONN (handle), why, sizeof why);
  REPORT (r, why);
  return 0;
}

static int
ossd_plugin_trim (void *handle, uint32_t count, uint64_t offset,
                  uint32_t flags)
{
  char why[512];
  int r = ossd_device_trim (CONN (handle), count, offset, why, sizeof why);
  REPORT (r, why);
  return 0;
}

static int
ossd_plugin_zero (void *handle, uint32_t count, uint64_t offset,
                  uint32_t flags)
{
  /* Trimmed volume ranges read back as zeros. */
  return ossd_plugin_trim (handle, count, offset, flags);
}

static int
ossd_plugin_can_true (void *handle)
{
  return 1;
}

static int
ossd_plugin_can_fua (void *handle)
{
  return NBDKIT_FUA_NATIVE;
}

#define ossd_plugin_config_help \
  "image=FILE|ram:     (required) drive image (sparse file)\n" \
  "key=FILE            master key (default FILE.key; created 0600 if missing)\n" \
  "create=BOOL         format a new image if FILE does not exist\n" \
  "format=BOOL         format even if it exists (all data lost)\n" \
  "size=SIZE           object capacity at format (default 4G)\n" \
  "volume=SIZE         plain block volume at format (default 64M)\n" \
  "profile=NAME        drive profile (docs/profiles.md): at format the image's;\n" \
  "                    at start of an existing image the one in force:\n" \
  "                    default, mlc, tlc, ram-fast (unpaced), sata-ssd,\n" \
  "                    nvme-gen3, nasd-1998 (paced to real time)\n" \
  "mapping=ram|dftl|dftl-split  alloc=unified|index-data|per-object\n" \
  "gc=greedy|cost-benefit\n" \
  "slots=N window=LBAS lease_ms=MS poll_ms=MS workers=N\n" \
  "access_profile=on|off  record host reads for layout planning (on;\n" \
  "                    docs/sofs.md, ossdctl profile)\n" \
  "auto_relocate=on|off  relocate profiled objects by itself when idle\n" \
  "                    (off; docs/sofs.md, ossdctl profile auto)\n" \
  "auto_relocate_idle_ms=N  host silence before it plans (10000)\n" \
  "auto_relocate_min_gain=PCT  modelled NAND-read cut a plan must beat (20)\n" \
  "qos=on|off          scans yield to higher-priority objects' I/O (on;\n" \
  "                    docs/qos.md, ossdctl priority)\n" \
  "qos_defer_us=N      longest wait of a scan batch for them (2000)\n" \
  "hide_features=BITS  feature bits not announced (tests: a drive of an older\n" \
  "                    build; 1024, text substring, also refuses helper 23)"

static struct nbdkit_plugin plugin = {
  .name = "ossd",
  .longname = "pg_ossd emulated object SSD",
  .version = "0.1",
  .description = "An object-based SSD with an offload runtime, reached through reserved LBAs",
  .load = ossd_plugin_load,
  .unload = ossd_plugin_unload,
  .config = ossd_plugin_config,
  .config_complete = ossd_plugin_config_complete,
  .config_help = ossd_plugin_config_help,
  .magic_config_key = "image",
  .after_fork = ossd_plugin_after_fork,
  .list_exports = ossd_plugin_list_exports,
  .open = ossd_plugin_open,
  .close = ossd_plugin_close,
  .get_size = ossd_plugin_get_size,
  .block_size = ossd_plugin_block_size,
  .pread = ossd_plugin_pread,
  .pwrite = ossd_plugin_pwrite,
  .flush = ossd_plugin_flush,
  .trim = ossd_plugin_trim,
  .zero = ossd_plugin_zero,
  .can_write = ossd_plugin_can_true,
  .can_flush = ossd_plugin_can_true,
  .can_trim = ossd_plugin_can_true,
  .can_zero = ossd_plugin_can_true,
  .can_fua = ossd_plugin_can_fua,
  .can_multi_conn = ossd_plugin_can_true,
  .errno_is_preserved = 0,
};

NBDKIT_REGISTER_PLUGIN (plugin)
