/* fuzz_elf_loader.c - libFuzzer harness for the kernel loader on ELF
 * images (loader_elf.c through ossd_prog_load: section walk, data
 * sections, kernel lookup, relocations) under ASan + UBSan.  The input is
 * the ELF file as a client sends it in KERNEL DEPLOY; seeds are the
 * example kernels (the .o files of build/examples, copied in by run-fuzz and the short
 * run).  A program that loads is verified, serialised to the raw format
 * and loaded back: the round trip must give the same instructions,
 * read-only data and hash.
 *   build: clang-14 -fsanitize=fuzzer,address,undefined (component.mk) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_rt.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* an exact-size copy: ASan sees any read past the image */
  uint8_t *buf = malloc (size ? size : 1);
  memcpy (buf, data, size);
  struct ossd_prog *prog = NULL;
  char err[512];
  if (ossd_prog_load (buf, size, &prog, err, sizeof err) != 0)
    {
      if (prog)
        {
          fprintf (stderr, "ossd_prog_load failed but returned a program\n");
          abort ();
        }
      free (buf);
      return 0;
    }
  free (buf);
  char log[1024];
  (void) ossd_prog_verify (prog, log, sizeof log);

  void *raw = NULL;
  size_t rawlen = 0;
  if (ossd_prog_to_raw (prog, &raw, &rawlen) == 0)
    {
      struct ossd_prog *back = NULL;
      if (ossd_prog_load_raw (raw, rawlen, &back, err, sizeof err) != 0)
        {
          fprintf (stderr, "raw round trip of a loaded ELF program failed: %s\n", err);
          abort ();
        }
      if (back->insn_count != prog->insn_count
          || memcmp (back->insns, prog->insns, prog->insn_count * sizeof *prog->insns) != 0
          || back->rodata_len != prog->rodata_len
          || (prog->rodata_len && memcmp (back->rodata, prog->rodata, prog->rodata_len) != 0)
          || memcmp (back->hash, prog->hash, sizeof prog->hash) != 0)
        {
          fprintf (stderr, "raw round trip changed the program\n");
          abort ();
        }
      ossd_prog_free (back);
      free (raw);
    }
  ossd_prog_free (prog);
  return 0;
}
