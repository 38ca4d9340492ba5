/* device_internal.h - state shared by the files of the device core.
 * Not installed; device/include/ossd_device.h is the public face.
 */
#ifndef OSSD_DEVICE_INTERNAL_H
#define OSSD_DEVICE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ossd_device.h"
#include "ossd_cap.h"
#include "ossd_frame.h"
#include "ossd.pb-c.h"
#include "ftl_autoplan.h"
#include "ftl_plan.h"
#include "ftl_profile.h"

#define OSSD_FIRMWARE_VERSION "pg_ossd-0.1"
#define OSSD_MAX_MESSAGE (64u << 20)   /* largest request accepted */
#define OSSD_EVENT_RING 256

/* A READ whose data the response-window read takes straight from the
 * FTL into the transport's buffer (no intermediate copy). */
struct deferred_read
{
  uint64_t pid, oid, offset;
  uint64_t want;               /* data bytes */
  uint64_t object_size;
  uint8_t priority;            /* the object's (device_qos.c) */
};

/* device_qos.c: flash work in flight per priority, and what scans did
 * about it */
struct ossd_qos
{
  atomic_uint inflight[FTL_PRIORITY_MAX + 1];
  atomic_uint_fast64_t last_end_ns[FTL_PRIORITY_MAX + 1];  /* CLOCK_MONOTONIC */
  atomic_uint_fast64_t yields;     /* scan batches that waited */
  atomic_uint_fast64_t yield_ns;   /* how long they waited */
  atomic_uint_fast64_t bound_hits; /* waits ended by qos_defer_us */
};

/* One serialized response message waiting to be read chunk by chunk.
 * A deferred READ has buf == NULL until it is materialized. */
struct resp_msg
{
  struct resp_msg *next;
  uint8_t *buf;
  size_t len;
  bool deferred;
  struct deferred_read dr;
  size_t sent;
  uint64_t sequence;
  bool stream_more;            /* more messages follow (OSSD_F_STREAM) */
};

struct ossd_slot
{
  uint32_t index;
  pthread_mutex_t lock;
  pthread_cond_t cond;         /* response queued */
  uint64_t owner_nonce;        /* 0 = free */
  ossd_device_conn_t *owner_conn;
  uint64_t lease_deadline_ms;
  uint32_t max_chunk;
  struct ossd_reassembly req;
  struct resp_msg *head, *tail;
  uint32_t queued;             /* messages in the queue */
  pthread_cond_t space;        /* a stream producer waits for room */
  /* An ACK_IN_WRITE request being dispatched: its successful answer is
   * not queued, only noted (device_slots.c). */
  uint64_t ack_sequence;
  bool ack_armed, ack_ok;
  /* A streaming command (SCAN) runs on the slot's stream thread, started
   * at the slot's first and kept for the next (device_slot_run_stream). */
  bool stream_running;         /* a job posted or running */
  bool stream_thread_alive, stream_exit;
  pthread_t stream_thread;
  pthread_cond_t stream_cv;    /* a job posted, a job done, or exit */
  void (*stream_fn) (void *);
  void *stream_arg;
  atomic_bool cancel;
  /* The last capability whose MAC checked out on this slot: a client
   * sends the same one again and again, so its HMAC is computed once
   * (expiry and version are still checked every time). */
  struct ossd_cap last_cap;
  bool last_cap_ok;
};

struct ossd_event_entry
{
  uint64_t seq;
  uint64_t time_ns;
  int kind;
  uint32_t slot;
  char text[240];
};

struct ossd_event_ring
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  uint64_t next_seq;           /* seq of the next event posted (first = 1) */
  struct ossd_event_entry ring[OSSD_EVENT_RING];
};

struct ossd_device_counters
{
  atomic_uint_fast64_t frames_in, frames_out, frame_errors;
  atomic_uint_fast64_t commands;
  atomic_uint_fast64_t channel_bytes_in, channel_bytes_out;
  atomic_uint_fast64_t volume_reads, volume_writes;
  atomic_uint_fast64_t volume_bytes_read, volume_bytes_written;
  atomic_uint_fast64_t scans, scan_bytes_out, scan_blocks;
  atomic_uint_fast64_t scan_checksums_known, scan_checksums_verified;
  atomic_uint_fast64_t cap_checks, cap_refusals, cap_mac_verified;
};

