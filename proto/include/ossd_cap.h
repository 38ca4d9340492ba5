/* ossd_cap.h - NASD-style capabilities: the format, the MAC, the keys,
 * and which rights each command needs (docs/security.md).
 *
 * Shared by the drive (device/device_caps.c verifies) and the host
 * (libossd attaches, ossdfs and ossdctl mint), so both sides agree on
 * every byte.  The MAC is HMAC-SHA256 (OpenSSL libcrypto) over a fixed
 * 44-byte little-endian string, independent of the protobuf encoding:
 *   "OSSDCAP1" pid(8) oid(8) rights(4) expiry_ns(8) version(8)
 * keyed with the partition key, itself HMAC-SHA256(master, "ossd
 * partition key" pid(8)): derived, so it needs no storage and survives
 * any restart.  Partition 0 (the drive itself) is keyed with the master
 * key: a pid-0 capability is device-wide.
 */
#ifndef OSSD_CAP_H
#define OSSD_CAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ossd.pb-c.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSD_KEY_BYTES 32
#define OSSD_MAC_BYTES 32

/* Rights (Capability.rights). */
#define OSSD_RIGHT_READ    (1u << 0)   /* READ, GET ATTRIBUTES, LIST */
#define OSSD_RIGHT_WRITE   (1u << 1)   /* WRITE, APPEND, PUNCH, SET LENGTH, FLUSH */
#define OSSD_RIGHT_ATTR    (1u << 2)   /* SET ATTRIBUTES */
#define OSSD_RIGHT_CREATE  (1u << 3)   /* CREATE, REMOVE */
#define OSSD_RIGHT_SCAN    (1u << 4)   /* SCAN of the object */
#define OSSD_RIGHT_KERNEL  (1u << 5)   /* KERNEL DEPLOY, KERNEL REMOVE */
#define OSSD_RIGHT_ADMIN   (1u << 6)   /* FORMAT, partitions, FSCK, STATS reset,
                                          the capability version attribute */
#define OSSD_RIGHTS_ALL    0x7fu

/* The object attribute holding its capability version (8 bytes,
 * little-endian; absent = 0).  Bumping it revokes every capability for
 * that object minted with the old value.  Setting it needs ADMIN. */
#define OSSD_CAP_ATTR_PAGE    0x20u
#define OSSD_CAP_ATTR_VERSION 1u

struct ossd_cap
{
  uint64_t pid;                /* 0: the whole drive (master key) */
  uint64_t oid;                /* 0: every object of the partition */
  uint32_t rights;             /* OSSD_RIGHT_* */
  uint32_t pad;                /* zero: the struct compares with memcmp */
  uint64_t expiry_ns;          /* CLOCK_REALTIME */
  uint64_t version;            /* object capability version (oid != 0) */
  uint8_t mac[OSSD_MAC_BYTES];
};

/* CLOCK_REALTIME in nanoseconds (capability expiry clock). */
uint64_t ossd_realtime_ns (void);

/* Key files: OSSD_KEY_BYTES raw bytes, owned by the user and mode 0600.
 * load refuses a file others may read or write; create makes a new one
 * (O_EXCL) from RAND_bytes.  Return 0 or a negative errno, with why. */
int ossd_key_load (const char *path, uint8_t key[OSSD_KEY_BYTES],
                   char *why, size_t whylen);
int ossd_key_create (const char *path, uint8_t key[OSSD_KEY_BYTES],
                     char *why, size_t whylen);
/* Random key bytes (a drive with no key file: a RAM drive). */
int ossd_key_random (uint8_t key[OSSD_KEY_BYTES]);

/* The secret key of partition pid (the master key itself for pid 0). */
void ossd_partition_key (const uint8_t master[OSSD_KEY_BYTES], uint64_t pid,
                         uint8_t out[OSSD_KEY_BYTES]);
/* Fill cap->mac for the other fields, keyed from the master key. */
void ossd_cap_sign (const uint8_t master[OSSD_KEY_BYTES],
                    struct ossd_cap *cap);
/* Constant-time check of cap->mac. */
bool ossd_cap_mac_ok (const uint8_t master[OSSD_KEY_BYTES],
                      const struct ossd_cap *cap);

/* Text form, for the user.ossd.cap extended attribute:
 *   ossdcap1 pid=P oid=O rights=0xR expiry=NS version=V mac=HEX64
 * format returns the length written (excluding NUL) or -ERANGE. */
#define OSSD_CAP_TEXT_MAX 200
int ossd_cap_format (const struct ossd_cap *cap, char *buf, size_t len);
int ossd_cap_parse (const char *text, struct ossd_cap *cap);
/* "read,write,..." */
const char *ossd_rights_string (uint32_t rights, char *buf, size_t len);

/* Protobuf conversion.  to_proto points pb->mac at cap->mac. */
void ossd_cap_to_proto (const struct ossd_cap *cap, Ossd__Capability *pb);
int ossd_cap_from_proto (const Ossd__Capability *pb, struct ossd_cap *cap);

/* What a request needs: `rights` on one object (oid != 0), on a partition
 * as a whole (oid == 0), on the drive (device: only a device-wide
 * capability), or on any partition (kernels, which are device-wide but
 * not the drive's administration). */
struct ossd_cap_need
{
  uint64_t pid, oid;
  uint32_t rights;
  bool device;
  bool any_partition;
};
/* Fills up to max needs and returns how many the request has (more than
 * max: call again with room for them); 0 = an open command. */
size_t ossd_request_needs (const Ossd__Request *req,
                           struct ossd_cap_need *needs, size_t max);
/* The command's name, for reasons ("READ", "SCAN", ...). */
const char *ossd_request_name (const Ossd__Request *req);
/* Whether cap's scope and rights cover need (not the MAC, expiry or
 * version: those are the drive's to check). */
bool ossd_cap_covers (const struct ossd_cap *cap,
                      const struct ossd_cap_need *need);

#ifdef __cplusplus
}
#endif
#endif /* OSSD_CAP_H */
