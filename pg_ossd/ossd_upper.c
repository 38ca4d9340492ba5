/*-------------------------------------------------------------------------
 *
 * ossd_upper.c
 *		  Device-side partial aggregation with a host-side final merge.
 *
 * create_upper_paths_hook adds, for a query aggregating one relation on
 * the drive whose quals can all be offloaded, a CustomScan that replaces
 * the Agg node: the drive computes partial groups (count, sum, avg, min,
 * max; GROUP BY plain columns) over its blocks; the host merges them with
 * PostgreSQL's own equality and arithmetic (numeric_add, numeric_div, the
 * type's btree comparison), and aggregates the rows and blocks the drive
 * could not (host blocks, TOAST, overflow, full group table) from the
 * tuples themselves.  Results are exact: sums are merged as numerics and
 * cast to the aggregate's result type at the end, avg is sum / count as
 * numeric_div computes it, exactly like int8_avg / numeric_avg.
 *
 * HAVING is the CustomScan's qual, evaluated on the merged groups (its
 * aggregates join the scan's target list when the output lacks them).
 * A GROUP BY without aggregates and a plain SELECT DISTINCT are the same
 * path with no aggregate: groups of keys only.
 *
 * An aggregate's FILTER (WHERE c) and a CASE in its argument run in the
 * map kernel: agg(x) FILTER (WHERE c) is agg(CASE WHEN c THEN x END), as
 * both skip the rows where c is not true (count(*) counts CASE WHEN c
 * THEN true END), and the host evaluates the same CASE on its own rows.
 *
 * Aggregates all over DISTINCT x (the same column): the drive groups by
 * the keys and x with no aggregate, under PostgreSQL's own sorted Agg
 * (add_distinct_agg_path).
 *
 * Not offloaded (stays a normal Agg): other DISTINCT and ORDER BY
 * aggregates, grouping sets, float sums and min/max (order- and
 * sign-of-zero-dependent), numeric min/max or keys without a fixed scale,
 * text min/max outside the C collation, and anything not on the
 * whitelist.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_aggregate_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

#include "ossd_rt.h"
#include "ossd_scan.h"
#include "ossd_exec.h"
#include "pg_ossd.h"

static create_upper_paths_hook_type prev_upper_hook = NULL;

/* aggpriv positions */
#define AP_RELID	0
#define AP_MAP		1
#define AP_OUTPUTS	2
#define AP_GROUPBY	3
#define AP_AGGS		4
#define AP_KEYS		5
#define AP_ARGS		6
#define AP_QUALS	7
#define AP_EQOPS	8
#define AP_KCOLLS	9

/* per aggregate IntList positions */
#define AG_KIND		0
#define AG_INPUT	1
#define AG_ARGTYPE	2
#define AG_RESTYPE	3
#define AG_COLL		4
#define AG_FILTER	5			/* AGF_*: how EXPLAIN shows a FILTER clause */

#define AGF_NONE	0
#define AGF_FILTER	1			/* agg(x) FILTER (WHERE c): arg is CASE WHEN c THEN x END */
#define AGF_STAR	2			/* count(*) FILTER (WHERE c): count(CASE WHEN c THEN true END) */

static Plan *ossd_plan_agg_path(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans);

static CustomPath *make_group_path(PlannerInfo *root, RelOptInfo *input_rel,
									RelOptInfo *output_rel, RangeTblEntry *rte,
									List *quals, const OssdProgram *fprog, List *keys,
									List *eqops, List *kcolls, List *aggrefs,
									List *having, PathTarget *target);

static CustomPathMethods ossd_agg_path_methods = {
	.CustomName = "OssdScan",
	.PlanCustomPath = ossd_plan_agg_path,
};

static bool
sum_type_ok(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID || t == NUMERICOID;
}

