/*-------------------------------------------------------------------------
 *
 * ossd_joinfilter.c
 *		  Join filters (dynamic filters, as Trino and Spark have them): when
 *		  an OssdScan is the probe (outer) side of a hash join, the keys of
 *		  the built hash table go to the drive with the SCAN request, and the
 *		  drive drops the rows whose key cannot join before they cross the
 *		  channel (offload_runtime/include/ossd_join_filter.h).
 *
 * Planning (a planner_hook post-pass over the finished plan).  A HashJoin
 * qualifies when its join type drops probe rows that match nothing (INNER,
 * SEMI, RIGHT; never LEFT, FULL, ANTI, whose unmatched outer rows are
 * output), its outer plan is an
 * OssdScan of a base relation in rows mode, and it is not a foreign key
 * into a whole table, which drops nothing (join_filter_pays).  Each hash clause outer_col =
 * inner_expr whose outer side is a plain column of the scanned relation,
 * with an operator both sides can normalise exactly (integer equality
 * across int2/int4/int8, date = date, texteq / bpchareq under a
 * deterministic collation, where equality is byte equality) becomes one
 * key; each key is a necessary condition of the join, so each gets its own
 * filter.  The keys go into the CustomScan's custom_private, as an
 * element found by its tag (OSSD_PRIV_JOIN_FILTER_TAG) rather than by
 * position.
 *
 * Order of execution.  ExecHashJoin builds the hash table before it asks
 * the outer side for a row -- except that, for INNER and SEMI joins, it
 * fetches the first outer row first when the outer plan's startup cost is
 * below the Hash's total cost (to skip the build for an empty outer).  The
 * drive scan starts on the OssdScan's first row, so that row would come
 * before the table exists.  The post-pass therefore raises the filtered
 * OssdScan's startup cost to the Hash's total cost: the executor then
 * always builds first (EXPLAIN shows the raised startup cost; it is what
 * the scan really waits for).  As defence, a scan that starts while its
 * join has no hash table runs without a filter.
 *
 * Execution.  An ExecutorStart hook finds, in the initialised plan state
 * tree, the HashJoinState above each filtered OssdScan.  When the scan
 * starts (and on every rescan: a rescanned join may have built a new
 * table), the keys of every tuple of the hash table -- its buckets and its
 * skew buckets, or a parallel hash join's shared buckets, complete once
 * every participant passed the build barrier, which comes before any asks
 * the outer side for a row -- are computed with the Hash node's own key expressions,
 * normalised, de-duplicated, and sent as an exact set when few, else as a
 * Bloom filter of about 1% false positives, capped in size.  A table that
 * spilled to batch files (nbatch > 1) holds only the first batch in
 * memory: the keys of the other batches are read from their files (the
 * first batch's alone would drop rows that join in later batches); a
 * parallel table that spilled gets no filter (its batch files are shared
 * tuplestores the join reads in parallel).  NULL
 * keys are never added; the drive drops NULL probe keys.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/hashjoin.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "ossd_frame.h"
#include "ossd_join_filter.h"
#include "ossd_exec.h"
#include "pg_ossd.h"

/* exact set up to this many distinct keys (and bytes), else Bloom */
#define JF_EXACT_MAX_KEYS	4096
#define JF_EXACT_MAX_BYTES	(256 * 1024)
/* the host's cap on one Bloom filter (the drive accepts up to 4 MiB) */
#define JF_BLOOM_MAX_BYTES	(1024 * 1024)
/* a join estimated to keep more than this share of the probe rows gets no filter */
#define JF_MIN_DROPPED_KEEP	0.9
/* a Bloom filter passing more than this fraction of keys is not worth sending */
#define JF_BLOOM_MAX_FPP	0.5
/* a larger hash table streams its keys into Bloom filters (ossd_joinfilter_fill) */
#define JF_STREAM_TUPLES	65536

typedef struct OssdJoinFilterKey
{
	AttrNumber	attnum;			/* probe column */
	int			key_kind;		/* enum ossd_jf_key */
	int			clause;			/* index in the join's hash clauses */
	Oid			inner_type;
	ExprState  *inner;			/* the Hash node's key expression */
} OssdJoinFilterKey;

typedef struct OssdJoinFilter
{
	int			nkeys;
	OssdJoinFilterKey *keys;
	HashJoinState *hj;
	MemoryContext build_cxt;	/* the last build's filters */

	/*
	 * The last build, sent again with each chunk of a partial scan: the
	 * table does not change while one loop of the scan reads it (it is
	 * complete before the join asks for a probe row; a rescan may build
	 * another).
	 */
	bool		built;
	HashJoinTable built_from;
	Ossd__JoinFilter **filters;
	int			nfilters;
	const char *skipped;		/* why the last build sent nothing */
	OssdJoinFilterInstr st;		/* over all builds (EXPLAIN ANALYZE) */
} OssdJoinFilter;

