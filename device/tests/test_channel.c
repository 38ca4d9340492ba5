/* test_channel.c - the device core's channel, driven with raw frames:
 * claim arbitration, chunked requests and responses, PENDING long-poll,
 * malformed input (bad magic, CRC, length, slot, protobuf, unknown
 * command, missing object, full drive) answered with reasons while the
 * stored data stays intact; capabilities (missing, forged, expired, too
 * narrow, revoked) refused with reasons and nothing changed; READ and WRITE
 * time their NAND work in their object's QoS class (default for all with
 * qos=off). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "ossd_cap.h"
#include "ossd_device.h"
#include "ossd_rt.h"
#include "ossd_frame.h"
#include "ossd.pb-c.h"

struct fixture
{
  ossd_device_t *dev;
  ossd_device_conn_t *conn;
  struct ossd_control ctl;
  uint8_t *win;
  uint64_t seq;
  /* As the real tools do, requests carry a device-wide capability minted
   * from the drive's key unless they carry their own or bare is set. */
  uint8_t key[OSSD_KEY_BYTES];
  struct ossd_cap admin;
  Ossd__Capability admin_pb;
  bool bare;
};

static int
setup_drive (void **state, bool qos_off)
{
  struct fixture *f = calloc (1, sizeof *f);
  struct ossd_device_options o;
  char why[300];
  uint8_t lba[OSSD_LBA_SIZE];

  ossd_device_options_init (&o);
  o.image = NULL;                       /* RAM drive */
  o.capacity_bytes = 64ull << 20;
  o.volume_bytes = 1ull << 20;
  o.slots = 4;
  o.window_lbas = 4;
  o.poll_timeout_ms = 200;
  o.lease_ms = 100000;
  o.qos_off = qos_off;
  if (ossd_device_open (&o, &f->dev, why, sizeof why) < 0)
    fail_msg ("open: %s", why);
  f->conn = ossd_device_connect (f->dev, "test");
  ossd_device_master_key (f->dev, f->key);
  f->admin.rights = OSSD_RIGHTS_ALL;
  f->admin.expiry_ns = ossd_realtime_ns () + 3600ull * 1000000000ull;
  ossd_cap_sign (f->key, &f->admin);
  ossd_cap_to_proto (&f->admin, &f->admin_pb);
  assert_int_equal (ossd_device_pread (f->conn, lba, OSSD_LBA_SIZE,
                                       ossd_device_size_bytes (f->dev) - OSSD_LBA_SIZE,
                                       why, sizeof why), 0);
  assert_int_equal (ossd_control_decode (lba, &f->ctl, why, sizeof why), 0);
  f->win = calloc (1, f->ctl.window_lbas * OSSD_LBA_SIZE);
  *state = f;
  return 0;
}

static int
setup (void **state)
{
  return setup_drive (state, false);
}

static int
setup_qos_off (void **state)
{
  return setup_drive (state, true);
}

static int
teardown (void **state)
{
  struct fixture *f = *state;
  ossd_device_disconnect (f->conn);
  ossd_device_close (f->dev);
  free (f->win);
  free (f);
  return 0;
}

static size_t
window_bytes (struct fixture *f)
{
  return (size_t) f->ctl.window_lbas * OSSD_LBA_SIZE;
}

/* Write one frame (already in f->win) of `len` bytes to slot's window. */
static int
write_window (struct fixture *f, uint32_t slot, size_t len, char *why)
{
  len = (len + OSSD_LBA_SIZE - 1) / OSSD_LBA_SIZE * OSSD_LBA_SIZE;
  return ossd_device_pwrite (f->conn, f->win, (uint32_t) len,
                             ossd_request_lba (&f->ctl, slot) * OSSD_LBA_SIZE,
                             why, 300);
}

static int
send_req (struct fixture *f, uint32_t slot, uint64_t nonce,
          const Ossd__Request *req, char *why)
{
  uint8_t msg[65536];
  Ossd__Request withcap = *req;
  size_t len, room = window_bytes (f) - OSSD_FRAME_HDR_SIZE;
  size_t off = 0;
  int r = 0;

  if (!req->cap && !f->bare && req->body_case != OSSD__REQUEST__BODY_CLAIM)
    withcap.cap = &f->admin_pb;
  len = ossd__request__pack (&withcap, msg);

  f->seq++;
  do
    {
      struct ossd_frame_hdr h = { 0 };
      size_t n = len - off < room ? len - off : room;
      h.slot = slot;
      h.nonce = nonce;
      h.sequence = f->seq;
      h.total_length = len;
      h.chunk_offset = off;
      h.flags = (off == 0 ? OSSD_F_FIRST : 0) | (off + n == len ? OSSD_F_LAST : OSSD_F_MORE);
      memset (f->win, 0, window_bytes (f));
      ossd_frame_encode (&h, msg + off, n, f->win, window_bytes (f));
      r = write_window (f, slot, OSSD_FRAME_HDR_SIZE + n, why);
      off += n;
    }
  while (r == 0 && off < len);
  return r;
}

/* Read a whole response message (reassembling chunks) from the slot. */
static Ossd__Response *
recv_resp (struct fixture *f, uint32_t slot, uint32_t read_bytes, int *chunks,
           bool *pending)
{
  struct ossd_reassembly ra;
  char why[300];
  Ossd__Response *resp = NULL;

  ossd_reassembly_init (&ra, 1 << 24);
  *chunks = 0;
  *pending = false;
  for (;;)
    {
      struct ossd_frame_hdr h;
      const void *chunk;
      assert_int_equal (ossd_device_pread (f->conn, f->win, read_bytes,
                                           ossd_response_lba (&f->ctl, slot) * OSSD_LBA_SIZE,
                                           why, sizeof why), 0);
      assert_int_equal (ossd_frame_decode (f->win, read_bytes, &h, &chunk, why, sizeof why), 0);
      if (h.flags & OSSD_F_PENDING)
        {
          *pending = true;
          break;
        }
      (*chunks)++;
      int r = ossd_reassembly_add (&ra, &h, chunk, why, sizeof why);
      assert_true (r >= 0);
      if (r == 1)
        {
          resp = ossd__response__unpack (NULL, ra.total, ra.buf);
          break;
        }
    }
  ossd_reassembly_free (&ra);
  return resp;
}

