/* tables.h - the eight TPC-H tables at scale factor SF: cardinalities
 * (clause 4.2.5) and one generation unit at a time (a row; for partsupp a
 * part's four rows; for lineitem an order's 1..7 lines). */
#ifndef TPCH_TABLES_H
#define TPCH_TABLES_H

#include <stdint.h>

#include "out.h"
#include "text.h"

enum tpch_table
{
  T_REGION, T_NATION, T_SUPPLIER, T_CUSTOMER, T_PART, T_PARTSUPP, T_ORDERS, T_LINEITEM,
  T_NTABLES
};

extern const char *const tpch_table_names[T_NTABLES];

struct tpch
{
  double sf;
  uint64_t seed;
  int64_t nsupp, ncust, npart, norders, nclerks;
  struct text_pool pool;
};

/* Sizes for SF and the text pool for SEED; 0 or -1 (message in ERR). */
int tpch_init (struct tpch *g, double sf, uint64_t seed, char *err, size_t errlen);
void tpch_free (struct tpch *g);

/* How many generation units table T has. */
int64_t tpch_units (const struct tpch *g, enum tpch_table t);
/* Write unit U (0-based) of table T; returns the rows written. */
int tpch_unit (const struct tpch *g, enum tpch_table t, int64_t u, struct out *o);
/* Rows of unit U without writing (lineitem: the order's line count). */
int tpch_unit_rows (const struct tpch *g, enum tpch_table t, int64_t u);

int tpch_table_of (const char *name);  /* -1 if none */

#endif /* TPCH_TABLES_H */
