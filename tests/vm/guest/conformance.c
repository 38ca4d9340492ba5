/* conformance.c - ossd-vm-conformance: the channel conformance suite that
 * the VM suite runs in its guest, over each kernel driver's transport
 * (nvme: on the NVMe driver, sg: on virtio-scsi and on AHCI/libata), with
 * libossd's public API only.  Prints TAP on stdout.
 *
 *   ossd-vm-conformance [options] NAME=URI [NAME=URI...]
 *     --key-file FILE      the drive's master key
 *     --timeout-ms N       libossd's deadline (also the kernel's command
 *                          timeout of sg: and nvme:), default 8000
 *     --kernel-timeout NAME=S  the guest kernel's command timeout of NAME's
 *                          disk (sysfs), the long poll must end well within
 *     --pages FILE         a relation file of real PostgreSQL heap pages
 *                          (a int4, b int8, c text), scanned on the drive
 *     --expect COUNT:SUM   PostgreSQL's count(*), sum(a) where a % 3 = 0
 *     --xmin N             the snapshot xmin for the scan
 *     --fault stop|kill    instead of the suite: the fault case (below)
 *     --fault-secs N       how long the host keeps the drive away
 *
 * Cases, per transport: connect and the control block; slot claim and
 * release counted in the control block read raw through the transport; a
 * slot claimed by a bare CLAIM frame and left to its lease (checked once
 * for all transports at the end); a request of many chunks and a response
 * of many chunks (16 KiB chunks); the event window's long poll timed
 * against the kernel's command timeout; drive errors (missing object,
 * existing object, a WRITE to a missing partition failing the block WRITE
 * itself, a frame with a foreign nonce refused by the drive, an
 * unaligned I/O) as clear errors; a SCAN of the heap pages with a filter
 * kernel.  Across transports: an object written through each read back
 * through the next, md5 equal.
 *
 * Fault case: connect to every transport and write a reference object,
 * print "# vm-fault: MODE SECS" (the host then SIGSTOPs the drive, or
 * kills it and restarts it SECS later), and issue a read and an event
 * poll on every transport at once: each must end within the deadline
 * plus the fault's length with success or a clear error, and afterwards
 * the same handle must read the reference object back intact.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "libossd.h"
#include "ossd_rt.h"
#include "ossd_scan.h"
#include "ossd_transport.h"
#include "../../../offload_runtime/tests/rt_corpus.h"

#define MAX_DEVS 6
#define PID_CONF 77                   /* partition of the suite's objects */
#define CHUNK 16384                   /* small chunks: many per message */
#define BIG_LEN (192 * 1024)          /* 12+ chunks each way */
#define XFER_LEN (4u << 20)           /* object moved across transports */

struct dev
{
  char name[32];
  const char *uri;
  int kernel_timeout_s;               /* 0: not given */
};

struct opts
{
  const char *key_file;
  uint32_t timeout_ms;
  const char *pages;
  long expect_count;
  long long expect_sum;
  uint32_t xmin;
  const char *fault;
  int fault_secs;
  struct dev devs[MAX_DEVS];
  int n;
};

static int tap_n, tap_failed;

static void __attribute__ ((format (printf, 2, 3)))
tap (bool ok, const char *fmt, ...)
{
  va_list ap;
  printf ("%sok %d - ", ok ? "" : "not ", ++tap_n);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  fflush (stdout);
  if (!ok)
    tap_failed++;
}

static void __attribute__ ((format (printf, 1, 2)))
diag (const char *fmt, ...)
{
  va_list ap;
  fputs ("# ", stdout);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  fflush (stdout);
}

static double
secs_since (uint64_t t0)
{
  return (double) (ossd_mono_ns () - t0) / 1e9;
}

static int
connect_dev (const struct opts *op, const struct dev *d, uint32_t slots,
             uint32_t max_chunk, ossd_t **o, ossd_error *err)
{
  struct ossd_connect_opts co = {
    .slots = slots, .max_slots = slots < 4 ? 4 : slots,
    .max_chunk = max_chunk, .client_name = "vm-conformance",
    .timeout_ms = op->timeout_ms, .key_file = op->key_file,
  };
  return ossd_connect (d->uri, &co, o, err);
}

/* The control block, read raw through a transport of its own. */
static int
read_control (const char *uri, struct ossd_control *c, char *why,
              size_t whylen)
{
  struct ossd_transport *t;
  void *lba;
  int r = ossd_transport_open (uri, NULL, &t, why, whylen);
  if (r < 0)
    return r;
  if (posix_memalign (&lba, OSSD_LBA_SIZE, OSSD_LBA_SIZE)) {
    ossd_transport_close (t);
    return -ENOMEM;
  }
  r = ossd_transport_pread (t, lba, OSSD_LBA_SIZE,
                            t->size_bytes - OSSD_LBA_SIZE, why, whylen);
  if (r == 0)
    r = ossd_control_decode (lba, c, why, whylen);
  free (lba);
  ossd_transport_close (t);
  return r;
}

