/*-------------------------------------------------------------------------
 *
 * ossd_planner.c
 *		  set_rel_pathlist_hook: a CustomScan path for relations stored on
 *		  an ossdfs tablespace, its cost, and its plan.
 *
 * Cost model.  A fraction allvisfrac of the relation's pages (from the
 * visibility map, as ANALYZE/VACUUM recorded it) can be scanned by the
 * drive, at ossd.drive_page_cost and ossd.drive_tuple_cost per drive
 * thread, and each row that comes back (estimated by the pushed quals'
 * selectivity, and for a join's probe side by its join filter:
 * ossd_joinpath.c) costs the drive ossd.drive_transfer_tuple_cost to
 * project and pack it and the host ossd.transfer_tuple_cost to unpack it
 * and form the tuple; the
 * other pages cost what a sequential scan would.  Drive and host overlap:
 * the slower of the two is the scan's cost (ossd_cost).
 * ossd.force_offload makes this the only path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/prep.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/spccache.h"

#include "pg_ossd.h"
#include "ossd_scan.h"

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;
static planner_hook_type prev_planner_hook = NULL;

static Plan *ossd_plan_custom_path(PlannerInfo *root, RelOptInfo *rel,
								   CustomPath *best_path, List *tlist,
								   List *clauses, List *custom_plans);
static CustomPath *ossd_make_scan_path(PlannerInfo *root, RelOptInfo *rel,
									   List *device_quals, int parallel_workers,
									   double join_pass, int join_keys,
									   List *index_blocks, double share,
									   Cost index_cost);

static CustomPathMethods ossd_path_methods = {
	.CustomName = "OssdScan",
	.PlanCustomPath = ossd_plan_custom_path,
};

CustomScanMethods ossd_scan_plan_methods = {
	.CustomName = "OssdScan",
	.CreateCustomScanState = ossd_create_scan_state,
};

/* true when an expression references a system column or a whole row */
static bool
refs_system_columns(Node *expr, Index relid)
{
	Bitmapset  *attrs = NULL;
	int			x = -1;

	pull_varattnos(expr, relid, &attrs);
	while ((x = bms_next_member(attrs, x)) >= 0)
		if (x + FirstLowInvalidHeapAttributeNumber <= 0)
			return true;
	return false;
}

/*
 * Is the relation a candidate at all?
 */
bool
ossd_rel_candidate(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte,
				   char **uri)
{
	Relation	r;
	bool		ok;
	ListCell   *lc;

	if (!ossd_enabled)
		return false;
	if (rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL)
		return false;
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL)
		return false;
	if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW)
		return false;

	/*
	 * An inheritance parent (rte->inh) stands for itself and its children:
	 * its rel is an appendrel whose members are planned one by one (the
	 * parent's own rows as a child of itself).  A scan of the parent's heap
	 * alone would lose the children's rows.
	 */
	if (rte->inh)
		return false;
	if (IsolationIsSerializable())
		return false;
	if (!ossd_force_offload && rel->pages < (BlockNumber) ossd_min_relation_pages)
		return false;
	/* row marks (FOR UPDATE, UPDATE/DELETE targets) need a real heap scan */
	if (root->parse->resultRelation == (int) rel->relid ||
		get_plan_rowmark(root->rowMarks, rel->relid) != NULL)
		return false;

	r = table_open(rte->relid, NoLock);
	ok = r->rd_tableam == GetHeapamTableAmRoutine() &&
		ossd_relation_on_drive(r, uri);
	table_close(r, NoLock);
	if (!ok)
		return false;

	if (refs_system_columns((Node *) rel->reltarget->exprs, rel->relid))
		return false;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (refs_system_columns((Node *) ri->clause, rel->relid))
			return false;
	}
	return true;
}

