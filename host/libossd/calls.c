/* calls.c - libossd's commands: the generic call, streams, pipelined
 * calls, and one wrapper per object command. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

int
ossd_status_errno (int status)
{
  switch (status)
    {
    case OSSD__STATUS__OK: return 0;
    case OSSD__STATUS__ERR_NOT_FOUND: return ENOENT;
    case OSSD__STATUS__ERR_EXISTS: return EEXIST;
    case OSSD__STATUS__ERR_NO_SPACE: return ENOSPC;
    case OSSD__STATUS__ERR_NOT_EMPTY: return ENOTEMPTY;
    case OSSD__STATUS__ERR_VERSION: return ESTALE;
    case OSSD__STATUS__ERR_INVALID: return EINVAL;
    case OSSD__STATUS__ERR_BUSY: return EBUSY;
    case OSSD__STATUS__ERR_TOO_LARGE: return EFBIG;
    case OSSD__STATUS__ERR_UNSUPPORTED: return ENOTSUP;
    case OSSD__STATUS__ERR_CANCELLED: return ECANCELED;
    case OSSD__STATUS__ERR_UNKNOWN_COMMAND: return ENOSYS;
    case OSSD__STATUS__ERR_VERIFIER: return EPERM;
    case OSSD__STATUS__ERR_PERMISSION: return EACCES;
    default: return EIO;
    }
}

const char *
ossd_status_name (int status)
{
  const ProtobufCEnumValue *v;

  if (status == OSSD_STATUS_TRANSPORT)
    return "TRANSPORT";
  v = protobuf_c_enum_descriptor_get_value (&ossd__status__descriptor, status);
  return v ? v->name : "UNKNOWN";
}

int
client_check_status (const Ossd__Response *resp, const char *what,
                     ossd_error *err)
{
  if (resp->status == OSSD__STATUS__OK)
    return 0;
  client_set_error (err, resp->status, ossd_status_errno (resp->status),
                    "%s", resp->reason && *resp->reason ? resp->reason
                    : ossd_status_name (resp->status));
  return -ossd_status_errno (resp->status);
}

/* A first-read size that fits the expected answer in one transfer. */
size_t
client_size_hint (const Ossd__Request *req)
{
  switch (req->body_case)
    {
    case OSSD__REQUEST__BODY_READ:
      return req->read->length + 64;
    case OSSD__REQUEST__BODY_SCAN:
      return 1u << 20;
    case OSSD__REQUEST__BODY_PROFILE:
      return 65536;
    case OSSD__REQUEST__BODY_GET_ATTRIBUTES:
    case OSSD__REQUEST__BODY_STATS:
    case OSSD__REQUEST__BODY_KERNEL_LIST:
      return 16384;
    default:
      return 0;
    }
}

/* A transport result that ends the connection: a wait that timed out or
 * was interrupted, or a connection the drive closed. */
static bool
connection_gone (int r)
{
  return r == -ETIMEDOUT || r == -ECANCELED || r == -ENOTCONN
    || r == -ECONNRESET || r == -EPIPE || r == -ESHUTDOWN;
}

/* Most calls a round of transport I/O: requests reqs[0..k) on slots[],
 * one each, and their answers into resps[].  A request that fits one
 * chunk is written in the same batch as the read of its response window:
 * the drive runs the request when its frame arrives and holds the read
 * (long poll) until the answer is queued, so the call costs one round
 * trip of the transport, not two.  A larger request is sent chunk by
 * chunk first and only its read joins the batch.
 *
 * ack_in_write (WRITE requests, OSSD_FEATURE_ACK_IN_WRITE): a one-chunk
 * request is flagged so that the block WRITE carrying it completes only
 * once the command ran, and fails (EIO) when the command failed: then no
 * read at all on success (an empty OK response is returned), and the
 * error response is read from the window on failure.
 *
 * Returns 0 or the first error (per-request errors stay in resps'
 * statuses). */
