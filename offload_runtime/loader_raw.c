/* loader_raw.c - loads the raw bytecode image pg_ossd generates:
 * struct ossd_raw_header, insn_count instructions, rodata_len bytes. */
#include <string.h>

#include "prog_internal.h"

int
ossd_prog_load_raw (const void *buf, size_t len, struct ossd_prog **out,
                    char *err, size_t errlen)
{
  struct ossd_raw_header h;
  const uint8_t *b = buf;
  size_t want;
  *out = NULL;
  if (len < sizeof h)
    return ossd_rt_err (err, errlen, -EINVAL,
                        "raw image: %zu bytes, shorter than the header", len);
  memcpy (&h, b, sizeof h);
  if (h.magic != OSSD_RAW_MAGIC)
    return ossd_rt_err (err, errlen, -EINVAL, "raw image: bad magic 0x%08x",
                        h.magic);
  if (h.version != 1)
    return ossd_rt_err (err, errlen, -EINVAL,
                        "raw image: unsupported version %u", h.version);
  if (h.insn_count == 0 || h.insn_count > OSSD_MAX_INSNS)
    return ossd_rt_err (err, errlen, h.insn_count ? -E2BIG : -EINVAL,
                        "raw image: insn_count %u outside 1..%u", h.insn_count,
                        (unsigned) OSSD_MAX_INSNS);
  want = sizeof h + (size_t) h.insn_count * 8 + h.rodata_len;
  if (len != want)
    return ossd_rt_err (err, errlen, -EINVAL,
                        "raw image: %zu bytes, header says %zu", len, want);
  return ossd_prog_from_insns ((const struct ossd_insn *) (b + sizeof h),
                               h.insn_count, b + sizeof h + h.insn_count * 8,
                               h.rodata_len, out, err, errlen);
}
