/*-------------------------------------------------------------------------
 *
 * ossd_indexblocks.c
 *		  Drive scans of the blocks an index names: the offloaded form of a
 *		  bitmap heap scan.
 *
 * A selective range qual with an index (TPC-H Q14's month of l_shipdate)
 * makes PostgreSQL read a tenth of lineitem's pages through a bitmap heap
 * scan; a drive scan of the whole table, however fast, reads them all.
 * Here the host builds the bitmap as a Bitmap Index Scan would -- the
 * index is the host's -- and sends the drive only the blocks it names, in
 * ranges, with the scan's quals as usual; the MVCC rule (ossd_exec.c)
 * decides each named block as it does any other.  The bitmap is a superset
 * of the blocks holding matching rows (lossy pages included, and the quals
 * are evaluated on every row anyway), so no recheck is needed.
 *
 * Planning: for each unparameterized bitmap heap path of the relation
 * whose bitmap is one index's (an IndexPath, not an AND or OR of several),
 * on plain key columns, with quals "key op constant" (ScanKeys made once,
 * no runtime keys), an OssdScan path priced for the blocks
 * compute_bitmap_pages expects it to fetch, after the index scan
 * (ossd_make_index_block_path).  Partial paths too: under a Gather each
 * process builds the same bitmap (the same constant quals, the query's
 * snapshot) and the processes share the relation's block chunks as in any
 * partial OssdScan, each sending the drive the named blocks of its chunks
 * (a Parallel Bitmap Heap Scan shares one bitmap instead; building it per
 * process costs an index scan each, the startup of the path).
 *
 * Execution: ossd_index_block_mask runs the index scan into a TIDBitmap
 * and returns the blocks as a bit map over the relation's blocks, which
 * ossd_scan_blocks honours, and the tuples it named on each exact page,
 * which go to the drive with the block ranges (ScanTarget.tuple_offsets):
 * on a block of 60 rows of which the index names two, the drive looks at
 * those two (following a HOT redirect as a bitmap heap scan does) instead
 * of deforming and filtering all 60.  A lossy page's list is empty: every
 * tuple.  On an array every drive gets the lists of all the heap blocks
 * and keeps those of its own units.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "commands/explain.h"
#include "executor/nodeIndexscan.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/tidbitmap.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "ossd_exec.h"
#include "ossd_le.h"
#include "pg_ossd.h"

static bool
is_key_var(Node *n, Index relid, AttrNumber attno)
{
	Var		   *v = (Var *) ossd_strip_relabel(n);

	return v != NULL && IsA(v, Var) && v->varno == (int) relid &&
		v->varattno == attno && v->varlevelsup == 0;
}

/*
 * The index path's quals as the executor's index scan wants them (the key
 * on the left, as column i of INDEX_VAR), or NIL when one of them is not
 * "plain key column op constant".
 */
static List *
index_block_quals(IndexPath *ipath, Index relid)
{
	IndexOptInfo *index = ipath->indexinfo;
	List	   *quals = NIL;
	ListCell   *lc;

	if (ipath->indexclauses == NIL)
		return NIL;
	foreach(lc, ipath->indexclauses)
	{
		IndexClause *ic = lfirst(lc);
		AttrNumber	attno;
		ListCell   *qc;

		if (ic->indexcol >= index->nkeycolumns)
			return NIL;
		attno = index->indexkeys[ic->indexcol];
		if (attno <= 0)
			return NIL;			/* an expression or system column */
		foreach(qc, ic->indexquals)
		{
			RestrictInfo *ri = lfirst(qc);
			OpExpr	   *op;
			Node	   *key;
			Var		   *v;

			if (!IsA(ri->clause, OpExpr) || list_length(((OpExpr *) ri->clause)->args) != 2)
				return NIL;
			op = copyObject((OpExpr *) ri->clause);
			if (!is_key_var(linitial(op->args), relid, attno))
			{
				if (!is_key_var(lsecond(op->args), relid, attno))
					return NIL;
				CommuteOpExpr(op);
			}
			if (!IsA(lsecond(op->args), Const))
				return NIL;
			key = linitial(op->args);
			v = (Var *) ossd_strip_relabel(key);
			v->varno = INDEX_VAR;
			v->varnosyn = 0;
			v->varattno = ic->indexcol + 1;
			v->varattnosyn = 0;
			set_opfuncid(op);
			quals = lappend(quals, op);
		}
	}
	return quals;
}

/*
 * OssdScan paths over the blocks of rel's bitmap heap paths (see the file
 * header), for the caller to add; partial ones when parallel_workers > 0.
 */
List *
ossd_index_block_paths(PlannerInfo *root, RelOptInfo *rel, List *device_quals,
					   int parallel_workers)
{
	List	   *made = NIL;
	ListCell   *lc;

	if (!ossd_index_blocks)
		return NIL;
	foreach(lc, rel->pathlist)
	{
		BitmapHeapPath *bhp = lfirst(lc);
		IndexPath  *ipath;
		List	   *quals;
		Cost		index_cost;
		double		tuples;
		double		pages;

		if (!IsA(bhp, BitmapHeapPath) || bhp->path.param_info != NULL ||
			!IsA(bhp->bitmapqual, IndexPath))
			continue;
		ipath = (IndexPath *) bhp->bitmapqual;
		if (!ipath->indexinfo->amhasgetbitmap)
			continue;
		quals = index_block_quals(ipath, rel->relid);
		if (quals == NIL)
			continue;
		pages = compute_bitmap_pages(root, rel, bhp->bitmapqual, 1, &index_cost, &tuples);
		made = lappend(made,
					   ossd_make_index_block_path(root, rel, device_quals, parallel_workers,
												  ipath->indexinfo->indexoid, quals,
												  Min(1.0, pages / Max(1.0, rel->pages)),
												  index_cost));
	}
	return made;
}