/* Classify one Aggref; -1 if not offloadable. */
static int
classify_aggref(Aggref *a, Expr **arg, Oid *argtype)
{
	char	   *name;
	Expr	   *e = NULL;

	if (a->aggdistinct || a->aggorder || a->agglevelsup != 0 ||
		a->aggkind != AGGKIND_NORMAL || a->aggsplit != AGGSPLIT_SIMPLE ||
		a->aggvariadic)
		return -1;
	if (get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		return -1;
	name = get_func_name(a->aggfnoid);
	if (a->aggstar)
	{
		*arg = NULL;
		*argtype = InvalidOid;
		return strcmp(name, "count") == 0 ? OSSD_AGG_COUNT_STAR : -1;
	}
	if (list_length(a->args) != 1)
		return -1;
	e = ((TargetEntry *) linitial(a->args))->expr;
	while (IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	*arg = e;
	*argtype = exprType((Node *) e);
	if (!ossd_type_supported(*argtype))
		return -1;
	if (strcmp(name, "count") == 0)
		return OSSD_AGG_COUNT;
	if (strcmp(name, "sum") == 0 && sum_type_ok(*argtype))
		return OSSD_AGG_SUM;
	if (strcmp(name, "avg") == 0 && sum_type_ok(*argtype))
		return OSSD_AGG_AVG;
	if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
	{
		int			k = name[1] == 'i' ? OSSD_AGG_MIN : OSSD_AGG_MAX;

		switch (*argtype)
		{
			case INT2OID:
			case INT4OID:
			case INT8OID:
			case DATEOID:
			case TIMESTAMPOID:
			case TIMESTAMPTZOID:
				return k;
			case NUMERICOID:
				/* ties of different display scale: only fixed-scale columns */
				if (IsA(e, Var) && ((Var *) e)->vartypmod >= 0)
					return k;
				return -1;
			case TEXTOID:
			case VARCHAROID:
				return ossd_collation_is_bytewise(a->inputcollid) ? k : -1;
			default:
				return -1;
		}
	}
	return -1;
}

/* a char(1) column: one character, sent by the map kernel as its byte */
static bool
is_char1_var(Node *n)
{
	return IsA(n, Var) && ((Var *) n)->vartype == BPCHAROID &&
		((Var *) n)->vartypmod == VARHDRSZ + 1;
}

/*
 * How many partial groups the drive sends for `ngroups` groups over `rows`
 * rows: each of its threads keeps a table of OSSD_DRIVE_GROUP_TABLE groups
 * and sends it when full (partial_agg.c, scan_engine.c), so up to that
 * size every thread sends each group once; beyond it, a scan in the first
 * key's physical order (correlation near 1, as lineitem by l_orderkey)
 * still sends about one partial group per group (a group is split only
 * where a thread's blocks or a full table end), and any other order about
 * one per row.
 */
#define OSSD_DRIVE_GROUP_TABLE 65536

static double
ossd_agg_groups_sent(PlannerInfo *root, List *keys, double ngroups, double rows)
{
	double		threads = ossd_device_workers > 0 ? ossd_device_workers : 2;
	double		corr = 0;
	VariableStatData vardata;
	AttStatsSlot sslot;

	if (ngroups <= OSSD_DRIVE_GROUP_TABLE)
		return Min(rows, ngroups * threads);
	examine_variable(root, linitial(keys), 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple) &&
		get_attstatsslot(&sslot, vardata.statsTuple, STATISTIC_KIND_CORRELATION,
						 InvalidOid, ATTSTATSSLOT_NUMBERS))
	{
		if (sslot.nnumbers == 1)
			corr = fabs(sslot.numbers[0]);
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	/* in key order a group is split only where a thread's blocks or a
	 * full table end: a tenth more covers those */
	if (corr >= 0.9)
		return Min(rows, ngroups * 1.1 + threads);
	return rows;
}

/* the drive groups by at most this many keys */
#define OSSD_MAX_GROUP_KEYS 16

/*
 * A group key the drive can group by: a plain column of the relation of a
 * type it compares as PostgreSQL does (not float: -0 and NaN; numeric
 * only with a fixed scale, whose equal values have one image).
 */
static bool
drive_group_key_ok(Expr *k, Index relid)
{
	Oid			t = exprType((Node *) k);

	if (!IsA(k, Var) || ((Var *) k)->varno != relid || ((Var *) k)->varattno <= 0 ||
		!ossd_type_supported(t) || t == FLOAT4OID || t == FLOAT8OID)
		return false;
	return t != NUMERICOID || ((Var *) k)->vartypmod >= 0;
}

/*
 * A group key the drive's map kernel computes: an expression over the
 * relation's columns with a by-value result other than float (ints, date,
 * timestamps, bool: equal values have one image), e.g. a CASE that puts
 * rows in buckets.  Whether the kernel can compute it is
 * ossd_compile_map's to say.
 */
static bool
drive_group_expr_key_ok(Expr *k, Index relid)
{
	Relids		varnos;

	if (IsA(k, Var) || !ossd_map_scalar_type(exprType((Node *) k)) ||
		contain_volatile_functions((Node *) k) || contain_subplans((Node *) k) ||
		contain_agg_clause((Node *) k) || contain_window_function((Node *) k))
		return false;
	varnos = pull_varnos(NULL, (Node *) k);
	return bms_is_empty(varnos) || bms_equal(varnos, bms_make_singleton(relid));
}

/* Every subexpression equal to a computed group key, as a NULL placeholder */
static Node *
hide_group_keys_mutator(Node *node, void *context)
{
	List	   *keys = (List *) context;
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (!IsA(node, Var))
		foreach(lc, keys)
			if (!IsA(lfirst(lc), Var) && equal(node, lfirst(lc)))
				return (Node *) makeNullConst(exprType(node), exprTypmod(node),
											  exprCollation(node));
	return expression_tree_mutator(node, hide_group_keys_mutator, keys);
}

/*
 * The first of aggrefs when every one of them is agg(DISTINCT x) over the
 * same one argument x, with no ORDER BY or FILTER (any aggregate: the
 * host's Agg computes it), else NULL.  Whether the drive can group by x
 * is add_distinct_agg_path's to say.
 */
static Aggref *
distinct_aggregate_arg(List *aggrefs)
{
	Node	   *x = NULL;
	ListCell   *lc;

	if (aggrefs == NIL)
		return NULL;
	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst(lc);
		Node	   *arg;

		if (a->aggdistinct == NIL || a->aggorder != NIL || a->aggfilter ||
			a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL ||
			a->aggsplit != AGGSPLIT_SIMPLE || list_length(a->args) != 1)
			return NULL;
		arg = (Node *) ((TargetEntry *) linitial(a->args))->expr;
		if (x && !equal(x, arg))
			return NULL;
		x = arg;
	}
	return linitial(aggrefs);
}

/*
 * agg(DISTINCT x) GROUP BY keys as the drive's grouping by (keys, x) --
 * no aggregate: the distinct pairs of its share -- sorted by the keys
 * under PostgreSQL's own Agg, which aggregates each group's x (its
 * DISTINCT drops the pairs the drive's shares had in common; the host's
 * merge of the drive's groups already did).  x must be a key the drive
 * groups by (drive_group_key_ok).
 */
static void
add_distinct_agg_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
					  RangeTblEntry *rte, List *quals, const OssdProgram *fprog, List *keys,
					  List *eqops, List *kcolls, Aggref *first, PathTarget *target,
					  List *groupclause, List *having)
{
	Expr	   *x = ((TargetEntry *) linitial(first->args))->expr;
	SortGroupClause *dsgc = linitial(first->aggdistinct);
	List	   *dkeys = list_copy(keys);
	List	   *deqops = list_copy(eqops);
	List	   *dkcolls = list_copy(kcolls);
	PathTarget *dtarget;
	CustomPath *cp;
	Path	   *path;
	AggClauseCosts agg_costs;
	double		ngroups;

	if (!drive_group_key_ok(x, input_rel->relid) ||
		!OidIsValid(dsgc->eqop) || !dsgc->hashable)
		return;
	if (keys != NIL && !grouping_is_sortable(groupclause))
		return;
	if (!list_member(dkeys, x))
	{
		if (list_length(dkeys) >= OSSD_MAX_GROUP_KEYS)
			return;
		dkeys = lappend(dkeys, x);
		deqops = lappend_oid(deqops, dsgc->eqop);
		dkcolls = lappend_oid(dkcolls, exprCollation((Node *) x));
	}
	/* the keys keep their sort-group refs: the Sort and the Agg find them */
	dtarget = create_empty_pathtarget();
	{
		ListCell   *lc;

		foreach(lc, dkeys)
		{
			int			i = foreach_current_index(lc);

			add_column_to_pathtarget(dtarget, lfirst(lc), i < list_length(groupclause) ?
									 ((SortGroupClause *) list_nth(groupclause, i))->tleSortGroupRef : 0);
		}
	}
	set_pathtarget_cost_width(root, dtarget);
	cp = make_group_path(root, input_rel, output_rel, rte, quals, fprog, dkeys, deqops,
						 dkcolls, NIL, NIL, dtarget);
	if (cp == NULL)
		return;
	path = &cp->path;
	if (keys != NIL)
		path = (Path *) create_sort_path(root, output_rel, path, root->group_pathkeys, -1.0);
	MemSet(&agg_costs, 0, sizeof(agg_costs));
	get_agg_clause_costs(root, AGGSPLIT_SIMPLE, &agg_costs);
	ngroups = keys ? estimate_num_groups(root, keys, input_rel->rows, NULL, NULL) : 1;
	path = (Path *) create_agg_path(root, output_rel, path, target,
									keys ? AGG_SORTED : AGG_PLAIN, AGGSPLIT_SIMPLE,
									groupclause, having, &agg_costs, ngroups);
	ossd_add_offload_path(root, output_rel, path);
}

