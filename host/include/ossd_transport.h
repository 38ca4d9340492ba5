/* ossd_transport.h - the block transports libossd reaches a drive through.
 *
 * A transport moves whole LBAs (OSSD_LBA_SIZE bytes) to and from a device
 * and knows nothing of the channel.  One file per transport in
 * host/libossd/transport_*.c; they register in transport.c.  file:, sg:
 * and nvme: share one request path, the block-transport core
 * (transport_block.c), and keep only their opening and a one-command
 * encoder each.
 *
 *   nbd+unix:///?socket=PATH, nbd://HOST:PORT   libnbd
 *   file:PATH                                    O_DIRECT pread/pwrite
 *   inproc:IMAGE                                 device core linked in
 *   sg:/dev/sgN or a SCSI disk node              SG_IO READ(16)/WRITE(16)
 *   nvme:/dev/nvmeXnY                            libnvme I/O passthrough
 */
#ifndef OSSD_TRANSPORT_H
#define OSSD_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ossd_transport;

/* One I/O of a batch. */
struct ossd_io
{
  void *buf;
  size_t len;
  uint64_t off;
  bool write;
  int result;                  /* 0 or negative errno, set by the batch */
};

/* How long a transport may wait for the device, and how a caller stops a
 * wait early (from the client's ossd_connect_opts).  A transport that
 * waits on a connection (NBD) checks both at least every 100 ms, on the
 * connect too; one that runs synchronous system calls (file, sg, nvme,
 * inproc) cannot, but sg and nvme hand timeout_ms to the kernel as each
 * read's and write's command timeout (its error handling then aborts the
 * command; see tests/vm/README.md for what that does under qemu). */
struct ossd_transport_wait
{
  uint32_t timeout_ms;         /* each wait; 0 = no limit */
  int (*interrupted) (void *arg);  /* nonzero: give up the wait */
  void *interrupted_arg;
};

struct ossd_transport_ops
{
  const char *name;            /* "nbd", "file", "inproc", "sg", "nvme" */
  /* Offsets and lengths are multiples of OSSD_LBA_SIZE.  Return 0 or a
   * negative errno with a reason in why. */
  int (*pread) (struct ossd_transport *t, void *buf, size_t len,
                uint64_t off, char *why, size_t whylen);
  int (*pwrite) (struct ossd_transport *t, const void *buf, size_t len,
                 uint64_t off, char *why, size_t whylen);
  int (*flush) (struct ossd_transport *t, char *why, size_t whylen);
  /* Releases priv and t itself (both came from the constructor). */
  void (*close) (struct ossd_transport *t);
  /* Optional: issue every I/O of the batch at once and wait for all of
   * them (the device may serve them in any order).  NULL: one by one. */
  int (*batch) (struct ossd_transport *t, struct ossd_io *ios, size_t n,
                char *why, size_t whylen);
  /* Optional: true when the connection is gone for good - the device
   * closed it (it was restarted), or a wait timed out or was interrupted
   * and the transport dropped the connection (I/Os still in flight could
   * not be abandoned otherwise).  Every later I/O fails at once; the
   * client then opens the URI again.  Cheap: called before each call. */
  bool (*lost) (struct ossd_transport *t);
};

struct ossd_transport
{
  const struct ossd_transport_ops *ops;
  uint64_t size_bytes;         /* whole device, reserved area included */
  uint32_t max_transfer;       /* largest single READ/WRITE in bytes */
  bool knows_connections;      /* drive frees slots on disconnect */
  bool close_at_once;          /* close without a polite disconnect
                                  (ossd_disconnect_at_exit) */
  void *priv;                  /* transport state */
  /* Set by the client from ossd_connect_opts after open. */
  uint64_t spin_ns;            /* poll a reply this long before sleeping */
  void (*before_wait) (void *arg);
  void *before_wait_arg;
  /* inproc: only: the drive runs in this process, which therefore holds
   * its master key (the client mints its capabilities from it). */
  bool has_master_key;
  uint8_t master_key[32];
  struct ossd_transport_wait wait;  /* set by the opener */
};