static Ossd__Response *
call (struct fixture *f, uint32_t slot, uint64_t nonce, const Ossd__Request *req)
{
  char why[300];
  int chunks;
  bool pending;

  assert_int_equal (send_req (f, slot, nonce, req, why), 0);
  Ossd__Response *r = recv_resp (f, slot, (uint32_t) window_bytes (f), &chunks, &pending);
  assert_non_null (r);
  return r;
}

static void
claim (struct fixture *f, uint32_t slot, uint64_t nonce)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Claim c = OSSD__CLAIM__INIT;
  char why[300];

  c.nonce = nonce;
  req.body_case = OSSD__REQUEST__BODY_CLAIM;
  req.claim = &c;
  assert_int_equal (send_req (f, slot, nonce, &req, why), 0);
}

static uint64_t
owner_of (struct fixture *f, uint32_t slot)
{
  uint8_t lba[OSSD_LBA_SIZE];
  struct ossd_control c;
  char why[300];
  assert_int_equal (ossd_device_pread (f->conn, lba, OSSD_LBA_SIZE,
                                       (f->ctl.total_lbas - 1) * OSSD_LBA_SIZE, why, sizeof why), 0);
  assert_int_equal (ossd_control_decode (lba, &c, why, sizeof why), 0);
  return c.slot_owner[slot];
}

static void
test_claim_arbitration (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Info info = OSSD__INFO__INIT;
  char why[300];

  assert_int_equal (owner_of (f, 1), 0);
  claim (f, 1, 111);
  assert_int_equal (owner_of (f, 1), 111);
  /* A second host's claim loses and does not disturb the owner. */
  claim (f, 1, 222);
  assert_int_equal (owner_of (f, 1), 111);
  /* Its requests fail at the WRITE, naming the owner. */
  req.body_case = OSSD__REQUEST__BODY_INFO;
  req.info = &info;
  assert_int_equal (send_req (f, 1, 222, &req, why), -EPERM);
  assert_non_null (strstr (why, "owned by another host"));
  /* Unclaimed slot. */
  assert_int_equal (send_req (f, 2, 333, &req, why), -EPERM);
  assert_non_null (strstr (why, "not claimed"));
  /* The owner works. */
  Ossd__Response *r = call (f, 1, 111, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->body_case, OSSD__RESPONSE__BODY_INFO);
  assert_int_equal (r->info->slots, 4);
  ossd__response__free_unpacked (r, NULL);
  /* Release frees it; then the other host can claim. */
  Ossd__Release rel = OSSD__RELEASE__INIT;
  req.body_case = OSSD__REQUEST__BODY_RELEASE;
  req.release = &rel;
  assert_int_equal (send_req (f, 1, 111, &req, why), 0);
  assert_int_equal (owner_of (f, 1), 0);
  claim (f, 1, 222);
  assert_int_equal (owner_of (f, 1), 222);
}

static void
test_pending_then_chunked_response (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition cp = OSSD__CREATE_PARTITION__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Write w = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  static uint8_t data[40000];
  int chunks;
  bool pending;

  claim (f, 0, 5);
  /* Nothing asked: a read answers PENDING after the poll timeout. */
  assert_null (recv_resp (f, 0, OSSD_LBA_SIZE, &chunks, &pending));
  assert_true (pending);

  cp.pid = 7;
  req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
  req.create_partition = &cp;
  Ossd__Response *r = call (f, 0, 5, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  ossd__response__free_unpacked (r, NULL);

  id.pid = 7;
  id.oid = 100;
  cr.obj = &id;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &cr;
  r = call (f, 0, 5, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  ossd__response__free_unpacked (r, NULL);

  /* A 40000-byte write spans several 16 KiB request chunks. */
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t) (i * 7 + 3);
  w.obj = &id;
  w.data.data = data;
  w.data.len = sizeof data;
  req.body_case = OSSD__REQUEST__BODY_WRITE;
  req.write = &w;
  r = call (f, 0, 5, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->write->object_size, sizeof data);
  ossd__response__free_unpacked (r, NULL);

  /* Read back one LBA at a time: many response chunks. */
  rd.obj = &id;
  rd.length = sizeof data;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  char why[300];
  assert_int_equal (send_req (f, 0, 5, &req, why), 0);
  r = recv_resp (f, 0, OSSD_LBA_SIZE, &chunks, &pending);
  assert_non_null (r);
  assert_true (chunks >= 10);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->read->data.len, sizeof data);
  assert_memory_equal (r->read->data.data, data, sizeof data);
  ossd__response__free_unpacked (r, NULL);
}

static void
expect_error_response (struct fixture *f, uint32_t slot, Ossd__Status st,
                       const char *needle)
{
  int chunks;
  bool pending;
  Ossd__Response *r = recv_resp (f, slot, OSSD_LBA_SIZE, &chunks, &pending);
  assert_non_null (r);
  assert_int_equal (r->status, st);
  if (!strstr (r->reason, needle))
    fail_msg ("reason '%s' lacks '%s'", r->reason, needle);
  ossd__response__free_unpacked (r, NULL);
}

