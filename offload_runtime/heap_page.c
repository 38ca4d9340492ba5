/* heap_page.c - PostgreSQL 15 heap page parsing for the scan engine: page
 * header and line pointer validation, tuple header checks, and the MVCC
 * rule of DESIGN.md ("MVCC rule for offloaded blocks").
 *
 * A page is checked completely before any of its tuples is used, so a page
 * that fails is handed back to the host whole and no row of it has been
 * produced (no duplicates between drive and host).
 *
 * Line pointers and HOT.  LP_UNUSED and LP_DEAD carry no tuple.  LP_REDIRECT
 * (left by HOT pruning at the root of a HOT chain) only names the offset of
 * the chain's next live member; that member is a heap-only tuple stored in
 * its own LP_NORMAL slot, which this scan visits anyway, so following the
 * redirect would count it twice.  A sequential heap scan (heapgetpage) does
 * the same: it only looks at LP_NORMAL items.  Heap-only tuples are
 * ordinary rows and are counted like any other.
 *
 * Can an offloaded page hold an old, HOT-updated version that must not be
 * counted?  The drive only gets blocks that were all-visible when checked
 * after the snapshot was taken.  All-visible means every tuple on the page
 * is visible to every transaction, so no HOT-updated (replaced) version
 * whose updater committed can be on it: that version would be dead, and the
 * VM bit is only set once pruning/vacuum removed it.  After the check, a
 * concurrent UPDATE can add a new version (its xmin is not older than our
 * snapshot's xmin, so the xmin rule keeps it out) and stamp xmax on the old
 * one (xmax is ignored, so the old version - the one our snapshot sees -
 * stays in).  Pruning cannot remove that old version during our scan
 * because our snapshot holds the global xmin horizon back.  Hence: count by
 * xmin only, ignore HEAP_HOT_UPDATED and xmax, exactly as DESIGN.md says.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_scan.h"

static bool
page_all_zero (const uint8_t *page)
{
  for (size_t i = 0; i < OSSD_PG_BLCKSZ; i++)
    if (page[i])
      return false;
  return true;
}

/* PostgreSQL data page checksum.  The page is read as 32 columns of
 * 32-bit words; each column is folded into its own sum with an FNV-1a
 * variant (x = sum ^ word; sum = x * FNV_PRIME ^ (x >> 17)), every sum
 * starting from its own fixed offset; two rounds of zero words mix them
 * further; the sums are xor-ed together, the block number xor-ed in, and
 * the result brought to 1..65535.  pd_checksum (bytes 8-9) counts as zero.
 * Same numbers as PostgreSQL's storage/checksum_impl.h; pages are
 * little-endian as PostgreSQL writes them on the machines we run on. */
#define PG_CK_COLUMNS 32
#define PG_CK_FNV_PRIME 16777619u
static const uint32_t pg_ck_offsets[PG_CK_COLUMNS] = {
  0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A,
  0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
  0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA,
  0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
  0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE,
  0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
  0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E,
  0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756,
};

/* one row of 32 words into the 32 sums (a loop the compiler vectorizes) */
static inline void
pg_ck_fold_row (uint32_t *restrict sum, const uint32_t *restrict word)
{
  for (unsigned c = 0; c < PG_CK_COLUMNS; c++)
    {
      uint32_t x = sum[c] ^ word[c];
      sum[c] = x * PG_CK_FNV_PRIME ^ (x >> 17);
    }
}

/* every page the drive scans goes through this once when the cluster has
 * data checksums: built for AVX2 and SSE4.1 too, chosen at load time */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("avx2", "sse4.1", "default")))