static int
owned_slots (const struct ossd_control *c)
{
  int n = 0;
  for (uint32_t i = 0; i < c->slot_count && i < OSSD_MAX_SLOTS; i++)
    n += c->slot_owner[i] != 0;
  return n;
}

/* One frame of a serialized Request to slot `slot`'s request window
 * under `nonce`, written raw through the transport. */
static int
send_raw_request (const char *uri, const struct ossd_control *c,
                  uint32_t slot, uint64_t nonce, const Ossd__Request *req,
                  char *why, size_t whylen)
{
  struct ossd_transport *t;
  struct ossd_frame_hdr h = { 0 };
  uint8_t *lba;
  size_t n = ossd__request__get_packed_size (req);
  int r;

  if (n + OSSD_FRAME_HDR_SIZE > OSSD_LBA_SIZE)
    return -EMSGSIZE;
  r = ossd_transport_open (uri, NULL, &t, why, whylen);
  if (r < 0)
    return r;
  if (posix_memalign ((void **) &lba, OSSD_LBA_SIZE, OSSD_LBA_SIZE)) {
    ossd_transport_close (t);
    return -ENOMEM;
  }
  memset (lba, 0, OSSD_LBA_SIZE);
  ossd__request__pack (req, lba + OSSD_FRAME_HDR_SIZE);
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  h.slot = slot;
  h.nonce = nonce;
  h.sequence = 1;
  h.total_length = n;
  ossd_frame_encode (&h, lba + OSSD_FRAME_HDR_SIZE, n, lba, OSSD_LBA_SIZE);
  r = ossd_transport_pwrite (t, lba, OSSD_LBA_SIZE,
                             ossd_request_lba (c, slot) * OSSD_LBA_SIZE,
                             why, whylen);
  free (lba);
  ossd_transport_close (t);
  return r;
}

static uint64_t
nonce_for (int k)
{
  return 0x564d0000c0de0000ull ^ ((uint64_t) getpid () << 20)
    ^ ((uint64_t) k << 8) ^ ossd_mono_ns ();
}

static void
md5_hex (const void *buf, size_t len, char out[33])
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  EVP_Digest (buf, len, md, &mdlen, EVP_md5 (), NULL);
  for (unsigned i = 0; i < mdlen && i < 16; i++)
    sprintf (out + 2 * i, "%02x", md[i]);
  out[32] = '\0';
}

static void
fill_random (uint8_t *p, size_t len, uint64_t seed)
{
  uint64_t x = seed | 1;
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p[i] = (uint8_t) x;
  }
}

/* ---- per-transport cases ------------------------------------------------ */

struct lease_claim
{
  bool made;
  uint32_t slot;
  uint64_t nonce;
  uint64_t at_ns;
};

static void
case_slots (const struct opts *op, const struct dev *d,
            struct lease_claim *lc)
{
  struct ossd_control before, during, after;
  char why[512];
  ossd_t *o = NULL;
  ossd_error err;

  int r = read_control (d->uri, &before, why, sizeof why);
  tap (r == 0, "%s: control block read raw through the transport "
       "(%u slots of %u LBAs, lease %u ms, poll %u ms)%s%s", d->name,
       before.slot_count, before.window_lbas, before.lease_ms,
       before.poll_timeout_ms, r ? ": " : "", r ? why : "");
  if (r < 0)
    return;
  /* connect claims one slot; three requests in flight at once claim two
   * more (libossd claims on demand, up to max_slots) */
  r = connect_dev (op, d, 3, 0, &o, &err);
  int rc = r == 0 ? read_control (d->uri, &during, why, sizeof why) : r;
  int got1 = rc == 0 ? owned_slots (&during) - owned_slots (&before) : -1;
  Ossd__Info info = OSSD__INFO__INIT;
  Ossd__Request rq[3];
  const Ossd__Request *rqp[3];
  Ossd__Response *rs[3] = { 0 };
  for (int i = 0; i < 3; i++) {
    ossd__request__init (&rq[i]);
    rq[i].body_case = OSSD__REQUEST__BODY_INFO;
    rq[i].info = &info;
    rqp[i] = &rq[i];
  }
  if (r == 0)
    r = ossd_call_many (o, rqp, 3, rs, &err);
  for (int i = 0; i < 3; i++)
    if (rs[i])
      ossd__response__free_unpacked (rs[i], NULL);
  rc = r == 0 ? read_control (d->uri, &during, why, sizeof why) : r;
  int got3 = rc == 0 ? owned_slots (&during) - owned_slots (&before) : -1;
  tap (r == 0 && rc == 0 && got1 == 1 && got3 == 3,
       "%s: connect claims a slot, 3 pipelined calls claim 3 (owners in the "
       "control block: %d, then %d more)%s%s", d->name, got1, got3,
       r ? ": " : "", r ? err.msg : "");
  ossd_disconnect (o);
  rc = read_control (d->uri, &after, why, sizeof why);
  tap (rc == 0 && owned_slots (&after) == owned_slots (&before),
       "%s: disconnect releases them (%d owned before, %d after)", d->name,
       owned_slots (&before), rc == 0 ? owned_slots (&after) : -1);

