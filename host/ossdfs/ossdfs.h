/* ossdfs.h - shared declarations of ossdfs, the exofs-style FUSE
 * filesystem over the drive's objects (DESIGN.md "pg_ossd", issue 4).
 *
 * On-drive layout, all in one partition (default 1):
 *   OID 1   superblock object (super.c): magic, version, the next free OID
 *           (bumped by CAS in batches), root and orphan directory OIDs.
 *   OID 2   root directory.
 *   OID 3   orphan directory: inodes unlinked while open (removed at the
 *           last close, or at the next mount after a crash).
 *   OID 16+ files, directories, symlinks, special files: OID = inode
 *           number.  A regular file's bytes are its object's bytes, offset
 *           for offset, and its size is the object's length.
 * Inode fields (mode, uid, gid, nlink, rdev, times) are one attribute
 * (OSSDFS_PAGE_INODE, 1) of the object (inode.c); extended attributes live
 * in a page of their own (OSSDFS_PAGE_XATTR, xattr.c); the directory
 * format is described in dir.c.
 *
 * One mount owns the partition: inodes, directories and xattrs are cached
 * in memory and every change is written through to the drive before the
 * reply (data with WRITE, namespace changes with one atomic COMPOUND).
 * Only the times of data writes, and the length of a file extended with
 * zeros (PostgreSQL's relation extension), are kept in memory until
 * fsync, close or unmount: zeros past the object's end read as zeros
 * whether or not the drive's length covers them.  Their space is promised
 * against the drive's free space at the write (space.c).  FUSE node IDs are OIDs, except the root (FUSE_ROOT_ID = 1).
 *
 * Arrays (stripe.c, docs/arrays.md): mounted over N > 1 drives, a regular
 * file is an object with the same OID on every drive, striped in units of
 * fs->geom.unit (unit k on drive k % N at offset (k / N) * unit).  Everything
 * else -- the superblock, directories, symlinks, every inode attribute and
 * xattr -- lives on drive 0 only, as on a one-drive mount, and a regular
 * file's size is one more attribute there (OSSD_FS_SIZE_NUMBER), written
 * only after the data drives were FLUSHed (inode_store).  On a RAID-5
 * array (parity.c) rows carry a parity unit, and drive 1 keeps a copy of
 * drive 0's metadata (batch.c), used alone while drive 0 is out.
 *
 * Locking: fs->lock guards the inode table and reference counts; each
 * inode's lock guards its fields, directory and xattrs; fs->ns_lock
 * serializes namespace changes (create, unlink, rename...), which may hold
 * several inode locks at once because no other thread ever holds two.
 */
#ifndef OSSDFS_H
#define OSSDFS_H

#define FUSE_USE_VERSION 312

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#include <fuse_lowlevel.h>

#include "libossd.h"
#include "ossd_array.h"
#include "ossd_raid.h"

#define OSSDFS_SB_OID       1
#define OSSDFS_ROOT_OID     2
#define OSSDFS_ORPHAN_OID   3
#define OSSDFS_FIRST_OID    16
#define OSSDFS_OID_BATCH    256

#define OSSDFS_PAGE_INODE   0x10001u  /* number 1: struct dinode encoding */
#define OSSDFS_PAGE_XATTR   0x10002u  /* number n: one xattr (xattr.c) */
#define OSSDFS_INODE_NUMBER 1u
#define OSSDFS_NAME_MAX     240       /* bytes of a name in a dir slot */

struct fs;
struct fs_loop;
struct dir;
struct xattr;

/* Inode fields kept as the OSSDFS_PAGE_INODE attribute. */
struct dinode
{
  uint32_t mode, uid, gid, nlink;
  uint64_t rdev;
  struct timespec atime, mtime, ctime, btime;
};

/* A byte range [start, end). */
struct span
{
  uint64_t start, end;
};