/*
 * The drive-side grouping path of input_rel (keys, aggregates, HAVING) with
 * the given output target, or NULL when an aggregate or a key cannot be
 * computed on the drive.  quals and *fprog are the relation's pushed
 * filter.
 */
static CustomPath *
make_group_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel,
				RangeTblEntry *rte, List *quals, const OssdProgram *fprog, List *keys,
				List *eqops, List *kcolls, List *aggrefs, List *having,
				PathTarget *target)
{
	Index		relid = input_rel->relid;
	List	   *args = NIL;
	List	   *aggspecs = NIL;
	List	   *outs = NIL;		/* output column exprs */
	List	   *groupby = NIL;
	bool		need_map = false;
	ListCell   *lc;
	OssdProgram mprog;
	char	   *why;
	List	   *bind = NIL;
	List	   *proj = NIL;
	List	   *outputs = NIL;
	Const	   *progc;
	Const	   *mapc;
	List	   *aggpriv;
	List	   *scan_tlist = NIL;
	CustomPath *cp;
	int			resno = 1;
	Path	   *cheapest;
	double		ngroups;

	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst(lc);
		Expr	   *arg;
		Oid			argtype;
		int			kind = classify_aggref(a, &arg, &argtype);
		int			filter = AGF_NONE;

		if (kind < 0)
			return NULL;
		if (a->aggfilter)
		{
			CaseExpr   *ce = makeNode(CaseExpr);
			CaseWhen   *w = makeNode(CaseWhen);

			filter = AGF_FILTER;
			if (kind == OSSD_AGG_COUNT_STAR)
			{
				kind = OSSD_AGG_COUNT;
				arg = (Expr *) makeBoolConst(true, false);
				argtype = BOOLOID;
				filter = AGF_STAR;
			}
			w->expr = (Expr *) a->aggfilter;
			w->result = arg;
			w->location = -1;
			ce->casetype = argtype;
			ce->casecollid = exprCollation((Node *) arg);
			ce->args = list_make1(w);
			ce->defresult = (Expr *) makeNullConst(argtype, exprTypmod((Node *) arg),
												   ce->casecollid);
			ce->location = -1;
			arg = (Expr *) ce;
		}
		if (arg && !IsA(arg, Var))
		{
			/* numeric expressions, and CASEs of by-value results */
			if (argtype != NUMERICOID &&
				!(IsA(arg, CaseExpr) && ossd_map_scalar_type(argtype)))
				return NULL;
			need_map = true;
		}
		if (arg && IsA(arg, Var) && (((Var *) arg)->varno != relid || ((Var *) arg)->varattno <= 0))
			return NULL;
		args = lappend(args, arg ? (Node *) arg : (Node *) makeNullConst(INT4OID, -1, InvalidOid));
		aggspecs = lappend(aggspecs, lappend_int(list_make5_int(kind, -1, argtype, a->aggtype,
																a->inputcollid), filter));
	}

	/* a key computed from columns: the map kernel computes it */
	foreach(lc, keys)
		if (!IsA(lfirst(lc), Var))
			need_map = true;

	/* output columns: keys first, then distinct aggregate inputs */
	outs = list_copy(keys);
	foreach(lc, keys)
		groupby = lappend_int(groupby, foreach_current_index(lc));
	{
		ListCell   *ac,
				   *sc;

		forboth(ac, args, sc, aggspecs)
		{
			List	   *spec = lfirst(sc);
			Node	   *arg = lfirst(ac);
			int			pos;

			if (linitial_int(spec) == OSSD_AGG_COUNT_STAR)
			{
				lsecond_int(spec) = 0;
				continue;
			}
			pos = list_member(outs, arg) ? -1 : list_length(outs);
			if (pos < 0)
			{
				ListCell   *oc;

				foreach(oc, outs)
					if (equal(lfirst(oc), arg))
					{
						pos = foreach_current_index(oc);
						break;
					}
			}
			else
				outs = lappend(outs, arg);
			lsecond_int(spec) = pos;
		}
	}
	if (list_length(outs) > OSSD_KCTX_MAX_OUT)
		return NULL;

	memset(&mprog, 0, sizeof(mprog));
	if (need_map)
	{
		List	   *mapped = NIL;
		List	   *projected = NIL;
		bool	   *stored = palloc0(sizeof(bool) * (list_length(outs) + 1));
		int		   *devcol = palloc(sizeof(int) * (list_length(outs) + 1));
		int			nmapped = 0;
		int			nstored = 0;
		ListCell   *sc;

		/*
		 * A map kernel outputs by-value types and numeric only.  A column
		 * of a string type (a text group key) goes as stored instead, in
		 * the projected columns that follow the map's outputs; char(1)
		 * group keys travel as their byte (ossd_compile_map).
		 */
		foreach(lc, outs)
		{
			Node	   *o = lfirst(lc);
			Oid			t = exprType(o);
			bool		string = t == TEXTOID || t == VARCHAROID || t == BPCHAROID;

			if (string && !(foreach_current_index(lc) < list_length(keys) && is_char1_var(o)))
			{
				if (!IsA(o, Var))
					return NULL;
				projected = lappend(projected, o);
				stored[foreach_current_index(lc)] = true;
			}
			else
				mapped = lappend(mapped, o);
		}
		/* the device's column numbers: the map's outputs, then the projected */
		for (int j = 0; j < list_length(outs); j++)
			devcol[j] = stored[j] ? list_length(mapped) + nstored++ : nmapped++;
		foreach(lc, groupby)
			lfirst_int(lc) = devcol[lfirst_int(lc)];
		foreach(sc, aggspecs)
		{
			List	   *spec = lfirst(sc);

			if (linitial_int(spec) != OSSD_AGG_COUNT_STAR)
				lsecond_int(spec) = devcol[lsecond_int(spec)];
		}
		foreach(lc, projected)
			proj = lappend_int(proj, ((Var *) lfirst(lc))->varattno);
		outs = mapped;
		if (!ossd_compile_map(outs, relid, fprog->bind, &mprog, &why))
			return NULL;
		bind = mprog.bind;
		foreach(lc, outs)
		{
			Oid			t = exprType(lfirst(lc));
			int16		len;
			bool		byval;
			char		align;

			if (is_char1_var(lfirst(lc)))
				t = INT2OID;
			get_typlenbyvalalign(t, &len, &byval, &align);
			outputs = lappend(outputs, list_make5_int(t, len, byval,
													  align == TYPALIGN_DOUBLE ? 8 : align == TYPALIGN_INT ? 4 :
													  align == TYPALIGN_SHORT ? 2 : 1,
													  exprTypmod(lfirst(lc))));
		}
	}
	else
	{
		bind = fprog->bind;
		foreach(lc, outs)
			proj = lappend_int(proj, ((Var *) lfirst(lc))->varattno);
	}

	progc = fprog->image ? makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(fprog->image), false, false)
		: makeNullConst(BYTEAOID, -1, InvalidOid);
	mapc = mprog.image ? makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(mprog.image), false, false)
		: makeNullConst(BYTEAOID, -1, InvalidOid);

	aggpriv = list_make5(makeInteger(relid), mapc, outputs, groupby, aggspecs);
	aggpriv = lappend(aggpriv, keys);
	aggpriv = lappend(aggpriv, args);
	aggpriv = lappend(aggpriv, quals);
	aggpriv = lappend(aggpriv, eqops);
	aggpriv = lappend(aggpriv, kcolls);
	aggpriv = lappend(aggpriv, makeString(psprintf("%u", rte->relid)));

	foreach(lc, keys)
		scan_tlist = lappend(scan_tlist, makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));
	foreach(lc, aggrefs)
		scan_tlist = lappend(scan_tlist, makeTargetEntry(copyObject(lfirst(lc)), resno++, NULL, false));

	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = output_rel;
	cp->path.pathtarget = target;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.parallel_workers = 0;
	ngroups = keys ? estimate_num_groups(root, keys, input_rel->rows, NULL, NULL) : 1;
	cp->path.rows = ngroups;
	if (having)
		cp->path.rows = clamp_row_est(ngroups *
									  clauselist_selectivity(root, having, 0, JOIN_INNER, NULL));
	cp->path.pathkeys = NIL;
	cp->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;	/* ossd_exec.c */
	cp->custom_paths = NIL;
	{
		List	   *priv = list_make5(progc, bind, proj, makeString(""), aggpriv);

		priv = lappend(priv, makeInteger(fprog->ninsns + mprog.ninsns));
		priv = lappend(priv, NIL);	/* OSSD_PRIV_CONSTS: no deployed kernel here */
		priv = lappend(priv, makeInteger(0));	/* OSSD_PRIV_PARTIAL */
		priv = ossd_private_add_features(priv, fprog->features | mprog.features);
		cp->custom_private = list_make3(priv, scan_tlist, having);
	}
	cp->methods = &ossd_agg_path_methods;

	/*
	 * cost: the drive reads and aggregates the all-visible part (as a scan
	 * does, its filter's helper calls, plus the aggregates' transition
	 * functions and the map kernel's helper calls per row that passes the
	 * filter, plus packing each partial group it sends), the host the rest
	 * at the cost of its cheapest path, and
	 * merges the partial groups the drive sends (ossd_agg_groups_sent);
	 * drive and host overlap (ossd_cost), HAVING runs on each merged group.
	 * Nothing comes out before the last chunk.
	 */
	cheapest = input_rel->cheapest_total_path;
	{
		double		f = Max(0.0, Min(1.0, input_rel->allvisfrac));
		double		per_row = cpu_operator_cost * (list_length(aggrefs) + list_length(keys)) +
			ossd_program_call_units(&mprog) * ossd_drive_call_cost;
		double		sent = f > 0 ? ossd_agg_groups_sent(root, keys, ngroups,
														f * input_rel->rows) : 0;
		Cost		drive = ossd_drive_cost(input_rel, per_row * f * input_rel->rows +
											f * input_rel->tuples *
											ossd_drive_qual_cost(root, input_rel,
																 input_rel->baserestrictinfo) +
											ossd_drive_transfer_tuple_cost * sent);
		Cost		host = (1.0 - f) * cheapest->total_cost +
			(ossd_transfer_tuple_cost + cpu_operator_cost * list_length(aggrefs)) * sent +
			ngroups * cpu_tuple_cost;
		QualCost	hcost;

		cost_qual_eval(&hcost, having, root);
		cp->path.startup_cost = ossd_drive_startup_cost + Max(host, drive) + hcost.startup +
			hcost.per_tuple * ngroups;
		cp->path.total_cost = cp->path.startup_cost + cp->path.rows * cpu_tuple_cost;
	}
	return cp;
}