struct ossd_device
{
  struct ossd_device_options opts;
  char *image;
  ftl_t *ftl;
  /* FORMAT replaces the FTL: it holds this exclusively; every other
   * operation holds it shared. */
  pthread_rwlock_t ftl_lock;
  struct ossd_control control;
  uint64_t volume_bytes;
  uint32_t slot_count, window_lbas;
  struct ossd_slot *slots;
  struct ossd_event_ring events;
  struct ossd_device_counters ctr;
  pthread_mutex_t conn_lock;
  uint32_t connections;
  struct ossd_kernel_registry *kernels;
  struct ossd_jit_cache *jit_cache;  /* compiled kernels, by program hash */
  struct ossd_checksum_cache *checksum_cache;  /* heap pages whose checksum
                                                  scans verified */
  uint8_t master_key[32];      /* OSSD_KEY_BYTES (device_caps.c) */
  ftl_profile_t *profile;      /* host reads and their transitions
                                  (device_profile.c) */
  struct ossd_relocator *relocator;   /* planned layouts being applied
                                         (device_relocate.c) */
  struct ossd_autoplanner *autoplan;  /* when to relocate by itself, the
                                         ledger of plans queued
                                         (device_autoplan.c) */
  struct ossd_persist *persist;       /* the profile, ledger and queue
                                         kept in the image
                                         (device_persist.c) */
  atomic_uint_fast64_t last_command_ms;   /* device_now_ms of the last
                                             command or volume I/O */
  struct ossd_qos qos;
};

/* device_qos.c: flash work of priority prio starts / ends; a scan worker
 * of priority prio waits while higher-priority work is in flight (at most
 * opts.qos_defer_us); the value of a SET ATTRIBUTES of the priority
 * attribute checked (0, or -EINVAL with the reason). */
void device_qos_begin (ossd_device_t *dev, unsigned prio);
void device_qos_end (ossd_device_t *dev, unsigned prio);
void device_qos_yield (ossd_device_t *dev, unsigned prio);
/* A scan batch's read starts: yield, then count it (end: device_qos_end) */
void device_qos_scan_begin (ossd_device_t *dev, unsigned prio);
/* Is higher-priority work in flight, or was it a moment ago?  A paced
 * scan then reads no batch ahead (its reservations would be in the way). */
bool device_qos_contended (ossd_device_t *dev, unsigned prio);
int device_qos_check_attr (const Ossd__Attribute *a, char *why, size_t whylen);
/* The FTL QoS class a request for an object of priority prio runs in:
 * its priority, or the default for all when qos=off (docs/qos.md). */
unsigned device_qos_class (const ossd_device_t *dev, unsigned prio);

struct ossd_device_conn
{
  ossd_device_t *dev;
  uint64_t event_cursor;       /* last event seq this connection saw */
  char peer[64];
};

/* Superblock: attribute (OSSD_SB_ATTR_PAGE, 1) of object
 * (OSSD_SYS_PID, OSSD_SUPERBLOCK_OID), little-endian. */
#define OSSD_SB_ATTR_PAGE 0x10u
#define OSSD_SB_MAGIC 0x4253534fu    /* "OSSB" */
struct ossd_superblock
{
  uint32_t magic;
  uint32_t version;
  uint64_t volume_bytes;
  uint32_t slots;
  uint32_t window_lbas;
  uint64_t device_id;
  uint64_t formatted_ns;
};

/* device_profile.c: the access profiler (docs/sofs.md).  The block
 * volume's reads are recorded as stream slot_count (past every slot). */
int device_profile_open (ossd_device_t *dev, char *why, size_t whylen);
void device_profile_close (ossd_device_t *dev);
void device_profile_read (ossd_device_t *dev, uint32_t stream, uint64_t pid,
                          uint64_t oid, uint64_t off, uint64_t len);
void device_profile_command (ossd_device_t *dev, struct ossd_slot *s,
                             uint64_t seq, const Ossd__Profile *req);

/* device_relocate.c: planned layouts applied in the background, while no
 * command arrives for a while (docs/sofs.md). */
int device_relocate_open (ossd_device_t *dev, char *why, size_t whylen);
void device_relocate_close (ossd_device_t *dev);
/* Queue the relocation of pid:oid into `order` (units of unit_bytes,
 * FTL_RELOCATE_GAP breaks); takes order over (freed when done). */
int device_relocate_queue (ossd_device_t *dev, uint64_t pid, uint64_t oid,
                           uint64_t *order, size_t n, uint32_t unit_bytes);
/* Drop every queued job (FORMAT: the objects are gone). */
void device_relocate_drop (ossd_device_t *dev);
/* Start the thread if it is not running (the automatic policy and the
 * profile's saving need it while there is no job too). */
int device_relocate_kick (ossd_device_t *dev);
/* Stop and join the thread (close: before the queue is saved). */
void device_relocate_stop (ossd_device_t *dev);
/* Queue a job from a saved queue: units order[next..n) still to move. */
int device_relocate_resume (ossd_device_t *dev, uint64_t pid, uint64_t oid,
                            uint64_t *order, size_t n, uint32_t unit_bytes,
                            size_t next);