struct inode
{
  struct inode *hnext;        /* fs inode table chain */
  uint64_t oid;
  uint64_t refs;              /* in-flight operations (fs->lock) */
  uint64_t nlookup;           /* kernel references (fs->lock) */
  pthread_mutex_t lock;       /* everything below */
  struct dinode d;
  uint64_t size;              /* file size */
  uint64_t drive_size;        /* object length on the drive (<= size when
                                 zeros were appended: file.c) */
  uint64_t allocated;         /* bytes mapped on the drive (at load, plus
                                 what writes appended since) */
  uint32_t nopen;             /* open file handles */
  bool dirty;                 /* d.mtime/ctime or the length newer than
                                 on the drive */
  bool orphan;                /* nlink 0, listed in the orphan directory */
  bool removed;               /* object gone from the drive */
  struct dir *dir;            /* directory contents, loaded on demand */
  struct xattr *xattrs;       /* extended attributes (loaded with inode) */
  uint64_t cap_version;       /* the object's capability version (caps.c) */
  struct span *promise;       /* sectors promised to zeros not on the
                                 drive (space.c) */
  size_t npromise, cappromise;
  /* Striped regular files (fs->ndrives > 1): each drive's object length,
   * and the size as last stored on drive 0; drive_size is then the file
   * offset the drives' objects reach. */
  uint64_t *dlen;
  uint64_t meta_size;
  uint32_t writers;           /* striped writes in flight (file.c) */
  pthread_mutex_t parity_lock;     /* RAID-5 row updates (parity.c) */
  uint64_t parity_reach;      /* parity_lock: the file offset past which
                                 the drives hold nothing (zeros) */
};

/* stats.c: what is counted (one call count and total time each). */
enum fs_stat
{
  SC_LOOKUP, SC_GETATTR, SC_SETATTR, SC_OPEN, SC_READ, SC_WRITE, SC_FLUSH,
  SC_RELEASE, SC_FSYNC, SC_GETXATTR, SC_CREATE, SC_UNLINK,
  SC_WRITE_ZERO, SC_DRIVE_WRITE, SC_DRIVE_READ, SC_DRIVE_COMPOUND,
  SC_DRIVE_FLUSH, SC_DRIVE_FLUSH_SKIPPED,
  SC_LOOP_SLEEP, SC_LOOP_CONCURRENT,
  SC_DRIVE_INFO,
  SC_SPIKE_STEERED,           /* RAID-5 reads rebuilt around a spike */
  SC_COUNT
};
struct fs_stats
{
  _Atomic uint64_t n[SC_COUNT], ns[SC_COUNT];
};

/* space.c: drive space promised to zeros kept off the drive. */
struct fs_space
{
  pthread_mutex_t lock;
  bool known;                 /* avail was set from an INFO */
  int64_t avail;              /* lower bound: drive free bytes - promised */
  uint64_t promised;          /* sector bytes promised, not yet written */
  uint64_t inflight;          /* sector bytes of writes not yet answered */
};

/* One member drive of the mount (drive 0 holds the metadata). */
struct fs_drive
{
  ossd_t *o;
  char *uri;
  _Atomic uint64_t mod_gen;   /* modifying commands finished (flush.c) */
  _Atomic uint64_t flushed_gen;    /* mod_gen covered by the last FLUSH */
  _Atomic bool failed;        /* RAID-5: out of the array (parity.c) */
  bool unreachable;           /* could not be reached at mount: every
                                 call on o fails (ossd_connect_unreachable) */
  _Atomic uint64_t restarts_seen;   /* ossd_drive_restarts last looked at */
};

