/* sha256.h - SHA-256 used for program hashes (not installed). */
#ifndef OSSD_SHA256_H
#define OSSD_SHA256_H
#include <stddef.h>
#include <stdint.h>

struct ossd_sha256
{
  uint32_t h[8];
  uint64_t total;
  uint8_t buf[64];
  size_t fill;
};
void ossd_sha256_init (struct ossd_sha256 *s);
void ossd_sha256_update (struct ossd_sha256 *s, const void *data, size_t len);
void ossd_sha256_final (struct ossd_sha256 *s, uint8_t out[32]);
#endif