#define ROUND_MAX 32            /* two I/Os each: the NBD batch takes 64 */
static int
call_round (ossd_t *o, struct client_slot **slots,
            const Ossd__Request *const *reqs, size_t k, bool ack_in_write,
            Ossd__Response **resps, ossd_error *err)
{
  struct ossd_io ios[2 * ROUND_MAX];
  uint64_t seqs[ROUND_MAX];
  size_t wio[ROUND_MAX], rio[ROUND_MAX], nio = 0;
  int sent[ROUND_MAX], first = 0;
  bool acked[ROUND_MAX];
  char why[300] = "";

  ack_in_write = ack_in_write
    && (o->ctl.feature_bits & OSSD_FEATURE_ACK_IN_WRITE);
  for (size_t j = 0; j < k; j++)
    {
      size_t len = 0;
      int r = client_encode_frame (o, slots[j], reqs[j],
                                   ack_in_write ? OSSD_F_ACK_IN_WRITE : 0,
                                   &seqs[j], &len);

      acked[j] = ack_in_write && r == 0;
      wio[j] = rio[j] = SIZE_MAX;
      if (r == 0)
        {
          wio[j] = nio;
          ios[nio++] = (struct ossd_io) {
            .buf = slots[j]->req_buf, .len = len, .write = true,
            .off = ossd_request_lba (&o->ctl, slots[j]->index) * OSSD_LBA_SIZE };
        }
      else if (r == -EMSGSIZE)
        r = client_send (o, slots[j], reqs[j], &seqs[j], err);
      else
        client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                          "out of memory for a request frame");
      sent[j] = r;
      if (r < 0 && !first)
        first = r;
    }
  for (size_t j = 0; j < k; j++)
    if (sent[j] == 0 && !acked[j])
      {
        rio[j] = nio;
        ios[nio++] = (struct ossd_io) {
          .buf = slots[j]->buf, .write = false,
          .len = client_response_read_size (o, client_size_hint (reqs[j])),
          .off = ossd_response_lba (&o->ctl, slots[j]->index) * OSSD_LBA_SIZE };
      }
  if (nio)
    ossd_transport_batch (o->t, ios, nio, why, sizeof why);
  for (size_t j = 0; j < k; j++)
    {
      bool more;
      int r = sent[j];

      if (r == 0 && acked[j] && ios[wio[j]].result == 0)
        {
          /* The block WRITE completed: the command ran and succeeded. */
          resps[j] = malloc (sizeof *resps[j]);
          if (!resps[j])
            r = -ENOMEM;
          else
            ossd__response__init (resps[j]);
        }
      else if (r == 0 && acked[j] && ios[wio[j]].result == -EIO)
        /* Failed command (or a dead transport): its answer, if any. */
        r = client_recv_from (o, slots[j], seqs[j], 0, 0, &resps[j], &more,
                              err);
      else if (r == 0 && wio[j] != SIZE_MAX && ios[wio[j]].result < 0)
        {
          r = ios[wio[j]].result;
          client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                            "sending to slot %u of %s: %s", slots[j]->index,
                            o->uri, why);
        }
      else if (r == 0 && rio[j] != SIZE_MAX
               && connection_gone (ios[rio[j]].result))
        {
          /* Reading again would only fail for another reason. */
          r = ios[rio[j]].result;
          client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                            "reading slot %u's response from %s: %s",
                            slots[j]->index, o->uri, why);
        }
      else if (r == 0)
        r = client_recv_from (o, slots[j], seqs[j],
                              client_size_hint (reqs[j]),
                              ios[rio[j]].result == 0 ? ios[rio[j]].len : 0,
                              &resps[j], &more, err);
      if (r == 0)
        r = client_check_status (resps[j], "", err);
      if (r < 0 && !first)
        first = r;
    }
  return first;
}

int
ossd_call (ossd_t *o, const Ossd__Request *req, Ossd__Response **resp,
           ossd_error *err)
{
  struct client_slot *s = client_slot_get (o, err);
  int r;

  *resp = NULL;
  if (!s)
    return -(err && err->errnum ? err->errnum : EBUSY);
  r = call_round (o, &s, &req, 1, false, resp, err);
  client_slot_put_after (o, s, r, err);
  return r;
}

/* How much of the response window the next read of a stream asks for.
 * A read returns one message and the rest of its length as zeros, which
 * the drive fills and the transport carries all the same: a scan's
 * messages are chunks of about 64 KiB (and a last one of its counters),
 * so a 1 MiB read of each moved sixteen times the bytes.  Messages of a
 * stream are alike in size: the next read asks for the last one's size
 * and a margin; a larger message costs one more read, of its remainder
 * (client_recv_raw_from). */
#define STREAM_FIRST_HINT (96u * 1024)
#define STREAM_MIN_HINT (16u * 1024)

static size_t
stream_read_hint (size_t last_len)
{
  size_t hint = last_len + last_len / 8;

  if (hint < STREAM_MIN_HINT)
    hint = STREAM_MIN_HINT;
  return hint > (1u << 20) ? 1u << 20 : hint;
}

int
ossd_stream_start (ossd_t *o, const Ossd__Request *req, ossd_stream **out,
                   ossd_error *err)
{
  ossd_stream *st = calloc (1, sizeof *st);
  int r;

  *out = NULL;
  if (!st)
    return -ENOMEM;
  st->o = o;
  st->read_hint = STREAM_FIRST_HINT;
  st->slot = client_slot_get (o, err);
  if (!st->slot)
    {
      free (st);
      return -(err && err->errnum ? err->errnum : EBUSY);
    }
  r = client_send (o, st->slot, req, &st->sequence, err);
  if (r < 0)
    {
      client_slot_put_after (o, st->slot, r, err);
      free (st);
      return r;
    }
  *out = st;
  return 0;
}