struct fs
{
  ossd_t *o;                  /* drive 0's connection (= drive[0].o) */
  char *uri;                  /* drive 0's URI */
  uint32_t ndrives;           /* 1: an ordinary one-drive mount */
  struct fs_drive *drive;     /* [ndrives] */
  struct ossd_geometry geom;  /* stripe unit, ndrives and the level */
  struct ossd_array_state state;   /* RAID-5 (parity.c; state_lock) */
  pthread_mutex_t state_lock;
  /* RAID-5 spike avoidance (parity.c): host/raid's latency monitor, fed
   * by every parity.c call to a drive; reads of a drive in a spike are
   * rebuilt from the rest of the row instead. */
  struct raid_monitor *monitor;
  pthread_mutex_t monitor_lock;
  bool spike_avoid;
  pthread_t watch_thread;     /* RAID-5: the drives' health (parity.c) */
  bool watch_started;
  _Atomic bool watch_stop;
  bool labelled;              /* the drives carry an array label */
  uint8_t uuid[16];           /* the array's, when labelled */
  uint64_t pid;
  bool daemon;                /* log to syslog too */
  double timeout;             /* entry/attr cache timeout, seconds */
  pthread_mutex_t lock;       /* table, refs, nlookup, OID range */
  pthread_mutex_t ns_lock;    /* namespace changes */
  struct inode **table;
  size_t nbuckets;
  uint64_t next_oid, oid_limit;    /* reserved OID range [next, limit) */
  struct fuse_session *se;     /* for notifications to the kernel */
  struct fs_stats stats;
  struct fs_loop *loop;       /* loop.c */
  bool want_killpriv_v2;      /* ask for FUSE_HANDLE_KILLPRIV_V2 */
  _Atomic bool init_reply_seen;  /* killpriv.c: the INIT reply went out */
  bool killpriv_v2;           /* the kernel left suid clearing to us
                                 (killpriv.c) */
  /* Capabilities handed to callers (caps.c). */
  uint64_t cap_ttl_ns;
  bool direct_io;             /* --direct-io: no page cache for file data */
  bool kernel_group_set;
  gid_t kernel_gid;
  struct fs_space space;      /* space.c */
};

/* ---- errors.c ---------------------------------------------------------- */
/* Map a libossd failure of `cmd` on object oid to a negative errno; logs
 * a line for EIO and anything unexpected.  Returns the errno to reply. */
int fs_fail (struct fs *fs, int r, const ossd_error *err, const char *cmd,
             uint64_t oid);