  /* A bare CLAIM frame, never renewed: the drive's lease frees it. */
  uint32_t slot = UINT32_MAX;
  for (uint32_t i = after.slot_count; i-- > 0;)
    if (after.slot_owner[i] == 0) {
      slot = i;
      break;
    }
  Ossd__Claim claim = OSSD__CLAIM__INIT;
  Ossd__Request req = OSSD__REQUEST__INIT;
  lc->nonce = nonce_for (slot);
  claim.nonce = lc->nonce;
  claim.max_chunk = OSSD_LBA_SIZE;
  claim.client = "vm-lease";
  req.body_case = OSSD__REQUEST__BODY_CLAIM;
  req.claim = &claim;
  r = slot == UINT32_MAX ? -EBUSY
    : send_raw_request (d->uri, &after, slot, lc->nonce, &req, why,
                        sizeof why);
  rc = r == 0 ? read_control (d->uri, &during, why, sizeof why) : r;
  lc->made = r == 0 && rc == 0 && during.slot_owner[slot] == lc->nonce;
  lc->slot = slot;
  lc->at_ns = ossd_mono_ns ();
  tap (lc->made, "%s: a CLAIM frame written raw to slot %u makes it ours%s%s",
       d->name, slot, r || rc ? ": " : "", r || rc ? why : "");
}

static void
case_chunks (const struct opts *op, const struct dev *d)
{
  ossd_t *o;
  ossd_error err;
  uint64_t oid = 100 + (uint64_t) (d - op->devs);
  uint8_t *data = malloc (BIG_LEN);
  int r = connect_dev (op, d, 1, CHUNK, &o, &err);
  if (r < 0 || data == NULL) {
    tap (false, "%s: connect with %d-byte chunks: %s", d->name, CHUNK,
         err.msg);
    free (data);
    return;
  }
  fill_random (data, BIG_LEN, oid);
  if (ossd_create (o, PID_CONF, oid, &err) < 0 && err.errnum != EEXIST)
    diag ("%s: create: %s", d->name, err.msg);

  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Write wr = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Response *resp = NULL;
  id.pid = PID_CONF;
  id.oid = oid;
  wr.obj = &id;
  wr.data.data = data;
  wr.data.len = BIG_LEN;
  req.body_case = OSSD__REQUEST__BODY_WRITE;
  req.write = &wr;
  size_t reqlen = ossd__request__get_packed_size (&req);
  uint64_t t0 = ossd_mono_ns ();
  r = ossd_call (o, &req, &resp, &err);
  tap (r == 0, "%s: one WRITE request of %zu bytes in %zu chunks of %d "
       "(%.2f s)%s%s", d->name, reqlen,
       (reqlen + CHUNK - OSSD_FRAME_HDR_SIZE - 1) / (CHUNK - OSSD_FRAME_HDR_SIZE),
       CHUNK, secs_since (t0), r ? ": " : "", r ? err.msg : "");
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  resp = NULL;

  rd.obj = &id;
  rd.length = BIG_LEN;
  req = (Ossd__Request) OSSD__REQUEST__INIT;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  t0 = ossd_mono_ns ();
  r = ossd_call (o, &req, &resp, &err);
  bool same = r == 0 && resp && resp->read && resp->read->data.len == BIG_LEN
    && memcmp (resp->read->data.data, data, BIG_LEN) == 0;
  tap (same, "%s: its READ answered by a response of %d+ chunks, bytes "
       "equal (%.2f s)%s%s", d->name, BIG_LEN / CHUNK, secs_since (t0),
       r ? ": " : "", r ? err.msg : "");
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  ossd_disconnect (o);
  free (data);
}

