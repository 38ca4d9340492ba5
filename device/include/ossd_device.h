/* ossd_device.h - the drive: reserved-LBA channel endpoint, command
 * dispatcher, partitions and events, over the object FTL.
 *
 * The device core is transport-agnostic: whoever serves it (the nbdkit
 * plugin, the in-process transport of libossd, a test) calls
 * ossd_device_pread/pwrite/flush with byte offsets and lengths that are
 * multiples of OSSD_LBA_SIZE, on behalf of a connection.  Below the
 * reserved area the device is a plain block volume (object
 * OSSD_SYS_PID/OSSD_VOLUME_OID in the FTL); the reserved area holds the
 * event window, the slots and the control LBA (ossd_frame.h).
 */
#ifndef OSSD_DEVICE_H
#define OSSD_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ossd_ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossd_device ossd_device_t;
typedef struct ossd_device_conn ossd_device_conn_t;

/* System partition objects. */
#define OSSD_SYS_PID          0ull
#define OSSD_SUPERBLOCK_OID   1ull
#define OSSD_VOLUME_OID       2ull
#define OSSD_KERNEL_OID_BASE  0x1000ull

struct ossd_device_options
{
  const char *image;           /* backing image ("" or NULL: RAM) */
  bool create;                 /* format a new image if it does not exist */
  bool force_format;           /* format even if it exists */
  uint64_t capacity_bytes;     /* object capacity at format (default 4 GiB) */
  uint64_t volume_bytes;       /* block volume at format (default 64 MiB) */
  const char *profile;         /* drive profile (docs/profiles.md): at
                                  format the image's (NULL: "default"); at
                                  start of an existing image the one put in
                                  force (NULL: the image's own) */
  int mapping_mode;            /* -1 = default */
  int alloc_policy;            /* -1 = default */
  int gc_policy;               /* -1 = default */
  uint32_t slots;              /* at format: default 32 */
  uint32_t window_lbas;        /* at format: default 264 (1 MiB + 32 KiB) */
  uint32_t lease_ms;           /* default 30000 */
  uint32_t poll_timeout_ms;    /* long-poll of responses and events, default 2000 */
  uint32_t scan_workers;       /* default 2 */
  /* The master key (docs/security.md): a root-only file of
   * OSSD_KEY_BYTES bytes, created (mode 0600) when missing.  NULL: IMAGE.key
   * beside a file image; a RAM drive then gets a random key that only
   * its own process knows (ossd_device_master_key). */
  const char *key_file;
  /* The access profiler (docs/sofs.md): on unless this is set; PROFILE
   * ENABLE / DISABLE switch it while the drive runs. */
  bool access_profile_off;
  /* Automatic relocation (docs/sofs.md): off unless auto_relocate; when
   * the drive has been idle auto_relocate_idle_ms (default 10000) and a
   * profiled object's plan cuts its modelled NAND reads per transition by
   * more than auto_relocate_min_gain_pct (default 20), the drive queues its
   * relocation.  PROFILE AUTO changes these while it runs. */
  bool auto_relocate;
  uint32_t auto_relocate_idle_ms;
  uint32_t auto_relocate_min_gain_pct;
  /* QoS (docs/qos.md): scans yield to higher-priority flash work unless
   * qos_off, for at most qos_defer_us per batch (default 2000). */
  bool qos_off;
  uint32_t qos_defer_us;
  /* OSSD_FEATURE_* bits the control block does not announce, to stand in
   * for a drive of an older build in tests of the hosts' fallbacks.
   * Hiding OSSD_FEATURE_TEXT_SUBSTR also refuses SCAN kernels calling
   * helper 23, as the older verifier refused an unknown helper. */
  uint64_t hide_features;
  void (*log) (void *arg, const char *msg);   /* optional log sink */
  void *log_arg;
};

void ossd_device_options_init (struct ossd_device_options *o);

int ossd_device_open (const struct ossd_device_options *opts,
                      ossd_device_t **out, char *why, size_t whylen);
/* Flushes and closes; connections must be gone. */
void ossd_device_close (ossd_device_t *dev);

uint64_t ossd_device_size_bytes (ossd_device_t *dev);
/* The plain block volume below the reserved area. */
uint64_t ossd_device_volume_bytes (ossd_device_t *dev);
ftl_t *ossd_device_ftl (ossd_device_t *dev);

ossd_device_conn_t *ossd_device_connect (ossd_device_t *dev,
                                         const char *peer);
/* Frees every slot the connection holds. */
void ossd_device_disconnect (ossd_device_conn_t *conn);

/* Block I/O from a transport.  Return 0 or a negative errno with the
 * reason in why.  Reads of response windows and the event window may
 * block up to poll_timeout_ms. */
int ossd_device_pread (ossd_device_conn_t *conn, void *buf, uint32_t len,
                       uint64_t off, char *why, size_t whylen);
int ossd_device_pwrite (ossd_device_conn_t *conn, const void *buf,
                        uint32_t len, uint64_t off, char *why,
                        size_t whylen);
int ossd_device_flush (ossd_device_conn_t *conn, char *why, size_t whylen);
/* Deallocate a volume range (NBD trim/zero). */
int ossd_device_trim (ossd_device_conn_t *conn, uint32_t len, uint64_t off,
                      char *why, size_t whylen);

/* The drive's master key, for a client in the drive's own process (the
 * inproc: transport): that process holds the image and so every byte. */
void ossd_device_master_key (ossd_device_t *dev, uint8_t out[32]);

/* Let background work run (GC); the nbdkit plugin calls it when idle. */
void ossd_device_idle (ossd_device_t *dev);

#ifdef __cplusplus
}
#endif
#endif /* OSSD_DEVICE_H */
