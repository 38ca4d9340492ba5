/*-------------------------------------------------------------------------
 *
 * ossd_joinpath.c
 *		  set_join_pathlist_hook: hash joins whose probe side is an OssdScan
 *		  thinned by a join filter (ossd_joinfilter.c), priced at the rows
 *		  the drive really sends; and partial joins that run a drive scan
 *		  in every process, priced for each of them.
 *
 * A relation's own paths know nothing of the joins above them: its
 * OssdScan is priced at every row its quals pass, and a relation with no
 * quals of its own (TPC-H Q17's lineitem, joined to 0.1% of part) gets no
 * OssdScan at all, though the drive would drop 99.9% of its rows before
 * they cross the channel once the build side's keys reach it.  Here, for
 * each inner, semi or right join of a relation on the drive (the probe,
 * outer side) with any other relation (the hashed, inner side) and at
 * least one hash clause a filter can be made of, the join is offered once
 * more with the probe side's OssdScan priced at the rows the filter
 * passes:
 *
 *	- the rows that find a match, as compute_semi_anti_join_factors
 *	  estimates a semi join on that clause alone; with several such clauses
 *	  the smallest share (each clause has its own filter: a row must pass
 *	  every one, and passing each is not passing all);
 *	- plus the filter's false positives among the others
 *	  (ossd_joinfilter_false_pass: none for an exact key set, a Bloom
 *	  filter's rate for a larger one, all when none would be sent).
 *
 * The paths are those PostgreSQL's hash_inner_and_outer makes: over the
 * inner relation's cheapest total path, and, for a partial join under a
 * Gather, over its cheapest parallel-safe one with each process's own
 * hash table and over its cheapest partial path with one table all the
 * processes build (a parallel hash join: every process passes its build
 * barrier before any asks the probe side for a row, so each makes the
 * filter of the whole table).  Each partial join whose
 * complete inner side scans the drive pays for every process's scan of it
 * (charge_private_inner_drive_scans: they all go to one drive).  The plan's post-pass
 * (ossd_joinfilter_plan) finds the same clauses and attaches the filter
 * the path was priced for.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "utils/selfuncs.h"

#include "pg_ossd.h"

static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;

/* Does rinfo compare the outer with the inner relation?  (As joinpath.c.) */
static bool
clause_sides_match(RestrictInfo *rinfo, RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
		bms_is_subset(rinfo->right_relids, innerrel->relids))
	{
		rinfo->outer_is_left = true;
		return true;
	}
	if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
		bms_is_subset(rinfo->right_relids, outerrel->relids))
	{
		rinfo->outer_is_left = false;
		return true;
	}
	return false;
}

/* The join's hash clauses, as hash_inner_and_outer collects them. */
static List *
join_hash_clauses(RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
				  JoinType jointype, List *restrictlist)
{
	List	   *hashclauses = NIL;
	ListCell   *lc;

	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst(lc);

		/* an outer join hashes on its own clauses only */
		if (IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
			continue;
		if (!rinfo->can_join || !OidIsValid(rinfo->hashjoinoperator))
			continue;
		if (!clause_sides_match(rinfo, outerrel, innerrel))
			continue;
		hashclauses = lappend(hashclauses, rinfo);
	}
	return hashclauses;
}

/*
 * The share of the outer relation's rows that the filter made of rinfo's
 * keys passes, or 1 when the clause gives no filter (the same tests as
 * the plan's post-pass: a plain column of the probe relation, an operator
 * both sides normalise alike, an inner expression the Hash computes
 * again).
 */
static double
key_clause_pass(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				RelOptInfo *innerrel, RestrictInfo *rinfo, SpecialJoinInfo *semi)
{
	OpExpr	   *op = (OpExpr *) rinfo->clause;
	Node	   *outer_arg;
	Node	   *inner_arg;
	Var		   *col;
	RestrictInfo *uncached;
	SemiAntiJoinFactors factors;
	double		distinct;
	double		false_pass;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2)
		return 1.0;
	outer_arg = rinfo->outer_is_left ? linitial(op->args) : lsecond(op->args);
	inner_arg = rinfo->outer_is_left ? lsecond(op->args) : linitial(op->args);
	col = (Var *) ossd_strip_relabel(outer_arg);
	if (col == NULL || !IsA(col, Var) || col->varno != (int) outerrel->relid ||
		ossd_joinfilter_clause_kind(op, col, inner_arg) < 0)
		return 1.0;

	/*
	 * A clause caches one selectivity for all joins but inner ones
	 * (outer_selec), whichever side was outer when it was computed (as an
	 * inner-unique join's factors, say): a copy computes it for this side.
	 */
	uncached = makeNode(RestrictInfo);
	memcpy(uncached, rinfo, sizeof(RestrictInfo));
	uncached->outer_selec = -1;
	compute_semi_anti_join_factors(root, joinrel, outerrel, innerrel, JOIN_SEMI,
								   semi, list_make1(uncached), &factors);
	distinct = estimate_num_groups(root, list_make1(inner_arg), innerrel->rows,
								   NULL, NULL);
	false_pass = ossd_joinfilter_false_pass(innerrel->rows, distinct);
	return factors.outer_match_frac + (1.0 - factors.outer_match_frac) * false_pass;
}