static ExecutorStart_hook_type prev_executor_start = NULL;

/* The plan's join filter keys (an OssdScan's custom_private), or NIL. */
static List *
plan_keys(CustomScan *cs)
{
	return ossd_private_element(cs->custom_private, OSSD_PRIV_JOIN_FILTER_TAG);
}

/* ---------------------------------------------------------------------
 * Planning
 * ---------------------------------------------------------------------
 */
static bool
is_int_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
}

static bool
equality_collation_ok(Oid collid)
{
	/* under a deterministic collation, texteq and bpchareq compare bytes */
	return OidIsValid(collid) &&
		(ossd_collation_is_bytewise(collid) || get_collation_isdeterministic(collid));
}

/*
 * The key kind of a hash clause's operator for these argument types, or -1
 * when the two sides cannot be normalised alike.
 */
static int
clause_key_kind(OpExpr *op, Oid outer_type, Oid inner_type)
{
	switch (get_opcode(op->opno))
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_INT8EQ:
		case F_INT24EQ:
		case F_INT42EQ:
		case F_INT48EQ:
		case F_INT84EQ:
		case F_INT28EQ:
		case F_INT82EQ:
			if (is_int_type(outer_type) && is_int_type(inner_type))
				return OSSD_JF_KEY_INT;
			return -1;
		case F_DATE_EQ:
			if (outer_type == DATEOID && inner_type == DATEOID)
				return OSSD_JF_KEY_INT;
			return -1;
		case F_TEXTEQ:
			if ((outer_type == TEXTOID || outer_type == VARCHAROID) &&
				(inner_type == TEXTOID || inner_type == VARCHAROID) &&
				equality_collation_ok(op->inputcollid))
				return OSSD_JF_KEY_BYTES;
			return -1;
		case F_BPCHAREQ:
			if (outer_type == BPCHAROID && inner_type == BPCHAROID &&
				equality_collation_ok(op->inputcollid))
				return OSSD_JF_KEY_BPCHAR;
			return -1;
		default:
			return -1;
	}
}

/*
 * The key kind of the hash clause op, "col = inner", for a join filter, or
 * -1: col a plain column (whose relation the caller checks), an operator
 * both sides normalise alike, and an inner expression that gives the same
 * value again when the keys are computed from the table's tuples (hash
 * clauses are never volatile; be sure) and has no SubPlan of its own (its
 * state would belong to the Hash node).  The plan's post-pass and the join
 * paths (ossd_joinpath.c) both ask it: a plan gets a filter for each
 * clause its path was priced for.
 */
int
ossd_joinfilter_clause_kind(OpExpr *op, Var *col, Node *inner)
{
	if (col == NULL || !IsA(col, Var) || col->varattno < 1 || col->varlevelsup != 0)
		return -1;
	if (contain_volatile_functions(inner) || contain_subplans(inner))
		return -1;
	return clause_key_kind(op, col->vartype, exprType(inner));
}

/* The join filter keys of a hash join over an OssdScan, or NIL. */
static List *
hashjoin_keys(HashJoin *hj, CustomScan *cs)
{
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, hj->hashclauses)
	{
		OpExpr	   *op = lfirst(lc);
		Var		   *ov;
		Var		   *col;
		TargetEntry *tle;
		Node	   *inner;
		int			kind;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		ov = (Var *) ossd_strip_relabel(linitial(op->args));
		inner = lsecond(op->args);
		if (ov == NULL || !IsA(ov, Var) || ov->varno != OUTER_VAR ||
			ov->varattno < 1 || ov->varattno > list_length(cs->scan.plan.targetlist))
			continue;
		tle = list_nth(cs->scan.plan.targetlist, ov->varattno - 1);
		col = (Var *) ossd_strip_relabel((Node *) tle->expr);
		if (col == NULL || !IsA(col, Var) || col->varno != cs->scan.scanrelid)
			continue;
		kind = ossd_joinfilter_clause_kind(op, col, inner);
		if (kind < 0)
			continue;
		keys = lappend(keys, list_make4_int(col->varattno, kind,
											foreach_current_index(lc),
											exprType(inner)));
	}
	return keys;
}

/*
 * The share of probe keys that cannot join which a filter built from a
 * hash table of tuples rows and distinct keys still passes, as
 * ossd_joinfilter_fill will build it: 0 for an exact set, a Bloom
 * filter's false positive rate, 1 when no filter would be sent.
 */
