/* ossd_array.h - arrays of drives (docs/arrays.md): RAID-0 stripe
 * geometry, the array label every member drive carries, and the text form
 * of a file's layout (the user.ossd.layout attribute of ossdfs).
 *
 * Geometry: a file striped over n drives in units of `unit` bytes keeps
 * unit k (bytes [k*unit, (k+1)*unit) of the file) on drive k % n, at
 * offset (k / n) * unit of that drive's object (same PID and OID on every
 * drive).  n = 1 is the unstriped layout: the object holds the file's
 * bytes offset for offset.
 *
 * Label: object OSSD_ARRAY_LABEL_OID of the filesystem's partition on
 * every member, 64 bytes, little-endian:
 *    0 "OSSDARR1"   8 u32 version (1)   12 u32 index of this drive
 *   16 u32 number of drives   20 u32 0   24 u64 stripe unit (bytes)
 *   32 16-byte array uuid   48 u64 creation time (ns since the epoch)
 * A drive without one is a one-drive filesystem (or not yet an array). */
#ifndef OSSD_ARRAY_H
#define OSSD_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libossd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSD_ARRAY_LABEL_OID     4
#define OSSD_ARRAY_LABEL_SIZE    64
#define OSSD_ARRAY_MAX_DRIVES    64
#define OSSD_ARRAY_DEFAULT_UNIT  (1024u * 1024u)
#define OSSD_ARRAY_UNIT_ALIGN    8192u   /* units hold whole heap pages */

/* The ossdfs on-drive format the array tools read (host/ossdfs/inode.c):
 * the inode attribute (mode at byte 4) and, on array mounts, the file's
 * size as a second attribute of the same page (u64 little-endian). */
#define OSSD_FS_PAGE_INODE       0x10001u
#define OSSD_FS_INODE_NUMBER     1u
#define OSSD_FS_SIZE_NUMBER      2u
#define OSSD_FS_FIRST_OID        16u

struct ossd_array_label
{
  uint32_t index, count;
  uint64_t unit;
  uint8_t uuid[16];
  uint64_t created_ns;
};

/* ---- geometry (pure) ---------------------------------------------------- */

/* Where file offset `off` lives: *drive, *drive_off, and *run, the bytes
 * from off to the end of its unit. */
void ossd_stripe_locate (uint64_t unit, uint32_t n, uint64_t off,
                         uint32_t *drive, uint64_t *drive_off, uint64_t *run);
/* The length of drive d's object for a file of `size` bytes. */
uint64_t ossd_stripe_drive_length (uint64_t unit, uint32_t n, uint64_t size,
                                   uint32_t d);
/* The file offset just past the last byte of drive d's object when it is
 * `len` bytes long (0 for 0). */
uint64_t ossd_stripe_logical_end (uint64_t unit, uint32_t n, uint64_t len,
                                  uint32_t d);
/* The file offset of byte drive_off of drive d's object. */
uint64_t ossd_stripe_file_offset (uint64_t unit, uint32_t n, uint32_t d,
                                  uint64_t drive_off);
/* 0 when unit is a usable stripe unit (a non-zero multiple of 8 KiB, at
 * most 1 GiB), else -EINVAL with the reason in why. */
int ossd_stripe_unit_check (uint64_t unit, char *why, size_t len);

/* ---- label ------------------------------------------------------------- */

void ossd_array_label_encode (const struct ossd_array_label *l,
                              uint8_t out[OSSD_ARRAY_LABEL_SIZE]);
/* 0, or -EINVAL when buf is not a label (why says what is wrong). */
int ossd_array_label_decode (struct ossd_array_label *l, const uint8_t *buf,
                             size_t len, char *why, size_t wlen);
/* Read the label of partition pid: 0, -ENOENT when there is none, -EINVAL
 * when object OSSD_ARRAY_LABEL_OID is something else, or the call's error. */
int ossd_array_label_read (ossd_t *o, uint64_t pid,
                           struct ossd_array_label *l, ossd_error *err);
/* Create (or overwrite) the label of partition pid. */
int ossd_array_label_write (ossd_t *o, uint64_t pid,
                            const struct ossd_array_label *l, ossd_error *err);
/* A fresh random uuid. */
int ossd_array_new_uuid (uint8_t uuid[16]);
/* 8-4-4-4-12 hex form into buf (at least 37 bytes). */
void ossd_array_uuid_format (const uint8_t uuid[16], char *buf);

/* ---- layout text --------------------------------------------------------
 *   raid0 n=N unit=BYTES [uuid=UUID] drives=URI,URI,...
 * (URIs of array members may not contain a comma or a space.) */
int ossd_layout_format (char *buf, size_t len, uint32_t n, uint64_t unit,
                        const uint8_t *uuid, const char *const *uris);
struct ossd_layout
{
  uint32_t n;
  uint64_t unit;
  char *uris[OSSD_ARRAY_MAX_DRIVES];   /* malloc'd; ossd_layout_free */
};
/* 0, or -EINVAL with why. */
int ossd_layout_parse (const char *text, struct ossd_layout *l, char *why,
                       size_t wlen);
void ossd_layout_free (struct ossd_layout *l);

/* The master key file of the drive at uri: the ossd.key beside the socket
 * of an nbd+unix URI when there is one (ossdctl device start --rundir DIR
 * puts both in DIR), else ossd_default_key_file. */
void ossd_key_file_for_uri (const char *uri, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* OSSD_ARRAY_H */