/*
 * Does the drive return all the columns a scan of rel needs?  It sends at
 * most OSSD_SCAN_MAX_OUT columns of a row (scan_engine.c refuses a wider
 * projection): the output and the columns of the quals the host evaluates
 * (those not in dev, and a parameterized path's join clauses, which name
 * columns of the output).  A wider scan stays on the host.
 */
bool
ossd_projection_fits(RelOptInfo *rel, List *dev)
{
	Bitmapset  *attrs = NULL;
	ListCell   *lc;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (!list_member_ptr(dev, ri))
			pull_varattnos((Node *) ri->clause, rel->relid, &attrs);
	}
	return bms_num_members(attrs) <= OSSD_SCAN_MAX_OUT;
}

/*
 * The lowest security_level of rel's scan quals that are not in dev: the
 * quals the host evaluates (pseudoconstant ones gate the scan before it
 * starts and do not count).  INT_MAX when the drive takes them all.
 */
static Index
host_min_security(RelOptInfo *rel, List *dev)
{
	Index		min = (Index) INT_MAX;
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		if (!ri->pseudoconstant && !list_member_ptr(dev, ri) && ri->security_level < min)
			min = ri->security_level;
	}
	return min;
}

/*
 * Row-level security policies and security_barrier views: a qual must not
 * see a row before the quals of a lower security_level have passed it,
 * unless it is leakproof (restriction_is_securely_promotable;
 * order_qual_clauses orders the host's quals so).  The drive's filter runs
 * ahead of every host qual -- on the drive, and on the host for the blocks
 * and rows the drive does not decide -- so a qual that is not leakproof
 * may go there only if no qual of a lower level stays on the host.
 */
static bool
drive_may_run_first(RestrictInfo *ri, RelOptInfo *rel, List *dev)
{
	return ri->leakproof || ri->security_level <= host_min_security(rel, dev);
}

/* Pushable restriction clauses that compile together. */
static List *
choose_device_quals(RelOptInfo *rel)
{
	List	   *dev = NIL;
	List	   *exprs = NIL;
	List	   *secure = NIL;
	ListCell   *lc;

	/* a deployed kernel (ossd_filter) is the drive's one filter if present */
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		List	   *attnos;

		if (!ri->pseudoconstant && ossd_kernel_call(ri->clause, rel->relid, &attnos, NULL) &&
			drive_may_run_first(ri, rel, list_make1(ri)))
			return list_make1(ri);
	}
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		OssdProgram prog;
		char	   *why;

		if (ri->pseudoconstant)
			continue;
		if (!ossd_qual_pushable(ri->clause, rel->relid))
			continue;
		/* still fits with the others? (columns, instructions) */
		if (!ossd_compile_filter(lappend(list_copy(exprs), ri->clause), rel->relid,
								 &prog, &why))
			continue;
		dev = lappend(dev, ri);
		exprs = lappend(exprs, ri->clause);
	}
	/*
	 * Those the host's quals must precede go back to the host (which keeps
	 * the lowest level of the host's quals as it is: one pass suffices)
	 */
	foreach(lc, dev)
	{
		RestrictInfo *ri = lfirst(lc);

		if (drive_may_run_first(ri, rel, dev))
			secure = lappend(secure, ri);
	}
	return secure;
}

/*
 * Will a scan of rel run once per outer row?  Either the rel is
 * parameterized by other relations of its query level (LATERAL), or its
 * query level is a correlated subquery, or lies within one: outer Vars
 * became Params that an enclosing level supplies (its plan_params, filled
 * while this level is planned), and the subplan is rescanned whenever they
 * change.
 */
bool
ossd_rel_rescanned(PlannerInfo *root, RelOptInfo *rel)
{
	PlannerInfo *r;

	if (!bms_is_empty(rel->lateral_relids))
		return true;
	for (r = root->parent_root; r != NULL; r = r->parent_root)
		if (r->plan_params != NIL)
			return true;
	return false;
}

/*
 * The share of a partial path's rows and CPU one process gets, as
 * costsize.c's (static) get_parallel_divisor computes it: the leader
 * takes part less the more workers it has to feed.
 */