static void
test_malformed_frames_get_reasons (void **state)
{
  struct fixture *f = *state;
  char why[300];
  struct ossd_frame_hdr h = { 0 };
  uint8_t junk[100];

  claim (f, 2, 9);
  /* Bad CRC from the owner: error response. */
  memset (f->win, 0, window_bytes (f));
  h.slot = 2;
  h.nonce = 9;
  h.sequence = 77;
  h.total_length = 10;
  h.flags = OSSD_F_FIRST | OSSD_F_LAST;
  ossd_frame_encode (&h, "0123456789", 10, f->win, window_bytes (f));
  f->win[OSSD_FRAME_HDR_SIZE] ^= 0x55;
  assert_int_equal (write_window (f, 2, OSSD_LBA_SIZE, why), 0);
  expect_error_response (f, 2, OSSD__STATUS__ERR_FRAME, "CRC32C");

  /* Bad magic: unidentifiable writer, the WRITE fails with a reason. */
  memset (f->win, 0xa5, OSSD_LBA_SIZE);
  assert_int_equal (write_window (f, 2, OSSD_LBA_SIZE, why), -EBADMSG);
  assert_non_null (strstr (why, "magic"));

  /* Frame naming another slot. */
  h.slot = 3;
  memset (f->win, 0, window_bytes (f));
  ossd_frame_encode (&h, "0123456789", 10, f->win, window_bytes (f));
  assert_int_equal (write_window (f, 2, OSSD_LBA_SIZE, why), 0);
  expect_error_response (f, 2, OSSD__STATUS__ERR_FRAME, "slot 3");

  /* Payload that is not a protobuf Request. */
  for (size_t i = 0; i < sizeof junk; i++)
    junk[i] = 0xff;
  h.slot = 2;
  h.total_length = sizeof junk;
  memset (f->win, 0, window_bytes (f));
  ossd_frame_encode (&h, junk, sizeof junk, f->win, window_bytes (f));
  assert_int_equal (write_window (f, 2, OSSD_LBA_SIZE, why), 0);
  expect_error_response (f, 2, OSSD__STATUS__ERR_DECODE, "protobuf");

  /* An unknown command (a field this firmware does not know). */
  uint8_t unknown[] = { 0xf8, 0x06, 0x01 };      /* field 111, varint 1 */
  h.total_length = sizeof unknown;
  memset (f->win, 0, window_bytes (f));
  ossd_frame_encode (&h, unknown, sizeof unknown, f->win, window_bytes (f));
  assert_int_equal (write_window (f, 2, OSSD_LBA_SIZE, why), 0);
  expect_error_response (f, 2, OSSD__STATUS__ERR_UNKNOWN_COMMAND, "unknown command");

  /* A chunk out of order. */
  h.total_length = 100;
  h.chunk_offset = 50;
  h.flags = OSSD_F_LAST;
  memset (f->win, 0, window_bytes (f));
  ossd_frame_encode (&h, junk, 50, f->win, window_bytes (f));
  assert_int_equal (write_window (f, 2, OSSD_LBA_SIZE, why), 0);
  expect_error_response (f, 2, OSSD__STATUS__ERR_FRAME, "without a FIRST");

  /* Missing object. */
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  id.pid = 7;
  id.oid = 99999;
  rd.obj = &id;
  rd.length = 10;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  Ossd__Response *r = call (f, 2, 9, &req);
  assert_int_equal (r->status, OSSD__STATUS__ERR_NOT_FOUND);
  assert_non_null (strstr (r->reason, "oid 99999"));
  ossd__response__free_unpacked (r, NULL);

  /* Writes to the control LBA and response windows are refused. */
  assert_int_equal (ossd_device_pwrite (f->conn, f->win, OSSD_LBA_SIZE,
                                        (f->ctl.total_lbas - 1) * OSSD_LBA_SIZE, why, sizeof why), -EPERM);
  assert_int_equal (ossd_device_pwrite (f->conn, f->win, OSSD_LBA_SIZE,
                                        ossd_response_lba (&f->ctl, 2) * OSSD_LBA_SIZE, why, sizeof why), -EPERM);
  /* Unaligned I/O. */
  assert_int_equal (ossd_device_pwrite (f->conn, f->win, 100, 0, why, sizeof why), -EINVAL);
}