#endif
uint16_t
ossd_pg_checksum_page (const uint8_t *page, uint32_t blkno)
{
  static const uint32_t zero[PG_CK_COLUMNS];
  uint32_t sum[PG_CK_COLUMNS], words[PG_CK_COLUMNS], all = 0;
  const size_t row_bytes = sizeof words;

  memcpy (sum, pg_ck_offsets, sizeof sum);
  for (size_t row = 0; row < OSSD_PG_BLCKSZ / row_bytes; row++)
    {
      memcpy (words, page + row * row_bytes, row_bytes);
      if (row == 0)
        words[2] &= 0xffff0000u;    /* pd_checksum is the low half of word 2 */
      pg_ck_fold_row (sum, words);
    }
  pg_ck_fold_row (sum, zero);
  pg_ck_fold_row (sum, zero);
  for (unsigned c = 0; c < PG_CK_COLUMNS; c++)
    all ^= sum[c];
  all ^= blkno;
  return (uint16_t) (all % 65535 + 1);
}

bool
ossd_pg_checksum_ok (const uint8_t *page, uint32_t blkno)
{
  if (ossd_rd16 (page + 14) == 0)     /* pd_upper 0: PageIsNew, no checksum */
    return true;
  return ossd_rd16 (page + 8) == ossd_pg_checksum_page (page, blkno);
}

unsigned
ossd_page_max_offnum (const uint8_t *page)
{
  uint16_t lower = ossd_rd16 (page + 12);
  if (lower <= OSSD_PG_PAGE_HEADER_SIZE)
    return 0;
  return (lower - OSSD_PG_PAGE_HEADER_SIZE) / 4;
}

static int
check_tuple (const uint8_t *tup, uint32_t len, uint32_t block, unsigned offnum,
             char *err, size_t errlen)
{
  uint16_t infomask2 = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2);
  uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
  unsigned hoff = tup[OSSD_PG_HT_HOFF];
  unsigned natts = infomask2 & OSSD_PG_HEAP_NATTS_MASK;
  if (natts > OSSD_PG_MAX_ATTRS)
    {
      snprintf (err, errlen, "block %u lp %u: tuple has %u attributes (max %u)", block,
                offnum, natts, OSSD_PG_MAX_ATTRS);
      return -EINVAL;
    }
  unsigned need = OSSD_PG_HT_BITS;
  if (infomask & OSSD_PG_HEAP_HASNULL)
    need += (natts + 7) / 8;
  if (hoff < need || (hoff % OSSD_PG_MAXALIGN) != 0 || hoff > len)
    {
      snprintf (err, errlen,
                "block %u lp %u: bad t_hoff %u (header needs %u, tuple length %u)", block,
                offnum, hoff, need, len);
      return -EINVAL;
    }
  return 0;
}