/* The plan's index blocks element (an OssdScan's custom_private), or NIL. */
List *
ossd_plan_index_blocks(List *custom_private)
{
	return ossd_private_element(custom_private, OSSD_PRIV_INDEX_BLOCKS_TAG);
}

/*
 * The blocks below nblocks that the index scan of plan's index blocks
 * element names, as a bit map (ossd_scan_blocks counts the named blocks
 * it visits).
 */
uint8 *
ossd_index_block_mask(OssdScanState *ss, List *spec, BlockNumber nblocks,
					  OssdIndexTids **tidsp)
{
	EState	   *estate = ss->css.ss.ps.state;
	Oid			indexoid = (Oid) intVal(linitial(spec));
	List	   *quals = lsecond(spec);
	Relation	irel;
	ScanKey		keys;
	int			nkeys;
	IndexRuntimeKeyInfo *runtime_keys = NULL;	/* in: none yet (its contract) */
	int			nruntime = 0;
	IndexScanDesc scan;
	TIDBitmap  *tbm;
	TBMIterator *it;
	TBMIterateResult *res;
	uint8	   *mask = palloc0(nblocks / 8 + 1);
	OssdIndexTids *tids = palloc0(sizeof(OssdIndexTids));
	int			cap = 1024;
	Size		ocap = 4096;
	Size		nofs = 0;

	irel = index_open(indexoid, AccessShareLock);
	ExecIndexBuildScanKeys(&ss->css.ss.ps, irel, quals, false,
						   &keys, &nkeys, &runtime_keys, &nruntime, NULL, NULL);
	if (nruntime != 0)
		elog(ERROR, "pg_ossd: index quals of \"%s\" need run-time keys",
			 RelationGetRelationName(irel));
	tbm = tbm_create(work_mem * 1024L, NULL);
	scan = index_beginscan_bitmap(irel, estate->es_snapshot, nkeys);
	index_rescan(scan, keys, nkeys, NULL, 0);
	(void) index_getbitmap(scan, tbm);
	index_endscan(scan);
	index_close(irel, NoLock);	/* the lock is kept to the end of the transaction */

	tids->blocks = palloc(sizeof(BlockNumber) * cap);
	tids->start = palloc(sizeof(uint32) * cap);
	tids->count = palloc(sizeof(uint16) * cap);
	tids->offsets = palloc(sizeof(uint16) * ocap);
	it = tbm_begin_iterate(tbm);
	while ((res = tbm_iterate(it)) != NULL)
	{
		int			n = res->ntuples > 0 ? res->ntuples : 0;	/* -1: lossy */

		CHECK_FOR_INTERRUPTS();
		if (res->blockno >= nblocks)
			continue;
		mask[res->blockno / 8] |= (uint8) (1 << (res->blockno % 8));
		if (tids->nblocks == cap)
		{
			cap *= 2;
			tids->blocks = repalloc_huge(tids->blocks, sizeof(BlockNumber) * cap);
			tids->start = repalloc_huge(tids->start, sizeof(uint32) * cap);
			tids->count = repalloc_huge(tids->count, sizeof(uint16) * cap);
		}
		while (nofs + n > ocap)
		{
			ocap *= 2;
			tids->offsets = repalloc_huge(tids->offsets, sizeof(uint16) * ocap);
		}
		tids->blocks[tids->nblocks] = res->blockno;
		tids->start[tids->nblocks] = (uint32) nofs;
		tids->count[tids->nblocks] = (uint16) n;
		for (int i = 0; i < n; i++)
			tids->offsets[nofs + i] = res->offsets[i];
		nofs += n;
		tids->nblocks++;
	}
	tbm_end_iterate(it);
	tbm_free(tbm);
	*tidsp = tids;
	return mask;
}

/*
 * Append block blk's list to a ScanTarget's tuple_offsets (little-endian
 * u16s: the count, then the line pointers); a block the index did not
 * name, or named lossily, gets an empty list (every tuple).  Returns the
 * list's length.
 */
int
ossd_index_tids_append(const OssdIndexTids *tids, BlockNumber blk, StringInfo buf)
{
	int			lo = 0,
				hi = tids->nblocks - 1;
	int			n = 0;
	uint32		start = 0;
	uint8		b[2];

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (tids->blocks[mid] == blk)
		{
			n = tids->count[mid];
			start = tids->start[mid];
			break;
		}
		if (tids->blocks[mid] < blk)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	ossd_le_put16(b, (uint16) n);
	appendBinaryStringInfo(buf, (char *) b, 2);
	for (int i = 0; i < n; i++)
	{
		ossd_le_put16(b, tids->offsets[start + i]);
		appendBinaryStringInfo(buf, (char *) b, 2);
	}
	return n;
}

void
ossd_index_tids_free(OssdIndexTids *tids)
{
	if (tids == NULL)
		return;
	pfree(tids->blocks);
	pfree(tids->start);
	pfree(tids->count);
	pfree(tids->offsets);
	pfree(tids);
}
