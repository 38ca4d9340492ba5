/* frame.c - encode, decode and reassemble channel frames and the control
 * block (layout in ossd_frame.h).  Everything here parses input that
 * comes from outside (the other end of the channel), so every field is
 * checked and every failure says what and where.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_frame.h"

_Static_assert (sizeof (struct ossd_frame_hdr) == OSSD_FRAME_HDR_SIZE,
                "frame header is 64 bytes");
_Static_assert (sizeof (struct ossd_control) <= OSSD_LBA_SIZE,
                "control block fits one LBA");

static void
hdr_to_le (struct ossd_frame_hdr *h)
{
  h->magic = htole32 (h->magic);
  h->version = htole16 (h->version);
  h->flags = htole16 (h->flags);
  h->slot = htole32 (h->slot);
  h->chunk_length = htole32 (h->chunk_length);
  h->nonce = htole64 (h->nonce);
  h->sequence = htole64 (h->sequence);
  h->total_length = htole64 (h->total_length);
  h->chunk_offset = htole64 (h->chunk_offset);
  h->crc32c = htole32 (h->crc32c);
}

static void
hdr_from_le (struct ossd_frame_hdr *h)
{
  h->magic = le32toh (h->magic);
  h->version = le16toh (h->version);
  h->flags = le16toh (h->flags);
  h->slot = le32toh (h->slot);
  h->chunk_length = le32toh (h->chunk_length);
  h->nonce = le64toh (h->nonce);
  h->sequence = le64toh (h->sequence);
  h->total_length = le64toh (h->total_length);
  h->chunk_offset = le64toh (h->chunk_offset);
  h->crc32c = le32toh (h->crc32c);
}

size_t
ossd_frame_encode (struct ossd_frame_hdr *hdr, const void *chunk,
                   size_t chunk_len, void *out, size_t cap)
{
  struct ossd_frame_hdr le;
  uint8_t *o = out;

  if (cap < OSSD_FRAME_HDR_SIZE + chunk_len)
    return 0;
  hdr->magic = OSSD_FRAME_MAGIC;
  hdr->version = OSSD_PROTO_VERSION;
  hdr->chunk_length = (uint32_t) chunk_len;
  hdr->crc32c = 0;
  memset (hdr->reserved, 0, sizeof hdr->reserved);
  le = *hdr;
  hdr_to_le (&le);
  memcpy (o, &le, sizeof le);
  if (chunk_len && chunk != o + OSSD_FRAME_HDR_SIZE)
    memmove (o + OSSD_FRAME_HDR_SIZE, chunk, chunk_len);
  hdr->crc32c = ossd_crc32c (0, o, OSSD_FRAME_HDR_SIZE + chunk_len);
  le.crc32c = htole32 (hdr->crc32c);
  memcpy (o, &le, sizeof le);
  return OSSD_FRAME_HDR_SIZE + chunk_len;
}

int
ossd_frame_decode_header (const void *buf, size_t len,
                          struct ossd_frame_hdr *hdr, const void **chunk,
                          char *why, size_t whylen)
{
  struct ossd_frame_hdr h;

  if (len < OSSD_FRAME_HDR_SIZE)
    {
      snprintf (why, whylen, "frame of %zu bytes is shorter than its %u-byte header",
                len, OSSD_FRAME_HDR_SIZE);
      return -EINVAL;
    }
  memcpy (&h, buf, sizeof h);
  hdr_from_le (&h);
  if (h.magic != OSSD_FRAME_MAGIC)
    {
      snprintf (why, whylen, "bad frame magic 0x%08x at byte 0 (expected 0x%08x)",
                h.magic, OSSD_FRAME_MAGIC);
      return -EBADMSG;
    }
  if (h.version != OSSD_PROTO_VERSION)
    {
      snprintf (why, whylen, "unsupported protocol version %u (this side speaks %u)",
                h.version, OSSD_PROTO_VERSION);
      return -EPROTO;
    }
  if (h.chunk_length > len - OSSD_FRAME_HDR_SIZE)
    {
      snprintf (why, whylen, "chunk length %u exceeds the %zu bytes after the header",
                h.chunk_length, len - OSSD_FRAME_HDR_SIZE);
      return -EMSGSIZE;
    }
  if (h.chunk_offset > h.total_length
      || h.chunk_length > h.total_length - h.chunk_offset)
    {
      snprintf (why, whylen, "chunk [%llu, +%u) lies outside the message of %llu bytes",
                (unsigned long long) h.chunk_offset, h.chunk_length,
                (unsigned long long) h.total_length);
      return -EINVAL;
    }
  *hdr = h;
  *chunk = (const uint8_t *) buf + OSSD_FRAME_HDR_SIZE;
  return 0;
}

uint32_t
ossd_frame_header_crc (const void *buf)
{
  struct ossd_frame_hdr zeroed;

  memcpy (&zeroed, buf, sizeof zeroed);
  zeroed.crc32c = 0;
  return ossd_crc32c (0, &zeroed, sizeof zeroed);
}

int
ossd_frame_decode (const void *buf, size_t len, struct ossd_frame_hdr *hdr,
                   const void **chunk, char *why, size_t whylen)
{
  int r = ossd_frame_decode_header (buf, len, hdr, chunk, why, whylen);
  uint32_t crc;

  if (r < 0)
    return r;
  crc = ossd_crc32c (ossd_frame_header_crc (buf), *chunk, hdr->chunk_length);
  if (crc != hdr->crc32c)
    {
      snprintf (why, whylen, "CRC32C mismatch: frame says 0x%08x, computed 0x%08x over %u payload bytes",
                hdr->crc32c, crc, hdr->chunk_length);
      return -EBADMSG;
    }
  return 0;
}

void
ossd_control_encode (const struct ossd_control *c, void *lba)
{
  struct ossd_control le = *c;

  le.magic = htole32 (c->magic);
  le.version = htole16 (c->version);
  le.lba_size_shift = htole16 (c->lba_size_shift);
  le.slot_count = htole32 (c->slot_count);
  le.window_lbas = htole32 (c->window_lbas);
  le.total_lbas = htole64 (c->total_lbas);
  le.reserved_base = htole64 (c->reserved_base);
  le.capacity_bytes = htole64 (c->capacity_bytes);
  le.feature_bits = htole64 (c->feature_bits);
  le.lease_ms = htole32 (c->lease_ms);
  le.poll_timeout_ms = htole32 (c->poll_timeout_ms);
  for (unsigned i = 0; i < OSSD_MAX_SLOTS; i++)
    le.slot_owner[i] = htole64 (c->slot_owner[i]);
  le.device_id = htole64 (c->device_id);
  le.crc32c = 0;
  le.boot_nonce = htole32 (c->boot_nonce);
  memset (lba, 0, OSSD_LBA_SIZE);
  le.crc32c = htole32 (ossd_crc32c (0, &le, sizeof le));
  memcpy (lba, &le, sizeof le);
}

int
ossd_control_decode (const void *lba, struct ossd_control *c, char *why,
                     size_t whylen)
{
  struct ossd_control le;
  uint32_t crc;

  memcpy (&le, lba, sizeof le);
  crc = le32toh (le.crc32c);
  le.crc32c = 0;
  if (le32toh (le.magic) != OSSD_CONTROL_MAGIC)
    {
      snprintf (why, whylen, "no pg_ossd control block in the last LBA (magic 0x%08x): not an ossd drive, or not formatted",
                le32toh (le.magic));
      return -ENODEV;
    }
  if (ossd_crc32c (0, &le, sizeof le) != crc)
    {
      snprintf (why, whylen, "control block CRC32C mismatch");
      return -EBADMSG;
    }
  c->magic = le32toh (le.magic);
  c->version = le16toh (le.version);
  c->lba_size_shift = le16toh (le.lba_size_shift);
  c->slot_count = le32toh (le.slot_count);
  c->window_lbas = le32toh (le.window_lbas);
  c->total_lbas = le64toh (le.total_lbas);
  c->reserved_base = le64toh (le.reserved_base);
  c->capacity_bytes = le64toh (le.capacity_bytes);
  c->feature_bits = le64toh (le.feature_bits);
  c->lease_ms = le32toh (le.lease_ms);
  c->poll_timeout_ms = le32toh (le.poll_timeout_ms);
  for (unsigned i = 0; i < OSSD_MAX_SLOTS; i++)
    c->slot_owner[i] = le64toh (le.slot_owner[i]);
  c->device_id = le64toh (le.device_id);
  c->crc32c = crc;
  c->boot_nonce = le32toh (le.boot_nonce);
  if (c->version != OSSD_PROTO_VERSION)
    {
      snprintf (why, whylen, "drive speaks channel protocol %u, host speaks %u",
                c->version, OSSD_PROTO_VERSION);
      return -EPROTO;
    }
  if (c->lba_size_shift != 12 || c->slot_count == 0
      || c->slot_count > OSSD_MAX_SLOTS || c->window_lbas < 2
      || c->reserved_base + ossd_reserved_lbas (c->slot_count, c->window_lbas)
         != c->total_lbas)
    {
      snprintf (why, whylen, "inconsistent control block (slots %u, window %u LBAs, reserved base %llu, total %llu LBAs)",
                c->slot_count, c->window_lbas,
                (unsigned long long) c->reserved_base,
                (unsigned long long) c->total_lbas);
      return -EINVAL;
    }
  return 0;
}

void
ossd_reassembly_init (struct ossd_reassembly *r, uint64_t limit)
{
  memset (r, 0, sizeof *r);
  r->limit = limit;
}

void
ossd_reassembly_reset (struct ossd_reassembly *r)
{
  r->total = r->have = r->sequence = 0;
}

void
ossd_reassembly_free (struct ossd_reassembly *r)
{
  free (r->buf);
  r->buf = NULL;
  ossd_reassembly_reset (r);
}

int
ossd_reassembly_add (struct ossd_reassembly *r,
                     const struct ossd_frame_hdr *hdr, const void *chunk,
                     char *why, size_t whylen)
{
  if (hdr->flags & OSSD_F_FIRST)
    {
      if (hdr->chunk_offset != 0)
        {
          snprintf (why, whylen, "FIRST chunk at offset %llu (must be 0)",
                    (unsigned long long) hdr->chunk_offset);
          goto fail;
        }
      if (hdr->total_length > r->limit)
        {
          snprintf (why, whylen, "message of %llu bytes exceeds the limit of %llu",
                    (unsigned long long) hdr->total_length,
                    (unsigned long long) r->limit);
          goto fail_size;
        }
      /* Grow the buffer geometrically; keep it between messages. */
      uint64_t need = hdr->total_length ? hdr->total_length : 1;
      uint8_t *nb = realloc (r->buf, need);
      if (!nb)
        {
          snprintf (why, whylen, "out of memory for a %llu-byte message",
                    (unsigned long long) hdr->total_length);
          goto fail_nomem;
        }
      r->buf = nb;
      r->total = hdr->total_length;
      r->have = 0;
      r->sequence = hdr->sequence;
    }
  else if (r->have == 0 && r->total == 0)
    {
      snprintf (why, whylen, "continuation chunk (offset %llu) without a FIRST chunk",
                (unsigned long long) hdr->chunk_offset);
      goto fail;
    }
  else if (hdr->sequence != r->sequence || hdr->total_length != r->total
           || hdr->chunk_offset != r->have)
    {
      snprintf (why, whylen, "out-of-order chunk: sequence %llu offset %llu total %llu, expected sequence %llu offset %llu total %llu",
                (unsigned long long) hdr->sequence,
                (unsigned long long) hdr->chunk_offset,
                (unsigned long long) hdr->total_length,
                (unsigned long long) r->sequence,
                (unsigned long long) r->have, (unsigned long long) r->total);
      goto fail;
    }
  if (hdr->chunk_offset != r->have)
    {
      snprintf (why, whylen, "chunk offset %llu does not follow the %llu bytes received",
                (unsigned long long) hdr->chunk_offset,
                (unsigned long long) r->have);
      goto fail;
    }
  memcpy (r->buf + r->have, chunk, hdr->chunk_length);
  r->have += hdr->chunk_length;
  if (hdr->flags & OSSD_F_LAST)
    {
      if (r->have != r->total)
        {
          snprintf (why, whylen, "LAST chunk ends at %llu but the message is %llu bytes",
                    (unsigned long long) r->have, (unsigned long long) r->total);
          goto fail;
        }
      return 1;
    }
  if (r->have >= r->total && r->total != 0)
    {
      snprintf (why, whylen, "message complete at %llu bytes but chunk lacks LAST",
                (unsigned long long) r->have);
      goto fail;
    }
  return 0;

fail:
  ossd_reassembly_reset (r);
  return -EINVAL;
fail_size:
  ossd_reassembly_reset (r);
  return -EMSGSIZE;
fail_nomem:
  ossd_reassembly_reset (r);
  return -ENOMEM;
}