static void
case_long_poll (const struct opts *op, const struct dev *d)
{
  ossd_t *o;
  ossd_error err;
  uint64_t cursor = 0;
  Ossd__EventBatch *b = NULL;

  if (connect_dev (op, d, 1, 0, &o, &err) < 0) {
    tap (false, "%s: connect: %s", d->name, err.msg);
    return;
  }
  uint32_t poll_ms = ossd_control_block (o)->poll_timeout_ms;
  /* Catch up with the events so far: the next polls wait. */
  for (int i = 0; i < 50; i++) {
    if (ossd_poll_events (o, &cursor, &b, &err) < 0)
      break;
    size_t n = b ? b->n_events : 0;
    if (b)
      ossd__event_batch__free_unpacked (b, NULL);
    b = NULL;
    if (n == 0)
      break;
  }
  double worst = 0;
  int failed = 0;
  for (int i = 0; i < 2; i++) {
    uint64_t t0 = ossd_mono_ns ();
    int r = ossd_poll_events (o, &cursor, &b, &err);
    double s = secs_since (t0);
    if (r < 0) {
      failed++;
      diag ("%s: poll: %s", d->name, err.msg);
    }
    if (b)
      ossd__event_batch__free_unpacked (b, NULL);
    b = NULL;
    if (s > worst)
      worst = s;
  }
  /* The kernel's own timeout of the disk (sysfs) and the one libossd
   * gives each passthrough command (its deadline): the poll must end
   * well within both. */
  int limit = d->kernel_timeout_s;
  double cmd_s = op->timeout_ms / 1000.0;
  tap (failed == 0 && worst >= poll_ms / 1000.0 * 0.9
       && (limit == 0 || worst < limit) && worst < cmd_s,
       "%s: event window long poll: 2 polls of the drive's %u ms each "
       "ended NO_EVENT, longest %.2f s, within the disk's %d s kernel "
       "timeout and the commands' %.0f s", d->name, poll_ms, worst, limit,
       cmd_s);
  ossd_disconnect (o);
}

static bool
msg_names (const char *msg, const char *what)
{
  return msg[0] != '\0' && strstr (msg, what) != NULL;
}

static void
case_errors (const struct opts *op, const struct dev *d)
{
  ossd_t *o;
  ossd_error err;
  struct ossd_object_stat st;
  char why[512];
  uint64_t oid = 100 + (uint64_t) (d - op->devs);

  if (connect_dev (op, d, 1, 0, &o, &err) < 0) {
    tap (false, "%s: connect: %s", d->name, err.msg);
    return;
  }
  int r = ossd_stat (o, PID_CONF, 999999, &st, &err);
  tap (r < 0 && err.errnum == ENOENT && msg_names (err.msg, "999999"),
       "%s: STAT of a missing object: ENOENT, \"%s\"", d->name, err.msg);

  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Response *resp = NULL;
  id.pid = PID_CONF;
  id.oid = oid;
  cr.obj = &id;
  cr.exclusive = true;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &cr;
  r = ossd_call (o, &req, &resp, &err);
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  tap (r < 0 && err.errnum == EEXIST, "%s: exclusive CREATE of an existing "
       "object: EEXIST, \"%s\"", d->name, err.msg);

  /* Answered through the block WRITE (ACK_IN_WRITE): the kernel sees the
   * WRITE fail, libossd then reads the drive's reason. */
  char byte = 'x';
  r = ossd_write (o, 4242, 1, 0, &byte, 1, &err);
  tap (r < 0 && err.errnum == ENOENT, "%s: WRITE to a missing partition "
       "fails the block WRITE, then the reason: ENOENT, \"%s\"", d->name,
       err.msg);
  r = ossd_stat (o, PID_CONF, oid, &st, &err);
  tap (r == 0, "%s: the handle works after those errors%s%s", d->name,
       r ? ": " : "", r ? err.msg : "");
  ossd_disconnect (o);

  /* A frame under a nonce that does not own the slot: the drive fails
   * the block WRITE itself; the kernel driver passes it up. */
  struct ossd_control c;
  r = read_control (d->uri, &c, why, sizeof why);
  if (r == 0) {
    Ossd__Info info = OSSD__INFO__INIT;
    req = (Ossd__Request) OSSD__REQUEST__INIT;
    req.body_case = OSSD__REQUEST__BODY_INFO;
    req.info = &info;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < c.slot_count; i++)
      if (c.slot_owner[i] != 0) {
        slot = i;
        break;
      }
    /* slot 0 free: nobody owns it, the drive refuses the frame too */
    r = send_raw_request (d->uri, &c, slot, 0x0bad0bad0bad0badull, &req, why,
                          sizeof why);
  }
  tap (r < 0 && msg_names (why, "LBA"), "%s: a frame with a foreign nonce: "
       "the block WRITE fails (%s), \"%s\"", d->name, strerror (-r), why);

  struct ossd_transport *t;
  r = ossd_transport_open (d->uri, NULL, &t, why, sizeof why);
  if (r == 0) {
    void *buf;
    if (posix_memalign (&buf, OSSD_LBA_SIZE, 2 * OSSD_LBA_SIZE) == 0) {
      r = ossd_transport_pread (t, buf, OSSD_LBA_SIZE, 512, why, sizeof why);
      free (buf);
    }
    ossd_transport_close (t);
  }
  tap (r == -EINVAL && msg_names (why, "aligned"), "%s: an unaligned read "
       "is refused before the kernel: \"%s\"", d->name, why);
}