void fs_log (struct fs *fs, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* ---- stats.c ---------------------------------------------------------- */
/* Count one `st` that started at t0 (0: count only, no time). */
void stats_done (struct fs *fs, enum fs_stat st, uint64_t t0);
void stats_reset (struct fs *fs);
/* One line per non-zero counter into buf; returns the length. */
int stats_format (struct fs *fs, char *buf, size_t cap);
/* The operation table's timed versions of the hot operations. */
void timed_lookup (fuse_req_t, fuse_ino_t, const char *);
void timed_getattr (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void timed_setattr (fuse_req_t, fuse_ino_t, struct stat *, int,
                    struct fuse_file_info *);
void timed_open (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void timed_read (fuse_req_t, fuse_ino_t, size_t, off_t,
                 struct fuse_file_info *);
void timed_write (fuse_req_t, fuse_ino_t, const char *, size_t, off_t,
                  struct fuse_file_info *);
void timed_flush (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void timed_release (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void timed_fsync (fuse_req_t, fuse_ino_t, int, struct fuse_file_info *);
void timed_getxattr (fuse_req_t, fuse_ino_t, const char *, size_t);
void timed_create (fuse_req_t, fuse_ino_t, const char *, mode_t,
                   struct fuse_file_info *);
void timed_unlink (fuse_req_t, fuse_ino_t, const char *);

/* ---- flush.c ------------------------------------------------------------ */
/* After every command that may have changed drive 0 / drive d (answered). */
void fs_modified (struct fs *fs);
void fs_modified_drive (struct fs *fs, uint32_t d);

/* priority.c: user.ossd.priority of a regular file (docs/qos.md): its
 * value as text into buf (length, or -errno), and setting it for caller
 * (0 or -errno: EINVAL for anything but one digit 0..7, EPERM for another
 * user's file without root). */
int priority_xattr_get (struct fs *fs, struct inode *ip, char *buf, size_t cap);
int priority_xattr_set (struct fs *fs, uid_t caller, struct inode *ip, const char *value,
                        size_t size);
/* FLUSH every drive that changed since its last FLUSH, the data drives
 * (N-1 down to 1) before drive 0; returns 0 or a negative errno (logged,
 * naming oid). */
int fs_flush (struct fs *fs, uint64_t oid);
/* The same for drive d alone. */
int fs_flush_drive (struct fs *fs, uint32_t d, uint64_t oid);
/* Whether drive d's connection was opened again (the drive restarted)
 * since this was last asked while this mount had changed it after its
 * last FLUSH: those changes may be lost.  Notes the reconnect as seen. */
bool fs_drive_lost_writes (struct fs *fs, uint32_t d);

/* ---- stripe.c: regular files over an array (fs->ndrives > 1) ------------ */
static inline bool
fs_striped (const struct fs *fs)
{
  return fs->ndrives > 1;
}
static inline bool
fs_parity (const struct fs *fs)
{
  return fs->geom.level == OSSD_ARRAY_RAID5;
}
/* Mount: check every drive's array label against the others and the
 * order given (or that a lone drive is no array member); sets fs->geom,
 * fs->labelled, fs->uuid.  want_unit 0: the label's.  Logs the reason. */
int stripe_check_labels (struct fs *fs, uint64_t want_unit);
/* Every OID of drive d's partition after `after`, ascending (malloc'd). */
int stripe_list_all (struct fs *fs, uint32_t d, uint64_t after,
                     uint64_t **out, size_t *count);
/* Mount: remove objects of the data drives that drive 0 has no file for
 * (left by a crash between a drive-0 change and the data drives'). */
int stripe_clean_strays (struct fs *fs);
/* Read [off, off+size) of a striped file into buf (holes and bytes past
 * a drive's object read as zeros). */
int stripe_read (struct fs *fs, struct inode *ip, uint64_t off, char *buf,
                 size_t size);
/* Write it; ends[d] gets the end offset reached on drive d (0: not
 * touched).  Neither takes ip->lock. */
int stripe_write (struct fs *fs, struct inode *ip, uint64_t off,
                  const char *buf, size_t size, uint64_t *ends);
/* Deallocate [off, off+len) (ip->lock held). */
int stripe_punch (struct fs *fs, struct inode *ip, uint64_t off, uint64_t len);
/* Set the objects of drives from..N-1 to the lengths a file of `size`
 * bytes implies (ip->lock held); updates ip->dlen. */
int stripe_set_lengths (struct fs *fs, struct inode *ip, uint64_t size,
                        uint32_t from);
/* A new regular file's objects on the data drives (before drive 0's
 * COMPOUND names it; an object left there by a crash is emptied). */
int stripe_create_data (struct fs *fs, uint64_t oid);
/* Remove a regular file's objects from the data drives (after drive 0
 * dropped it; missing ones are fine). */
void stripe_remove_data (struct fs *fs, uint64_t oid);
/* Revoke the capabilities of the data drives' objects too: their
 * capability version becomes `version`, drive 0's (after its batch). */
int stripe_set_cap_version (struct fs *fs, struct inode *ip,
                            uint64_t version);
/* Inode load of a striped regular file: the drives' lengths and mapped
 * bytes; cuts objects past the stored size (data a crash left beyond
 * what was made visible).  size_attr: the stored size, or NULL. */
int stripe_load (struct fs *fs, struct inode *ip, const uint64_t *size_attr,
                 uint64_t drive0_len, uint64_t drive0_alloc);
/* Free and capacity bytes over the array, as statfs and space.c count
 * them (free: N times the fullest drive's free bytes). */
int stripe_space (struct fs *fs, uint64_t *capacity, uint64_t *free_bytes,
                  uint64_t *objects);
/* The user.ossd.layout text of the mount into buf. */
int stripe_layout_text (struct fs *fs, char *buf, size_t cap);

/* ---- parity.c: RAID-5 regular files (fs_parity) ------------------------ */
/* Drive d is out of the array (failed, or stale since it did). */
bool fs_drive_failed (struct fs *fs, uint32_t d);
/* The drive to read the metadata from: 0, or on RAID-5 with drive 0 out,
 * drive 1 (its copy: batch.c). */
uint32_t fs_meta_drive (struct fs *fs);
static inline ossd_t *
fs_meta (struct fs *fs)
{
  return fs->drive[fs_meta_drive (fs)].o;
}
/* Take drive d out of the array and store that on the others: 0, or
 * -EIO when another drive is out already (logged with why). */
int parity_drive_failed (struct fs *fs, uint32_t d, const char *why);
/* RAID-5: whether a metadata change just made on drive d goes to drive
 * 1's copy too (d is drive 0 and drive 1 is in), and what to do when the
 * copy refuses it (r < 0: drive 1 is taken out, as failed or stale). */
bool fs_meta_copy (struct fs *fs, uint32_t d);
void parity_copy_refused (struct fs *fs, int r, const ossd_error *err,
                          const char *what);
/* A call to drive d failed with r: when that is the transport (the drive
 * is gone or stalled) on a RAID-5 array, take the drive out and return
 * true (do without it); else false (report r). */
bool parity_lost (struct fs *fs, uint32_t d, int r, const ossd_error *err,
                  const char *cmd);
/* Mount: the array state of the drives (the newest); stale drives are
 * marked failed.  -EIO when more than one is stale. */
int parity_mount_state (struct fs *fs);
/* End of mount: when the array was not unmounted cleanly, make every
 * row's parity its data's XOR again (rows written when ossdfs died may be
 * stale: the write hole); then mark it open.  parity_mount_close at a
 * clean unmount, after the last FLUSH, marks it closed. */
int parity_mount_open (struct fs *fs);
void parity_mount_close (struct fs *fs);
/* As stripe_read, stripe_write and stripe_punch, keeping parity. */
int parity_read (struct fs *fs, struct inode *ip, uint64_t off, char *buf,
                 size_t size);
int parity_write (struct fs *fs, struct inode *ip, uint64_t off,
                  const char *buf, size_t size, uint64_t *ends);
int parity_punch (struct fs *fs, struct inode *ip, uint64_t off, uint64_t len);
/* RAID-5: watch the drives while mounted (every 500 ms a drive not heard
 * from is asked for its INFO; one that does not answer, or restarted
 * with writes not yet FLUSHed, is taken out), so that the layout pg_ossd
 * reads names it before a scan is sent there. */
int parity_watch_start (struct fs *fs);
void parity_watch_stop (struct fs *fs);
/* Before the file is cut to `size` bytes: the parity of the row holding
 * byte size - 1 as it will be (that row's data past size zeros), from the
 * data as it is now (a lost unit rebuilt from the old parity first). */
int parity_cut_row (struct fs *fs, struct inode *ip, uint64_t size);

/* ---- space.c ----------------------------------------------------------- */
void space_init (struct fs *fs);
/* Promise the sectors of [off, off+len) of ip (ip->lock held) that are not
 * yet promised: 0, or -ENOSPC when the drive's free space does not cover
 * them beside every other promise (or -ENOMEM). */
int space_promise (struct fs *fs, struct inode *ip, uint64_t off,
                   uint64_t len);
/* Around a data write of [off, off+len) of ip: begin (ip->lock held)
 * returns -ENOSPC if it would surely map sectors the promises need; end
 * (ip->lock not held) gets the write's result and takes the written
 * sectors off ip's promise. */
struct space_ticket
{
  uint64_t bytes, maybe;
};
int space_write_begin (struct fs *fs, struct inode *ip, uint64_t off,
                       uint64_t len, struct space_ticket *t);
void space_write_end (struct fs *fs, struct inode *ip, uint64_t off,
                      uint64_t len, const struct space_ticket *t, int r);
/* Around a COMPOUND that writes `bytes` (sector-rounded) of metadata. */
void space_batch_begin (struct fs *fs, uint64_t bytes);
void space_batch_end (struct fs *fs, uint64_t bytes);
/* Drop ip's promises of whole sectors in [off, end) (ip->lock held, or ip
 * unreachable): truncate, punch, remove. */
void space_drop (struct fs *fs, struct inode *ip, uint64_t off, uint64_t end);
uint64_t space_promised (struct fs *fs);

/* ---- loop.c ------------------------------------------------------------- */
/* After fuse_session_mount: install the device I/O (non-blocking reads,
 * replies through killpriv_writev when fs->want_killpriv_v2) and prepare
 * a loop of at most max_threads threads whose reader polls for spin_ns
 * before sleeping.  Sets fs->loop.  Returns 0 or a negative errno. */
int loop_setup (struct fs *fs, struct fuse_session *se, uint64_t spin_ns,
                unsigned max_threads);
/* Serve requests on this thread and the loop's own until the session
 * ends; returns 0 or the receive error that ended it. */
int loop_run (struct fs_loop *l);
void loop_free (struct fs_loop *l);
/* libossd's before_wait hook (arg: the struct fs): a leader about to wait
 * for the drive while other requests are queued switches the loop to
 * concurrent mode, so they do not wait behind the drive command. */
void loop_before_drive_wait (void *arg);

/* ---- killpriv.c --------------------------------------------------------- */
/* The reply path with FUSE_HANDLE_KILLPRIV_V2 OR-ed into the INIT reply
 * (sets fs->killpriv_v2 when sent); every other reply passes as is. */
ssize_t killpriv_writev (struct fs *fs, int fd, struct iovec *iov, int count);
/* xattr.c: drop security.capability (ip->lock held); *killed says if it
 * was there.  0 or the drive's error. */
int xattr_kill_capability_locked (struct fs *fs, struct inode *ip, bool *killed);
/* Whether a write/truncate/chown by req's caller must clear ip's suid
 * (and group-executable sgid) bits (ip->lock held). */
bool inode_needs_kill_suid (const struct inode *ip, fuse_req_t req);

/* ---- batch.c: COMPOUND builder ---------------------------------------- */
#define BATCH_MAX 16
#define BATCH_SCRATCH 256
struct batch
{
  size_t n;
  Ossd__CompoundOp op[BATCH_MAX], *opp[BATCH_MAX];
  Ossd__ObjectId id[BATCH_MAX];
  union
  {
    Ossd__Create create;
    Ossd__Remove remove;
    Ossd__Write write;
    Ossd__SetLength set_length;
    Ossd__SetAttributes set_attrs;
  } body[BATCH_MAX];
  Ossd__Attribute attr[BATCH_MAX], *attrp[BATCH_MAX];
  bool share[BATCH_MAX];      /* a length of drive 0's own share */
  uint8_t scratch[BATCH_MAX][BATCH_SCRATCH];  /* copies of small values */
};
void batch_init (struct batch *b);
void batch_create (struct batch *b, uint64_t pid, uint64_t oid);
void batch_remove (struct batch *b, uint64_t pid, uint64_t oid);
/* data of up to BATCH_SCRATCH bytes is copied; larger must outlive run */
void batch_write (struct batch *b, uint64_t pid, uint64_t oid, uint64_t off,
                  const void *data, size_t len);
void batch_set_length (struct batch *b, uint64_t pid, uint64_t oid,
                       uint64_t len);
/* The length of drive 0's share of a striped file: drive 0 only. */
void batch_set_share_length (struct batch *b, uint64_t pid, uint64_t oid,
                             uint64_t len);
void batch_set_attr (struct batch *b, uint64_t pid, uint64_t oid,
                     uint32_t page, uint32_t number, const void *val,
                     size_t len);
/* Store ip's inode fields d (not yet applied to ip). */
void batch_inode (struct batch *b, struct fs *fs, uint64_t oid,
                  const struct dinode *d);
/* Store a striped file's size (OSSD_FS_SIZE_NUMBER) on drive 0. */
void batch_size (struct batch *b, struct fs *fs, uint64_t oid, uint64_t size);
/* Run atomically; returns 0 or a negative errno (logged by fs_fail). */
int batch_run (struct fs *fs, struct batch *b, const char *what,
               uint64_t oid);

/* ---- super.c ---------------------------------------------------------- */
/* Create the partition and the filesystem if absent, check it, clean
 * orphans left by a crash. */
int super_mount (struct fs *fs);
/* A fresh OID (from the reserved range, reserving more by CAS). */
int super_alloc_oid (struct fs *fs, uint64_t *oid);

/* ---- inode.c ---------------------------------------------------------- */
#define INODE_DISK_SIZE 96
void inode_encode (const struct dinode *d, uint8_t out[INODE_DISK_SIZE]);
int inode_decode (struct dinode *d, const uint8_t *in, size_t len);
int inode_table_init (struct fs *fs);
void inode_table_free (struct fs *fs);
/* Find or load; takes a reference (inode_put). */
int inode_get (struct fs *fs, uint64_t oid, struct inode **out);
/* A new inode for a just-created object; takes a reference. */
struct inode *inode_new (struct fs *fs, uint64_t oid, const struct dinode *d,
                         uint64_t size);
void inode_put (struct fs *fs, struct inode *ip);
void inode_lookup_ref (struct fs *fs, struct inode *ip);   /* nlookup++ */
void inode_forget (struct fs *fs, uint64_t oid, uint64_t n);
void inode_stat (const struct inode *ip, struct stat *st);
/* Write the inode's fields through (ip->lock held). */
int inode_store (struct fs *fs, struct inode *ip);
/* Store every dirty inode (unmount). */
void inode_store_all (struct fs *fs);
void fs_now (struct timespec *ts);

static inline uint64_t
ino_to_oid (fuse_ino_t ino)
{
  return ino == FUSE_ROOT_ID ? OSSDFS_ROOT_OID : ino;
}
static inline fuse_ino_t
oid_to_ino (uint64_t oid)
{
  return oid == OSSDFS_ROOT_OID ? FUSE_ROOT_ID : oid;
}

/* ---- dir.c ------------------------------------------------------------ */
#define DIR_SLOT 256
struct dentry
{
  struct dentry *hnext;
  uint64_t oid;
  uint32_t slot;
  uint32_t hash;
  uint8_t type;               /* DT_* */
  uint8_t namelen;
  char name[];                /* NUL-terminated */
};
struct dir
{
  uint64_t parent;
  struct dentry **slots;      /* slots[0] is the header: always NULL */
  uint32_t nslots, capslots;
  struct dentry **buckets;
  uint32_t nbuckets, count;
  uint32_t *freeslots;
  uint32_t nfree, capfree;
};
/* Make sure ip->dir is loaded (ip->lock held). */
int dir_load (struct fs *fs, struct inode *ip);
void dir_free (struct dir *d);
struct dir *dir_new (uint64_t parent);   /* empty, for a new directory */
struct dentry *dir_find (const struct dir *d, const char *name);
/* The slot the next insertion will use (does not reserve it). */
uint32_t dir_next_slot (const struct dir *d);
int dir_insert (struct dir *d, uint32_t slot, const char *name, uint64_t oid,
                uint8_t type);
void dir_erase (struct dir *d, struct dentry *e);
void dir_encode_header (uint8_t out[DIR_SLOT], uint64_t self, uint64_t parent);
void dir_encode_slot (uint8_t out[DIR_SLOT], const char *name, uint64_t oid,
                      uint8_t type);
uint8_t dir_type (uint32_t mode);

/* ---- ops.c, file.c, xattr.c: FUSE operations --------------------------- */
extern const struct fuse_lowlevel_ops ossdfs_ops;
void fsop_lookup (fuse_req_t, fuse_ino_t, const char *);
void fsop_forget (fuse_req_t, fuse_ino_t, uint64_t);
void fsop_forget_multi (fuse_req_t, size_t, struct fuse_forget_data *);
void fsop_getattr (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void fsop_setattr (fuse_req_t, fuse_ino_t, struct stat *, int,
                 struct fuse_file_info *);
void fsop_readlink (fuse_req_t, fuse_ino_t);
void fsop_mknod (fuse_req_t, fuse_ino_t, const char *, mode_t, dev_t);
void fsop_mkdir (fuse_req_t, fuse_ino_t, const char *, mode_t);
void fsop_unlink (fuse_req_t, fuse_ino_t, const char *);
void fsop_rmdir (fuse_req_t, fuse_ino_t, const char *);
void fsop_symlink (fuse_req_t, const char *, fuse_ino_t, const char *);
void fsop_rename (fuse_req_t, fuse_ino_t, const char *, fuse_ino_t,
                const char *, unsigned int);
void fsop_link (fuse_req_t, fuse_ino_t, fuse_ino_t, const char *);
void fsop_create (fuse_req_t, fuse_ino_t, const char *, mode_t,
                struct fuse_file_info *);
void fsop_opendir (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void fsop_readdir (fuse_req_t, fuse_ino_t, size_t, off_t,
                 struct fuse_file_info *);
void fsop_readdirplus (fuse_req_t, fuse_ino_t, size_t, off_t,
                     struct fuse_file_info *);
void fsop_releasedir (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void fsop_fsyncdir (fuse_req_t, fuse_ino_t, int, struct fuse_file_info *);
void fsop_statfs (fuse_req_t, fuse_ino_t);

void fsop_open (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void fsop_read (fuse_req_t, fuse_ino_t, size_t, off_t, struct fuse_file_info *);
void fsop_write (fuse_req_t, fuse_ino_t, const char *, size_t, off_t,
               struct fuse_file_info *);
void fsop_flush (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void fsop_release (fuse_req_t, fuse_ino_t, struct fuse_file_info *);
void fsop_fsync (fuse_req_t, fuse_ino_t, int, struct fuse_file_info *);
void fsop_fallocate (fuse_req_t, fuse_ino_t, int, off_t, off_t,
                   struct fuse_file_info *);
/* Drop an open handle; removes an orphan at its last close. */
void file_close (struct fs *fs, struct inode *ip);

void fsop_setxattr (fuse_req_t, fuse_ino_t, const char *, const char *, size_t,
                  int);
void fsop_getxattr (fuse_req_t, fuse_ino_t, const char *, size_t);
void fsop_listxattr (fuse_req_t, fuse_ino_t, size_t);
void fsop_removexattr (fuse_req_t, fuse_ino_t, const char *);
/* Parse the xattr attributes of a GET ATTRIBUTES answer into ip. */
int xattr_load (struct inode *ip, Ossd__Attribute *const *attrs, size_t n);

/* ---- caps.c ------------------------------------------------------------ */
/* user.ossd.cap / user.ossd.kernelcap: a capability for the caller, in
 * text form, into buf (ip->lock held).  Returns its length, -EACCES when
 * the caller may not have one, or 0 when name is neither. */
int caps_xattr (struct fs *fs, fuse_req_t req, struct inode *ip,
                const char *name, char *buf, size_t cap);
/* The "cap TEXT" line (drive 0) and a "cap.D TEXT" line for each other
 * drive of the array that grants one, for user.ossd.scan, into buf
 * (ip->lock held).  Returns their length: 0 when the caller's permissions
 * give no rights on the file, -ERANGE when buf is too small. */
int caps_scan_lines (struct fs *fs, fuse_req_t req, struct inode *ip,
                     char *buf, size_t cap);
void xattr_free (struct inode *ip);

static inline struct fs *
req_fs (fuse_req_t req)
{
  return fuse_req_userdata (req);
}

#endif /* OSSDFS_H */