int
ossd_stream_next (ossd_stream *st, Ossd__Response **resp, ossd_error *err)
{
  bool more = false;
  int r;

  *resp = NULL;
  if (st->done)
    return 0;
  r = client_recv (st->o, st->slot, st->sequence, st->read_hint, resp, &more,
                   err);
  if (r < 0)
    {
      st->done = true;
      st->failed = !err || err->status == OSSD_STATUS_TRANSPORT;
      return r;
    }
  if (!more)
    st->done = true;
  st->read_hint = stream_read_hint (st->slot->last_msg_len);
  r = client_check_status (*resp, "", err);
  if (r < 0)
    st->done = true;
  return r;
}

void
ossd_stream_close (ossd_stream *st)
{
  if (!st)
    return;
  if (!st->done)
    {
      /* A new request on the slot ends the stream on the drive. */
      Ossd__Request req = OSSD__REQUEST__INIT;
      Ossd__Cancel c = OSSD__CANCEL__INIT;
      Ossd__Response *resp = NULL;
      uint64_t seq;
      bool more;

      c.sequence = st->sequence;
      req.body_case = OSSD__REQUEST__BODY_CANCEL;
      req.cancel = &c;
      if (client_send (st->o, st->slot, &req, &seq, NULL) == 0
          && client_recv (st->o, st->slot, seq, 0, &resp, &more, NULL) == 0)
        ossd__response__free_unpacked (resp, NULL);
    }
  client_slot_put_after (st->o, st->slot, st->failed ? -EIO : 0, NULL);
  free (st);
}

/* ossd_call_many; ack_in_write: see call_round. */
static int
call_many (ossd_t *o, const Ossd__Request *const *reqs, size_t n,
           bool ack_in_write, Ossd__Response **resps, ossd_error *err)
{
  struct client_slot *slots[ROUND_MAX];
  int first = 0;

  for (size_t i = 0; i < n; i++)
    resps[i] = NULL;
  /* Rounds of as many slots as we may hold: all in flight at once. */
  for (size_t base = 0; base < n;)
    {
      size_t k = 0, batch = n - base;
      if (batch > o->opts.max_slots)
        batch = o->opts.max_slots;
      if (batch > ROUND_MAX)
        batch = ROUND_MAX;
      for (; k < batch; k++)
        {
          /* Never wait for a second slot while holding one: take what is
           * free (at least one). */
          if (k > 0 && !client_slot_free_now (o))
            break;
          slots[k] = client_slot_get (o, err);
          if (!slots[k])
            break;
        }
      if (k == 0)
        return -(err && err->errnum ? err->errnum : EBUSY);
      first = call_round (o, slots, reqs + base, k, ack_in_write,
                          resps + base, err);
      for (size_t j = 0; j < k; j++)
        client_slot_put_after (o, slots[j], first, err);
      if (first)
        return first;
      base += k;
    }
  return 0;
}

int
ossd_call_many (ossd_t *o, const Ossd__Request *const *reqs, size_t n,
                Ossd__Response **resps, ossd_error *err)
{
  return call_many (o, reqs, n, false, resps, err);
}