/* filter: col[0] (a) % 3 == 0 */
static const struct ossd_insn mod3[] = {
  LDX (W, 2, 1, COLV (0)),
  ALUI (MOD, 2, 3),
  JI (JNE, 2, 0, 2),
  MOVI (0, 1),
  EXIT,
  MOVI (0, 0),
  EXIT,
};

static void
case_scan (const struct opts *op, const struct dev *d, const uint8_t *pages,
           size_t pages_len, Ossd__KernelMode mode)
{
  ossd_t *o;
  ossd_error err;
  uint64_t oid = 200 + (uint64_t) (d - op->devs);
  const char *mname = mode == OSSD__KERNEL_MODE__KERNEL_INTERPRETER
    ? "interpreter" : "jit";

  if (connect_dev (op, d, 2, 0, &o, &err) < 0) {
    tap (false, "%s: connect: %s", d->name, err.msg);
    return;
  }
  if (mode == OSSD__KERNEL_MODE__KERNEL_INTERPRETER) {
    if (ossd_create (o, PID_CONF, oid, &err) < 0 && err.errnum != EEXIST)
      diag ("%s: create: %s", d->name, err.msg);
    int r = ossd_write (o, PID_CONF, oid, 0, pages, pages_len, &err);
    tap (r == 0, "%s: %zu PostgreSQL heap pages stored%s%s", d->name,
         pages_len / 8192, r ? ": " : "", r ? err.msg : "");
  }

  struct ossd_prog *p;
  char perr[256];
  void *raw = NULL;
  size_t rawlen = 0;
  if (ossd_prog_from_insns (mod3, sizeof mod3 / sizeof mod3[0], NULL, 0, &p,
                            perr, sizeof perr) < 0
      || ossd_prog_to_raw (p, &raw, &rawlen) < 0) {
    tap (false, "%s: filter kernel: %s", d->name, perr);
    ossd_disconnect (o);
    return;
  }
  ossd_prog_free (p);

  Ossd__Scan scan;
  Ossd__ScanTarget target = OSSD__SCAN_TARGET__INIT, *targetp = &target;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__BlockRange range = OSSD__BLOCK_RANGE__INIT, *rangep = &range;
  Ossd__ScanAttr attr[3], *attrp[3];
  static const int lens[3] = { 4, 8, -1 }, aligns[3] = { 4, 8, 4 };
  static const uint32_t types[3] = { 23, 20, 25 };
  uint32_t referenced[1] = { 1 }, projection[2] = { 1, 2 };

  ossd__scan__init (&scan);
  id.pid = PID_CONF;
  id.oid = oid;
  range.count = (uint32_t) (pages_len / 8192);
  target.obj = &id;
  target.n_ranges = 1;
  target.ranges = &rangep;
  for (int a = 0; a < 3; a++) {
    ossd__scan_attr__init (&attr[a]);
    attr[a].len = lens[a];
    attr[a].align = aligns[a];
    attr[a].byval = lens[a] > 0;
    attr[a].type_oid = types[a];
    attrp[a] = &attr[a];
  }
  scan.n_targets = 1;
  scan.targets = &targetp;
  scan.n_attrs = 3;
  scan.attrs = attrp;
  scan.snapshot_xmin = op->xmin;
  scan.filter_case = OSSD__SCAN__FILTER_FILTER_PROGRAM;
  scan.filter_program.data = raw;
  scan.filter_program.len = rawlen;
  scan.n_referenced = 1;
  scan.referenced = referenced;
  scan.n_projection = 2;
  scan.projection = projection;
  scan.mode = mode;
  scan.workers = 2;

  Ossd__Request req = OSSD__REQUEST__INIT;
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &scan;
  ossd_stream *s;
  Ossd__Response *resp;
  long count = 0, host_rows = 0, chunks = 0;
  long long sum = 0;
  bool bad = false;
  uint64_t t0 = ossd_mono_ns ();
  int r = ossd_stream_start (o, &req, &s, &err);
  while (r == 0 && (r = ossd_stream_next (s, &resp, &err)) == 0 && resp) {
    const Ossd__ScanChunk *c = resp->scan;
    chunks++;
    if (c == NULL) {
      bad = true;
      ossd__response__free_unpacked (resp, NULL);
      continue;
    }
    size_t pos = 0;
    bool byval[2] = { true, true };
    struct ossd_row_view row;
    struct ossd_value_view v[2];
    int k;
    while ((k = ossd_row_read (c->rows.data, c->rows.len, &pos, 2, byval,
                               &row, v)) == 1) {
      int32_t a = (int32_t) v[0].datum;
      if (a % 3 != 0 || (int64_t) v[1].datum != (int64_t) a * 10)
        bad = true;
      count++;
      sum += a;
    }
    if (k < 0)
      bad = true;
    if (c->host_rows.len > 0 || c->n_host_blocks > 0)
      host_rows++;
    ossd__response__free_unpacked (resp, NULL);
  }
  if (r == 0)
    ossd_stream_close (s);
  free (raw);
  tap (r == 0 && !bad && host_rows == 0 && count == op->expect_count
       && sum == op->expect_sum,
       "%s: SCAN with a filter kernel (%s) over real PostgreSQL pages: "
       "%ld rows, sum %lld in %ld messages (PostgreSQL: %ld, %lld; %.2f s)"
       "%s%s", d->name, mname, count, sum, chunks, op->expect_count,
       op->expect_sum, secs_since (t0), r ? ": " : "", r ? err.msg : "");
  ossd_disconnect (o);
}