/* Open `uri`; picks the transport by scheme.  Returns 0 or a negative
 * errno with a reason (unknown scheme, missing device, ...); -ETIMEDOUT
 * or -ECANCELED when the connect outlived wait->timeout_ms or
 * wait->interrupted said stop.  wait may be NULL (no limits). */
int ossd_transport_open (const char *uri,
                         const struct ossd_transport_wait *wait,
                         struct ossd_transport **out, char *why,
                         size_t whylen);
/* Whether the transport's connection is gone for good (ops->lost). */
bool ossd_transport_lost (struct ossd_transport *t);
void ossd_transport_close (struct ossd_transport *t);
/* Run a batch: concurrently where the transport can, else in order.
 * Returns 0 when every I/O succeeded, else the first error (each
 * ios[i].result says which failed). */
int ossd_transport_batch (struct ossd_transport *t, struct ossd_io *ios,
                          size_t n, char *why, size_t whylen);
/* One I/O, like the ops, after the before_wait hook. */
int ossd_transport_pread (struct ossd_transport *t, void *buf, size_t len,
                          uint64_t off, char *why, size_t whylen);
int ossd_transport_pwrite (struct ossd_transport *t, const void *buf,
                           size_t len, uint64_t off, char *why,
                           size_t whylen);

/* Per-scheme constructors (rest = the URI after "scheme:"). */
int ossd_transport_open_nbd (const char *uri,
                             const struct ossd_transport_wait *wait,
                             struct ossd_transport **out, char *why,
                             size_t whylen);
int ossd_transport_open_file (const char *path, struct ossd_transport **out,
                              char *why, size_t whylen);
int ossd_transport_open_inproc (const char *image,
                                struct ossd_transport **out, char *why,
                                size_t whylen);
int ossd_transport_open_sg (const char *dev, struct ossd_transport **out,
                            char *why, size_t whylen);
int ossd_transport_open_nvme (const char *dev, struct ossd_transport **out,
                              char *why, size_t whylen);

/* The check every transport makes before touching a device: len and off
 * whole LBAs, len > 0, and [off, off+len) inside the device.  Returns 0
 * or -EINVAL with "<scheme>: <dev>: <op> of N bytes at offset O ..." in
 * why. */
int ossd_transport_check_io (const struct ossd_transport *t,
                             const char *dev, const char *op, size_t len,
                             uint64_t off, char *why, size_t whylen);

/* Command builders, exposed so that unit tests can check the bytes. */
/* SCSI READ(16) (0x88) / WRITE(16) (0x8a) CDB for `nblocks` LBAs. */
void ossd_sg_build_rw16 (uint8_t cdb[16], bool is_write, uint64_t lba,
                         uint32_t nblocks, bool fua);
/* SCSI READ CAPACITY(16) CDB (SERVICE ACTION IN 0x9e / 0x10). */
void ossd_sg_build_read_capacity16 (uint8_t cdb[16], uint32_t alloc_len);

struct ossd_nvme_rw_cmd
{
  uint8_t opcode;              /* 0x02 read, 0x01 write */
  uint32_t nsid;
  uint64_t slba;
  uint16_t nlb;                /* zero-based count of logical blocks */
  uint32_t cdw10, cdw11, cdw12;
  uint32_t data_len;
};
/* Fill an NVMe read/write command for `len` bytes at byte offset `off`
 * on a namespace with logical blocks of lba_bytes. Returns 0 or -EINVAL
 * (unaligned, or more than 65536 blocks). */
int ossd_nvme_build_rw (struct ossd_nvme_rw_cmd *cmd, bool is_write,
                        uint32_t nsid, uint32_t lba_bytes, uint64_t off,
                        size_t len);

#ifdef __cplusplus
}
#endif
#endif /* OSSD_TRANSPORT_H */