/* Run one request and drop the response. */
static int
call_simple (ossd_t *o, Ossd__Request *req, ossd_error *err)
{
  Ossd__Response *resp = NULL;
  int r = ossd_call (o, req, &resp, err);
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

int
ossd_format (ossd_t *o, const Ossd__FtlConfig *cfg, uint64_t volume_bytes,
             ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Format f = OSSD__FORMAT__INIT;

  f.config = (Ossd__FtlConfig *) cfg;
  f.volume_bytes = volume_bytes;
  req.body_case = OSSD__REQUEST__BODY_FORMAT;
  req.format = &f;
  return call_simple (o, &req, err);
}

int
ossd_info (ossd_t *o, Ossd__InfoResult **info, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Info i = OSSD__INFO__INIT;
  Ossd__Response *resp = NULL;
  int r;

  *info = NULL;
  req.body_case = OSSD__REQUEST__BODY_INFO;
  req.info = &i;
  r = ossd_call (o, &req, &resp, err);
  if (r == 0 && resp->body_case == OSSD__RESPONSE__BODY_INFO)
    {
      /* Detach the body so the caller frees only it. */
      *info = resp->info;
      resp->info = NULL;
      resp->body_case = OSSD__RESPONSE__BODY__NOT_SET;
    }
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

static int
flush_scope (ossd_t *o, Ossd__FlushScope scope, uint64_t pid, uint64_t oid,
             ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Flush f = OSSD__FLUSH__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;

  id.pid = pid;
  id.oid = oid;
  f.scope = scope;
  f.obj = &id;
  req.body_case = OSSD__REQUEST__BODY_FLUSH;
  req.flush = &f;
  return call_simple (o, &req, err);
}

int
ossd_flush (ossd_t *o, ossd_error *err)
{
  return flush_scope (o, OSSD__FLUSH_SCOPE__FLUSH_DEVICE, 0, 0, err);
}

int
ossd_drop_caches (ossd_t *o, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Flush f = OSSD__FLUSH__INIT;

  f.scope = OSSD__FLUSH_SCOPE__FLUSH_DEVICE;
  f.drop_caches = true;
  req.body_case = OSSD__REQUEST__BODY_FLUSH;
  req.flush = &f;
  return call_simple (o, &req, err);
}

int
ossd_flush_object (ossd_t *o, uint64_t pid, uint64_t oid, ossd_error *err)
{
  return flush_scope (o, OSSD__FLUSH_SCOPE__FLUSH_OBJECT, pid, oid, err);
}

int
ossd_create_partition (ossd_t *o, uint64_t pid, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__CreatePartition c = OSSD__CREATE_PARTITION__INIT;

  c.pid = pid;
  req.body_case = OSSD__REQUEST__BODY_CREATE_PARTITION;
  req.create_partition = &c;
  return call_simple (o, &req, err);
}

int
ossd_remove_partition (ossd_t *o, uint64_t pid, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__RemovePartition c = OSSD__REMOVE_PARTITION__INIT;

  c.pid = pid;
  req.body_case = OSSD__REQUEST__BODY_REMOVE_PARTITION;
  req.remove_partition = &c;
  return call_simple (o, &req, err);
}

int
ossd_create (ossd_t *o, uint64_t pid, uint64_t oid, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Create c = OSSD__CREATE__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;

  id.pid = pid;
  id.oid = oid;
  c.obj = &id;
  c.exclusive = true;
  req.body_case = OSSD__REQUEST__BODY_CREATE;
  req.create = &c;
  return call_simple (o, &req, err);
}

int
ossd_remove (ossd_t *o, uint64_t pid, uint64_t oid, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Remove c = OSSD__REMOVE__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;

  id.pid = pid;
  id.oid = oid;
  c.obj = &id;
  req.body_case = OSSD__REQUEST__BODY_REMOVE;
  req.remove = &c;
  return call_simple (o, &req, err);
}

/* Payload room per command: a chunk minus the frame and message headers. */
static size_t
data_per_command (ossd_t *o)
{
  /* Room for the frame and message headers; whole 64 KiB units when the
   * chunk is large, so that bulk transfers go in round pieces (the
   * default window is 1 MiB + 32 KiB: 1 MiB of data per command). */
  size_t room = o->chunk_bytes - OSSD_LBA_SIZE;
  return room >= (256u << 10) ? room & ~(size_t) 0xffff : room;
}

/* Read a protobuf varint; returns bytes used or 0 if malformed. */
static size_t
get_varint (const uint8_t *p, size_t len, uint64_t *v)
{
  uint64_t x = 0;
  for (size_t i = 0; i < len && i < 10; i++)
    {
      x |= (uint64_t) (p[i] & 0x7f) << (7 * i);
      if (!(p[i] & 0x80))
        {
          *v = x;
          return i + 1;
        }
    }
  return 0;
}

/* The data of a successful READ response, found in place: a Response
 * holding only body `read` (field 14) whose ReadResult holds `data`
 * (field 1) and `object_size` (field 2) - what the drive sends for every
 * successful READ.  Anything else returns false and is decoded by
 * protobuf-c instead. */
static bool
read_reply_in_place (const uint8_t *msg, size_t len, const uint8_t **data,
                     size_t *dlen)
{
  uint64_t inner, v;
  size_t k, pos;

  *data = NULL;
  *dlen = 0;
  if (len < 2 || msg[0] != ((OSSD__RESPONSE__BODY_READ << 3) | 2))
    return false;
  if (!(k = get_varint (msg + 1, len - 1, &inner)) || 1 + k + inner != len)
    return false;
  for (pos = 1 + k; pos < len;)
    {
      uint8_t tag = msg[pos++];
      if (!(k = get_varint (msg + pos, len - pos, &v)))
        return false;
      pos += k;
      if (tag == ((1 << 3) | 2))
        {
          if (v > len - pos)
            return false;
          *data = msg + pos;
          *dlen = v;
          pos += v;
        }
      else if (tag != (2 << 3))
        return false;
    }
  return pos == len;
}

/* The answer to one READ piece, into dst (at most `want` bytes; *dlen
 * gets the count).  `frame_len` > 0: s->buf already holds what the batch
 * read from the response window; the data's CRC is then verified while it
 * is copied out (one pass).  Anything unusual (a PENDING or stale frame, a
 * multi-chunk or error response) goes through the general path. */
static int
read_piece_result (ossd_t *o, struct client_slot *s, uint64_t seq,
                   size_t frame_len, size_t want, uint8_t *dst, size_t *dlen,
                   ossd_error *err)
{
  struct ossd_frame_hdr h;
  const void *chunk;
  const uint8_t *msg, *data;
  size_t mlen, n;
  bool more;
  char why[300];
  int e;

  *dlen = 0;
  if (frame_len
      && ossd_frame_decode_header (s->buf, frame_len, &h, &chunk, why, sizeof why) == 0
      && !(h.flags & OSSD_F_PENDING) && h.sequence == seq)
    {
      /* The answer itself: one chunk (a READ piece always fits one). */
      if ((h.flags & (OSSD_F_FIRST | OSSD_F_LAST)) != (OSSD_F_FIRST | OSSD_F_LAST)
          || h.chunk_length != h.total_length)
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                            "READ response in slot %u of %s spans several chunks",
                            s->index, o->uri);
          return -EPROTO;
        }
      if (read_reply_in_place (chunk, h.chunk_length, &data, &n) && n <= want)
        {
          const uint8_t *end = (const uint8_t *) chunk + h.chunk_length;
          if (!data)
            data = end;         /* no data field: nothing past the end */
          uint32_t crc = ossd_crc32c (ossd_frame_header_crc (s->buf), chunk,
                                      (size_t) (data - (const uint8_t *) chunk));
          crc = ossd_crc32c_copy (crc, dst, data, n);
          crc = ossd_crc32c (crc, data + n, (size_t) (end - (data + n)));
          if (crc != h.crc32c)
            {
              client_set_error (err, OSSD_STATUS_TRANSPORT, EBADMSG,
                                "READ response in slot %u of %s: CRC32C mismatch (frame 0x%08x, data 0x%08x)",
                                s->index, o->uri, h.crc32c, crc);
              return -EBADMSG;
            }
          *dlen = n;
          return 0;
        }
      /* Another answer (an error): check it whole, then decode it below. */
      if (ossd_frame_decode (s->buf, frame_len, &h, &chunk, why, sizeof why) < 0)
        {
          client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                            "bad response frame in slot %u of %s: %s",
                            s->index, o->uri, why);
          return -EPROTO;
        }
      msg = chunk;
      mlen = h.chunk_length;
    }
  else
    {
      /* PENDING, a stale answer, or no batch read: read it again. */
      e = client_recv_raw (o, s, seq, want + 64, &msg, &mlen, &more, err);
      if (e < 0)
        return e;
    }
  if (read_reply_in_place (msg, mlen, &data, &n))
    {
      if (n > want)
        n = want;
      if (n)
        memcpy (dst, data, n);
      *dlen = n;
      return 0;
    }
  Ossd__Response *resp = ossd__response__unpack (NULL, mlen, msg);
  if (!resp)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                        "READ response does not decode as ossd.Response");
      return -EPROTO;
    }
  e = client_check_status (resp, "READ", err);
  if (e == 0)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                        "READ answered without read data");
      e = -EPROTO;
    }
  ossd__response__free_unpacked (resp, NULL);
  return e;
}