/* An object written through each transport, read through the next. */
static void
case_across (const struct opts *op)
{
  uint8_t *data = malloc (XFER_LEN), *back = malloc (XFER_LEN);
  ossd_error err;

  for (int i = 0; i < op->n && data && back; i++) {
    const struct dev *w = &op->devs[i], *rd = &op->devs[(i + 1) % op->n];
    ossd_t *ow = NULL, *orr = NULL;
    uint64_t oid = 300 + (uint64_t) i;
    size_t nread = 0;
    char m1[33], m2[33] = "-";
    fill_random (data, XFER_LEN, oid * 7919);
    md5_hex (data, XFER_LEN, m1);
    uint64_t t0 = ossd_mono_ns ();
    int r = connect_dev (op, w, 4, 0, &ow, &err);
    if (r == 0 && ossd_create (ow, PID_CONF, oid, &err) < 0
        && err.errnum != EEXIST)
      r = -1;
    if (r == 0)
      r = ossd_write (ow, PID_CONF, oid, 0, data, XFER_LEN, &err);
    if (r == 0)
      r = ossd_flush (ow, &err);
    double ws = secs_since (t0);
    t0 = ossd_mono_ns ();
    if (r == 0)
      r = connect_dev (op, rd, 4, 0, &orr, &err);
    if (r == 0)
      r = ossd_read (orr, PID_CONF, oid, 0, back, XFER_LEN, &nread, &err);
    double rs = secs_since (t0);
    if (r == 0)
      md5_hex (back, nread, m2);
    tap (r == 0 && nread == XFER_LEN && strcmp (m1, m2) == 0,
         "4 MiB object written through %s (%.2f s), read through %s "
         "(%.2f s): md5 %s %s %s%s%s", w->name, ws, rd->name, rs, m1,
         strcmp (m1, m2) == 0 ? "=" : "!=", m2, r ? ": " : "",
         r ? err.msg : "");
    ossd_disconnect (ow);
    ossd_disconnect (orr);
  }
  free (data);
  free (back);
}

static void
case_leases (const struct opts *op, struct lease_claim *lc)
{
  uint32_t lease_ms = 0;
  struct ossd_control c;
  char why[512];

  if (read_control (op->devs[0].uri, &c, why, sizeof why) == 0)
    lease_ms = c.lease_ms;
  /* the drive checks leases on its own clock: give it a second more */
  uint64_t wait_until = 0;
  for (int i = 0; i < op->n; i++)
    if (lc[i].made && lc[i].at_ns + (lease_ms + 1500ull) * 1000000 > wait_until)
      wait_until = lc[i].at_ns + (lease_ms + 1500ull) * 1000000;
  while (ossd_mono_ns () < wait_until)
    usleep (100000);
  for (int i = 0; i < op->n; i++) {
    const struct dev *d = &op->devs[i];
    if (!lc[i].made)
      continue;
    int r = read_control (d->uri, &c, why, sizeof why);
    tap (r == 0 && c.slot_owner[lc[i].slot] == 0,
         "%s: the slot claimed raw is free again after its %u ms lease "
         "(%.1f s later)%s%s", d->name, lease_ms,
         (double) (ossd_mono_ns () - lc[i].at_ns) / 1e9, r ? ": " : "",
         r ? why : "");
  }
}

/* ---- the fault case ------------------------------------------------------ */

struct fault_call
{
  ossd_t *o;
  const struct dev *d;
  bool poll;                          /* event poll, else a read */
  int r;
  ossd_error err;
  double secs;
};

static void *
fault_call_run (void *arg)
{
  struct fault_call *fc = arg;
  uint64_t t0 = ossd_mono_ns ();
  if (fc->poll) {
    uint64_t cursor = UINT64_MAX / 2;
    Ossd__EventBatch *b = NULL;
    fc->r = ossd_poll_events (fc->o, &cursor, &b, &fc->err);
    if (b)
      ossd__event_batch__free_unpacked (b, NULL);
  }
  else {
    static __thread uint8_t buf[256 * 1024];
    size_t n;
    fc->r = ossd_read (fc->o, PID_CONF, 400, 0, buf, sizeof buf, &n,
                       &fc->err);
  }
  fc->secs = secs_since (t0);
  return NULL;
}