struct device_job_copy
{
  uint64_t pid, oid;
  uint64_t *order;
  size_t n, next;
  uint32_t unit_bytes;
};
/* Copies of the queued jobs, head first (free with device_job_copies_free). */
int device_relocate_snapshot (ossd_device_t *dev, struct device_job_copy **out,
                              size_t *n);
void device_job_copies_free (struct device_job_copy *c, size_t n);

/* device_persist.c: the profile, the ledger of applied plans and the
 * queued jobs kept in the image (the FTL's owner record, docs/sofs.md). */
int device_persist_open (ossd_device_t *dev, char *why, size_t whylen);
void device_persist_close (ossd_device_t *dev);
/* A file image: the record is kept (the relocator thread stays for it). */
bool device_persist_active (ossd_device_t *dev);
/* Save now (why: for the log when it fails); 0 or a negative errno. */
int device_persist_save (ossd_device_t *dev, const char *why);
/* Save if the profile or the queue changed and PERSIST_INTERVAL_MS have
 * passed since the last save (the relocator thread, while idle). */
void device_persist_maybe (ossd_device_t *dev, uint64_t now_ms);
/* At open: the saved record back into the profile, ledger and queue. */
void device_persist_restore (ossd_device_t *dev);
struct device_persist_counters
{
  uint64_t active, saves, save_errors, last_bytes;
  uint64_t edges_saved, edges_not_saved, jobs_saved, jobs_not_saved;
  uint64_t restored_edges, restored_plans, restored_jobs, dropped_jobs;
  uint64_t lost, newest_lost;
};
void device_persist_counters (ossd_device_t *dev,
                              struct device_persist_counters *c);
struct device_relocate_counters
{
  uint64_t jobs_queued, jobs_done, jobs_failed, jobs_pending;
  uint64_t units_queued, units_done, waits_for_space, steps;
};
void device_relocate_counters (ossd_device_t *dev,
                               struct device_relocate_counters *c);
uint64_t device_now_ms (void);   /* device_log.c */

/* device_autoplan.c: the automatic relocation policy (docs/sofs.md). */
int device_autoplan_open (ossd_device_t *dev, char *why, size_t whylen);
void device_autoplan_close (ossd_device_t *dev);
bool device_autoplan_enabled (ossd_device_t *dev);
/* PROFILE AUTO: on / off; idle_ms, min_gain_pct 0 keep the current ones. */
int device_autoplan_configure (ossd_device_t *dev, bool on, uint32_t idle_ms,
                               uint32_t min_gain_pct, char *why, size_t whylen);
/* FORMAT: the ledger's objects are gone. */
void device_autoplan_forget (ossd_device_t *dev);
struct device_apply_result
{
  uint64_t considered, applied, units_queued, best_gain_permille;
  uint64_t skipped_already_applied, skipped_layout_matches,
    skipped_below_threshold;
};
/* Plan every profiled object, queue those the decision says to apply
 * (PROFILE APPLY: min_gain 0; the policy: its threshold). */
int device_autoplan_apply (ossd_device_t *dev, enum ftl_plan_kind kind,
                           uint32_t min_gain_permille,
                           struct device_apply_result *res, char *why,
                           size_t whylen);
/* The relocator thread while it has no job: evaluate if the policy is on,
 * the host quiet for idle_ms at now_ms (device_now_ms) and the profile has
 * new evidence.  1 if it evaluated. */
int device_autoplan_tick (ossd_device_t *dev, uint64_t now_ms);
struct device_autoplan_counters
{
  uint64_t enabled, idle_ms, min_gain_pct;
  uint64_t evaluations, plans_considered, plans_applied, units_queued;
  uint64_t skipped_already_applied, skipped_layout_matches,
    skipped_below_threshold, errors, last_gain_permille;
};
void device_autoplan_counters (ossd_device_t *dev,
                               struct device_autoplan_counters *c);
/* The ledger copied out (save) or replaced (restore). */
void device_autoplan_ledger_copy (ossd_device_t *dev,
                                  struct ftl_autoplan_ledger *out);
void device_autoplan_ledger_restore (ossd_device_t *dev,
                                     const struct ftl_autoplan_ledger *in);

static inline void
device_note_activity (ossd_device_t *dev)
{
  atomic_store_explicit (&dev->last_command_ms, device_now_ms (),
                         memory_order_relaxed);
}