int
ossd_read (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t off, void *buf,
           size_t len, size_t *nread, ossd_error *err)
{
  size_t piece = data_per_command (o), done = 0;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  bool eof = false;
  int r = 0;

  *nread = 0;
  id.pid = pid;
  id.oid = oid;
  /* Pipelined in rounds: one request per slot we may hold, all sent,
   * then all answers read straight into the caller's buffer. */
  while (r == 0 && !eof && (done < len || len == 0))
    {
      struct client_slot *slots[64];
      uint64_t seqs[64];
      size_t offs[64], lens[64], k = 0;

      while (k < o->opts.max_slots && k < 32 && done + k * piece < len)
        {
          Ossd__Request req = OSSD__REQUEST__INIT;
          Ossd__Read rd = OSSD__READ__INIT;

          if (k > 0 && !client_slot_free_now (o))
            break;
          offs[k] = done + k * piece;
          lens[k] = len - offs[k] < piece ? len - offs[k] : piece;
          rd.obj = &id;
          rd.offset = off + offs[k];
          rd.length = lens[k];
          req.body_case = OSSD__REQUEST__BODY_READ;
          req.read = &rd;
          if (!(slots[k] = client_slot_get (o, err)))
            {
              /* a round goes on with the slots it has (at least one) */
              if (k == 0)
                r = -(err && err->errnum ? err->errnum : EBUSY);
              break;
            }
          client_encode_small (o, slots[k], &req, &seqs[k]);
          k++;
        }
      /* Every request and every answer in flight at once: the drive
       * executes a request when it arrives and holds the read of its
       * response window until the answer is ready. */
      struct ossd_io ios[64];
      char why[300];
      for (size_t j = 0; j < k; j++)
        {
          uint64_t rq = ossd_request_lba (&o->ctl, slots[j]->index);
          uint64_t rs = ossd_response_lba (&o->ctl, slots[j]->index);
          ios[j] = (struct ossd_io) { .buf = slots[j]->req_lba, .len = OSSD_LBA_SIZE,
                                      .off = rq * OSSD_LBA_SIZE, .write = true };
          ios[k + j] = (struct ossd_io) { .buf = slots[j]->buf,
                                          .len = client_response_read_size (o, lens[j] + 64),
                                          .off = rs * OSSD_LBA_SIZE, .write = false };
        }
      int br = k ? ossd_transport_batch (o->t, ios, 2 * k, why, sizeof why) : 0;
      if (br < 0 && r == 0)
        {
          /* EIO, or why the wait ended (ETIMEDOUT, ECANCELED). */
          r = br == -ETIMEDOUT || br == -ECANCELED ? br : -EIO;
          client_set_error (err, OSSD_STATUS_TRANSPORT, -r,
                            "READ through %s: %s", o->uri, why);
        }
      for (size_t j = 0; j < k; j++)
        {
          size_t dlen = 0;
          int e = 0;

          if (r == 0 && !eof)
            {
              bool have_frame = ios[j].result == 0 && ios[k + j].result == 0;
              e = read_piece_result (o, slots[j], seqs[j], have_frame ? ios[k + j].len : 0,
                                     lens[j], (uint8_t *) buf + offs[j], &dlen, err);
              if (e == 0)
                {
                  *nread = offs[j] + dlen;
                  eof = dlen < lens[j];
                }
            }
          if (e < 0 && r == 0)
            r = e;
          client_slot_put_after (o, slots[j], r, err);
        }
      done += k * piece;
      if (len == 0)
        break;
    }
  if (r < 0)
    *nread = 0;                 /* a failed read is never a short one */
  return r;
}