double
ossd_joinfilter_false_pass(double tuples, double distinct)
{
	uint64		n = (uint64) Max(1.0, distinct);
	uint64		sized_for = n;
	size_t		bytes;
	double		fpp;

	if (tuples > JF_STREAM_TUPLES)
		sized_for = (uint64) tuples;	/* streamed: sized by its tuples */
	else if (distinct <= JF_EXACT_MAX_KEYS)
		return 0.0;
	bytes = ossd_jf_bloom_size(sized_for, JF_BLOOM_MAX_BYTES);
	fpp = ossd_jf_bloom_fpp(sized_for, bytes, ossd_jf_bloom_hashes(sized_for, bytes));
	if (fpp > JF_BLOOM_MAX_FPP)
		return 1.0;
	/* the bits set are those of its distinct keys, whatever it was sized for */
	return ossd_jf_bloom_fpp(n, bytes, ossd_jf_bloom_hashes(sized_for, bytes));
}

/*
 * Whether the join drops enough of the scan's rows for a filter to pay:
 * a filtered scan waits for the hash table (see the file header), giving
 * up the drive's head start while the table is built.  The one join
 * known to drop nearly nothing is a foreign key into a whole table: an
 * inner join, or a right join (the build side's unmatched rows kept), on a
 * key proven unique on the build side, whose table is hashed without a
 * qual, estimated to keep nine in ten of the scan's rows (TPC-H Q14:
 * lineitem into part; Q13: orders into customer).  Elsewhere the filter is sent: a
 * filtered or derived build side may drop most rows whatever the estimate
 * says (an estimate made without statistics says 1).
 */
static bool
join_filter_pays(HashJoin *hj, Plan *outer, Plan *hash)
{
	Plan	   *build = outerPlan(hash);
	bool		whole_table;
	double		matched;

	if ((hj->join.jointype != JOIN_INNER && hj->join.jointype != JOIN_RIGHT) ||
		!hj->join.inner_unique ||
		hj->join.joinqual != NIL || build == NULL || build->qual != NIL)
		return true;
	if (IsA(build, SeqScan))
		whole_table = true;
	else if (IsA(build, CustomScan) &&
			 ((CustomScan *) build)->methods == &ossd_scan_plan_methods &&
			 list_length(((CustomScan *) build)->custom_private) >= OSSD_PRIV_COUNT)
	{
		CustomScan *cs = (CustomScan *) build;

		/* no device qual, no deployed kernel, every row of every block */
		whole_table = cs->custom_exprs == NIL &&
			strVal(list_nth(cs->custom_private, OSSD_PRIV_KERNEL))[0] == '\0' &&
			list_nth(cs->custom_private, OSSD_PRIV_AGG) == NIL &&
			ossd_private_element(cs->custom_private, OSSD_PRIV_INDEX_BLOCKS_TAG) == NIL &&
			plan_keys(cs) == NIL;
	}
	else
		whole_table = false;
	/*
	 * The probe rows that join.  A right join's estimate is the larger of
	 * those and the build side's rows (every one is kept): when it is not
	 * above the build side's, it says nothing of the probe rows.
	 */
	matched = hj->join.plan.plan_rows;
	if (hj->join.jointype == JOIN_RIGHT && matched <= build->plan_rows)
		matched = 0;
	return !whole_table || matched < JF_MIN_DROPPED_KEEP * outer->plan_rows;
}

static void
mark_plan(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	if (IsA(plan, HashJoin))
	{
		HashJoin   *hj = (HashJoin *) plan;
		Plan	   *outer = outerPlan(plan);
		Plan	   *hash = innerPlan(plan);

		if ((hj->join.jointype == JOIN_INNER || hj->join.jointype == JOIN_SEMI ||
			 hj->join.jointype == JOIN_RIGHT) &&
			hash && IsA(hash, Hash) &&
			outer && IsA(outer, CustomScan) &&
			((CustomScan *) outer)->methods == &ossd_scan_plan_methods &&
			((CustomScan *) outer)->scan.scanrelid > 0 &&
			list_length(((CustomScan *) outer)->custom_private) >= OSSD_PRIV_COUNT &&
			list_nth(((CustomScan *) outer)->custom_private, OSSD_PRIV_AGG) == NIL &&
			plan_keys((CustomScan *) outer) == NIL)
		{
			CustomScan *cs = (CustomScan *) outer;
			List	   *keys = hashjoin_keys(hj, cs);

			if (keys != NIL && join_filter_pays(hj, outer, hash))
			{
				cs->custom_private = lappend(cs->custom_private,
											 list_make2(makeString(OSSD_PRIV_JOIN_FILTER_TAG),
														keys));
				/* build before probe: see the file header */
				if (outer->startup_cost < hash->total_cost)
				{
					outer->total_cost += hash->total_cost - outer->startup_cost;
					outer->startup_cost = hash->total_cost;
				}
			}
		}
	}
	switch (nodeTag(plan))
	{
		case T_CustomScan:
			foreach(lc, ((CustomScan *) plan)->custom_plans)
				mark_plan(lfirst(lc));
			break;
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				mark_plan(lfirst(lc));
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				mark_plan(lfirst(lc));
			break;
		case T_SubqueryScan:
			mark_plan(((SubqueryScan *) plan)->subplan);
			break;
		case T_BitmapAnd:
			foreach(lc, ((BitmapAnd *) plan)->bitmapplans)
				mark_plan(lfirst(lc));
			break;
		case T_BitmapOr:
			foreach(lc, ((BitmapOr *) plan)->bitmapplans)
				mark_plan(lfirst(lc));
			break;
		default:
			break;
	}
	mark_plan(plan->lefttree);
	mark_plan(plan->righttree);
}