static void
ossd_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
						RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte;
	char	   *uri;
	List	   *quals = NIL;
	List	   *keys;
	List	   *eqops = NIL;
	List	   *kcolls = NIL;
	List	   *aggrefs = NIL;
	List	   *having = NIL;
	List	   *vars;
	bool		computed_keys = false;
	ListCell   *lc;
	Index		relid;
	OssdProgram fprog;
	char	   *why;
	CustomPath *cp;
	List	   *groupclause;
	PathTarget *target;
	Aggref	   *distinct_of;

	if (prev_upper_hook)
		prev_upper_hook(root, stage, input_rel, output_rel, extra);
	if (!ossd_enabled || !ossd_aggregate_pushdown)
		return;
	if (parse->groupingSets || parse->hasWindowFuncs || parse->hasTargetSRFs)
		return;

	/*
	 * Aggregation (GROUP BY, aggregates) or a plain SELECT DISTINCT of one
	 * relation, which is a grouping by every output column with no
	 * aggregate: the drive drops the duplicates of its share, the host
	 * those between shares.  DISTINCT's paths take the scan's target (the
	 * upper rel has none of its own).
	 */
	if (stage == UPPERREL_GROUP_AGG)
	{
		if (!parse->hasAggs && parse->groupClause == NIL)
			return;
		groupclause = parse->groupClause;
		target = output_rel->reltarget;
	}
	else if (stage == UPPERREL_DISTINCT)
	{
		if (parse->hasAggs || parse->groupClause != NIL || parse->havingQual ||
			parse->hasDistinctOn || parse->distinctClause == NIL)
			return;
		groupclause = parse->distinctClause;
		target = input_rel->reltarget;
	}
	else
		return;
	if (extra && ((GroupPathExtraData *) extra)->havingQual)
	{
		Node	   *hq = ((GroupPathExtraData *) extra)->havingQual;

		/* a volatile HAVING must run once per group, as Agg runs it */
		if (contain_volatile_functions(hq) || contain_subplans(hq))
			return;
		/* preprocess_expression made it an implicit-AND list */
		having = IsA(hq, List) ? (List *) hq : make_ands_implicit((Expr *) hq);
	}
	if (input_rel->reloptkind != RELOPT_BASEREL || !bms_is_empty(input_rel->lateral_relids))
		return;
	relid = input_rel->relid;
	rte = planner_rt_fetch(relid, root);
	if (!ossd_rel_candidate(root, input_rel, rte, &uri))
		return;

	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (ri->pseudoconstant || !ossd_qual_pushable(ri->clause, relid))
			return;
		quals = lappend(quals, ri->clause);
	}
	memset(&fprog, 0, sizeof(fprog));
	if (quals && !ossd_compile_filter(quals, relid, &fprog, &why))
		return;

	/* group keys: plain Vars of the relation, or expressions over them */
	keys = get_sortgrouplist_exprs(groupclause, parse->targetList);
	foreach(lc, groupclause)
	{
		SortGroupClause *sgc = lfirst(lc);

		if (!OidIsValid(sgc->eqop) || !sgc->hashable)
			return;
		eqops = lappend_oid(eqops, sgc->eqop);
	}
	foreach(lc, keys)
	{
		if (!drive_group_key_ok(lfirst(lc), relid))
		{
			if (!drive_group_expr_key_ok(lfirst(lc), relid))
				return;
			computed_keys = true;
		}
		kcolls = lappend_oid(kcolls, exprCollation(lfirst(lc)));
	}
	if (list_length(keys) > OSSD_MAX_GROUP_KEYS)
		return;

	/* aggregates, and no stray column outside them */
	vars = pull_var_clause(hide_group_keys_mutator((Node *) list_concat(list_copy(target->exprs),
																	   having), (void *) keys),
						   PVC_INCLUDE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS);
	foreach(lc, vars)
	{
		Node	   *n = lfirst(lc);

		if (IsA(n, Aggref))
		{
			/* HAVING's aggregates are mostly the output's own */
			if (!list_member(aggrefs, n))
				aggrefs = lappend(aggrefs, n);
		}
		else if (!list_member(keys, n))
			return;
	}
	if ((aggrefs == NIL && keys == NIL) || list_length(aggrefs) > 24)
		return;

	/*
	 * Every aggregate over DISTINCT x (the same x): the drive groups by the
	 * keys and x with no aggregate -- the distinct (keys, x) of its share,
	 * as for SELECT DISTINCT --, the host merges them and PostgreSQL's own
	 * Agg, sorted by the keys, aggregates each group's distinct x.
	 */
	distinct_of = distinct_aggregate_arg(aggrefs);
	if (distinct_of && computed_keys)
		return;					/* its grouping takes stored columns only */
	if (distinct_of)
	{
		add_distinct_agg_path(root, input_rel, output_rel, rte, quals, &fprog,
							  keys, eqops, kcolls, distinct_of, target, groupclause, having);
		return;
	}
	cp = make_group_path(root, input_rel, output_rel, rte, quals, &fprog, keys, eqops,
						 kcolls, aggrefs, having, target);
	if (cp)
		ossd_add_offload_path(root, output_rel, &cp->path);
}