static double
ossd_parallel_divisor(Path *path)
{
	double		divisor = path->parallel_workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * path->parallel_workers);

		if (leader > 0)
			divisor += leader;
	}
	return divisor;
}

/*
 * The drive's part of a scan of rel: one drive thread reads and deforms
 * the all-visible pages at ossd.drive_page_cost a page and
 * ossd.drive_tuple_cost a tuple, plus extra (what else it does with the
 * rows that pass: aggregation), and the drive runs ossd.device_workers
 * threads on it (its default, two, when that is 0).  On a tablespace
 * striped over an array every drive scans its own share at once
 * (ossd_array.c), each with its own threads (ossd.array_scan_drives
 * caps how many the model counts).
 */
Cost
ossd_drive_cost(RelOptInfo *rel, Cost extra)
{
	return ossd_drive_cost_share(rel, 1.0, extra);
}

/* The same for a scan of share of the relation's blocks (ossd_indexblocks.c) */
Cost
ossd_drive_cost_share(RelOptInfo *rel, double share, Cost extra)
{
	double		f = Max(0.0, Min(1.0, rel->allvisfrac));
	double		threads = ossd_device_workers > 0 ? ossd_device_workers : 2;
	int			drives = ossd_tablespace_drives(rel->reltablespace);

	if (ossd_array_scan_drives > 0)
		drives = Min(drives, ossd_array_scan_drives);
	threads *= drives;

	return (f * share * (rel->pages * ossd_drive_page_cost +
						 rel->tuples * ossd_drive_tuple_cost) + extra) / threads;
}

/*
 * The helper calls a drive kernel makes for one tuple that reaches e, in
 * units of ossd.drive_call_cost: each leaf's calls (compiled alone) once
 * the tuple gets to it.  The code tests an AND's arguments in order and
 * stops at the first that fails, an OR's at the first that holds, so an
 * argument is reached by the share of tuples the ones before it let
 * through.  Calls the drive's JIT compiles inline (text, bpchar and
 * numeric equality) count ossd.drive_inline_call_share of one, a LIKE
 * four (ossd_program_call_units).
 */
static double
drive_expr_calls(PlannerInfo *root, Index relid, Expr *e)
{
	OssdProgram prog;
	char	   *why;

	if (is_andclause(e) || is_orclause(e))
	{
		bool		is_and = is_andclause(e);
		double		reach = 1.0;
		double		calls = 0.0;
		ListCell   *lc;

		foreach(lc, ((BoolExpr *) e)->args)
		{
			Expr	   *arg = lfirst(lc);
			Selectivity s = clause_selectivity(root, (Node *) arg, 0, JOIN_INNER, NULL);

			calls += reach * drive_expr_calls(root, relid, arg);
			reach *= is_and ? s : 1.0 - s;
		}
		return calls;
	}
	if (is_notclause(e))
		return drive_expr_calls(root, relid, get_notclausearg(e));
	if (!ossd_compile_filter(list_make1(e), relid, &prog, &why))
		return 0.0;
	return ossd_program_call_units(&prog);
}

/*
 * A kernel's helper calls in units of ossd.drive_call_cost (its static
 * count: every call once).  Measured on SF 1's part and lineitem
 * (docs/cost-model.md): a generic call ~10 ns, an inlined equality ~3 ns,
 * a LIKE with a leading '%' ~45 ns.
 */
double
ossd_program_call_units(const OssdProgram *prog)
{
	return (prog->ncalls - prog->ninline - prog->nlike) +
		prog->ninline * ossd_drive_inline_call_share + prog->nlike * 4.0;
}

/*
 * The drive's cost, per tuple it reads, of the helper calls of a filter
 * of device_quals (RestrictInfos, tested in list order), beyond what
 * ossd.drive_tuple_cost holds (deforming and the compares compiled inline:
 * TPC-H Q6's quals, from which it was measured, make no calls).
 */