void
ossd_joinfilter_plan(PlannedStmt *stmt)
{
	ListCell   *lc;

	if (!ossd_enabled || !ossd_join_filter)
		return;
	mark_plan(stmt->planTree);
	foreach(lc, stmt->subplans)
		mark_plan(lfirst(lc));
}

/* ---------------------------------------------------------------------
 * Finding the hash join at ExecutorStart
 * ---------------------------------------------------------------------
 */
static void
attach(HashJoinState *hjs, OssdScanState *ss, EState *estate)
{
	HashState  *hs = (HashState *) innerPlanState(hjs);
	Hash	   *hash = (Hash *) hs->ps.plan;
	List	   *keys = plan_keys((CustomScan *) ss->css.ss.ps.plan);
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	OssdJoinFilter *jf = palloc0(sizeof(OssdJoinFilter));
	ListCell   *lc;

	jf->hj = hjs;
	jf->keys = palloc0(sizeof(OssdJoinFilterKey) * list_length(keys));
	foreach(lc, keys)
	{
		List	   *k = lfirst(lc);
		OssdJoinFilterKey *key = &jf->keys[jf->nkeys];

		key->attnum = linitial_int(k);
		key->key_kind = lsecond_int(k);
		key->clause = lthird_int(k);
		key->inner_type = lfourth_int(k);
		if (key->clause >= list_length(hash->hashkeys))
			continue;
		/* the Hash's key expressions read its child's tuples as OUTER_VAR */
		key->inner = ExecInitExpr(list_nth(hash->hashkeys, key->clause), &hs->ps);
		jf->nkeys++;
	}
	jf->build_cxt = AllocSetContextCreate(estate->es_query_cxt, "pg_ossd join filter",
										  ALLOCSET_DEFAULT_SIZES);
	ss->jf = jf;
	MemoryContextSwitchTo(old);
}

static bool
find_joins(PlanState *ps, void *estate)
{
	if (ps == NULL)
		return false;
	if (IsA(ps, HashJoinState))
	{
		PlanState  *outer = outerPlanState(ps);

		if (outer && IsA(outer, CustomScanState) &&
			((CustomScan *) outer->plan)->methods == &ossd_scan_plan_methods &&
			IsA(outer->plan, CustomScan) &&
			plan_keys((CustomScan *) outer->plan) != NIL &&
			innerPlanState(ps) && IsA(innerPlanState(ps), HashState) &&
			((OssdScanState *) outer)->jf == NULL)
			attach((HashJoinState *) ps, (OssdScanState *) outer, (EState *) estate);
	}
	return planstate_tree_walker(ps, find_joins, estate);
}

static void
ossd_executor_start(QueryDesc *qd, int eflags)
{
	ListCell   *lc;

	if (prev_executor_start)
		prev_executor_start(qd, eflags);
	else
		standard_ExecutorStart(qd, eflags);
	if (qd->planstate == NULL)
		return;
	find_joins(qd->planstate, qd->estate);
	foreach(lc, qd->estate->es_subplanstates)
		find_joins(lfirst(lc), qd->estate);
}

void
ossd_joinfilter_init(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = ossd_executor_start;
}

/* ---------------------------------------------------------------------
 * Building the filters from the hash table
 * ---------------------------------------------------------------------
 */
typedef struct KeyImage
{
	uint64		hash;
	uint32		len;
	uint8	   *bytes;
} KeyImage;

typedef struct KeySet
{
	KeyImage   *v;
	int64		n;
	int64		cap;
	uint64		bytes;			/* exact-set records */
} KeySet;

static int
key_image_cmp(const void *a, const void *b)
{
	const KeyImage *x = a;
	const KeyImage *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->bytes, y->bytes, x->len);
}

static size_t key_image(int kind, Oid type, Datum d, uint8 *buf, const uint8 **p);