int
ossd_write (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t off,
            const void *buf, size_t len, ossd_error *err)
{
  size_t piece = data_per_command (o);
  size_t n = len ? (len + piece - 1) / piece : 1;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Write *wr = calloc (n, sizeof *wr);
  Ossd__Request *rq = calloc (n, sizeof *rq);
  const Ossd__Request **rqp = calloc (n, sizeof *rqp);
  Ossd__Response **rs = calloc (n, sizeof *rs);
  int r = -ENOMEM;

  if (!wr || !rq || !rqp || !rs)
    goto out;
  id.pid = pid;
  id.oid = oid;
  for (size_t i = 0; i < n; i++)
    {
      ossd__write__init (&wr[i]);
      wr[i].obj = &id;
      wr[i].offset = off + i * piece;
      wr[i].data.data = (uint8_t *) buf + i * piece;
      wr[i].data.len = len - i * piece < piece ? len - i * piece : piece;
      ossd__request__init (&rq[i]);
      rq[i].body_case = OSSD__REQUEST__BODY_WRITE;
      rq[i].write = &wr[i];
      rqp[i] = &rq[i];
    }
  /* Only the status of a WRITE matters here: answered by the block
   * WRITE itself where the drive can. */
  r = call_many (o, rqp, n, true, rs, err);
out:
  for (size_t i = 0; rs && i < n; i++)
    if (rs[i])
      ossd__response__free_unpacked (rs[i], NULL);
  free (wr);
  free (rq);
  free (rqp);
  free (rs);
  return r;
}

int
ossd_punch (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t off,
            uint64_t len, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Punch p = OSSD__PUNCH__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;

  id.pid = pid;
  id.oid = oid;
  p.obj = &id;
  p.offset = off;
  p.length = len;
  req.body_case = OSSD__REQUEST__BODY_PUNCH;
  req.punch = &p;
  return call_simple (o, &req, err);
}

int
ossd_set_length (ossd_t *o, uint64_t pid, uint64_t oid, uint64_t len,
                 ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__SetLength s = OSSD__SET_LENGTH__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;

  id.pid = pid;
  id.oid = oid;
  s.obj = &id;
  s.length = len;
  req.body_case = OSSD__REQUEST__BODY_SET_LENGTH;
  req.set_length = &s;
  return call_simple (o, &req, err);
}

static int
get_attrs (ossd_t *o, uint64_t pid, uint64_t oid, Ossd__Attribute **which,
           size_t n_which, Ossd__Response **resp, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__GetAttributes g = OSSD__GET_ATTRIBUTES__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  int r;

  id.pid = pid;
  id.oid = oid;
  g.obj = &id;
  g.which = which;
  g.n_which = n_which;
  req.body_case = OSSD__REQUEST__BODY_GET_ATTRIBUTES;
  req.get_attributes = &g;
  r = ossd_call (o, &req, resp, err);
  if (r == 0 && (*resp)->body_case != OSSD__RESPONSE__BODY_ATTRIBUTES)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                        "GET ATTRIBUTES answered without attributes");
      r = -EPROTO;
    }
  return r;
}