Cost
ossd_drive_qual_cost(PlannerInfo *root, RelOptInfo *rel, List *device_quals)
{
	double		reach = 1.0;
	double		calls = 0.0;
	ListCell   *lc;

	foreach(lc, device_quals)
	{
		RestrictInfo *ri = lfirst(lc);

		calls += reach * drive_expr_calls(root, rel->relid, ri->clause);
		reach *= clause_selectivity(root, (Node *) ri, 0, JOIN_INNER, NULL);
	}
	return calls * ossd_drive_call_cost;
}

/*
 * Cost of one scan, which is also what each rescan costs (cost_rescan
 * takes a CustomScan's total cost as is).  Startup: a fixed cost for the
 * channel and one visibility map and buffer mapping probe per page to
 * split the blocks.  Then the drive and the host work at once, the host
 * taking each chunk of rows as the drive sends it, so the scan takes as
 * long as the slower of the two:
 *	- the drive: ossd_drive_cost, plus ossd.drive_transfer_tuple_cost for each
 *	  row it projects and packs into a response;
 *	- the host: a sequential scan of the pages that are not all-visible,
 *	  and for each row the drive sends back ossd.transfer_tuple_cost (the
 *	  channel, unpacking, forming the tuple) and the quals left to it.
 * A parameterized path (LATERAL) also evaluates its join clauses on the
 * host.  A partial path (parallel_workers > 0) divides the host's part
 * among the processes, as cost_seqscan does; the drive's is not divided:
 * its threads are its own, however many processes send it chunks.
 * The probe side of a hash join whose build keys go to the drive
 * (ossd_joinpath.c) sends only join_pass of the rows its quals pass: the
 * drive tests join_keys filters (cpu_operator_cost each) on every row its
 * quals pass, and ships, and the host unpacks, only those that may join.
 * A scan of the blocks an index names (ossd_indexblocks.c) reads share of
 * the pages and their tuples, all the rows that match among them, after
 * the index scan (index_cost, startup); the host reads its own pages of
 * them at random.
 * docs/cost-model.md has the measurements behind the defaults.
 */
static void
ossd_cost(PlannerInfo *root, RelOptInfo *rel, List *device_quals, Path *path,
		  double join_pass, int join_keys, double share, Cost index_cost)
{
	double		spc_seq_page_cost;
	double		spc_random_page_cost;
	double		f = Max(0.0, Min(1.0, rel->allvisfrac));
	double		pages = rel->pages;
	double		tuples = rel->tuples;
	QualCost	qcost;
	QualCost	dcost;
	Selectivity sel;
	double		drive_rows;
	double		sent_rows;
	Cost		startup = ossd_drive_startup_cost;
	Cost		host;
	Cost		drive;

	get_tablespace_page_costs(rel->reltablespace, &spc_random_page_cost,
							  &spc_seq_page_cost);
	cost_qual_eval(&qcost, rel->baserestrictinfo, root);
	cost_qual_eval(&dcost, device_quals, root);
	if (path->param_info)
	{
		QualCost	jcost;

		cost_qual_eval(&jcost, path->param_info->ppi_clauses, root);
		qcost.startup += jcost.startup;
		qcost.per_tuple += jcost.per_tuple;
	}
	/* the block split: per page a visibility map bit and a buffer probe */
	startup += cpu_operator_cost * pages * share + index_cost;
	sel = ossd_device_selectivity(root, rel, extract_actual_clauses(device_quals, false));
	drive_rows = clamp_row_est(tuples * f * sel);
	sent_rows = clamp_row_est(drive_rows * join_pass);

	/* host: a sequential scan of the other pages, the rows from the drive */
	host = (1.0 - f) * share * ((share < 1.0 ? spc_random_page_cost : spc_seq_page_cost) * pages +
								(cpu_tuple_cost + qcost.per_tuple) * tuples);
	host += sent_rows * (ossd_transfer_tuple_cost +
						 Max(0.0, qcost.per_tuple - dcost.per_tuple));
	path->rows = path->param_info ? path->param_info->ppi_rows : rel->rows;
	/* the host's own pages are not filtered: only the drive's share thins */
	path->rows = clamp_row_est(path->rows * ((1.0 - f) + f * join_pass));
	if (path->parallel_workers > 0)
	{
		double		divisor = ossd_parallel_divisor(path);

		host /= divisor;
		path->rows = clamp_row_est(path->rows / divisor);
	}
	host += path->pathtarget->cost.per_tuple * path->rows;
	drive = ossd_drive_cost_share(rel, share, sent_rows * ossd_drive_transfer_tuple_cost +
								  f * share * tuples * ossd_drive_qual_cost(root, rel, device_quals) +
								  (join_keys > 0 ? drive_rows * join_keys * cpu_operator_cost : 0.0));

	path->startup_cost = startup + qcost.startup + path->pathtarget->cost.startup;
	path->total_cost = path->startup_cost + Max(host, drive);
}