static void
keyset_add(KeySet *ks, int kind, Oid type, Datum d)
{
	uint8		img[8];
	const uint8 *p;
	size_t		len = key_image(kind, type, d, img, &p);
	KeyImage   *k;

	if (ks->n == ks->cap)
	{
		ks->cap = ks->cap ? ks->cap * 2 : 1024;
		ks->v = ks->v ? repalloc_huge(ks->v, sizeof(KeyImage) * ks->cap) :
			palloc_extended(sizeof(KeyImage) * ks->cap, MCXT_ALLOC_HUGE);
	}
	k = &ks->v[ks->n++];
	k->len = (uint32) len;
	k->bytes = palloc(len ? len : 1);
	memcpy(k->bytes, p, len);
	k->hash = ossd_jf_hash(k->bytes, len);
}

/* Sort and de-duplicate; sums the exact-set size. */
static void
keyset_unique(KeySet *ks)
{
	int64		w = 0;

	if (ks->n > 1)
		qsort(ks->v, ks->n, sizeof(KeyImage), key_image_cmp);
	ks->bytes = 0;
	for (int64 i = 0; i < ks->n; i++)
	{
		if (w > 0 && key_image_cmp(&ks->v[w - 1], &ks->v[i]) == 0)
			continue;
		ks->v[w++] = ks->v[i];
		ks->bytes += ossd_jf_exact_record_size(ks->v[i].len);
	}
	ks->n = w;
}

/* One filter of the request from a key set, or NULL when not worth it. */
static Ossd__JoinFilter *
make_filter(OssdJoinFilter *jf, OssdJoinFilterKey *key, KeySet *ks)
{
	Ossd__JoinFilter *f = palloc(sizeof(Ossd__JoinFilter));

	ossd__join_filter__init(f);
	f->attnum = key->attnum;
	f->key_kind = key->key_kind;
	if (ks->n <= JF_EXACT_MAX_KEYS && ks->bytes <= JF_EXACT_MAX_BYTES)
	{
		uint8	   *buf = palloc(ks->bytes ? ks->bytes : 1);
		size_t		pos = 0;

		for (int64 i = 0; i < ks->n; i++)
			pos += ossd_jf_exact_put(buf + pos, ks->v[i].bytes, ks->v[i].len);
		f->kind = OSSD__JOIN_FILTER_KIND__JOIN_FILTER_EXACT;
		f->keys.data = buf;
		f->keys.len = pos;
		f->key_count = (uint32) ks->n;
		jf->st.used_exact = true;
		jf->st.bytes_sent += pos;
	}
	else
	{
		size_t		bytes = ossd_jf_bloom_size(ks->n, JF_BLOOM_MAX_BYTES);
		unsigned	k = ossd_jf_bloom_hashes(ks->n, bytes);
		uint8	   *bits;

		if (ossd_jf_bloom_fpp(ks->n, bytes, k) > JF_BLOOM_MAX_FPP)
			return NULL;
		bits = palloc0(bytes);
		for (int64 i = 0; i < ks->n; i++)
			ossd_jf_bloom_add(bits, bytes, k, ks->v[i].hash);
		f->kind = OSSD__JOIN_FILTER_KIND__JOIN_FILTER_BLOOM;
		f->hashes = k;
		f->bloom.data = bits;
		f->bloom.len = bytes;
		jf->st.used_bloom = true;
		jf->st.bytes_sent += bytes;
	}
	jf->st.keys_sent += ks->n;
	return f;
}

/*
 * A key's normalised image (ossd_join_filter.h) into buf (8 bytes for
 * integers) or pointing into the detoasted datum; returns its length.
 */
static size_t
key_image(int kind, Oid type, Datum d, uint8 *buf, const uint8 **p)
{
	if (kind == OSSD_JF_KEY_INT)
	{
		int64		v = type == INT2OID ? DatumGetInt16(d) :
			type == INT8OID ? DatumGetInt64(d) : DatumGetInt32(d);	/* int4, date */

		ossd_jf_int_image(v, buf);
		*p = buf;
		return 8;
	}
	else
	{
		struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
		size_t		len = VARSIZE_ANY_EXHDR(v);

		*p = (const uint8 *) VARDATA_ANY(v);
		if (kind == OSSD_JF_KEY_BPCHAR)
			len = ossd_jf_bpchar_len(*p, len);
		return len;
	}
}

/* What one build collects: per key, the distinct images, or Bloom bits. */
typedef struct FillState
{
	OssdJoinFilter *jf;
	ExprContext *econtext;
	TupleTableSlot *slot;
	bool		streaming;		/* straight into Bloom filters */
	KeySet	   *sets;			/* !streaming */
	uint8	  **bits;			/* streaming: per key */
	size_t		bloom_bytes;
	unsigned	hashes;
	int64		ntuples;
	uint64		nadded;
} FillState;

