/* client_internal.h - state of a libossd connection (not installed). */
#ifndef OSSD_CLIENT_INTERNAL_H
#define OSSD_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>

#include "libossd.h"
#include "ossd_transport.h"

struct client_slot
{
  uint32_t index;              /* drive slot number */
  uint64_t sequence;
  uint8_t *buf;                /* one window, LBA-aligned */
  uint8_t *req_lba;            /* one LBA for a small request frame */
  uint8_t *req_buf;            /* a one-chunk request frame sent in the
                                  same batch as the read of its answer */
  size_t req_cap;
  struct ossd_reassembly ra;   /* multi-chunk responses, buffer kept */
  uint64_t last_used_ms;       /* renew the claim when idle half a lease */
  bool recheck;                /* its last call failed in the transport or
                                  the channel: claim it again before the
                                  next use (the drive may have let it go:
                                  a lease that ran out while the drive was
                                  stopped, a drive restarted behind a
                                  SCSI or NVMe disk, which has no
                                  connection to lose) */
  size_t last_msg_len;         /* bytes of the last whole response taken */
  bool busy;
};

struct ossd
{
  struct ossd_transport *t;
  char *uri;
  struct ossd_control ctl;
  uint64_t nonce;
  uint32_t chunk_bytes;        /* largest window read/write we issue */
  struct ossd_connect_opts opts;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  struct client_slot *slots;   /* claimed slots */
  uint32_t n_slots;
  bool claiming;
  /* Capabilities (caps.c): the master key and the device-wide capability
   * minted from it, or those the user added. */
  pthread_mutex_t cap_lock;
  bool have_key;
  uint8_t master_key[OSSD_KEY_BYTES];
  struct ossd_cap admin_cap;
  struct ossd_cap *caps;
  size_t n_caps;
  bool reconnecting;           /* a thread is replacing t (client_reconnect) */
  uint64_t restarts;           /* reconnects that found the drive restarted */
  char *unreachable;           /* ossd_connect_unreachable: why every call fails */
  unsigned bare_users;         /* calls using t without a slot (volume, events) */
};

struct ossd_stream
{
  ossd_t *o;
  struct client_slot *slot;
  uint64_t sequence;
  size_t read_hint;            /* first read of the next message: the size
                                  of the last one (see ossd_stream_next) */
  bool done;
  bool failed;                 /* a read of the stream failed */
};

/* A transport failure with errnum ECANCELED (the interrupted hook) is
 * recorded as status OSSD__STATUS__ERR_CANCELLED. */
void client_set_error (ossd_error *err, int status, int errnum,
                       const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
struct client_slot *client_slot_get (ossd_t *o, ossd_error *err);
void client_slot_put (ossd_t *o, struct client_slot *s);
/* client_slot_put after a call that returned r: a failure in the
 * transport or the channel (err->status OSSD_STATUS_TRANSPORT, or no err)
 * marks the slot for a new claim before its next use. */
void client_slot_put_after (ossd_t *o, struct client_slot *s, int r,
                            const ossd_error *err);
/* Whether client_slot_get would return at once (a slot of ours is idle or
 * another may be claimed): callers already holding a slot never wait for
 * a second one. */
bool client_slot_free_now (ossd_t *o);
/* For calls that use the transport without a slot (the block volume, the
 * event window): keeps a reconnect from replacing o->t under them, and
 * reconnects first when the transport was lost.  Returns 0 or an error. */
int client_transport_get (ossd_t *o, ossd_error *err);
void client_transport_put (ossd_t *o);
int client_send (ossd_t *o, struct client_slot *s, const Ossd__Request *req,
                 uint64_t *sequence, ossd_error *err);
/* Receive one response message for `sequence`; *stream_more tells whether
 * more messages follow.  size_hint: expected size (first read size). */
int client_recv (ossd_t *o, struct client_slot *s, uint64_t sequence,
                 size_t size_hint, Ossd__Response **resp, bool *stream_more,
                 ossd_error *err);
/* The same, without decoding: *msg points at the serialized Response
 * inside the slot's buffers (valid until the slot's next use). */
int client_recv_raw (ossd_t *o, struct client_slot *s, uint64_t sequence,
                     size_t size_hint, const uint8_t **msg, size_t *len,
                     bool *stream_more, ossd_error *err);
/* The same two, when a batch already read `have` bytes of the response
 * window into s->buf (0: nothing read yet): that frame is used first. */
int client_recv_raw_from (ossd_t *o, struct client_slot *s, uint64_t sequence,
                          size_t size_hint, size_t have, const uint8_t **msg,
                          size_t *len, bool *stream_more, ossd_error *err);
int client_recv_from (ossd_t *o, struct client_slot *s, uint64_t sequence,
                      size_t size_hint, size_t have, Ossd__Response **resp,
                      bool *stream_more, ossd_error *err);
/* Encode a request that fits one chunk as one frame into s->req_buf,
 * with extra frame flags (OSSD_F_ACK_IN_WRITE or 0); *io_len gets the
 * bytes to write (whole LBAs).  Returns 0, -EMSGSIZE if it needs several
 * chunks (send it with client_send), or -ENOMEM. */
int client_encode_frame (ossd_t *o, struct client_slot *s,
                         const Ossd__Request *req, uint16_t flags,
                         uint64_t *sequence, size_t *io_len);
size_t client_size_hint (const Ossd__Request *req);

/* caps.c.  init reads the key (opts.key_file or the inproc drive's). */
int client_caps_init (ossd_t *o, ossd_error *err);
void client_caps_free (ossd_t *o);
/* The request as sent: req itself, or a copy in b carrying the
 * capabilities it needs.  client_caps_done frees what b holds. */
#define CLIENT_CAPS_INLINE 4
struct client_cap_buf
{
  Ossd__Request req;
  struct ossd_cap cap[CLIENT_CAPS_INLINE];
  Ossd__Capability pb[CLIENT_CAPS_INLINE];
  Ossd__Capability *more[CLIENT_CAPS_INLINE];
  struct ossd_cap *hcap;       /* more than CLIENT_CAPS_INLINE */
  Ossd__Capability *hpb, **hmore;
};
const Ossd__Request *client_caps_attach (ossd_t *o, const Ossd__Request *req,
                                         struct client_cap_buf *b);
void client_caps_done (struct client_cap_buf *b);
/* Encode a request that fits one LBA as a frame into s->req_lba (for
 * batched submission).  Returns 0 or -EMSGSIZE if it does not fit. */
int client_encode_small (ossd_t *o, struct client_slot *s,
                         const Ossd__Request *req, uint64_t *sequence);
size_t client_response_read_size (ossd_t *o, size_t size_hint);
int client_check_status (const Ossd__Response *resp, const char *what,
                         ossd_error *err);

#endif