static void
test_full_drive_and_data_intact (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition cp = OSSD__CREATE_PARTITION__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Write w = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__Flush fl = OSSD__FLUSH__INIT;
  Ossd__ObjectId keep = OSSD__OBJECT_ID__INIT, fill = OSSD__OBJECT_ID__INIT;
  static uint8_t data[12000];
  Ossd__Response *r;
  bool full = false;

  claim (f, 3, 44);
  cp.pid = 9;
  req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
  req.create_partition = &cp;
  ossd__response__free_unpacked (call (f, 3, 44, &req), NULL);
  keep.pid = fill.pid = 9;
  keep.oid = 1;
  fill.oid = 2;
  for (int k = 0; k < 2; k++)
    {
      cr.obj = k ? &fill : &keep;
      req.body_case = OSSD__REQUEST__BODY_CREATE;
      req.create = &cr;
      ossd__response__free_unpacked (call (f, 3, 44, &req), NULL);
    }
  memset (data, 0x5a, sizeof data);
  w.obj = &keep;
  w.data.data = data;
  w.data.len = sizeof data;
  req.body_case = OSSD__REQUEST__BODY_WRITE;
  req.write = &w;
  r = call (f, 3, 44, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  ossd__response__free_unpacked (r, NULL);
  req.body_case = OSSD__REQUEST__BODY_FLUSH;
  req.flush = &fl;
  ossd__response__free_unpacked (call (f, 3, 44, &req), NULL);

  /* Fill the 64 MiB drive until it says NO_SPACE. */
  memset (data, 0xc3, sizeof data);
  w.obj = &fill;
  for (uint64_t off = 0; off < (256ull << 20) && !full; off += sizeof data)
    {
      w.offset = off;
      req.body_case = OSSD__REQUEST__BODY_WRITE;
      req.write = &w;
      r = call (f, 3, 44, &req);
      if (r->status == OSSD__STATUS__ERR_NO_SPACE)
        {
          full = true;
          assert_non_null (strstr (r->reason, "WRITE"));
        }
      else
        assert_int_equal (r->status, OSSD__STATUS__OK);
      ossd__response__free_unpacked (r, NULL);
    }
  assert_true (full);
  /* The earlier object is intact. */
  rd.obj = &keep;
  rd.length = sizeof data;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  r = call (f, 3, 44, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->read->data.len, sizeof data);
  for (size_t i = 0; i < sizeof data; i++)
    assert_int_equal (r->read->data.data[i], 0x5a);
  ossd__response__free_unpacked (r, NULL);
}

/* QoS classes (docs/qos.md): a READ and a WRITE of an object time their
 * NAND work in the object's priority class, which the die and channel
 * queues order by; with qos=off every request runs in the default class.
 * Counted per class by the FTL: no timing involved. */
static void
run_in_class (struct fixture *f, unsigned want_hot)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition cp = OSSD__CREATE_PARTITION__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Write w = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId hot = OSSD__OBJECT_ID__INIT, plain = OSSD__OBJECT_ID__INIT;
  static uint8_t data[48 * 1024];   /* send_req packs up to 64 KiB */
  ftl_t *ftl = ossd_device_ftl (f->dev);
  ftl_error fe = { "" };
  struct ftl_stats st;
  Ossd__Response *r;
  uint8_t six = 6;

  claim (f, 1, 71);
  cp.pid = 9;
  req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
  req.create_partition = &cp;
  ossd__response__free_unpacked (call (f, 1, 71, &req), NULL);
  hot.pid = plain.pid = 9;
  hot.oid = 1;
  plain.oid = 2;
  for (int k = 0; k < 2; k++)
    {
      cr.obj = k ? &plain : &hot;
      req.body_case = OSSD__REQUEST__BODY_CREATE;
      req.create = &cr;
      ossd__response__free_unpacked (call (f, 1, 71, &req), NULL);
    }
  assert_int_equal (ftl_set_attr (ftl, 9, 1, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY,
                                  &six, 1, &fe), 0);
  /* a WRITE long enough to program pages while it runs */
  memset (data, 0x3c, sizeof data);
  ftl_reset_stats (ftl);
  w.obj = &hot;
  w.data.data = data;
  w.data.len = sizeof data;
  req.body_case = OSSD__REQUEST__BODY_WRITE;
  req.write = &w;
  r = call (f, 1, 71, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  ossd__response__free_unpacked (r, NULL);
  assert_int_equal (ftl_get_stats (ftl, &st, &fe), 0);
  assert_true (st.nand_ops_by_prio[want_hot] > 0);
  for (unsigned p = 0; p <= FTL_PRIORITY_MAX; p++)
    if (p != want_hot)
      assert_int_equal (st.nand_ops_by_prio[p], 0);
  w.obj = &plain;
  r = call (f, 1, 71, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  ossd__response__free_unpacked (r, NULL);
  assert_int_equal (ftl_flush (ftl, &fe), 0);

  /* READs: every NAND read of the hot object in its class, of the plain
   * one in the default class */
  for (int k = 0; k < 2; k++)
    {
      unsigned want = k ? FTL_PRIORITY_DEFAULT : want_hot;
      ftl_reset_stats (ftl);
      rd.obj = k ? &plain : &hot;
      rd.length = 32 * 1024;
      req.body_case = OSSD__REQUEST__BODY_READ;
      req.read = &rd;
      r = call (f, 1, 71, &req);
      assert_int_equal (r->status, OSSD__STATUS__OK);
      assert_int_equal (r->read->data.len, 32 * 1024);
      assert_int_equal (r->read->data.data[0], 0x3c);
      ossd__response__free_unpacked (r, NULL);
      assert_int_equal (ftl_get_stats (ftl, &st, &fe), 0);
      assert_true (st.nand_ops_by_prio[want] >= 2);    /* 32 KiB: 2+ pages */
      assert_int_equal (st.nand_ops_by_prio[want], st.nand_reads);
    }
}

static void
test_requests_run_in_their_objects_class (void **state)
{
  run_in_class (*state, 6);
}

static void
test_qos_off_runs_all_in_the_default_class (void **state)
{
  run_in_class (*state, FTL_PRIORITY_DEFAULT);
}

/* A FORMAT that fails (a capacity no geometry holds) leaves the drive as it
 * was: its FTL, its objects and its deployed kernels (the registry used to
 * stay closed, and the next KERNEL LIST crashed the drive). */
static void
test_failed_format_leaves_drive_usable (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
  Ossd__KernelList kl = OSSD__KERNEL_LIST__INIT;
  Ossd__Format fm = OSSD__FORMAT__INIT;
  Ossd__FtlConfig cfg = OSSD__FTL_CONFIG__INIT;
  Ossd__Info in = OSSD__INFO__INIT;
  static const struct ossd_insn accept_all[] = { OSSD_MOV64_IMM (0, 1), OSSD_EXIT () };
  struct ossd_prog *p;
  char err[256];
  void *img;
  size_t img_len;
  Ossd__Response *r;

  claim (f, 1, 77);
  kd.name = "keep_me";
  assert_int_equal (ossd_prog_from_insns (accept_all, 2, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_to_raw (p, &img, &img_len), 0);
  ossd_prog_free (p);
  kd.image.data = img;
  kd.image.len = img_len;
  req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
  req.kernel_deploy = &kd;
  r = call (f, 1, 77, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  ossd__response__free_unpacked (r, NULL);
  free (img);

  cfg.capacity_bytes = 999ull << 40;
  fm.config = &cfg;
  req.body_case = OSSD__REQUEST__BODY_FORMAT;
  req.format = &fm;
  r = call (f, 1, 77, &req);
  assert_int_not_equal (r->status, OSSD__STATUS__OK);
  assert_non_null (strstr (r->reason, "FORMAT"));
  ossd__response__free_unpacked (r, NULL);

  for (int i = 0; i < 2; i++)
    {
      req.body_case = OSSD__REQUEST__BODY_KERNEL_LIST;
      req.kernel_list = &kl;
      r = call (f, 1, 77, &req);
      assert_int_equal (r->status, OSSD__STATUS__OK);
      assert_non_null (r->kernels);
      assert_int_equal (r->kernels->n_kernels, 1);
      assert_string_equal (r->kernels->kernels[0]->name, "keep_me");
      ossd__response__free_unpacked (r, NULL);
    }
  req.body_case = OSSD__REQUEST__BODY_INFO;
  req.info = &in;
  r = call (f, 1, 77, &req);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_true (r->info->capacity_bytes > 0 && r->info->capacity_bytes < (1ull << 30));
  ossd__response__free_unpacked (r, NULL);
}

static void
test_volume_region_is_a_plain_disk (void **state)
{
  struct fixture *f = *state;
  uint8_t buf[3 * OSSD_LBA_SIZE], back[3 * OSSD_LBA_SIZE];
  char why[300];

  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t) (i ^ 0x3c);
  assert_int_equal (ossd_device_pwrite (f->conn, buf, sizeof buf, 5 * OSSD_LBA_SIZE, why, sizeof why), 0);
  assert_int_equal (ossd_device_pread (f->conn, back, sizeof back, 5 * OSSD_LBA_SIZE, why, sizeof why), 0);
  assert_memory_equal (buf, back, sizeof buf);
  /* never-written LBAs read as zeros */
  assert_int_equal (ossd_device_pread (f->conn, back, OSSD_LBA_SIZE, 100 * OSSD_LBA_SIZE, why, sizeof why), 0);
  for (size_t i = 0; i < OSSD_LBA_SIZE; i++)
    assert_int_equal (back[i], 0);
  /* trim zeroes */
  assert_int_equal (ossd_device_trim (f->conn, OSSD_LBA_SIZE, 5 * OSSD_LBA_SIZE, why, sizeof why), 0);
  assert_int_equal (ossd_device_pread (f->conn, back, OSSD_LBA_SIZE, 5 * OSSD_LBA_SIZE, why, sizeof why), 0);
  for (size_t i = 0; i < OSSD_LBA_SIZE; i++)
    assert_int_equal (back[i], 0);
}


/* ---- capabilities ---------------------------------------------------------- */

static struct ossd_cap
mkcap (struct fixture *f, uint64_t pid, uint64_t oid, uint32_t rights,
       int64_t ttl_s, uint64_t version)
{
  struct ossd_cap c = { .pid = pid, .oid = oid, .rights = rights,
    .expiry_ns = ossd_realtime_ns () + (uint64_t) (ttl_s * 1000000000ll),
    .version = version };
  ossd_cap_sign (f->key, &c);
  return c;
}

/* Call with exactly this capability (NULL: none). */
static Ossd__Response *
call_cap (struct fixture *f, const Ossd__Request *req,
          const struct ossd_cap *cap)
{
  Ossd__Request r = *req;
  Ossd__Capability pb;
  Ossd__Response *resp;

  if (cap)
    {
      ossd_cap_to_proto (cap, &pb);
      r.cap = &pb;
    }
  f->bare = true;
  resp = call (f, 1, 77, &r);
  f->bare = false;
  return resp;
}

/* Expect a refusal whose reason contains `what`. */
static void
expect_refused (struct fixture *f, const Ossd__Request *req,
                const struct ossd_cap *cap, const char *what)
{
  Ossd__Response *r = call_cap (f, req, cap);
  if (r->status != OSSD__STATUS__ERR_PERMISSION || !strstr (r->reason, what))
    fail_msg ("expected PERMISSION with \"%s\", got status %d: %s", what,
              r->status, r->reason);
  ossd__response__free_unpacked (r, NULL);
}

static Ossd__Status
status_of (struct fixture *f, const Ossd__Request *req,
           const struct ossd_cap *cap)
{
  Ossd__Response *r = call_cap (f, req, cap);
  Ossd__Status st = r->status;
  ossd__response__free_unpacked (r, NULL);
  return st;
}

static void
test_capabilities (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition cp = OSSD__CREATE_PARTITION__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Write w = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__Format fmt = OSSD__FORMAT__INIT;
  Ossd__List ls = OSSD__LIST__INIT;
  Ossd__ListPartitions lp = OSSD__LIST_PARTITIONS__INIT;
  Ossd__Info info = OSSD__INFO__INIT;
  Ossd__SetAttributes sa = OSSD__SET_ATTRIBUTES__INIT;
  Ossd__Attribute at = OSSD__ATTRIBUTE__INIT, *atp = &at;
  Ossd__Stats st = OSSD__STATS__INIT;
  Ossd__Scan sc = OSSD__SCAN__INIT;
  Ossd__ScanTarget t1 = OSSD__SCAN_TARGET__INIT, t2 = OSSD__SCAN_TARGET__INIT;
  Ossd__ScanTarget *tp[2] = { &t1, &t2 };
  Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
  Ossd__ObjectId obj = OSSD__OBJECT_ID__INIT, other = OSSD__OBJECT_ID__INIT;
  Ossd__Request rread = OSSD__REQUEST__INIT, rwrite = OSSD__REQUEST__INIT;
  struct ossd_cap c, c2;
  Ossd__Response *r;
  uint8_t ver[8] = { 1 }, junk[16] = { 0 };
  uint64_t refusals = 0;

  claim (f, 1, 77);
  /* With the device-wide capability: partitions 3 and 4, object 3:10. */
  for (uint64_t pid = 3; pid <= 4; pid++)
    {
      cp.pid = pid;
      req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
      req.create_partition = &cp;
      assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
    }
  obj.pid = 3;
  obj.oid = 10;
  other.pid = 3;
  other.oid = 11;
  cr.obj = &obj;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &cr;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  w.obj = &obj;
  w.data.data = (uint8_t *) "ORIGINAL";
  w.data.len = 8;
  rwrite.body_case = OSSD__REQUEST__BODY_WRITE;
  rwrite.write = &w;
  assert_int_equal (status_of (f, &rwrite, &f->admin), OSSD__STATUS__OK);
  rd.obj = &obj;
  rd.length = 100;
  rread.body_case = OSSD__REQUEST__BODY_READ;
  rread.read = &rd;

  /* No capability: every command that touches data is refused, with the
   * command and what it needs in the reason; INFO stays open. */
  expect_refused (f, &rread, NULL, "READ: permission denied: no capability (it needs read on (pid 3, oid 10))");
  w.data.data = (uint8_t *) "CHANGED!";
  expect_refused (f, &rwrite, NULL, "WRITE: permission denied");
  req.body_case = OSSD__REQUEST__BODY_FORMAT;
  req.format = &fmt;
  expect_refused (f, &req, NULL, "FORMAT: permission denied: no capability (it needs admin on the drive)");
  req.body_case = OSSD__REQUEST__BODY_LIST_PARTITIONS;
  req.list_partitions = &lp;
  expect_refused (f, &req, NULL, "LIST PARTITIONS");
  cr.obj = &other;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &cr;
  expect_refused (f, &req, NULL, "CREATE");
  refusals += 5;
  req.body_case = OSSD__REQUEST__BODY_INFO;
  req.info = &info;
  assert_int_equal (status_of (f, &req, NULL), OSSD__STATUS__OK);

  /* Bad MAC, another drive's key, expired, too few rights, another
   * object, another partition. */
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ | OSSD_RIGHT_WRITE, 60, 0);
  c.mac[0] ^= 1;
  expect_refused (f, &rread, &c, "MAC does not verify");
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ, 60, 0);
  c.rights |= OSSD_RIGHT_WRITE;          /* altered after signing */
  expect_refused (f, &rwrite, &c, "MAC does not verify");
  {
    uint8_t other_key[OSSD_KEY_BYTES];
    assert_int_equal (ossd_key_random (other_key), 0);
    c = (struct ossd_cap) { .pid = 3, .oid = 10, .rights = OSSD_RIGHTS_ALL,
      .expiry_ns = ossd_realtime_ns () + 60000000000ull };
    ossd_cap_sign (other_key, &c);
    expect_refused (f, &rread, &c, "MAC does not verify");
    c.pid = 0;                           /* a forged device-wide one */
    ossd_cap_sign (other_key, &c);
    expect_refused (f, &rread, &c, "MAC does not verify");
  }
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ, -1, 0);
  expect_refused (f, &rread, &c, "expired");
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ | OSSD_RIGHT_SCAN, 60, 0);
  expect_refused (f, &rwrite, &c, "grants read,scan, it needs write on (pid 3, oid 10)");
  c = mkcap (f, 3, 11, OSSD_RIGHTS_ALL, 60, 0);
  expect_refused (f, &rread, &c, "no capability for it");
  c = mkcap (f, 4, 0, OSSD_RIGHTS_ALL, 60, 0);
  expect_refused (f, &rread, &c, "no capability for it");
  c = mkcap (f, 3, 0, OSSD_RIGHTS_ALL & ~OSSD_RIGHT_ADMIN, 60, 0);
  req.body_case = OSSD__REQUEST__BODY_FORMAT;
  req.format = &fmt;
  expect_refused (f, &req, &c, "admin on the drive");
  refusals += 9;

  /* A right one works: object, then partition scope. */
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ, 60, 0);
  r = call_cap (f, &rread, &c);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_memory_equal (r->read->data.data, "ORIGINAL", 8);
  ossd__response__free_unpacked (r, NULL);
  ls.pid = 3;
  req.body_case = OSSD__REQUEST__BODY_LIST;
  req.list = &ls;
  c2 = mkcap (f, 3, 0, OSSD_RIGHT_READ, 60, 0);
  assert_int_equal (status_of (f, &req, &c2), OSSD__STATUS__OK);
  expect_refused (f, &req, &c, "no capability for it");   /* an object's is not the partition's */
  refusals++;

  /* The capability version attribute needs admin; bumping it revokes. */
  at.page = OSSD_CAP_ATTR_PAGE;
  at.number = OSSD_CAP_ATTR_VERSION;
  at.value.data = ver;
  at.value.len = 8;
  sa.obj = &obj;
  sa.n_attrs = 1;
  sa.attrs = &atp;
  req.body_case = OSSD__REQUEST__BODY_SET_ATTRIBUTES;
  req.set_attributes = &sa;
  c2 = mkcap (f, 3, 10, OSSD_RIGHTS_ALL & ~OSSD_RIGHT_ADMIN, 60, 0);
  expect_refused (f, &req, &c2, "it needs attributes,admin");
  refusals++;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  expect_refused (f, &rread, &c, "has version 0 but the object's is 1 (revoked)");
  refusals++;
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ, 60, 1);
  assert_int_equal (status_of (f, &rread, &c), OSSD__STATUS__OK);

  /* SCAN: every target needs a capability with the scan right. */
  t1.obj = &obj;
  t2.obj = &other;
  sc.n_targets = 2;
  sc.targets = tp;
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &sc;
  c = mkcap (f, 3, 10, OSSD_RIGHT_READ, 60, 1);
  expect_refused (f, &req, &c, "it needs scan on (pid 3, oid 10)");
  c = mkcap (f, 3, 10, OSSD_RIGHT_SCAN, 60, 1);
  expect_refused (f, &req, &c, "SCAN: permission denied: no capability for it (it needs scan on (pid 3, oid 11))");
  refusals += 2;
  {
    Ossd__Request two = req;
    Ossd__Capability pb1, pb2, *more = &pb2;
    c2 = mkcap (f, 3, 11, OSSD_RIGHT_SCAN, 60, 0);
    ossd_cap_to_proto (&c, &pb1);
    ossd_cap_to_proto (&c2, &pb2);
    two.cap = &pb1;
    two.n_more_caps = 1;
    two.more_caps = &more;
    f->bare = true;
    r = call (f, 1, 77, &two);
    f->bare = false;
    assert_int_not_equal (r->status, OSSD__STATUS__ERR_PERMISSION);
    ossd__response__free_unpacked (r, NULL);
  }

  /* Kernels need the kernel right (of any partition). */
  kd.name = "k";
  kd.image.data = junk;
  kd.image.len = sizeof junk;
  req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
  req.kernel_deploy = &kd;
  c = mkcap (f, 4, 0, OSSD_RIGHTS_ALL & ~OSSD_RIGHT_KERNEL, 60, 0);
  expect_refused (f, &req, &c, "it needs kernel on a partition");
  refusals++;
  c = mkcap (f, 4, 0, OSSD_RIGHT_KERNEL, 60, 0);
  assert_int_equal (status_of (f, &req, &c), OSSD__STATUS__ERR_VERIFIER);

  /* Nothing the refused commands asked for happened. */
  r = call_cap (f, &rread, &f->admin);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->read->data.len, 8);
  assert_memory_equal (r->read->data.data, "ORIGINAL", 8);
  ossd__response__free_unpacked (r, NULL);
  rd.obj = &other;
  assert_int_equal (status_of (f, &rread, &f->admin), OSSD__STATUS__ERR_NOT_FOUND);
  req.body_case = OSSD__REQUEST__BODY_LIST_PARTITIONS;
  req.list_partitions = &lp;
  r = call_cap (f, &req, &f->admin);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->ids->n_ids, 2);
  ossd__response__free_unpacked (r, NULL);

  /* STATS (open without reset) counts the refusals. */
  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &st;
  r = call_cap (f, &req, NULL);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  for (size_t i = 0; i < r->stats->n_counters; i++)
    if (strcmp (r->stats->counters[i]->key, "cap_refusals") == 0)
      {
        assert_int_equal (r->stats->counters[i]->value, refusals);
        refusals = 0;
      }
  assert_int_equal (refusals, 0);
  ossd__response__free_unpacked (r, NULL);
  st.reset = true;
  expect_refused (f, &req, NULL, "STATS: permission denied");
}