int
ossd_page_check (const uint8_t *page, uint32_t block, uint32_t *reason, char *err,
                 size_t errlen)
{
  struct ossd_pg_page_header h;
  memcpy (&h, page, sizeof h);
  *reason = OSSD_HB_BAD_HEADER;
  if (h.pd_upper == 0 && page_all_zero (page))
    return 0;                  /* new page (PageIsNew): no tuples */
  if ((h.pd_pagesize_version & 0xFF00) != OSSD_PG_BLCKSZ
      || (h.pd_pagesize_version & 0x00FF) != OSSD_PG_PAGE_LAYOUT_VERSION)
    {
      snprintf (err, errlen, "block %u: page size/version 0x%04x (want 8192, layout 4)",
                block, h.pd_pagesize_version);
      return -EINVAL;
    }
  if (h.pd_flags & ~OSSD_PG_PD_VALID_FLAG_BITS)
    {
      snprintf (err, errlen, "block %u: invalid pd_flags 0x%04x", block, h.pd_flags);
      return -EINVAL;
    }
  if (h.pd_lower < OSSD_PG_PAGE_HEADER_SIZE || h.pd_lower > h.pd_upper
      || h.pd_upper > h.pd_special || h.pd_special != OSSD_PG_BLCKSZ
      || (h.pd_lower - OSSD_PG_PAGE_HEADER_SIZE) % 4 != 0)
    {
      snprintf (err, errlen,
                "block %u: bad page bounds pd_lower %u pd_upper %u pd_special %u", block,
                h.pd_lower, h.pd_upper, h.pd_special);
      return -EINVAL;
    }
  unsigned maxoff = ossd_page_max_offnum (page);
  for (unsigned i = 1; i <= maxoff; i++)
    {
      uint32_t w = ossd_rd32 (page + OSSD_PG_PAGE_HEADER_SIZE + 4 * (i - 1));
      unsigned off = ossd_pg_lp_off (w), len = ossd_pg_lp_len (w);
      switch (ossd_pg_lp_flags (w))
        {
        case OSSD_PG_LP_UNUSED:
        case OSSD_PG_LP_DEAD:
          break;
        case OSSD_PG_LP_REDIRECT:
          if (len != 0 || off < 1 || off > maxoff)
            {
              *reason = OSSD_HB_BAD_LINE_POINTER;
              snprintf (err, errlen, "block %u lp %u: redirect to %u (max %u, len %u)",
                        block, i, off, maxoff, len);
              return -EINVAL;
            }
          break;
        case OSSD_PG_LP_NORMAL:
          if (off < h.pd_upper || off % OSSD_PG_MAXALIGN != 0 || len < OSSD_PG_HT_BITS
              || off + len > h.pd_special)
            {
              *reason = OSSD_HB_BAD_LINE_POINTER;
              snprintf (err, errlen,
                        "block %u lp %u: tuple at %u length %u outside [%u, %u) or "
                        "misaligned",
                        block, i, off, len, h.pd_upper, h.pd_special);
              return -EINVAL;
            }
          if (check_tuple (page + off, len, block, i, err, errlen) < 0)
            {
              *reason = OSSD_HB_BAD_TUPLE;
              return -EINVAL;
            }
          break;
        }
    }
  *reason = 0;
  return 0;
}

unsigned
ossd_page_item (const uint8_t *page, unsigned offnum, const uint8_t **tup, uint32_t *tuplen)
{
  uint32_t w = ossd_rd32 (page + OSSD_PG_PAGE_HEADER_SIZE + 4 * (offnum - 1));
  unsigned flags = ossd_pg_lp_flags (w);
  if (flags == OSSD_PG_LP_NORMAL)
    {
      *tup = page + ossd_pg_lp_off (w);
      *tuplen = ossd_pg_lp_len (w);
    }
  return flags;
}

unsigned
ossd_page_redirect_target (const uint8_t *page, unsigned offnum)
{
  return ossd_pg_lp_off (ossd_rd32 (page + OSSD_PG_PAGE_HEADER_SIZE + 4 * (offnum - 1)));
}

/* TransactionIdPrecedes semantics (transam.c): permanent XIDs (< 3)
 * compare as plain integers, normal XIDs modulo 2^32. */
bool
ossd_xid_precedes (uint32_t a, uint32_t b)
{
  if (a < OSSD_PG_FIRST_NORMAL_XID || b < OSSD_PG_FIRST_NORMAL_XID)
    return a < b;
  return (int32_t) (a - b) < 0;
}

enum ossd_visibility
ossd_tuple_visibility (const uint8_t *tup, uint32_t snapshot_xmin)
{
  uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
  uint32_t xmin = ossd_rd32 (tup + OSSD_PG_HT_XMIN);
  if ((infomask & OSSD_PG_HEAP_XMIN_FROZEN) == OSSD_PG_HEAP_XMIN_FROZEN)
    return OSSD_VIS_COUNT;
  if (infomask & OSSD_PG_HEAP_XMIN_INVALID)
    return OSSD_VIS_SKIP;      /* inserter aborted */
  if ((infomask & OSSD_PG_HEAP_MOVED) && !(infomask & OSSD_PG_HEAP_XMIN_COMMITTED))
    return OSSD_VIS_HOST;      /* pre-9.0 VACUUM FULL leftovers: host decides */
  if (xmin == 0)
    return OSSD_VIS_SKIP;      /* InvalidTransactionId never inserted anything */
  return ossd_xid_precedes (xmin, snapshot_xmin) ? OSSD_VIS_COUNT : OSSD_VIS_SKIP;
}