static bool
clean_error (const struct fault_call *fc)
{
  return fc->r == 0 || (fc->err.msg[0] != '\0' && fc->err.errnum > 0);
}

static int
run_fault (const struct opts *op)
{
  ossd_t *o[MAX_DEVS] = { 0 };
  ossd_error err;
  uint8_t *ref = malloc (256 * 1024), *back = malloc (256 * 1024);
  char m1[33];

  fill_random (ref, 256 * 1024, 400);
  md5_hex (ref, 256 * 1024, m1);
  for (int i = 0; i < op->n; i++) {
    int r = connect_dev (op, &op->devs[i], 2, 0, &o[i], &err);
    if (r == 0 && i == 0) {
      if (ossd_create_partition (o[i], PID_CONF, &err) < 0
          && err.errnum != EEXIST)
        r = -1;
      if (r == 0 && ossd_create (o[i], PID_CONF, 400, &err) < 0
          && err.errnum != EEXIST)
        r = -1;
      if (r == 0)
        r = ossd_write (o[i], PID_CONF, 400, 0, ref, 256 * 1024, &err);
      if (r == 0)
        r = ossd_flush (o[i], &err);
    }
    tap (r == 0, "%s: connected before the fault%s%s", op->devs[i].name,
         r ? ": " : "", r ? err.msg : "");
    if (r < 0)
      return 1;
  }
  printf ("# vm-fault: %s %d\n", op->fault, op->fault_secs);
  fflush (stdout);
  sleep (1);                          /* the host acts within ~0.3 s */

  struct fault_call fc[2 * MAX_DEVS];
  pthread_t th[2 * MAX_DEVS];
  int nc = 0;
  for (int i = 0; i < op->n; i++)
    for (int k = 0; k < 2; k++) {
      fc[nc] = (struct fault_call) { .o = o[i], .d = &op->devs[i],
                                     .poll = k == 1 };
      pthread_create (&th[nc], NULL, fault_call_run, &fc[nc]);
      nc++;
    }
  for (int i = 0; i < nc; i++)
    pthread_join (th[i], NULL);
  /* bound: the fault's length, then the deadline, each with slack for
   * the kernel's error handling under emulation */
  double bound = op->fault_secs + 2.0 * op->timeout_ms / 1000.0 + 10;
  for (int i = 0; i < nc; i++)
    tap (fc[i].secs < bound && clean_error (&fc[i]),
         "%s: %s outstanding at the %s ended after %.1f s (bound %.0f s): "
         "%s%s", fc[i].d->name, fc[i].poll ? "an event poll" : "a read",
         op->fault, fc[i].secs, bound,
         fc[i].r == 0 ? "succeeded" : strerror (fc[i].err.errnum),
         fc[i].r == 0 ? "" : fc[i].err.msg[0] ? "" : " (no message)");
  for (int i = 0; i < nc; i++)
    if (fc[i].r != 0)
      diag ("%s: %s", fc[i].d->name, fc[i].err.msg);

  /* The drive is back (continued, or restarted by the host): the same
   * handles must work again within a bound. */
  for (int i = 0; i < op->n; i++) {
    uint64_t t0 = ossd_mono_ns ();
    int r = -1, tries = 0;
    size_t n = 0;
    char m2[33] = "-", first[sizeof err.msg] = "";
    while (secs_since (t0) < 60) {
      tries++;
      r = ossd_read (o[i], PID_CONF, 400, 0, back, 256 * 1024, &n, &err);
      if (r == 0)
        break;
      diag ("%s: try %d: %s", op->devs[i].name, tries, err.msg);
      if (tries == 1)
        snprintf (first, sizeof first, "%s", err.msg);
      sleep (1);
    }
    if (r == 0)
      md5_hex (back, n, m2);
    /* A failure names the first try's error too: CI shows only this line */
    tap (r == 0 && strcmp (m1, m2) == 0, "%s: the same handle reads the "
         "object back after the %s (%d tries, %.1f s): md5 %s%s%s%s%s",
         op->devs[i].name, op->fault, tries, secs_since (t0), m2,
         r ? ": " : "", r ? err.msg : "",
         r && tries > 1 ? "; first try: " : "", r && tries > 1 ? first : "");
    ossd_disconnect (o[i]);
  }
  free (ref);
  free (back);
  printf ("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}

/* ---- main ------------------------------------------------------------------ */

static const char usage_text[] =
  "usage: ossd-vm-conformance [--key-file FILE] [--timeout-ms N]\n"
  "         [--kernel-timeout NAME=SECS] [--pages FILE --expect COUNT:SUM\n"
  "         --xmin N] [--fault stop|kill --fault-secs N] NAME=URI...\n"
  "The channel conformance suite over each transport (TAP on stdout);\n"
  "see tests/vm/README.md.\n";

static struct dev *
find_dev (struct opts *op, const char *name, size_t len)
{
  for (int i = 0; i < op->n; i++)
    if (strlen (op->devs[i].name) == len
        && strncmp (op->devs[i].name, name, len) == 0)
      return &op->devs[i];
  return NULL;
}

int
main (int argc, char **argv)
{
  static const struct option lo[] = {
    { "key-file", required_argument, NULL, 'k' },
    { "timeout-ms", required_argument, NULL, 't' },
    { "kernel-timeout", required_argument, NULL, 'K' },
    { "pages", required_argument, NULL, 'p' },
    { "expect", required_argument, NULL, 'e' },
    { "xmin", required_argument, NULL, 'x' },
    { "fault", required_argument, NULL, 'f' },
    { "fault-secs", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct opts op = { .timeout_ms = 8000, .fault_secs = 6 };
  const char *ktimeouts[MAX_DEVS];
  int nkt = 0, c;

  setvbuf (stdout, NULL, _IOLBF, 0);
  while ((c = getopt_long (argc, argv, "h", lo, NULL)) != -1)
    switch (c) {
    case 'k': op.key_file = optarg; break;
    case 't': op.timeout_ms = (uint32_t) strtoul (optarg, NULL, 10); break;
    case 'K':
      if (nkt < MAX_DEVS)
        ktimeouts[nkt++] = optarg;
      break;
    case 'p': op.pages = optarg; break;
    case 'e':
      if (sscanf (optarg, "%ld:%lld", &op.expect_count, &op.expect_sum) != 2) {
        fprintf (stderr, "ossd-vm-conformance: --expect wants COUNT:SUM\n");
        return 2;
      }
      break;
    case 'x': op.xmin = (uint32_t) strtoul (optarg, NULL, 10); break;
    case 'f': op.fault = optarg; break;
    case 's': op.fault_secs = atoi (optarg); break;
    case 'h': fputs (usage_text, stdout); return 0;
    default: fputs (usage_text, stderr); return 2;
    }
  for (int i = optind; i < argc && op.n < MAX_DEVS; i++) {
    const char *eq = strchr (argv[i], '=');
    if (eq == NULL || eq == argv[i] || (size_t) (eq - argv[i]) >= 32) {
      fprintf (stderr, "ossd-vm-conformance: '%s' is not NAME=URI\n", argv[i]);
      return 2;
    }
    memcpy (op.devs[op.n].name, argv[i], (size_t) (eq - argv[i]));
    op.devs[op.n].uri = eq + 1;
    op.n++;
  }
  if (op.n == 0) {
    fputs (usage_text, stderr);
    return 2;
  }
  for (int i = 0; i < nkt; i++) {
    const char *eq = strchr (ktimeouts[i], '=');
    struct dev *d = eq ? find_dev (&op, ktimeouts[i],
                                   (size_t) (eq - ktimeouts[i])) : NULL;
    if (d)
      d->kernel_timeout_s = atoi (eq + 1);
  }
  if (op.fault)
    return run_fault (&op);

  uint8_t *pages = NULL;
  size_t pages_len = 0;
  if (op.pages) {
    FILE *f = fopen (op.pages, "rb");
    if (f) {
      fseek (f, 0, SEEK_END);
      long n = ftell (f);
      rewind (f);
      if (n > 0 && n % 8192 == 0 && (pages = malloc ((size_t) n))
          && fread (pages, 1, (size_t) n, f) == (size_t) n)
        pages_len = (size_t) n;
      fclose (f);
    }
    if (pages_len == 0)
      tap (false, "read the heap pages in %s", op.pages);
  }

  /* the suite's partition, made through the first transport */
  ossd_t *o;
  ossd_error err;
  if (connect_dev (&op, &op.devs[0], 1, 0, &o, &err) == 0) {
    if (ossd_create_partition (o, PID_CONF, &err) < 0 && err.errnum != EEXIST)
      diag ("create partition %d: %s", PID_CONF, err.msg);
    ossd_disconnect (o);
  }

  struct lease_claim lc[MAX_DEVS] = { 0 };
  for (int i = 0; i < op.n; i++) {
    const struct dev *d = &op.devs[i];
    uint64_t t0 = ossd_mono_ns ();
    case_slots (&op, d, &lc[i]);
    case_chunks (&op, d);
    case_long_poll (&op, d);
    case_errors (&op, d);
    if (pages_len) {
      case_scan (&op, d, pages, pages_len, OSSD__KERNEL_MODE__KERNEL_INTERPRETER);
      case_scan (&op, d, pages, pages_len, OSSD__KERNEL_MODE__KERNEL_JIT);
    }
    diag ("%s: cases took %.1f s", d->name, secs_since (t0));
  }
  if (op.n > 1)
    case_across (&op);
  case_leases (&op, lc);
  free (pages);
  printf ("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