/* ---- access profile (docs/sofs.md) ------------------------------------------ */

static uint64_t
profile_counter (const Ossd__ProfileResult *p, const char *key)
{
  for (size_t i = 0; i < p->n_counters; i++)
    if (strcmp (p->counters[i]->key, key) == 0)
      return p->counters[i]->value;
  fail_msg ("PROFILE SHOW has no counter %s", key);
  return 0;
}

static Ossd__Response *
profile_call (struct fixture *f, Ossd__ProfileAction action)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  pr.action = action;
  req.body_case = OSSD__REQUEST__BODY_PROFILE;
  req.profile = &pr;
  Ossd__Response *r = call_cap (f, &req, &f->admin);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_non_null (r->profile);
  return r;
}

/* READs through slot 1 are recorded with their slot and their unit
 * transitions; PROFILE needs the admin right; off stops recording, reset
 * forgets. */
static void
test_access_profile (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition cp = OSSD__CREATE_PARTITION__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Write w = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId obj = OSSD__OBJECT_ID__INIT;
  Ossd__Response *r;
  static uint8_t data[24576];

  claim (f, 1, 77);
  obj.pid = 5;
  obj.oid = 9;
  cp.pid = 5;
  req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
  req.create_partition = &cp;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  cr.obj = &obj;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &cr;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  w.obj = &obj;
  w.data.data = data;
  w.data.len = sizeof data;
  req.body_case = OSSD__REQUEST__BODY_WRITE;
  req.write = &w;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_RESET);
  assert_true (r->profile->enabled);
  ossd__response__free_unpacked (r, NULL);

  /* units 0, 1 (one read), then unit 2 */
  rd.obj = &obj;
  rd.offset = 0;
  rd.length = 16384;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  rd.offset = 16384;
  rd.length = 8192;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);

  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_SHOW);
  const Ossd__ProfileResult *p = r->profile;
  assert_true (p->enabled);
  assert_int_equal (p->unit_bytes, 8192);
  assert_int_equal (profile_counter (p, "reads"), 2);
  assert_int_equal (profile_counter (p, "read_bytes"), 24576);
  assert_int_equal (profile_counter (p, "intra_transitions"), 1);
  assert_int_equal (p->edges_total, 2);
  assert_int_equal (p->n_edges, 2);
  for (size_t i = 0; i < 2; i++)
    {
      assert_int_equal (p->edges[i]->weight, 1);
      assert_int_equal (p->edges[i]->from->oid, 9);
      assert_int_equal (p->edges[i]->to->unit, p->edges[i]->from->unit + 1);
    }
  assert_int_equal (p->n_reads, 2);
  assert_int_equal (p->reads[0]->offset, 0);
  assert_int_equal (p->reads[1]->offset, 16384);
  assert_int_equal (p->reads[1]->stream, 1);
  assert_int_equal (p->reads[1]->pid, 5);
  ossd__response__free_unpacked (r, NULL);

  /* without the admin right: refused, nothing shown */
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  Ossd__Request preq = OSSD__REQUEST__INIT;
  preq.body_case = OSSD__REQUEST__BODY_PROFILE;
  preq.profile = &pr;
  expect_refused (f, &preq, NULL, "PROFILE");
  struct ossd_cap reader = mkcap (f, 5, 0, OSSD_RIGHT_READ, 60, 0);
  expect_refused (f, &preq, &reader, "PROFILE");

  /* off: a read is not recorded; reset forgets */
  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_DISABLE);
  assert_false (r->profile->enabled);
  ossd__response__free_unpacked (r, NULL);
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_SHOW);
  assert_int_equal (profile_counter (r->profile, "reads"), 2);
  ossd__response__free_unpacked (r, NULL);
  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_RESET);
  ossd__response__free_unpacked (r, NULL);
  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_SHOW);
  assert_int_equal (profile_counter (r->profile, "reads"), 0);
  assert_int_equal (r->profile->edges_total, 0);
  ossd__response__free_unpacked (r, NULL);
}