/*
 * What the drive scans in a path cost (its OssdScans' costs), for a path
 * that one process runs whole.  Nodes this does not know count nothing.
 */
static Cost
path_drive_cost(Path *path)
{
	Cost		sum = 0;
	ListCell   *lc;

	if (path == NULL)
		return 0;
	if (IsA(path, CustomPath))
		return strcmp(((CustomPath *) path)->methods->CustomName, "OssdScan") == 0 ?
			path->total_cost : 0;
	if (IsA(path, HashPath) || IsA(path, NestPath) || IsA(path, MergePath))
		return path_drive_cost(((JoinPath *) path)->outerjoinpath) +
			path_drive_cost(((JoinPath *) path)->innerjoinpath);
	if (IsA(path, ProjectionPath))
		return path_drive_cost(((ProjectionPath *) path)->subpath);
	if (IsA(path, SubqueryScanPath))
		return path_drive_cost(((SubqueryScanPath *) path)->subpath);
	if (IsA(path, MaterialPath))
		return path_drive_cost(((MaterialPath *) path)->subpath);
	if (IsA(path, MemoizePath))
		return path_drive_cost(((MemoizePath *) path)->subpath);
	if (IsA(path, SortPath) || IsA(path, IncrementalSortPath))
		return path_drive_cost(((SortPath *) path)->subpath);
	if (IsA(path, UniquePath))
		return path_drive_cost(((UniquePath *) path)->subpath);
	if (IsA(path, UpperUniquePath))
		return path_drive_cost(((UpperUniquePath *) path)->subpath);
	if (IsA(path, AggPath))
		return path_drive_cost(((AggPath *) path)->subpath);
	if (IsA(path, GroupPath))
		return path_drive_cost(((GroupPath *) path)->subpath);
	if (IsA(path, LimitPath))
		return path_drive_cost(((LimitPath *) path)->subpath);
	if (IsA(path, AppendPath))
		foreach(lc, ((AppendPath *) path)->subpaths)
			sum += path_drive_cost(lfirst(lc));
	if (IsA(path, MergeAppendPath))
		foreach(lc, ((MergeAppendPath *) path)->subpaths)
			sum += path_drive_cost(lfirst(lc));
	return sum;
}

/*
 * A partial join whose inner side is complete (a nested loop, a merge
 * join, a hash join with a private table) runs that inner side whole in
 * every process.  PostgreSQL counts it once, as the processes build their
 * tables at once; but their drive scans all go to the one drive, which
 * does each in turn.  So each such path of this join (made by this call,
 * PostgreSQL's or ours) pays for the drive scans of the other processes:
 * it is taken out, costed so, and offered again.
 */
static void
charge_private_inner_drive_scans(RelOptInfo *joinrel, RelOptInfo *outerrel,
								 RelOptInfo *innerrel, JoinType jointype)
{
	JoinType	made = (jointype == JOIN_UNIQUE_INNER || jointype == JOIN_UNIQUE_OUTER) ?
		JOIN_INNER : jointype;
	List	   *charged = NIL;
	ListCell   *lc;

	foreach(lc, joinrel->partial_pathlist)
	{
		JoinPath   *jp = lfirst(lc);

		if (!IsA(jp, HashPath) && !IsA(jp, NestPath) && !IsA(jp, MergePath))
			continue;
		if (jp->jointype != made || jp->outerjoinpath->parent != outerrel ||
			jp->innerjoinpath->parent != innerrel)
			continue;
		if (IsA(jp, HashPath) && jp->path.parallel_aware)
			continue;			/* a parallel hash: the inner side is shared */
		if (path_drive_cost(jp->innerjoinpath) > 0)
			charged = lappend(charged, jp);
	}
	foreach(lc, charged)
	{
		JoinPath   *jp = lfirst(lc);
		double		others = jp->path.parallel_workers -
			(parallel_leader_participation ? 0 : 1);
		Cost		extra = Max(0.0, others) * path_drive_cost(jp->innerjoinpath);

		joinrel->partial_pathlist = list_delete_ptr(joinrel->partial_pathlist, jp);
		jp->path.startup_cost += extra;
		jp->path.total_cost += extra;
		add_partial_path(joinrel, &jp->path);
	}
}

