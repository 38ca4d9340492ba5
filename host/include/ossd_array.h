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
 * RAID-5 (level 5, n >= 3): rows of n units, n - 1 of data and one of
 * parity (the XOR of the row's data units); data unit k of the file is in
 * row r = k / (n - 1) at position p = k % (n - 1), on drive
 * (p + n - r % n) % n, and the row's parity on drive (2n - 1 - r % n) % n
 * (left-symmetric rotation: the same as host/raid's GROUPS placement with
 * one group of n); every unit of row r is at offset r * unit of its
 * drive's object.  So drive d holds, at row r, position (d + r % n) % n,
 * parity when that is n - 1.
 *
 * Label: object OSSD_ARRAY_LABEL_OID of the filesystem's partition on
 * every member, 64 bytes, little-endian:
 *    0 "OSSDARR1"   8 u32 version (1: RAID-0, 2: byte 20 is the level)
 *   12 u32 index of this drive   16 u32 number of drives
 *   20 u32 level (0 or 5)   24 u64 stripe unit (bytes)
 *   32 16-byte array uuid   48 u64 creation time (ns since the epoch)
 * A RAID-5 label is version 2, so a build that knows only RAID-0 refuses
 * it instead of reading parity as data.  A drive without one is a
 * one-drive filesystem (or not yet an array).
 *
 * Array state: object OSSD_ARRAY_STATE_OID on every member of a RAID-5
 * array, 32 bytes: "OSSDAST1", u64 epoch, u64 mask of the drives that are
 * out of date (failed while the array was written, not yet rebuilt),
 * u64 flags (OSSD_ARRAY_STATE_OPEN: mounted, not yet unmounted cleanly).
 * Written, with the epoch one higher, to every drive still in the array
 * when a drive fails, when a rebuild ends, at mount and at unmount; the
 * highest epoch among the drives is the array's state. */
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
#define OSSD_ARRAY_STATE_OID     5
#define OSSD_ARRAY_LABEL_SIZE    64
#define OSSD_ARRAY_STATE_SIZE    32
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

enum ossd_array_level
{
  OSSD_ARRAY_RAID0 = 0,
  OSSD_ARRAY_RAID5 = 5,
};

struct ossd_array_label
{
  uint32_t index, count;
  uint32_t level;             /* enum ossd_array_level */
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

/* ---- geometry of either level ------------------------------------------ */

struct ossd_geometry
{
  uint64_t unit;
  uint32_t n;
  uint32_t level;             /* enum ossd_array_level */
};

/* Drives holding data in a row: n, or n - 1 under RAID-5. */
uint32_t ossd_geom_data_drives (const struct ossd_geometry *g);
/* Where the data byte at file offset off lives (as ossd_stripe_locate). */
void ossd_geom_locate (const struct ossd_geometry *g, uint64_t off,
                       uint32_t *drive, uint64_t *drive_off, uint64_t *run);
/* RAID-5: the drive holding the parity of the row of drive offset
 * drive_off (the same offset on that drive).  RAID-0: UINT32_MAX. */
uint32_t ossd_geom_parity_drive (const struct ossd_geometry *g,
                                 uint64_t drive_off);
/* The file offset of byte drive_off of drive d's object; false when that
 * byte is parity. */
bool ossd_geom_file_offset (const struct ossd_geometry *g, uint32_t d,
                            uint64_t drive_off, uint64_t *off);
/* The length of drive d's object for a file of `size` bytes (a parity
 * unit is as long as the longest data unit of its row). */
uint64_t ossd_geom_drive_length (const struct ossd_geometry *g, uint64_t size,
                                 uint32_t d);
/* The file offset that drive d's object of `len` bytes implies the file
 * reaches (0 for 0). */
uint64_t ossd_geom_logical_end (const struct ossd_geometry *g, uint64_t len,
                                uint32_t d);
/* dst ^= src over n bytes (RAID-5 parity, its checks and rebuilds). */
void ossd_xor_into (void *dst, const void *src, size_t n);
/* 0 when (n, level) is an array this build can make, else -EINVAL. */
int ossd_geom_check (const struct ossd_geometry *g, char *why, size_t len);
const char *ossd_array_level_name (uint32_t level);

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
/* The array state (above) of one drive: 0, -ENOENT when it has none,
 * -EINVAL when it is damaged. */
struct ossd_array_state
{
  uint64_t epoch;
  uint64_t stale_mask;        /* bit d: drive d is out of date */
  uint64_t flags;             /* OSSD_ARRAY_STATE_OPEN */
};
#define OSSD_ARRAY_STATE_OPEN 1u
int ossd_array_state_read (ossd_t *o, uint64_t pid, struct ossd_array_state *s,
                           ossd_error *err);
/* Write and FLUSH it. */
int ossd_array_state_write (ossd_t *o, uint64_t pid,
                            const struct ossd_array_state *s, ossd_error *err);
/* A fresh random uuid. */
int ossd_array_new_uuid (uint8_t uuid[16]);
/* 8-4-4-4-12 hex form into buf (at least 37 bytes). */
void ossd_array_uuid_format (const uint8_t uuid[16], char *buf);

/* ---- layout text --------------------------------------------------------
 *   raid0|raid5 n=N unit=BYTES [uuid=UUID] [out=D,...] drives=URI,URI,...
 * (URIs of array members may not contain a comma or a space.)  out= lists
 * the drives of a RAID-5 array that are out of it (failed, or stale since
 * they did): what they hold is read from the others, never from them. */
int ossd_layout_format (char *buf, size_t len, const struct ossd_geometry *g,
                        const uint8_t *uuid, uint64_t out_mask,
                        const char *const *uris);
struct ossd_layout
{
  uint32_t n;
  uint32_t level;             /* enum ossd_array_level */
  uint64_t unit;
  uint64_t out_mask;          /* bit d: drive d is out (out=) */
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
