/*-------------------------------------------------------------------------
 *
 * ossd_selectivity.c
 *		  How many rows a drive scan sends: the selectivity of its device
 *		  quals, with comparisons of two columns estimated from statistics.
 *
 * PostgreSQL prices a comparison of two columns of one relation (TPC-H's
 * l_commitdate < l_receiptdate) at a flat default, a third for an
 * inequality, whatever the data.  For the planner's row counts that is
 * PostgreSQL's business; but the drive scan's price is mostly the rows it
 * ships and the host unpacks, and Q21's l_receiptdate > l_commitdate passes
 * 63% of lineitem: priced at a third, the drive scan looked half as dear as
 * it was, and the plan hashed 3.8 M rows where the plain one probed an
 * index 75,000 times.
 *
 * Here such a comparison (an inequality operator whose restriction
 * estimator is scalarltsel, scalarlesel, scalargtsel or scalargesel, over
 * two plain columns of the scanned relation of the operator's input types)
 * is estimated from the two columns' statistics as if the columns were
 * independent: each column is a weighted sample -- its most common values
 * at their frequencies, its histogram bounds sharing the rest of the
 * non-null rows -- and the share is the weight of the pairs for which the
 * operator itself returns true.  Independence is wrong for TPC-H's dates
 * (a receipt date follows its order's ship date), but it gives about a half
 * for Q21's qual where the default gives a third, and it follows the data
 * where the default cannot.  Without statistics on both columns the
 * default stays.  The other quals go to clauselist_selectivity together,
 * so that its pairing of a column's range bounds still applies.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_statistic.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_ossd.h"

/* one column's statistics as a weighted sample of its non-null values */
typedef struct ColumnSample
{
	AttStatsSlot mcv;
	AttStatsSlot hist;
	bool		have_mcv;
	bool		have_hist;
	double		hist_weight;	/* of each histogram bound */
	HeapTuple	stats;
} ColumnSample;

static bool
column_sample_open(Oid relid, AttrNumber attno, ColumnSample *cs)
{
	Form_pg_statistic st;
	double		mcv_total = 0.0;

	memset(cs, 0, sizeof(*cs));
	cs->stats = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
								Int16GetDatum(attno), BoolGetDatum(false));
	if (!HeapTupleIsValid(cs->stats))
		return false;
	st = (Form_pg_statistic) GETSTRUCT(cs->stats);
	cs->have_mcv = get_attstatsslot(&cs->mcv, cs->stats, STATISTIC_KIND_MCV, InvalidOid,
									ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS);
	cs->have_hist = get_attstatsslot(&cs->hist, cs->stats, STATISTIC_KIND_HISTOGRAM,
									 InvalidOid, ATTSTATSSLOT_VALUES);
	if (cs->have_mcv)
		for (int i = 0; i < cs->mcv.nnumbers; i++)
			mcv_total += cs->mcv.numbers[i];
	if (cs->have_hist && cs->hist.nvalues > 0)
		cs->hist_weight = Max(0.0, 1.0 - st->stanullfrac - mcv_total) / cs->hist.nvalues;
	return cs->have_mcv || (cs->have_hist && cs->hist.nvalues > 0);
}

static void
column_sample_close(ColumnSample *cs)
{
	if (cs->have_mcv)
		free_attstatsslot(&cs->mcv);
	if (cs->have_hist)
		free_attstatsslot(&cs->hist);
	if (HeapTupleIsValid(cs->stats))
		ReleaseSysCache(cs->stats);
}

/* The i-th value of the sample and its weight; false past the end. */
static bool
column_sample_get(ColumnSample *cs, int i, Datum *value, double *weight)
{
	int			nmcv = cs->have_mcv ? Min(cs->mcv.nvalues, cs->mcv.nnumbers) : 0;

	if (i < nmcv)
	{
		*value = cs->mcv.values[i];
		*weight = cs->mcv.numbers[i];
		return true;
	}
	i -= nmcv;
	if (cs->have_hist && i < cs->hist.nvalues)
	{
		*value = cs->hist.values[i];
		*weight = cs->hist_weight;
		return true;
	}
	return false;
}

/*
 * The share of rows for which "a op b" holds, a and b columns of the
 * relation relid; -1 when statistics are missing.
 */
static double
column_comparison_selectivity(Oid relid, OpExpr *op, Var *a, Var *b)
{
	ColumnSample sa;
	ColumnSample sb;
	FmgrInfo	fn;
	double		passed = 0.0;
	Datum		va,
				vb;
	double		wa,
				wb;

	if (!column_sample_open(relid, a->varattno, &sa))
	{
		column_sample_close(&sa);
		return -1.0;
	}
	if (!column_sample_open(relid, b->varattno, &sb))
	{
		column_sample_close(&sa);
		column_sample_close(&sb);
		return -1.0;
	}
	fmgr_info(get_opcode(op->opno), &fn);
	for (int i = 0; column_sample_get(&sa, i, &va, &wa); i++)
		for (int j = 0; column_sample_get(&sb, j, &vb, &wb); j++)
			if (DatumGetBool(FunctionCall2Coll(&fn, op->inputcollid, va, vb)))
				passed += wa * wb;
	column_sample_close(&sa);
	column_sample_close(&sb);
	return Max(0.0, Min(1.0, passed));
}

/* The two columns of rel that clause compares with an inequality, or false. */
static bool
is_column_comparison(Node *clause, Index relid, OpExpr **op, Var **a, Var **b)
{
	OpExpr	   *o = (OpExpr *) clause;
	RegProcedure rest;
	Var		   *l;
	Var		   *r;

	if (!IsA(clause, OpExpr) || list_length(o->args) != 2)
		return false;
	rest = get_oprrest(o->opno);
	if (rest != F_SCALARLTSEL && rest != F_SCALARLESEL &&
		rest != F_SCALARGTSEL && rest != F_SCALARGESEL)
		return false;
	l = linitial(o->args);
	r = lsecond(o->args);
	if (!IsA(l, Var) || !IsA(r, Var) || l->varno != (int) relid || r->varno != (int) relid ||
		l->varlevelsup != 0 || r->varlevelsup != 0 ||
		l->varattno <= 0 || r->varattno <= 0 || l->varattno == r->varattno)
		return false;
	/* the statistics' values are of the columns' types: the operator's */
	{
		Oid			ltype,
					rtype;

		op_input_types(o->opno, &ltype, &rtype);
		if (l->vartype != ltype || r->vartype != rtype)
			return false;
	}
	*op = o;
	*a = l;
	*b = r;
	return true;
}

/*
 * The share of rel's rows that clauses (bare expressions, AND-ed) pass;
 * see the file header.
 */
Selectivity
ossd_device_selectivity(PlannerInfo *root, RelOptInfo *rel, List *clauses)
{
	RangeTblEntry *rte = root->simple_rte_array[rel->relid];
	List	   *rest = NIL;
	Selectivity sel = 1.0;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		OpExpr	   *op;
		Var		   *a;
		Var		   *b;
		double		s = -1.0;

		if (rte->rtekind == RTE_RELATION && !rte->inh &&
			is_column_comparison(lfirst(lc), rel->relid, &op, &a, &b))
			s = column_comparison_selectivity(rte->relid, op, a, b);
		if (s < 0)
			rest = lappend(rest, lfirst(lc));
		else
			sel *= s;
	}
	sel *= clauselist_selectivity(root, rest, rel->relid, JOIN_INNER, NULL);
	return sel;
}
