/* libossd.h - host client of the pg_ossd drive.
 *
 * Connects to a drive through a transport (ossd_transport.h), claims
 * slots of the reserved-LBA channel and runs object commands over them.
 * An ossd_t is thread-safe: each call takes a free slot for its duration,
 * so N threads calling at once use N slots (pipelining across slots).
 *
 * Errors: calls return 0 or a negative value; on failure err (if not
 * NULL) gets the drive's status (enum ossd_status, Ossd__Status values)
 * or OSSD_STATUS_TRANSPORT, an errno, and the reason, naming the command.
 *
 * Deadlines: no call waits for the drive longer than timeout_ms at a time
 * (connecting included, on transports that wait on a connection: NBD);
 * then it fails with OSSD_STATUS_TRANSPORT / ETIMEDOUT and a message
 * naming the drive and the timeout.  When the interrupted hook returns
 * nonzero, the wait ends within ~100 ms and the call fails with
 * OSSD__STATUS__ERR_CANCELLED / ECANCELED.  A wait that gives up drops
 * the connection (the I/O in flight cannot be taken back otherwise): the
 * other calls in flight on it fail with EIO.
 *
 * Reconnecting: when the connection is lost (the drive restarted, or a
 * wait gave up on it), the next call opens the URI again and claims
 * fresh slots by itself, within its deadline; a long-lived ossd_t keeps
 * working.  Calls in flight when the connection died fail (EIO), never
 * with a short success.
 */
#ifndef LIBOSSD_H
#define LIBOSSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ossd_cap.h"
#include "ossd_frame.h"
#include "ossd.pb-c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossd ossd_t;

#define OSSD_STATUS_TRANSPORT 1000   /* transport or channel failure */

typedef struct ossd_error
{
  int status;                  /* Ossd__Status or OSSD_STATUS_TRANSPORT */
  int errnum;                  /* errno equivalent (ENOENT, ENOSPC, EIO...) */
  char msg[512];
} ossd_error;

struct ossd_connect_opts
{
  uint32_t slots;              /* slots to claim (0 = 1); more on demand up to max_slots */
  uint32_t max_slots;          /* 0 = 4 */
  uint32_t max_chunk;          /* 0 = transport max transfer */
  const char *client_name;     /* shown in drive logs */
  uint32_t timeout_ms;         /* longest wait for the drive, 0 = 60000;
                                  keep it above the drive's long poll (2 s) */
  /* Latency against CPU: wait for a reply by polling for up to spin_us
   * before sleeping (NBD; 0 = sleep at once).  A sleep and wake-up costs
   * tens of microseconds on a virtual machine, a drive command not many
   * more. */
  uint32_t spin_us;
  /* Called on the calling thread just before each wait for the drive
   * (ossdfs checks there for queued requests: host/ossdfs/loop.c). */
  void (*before_wait) (void *arg);
  void *before_wait_arg;
  /* Capabilities (docs/security.md).  key_file: the drive's master key
   * (root tools: ossdctl, ossdfs); every call then carries a device-wide
   * capability minted from it.  NULL: no key, except on inproc: (the
   * drive's own process, which holds its key); "": no key at all.
   * Without a key, calls carry the capabilities added with
   * ossd_add_capability. */
  const char *key_file;
  /* Called during every wait for the drive, at least every ~100 ms, on
   * the waiting thread (and with libossd's locks held: only look at
   * flags, never call back into libossd nor longjmp).  Nonzero: stop
   * waiting, the call fails with OSSD__STATUS__ERR_CANCELLED. */
  int (*interrupted) (void *arg);
  void *interrupted_arg;
};

int ossd_connect (const char *uri, const struct ossd_connect_opts *opts,
                  ossd_t **out, ossd_error *err);
/* A handle for a drive that could not be reached (why: what connecting
 * said): every call on it fails with OSSD_STATUS_TRANSPORT and a message
 * naming the drive and why, as calls on a drive lost later do.  ossdfs
 * mounts a RAID-5 array with one drive down this way: its units are
 * rebuilt from the others (host/ossdfs/parity.c). */