static void
fill_tuple(FillState *fs, MinimalTuple tuple)
{
	OssdJoinFilter *jf = fs->jf;

	if ((++fs->ntuples & 4095) == 0)
		CHECK_FOR_INTERRUPTS();
	ExecForceStoreMinimalTuple(tuple, fs->slot, false);
	fs->econtext->ecxt_outertuple = fs->slot;
	for (int k = 0; k < jf->nkeys; k++)
	{
		bool		isnull;
		Datum		d;
		MemoryContext kc = MemoryContextSwitchTo(fs->econtext->ecxt_per_tuple_memory);

		d = ExecEvalExpr(jf->keys[k].inner, fs->econtext, &isnull);
		/* a NULL key joins nothing */
		if (!isnull && fs->streaming)
		{
			uint8		buf[8];
			const uint8 *p;
			size_t		len = key_image(jf->keys[k].key_kind, jf->keys[k].inner_type, d, buf, &p);

			ossd_jf_bloom_add(fs->bits[k], fs->bloom_bytes, fs->hashes, ossd_jf_hash(p, len));
			fs->nadded++;
		}
		MemoryContextSwitchTo(kc);
		if (!isnull && !fs->streaming)
			keyset_add(&fs->sets[k], jf->keys[k].key_kind, jf->keys[k].inner_type, d);
	}
	ResetExprContext(fs->econtext);
}

/* The tuples of a private hash table's in-memory batch, skew buckets too. */
static void
fill_private_buckets(FillState *fs, HashJoinTable ht)
{
	for (int b = 0; b < ht->nbuckets + ht->nSkewBuckets; b++)
	{
		HashJoinTuple t;

		if (b < ht->nbuckets)
			t = ht->buckets.unshared[b];
		else
			t = ht->skewBucket[ht->skewBucketNums[b - ht->nbuckets]]->tuples;
		for (; t != NULL; t = t->next.unshared)
			fill_tuple(fs, HJTUPLE_MINTUPLE(t));
	}
}

/*
 * The tuples of a parallel hash table's one batch, in shared memory: every
 * participant built its part before any asks the outer side for a row
 * (PHJ's build barrier), so each sees the whole table.  A shared table has
 * no skew buckets.
 */
static void
fill_shared_buckets(FillState *fs, HashJoinTable ht)
{
	for (int b = 0; b < ht->nbuckets; b++)
	{
		dsa_pointer p = dsa_pointer_atomic_read(&ht->buckets.shared[b]);

		while (DsaPointerIsValid(p))
		{
			HashJoinTuple t = (HashJoinTuple) dsa_get_address(ht->area, p);

			fill_tuple(fs, HJTUPLE_MINTUPLE(t));
			p = t->next.shared;
		}
	}
}

/*
 * The tuples of one spilled batch file, as ExecHashJoinSaveTuple wrote
 * them (hash value, then the minimal tuple).  The file is read from its
 * start and left at its end: the hash join seeks to the start before it
 * loads the batch, and writes to a batch file append.
 */
static void
fill_batch_file(FillState *fs, BufFile *file)
{
	uint32		header[2];
	size_t		n;

	if (BufFileSeek(file, 0, 0L, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind hash-join temporary file")));
	while ((n = BufFileRead(file, header, sizeof(header))) != 0)
	{
		MinimalTuple tuple;

		if (n != sizeof(header) || header[1] < sizeof(uint32) + sizeof(header[1]))
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read from hash-join temporary file: read only %zu of %zu bytes",
							n, sizeof(header))));
		tuple = (MinimalTuple) palloc(header[1]);
		tuple->t_len = header[1];
		n = BufFileRead(file, (char *) tuple + sizeof(uint32), header[1] - sizeof(uint32));
		if (n != header[1] - sizeof(uint32))
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read from hash-join temporary file: read only %zu of %zu bytes",
							n, (size_t) header[1] - sizeof(uint32))));
		fill_tuple(fs, tuple);
		pfree(tuple);
	}
}

/* The reason a build sent nothing, kept for EXPLAIN beside the counters. */
static void
note_skipped(OssdJoinFilter *jf)
{
	strlcpy(jf->st.skipped, jf->skipped, sizeof(jf->st.skipped));
}

static void
add_instr(OssdJoinFilterInstr *to, const OssdJoinFilterInstr *from)
{
	to->builds += from->builds;
	to->sent += from->sent;
	to->keys_sent += from->keys_sent;
	to->bytes_sent += from->bytes_sent;
	to->dropped += from->dropped;
	to->used_exact |= from->used_exact;
	to->used_bloom |= from->used_bloom;
	to->spilled |= from->spilled;
	if (to->skipped[0] == '\0')
		strlcpy(to->skipped, from->skipped, sizeof(to->skipped));
}

