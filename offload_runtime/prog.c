/* prog.c - struct ossd_prog life cycle: building from instructions,
 * hashing, format detection, raw serialisation and freeing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_internal.h"
#include "sha256.h"

int
ossd_rt_err (char *err, size_t errlen, int code, const char *fmt, ...)
{
  if (err && errlen)
    {
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (err, errlen, fmt, ap);
      va_end (ap);
    }
  return code;
}

static void
prog_hash (struct ossd_prog *p)
{
  struct ossd_sha256 s;
  uint32_t n[2] = { p->insn_count, p->rodata_len };
  ossd_sha256_init (&s);
  ossd_sha256_update (&s, n, sizeof n);
  ossd_sha256_update (&s, p->insns, (size_t) p->insn_count * sizeof *p->insns);
  if (p->rodata_len)
    ossd_sha256_update (&s, p->rodata, p->rodata_len);
  ossd_sha256_final (&s, p->hash);
}

int
ossd_prog_from_insns (const struct ossd_insn *insns, uint32_t count,
                      const void *rodata, uint32_t rodata_len,
                      struct ossd_prog **out, char *err, size_t errlen)
{
  struct ossd_prog *p;
  *out = NULL;
  if (count == 0)
    return ossd_rt_err (err, errlen, -EINVAL, "program has no instructions");
  if (count > OSSD_MAX_INSNS)
    return ossd_rt_err (err, errlen, -E2BIG,
                        "program has %u instructions, limit is %u", count,
                        (unsigned) OSSD_MAX_INSNS);
  p = calloc (1, sizeof *p);
  if (!p)
    return ossd_rt_err (err, errlen, -ENOMEM, "out of memory");
  p->insns = malloc ((size_t) count * sizeof *insns);
  p->aux = calloc (count, sizeof *p->aux);
  p->rodata = rodata_len ? malloc (rodata_len) : NULL;
  if (!p->insns || !p->aux || (rodata_len && !p->rodata))
    {
      ossd_prog_free (p);
      return ossd_rt_err (err, errlen, -ENOMEM, "out of memory");
    }
  memcpy (p->insns, insns, (size_t) count * sizeof *insns);
  if (rodata_len)
    memcpy (p->rodata, rodata, rodata_len);
  p->insn_count = count;
  p->rodata_len = rodata_len;
  snprintf (p->name, sizeof p->name, "raw");
  prog_hash (p);
  *out = p;
  return 0;
}

void
ossd_prog_free (struct ossd_prog *p)
{
  if (!p)
    return;
  free (p->insns);
  free (p->aux);
  free (p->rodata);
  free (p);
}

void
ossd_prog_hash_hex (const struct ossd_prog *p, char buf[65])
{
  for (int i = 0; i < 32; i++)
    snprintf (buf + 2 * i, 3, "%02x", p->hash[i]);
}

int
ossd_prog_load (const void *buf, size_t len, struct ossd_prog **out,
                char *err, size_t errlen)
{
  const uint8_t *b = buf;
  uint32_t magic;
  *out = NULL;
  if (len >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F')
    return ossd_prog_load_elf (buf, len, out, err, errlen);
  if (len >= 4)
    {
      memcpy (&magic, b, 4);
      if (magic == OSSD_RAW_MAGIC)
        return ossd_prog_load_raw (buf, len, out, err, errlen);
    }
  return ossd_rt_err (err, errlen, -EINVAL,
                      "unknown kernel format (neither ELF nor OBPF raw image)");
}

int
ossd_prog_to_raw (const struct ossd_prog *p, void **bufp, size_t *lenp)
{
  struct ossd_raw_header h = { OSSD_RAW_MAGIC, 1, p->insn_count, p->rodata_len };
  size_t len = sizeof h + (size_t) p->insn_count * 8 + p->rodata_len;
  uint8_t *b = malloc (len);
  if (!b)
    return -ENOMEM;
  memcpy (b, &h, sizeof h);
  memcpy (b + sizeof h, p->insns, (size_t) p->insn_count * 8);
  if (p->rodata_len)
    memcpy (b + sizeof h + (size_t) p->insn_count * 8, p->rodata, p->rodata_len);
  *bufp = b;
  *lenp = len;
  return 0;
}
