/* tables.c - the rows of the eight tables, as clause 4.2.3 of the TPC-H
 * specification defines them.  Every row draws from its own random stream
 * (rng_row), so a unit is generated alone and the same every time. */
#include "tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dists.h"

const char *const tpch_table_names[T_NTABLES] = {
  "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
};

/* Pool size: the specification's is 300 MB; a few MB of the same grammar
 * keep the substrings' word statistics and start in a fraction of a second. */
#define POOL_LEN (8u << 20)

int
tpch_table_of (const char *name)
{
  for (int t = 0; t < T_NTABLES; t++)
    if (strcmp (name, tpch_table_names[t]) == 0)
      return t;
  return -1;
}

int
tpch_init (struct tpch *g, double sf, uint64_t seed, char *err, size_t errlen)
{
  if (!(sf > 0) || sf > 100000)
    {
      snprintf (err, errlen, "scale factor %g out of range (0, 100000]", sf);
      return -1;
    }
  g->sf = sf;
  g->seed = seed;
  g->nsupp = llround (10000 * sf);
  g->ncust = llround (150000 * sf);
  g->npart = llround (200000 * sf);
  g->norders = llround (1500000 * sf);
  g->nclerks = llround (1000 * sf);
  if (g->nsupp < 4 || g->ncust < 3 || g->npart < 1 || g->norders < 1)
    {
      snprintf (err, errlen, "scale factor %g too small (at least 4 suppliers needed)", sf);
      return -1;
    }
  if (g->nclerks < 1)
    g->nclerks = 1;
  if (text_pool_build (&g->pool, seed, POOL_LEN) != 0)
    {
      snprintf (err, errlen, "out of memory for the text pool");
      return -1;
    }
  return 0;
}

void
tpch_free (struct tpch *g)
{
  text_pool_free (&g->pool);
}

int64_t
tpch_units (const struct tpch *g, enum tpch_table t)
{
  switch (t)
    {
    case T_REGION: return 5;
    case T_NATION: return 25;
    case T_SUPPLIER: return g->nsupp;
    case T_CUSTOMER: return g->ncust;
    case T_PART:
    case T_PARTSUPP: return g->npart;
    case T_ORDERS:
    case T_LINEITEM: return g->norders;
    default: return 0;
    }
}

/* ---- helpers --------------------------------------------------------- */

static void
field_text (struct out *o, const struct tpch *g, struct rng *r, int lo, int hi)
{
  char buf[256];
  out_mem (o, buf, (size_t) text_string (&g->pool, r, lo, hi, buf));
}

static void
field_vstring (struct out *o, struct rng *r, int lo, int hi)
{
  char buf[64];
  out_mem (o, buf, (size_t) text_vstring (r, lo, hi, buf));
}

/* "Prefix#" and KEY in 9 digits: Supplier#000000001 */
static void
field_keyname (struct out *o, const char *prefix, int64_t key)
{
  char buf[40];
  out_mem (o, buf, (size_t) snprintf (buf, sizeof buf, "%s%09lld", prefix, (long long) key));
}

/* clause 4.2.2.9: country code (nation + 10), then 3, 3 and 4 digits */
static void
field_phone (struct out *o, struct rng *r, int nationkey)
{
  char buf[24];
  int a = (int) rng_range (r, 100, 999), b = (int) rng_range (r, 100, 999), c = (int) rng_range (r, 1000, 9999);
  out_mem (o, buf, (size_t) snprintf (buf, sizeof buf, "%02d-%03d-%03d-%04d", nationkey + 10, a, b, c));
}