int ossd_connect_unreachable (const char *uri, const char *why, ossd_t **out);
/* CLOCK_MONOTONIC in nanoseconds: libossd's clock (timeouts, spinning),
 * for its users' timing too. */
uint64_t ossd_mono_ns (void);
/* Release slots and close. Safe on NULL. */
void ossd_disconnect (ossd_t *o);
/* Close for a process on its way out: where the drive frees a
 * connection's slots when it closes (nbd:), without the Release round
 * trips and without waiting for a polite NBD disconnect; elsewhere as
 * ossd_disconnect.  Safe on NULL. */
void ossd_disconnect_at_exit (ossd_t *o);

const struct ossd_control *ossd_control_block (ossd_t *o);
const char *ossd_uri (ossd_t *o);
/* How many times the handle, opening the drive again after its connection
 * was lost, found that the drive had restarted (another boot nonce in its
 * control block, or none).  A drive that restarted may have lost writes it
 * had not FLUSHed: ossdfs watches this so that it never calls them
 * durable. */
uint64_t ossd_drive_restarts (ossd_t *o);

/* Generic call: send req, receive the (first) response.  *resp is
 * allocated by protobuf-c: free it with ossd__response__free_unpacked(resp,
 * NULL).  A non-OK status is returned as an error (and *resp still set). */
int ossd_call (ossd_t *o, const Ossd__Request *req, Ossd__Response **resp,
               ossd_error *err);

/* Streamed responses (SCAN): send req, then call ossd_stream_next until it
 * returns 0 with *resp == NULL (end of stream). */
typedef struct ossd_stream ossd_stream;
int ossd_stream_start (ossd_t *o, const Ossd__Request *req,
                       ossd_stream **out, ossd_error *err);
int ossd_stream_next (ossd_stream *s, Ossd__Response **resp, ossd_error *err);
/* Abandon a stream early (sends Cancel) and release its slot. */
void ossd_stream_close (ossd_stream *s);
/* True when every slot the handle may hold (max_slots) is claimed and in
 * use by its own calls and open streams: a new call would wait until one
 * of those ends.  A caller that holds those streams itself (one thread,
 * several open scans) must not wait for them. */
bool ossd_slots_all_busy (ossd_t *o);

/* Pipelined: send all requests on distinct slots, then collect every
 * response (resps[i] may be set even when the call fails). */
int ossd_call_many (ossd_t *o, const Ossd__Request *const *reqs, size_t n,
                    Ossd__Response **resps, ossd_error *err);

/* ---- convenience wrappers --------------------------------------------- */
int ossd_format (ossd_t *o, const Ossd__FtlConfig *cfg,
                 uint64_t volume_bytes, ossd_error *err);
int ossd_info (ossd_t *o, Ossd__InfoResult **info, ossd_error *err);  /* free with ossd__info_result__free_unpacked */
int ossd_flush (ossd_t *o, ossd_error *err);
/* Flush, then make the drive cold: it drops its own caches (FTL page
 * cache, its image's OS page cache).  Needs an admin capability. */
int ossd_drop_caches (ossd_t *o, ossd_error *err);
int ossd_flush_object (ossd_t *o, uint64_t pid, uint64_t oid,
                       ossd_error *err);

int ossd_create_partition (ossd_t *o, uint64_t pid, ossd_error *err);
int ossd_remove_partition (ossd_t *o, uint64_t pid, ossd_error *err);

int ossd_create (ossd_t *o, uint64_t pid, uint64_t oid, ossd_error *err);
int ossd_remove (ossd_t *o, uint64_t pid, uint64_t oid, ossd_error *err);
/* Read up to len bytes; *nread gets the count (short at end of object).
 * Large reads are split into chunk-sized requests over several slots. */