/* device_log.c */
void device_log (ossd_device_t *dev, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
uint64_t device_now_ms (void);
uint64_t device_now_ns (void);
uint64_t device_wall_ns (void);   /* CLOCK_REALTIME, for event times */
struct timespec;
void device_deadline_after_ms (struct timespec *ts, uint32_t ms);
/* A condition variable whose timed waits take device_deadline_after_ms's
 * CLOCK_MONOTONIC deadlines (a default one reads them as CLOCK_REALTIME,
 * long past: every wait would return at once). */
void device_cond_init_monotonic (pthread_cond_t *cond);

/* device_events.c */
void device_events_init (struct ossd_event_ring *r);
void device_events_destroy (struct ossd_event_ring *r);
void device_event_post (ossd_device_t *dev, int kind, uint32_t slot,
                        const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
/* Fill `out` (len bytes, a whole event window read) with the events
 * after *cursor, waiting up to timeout_ms for one. */
int device_events_read (ossd_device_t *dev, uint64_t *cursor, uint8_t *out,
                        uint32_t len, uint32_t timeout_ms);

/* device_slots.c */
int device_slots_init (ossd_device_t *dev, char *why, size_t whylen);
void device_slots_destroy (ossd_device_t *dev);
void device_slots_release_conn (ossd_device_t *dev, ossd_device_conn_t *c);
/* A write into slot's request window / a read of its response window. */
int device_slot_write (ossd_device_conn_t *conn, uint32_t slot,
                       const uint8_t *buf, uint32_t len, char *why,
                       size_t whylen);
int device_slot_read (ossd_device_conn_t *conn, uint32_t slot, uint8_t *buf,
                      uint32_t len, char *why, size_t whylen);
/* Queue a serialized response (takes ownership of buf). */
void device_slot_enqueue (struct ossd_slot *s, uint8_t *buf, size_t len,
                          uint64_t sequence, bool stream_more);
/* Pack and queue a response message. */
void device_slot_respond (struct ossd_slot *s, uint64_t sequence,
                          const Ossd__Response *resp, bool stream_more);
void device_slot_respond_error (struct ossd_slot *s, uint64_t sequence,
                                Ossd__Status status, const char *reason);
/* Run fn(arg) on the slot's stream thread (started on first use); 0 or
 * a negative errno.  A new request stops it through s->cancel. */
int device_slot_run_stream (struct ossd_slot *s, void (*fn) (void *), void *arg);
/* Queue a deferred READ answer of len serialized bytes. */
void device_slot_enqueue_read (struct ossd_slot *s, uint64_t sequence,
                               const struct deferred_read *dr, size_t len);
void device_control_refresh (ossd_device_t *dev);

/* device_dispatch.c: run one decoded request; returns the response to
 * send (or streams it itself for SCAN and returns false). */
void device_dispatch (ossd_device_t *dev, struct ossd_slot *slot,
                      uint64_t sequence, const Ossd__Request *req);
Ossd__Status device_status_from_errno (int err);
/* Serialized size of a READ answer, and building it in place (dst has
 * exactly that many bytes).  -EAGAIN: the object changed under us. */
size_t device_read_reply_size (const struct deferred_read *dr);
int device_read_reply_fill (ossd_device_t *dev, const struct deferred_read *dr,
                            uint8_t *dst, char *why, size_t whylen);

/* device_caps.c: load or create the master key at open; check a
 * request's capabilities before it runs (the caller holds ftl_lock).
 * Returns 0, or -EACCES with the reason (naming the command, the object
 * and what failed) in why. */
int device_caps_open (ossd_device_t *dev, const char *key_file, char *why,
                      size_t whylen);
int device_caps_check (ossd_device_t *dev, struct ossd_slot *slot,
                       const Ossd__Request *req, char *why, size_t whylen);

/* device_format.c */
int device_superblock_load (ossd_device_t *dev, char *why, size_t whylen);
int device_format_ftl (ossd_device_t *dev, const Ossd__FtlConfig *cfg,
                       char *why, size_t whylen);
int device_write_superblock (ossd_device_t *dev, char *why, size_t whylen);

/* device_kernels.c */
struct ossd_kernel_registry;
int device_kernels_open (ossd_device_t *dev, char *why, size_t whylen);
void device_kernels_close (ossd_device_t *dev);
void device_kernel_deploy (ossd_device_t *dev, struct ossd_slot *slot,
                           uint64_t seq, const Ossd__KernelDeploy *kd);
void device_kernel_list (ossd_device_t *dev, struct ossd_slot *slot,
                         uint64_t seq);
void device_kernel_remove (ossd_device_t *dev, struct ossd_slot *slot,
                           uint64_t seq, const Ossd__KernelRemove *kr);
struct device_kernel;
struct ossd_prog;
/* A deployed kernel by name, with a reference (NULL if none). */
struct device_kernel *device_kernel_get (ossd_device_t *dev, const char *name);
void device_kernel_put (struct device_kernel *k);
const struct ossd_prog *device_kernel_prog (const struct device_kernel *k);
/* device_scan.c: starts the scan on the slot's stream thread. */
void device_scan_start (ossd_device_t *dev, struct ossd_slot *slot,
                        uint64_t seq, const Ossd__Request *req);

#endif /* OSSD_DEVICE_INTERNAL_H */
