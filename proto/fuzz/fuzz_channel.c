/* fuzz_channel.c - libFuzzer harness for everything the drive parses
 * from the channel: frame headers, chunk reassembly, protobuf Requests
 * and the command dispatcher behind them, on an in-memory drive.
 *
 * The first input byte picks the mode:
 *   0  the rest is written raw into a claimed slot's request window
 *   1  the rest is a protobuf payload, framed correctly by the owner;
 *      when bit 2 of the first byte is set and the Request has no
 *      capability, it gets the drive's device-wide one (so the commands
 *      behind the capability check are reached), else it goes as it is
 *   2  the rest is split into frames for reassembly (bytes = chunk sizes)
 * Every response queued is read back and must decode as a frame whose
 * payload is a valid ossd.Response. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_cap.h"
#include "ossd_device.h"
#include "ossd_frame.h"
#include "ossd.pb-c.h"

#define WINDOW_LBAS 4
static ossd_device_t *dev;
static ossd_device_conn_t *conn;
static struct ossd_control ctl;
static uint8_t *win;
static const uint64_t nonce = 0x600dcafe;
static uint64_t seq;
static struct ossd_cap admin_cap;
static Ossd__Capability admin_pb;

static void
quiet_log (void *arg, const char *msg)
{
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  struct ossd_device_options o;
  uint8_t lba[OSSD_LBA_SIZE];
  char why[300];

  ossd_device_options_init (&o);
  o.image = NULL;
  o.capacity_bytes = 32ull << 20;
  o.volume_bytes = 1ull << 20;
  o.slots = 2;
  o.window_lbas = WINDOW_LBAS;
  o.poll_timeout_ms = 1;
  o.log = quiet_log;
  if (ossd_device_open (&o, &dev, why, sizeof why) < 0)
    {
      fprintf (stderr, "fuzz_channel: %s\n", why);
      abort ();
    }
  conn = ossd_device_connect (dev, "fuzz");
  ossd_device_pread (conn, lba, OSSD_LBA_SIZE,
                     ossd_device_size_bytes (dev) - OSSD_LBA_SIZE, why, sizeof why);
  if (ossd_control_decode (lba, &ctl, why, sizeof why) < 0)
    abort ();
  win = calloc (1, WINDOW_LBAS * OSSD_LBA_SIZE);
  {
    uint8_t key[OSSD_KEY_BYTES];
    ossd_device_master_key (dev, key);
    admin_cap.rights = OSSD_RIGHTS_ALL;
    admin_cap.expiry_ns = UINT64_MAX;
    ossd_cap_sign (key, &admin_cap);
    ossd_cap_to_proto (&admin_cap, &admin_pb);
  }
  return 0;
}

static void
write_frame (const void *payload, size_t len, uint64_t total, uint64_t off,
             uint16_t flags)
{
  struct ossd_frame_hdr h = { 0 };
  char why[300];

  h.slot = 0;
  h.nonce = nonce;
  h.sequence = seq;
  h.total_length = total;
  h.chunk_offset = off;
  h.flags = flags;
  memset (win, 0, WINDOW_LBAS * OSSD_LBA_SIZE);
  ossd_frame_encode (&h, payload, len, win, WINDOW_LBAS * OSSD_LBA_SIZE);
  ossd_device_pwrite (conn, win, WINDOW_LBAS * OSSD_LBA_SIZE,
                      ossd_request_lba (&ctl, 0) * OSSD_LBA_SIZE, why, sizeof why);
}

static void
claim (void)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Claim c = OSSD__CLAIM__INIT;
  uint8_t msg[64];
  size_t n;

  c.nonce = nonce;
  req.body_case = OSSD__REQUEST__BODY_CLAIM;
  req.claim = &c;
  n = ossd__request__pack (&req, msg);
  write_frame (msg, n, n, 0, OSSD_F_FIRST | OSSD_F_LAST);
}

/* Read every queued response; each must be a well-formed frame. */
static void
drain (void)
{
  struct ossd_reassembly ra;
  char why[300];

  ossd_reassembly_init (&ra, 1u << 26);
  for (int i = 0; i < 10000; i++)
    {
      struct ossd_frame_hdr h;
      const void *chunk;
      if (ossd_device_pread (conn, win, WINDOW_LBAS * OSSD_LBA_SIZE,
                             ossd_response_lba (&ctl, 0) * OSSD_LBA_SIZE, why, sizeof why) < 0)
        break;
      if (ossd_frame_decode (win, WINDOW_LBAS * OSSD_LBA_SIZE, &h, &chunk, why, sizeof why) < 0)
        abort ();               /* the drive must always answer with a valid frame */
      if (h.flags & OSSD_F_PENDING)
        break;
      int r = ossd_reassembly_add (&ra, &h, chunk, why, sizeof why);
      if (r < 0)
        abort ();
      if (r == 1)
        {
          Ossd__Response *resp = ossd__response__unpack (NULL, ra.total, ra.buf);
          if (!resp)
            abort ();
          ossd__response__free_unpacked (resp, NULL);
          ossd_reassembly_reset (&ra);
        }
    }
  ossd_reassembly_free (&ra);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char why[300];

  if (size < 1)
    return 0;
  claim ();
  seq++;
  switch (data[0] % 3)
    {
    case 0:
      {
        size_t n = size - 1 > WINDOW_LBAS * OSSD_LBA_SIZE ? WINDOW_LBAS * OSSD_LBA_SIZE : size - 1;
        memset (win, 0, WINDOW_LBAS * OSSD_LBA_SIZE);
        memcpy (win, data + 1, n);
        ossd_device_pwrite (conn, win, WINDOW_LBAS * OSSD_LBA_SIZE,
                            ossd_request_lba (&ctl, 0) * OSSD_LBA_SIZE, why, sizeof why);
        break;
      }
    case 1:
      {
        /* FORMAT would make every run slow; the dispatcher's format path
         * is covered by the unit tests. */
        static uint8_t packed[WINDOW_LBAS * OSSD_LBA_SIZE];
        Ossd__Request *req = ossd__request__unpack (NULL, size - 1, data + 1);
        bool skip = req && req->body_case == OSSD__REQUEST__BODY_FORMAT;
        const uint8_t *msg = data + 1;
        size_t len = size - 1;
        if (req && !skip && !req->cap && (data[0] & 4))
          {
            req->cap = &admin_pb;
            if (ossd__request__get_packed_size (req) <= sizeof packed)
              {
                len = ossd__request__pack (req, packed);
                msg = packed;
              }
            req->cap = NULL;
          }
        if (req)
          ossd__request__free_unpacked (req, NULL);
        if (!skip && len <= WINDOW_LBAS * OSSD_LBA_SIZE - OSSD_FRAME_HDR_SIZE)
          write_frame (msg, len, len, 0, OSSD_F_FIRST | OSSD_F_LAST);
        break;
      }
    case 2:
      {
        /* Chunks of sizes taken from the input, flags from its bits. */
        size_t off = 0, total = size - 1;
        for (size_t i = 1; i < size && off <= total; i++)
          {
            size_t n = data[i] % 64;
            if (off + n > total)
              n = total - off;
            uint16_t flags = (off == 0 ? OSSD_F_FIRST : 0)
              | (off + n >= total ? OSSD_F_LAST : OSSD_F_MORE);
            if (data[i] & 0x80)
              flags ^= OSSD_F_FIRST;
            write_frame (data + 1 + off, n, total, off, flags);
            off += n ? n : 1;
          }
        break;
      }
    }
  drain ();
  return 0;
}