static Plan *
ossd_plan_agg_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = linitial(best_path->custom_private);

	cscan->scan.plan.targetlist = tlist;
	/* HAVING, on the merged groups (set_customscan_references maps its
	 * aggregates to custom_scan_tlist) */
	cscan->scan.plan.qual = lthird(best_path->custom_private);
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = priv;
	cscan->custom_scan_tlist = lsecond(best_path->custom_private);
	/* create_customscan_plan sets custom_relids to the (upper) parent's */
	cscan->custom_relids = NULL;
	cscan->methods = &ossd_scan_plan_methods;
	return &cscan->scan.plan;
}

void
ossd_upper_init(void)
{
	prev_upper_hook = create_upper_paths_hook;
	create_upper_paths_hook = ossd_create_upper_paths;
}

/* =====================================================================
 * Executor side
 * ===================================================================== */
typedef struct AggAcc
{
	int64		count;
	Datum		sum;			/* Numeric, or 0 */
	bool		has_val;
	Datum		val;			/* min/max */
} AggAcc;

typedef struct OssdAggExec
{
	int			nkeys;
	int			naggs;
	int			nouts;
	int		   *agg_kind;
	int		   *agg_input;
	Oid		   *agg_argtype;
	Oid		   *agg_restype;
	Oid		   *agg_coll;
	bool	   *agg_argbyval;
	int16	   *agg_arglen;
	FmgrInfo   *agg_cmp;
	ExprState **key_states;
	ExprState **arg_states;
	bool	   *out_byval;
	bool	   *key_byval;
	bool	   *key_viewbyval;	/* encoding of the key in partial groups */
	bool	   *key_char1;		/* char(1) key sent as its byte */
	int16	   *key_len;
	TupleDesc	keydesc;
	TupleTableSlot *keyslot;
	TupleTableSlot *hashslot;
	TupleHashTable ht;
	AggAcc	   *single;			/* no GROUP BY */
	MemoryContext tablecxt;
	MemoryContext tempcxt;
	bool		built;
	bool		single_done;
	TupleHashIterator iter;
	void	   *keyviews;		/* struct ossd_value_view[nkeys] */
	void	   *aggviews;		/* struct ossd_agg_state_view[naggs] */
	bool	   *agg_viewbyval;
} OssdAggExec;

static AggAcc *
group_acc(OssdScanState *ss, TupleTableSlot *keyslot)
{
	OssdAggExec *ae = ss->agg;
	TupleHashEntry e;
	bool		isnew;

	if (ae->nkeys == 0)
		return ae->single;
	e = LookupTupleHashEntry(ae->ht, keyslot, &isnew, NULL);
	if (isnew)
		e->additional = MemoryContextAllocZero(ae->tablecxt, sizeof(AggAcc) * ae->naggs);
	return (AggAcc *) e->additional;
}

static Datum
to_numeric(Datum d, Oid t)
{
	switch (t)
	{
		case INT2OID:
			return NumericGetDatum(int64_to_numeric(DatumGetInt16(d)));
		case INT4OID:
			return NumericGetDatum(int64_to_numeric(DatumGetInt32(d)));
		case INT8OID:
			return NumericGetDatum(int64_to_numeric(DatumGetInt64(d)));
		default:
			return d;
	}
}

static void
acc_sum(OssdAggExec *ae, AggAcc *acc, Datum num)
{
	MemoryContext old = MemoryContextSwitchTo(ae->tablecxt);
	Datum		prev = acc->sum;

	if (prev == (Datum) 0)
		acc->sum = datumCopy(num, false, -1);
	else
	{
		acc->sum = DirectFunctionCall2(numeric_add, prev, num);
		pfree(DatumGetPointer(prev));
	}
	MemoryContextSwitchTo(old);
}

static void
acc_minmax(OssdAggExec *ae, int a, AggAcc *acc, Datum v)
{
	bool		replace;

	if (!acc->has_val)
		replace = true;
	else
	{
		int32		c = DatumGetInt32(FunctionCall2Coll(&ae->agg_cmp[a], ae->agg_coll[a], v, acc->val));

		replace = ae->agg_kind[a] == OSSD_AGG_MIN ? c < 0 : c > 0;
	}
	if (replace)
	{
		MemoryContext old = MemoryContextSwitchTo(ae->tablecxt);

		if (acc->has_val && !ae->agg_argbyval[a])
			pfree(DatumGetPointer(acc->val));
		acc->val = datumCopy(v, ae->agg_argbyval[a], ae->agg_arglen[a]);
		acc->has_val = true;
		MemoryContextSwitchTo(old);
	}
}