/*
 * Fill sc->join_filters from the join's hash table as it is now.  Called
 * for each SCAN the scan sends (a partial scan sends one per chunk): the
 * first of each loop builds the filters, the others send them again.  The
 * filters live in the filter's build context until the next build.
 *
 * A table of at most JF_STREAM_TUPLES tuples all in memory gives exact
 * sets where few enough distinct keys (else Bloom filters sized for the
 * distinct count).  A larger one, or one that spilled to batch files --
 * whose keys are read from those files too: the first batch alone would
 * drop rows of the others -- goes straight into Bloom filters sized for
 * its tuple count, without collecting the keys.
 */
void
ossd_joinfilter_fill(OssdScanState *ss, Ossd__Scan *sc, uint64 feature_bits)
{
	OssdJoinFilter *jf = ss->jf;
	HashJoinTable ht;
	HashState  *hs;
	FillState	fs;
	MemoryContext old;
	int			nf = 0;

	if (jf == NULL || jf->nkeys == 0)
		return;
	ht = jf->hj->hj_HashTable;
	if (jf->built && jf->built_from == ht)
	{
		sc->join_filters = jf->filters;
		sc->n_join_filters = jf->nfilters;
		return;
	}
	jf->built = false;
	jf->skipped = NULL;
	if (!ossd_join_filter)
		jf->skipped = "ossd.join_filter is off";
	else if (!(feature_bits & OSSD_FEATURE_JOIN_FILTER))
		jf->skipped = "the drive has no join filters";
	else if (ht == NULL)
		jf->skipped = "the hash table was not built first";
	else if (ht->parallel_state != NULL && ht->nbatch > 1)
		jf->skipped = "the parallel hash table spilled to batches";
	else if (ht->parallel_state != NULL && ht->curbatch != 0)
		jf->skipped = "the parallel hash join has no batch loaded";
	else if (ht->parallel_state == NULL &&
			 (ht->curbatch != 0 || (ht->nbatch > 1 && ht->innerBatchFile == NULL)))
		jf->skipped = "the hash join is past its first batch";
	if (jf->skipped)
	{
		note_skipped(jf);
		return;
	}

	jf->st.builds++;
	MemoryContextReset(jf->build_cxt);
	old = MemoryContextSwitchTo(jf->build_cxt);
	hs = (HashState *) innerPlanState(jf->hj);
	memset(&fs, 0, sizeof(fs));
	fs.jf = jf;
	fs.econtext = CreateExprContext(ss->css.ss.ps.state);

	/*
	 * The key expressions were compiled for the slot type the Hash's child
	 * produces (a virtual slot's values are read without deforming): give
	 * them a slot of that type, the table's minimal tuples stored into it.
	 */
	{
		bool		fixed;
		const TupleTableSlotOps *ops = ExecGetResultSlotOps(outerPlanState(hs), &fixed);

		fs.slot = MakeSingleTupleTableSlot(ExecGetResultType(outerPlanState(hs)), ops);
	}
	fs.streaming = ht->nbatch > 1 || ht->nbatch_original > 1 ||
		ht->totalTuples > JF_STREAM_TUPLES;
	if (fs.streaming)
	{
		fs.bloom_bytes = ossd_jf_bloom_size((uint64) ht->totalTuples, JF_BLOOM_MAX_BYTES);
		fs.hashes = ossd_jf_bloom_hashes((uint64) ht->totalTuples, fs.bloom_bytes);
		fs.bits = palloc(sizeof(uint8 *) * jf->nkeys);
		for (int k = 0; k < jf->nkeys; k++)
			fs.bits[k] = palloc0(fs.bloom_bytes);
	}
	else
		fs.sets = palloc0(sizeof(KeySet) * jf->nkeys);

	/* the in-memory batch */
	if (ht->parallel_state != NULL)
		fill_shared_buckets(&fs, ht);
	else
		fill_private_buckets(&fs, ht);
	/* the batches on disk */
	for (int i = 1; i < ht->nbatch; i++)
		if (ht->innerBatchFile[i] != NULL)
			fill_batch_file(&fs, ht->innerBatchFile[i]);
	ExecDropSingleTupleTableSlot(fs.slot);
	FreeExprContext(fs.econtext, true);

	sc->join_filters = palloc0(sizeof(Ossd__JoinFilter *) * jf->nkeys);
	for (int k = 0; k < jf->nkeys; k++)
	{
		Ossd__JoinFilter *f = NULL;

		if (fs.streaming)
		{
			if (ossd_jf_bloom_fpp((uint64) ht->totalTuples, fs.bloom_bytes, fs.hashes) <= JF_BLOOM_MAX_FPP)
			{
				f = palloc(sizeof(Ossd__JoinFilter));
				ossd__join_filter__init(f);
				f->attnum = jf->keys[k].attnum;
				f->key_kind = jf->keys[k].key_kind;
				f->kind = OSSD__JOIN_FILTER_KIND__JOIN_FILTER_BLOOM;
				f->hashes = fs.hashes;
				f->bloom.data = fs.bits[k];
				f->bloom.len = fs.bloom_bytes;
				jf->st.used_bloom = true;
				jf->st.bytes_sent += fs.bloom_bytes;
			}
		}
		else
		{
			keyset_unique(&fs.sets[k]);
			f = make_filter(jf, &jf->keys[k], &fs.sets[k]);
			if (fs.sets[k].v)
				pfree(fs.sets[k].v);
		}
		if (f)
			sc->join_filters[nf++] = f;
	}
	if (fs.streaming && nf > 0)
		jf->st.keys_sent += fs.nadded;
	sc->n_join_filters = nf;
	if (nf > 0)
	{
		jf->st.sent++;
		if (ht->nbatch > 1)
			jf->st.spilled = true;
	}
	else
	{
		jf->skipped = "too many keys for a useful Bloom filter";
		note_skipped(jf);
	}
	jf->built = true;
	jf->built_from = ht;
	jf->filters = sc->join_filters;
	jf->nfilters = nf;
	MemoryContextSwitchTo(old);
}

