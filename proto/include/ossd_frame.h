/* ossd_frame.h - framing of messages on the reserved-LBA channel.
 *
 * A window (request, response or event) starts with one fixed 64-byte
 * header followed by a chunk of a serialized protobuf message.  Messages
 * longer than a window travel as several chunks: FIRST on the first,
 * MORE on all but the last, LAST on the last (a one-chunk message has
 * FIRST|LAST).  A response window that has nothing ready yet reads back as
 * a header with PENDING set and no payload.  A response that is a stream
 * of messages (SCAN) sets STREAM on every message but the final one.
 *
 * Integers are little-endian.  crc32c covers the header (with the crc
 * field zero) and the chunk payload.
 *
 * Layout of the reserved area (all in LBAs of OSSD_LBA_SIZE bytes):
 *   control LBA            = last LBA of the device
 *   reserved_base          = first reserved LBA (volume ends here)
 *   event window           = reserved_base + 0, 1 LBA
 *   slot i request window  = reserved_base + 1 + 2*i*W
 *   slot i response window = reserved_base + 1 + 2*i*W + W
 *   control                = reserved_base + 1 + 2*S*W  (== last LBA)
 */
#ifndef OSSD_FRAME_H
#define OSSD_FRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSSD_LBA_SIZE        4096u
#define OSSD_FRAME_MAGIC     0x4453534fu   /* "OSSD" little-endian */
#define OSSD_CONTROL_MAGIC   0x4c544353u   /* "SCTL" */
#define OSSD_PROTO_VERSION   1u
#define OSSD_FRAME_HDR_SIZE  64u
#define OSSD_MAX_SLOTS       64u

enum ossd_frame_flags
{
  OSSD_F_FIRST = 1u << 0,
  OSSD_F_MORE = 1u << 1,
  OSSD_F_LAST = 1u << 2,
  OSSD_F_PENDING = 1u << 3,    /* response not ready: read again */
  OSSD_F_STREAM = 1u << 4,     /* more messages follow in this response */
  OSSD_F_EVENT = 1u << 5,      /* event window frame */
  OSSD_F_NO_EVENT = 1u << 6,   /* event long-poll timed out */
  OSSD_F_ACK_IN_WRITE = 1u << 7, /* request: answer a WRITE through the
                                    block WRITE itself (no response when
                                    it succeeds; OSSD_FEATURE_ACK_IN_WRITE) */
};

struct ossd_frame_hdr
{
  uint32_t magic;
  uint16_t version;
  uint16_t flags;
  uint32_t slot;
  uint32_t chunk_length;       /* payload bytes in this window */
  uint64_t nonce;              /* slot owner's nonce */
  uint64_t sequence;           /* request sequence, echoed in the response */
  uint64_t total_length;       /* whole message length */
  uint64_t chunk_offset;       /* offset of this chunk in the message */
  uint32_t crc32c;
  uint32_t reserved[3];
};

/* The control LBA (read-only to the host). */
#define OSSD_FEATURE_SCAN      (1ull << 0)
#define OSSD_FEATURE_JIT       (1ull << 1)
#define OSSD_FEATURE_EVENTS    (1ull << 2)
#define OSSD_FEATURE_COMPOUND  (1ull << 3)
#define OSSD_FEATURE_ACK_IN_WRITE (1ull << 4)
#define OSSD_FEATURE_JOIN_FILTER (1ull << 5)  /* SCAN applies Scan.join_filters */
/* Every command that touches stored data needs a capability
 * (ossd_cap.h, docs/security.md). */
#define OSSD_FEATURE_CAPABILITIES (1ull << 8)
/* SCAN honours ScanTarget.stripe_parity (RAID-5 arrays: docs/arrays.md);
 * a drive without it would read a parity layout as RAID-0. */
#define OSSD_FEATURE_PARITY_SCAN  (1ull << 9)
/* The kernel verifier and runtime know helper 23, ossd_text_substr_cmp
 * (ossd_kernel.h); a drive without it refuses a kernel calling it as an
 * unknown helper. */
#define OSSD_FEATURE_TEXT_SUBSTR  (1ull << 10)