static void
ossd_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					  RangeTblEntry *rte)
{
	char	   *uri = NULL;
	List	   *device_quals;
	List	   *index_paths;
	List	   *partial_index_paths = NIL;
	int			workers = 0;
	ListCell   *lc;
	CustomPath *cp;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);
	if (IS_DUMMY_REL(rel))
		return;
	if (!ossd_rel_candidate(root, rel, rte, &uri))
		return;

	device_quals = choose_device_quals(rel);
	if (device_quals == NIL && !ossd_force_offload)
		return;					/* projection alone: leave it to the seq scan */
	if (!ossd_projection_fits(rel, device_quals))
		return;

	/*
	 * A partial path too: under a Gather the participants share the blocks,
	 * chunk by chunk, each sending the drive its own chunks (ossd_exec.c).
	 * Not for a LATERAL scan (a partial path is never parameterized).
	 */
	if (rel->consider_parallel && rel->lateral_relids == NULL)
		workers = compute_parallel_worker(rel, rel->pages, -1,
										  max_parallel_workers_per_gather);

	/* before any path is added: a forced one leaves none of the others */
	index_paths = ossd_index_block_paths(root, rel, device_quals, 0);
	if (workers > 0)
		partial_index_paths = ossd_index_block_paths(root, rel, device_quals, workers);
	cp = ossd_make_scan_path(root, rel, device_quals, 0, 1.0, 0, NIL, 1.0, 0);
	ossd_add_offload_path(root, rel, &cp->path);
	foreach(lc, index_paths)
		add_path(rel, lfirst(lc));

	if (workers > 0)
	{
		cp = ossd_make_scan_path(root, rel, device_quals, workers, 1.0, 0, NIL, 1.0, 0);
		if (ossd_force_offload && !ossd_rel_rescanned(root, rel))
			rel->partial_pathlist = NIL;
		add_partial_path(rel, &cp->path);
		foreach(lc, partial_index_paths)
			add_partial_path(rel, lfirst(lc));
	}
}

/*
 * The OssdScan path of the probe side of a hash join whose build keys the
 * drive will test (join_keys filters passing join_pass of the rows), for
 * ossd_joinpath.c; NULL when rel is not offloaded or its scan runs once
 * per outer row.  parallel_workers > 0 makes it a partial path.  The path
 * is the join's alone, never its relation's: its rows are the join's.
 */
CustomPath *
ossd_join_filtered_path(PlannerInfo *root, RelOptInfo *rel, int parallel_workers,
						double join_pass, int join_keys)
{
	RangeTblEntry *rte = root->simple_rte_array[rel->relid];
	char	   *uri = NULL;
	List	   *device_quals;

	if (IS_DUMMY_REL(rel) || !ossd_rel_candidate(root, rel, rte, &uri) ||
		ossd_rel_rescanned(root, rel))
		return NULL;
	device_quals = choose_device_quals(rel);
	if (!ossd_projection_fits(rel, device_quals))
		return NULL;
	return ossd_make_scan_path(root, rel, device_quals, parallel_workers,
							   join_pass, join_keys, NIL, 1.0, 0);
}