/* The scan starts again: the join may build another table. */
void
ossd_joinfilter_rescan(OssdScanState *ss)
{
	ss->jf->built = false;
}

/* A worker adds its statistics to the shared ones, the leader takes them. */
void
ossd_joinfilter_instr_put(OssdScanState *ss, OssdJoinFilterInstr *ji)
{
	if (ss->jf)
		add_instr(ji, &ss->jf->st);
}

void
ossd_joinfilter_instr_take(OssdScanState *ss, OssdJoinFilterInstr *ji)
{
	if (ss->jf)
		add_instr(&ss->jf->st, ji);
}

/* The drive's count of dropped rows, from a scan's last chunk. */
void
ossd_joinfilter_count(OssdScanState *ss, uint64 dropped)
{
	if (ss->jf)
		ss->jf->st.dropped += dropped;
}

/* ---------------------------------------------------------------------
 * EXPLAIN
 * ---------------------------------------------------------------------
 */
void
ossd_joinfilter_explain(OssdScanState *ss, ExplainState *es)
{
	CustomScan *cs = (CustomScan *) ss->css.ss.ps.plan;
	List	   *keys = plan_keys(cs);
	Relation	rel = ss->css.ss.ss_currentRelation;
	OssdJoinFilter *jf = ss->jf;
	StringInfoData buf;
	ListCell   *lc;

	if (keys == NIL || rel == NULL)
		return;
	initStringInfo(&buf);
	foreach(lc, keys)
	{
		List	   *k = lfirst(lc);
		int			kind = lsecond_int(k);

		if (buf.len)
			appendStringInfoString(&buf, ", ");
		appendStringInfo(&buf, "%s (%s)",
						 quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(rel),
																linitial_int(k) - 1)->attname)),
						 kind == OSSD_JF_KEY_INT ? "integer" :
						 kind == OSSD_JF_KEY_BPCHAR ? "bpchar" : "bytes");
	}
	ExplainPropertyText("Drive Join Filter from Hash Keys", buf.data, es);
	if (!es->analyze || jf == NULL)
		return;
	resetStringInfo(&buf);
	if (jf->st.sent == 0)
		appendStringInfo(&buf, "none (%s)", jf->st.skipped[0] ? jf->st.skipped :
						 "no drive scan ran");
	else
	{
		appendStringInfoString(&buf, jf->st.used_exact && jf->st.used_bloom ? "exact and bloom" :
							   jf->st.used_exact ? "exact" : "bloom");
		if (jf->st.spilled)
			appendStringInfoString(&buf, " (with the keys of the batches on disk)");
	}
	ExplainPropertyText("Drive Join Filter Kind", buf.data, es);
	ExplainPropertyUInteger("Drive Join Filter Keys", NULL, jf->st.keys_sent, es);
	ExplainPropertyUInteger("Drive Join Filter Size", "bytes", jf->st.bytes_sent, es);
	ExplainPropertyUInteger("Rows Removed by Join Filter on Drive", NULL, jf->st.dropped, es);
	if (jf->st.builds > 1)
		ExplainPropertyUInteger("Drive Join Filter Builds", NULL, jf->st.builds, es);
}