/* Aggregate one host-side tuple (in ss->rel_slot form). */
static void
agg_host_tuple(OssdScanState *ss, TupleTableSlot *slot)
{
	OssdAggExec *ae = ss->agg;
	ExprContext *econtext = ss->css.ss.ps.ps_ExprContext;
	AggAcc	   *accs;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	ExecClearTuple(ae->keyslot);
	for (int k = 0; k < ae->nkeys; k++)
		ae->keyslot->tts_values[k] = ExecEvalExpr(ae->key_states[k], econtext,
												  &ae->keyslot->tts_isnull[k]);
	ExecStoreVirtualTuple(ae->keyslot);
	accs = group_acc(ss, ae->keyslot);
	for (int a = 0; a < ae->naggs; a++)
	{
		bool		isnull;
		Datum		v;

		if (ae->agg_kind[a] == OSSD_AGG_COUNT_STAR)
		{
			accs[a].count++;
			continue;
		}
		v = ExecEvalExpr(ae->arg_states[a], econtext, &isnull);
		if (isnull)
			continue;
		accs[a].count++;
		switch (ae->agg_kind[a])
		{
			case OSSD_AGG_SUM:
			case OSSD_AGG_AVG:
				acc_sum(ae, &accs[a], to_numeric(v, ae->agg_argtype[a]));
				break;
			case OSSD_AGG_MIN:
			case OSSD_AGG_MAX:
				acc_minmax(ae, a, &accs[a], v);
				break;
			default:
				break;
		}
	}
}

/* Merge the partial groups of a chunk (called by ossd_exec.c). */
void
ossd_agg_consume_groups(OssdScanState *ss, Ossd__ScanChunk *c)
{
	OssdAggExec *ae = ss->agg;
	struct ossd_value_view *keys = ae->keyviews;
	struct ossd_agg_state_view *st = ae->aggviews;
	size_t		pos = 0;
	int			r;

	while ((r = ossd_group_read(c->groups.data, c->groups.len, &pos, ae->nkeys,
								ae->key_viewbyval, keys, ae->naggs, ae->agg_viewbyval, st)) > 0)
	{
		AggAcc	   *accs;

		ExecClearTuple(ae->keyslot);
		for (int k = 0; k < ae->nkeys; k++)
		{
			ae->keyslot->tts_isnull[k] = keys[k].isnull;
			if (keys[k].isnull)
				ae->keyslot->tts_values[k] = (Datum) 0;
			else if (ae->key_char1[k])
			{
				char		ch = (char) (keys[k].datum & 0xff);

				ae->keyslot->tts_values[k] = PointerGetDatum(cstring_to_text_with_len(&ch, 1));
			}
			else
				ae->keyslot->tts_values[k] = ae->key_byval[k] ? (Datum) keys[k].datum :
					PointerGetDatum(keys[k].data);
		}
		ExecStoreVirtualTuple(ae->keyslot);
		accs = group_acc(ss, ae->keyslot);
		for (int a = 0; a < ae->naggs; a++)
		{
			switch (ae->agg_kind[a])
			{
				case OSSD_AGG_COUNT_STAR:
				case OSSD_AGG_COUNT:
					accs[a].count += st[a].count;
					break;
				case OSSD_AGG_SUM:
				case OSSD_AGG_AVG:
					if (st[a].count > 0)
					{
						struct ossd_numeric n;
						char		buf[OSSD_NUMERIC_PG_MAXLEN + 8];
						size_t		len;

						if (st[a].flags & OSSD_AGGF_FLOAT)
							elog(ERROR, "pg_ossd: unexpected float partial sum");
						n.lo = st[a].sum_lo;
						n.hi = st[a].sum_hi;
						n.scale = st[a].scale;
						n.flags = 0;
						if (ossd_numeric_to_pg(&n, buf, sizeof(buf), &len) != 0)
							ereport(ERROR,
									(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
									 errmsg("offloaded aggregation returned an unrepresentable sum"),
									 errdetail("scale %d", st[a].scale)));
						accs[a].count += st[a].count;
						acc_sum(ae, &accs[a], PointerGetDatum(buf));
					}
					break;
				case OSSD_AGG_MIN:
				case OSSD_AGG_MAX:
					accs[a].count += st[a].count;
					if ((st[a].flags & OSSD_AGGF_HAS_VALUE) && !st[a].value.isnull)
						acc_minmax(ae, a, &accs[a],
								   ae->agg_argbyval[a] ? (Datum) st[a].value.datum :
								   PointerGetDatum(st[a].value.data));
					break;
			}
		}
	}
	if (r < 0)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("malformed partial group in a scan chunk from drive \"%s\"", ss->uri)));
}

void
ossd_agg_fill_request(OssdScanState *ss, Ossd__Scan *sc)
{
	OssdAggExec *ae = ss->agg;
	List	   *aggpriv = ss->aggpriv;
	Const	   *mapc = list_nth(aggpriv, AP_MAP);
	List	   *outputs = list_nth(aggpriv, AP_OUTPUTS);
	List	   *groupby = list_nth(aggpriv, AP_GROUPBY);
	ListCell   *lc;
	int			i;

	if (!mapc->constisnull)
	{
		bytea	   *m = DatumGetByteaPP(mapc->constvalue);

		sc->map_program.data = (uint8_t *) VARDATA_ANY(m);
		sc->map_program.len = VARSIZE_ANY_EXHDR(m);
		sc->n_outputs = list_length(outputs);
		sc->outputs = palloc(sizeof(Ossd__OutputColumn *) * (sc->n_outputs + 1));
		i = 0;
		foreach(lc, outputs)
		{
			List	   *o = lfirst(lc);
			Ossd__OutputColumn *oc = palloc(sizeof(Ossd__OutputColumn));

			ossd__output_column__init(oc);
			oc->type_oid = list_nth_int(o, 0);
			oc->len = list_nth_int(o, 1);
			oc->byval = list_nth_int(o, 2);
			oc->align = list_nth_int(o, 3);
			oc->typmod = list_nth_int(o, 4);
			sc->outputs[i++] = oc;
		}
		/* sc->projection: the string columns that follow the map's outputs */
	}
	sc->n_group_by = list_length(groupby);
	sc->group_by = palloc(sizeof(uint32) * (sc->n_group_by + 1));
	i = 0;
	foreach(lc, groupby)
		sc->group_by[i++] = lfirst_int(lc);
	sc->n_aggs = ae->naggs;
	sc->aggs = palloc(sizeof(Ossd__AggSpec *) * (ae->naggs + 1));
	for (i = 0; i < ae->naggs; i++)
	{
		Ossd__AggSpec *as = palloc(sizeof(Ossd__AggSpec));

		ossd__agg_spec__init(as);
		as->kind = ae->agg_kind[i];
		as->input = ae->agg_kind[i] == OSSD_AGG_COUNT_STAR ? 0 : ae->agg_input[i];
		as->type_oid = ae->agg_argtype[i];
		sc->aggs[i] = as;
	}
}