/* P_RETAILPRICE in cents (clause 4.2.3) */
static int64_t
retail_cents (int64_t partkey)
{
  return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/* PS_SUPPKEY / L_SUPPKEY for the I-th (0..3) supplier of PARTKEY */
static int64_t
supplier_of (const struct tpch *g, int64_t partkey, int i)
{
  int64_t s = g->nsupp;
  return (partkey + i * (s / 4 + (partkey - 1) / s)) % s + 1;
}

/* ---- region, nation ---------------------------------------------------- */

static int
gen_region (const struct tpch *g, int64_t u, struct out *o)
{
  struct rng r;
  rng_row (&r, g->seed, T_REGION, (uint64_t) u);
  out_int (o, u); out_sep (o);
  out_str (o, tpch_regions[u]); out_sep (o);
  field_text (o, g, &r, 31, 115); out_eol (o);
  return 1;
}

static int
gen_nation (const struct tpch *g, int64_t u, struct out *o)
{
  struct rng r;
  rng_row (&r, g->seed, T_NATION, (uint64_t) u);
  out_int (o, u); out_sep (o);
  out_str (o, tpch_nations[u].name); out_sep (o);
  out_int (o, tpch_nations[u].regionkey); out_sep (o);
  field_text (o, g, &r, 31, 114); out_eol (o);
  return 1;
}

/* ---- supplier ------------------------------------------------------------ */

/* SF * 5 suppliers carry "Customer...Complaints" in their comment and as
 * many others "Customer...Recommends" (clause 4.2.3): the rows are picked
 * by a fixed permutation of the keys, so the counts are exact. */
static int
supplier_remark (const struct tpch *g, int64_t key)
{
  static const int64_t primes[] = {7919, 104729, 1299709, 15485863, 179424673};
  int64_t s = g->nsupp, a = 1;
  for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
    if (s % primes[i] != 0)
      {
        a = primes[i];
        break;
      }
  int64_t pos = (int64_t) (((unsigned __int128) (key - 1) * (uint64_t) a + (g->seed % (uint64_t) s)) % (uint64_t) s);
  int64_t k = llround (5 * g->sf);
  if (k < 1)
    k = 1;
  return pos < k ? 1 : pos < 2 * k ? 2 : 0;
}

static int
gen_supplier (const struct tpch *g, int64_t u, struct out *o)
{
  struct rng r;
  int64_t key = u + 1;
  rng_row (&r, g->seed, T_SUPPLIER, (uint64_t) u);
  out_int (o, key); out_sep (o);
  field_keyname (o, "Supplier#", key); out_sep (o);
  field_vstring (o, &r, 10, 40); out_sep (o);
  int nation = (int) rng_range (&r, 0, 24);
  out_int (o, nation); out_sep (o);
  field_phone (o, &r, nation); out_sep (o);
  out_money (o, rng_range (&r, -99999, 999999)); out_sep (o);
  char c[128];
  int n = text_string (&g->pool, &r, 25, 100, c);
  int remark = supplier_remark (g, key);
  if (remark)
    {
      const char *tail = remark == 1 ? "Complaints" : "Recommends";
      int room = n - 8 - 10;                 /* "Customer" + tail */
      int at = (int) rng_range (&r, 0, room);
      int gap = (int) rng_range (&r, 0, room - at);
      memcpy (c + at, "Customer", 8);
      memcpy (c + at + 8 + gap, tail, 10);
    }
  out_mem (o, c, (size_t) n); out_eol (o);
  return 1;
}

/* ---- customer ------------------------------------------------------------ */

static int
gen_customer (const struct tpch *g, int64_t u, struct out *o)
{
  struct rng r;
  int64_t key = u + 1;
  rng_row (&r, g->seed, T_CUSTOMER, (uint64_t) u);
  out_int (o, key); out_sep (o);
  field_keyname (o, "Customer#", key); out_sep (o);
  field_vstring (o, &r, 10, 40); out_sep (o);
  int nation = (int) rng_range (&r, 0, 24);
  out_int (o, nation); out_sep (o);
  field_phone (o, &r, nation); out_sep (o);
  out_money (o, rng_range (&r, -99999, 999999)); out_sep (o);
  out_str (o, tpch_segments[rng_range (&r, 0, 4)]); out_sep (o);
  field_text (o, g, &r, 29, 116); out_eol (o);
  return 1;
}

/* ---- part, partsupp ------------------------------------------------------ */

static int
gen_part (const struct tpch *g, int64_t u, struct out *o)
{
  struct rng r;
  int64_t key = u + 1;
  rng_row (&r, g->seed, T_PART, (uint64_t) u);
  out_int (o, key); out_sep (o);
  int pick[5];
  for (int i = 0; i < 5; i++)
    {
    again:
      pick[i] = (int) rng_range (&r, 0, tpch_ncolors - 1);
      for (int j = 0; j < i; j++)
        if (pick[j] == pick[i])
          goto again;
      if (i)
        out_str (o, " ");
      out_str (o, tpch_colors[pick[i]]);
    }
  out_sep (o);
  int m = (int) rng_range (&r, 1, 5), n = (int) rng_range (&r, 1, 5);
  char buf[32];
  out_mem (o, buf, (size_t) snprintf (buf, sizeof buf, "Manufacturer#%d", m)); out_sep (o);
  out_mem (o, buf, (size_t) snprintf (buf, sizeof buf, "Brand#%d%d", m, n)); out_sep (o);
  out_str (o, tpch_type_s1[rng_range (&r, 0, 5)]); out_str (o, " ");
  out_str (o, tpch_type_s2[rng_range (&r, 0, 4)]); out_str (o, " ");
  out_str (o, tpch_type_s3[rng_range (&r, 0, 4)]); out_sep (o);
  out_int (o, rng_range (&r, 1, 50)); out_sep (o);
  out_str (o, tpch_container_s1[rng_range (&r, 0, 4)]); out_str (o, " ");
  out_str (o, tpch_container_s2[rng_range (&r, 0, 7)]); out_sep (o);
  out_money (o, retail_cents (key)); out_sep (o);
  field_text (o, g, &r, 5, 22); out_eol (o);
  return 1;
}

static int
gen_partsupp (const struct tpch *g, int64_t u, struct out *o)
{
  struct rng r;
  int64_t key = u + 1;
  rng_row (&r, g->seed, T_PARTSUPP, (uint64_t) u);
  for (int i = 0; i < 4; i++)
    {
      out_int (o, key); out_sep (o);
      out_int (o, supplier_of (g, key, i)); out_sep (o);
      out_int (o, rng_range (&r, 1, 9999)); out_sep (o);
      out_money (o, rng_range (&r, 100, 100000)); out_sep (o);
      field_text (o, g, &r, 49, 198); out_eol (o);
    }
  return 4;
}

/* ---- orders, lineitem ------------------------------------------------------ */

struct line
{
  int64_t partkey, suppkey, quantity, extended;   /* money in cents */
  int discount, tax;                               /* hundredths */
  int ship, commit, receipt;                        /* days */
  char returnflag, linestatus;
  const char *instruct, *mode;
  char comment[48];
  int comment_len;
};

struct order
{
  int64_t orderkey, custkey, totalprice;
  int orderdate;
  char status;
  const char *priority;
  int64_t clerk;
  char comment[80];
  int comment_len;
  int nlines;
  struct line lines[7];
};

/* Order U (0-based) with its lines: the one stream both tables print from. */
static void
make_order (const struct tpch *g, int64_t u, struct order *ord, int with_text)
{
  struct rng r;
  rng_row (&r, g->seed, T_ORDERS, (uint64_t) u);
  /* sparse keys: the first 8 of every 32 (clause 4.2.3) */
  ord->orderkey = (u / 8) * 32 + u % 8 + 1;
  /* customers whose key is a multiple of 3 place no orders */
  int64_t k = rng_range (&r, 0, g->ncust - g->ncust / 3 - 1);
  ord->custkey = (k / 2) * 3 + k % 2 + 1;
  ord->orderdate = (int) rng_range (&r, 0, TPCH_ENDDATE - 151);
  ord->priority = tpch_priorities[rng_range (&r, 0, 4)];
  ord->clerk = rng_range (&r, 1, g->nclerks);
  if (with_text)
    ord->comment_len = text_string (&g->pool, &r, 19, 78, ord->comment);
  else
    {
      rng_next (&r);
      rng_next (&r);
    }
  ord->nlines = (int) rng_range (&r, 1, 7);
  int nf = 0;
  ord->totalprice = 0;
  for (int i = 0; i < ord->nlines; i++)
    {
      struct line *l = &ord->lines[i];
      l->partkey = rng_range (&r, 1, g->npart);
      l->suppkey = supplier_of (g, l->partkey, (int) rng_range (&r, 0, 3));
      l->quantity = rng_range (&r, 1, 50);
      l->extended = l->quantity * retail_cents (l->partkey);
      l->discount = (int) rng_range (&r, 0, 10);
      l->tax = (int) rng_range (&r, 0, 8);
      l->ship = ord->orderdate + (int) rng_range (&r, 1, 121);
      l->commit = ord->orderdate + (int) rng_range (&r, 30, 90);
      l->receipt = l->ship + (int) rng_range (&r, 1, 30);
      int ra = (int) rng_range (&r, 0, 1);
      l->returnflag = l->receipt <= TPCH_CURRENTDATE ? (ra ? 'R' : 'A') : 'N';
      l->linestatus = l->ship > TPCH_CURRENTDATE ? 'O' : 'F';
      nf += l->linestatus == 'F';
      l->instruct = tpch_instructions[rng_range (&r, 0, 3)];
      l->mode = tpch_modes[rng_range (&r, 0, 6)];
      if (with_text)
        l->comment_len = text_string (&g->pool, &r, 10, 43, l->comment);
      else
        {
          rng_next (&r);
          rng_next (&r);
        }
      /* O_TOTALPRICE = sum(L_EXTENDEDPRICE * (1 + L_TAX) * (1 - L_DISCOUNT)),
       * each line rounded to the cent */
      int64_t num = l->extended * (100 - l->discount) * (100 + l->tax);
      ord->totalprice += (num + 5000) / 10000;
    }
  ord->status = nf == ord->nlines ? 'F' : nf == 0 ? 'O' : 'P';
}

static int
gen_orders (const struct tpch *g, int64_t u, struct out *o)
{
  struct order ord;
  char buf[32];
  make_order (g, u, &ord, 1);
  out_int (o, ord.orderkey); out_sep (o);
  out_int (o, ord.custkey); out_sep (o);
  out_mem (o, &ord.status, 1); out_sep (o);
  out_money (o, ord.totalprice); out_sep (o);
  out_str (o, tpch_date (ord.orderdate)); out_sep (o);
  out_str (o, ord.priority); out_sep (o);
  out_mem (o, buf, (size_t) snprintf (buf, sizeof buf, "Clerk#%09lld", (long long) ord.clerk)); out_sep (o);
  out_str (o, "0"); out_sep (o);
  out_mem (o, ord.comment, (size_t) ord.comment_len); out_eol (o);
  return 1;
}

static int
gen_lineitem (const struct tpch *g, int64_t u, struct out *o)
{
  struct order ord;
  make_order (g, u, &ord, 1);
  for (int i = 0; i < ord.nlines; i++)
    {
      const struct line *l = &ord.lines[i];
      out_int (o, ord.orderkey); out_sep (o);
      out_int (o, l->partkey); out_sep (o);
      out_int (o, l->suppkey); out_sep (o);
      out_int (o, i + 1); out_sep (o);
      out_money (o, l->quantity * 100); out_sep (o);
      out_money (o, l->extended); out_sep (o);
      out_money (o, l->discount); out_sep (o);
      out_money (o, l->tax); out_sep (o);
      out_mem (o, &l->returnflag, 1); out_sep (o);
      out_mem (o, &l->linestatus, 1); out_sep (o);
      out_str (o, tpch_date (l->ship)); out_sep (o);
      out_str (o, tpch_date (l->commit)); out_sep (o);
      out_str (o, tpch_date (l->receipt)); out_sep (o);
      out_str (o, l->instruct); out_sep (o);
      out_str (o, l->mode); out_sep (o);
      out_mem (o, l->comment, (size_t) l->comment_len); out_eol (o);
    }
  return ord.nlines;
}

int
tpch_unit (const struct tpch *g, enum tpch_table t, int64_t u, struct out *o)
{
  switch (t)
    {
    case T_REGION: return gen_region (g, u, o);
    case T_NATION: return gen_nation (g, u, o);
    case T_SUPPLIER: return gen_supplier (g, u, o);
    case T_CUSTOMER: return gen_customer (g, u, o);
    case T_PART: return gen_part (g, u, o);
    case T_PARTSUPP: return gen_partsupp (g, u, o);
    case T_ORDERS: return gen_orders (g, u, o);
    case T_LINEITEM: return gen_lineitem (g, u, o);
    default: return 0;
    }
}

int
tpch_unit_rows (const struct tpch *g, enum tpch_table t, int64_t u)
{
  if (t == T_PARTSUPP)
    return 4;
  if (t != T_LINEITEM)
    return 1;
  struct order ord;
  make_order (g, u, &ord, 0);
  return ord.nlines;
}
