/* transport_block.h - the block-transport core under file:, sg: and nvme:
 * (private to libossd).
 *
 * Owns the request path those three transports share: the range and
 * alignment check of every request (ossd_transport_check_io), splitting it
 * into device commands of at most the device's largest transfer, the
 * aligned bounce buffer for a caller buffer the device cannot take
 * (O_DIRECT), the naming of each command for error messages ("READ(16) of
 * 8 blocks at LBA 40", "pread of 4096 bytes at offset 8192"), flush and
 * close, and the struct ossd_transport itself (ops, size rounded down to
 * whole LBAs, max_transfer, knows_connections = false).  Batches run
 * through transport.c's loop, one request after the other.
 *
 * A transport keeps only what is its own: opening the device, probing its
 * size and limits, and an encoder - one device command per call
 * (struct ossd_block_encoder.submit), its flush and its release - that
 * turns a piece into a CDB, an NVMe command or a pread/pwrite and decodes
 * the outcome into a clear error.  The helpers below are the open-time
 * steps the transports share.
 *
 * The core keeps no state that changes after open: a transport is as safe
 * from several threads as its encoder (each bounce buffer belongs to its
 * call).
 */
#ifndef OSSD_TRANSPORT_BLOCK_H
#define OSSD_TRANSPORT_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ossd_transport.h"

/* One device command of a request, as the core hands it to an encoder. */
struct ossd_block_cmd
{
  bool is_write;
  void *buf;                   /* nbytes; aligned to facts.buf_align */
  size_t nbytes;               /* whole LBAs, at most facts.max_transfer */
  uint64_t off;                /* byte offset on the device */
  uint64_t lba;                /* off / facts.block_size (0: bytes) */
  uint32_t nblocks;            /* nbytes / facts.block_size (0: bytes) */
  const char *what;            /* names the command for why, e.g.
                                * "READ(16) of 8 blocks at LBA 40" */
  uint32_t timeout_ms;         /* the client's wait limit for the device
                                * (t->wait.timeout_ms), handed to the
                                * kernel as the command's timeout; 0: the
                                * encoder's own default */
};

/* What a transport gives the core: its name and its encoder. */
struct ossd_block_encoder
{
  const char *scheme;          /* "file", "sg", "nvme": t->ops->name */
  const char *read_op;         /* command names in messages: "pread", */
  const char *write_op;        /* "READ(16)", "Read", ... */
  /* Run exactly one command.  Returns 0 or a negative errno with a reason
   * in why that names the device and cmd->what (ossd_block_why). */
  int (*submit) (void *priv, const struct ossd_block_cmd *cmd, char *why,
                 size_t whylen);
  int (*flush) (void *priv, char *why, size_t whylen);
  /* Closes the device and frees priv; priv may be NULL. */
  void (*release) (void *priv);
};

/* What the transport found out about its device at open. */
struct ossd_block_facts
{
  const char *dev;             /* path in messages; lives in priv */
  uint64_t size_bytes;         /* rounded down to whole LBAs by the core */
  uint32_t block_size;         /* device logical block, for cmd->lba and
                                * cmd->nblocks; 0 = addressed in bytes */
  uint32_t max_transfer;       /* largest command, a whole number of LBAs */
  uint32_t buf_align;          /* buffers must be aligned to this; 0 or 1:
                                * any buffer will do */
};

/* Make the transport.  On success *out owns priv (released by
 * ops->close); on failure (-ENOMEM, -EINVAL for facts that make no
 * sense) the caller still does. */
int ossd_block_transport_new (const struct ossd_block_encoder *enc,
                              void *priv,
                              const struct ossd_block_facts *facts,
                              struct ossd_transport **out, char *why,
                              size_t whylen);

/* Fill why with "<scheme>: <dev>: <what>: <detail>" and return err (a
 * negative errno), for the reasons encoders give. */
int ossd_block_why (char *why, size_t whylen, int err, const char *scheme,
                    const char *dev, const char *what, const char *fmt, ...)
  __attribute__ ((format (printf, 7, 8)));

/* The first check of an opener: name given and shorter than max bytes.
 * noun says what the name is ("path", "device"), usage the URI wanted
 * ("file:PATH").  Returns 0, -EINVAL or -ENAMETOOLONG with a reason. */
int ossd_block_check_name (const char *scheme, const char *noun,
                           const char *usage, const char *name, size_t max,
                           char *why, size_t whylen);

/* fstat(fd) into *sb and refuse anything but a char or block node:
 * kind says what it should be ("a SCSI device node").  Returns 0, or a
 * negative errno / -ENODEV with a reason. */
int ossd_block_need_device_node (const char *scheme, const char *dev,
                                 int fd, const char *kind, struct stat *sb,
                                 char *why, size_t whylen);

/* The largest command: want (what the device says, or a default), never
 * above kernel_max (0: unknown) nor cap, a whole number of LBAs, at least
 * one LBA. */
uint32_t ossd_block_max_transfer (uint64_t want, uint64_t kernel_max,
                                  uint64_t cap);

/* The block layer's limit for one pass-through command on the disk whose
 * request queue is the sysfs directory `queue` (/sys/dev/block/M:m/queue,
 * /sys/block/NAME/queue): its largest request (max_hw_sectors_kb) and,
 * because SG_IO on a block node and NVMe pass-through map the caller's
 * pages instead of copying them, max_segments pages (a buffer's pages are
 * not physically contiguous in general; past that the kernel refuses the
 * command with EINVAL).  The smaller of what is known; 0 if neither. */
uint64_t ossd_block_queue_max_bytes (const char *queue);

#endif /* OSSD_TRANSPORT_BLOCK_H */