/* Offer the hash join of outer_path and inner_path, as try_hashjoin_path. */
static void
offer_hashjoin(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
			   JoinPathExtraData *extra, Path *outer_path, Path *inner_path,
			   List *hashclauses, bool partial, bool parallel_hash)
{
	JoinCostWorkspace workspace;
	HashPath   *hp;

	initial_cost_hashjoin(root, &workspace, jointype, hashclauses,
						  outer_path, inner_path, extra, parallel_hash);
	if (partial ? !add_partial_path_precheck(joinrel, workspace.total_cost, NIL) :
		!add_path_precheck(joinrel, workspace.startup_cost, workspace.total_cost,
						   NIL, NULL))
		return;
	hp = create_hashjoin_path(root, joinrel, jointype, &workspace, extra,
							  outer_path, inner_path, parallel_hash, extra->restrictlist,
							  NULL, hashclauses);
	if (partial)
		add_partial_path(joinrel, &hp->jpath.path);
	else
		add_path(joinrel, &hp->jpath.path);
}

static void ossd_offer_filtered_joins(PlannerInfo *root, RelOptInfo *joinrel,
									  RelOptInfo *outerrel, RelOptInfo *innerrel,
									  JoinType jointype, JoinPathExtraData *extra);

static void
ossd_set_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel,
					   RelOptInfo *outerrel, RelOptInfo *innerrel,
					   JoinType jointype, JoinPathExtraData *extra)
{
	if (prev_set_join_pathlist_hook)
		prev_set_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	if (!ossd_enabled)
		return;
	ossd_offer_filtered_joins(root, joinrel, outerrel, innerrel, jointype, extra);
	charge_private_inner_drive_scans(joinrel, outerrel, innerrel, jointype);
}

/*
 * The hash joins of outerrel's filtered OssdScan with innerrel (see the
 * file header).
 */
static void
ossd_offer_filtered_joins(PlannerInfo *root, RelOptInfo *joinrel,
						  RelOptInfo *outerrel, RelOptInfo *innerrel,
						  JoinType jointype, JoinPathExtraData *extra)
{
	Path	   *inner_path;
	List	   *hashclauses;
	SpecialJoinInfo semi;
	double		pass = 1.0;
	int			keys = 0;
	ListCell   *lc;
	CustomPath *probe;

	if (!ossd_join_filter)
		return;
	/* the joins whose unmatched probe rows are never output */
	if (jointype != JOIN_INNER && jointype != JOIN_SEMI && jointype != JOIN_RIGHT)
		return;
	if (outerrel->reloptkind != RELOPT_BASEREL &&
		outerrel->reloptkind != RELOPT_OTHER_MEMBER_REL)
		return;
	if (!bms_is_empty(joinrel->lateral_relids))
		return;
	inner_path = innerrel->cheapest_total_path;
	if (inner_path == NULL || PATH_REQ_OUTER(inner_path) != NULL)
		return;
	hashclauses = join_hash_clauses(joinrel, outerrel, innerrel, jointype,
									extra->restrictlist);
	if (hashclauses == NIL)
		return;

	/* a semi join of the probe relation to the build side, for the share */
	memset(&semi, 0, sizeof(semi));
	semi.type = T_SpecialJoinInfo;
	semi.min_lefthand = semi.syn_lefthand = outerrel->relids;
	semi.min_righthand = semi.syn_righthand = innerrel->relids;
	semi.jointype = JOIN_SEMI;
	foreach(lc, hashclauses)
	{
		double		p = key_clause_pass(root, joinrel, outerrel, innerrel,
										lfirst(lc), &semi);

		if (p < 1.0)
		{
			keys++;
			pass = Min(pass, p);
		}
	}
	if (keys == 0)
		return;

	probe = ossd_join_filtered_path(root, outerrel, 0, pass, keys);
	if (probe == NULL)
		return;
	offer_hashjoin(root, joinrel, jointype, extra, &probe->path, inner_path,
				   hashclauses, false, false);

	/* under a Gather (as PostgreSQL, not for a right join) */
	if (joinrel->consider_parallel && outerrel->consider_parallel &&
		jointype != JOIN_RIGHT)
	{
		int			workers = compute_parallel_worker(outerrel, outerrel->pages, -1,
													  max_parallel_workers_per_gather);
		Path	   *safe_inner = get_cheapest_parallel_safe_total_inner(innerrel->pathlist);

		probe = workers > 0 ?
			ossd_join_filtered_path(root, outerrel, workers, pass, keys) : NULL;
		if (probe != NULL && safe_inner != NULL)
			offer_hashjoin(root, joinrel, jointype, extra, &probe->path,
						   safe_inner, hashclauses, true, false);
		/* a shared table built by all, as hash_inner_and_outer offers it */
		if (probe != NULL && enable_parallel_hash && innerrel->partial_pathlist != NIL)
			offer_hashjoin(root, joinrel, jointype, extra, &probe->path,
						   linitial(innerrel->partial_pathlist), hashclauses,
						   true, true);
	}
}

void
ossd_joinpath_init(void)
{
	prev_set_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = ossd_set_join_pathlist;
}