/* NAND page reads of reading the object in 16 KiB reads (STATS reset
 * before), through slot 1 */
static uint64_t
nand_reads_of_scan (struct fixture *f, Ossd__ObjectId *obj, uint64_t bytes)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Stats st = OSSD__STATS__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__Response *r;
  st.reset = true;
  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &st;
  r = call_cap (f, &req, &f->admin);
  ossd__response__free_unpacked (r, NULL);
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  rd.obj = obj;
  rd.length = 16384;
  for (uint64_t off = 0; off < bytes; off += 16384)
    {
      rd.offset = off;
      assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
    }
  st.reset = false;
  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &st;
  r = call_cap (f, &req, &f->admin);
  uint64_t n = 0;
  for (size_t i = 0; i < r->stats->n_counters; i++)
    if (strcmp (r->stats->counters[i]->key, "nand_reads") == 0)
      n = r->stats->counters[i]->value;
  ossd__response__free_unpacked (r, NULL);
  return n;
}

/* PROFILE APPLY: an object written scattered and read sequentially is
 * planned and relocated in the background while the drive is idle; its
 * bytes stay, the FTL counts the relocated sectors, and the same scan
 * then reads one NAND page per 16 KiB read. */
static void
test_profile_apply_relocates (void **state)
{
  struct fixture *f = *state;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition cp = OSSD__CREATE_PARTITION__INIT;
  Ossd__Create cr = OSSD__CREATE__INIT;
  Ossd__Write w = OSSD__WRITE__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId obj = OSSD__OBJECT_ID__INIT, other = OSSD__OBJECT_ID__INIT;
  Ossd__Response *r;
  enum { UNITS = 64 };
  static uint8_t data[UNITS * 8192];

  claim (f, 1, 77);
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t) (i * 7 + i / 8192);
  cp.pid = 5;
  req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
  req.create_partition = &cp;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  obj.pid = other.pid = 5;
  obj.oid = 20;
  other.oid = 21;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &cr;
  cr.obj = &obj;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  cr.obj = &other;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  /* units in a scattered order, another object's 4 KiB between each */
  req.body_case = OSSD__REQUEST__BODY_WRITE;
  req.write = &w;
  for (uint32_t k = 0; k < UNITS; k++)
    {
      uint32_t u = (k * 37) % UNITS;
      w.obj = &obj;
      w.offset = (uint64_t) u * 8192;
      w.data.data = data + w.offset;
      w.data.len = 8192;
      assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
      w.obj = &other;
      w.offset = (uint64_t) k * 4096;
      w.data.len = 4096;
      assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
    }
  r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_RESET);
  ossd__response__free_unpacked (r, NULL);
  /* the access pattern: a sequential scan in 16 KiB reads (flushed first,
   * so every sector is on a NAND page) */
  Ossd__Flush fl = OSSD__FLUSH__INIT;
  req.body_case = OSSD__REQUEST__BODY_FLUSH;
  req.flush = &fl;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  uint64_t scattered = nand_reads_of_scan (f, &obj, sizeof data);
  assert_true (scattered > UNITS / 2);
  Ossd__Request preq = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  pr.action = OSSD__PROFILE_ACTION__PROFILE_APPLY;
  pr.planner = (char *) "nosuch";
  preq.body_case = OSSD__REQUEST__BODY_PROFILE;
  preq.profile = &pr;
  r = call_cap (f, &preq, &f->admin);
  assert_int_equal (r->status, OSSD__STATUS__ERR_INVALID);
  assert_non_null (strstr (r->reason, "nosuch"));
  ossd__response__free_unpacked (r, NULL);
  pr.planner = (char *) "chain";
  r = call_cap (f, &preq, &f->admin);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (profile_counter (r->profile, "objects_planned"), 1);
  assert_int_equal (profile_counter (r->profile, "units_queued"), UNITS);
  ossd__response__free_unpacked (r, NULL);
  /* the drive relocates while no command comes: poll slowly */
  uint64_t done = 0;
  for (int i = 0; i < 100 && !done; i++)
    {
      usleep (50000);
      r = profile_call (f, OSSD__PROFILE_ACTION__PROFILE_SHOW);
      done = profile_counter (r->profile, "relocation_jobs_done");
      assert_int_equal (profile_counter (r->profile, "relocation_jobs_failed"), 0);
      ossd__response__free_unpacked (r, NULL);
    }
  assert_int_equal (done, 1);
  /* every byte as written */
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  rd.obj = &obj;
  rd.offset = 0;
  rd.length = sizeof data;
  r = call_cap (f, &req, &f->admin);
  assert_int_equal (r->status, OSSD__STATUS__OK);
  assert_int_equal (r->read->data.len, sizeof data);
  assert_memory_equal (r->read->data.data, data, sizeof data);
  ossd__response__free_unpacked (r, NULL);
  Ossd__Stats st = OSSD__STATS__INIT;
  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &st;
  r = call_cap (f, &req, &f->admin);
  uint64_t moved = 0;
  int layout_counters = 0;
  for (size_t i = 0; i < r->stats->n_counters; i++)
    {
      const char *key = r->stats->counters[i]->key;
      if (strcmp (key, "relocated_sectors") == 0)
        moved = r->stats->counters[i]->value;
      /* what GC / wear levelling kept of the layout (docs/sofs.md 3.0) */
      if (strcmp (key, "gc_layout_kept_pages") == 0
          || strcmp (key, "gc_layout_moved_pages") == 0
          || strcmp (key, "wl_migrations") == 0)
        layout_counters++;
    }
  assert_int_equal (layout_counters, 3);
  ossd__response__free_unpacked (r, NULL);
  assert_int_equal (moved, UNITS * 2);
  /* laid out: one NAND page per 16 KiB read (flushed: none in a buffer) */
  req.body_case = OSSD__REQUEST__BODY_FLUSH;
  req.flush = &fl;
  assert_int_equal (status_of (f, &req, &f->admin), OSSD__STATUS__OK);
  uint64_t packed = nand_reads_of_scan (f, &obj, sizeof data);
  assert_int_equal (packed, UNITS / 2);
  assert_true (packed < scattered);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_claim_arbitration, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pending_then_chunked_response, setup, teardown),
    cmocka_unit_test_setup_teardown (test_malformed_frames_get_reasons, setup, teardown),
    cmocka_unit_test_setup_teardown (test_full_drive_and_data_intact, setup, teardown),
    cmocka_unit_test_setup_teardown (test_volume_region_is_a_plain_disk, setup, teardown),
    cmocka_unit_test_setup_teardown (test_capabilities, setup, teardown),
    cmocka_unit_test_setup_teardown (test_failed_format_leaves_drive_usable, setup, teardown),
    cmocka_unit_test_setup_teardown (test_access_profile, setup, teardown),
    cmocka_unit_test_setup_teardown (test_requests_run_in_their_objects_class, setup,
                                     teardown),
    cmocka_unit_test_setup_teardown (test_qos_off_runs_all_in_the_default_class,
                                     setup_qos_off, teardown),
    cmocka_unit_test_setup_teardown (test_profile_apply_relocates, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