/* Set up aggregation state (from ossd_scan_begin). */
void
ossd_agg_begin(OssdScanState *ss, EState *estate)
{
	List	   *aggpriv = ss->aggpriv;
	List	   *keys = list_nth(aggpriv, AP_KEYS);
	List	   *args = list_nth(aggpriv, AP_ARGS);
	List	   *specs = list_nth(aggpriv, AP_AGGS);
	List	   *eqops = list_nth(aggpriv, AP_EQOPS);
	List	   *kcolls = list_nth(aggpriv, AP_KCOLLS);
	List	   *outputs = list_nth(aggpriv, AP_OUTPUTS);
	List	   *groupby = list_nth(aggpriv, AP_GROUPBY);
	OssdAggExec *ae = palloc0(sizeof(OssdAggExec));
	ListCell   *lc;
	int			i;

	ss->agg = ae;
	ae->nkeys = list_length(keys);
	ae->naggs = list_length(specs);
	ae->agg_kind = palloc0(sizeof(int) * ae->naggs);
	ae->agg_input = palloc0(sizeof(int) * ae->naggs);
	ae->agg_argtype = palloc0(sizeof(Oid) * ae->naggs);
	ae->agg_restype = palloc0(sizeof(Oid) * ae->naggs);
	ae->agg_coll = palloc0(sizeof(Oid) * ae->naggs);
	ae->agg_argbyval = palloc0(sizeof(bool) * ae->naggs);
	ae->agg_arglen = palloc0(sizeof(int16) * ae->naggs);
	ae->agg_viewbyval = palloc0(sizeof(bool) * ae->naggs);
	ae->agg_cmp = palloc0(sizeof(FmgrInfo) * ae->naggs);
	ae->arg_states = palloc0(sizeof(ExprState *) * ae->naggs);
	ae->key_states = palloc0(sizeof(ExprState *) * (ae->nkeys + 1));
	ae->key_byval = palloc0(sizeof(bool) * (ae->nkeys + 1));
	ae->key_len = palloc0(sizeof(int16) * (ae->nkeys + 1));
	ae->key_viewbyval = palloc0(sizeof(bool) * (ae->nkeys + 1));
	ae->key_char1 = palloc0(sizeof(bool) * (ae->nkeys + 1));
	ae->keyviews = palloc0(sizeof(struct ossd_value_view) * (ae->nkeys + 1));
	ae->aggviews = palloc0(sizeof(struct ossd_agg_state_view) * (ae->naggs + 1));

	i = 0;
	foreach(lc, specs)
	{
		List	   *s = lfirst(lc);

		ae->agg_kind[i] = list_nth_int(s, AG_KIND);
		ae->agg_input[i] = list_nth_int(s, AG_INPUT);
		ae->agg_argtype[i] = list_nth_int(s, AG_ARGTYPE);
		ae->agg_restype[i] = list_nth_int(s, AG_RESTYPE);
		ae->agg_coll[i] = list_nth_int(s, AG_COLL);
		if (OidIsValid(ae->agg_argtype[i]))
		{
			get_typlenbyval(ae->agg_argtype[i], &ae->agg_arglen[i], &ae->agg_argbyval[i]);
			ae->agg_viewbyval[i] = ae->agg_argbyval[i];
		}
		if (ae->agg_kind[i] == OSSD_AGG_MIN || ae->agg_kind[i] == OSSD_AGG_MAX)
		{
			TypeCacheEntry *tce = lookup_type_cache(ae->agg_argtype[i], TYPECACHE_CMP_PROC_FINFO);

			if (!OidIsValid(tce->cmp_proc_finfo.fn_oid))
				elog(ERROR, "pg_ossd: no comparison function for type %u", ae->agg_argtype[i]);
			fmgr_info_copy(&ae->agg_cmp[i], &tce->cmp_proc_finfo, CurrentMemoryContext);
		}
		i++;
	}
	i = 0;
	foreach(lc, args)
	{
		if (ae->agg_kind[i] != OSSD_AGG_COUNT_STAR)
			ae->arg_states[i] = ExecInitExpr(lfirst(lc), &ss->css.ss.ps);
		i++;
	}

	ae->keydesc = CreateTemplateTupleDesc(ae->nkeys);
	i = 0;
	foreach(lc, keys)
	{
		Expr	   *k = lfirst(lc);

		TupleDescInitEntry(ae->keydesc, i + 1, NULL, exprType((Node *) k),
						   exprTypmod((Node *) k), 0);
		TupleDescInitEntryCollation(ae->keydesc, i + 1, exprCollation((Node *) k));
		get_typlenbyval(exprType((Node *) k), &ae->key_len[i], &ae->key_byval[i]);
		ae->key_viewbyval[i] = ae->key_byval[i];
		if (list_nth_int(groupby, i) < list_length(outputs) &&
			list_nth_int(list_nth(outputs, list_nth_int(groupby, i)), 0) == INT2OID &&
			exprType((Node *) k) == BPCHAROID)
		{
			ae->key_char1[i] = true;
			ae->key_viewbyval[i] = true;
		}
		ae->key_states[i] = ExecInitExpr(k, &ss->css.ss.ps);
		i++;
	}
	ae->keyslot = ExecAllocTableSlot(&estate->es_tupleTable, ae->keydesc, &TTSOpsVirtual);
	ae->hashslot = ExecAllocTableSlot(&estate->es_tupleTable, ae->keydesc, &TTSOpsMinimalTuple);
	ae->tablecxt = AllocSetContextCreate(estate->es_query_cxt, "pg_ossd groups",
										 ALLOCSET_DEFAULT_SIZES);
	ae->tempcxt = AllocSetContextCreate(estate->es_query_cxt, "pg_ossd group hash temp",
										ALLOCSET_DEFAULT_SIZES);
	if (ae->nkeys > 0)
	{
		Oid		   *eqoids = palloc(sizeof(Oid) * ae->nkeys);
		Oid		   *eqfuncs;
		FmgrInfo   *hashfns;
		AttrNumber *cols = palloc(sizeof(AttrNumber) * ae->nkeys);
		Oid		   *colls = palloc(sizeof(Oid) * ae->nkeys);

		i = 0;
		foreach(lc, eqops)
		{
			eqoids[i] = lfirst_oid(lc);
			cols[i] = i + 1;
			colls[i] = list_nth_oid(kcolls, i);
			i++;
		}
		execTuplesHashPrepare(ae->nkeys, eqoids, &eqfuncs, &hashfns);
		ae->ht = BuildTupleHashTableExt(&ss->css.ss.ps, ae->keydesc, ae->nkeys, cols,
										eqfuncs, hashfns, colls, 1024, 0,
										estate->es_query_cxt, ae->tablecxt, ae->tempcxt,
										false);
	}
	else
		ae->single = MemoryContextAllocZero(ae->tablecxt, sizeof(AggAcc) * ae->naggs);
}

