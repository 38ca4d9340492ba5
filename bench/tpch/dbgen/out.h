/* out.h - buffered COPY-text output of one table: fields, rows, a running
 * FNV-1a checksum of every byte written (for --json and the determinism
 * check). */
#ifndef TPCH_OUT_H
#define TPCH_OUT_H

#include <stdint.h>
#include <stdio.h>

struct out
{
  FILE *f;
  char buf[1 << 16];
  size_t len;
  uint64_t checksum;
  uint64_t bytes;
  int error;
};

void out_init (struct out *o, FILE *f);
int out_flush (struct out *o);        /* 0 or -1 (errno set) */

void out_str (struct out *o, const char *s);
void out_mem (struct out *o, const char *s, size_t n);
void out_int (struct out *o, int64_t v);
void out_money (struct out *o, int64_t cents);   /* 1234 -> 12.34 */
void out_sep (struct out *o);          /* a field separator (tab) */
void out_eol (struct out *o);          /* end of row */

#endif /* TPCH_OUT_H */