struct ossd_control
{
  uint32_t magic;              /* OSSD_CONTROL_MAGIC */
  uint16_t version;
  uint16_t lba_size_shift;     /* 12 */
  uint32_t slot_count;         /* S */
  uint32_t window_lbas;        /* W */
  uint64_t total_lbas;
  uint64_t reserved_base;      /* first reserved LBA == volume LBAs */
  uint64_t capacity_bytes;     /* object capacity of the FTL */
  uint64_t feature_bits;
  uint32_t lease_ms;
  uint32_t poll_timeout_ms;
  uint64_t device_id;          /* random at format */
  uint32_t crc32c;             /* over the struct with this field zero */
  /* Random at each start of the drive (0: an older drive): a host that
   * reconnects tells a drive that restarted -- and may have lost writes
   * it had not FLUSHed -- from a connection that was only dropped. */
  uint32_t boot_nonce;
  /* Owner nonce of each slot (0 = free).  A host claims slot i by writing
   * a Claim to its request window, then reads this block: the claim is
   * its own if slot_owner[i] equals its nonce. */
  uint64_t slot_owner[OSSD_MAX_SLOTS];
};

/* Derived LBA addresses. */
static inline uint64_t
ossd_event_lba (const struct ossd_control *c)
{
  return c->reserved_base;
}

static inline uint64_t
ossd_request_lba (const struct ossd_control *c, uint32_t slot)
{
  return c->reserved_base + 1 + 2ull * slot * c->window_lbas;
}

static inline uint64_t
ossd_response_lba (const struct ossd_control *c, uint32_t slot)
{
  return ossd_request_lba (c, slot) + c->window_lbas;
}

static inline uint64_t
ossd_reserved_lbas (uint32_t slots, uint32_t window_lbas)
{
  return 1 + 2ull * slots * window_lbas + 1;
}

uint32_t ossd_crc32c (uint32_t crc, const void *buf, size_t len);
/* The same CRC of src while copying it to dst (one pass over the data). */
uint32_t ossd_crc32c_copy (uint32_t crc, void *dst, const void *src,
                           size_t len);

/* Encode a header + payload chunk into `out` (cap bytes, at least
 * OSSD_FRAME_HDR_SIZE + chunk_len); fills magic, version and crc.
 * Returns the bytes written. */
size_t ossd_frame_encode (struct ossd_frame_hdr *hdr, const void *chunk,
                          size_t chunk_len, void *out, size_t cap);

/* Decode and validate a frame in buf (len bytes).  On success fills *hdr
 * and points *chunk at the payload inside buf, returns 0.  On failure
 * returns a negative errno and writes the reason (what and where) into
 * why (whylen bytes). */
int ossd_frame_decode (const void *buf, size_t len,
                       struct ossd_frame_hdr *hdr, const void **chunk,
                       char *why, size_t whylen);

/* ossd_frame_decode without the CRC check, for readers that verify the
 * CRC while copying the payload out: the frame's CRC is then
 * ossd_crc32c (ossd_frame_header_crc (buf), chunk, chunk_length). */
int ossd_frame_decode_header (const void *buf, size_t len,
                              struct ossd_frame_hdr *hdr, const void **chunk,
                              char *why, size_t whylen);
uint32_t ossd_frame_header_crc (const void *buf);

/* Control block encode/decode (with CRC). */
void ossd_control_encode (const struct ossd_control *c, void *lba);
int ossd_control_decode (const void *lba, struct ossd_control *c,
                         char *why, size_t whylen);

/* Reassembly of a chunked message. */
struct ossd_reassembly
{
  uint8_t *buf;
  uint64_t total;
  uint64_t have;
  uint64_t sequence;
  uint64_t limit;              /* largest message accepted */
};

void ossd_reassembly_init (struct ossd_reassembly *r, uint64_t limit);
void ossd_reassembly_reset (struct ossd_reassembly *r);
void ossd_reassembly_free (struct ossd_reassembly *r);
/* Feed one decoded chunk.  Returns 1 when the message is complete (then
 * r->buf/r->total hold it), 0 when more chunks are needed, negative errno
 * with a reason on an out-of-order, oversized or inconsistent chunk (the
 * reassembly is reset). */
int ossd_reassembly_add (struct ossd_reassembly *r,
                         const struct ossd_frame_hdr *hdr, const void *chunk,
                         char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif /* OSSD_FRAME_H */