int
ossd_get_attrs (ossd_t *o, uint64_t pid, uint64_t oid, Ossd__Response **resp,
                ossd_error *err)
{
  int r;

  *resp = NULL;
  r = get_attrs (o, pid, oid, NULL, 0, resp, err);
  if (r < 0 && *resp)
    {
      ossd__response__free_unpacked (*resp, NULL);
      *resp = NULL;
    }
  return r;
}

int
ossd_stat (ossd_t *o, uint64_t pid, uint64_t oid, struct ossd_object_stat *st,
           ossd_error *err)
{
  Ossd__Attribute none = OSSD__ATTRIBUTE__INIT, *which = &none;
  Ossd__Response *resp = NULL;
  int r;

  /* Ask for one attribute that never exists: the reply carries the
   * object's size and version without listing every attribute. */
  none.page = 0xffffffffu;
  none.number = 0xffffffffu;
  r = get_attrs (o, pid, oid, &which, 1, &resp, err);
  if (r == 0)
    {
      st->size = resp->attributes->size;
      st->allocated = resp->attributes->allocated;
      st->version = resp->attributes->version;
      st->ctime_ns = resp->attributes->ctime_ns;
      st->mtime_ns = resp->attributes->mtime_ns;
    }
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

int
ossd_get_attr (ossd_t *o, uint64_t pid, uint64_t oid, uint32_t page,
               uint32_t number, void *buf, size_t cap, size_t *len,
               ossd_error *err)
{
  Ossd__Attribute a = OSSD__ATTRIBUTE__INIT, *which = &a;
  Ossd__Response *resp = NULL;
  int r;

  a.page = page;
  a.number = number;
  *len = 0;
  r = get_attrs (o, pid, oid, &which, 1, &resp, err);
  if (r == 0)
    {
      if (resp->attributes->n_attrs == 0)
        {
          client_set_error (err, OSSD__STATUS__ERR_NOT_FOUND, ENOENT,
                            "object (pid %llu, oid %llu) has no attribute (%u, %u)",
                            (unsigned long long) pid, (unsigned long long) oid,
                            page, number);
          r = -ENOENT;
        }
      else
        {
          const ProtobufCBinaryData *v = &resp->attributes->attrs[0]->value;
          *len = v->len;
          memcpy (buf, v->data, v->len < cap ? v->len : cap);
        }
    }
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

int
ossd_set_attr (ossd_t *o, uint64_t pid, uint64_t oid, uint32_t page,
               uint32_t number, const void *val, size_t len, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__SetAttributes s = OSSD__SET_ATTRIBUTES__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Attribute a = OSSD__ATTRIBUTE__INIT, *ap = &a;

  id.pid = pid;
  id.oid = oid;
  a.page = page;
  a.number = number;
  a.value.data = (uint8_t *) val;
  a.value.len = len;
  s.obj = &id;
  s.attrs = &ap;
  s.n_attrs = 1;
  req.body_case = OSSD__REQUEST__BODY_SET_ATTRIBUTES;
  req.set_attributes = &s;
  return call_simple (o, &req, err);
}

static int
list_ids (ossd_t *o, Ossd__Request *req, uint64_t *ids, size_t cap,
          size_t *n, bool *more, ossd_error *err)
{
  Ossd__Response *resp = NULL;
  int r = ossd_call (o, req, &resp, err);

  *n = 0;
  if (more)
    *more = false;
  if (r == 0 && resp->body_case == OSSD__RESPONSE__BODY_IDS)
    {
      size_t k = resp->ids->n_ids < cap ? resp->ids->n_ids : cap;
      memcpy (ids, resp->ids->ids, k * sizeof *ids);
      *n = k;
      if (more)
        *more = resp->ids->more || resp->ids->n_ids > cap;
    }
  if (resp)
    ossd__response__free_unpacked (resp, NULL);
  return r;
}

int
ossd_list (ossd_t *o, uint64_t pid, uint64_t after, uint64_t *oids,
           size_t cap, size_t *n, bool *more, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__List l = OSSD__LIST__INIT;

  l.pid = pid;
  l.after = after;
  l.max = (uint32_t) (cap > 4096 ? 4096 : cap);
  req.body_case = OSSD__REQUEST__BODY_LIST;
  req.list = &l;
  return list_ids (o, &req, oids, cap, n, more, err);
}

int
ossd_list_partitions (ossd_t *o, uint64_t after, uint64_t *pids, size_t cap,
                      size_t *n, bool *more, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__ListPartitions l = OSSD__LIST_PARTITIONS__INIT;

  l.after = after;
  l.max = (uint32_t) (cap > 4096 ? 4096 : cap);
  req.body_case = OSSD__REQUEST__BODY_LIST_PARTITIONS;
  req.list_partitions = &l;
  return list_ids (o, &req, pids, cap, n, more, err);
}

int
ossd_compound (ossd_t *o, Ossd__CompoundOp *const *ops, size_t n,
               uint32_t *failed_index, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Compound c = OSSD__COMPOUND__INIT;

  c.ops = (Ossd__CompoundOp **) ops;
  c.n_ops = n;
  req.body_case = OSSD__REQUEST__BODY_COMPOUND;
  req.compound = &c;
  if (failed_index)
    *failed_index = 0;
  return call_simple (o, &req, err);
}

uint64_t
ossd_volume_bytes (ossd_t *o)
{
  return o->ctl.reserved_base * OSSD_LBA_SIZE;
}

static int
volume_check (ossd_t *o, size_t len, uint64_t off, ossd_error *err)
{
  if (off % OSSD_LBA_SIZE || len % OSSD_LBA_SIZE
      || off + len > ossd_volume_bytes (o))
    {
      client_set_error (err, OSSD__STATUS__ERR_INVALID, EINVAL,
                        "volume I/O of %zu bytes at %llu: must be LBA-aligned and within the %llu-byte volume",
                        len, (unsigned long long) off,
                        (unsigned long long) ossd_volume_bytes (o));
      return -EINVAL;
    }
  return 0;
}

int
ossd_volume_pread (ossd_t *o, void *buf, size_t len, uint64_t off,
                   ossd_error *err)
{
  char why[300];
  int r = volume_check (o, len, off, err);
  if (r == 0 && (r = client_transport_get (o, err)) == 0)
    {
      if ((r = ossd_transport_pread (o->t, buf, len, off, why, sizeof why)) < 0)
        client_set_error (err, OSSD_STATUS_TRANSPORT, -r, "%s", why);
      client_transport_put (o);
    }
  return r;
}

int
ossd_volume_pwrite (ossd_t *o, const void *buf, size_t len, uint64_t off,
                    ossd_error *err)
{
  char why[300];
  int r = volume_check (o, len, off, err);
  if (r == 0 && (r = client_transport_get (o, err)) == 0)
    {
      if ((r = ossd_transport_pwrite (o->t, buf, len, off, why, sizeof why)) < 0)
        client_set_error (err, OSSD_STATUS_TRANSPORT, -r, "%s", why);
      client_transport_put (o);
    }
  return r;
}

int
ossd_poll_events (ossd_t *o, uint64_t *cursor, Ossd__EventBatch **batch,
                  ossd_error *err)
{
  uint64_t lba = ossd_event_lba (&o->ctl) * OSSD_LBA_SIZE;
  Ossd__EventAck ack = OSSD__EVENT_ACK__INIT;
  struct ossd_frame_hdr h = { 0 };
  const void *chunk;
  uint8_t *buf;
  char why[300];
  int r;

  *batch = NULL;
  if (posix_memalign ((void **) &buf, OSSD_LBA_SIZE, OSSD_LBA_SIZE))
    return -ENOMEM;
  memset (buf, 0, OSSD_LBA_SIZE);
  ack.seq = *cursor;
  size_t n = ossd__event_ack__pack (&ack, buf + OSSD_FRAME_HDR_SIZE);
  h.flags = OSSD_F_FIRST | OSSD_F_LAST | OSSD_F_EVENT;
  h.nonce = o->nonce;
  h.total_length = n;
  ossd_frame_encode (&h, buf + OSSD_FRAME_HDR_SIZE, n, buf, OSSD_LBA_SIZE);
  r = client_transport_get (o, err);
  if (r < 0)
    {
      free (buf);
      return r;
    }
  r = ossd_transport_pwrite (o->t, buf, OSSD_LBA_SIZE, lba, why, sizeof why);
  if (r == 0)
    r = ossd_transport_pread (o->t, buf, OSSD_LBA_SIZE, lba, why, sizeof why);
  client_transport_put (o);
  if (r == 0)
    r = ossd_frame_decode (buf, OSSD_LBA_SIZE, &h, &chunk, why, sizeof why);
  if (r < 0)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, -r, "events: %s", why);
      free (buf);
      return r;
    }
  *batch = ossd__event_batch__unpack (NULL, h.chunk_length, chunk);
  free (buf);
  if (!*batch)
    {
      client_set_error (err, OSSD_STATUS_TRANSPORT, EPROTO,
                        "event window does not hold an ossd.EventBatch");
      return -EPROTO;
    }
  if ((*batch)->n_events)
    *cursor = (*batch)->events[(*batch)->n_events - 1]->seq;
  return 0;
}