/*
 * The OssdScan path of the blocks an index scan names (ossd_indexblocks.c):
 * index_quals in the index scan's form, about share of the relation's
 * blocks, the index scan costing index_cost.
 */
CustomPath *
ossd_make_index_block_path(PlannerInfo *root, RelOptInfo *rel, List *device_quals,
						   int parallel_workers, Oid indexoid, List *index_quals,
						   double share, Cost index_cost)
{
	return ossd_make_scan_path(root, rel, device_quals, parallel_workers, 1.0, 0,
							   list_make2(makeInteger((int) indexoid), index_quals),
							   share, index_cost);
}

/*
 * The OssdScan path of a relation; parallel_workers > 0 makes it a partial
 * path whose block chunks the processes of a parallel plan share.
 */
static CustomPath *
ossd_make_scan_path(PlannerInfo *root, RelOptInfo *rel, List *device_quals,
					int parallel_workers, double join_pass, int join_keys,
					List *index_blocks, double share, Cost index_cost)
{
	CustomPath *cp;

	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;

	/*
	 * Lateral references make the scan parameterized by the rels they come
	 * from, as a seq scan's path is: create_scan_plan then adds the join
	 * clauses and turns the outer Vars and PlaceHolderVars of the target
	 * list and quals into nestloop Params.  Unparameterized, an outer
	 * column in the target list would read a column of this relation.
	 */
	cp->path.param_info = get_baserel_parampathinfo(root, rel, rel->lateral_relids);
	cp->path.parallel_aware = parallel_workers > 0;
	cp->path.parallel_safe = rel->consider_parallel;
	cp->path.parallel_workers = parallel_workers;
	cp->path.pathkeys = NIL;
	cp->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;	/* ossd_exec.c */
	cp->custom_paths = NIL;
	cp->custom_private = list_make3(device_quals, makeInteger(parallel_workers > 0),
									index_blocks);
	cp->methods = &ossd_path_methods;
	ossd_cost(root, rel, device_quals, &cp->path, join_pass, join_keys, share,
			  index_cost);
	return cp;
}

/*
 * add_path for an offloaded path; under ossd.force_offload it becomes the
 * relation's only unparameterized path (the debug switch that makes tests
 * run the drive), at its real cost, so that EXPLAIN shows it and the joins
 * above still weigh it.  Kept beside it: the parameterized paths (an index
 * scan per outer row of a nested loop), and every path of a scan that runs
 * once per outer row (ossd_rel_rescanned), where the offloaded path
 * competes at its real cost: forcing it would trade an index probe per
 * outer row for a drive scan of the whole relation per outer row (TPC-H
 * Q21's anti and semi joins then never finish).
 */
void
ossd_add_offload_path(PlannerInfo *root, RelOptInfo *rel, Path *path)
{
	if (ossd_force_offload && !ossd_rel_rescanned(root, rel))
	{
		List	   *kept = NIL;
		ListCell   *lc;

		foreach(lc, rel->pathlist)
		{
			Path	   *p = lfirst(lc);

			if (p->param_info != NULL)
				kept = lappend(kept, p);
		}
		rel->pathlist = kept;
		rel->partial_pathlist = NIL;
	}
	add_path(rel, path);
}

/*
 * The payload of an optional element of an OssdScan's custom_private (a
 * List of a String tag and the payload, pg_ossd.h), or NIL.
 */
List *
ossd_private_element(List *custom_private, const char *tag)
{
	ListCell   *lc;

	foreach(lc, custom_private)
	{
		Node	   *n = lfirst(lc);

		if (n && IsA(n, List) && list_length((List *) n) == 2 &&
			linitial((List *) n) && IsA(linitial((List *) n), String) &&
			strcmp(strVal(linitial((List *) n)), tag) == 0)
			return (List *) lsecond((List *) n);
	}
	return NIL;
}