int ossd_read (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t off,
               void *buf, size_t len, size_t *nread, ossd_error *err);
int ossd_write (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t off,
                const void *buf, size_t len, ossd_error *err);
int ossd_punch (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t off,
                uint64_t len, ossd_error *err);
int ossd_set_length (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t len,
                     ossd_error *err);

struct ossd_object_stat
{
  uint64_t size, allocated, version, ctime_ns, mtime_ns;
};
int ossd_stat (ossd_t *o, uint64_t pid, uint64_t oid,
               struct ossd_object_stat *st, ossd_error *err);
/* Every attribute of the object, with its size and mapped bytes: on 0,
 * (*resp)->attributes (free *resp with ossd__response__free_unpacked). */
int ossd_get_attrs (ossd_t *o, uint64_t pid, uint64_t oid,
                    Ossd__Response **resp, ossd_error *err);
/* Get one attribute; *len gets its full length, up to cap bytes copied. */
int ossd_get_attr (ossd_t *o, uint64_t pid, uint64_t oid, uint32_t page,
                   uint32_t number, void *buf, size_t cap, size_t *len,
                   ossd_error *err);
int ossd_set_attr (ossd_t *o, uint64_t pid, uint64_t oid, uint32_t page,
                   uint32_t number, const void *val, size_t len,
                   ossd_error *err);
/* List up to cap OIDs after `after`; *more set when there are others. */
int ossd_list (ossd_t *o, uint64_t pid, uint64_t after, uint64_t *oids,
               size_t cap, size_t *n, bool *more, ossd_error *err);
int ossd_list_partitions (ossd_t *o, uint64_t after, uint64_t *pids,
                          size_t cap, size_t *n, bool *more, ossd_error *err);

/* Compound: ops applied atomically. */
int ossd_compound (ossd_t *o, Ossd__CompoundOp *const *ops, size_t n,
                   uint32_t *failed_index, ossd_error *err);

/* Block volume below the reserved LBAs (plain disk), via the transport. */
uint64_t ossd_volume_bytes (ossd_t *o);
int ossd_volume_pread (ossd_t *o, void *buf, size_t len, uint64_t off,
                       ossd_error *err);
int ossd_volume_pwrite (ossd_t *o, const void *buf, size_t len,
                        uint64_t off, ossd_error *err);

/* Wait up to the drive's poll timeout for events newer than *cursor. */
int ossd_poll_events (ossd_t *o, uint64_t *cursor, Ossd__EventBatch **batch,
                      ossd_error *err);

/* ---- capabilities (docs/security.md) ------------------------------------
 * A client without the master key is given capabilities (by ossdfs, as
 * the user.ossd.cap extended attribute of a file) and adds them here;
 * from then on every call that needs rights on that object (or
 * partition) carries the matching one.  One for the same pid, oid and
 * rights replaces the older; expired ones are dropped. */
int ossd_add_capability (ossd_t *o, const struct ossd_cap *cap,
                         ossd_error *err);
/* The same from the text form (ossd_cap_format). */
int ossd_add_capability_text (ossd_t *o, const char *text, ossd_error *err);
/* Whether this connection holds the drive's master key. */
bool ossd_has_master_key (ossd_t *o);
/* Sign cap (its pid, oid, rights, expiry and version filled in) with the
 * connection's master key: what a file manager hands its callers.
 * -EPERM without the key. */
int ossd_mint_capability (ossd_t *o, struct ossd_cap *cap, ossd_error *err);
/* The key file root tools use by default: $OSSD_KEY_FILE, else
 * ${OSSD_RUNDIR:-/run/ossd}/ossd.key (ossdctl device start links it to
 * IMAGE.key). */
void ossd_default_key_file (char *buf, size_t len);

/* Map a status to an errno and a short name. */
int ossd_status_errno (int status);
const char *ossd_status_name (int status);

#ifdef __cplusplus
}
#endif
#endif /* LIBOSSD_H */