/* Fill the scan slot (custom_scan_tlist: keys, then aggregates). */
static TupleTableSlot *
emit_group(OssdScanState *ss, TupleTableSlot *keys, AggAcc *accs)
{
	OssdAggExec *ae = ss->agg;
	TupleTableSlot *slot = ss->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(slot);
	if (keys)
	{
		slot_getallattrs(keys);
		for (int k = 0; k < ae->nkeys; k++)
		{
			slot->tts_values[k] = keys->tts_values[k];
			slot->tts_isnull[k] = keys->tts_isnull[k];
		}
	}
	for (int a = 0; a < ae->naggs; a++)
	{
		int			c = ae->nkeys + a;
		AggAcc	   *acc = &accs[a];

		slot->tts_isnull[c] = false;
		switch (ae->agg_kind[a])
		{
			case OSSD_AGG_COUNT_STAR:
			case OSSD_AGG_COUNT:
				slot->tts_values[c] = Int64GetDatum(acc->count);
				break;
			case OSSD_AGG_SUM:
				if (acc->count == 0 || acc->sum == (Datum) 0)
					slot->tts_isnull[c] = true;
				else if (ae->agg_restype[a] == INT8OID)
					slot->tts_values[c] = DirectFunctionCall1(numeric_int8, acc->sum);
				else
					slot->tts_values[c] = acc->sum;
				break;
			case OSSD_AGG_AVG:
				if (acc->count == 0 || acc->sum == (Datum) 0)
					slot->tts_isnull[c] = true;
				else
					slot->tts_values[c] = DirectFunctionCall2(numeric_div, acc->sum,
															  NumericGetDatum(int64_to_numeric(acc->count)));
				break;
			case OSSD_AGG_MIN:
			case OSSD_AGG_MAX:
				if (!acc->has_val)
					slot->tts_isnull[c] = true;
				else
					slot->tts_values[c] = acc->val;
				break;
		}
	}
	return ExecStoreVirtualTuple(slot);
}

TupleTableSlot *
ossd_agg_next(OssdScanState *ss)
{
	OssdAggExec *ae = ss->agg;

	if (!ae->built)
	{
		TupleTableSlot *slot;

		while ((slot = ossd_scan_next_row(ss)) != NULL)
			agg_host_tuple(ss, slot);
		ae->built = true;
		if (ae->ht)
			InitTupleHashIterator(ae->ht, &ae->iter);
	}
	if (ae->nkeys == 0)
	{
		if (ae->single_done)
			return NULL;
		ae->single_done = true;
		return emit_group(ss, NULL, ae->single);
	}
	for (;;)
	{
		TupleHashEntry e = ScanTupleHashTable(ae->ht, &ae->iter);

		if (e == NULL)
			return NULL;
		ExecStoreMinimalTuple(e->firstTuple, ae->hashslot, false);
		return emit_group(ss, ae->hashslot, (AggAcc *) e->additional);
	}
}

void
ossd_agg_rescan(OssdScanState *ss)
{
	OssdAggExec *ae = ss->agg;

	ae->built = false;
	ae->single_done = false;
	MemoryContextReset(ae->tablecxt);
	if (ae->ht)
		ResetTupleHashTable(ae->ht);
	else
		ae->single = MemoryContextAllocZero(ae->tablecxt, sizeof(AggAcc) * ae->naggs);
}

void
ossd_agg_explain(OssdScanState *ss, List *dpcontext, ExplainState *es)
{
	List	   *aggpriv = ss->aggpriv;
	List	   *specs = list_nth(aggpriv, AP_AGGS);
	List	   *args = list_nth(aggpriv, AP_ARGS);
	List	   *keys = list_nth(aggpriv, AP_KEYS);
	List	   *quals = list_nth(aggpriv, AP_QUALS);
	Const	   *mapc = list_nth(aggpriv, AP_MAP);
	StringInfoData buf;
	ListCell   *sc,
			   *ac;
	static const char *names[] = {"count(*)", "count", "sum", "avg", "min", "max"};

	if (quals)
		ExplainPropertyText("Device Filter",
							deparse_expression((Node *) make_ands_explicit(quals), dpcontext, false, false), es);
	initStringInfo(&buf);
	forboth(sc, specs, ac, args)
	{
		List	   *spec = lfirst(sc);
		int			kind = linitial_int(spec);
		int			filter = list_nth_int(spec, AG_FILTER);

		if (buf.len)
			appendStringInfoString(&buf, ", ");
		if (filter != AGF_NONE)
		{
			/* shown as written: agg(x) FILTER (WHERE c) */
			CaseWhen   *w = linitial(((CaseExpr *) lfirst(ac))->args);

			if (filter == AGF_STAR)
				appendStringInfoString(&buf, names[OSSD_AGG_COUNT_STAR]);
			else
				appendStringInfo(&buf, "%s(%s)", names[kind],
								 deparse_expression((Node *) w->result, dpcontext, false, false));
			appendStringInfo(&buf, " FILTER (WHERE %s)",
							 deparse_expression((Node *) w->expr, dpcontext, false, false));
		}
		else if (kind == OSSD_AGG_COUNT_STAR)
			appendStringInfoString(&buf, names[kind]);
		else
			appendStringInfo(&buf, "%s(%s)", names[kind],
							 deparse_expression(lfirst(ac), dpcontext, false, false));
	}
	ExplainPropertyText("Device Partial Aggregates", buf.len ? buf.data : "(none)", es);
	if (keys)
		ExplainPropertyText("Device Group Keys",
							deparse_expression((Node *) keys, dpcontext, false, false), es);
	ExplainPropertyText("Device Map Kernel", mapc->constisnull ? "none" : "compiled", es);

	/*
	 * How the host merges the drive's partial states: counts add, sums are
	 * numeric_add, an average adds sum and count and divides at the end,
	 * min and max compare with the type's btree order.
	 */
	{
		static const char *ops[] = {
			"count addition", "numeric_add", "numeric_div", "btree comparison"
		};
		bool		used[4] = {false, false, false, false};

		foreach(sc, specs)
		{
			switch (linitial_int((List *) lfirst(sc)))
			{
				case OSSD_AGG_COUNT_STAR:
				case OSSD_AGG_COUNT:
					used[0] = true;
					break;
				case OSSD_AGG_SUM:
					used[1] = true;
					break;
				case OSSD_AGG_AVG:
					used[1] = used[2] = true;
					break;
				default:
					used[3] = true;
					break;
			}
		}
		resetStringInfo(&buf);
		for (int k = 0; k < 4; k++)
			if (used[k])
				appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", ops[k]);
		ExplainPropertyText("Host Final Merge", buf.len ? buf.data : "duplicate groups dropped", es);
	}
}