/*
 * custom_private with the OSSD_FEATURE_* bits its kernels need of the drive
 * (OSSD_PRIV_FEATURES_TAG; nothing added for none).  The planner does not
 * talk to the drive: the executor compares them with the drive's
 * announced bits before it sends a scan (ossd_exec.c).
 */
List *
ossd_private_add_features(List *custom_private, uint64 features)
{
	if (features == 0)
		return custom_private;
	/* an Integer holds 31 bits; the bits in use are far below */
	Assert(features <= (uint64) PG_INT32_MAX);
	return lappend(custom_private,
				   list_make2(makeString(OSSD_PRIV_FEATURES_TAG),
							  list_make1(makeInteger((int) features))));
}

/* The OSSD_FEATURE_* bits an OssdScan's kernels need, 0 for none. */
uint64
ossd_private_features(List *custom_private)
{
	List	   *f = ossd_private_element(custom_private, OSSD_PRIV_FEATURES_TAG);

	return f == NIL ? 0 : (uint64) intVal(linitial(f));
}

static List *
attnos_of(List *exprs, Index relid)
{
	Bitmapset  *attrs = NULL;
	List	   *res = NIL;
	int			x = -1;

	pull_varattnos((Node *) exprs, relid, &attrs);
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		int			a = x + FirstLowInvalidHeapAttributeNumber;

		if (a > 0)
			res = lappend_int(res, a);
	}
	return res;
}

static Plan *
ossd_plan_custom_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *device_rinfos = linitial(best_path->custom_private);
	int			partial = intVal(lsecond(best_path->custom_private));
	List	   *device_exprs = NIL;
	List	   *host_exprs = NIL;
	ListCell   *lc;
	OssdProgram prog;
	char	   *why = NULL;
	Const	   *progc;
	char	   *kernel = NULL;
	List	   *kconsts = NIL;

	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst(lc);

		if (ri->pseudoconstant)
			continue;
		if (list_member_ptr(device_rinfos, ri))
			device_exprs = lappend(device_exprs, ri->clause);
		else
			host_exprs = lappend(host_exprs, ri->clause);
	}

	memset(&prog, 0, sizeof(prog));
	if (list_length(device_exprs) == 1 &&
		(kernel = ossd_kernel_call(linitial(device_exprs), rel->relid, &prog.bind, &kconsts)) != NULL)
		progc = makeNullConst(BYTEAOID, -1, InvalidOid);
	else if (device_exprs != NIL)
	{
		if (!ossd_compile_filter(device_exprs, rel->relid, &prog, &why))
			elog(ERROR, "pg_ossd: quals accepted at path time failed to compile: %s", why);
		progc = makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(prog.image),
						  false, false);
	}
	else
		progc = makeNullConst(BYTEAOID, -1, InvalidOid);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = host_exprs;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = device_exprs;
	cscan->custom_scan_tlist = NIL;
	cscan->custom_relids = NULL;
	cscan->methods = &ossd_scan_plan_methods;
	cscan->custom_private = list_make5(progc,
									   prog.bind,
									   attnos_of(list_concat(list_copy(tlist), host_exprs),
												 rel->relid),
									   makeString(kernel ? kernel : ""),
									   NIL);
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(prog.ninsns));
	cscan->custom_private = lappend(cscan->custom_private, kconsts);
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(partial));
	cscan->custom_private = ossd_private_add_features(cscan->custom_private, prog.features);
	if (lthird(best_path->custom_private) != NIL)
		cscan->custom_private = lappend(cscan->custom_private,
										list_make2(makeString(OSSD_PRIV_INDEX_BLOCKS_TAG),
												   lthird(best_path->custom_private)));
	return &cscan->scan.plan;
}

/*
 * Mark the OssdScans below a Gather or Gather Merge parallel-aware: they may
 * run in a worker (a Parallel Append gives each child to one process), and
 * parallel-aware is what gets a CustomScan its share of the query's shared
 * memory, through which the workers' statistics reach the leader's EXPLAIN
 * ANALYZE (ossd_exec.c).  Such a scan (from a non-partial path) is still
 * run whole by one process; a partial path's scan, parallel-aware from its
 * path, shares its blocks among the processes (OSSD_PRIV_PARTIAL).
 */
static void mark_parallel_scans(PlannedStmt *stmt, Plan *plan, bool under_gather);

/*
 * A SubPlan in an expression of a node below a Gather runs in the workers
 * too (a hashed NOT IN in a parallel scan's filter): its OssdScans need
 * the shared memory as well.
 */
typedef struct SubPlanMarkContext
{
	PlannedStmt *stmt;
	Bitmapset  *seen;
} SubPlanMarkContext;

static bool
mark_subplans_walker(Node *node, SubPlanMarkContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubPlan))
	{
		SubPlan    *sp = (SubPlan *) node;

		if (!bms_is_member(sp->plan_id, cxt->seen))
		{
			cxt->seen = bms_add_member(cxt->seen, sp->plan_id);
			mark_parallel_scans(cxt->stmt, list_nth(cxt->stmt->subplans, sp->plan_id - 1), true);
		}
	}
	return expression_tree_walker(node, mark_subplans_walker, (void *) cxt);
}

static void
mark_subplans_of(PlannedStmt *stmt, Plan *plan)
{
	SubPlanMarkContext cxt = {stmt, NULL};

	mark_subplans_walker((Node *) plan->targetlist, &cxt);
	mark_subplans_walker((Node *) plan->qual, &cxt);
	switch (nodeTag(plan))
	{
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			mark_subplans_walker((Node *) ((Join *) plan)->joinqual, &cxt);
			break;
		case T_CustomScan:
			mark_subplans_walker((Node *) ((CustomScan *) plan)->custom_exprs, &cxt);
			break;
		default:
			break;
	}
}

static void
mark_parallel_scans(PlannedStmt *stmt, Plan *plan, bool under_gather)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	/* a Gather's own target list and qual run in the leader */
	if (under_gather)
		mark_subplans_of(stmt, plan);
	if (IsA(plan, Gather) || IsA(plan, GatherMerge))
		under_gather = true;
	switch (nodeTag(plan))
	{
		case T_CustomScan:
			if (under_gather && ((CustomScan *) plan)->methods == &ossd_scan_plan_methods)
				plan->parallel_aware = true;
			foreach(lc, ((CustomScan *) plan)->custom_plans)
				mark_parallel_scans(stmt, lfirst(lc), under_gather);
			break;
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				mark_parallel_scans(stmt, lfirst(lc), under_gather);
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				mark_parallel_scans(stmt, lfirst(lc), under_gather);
			break;
		case T_SubqueryScan:
			mark_parallel_scans(stmt, ((SubqueryScan *) plan)->subplan, under_gather);
			break;
		default:
			break;
	}
	mark_parallel_scans(stmt, plan->lefttree, under_gather);
	mark_parallel_scans(stmt, plan->righttree, under_gather);
}

static PlannedStmt *
ossd_planner(Query *parse, const char *query_string, int cursorOptions,
			 ParamListInfo boundParams)
{
	PlannedStmt *stmt;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	if (stmt->parallelModeNeeded)
		mark_parallel_scans(stmt, stmt->planTree, false);
	ossd_joinfilter_plan(stmt);
	return stmt;
}

void
ossd_planner_init(void)
{
	RegisterCustomScanMethods(&ossd_scan_plan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = ossd_set_rel_pathlist;
	prev_planner_hook = planner_hook;
	planner_hook = ossd_planner;
}
