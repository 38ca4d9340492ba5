/*-------------------------------------------------------------------------
 *
 * pg_ossd.h
 *		  Shared declarations of pg_ossd, the PostgreSQL extension that
 *		  offloads scans, filters, projection and partial aggregation of
 *		  tables stored on an ossdfs tablespace to the object SSD.
 *
 * One concern per file:
 *	pg_ossd.c		_PG_init, every GUC
 *	ossd_relation.c	tablespace detection, segment files -> objects, device
 *					connections
 *	ossd_array.c	tablespaces striped over an array of drives: layout,
 *					per-drive geometry and capabilities, member drives
 *	ossd_pushdown.c	the whitelist: which expressions the drive may evaluate
 *	ossd_qualgen.c	compiles whitelisted quals to eBPF raw images
 *	ossd_planner.c	set_rel_pathlist_hook, CustomScan path and plan, costing
 *	ossd_upper.c	create_upper_paths_hook: device partial aggregation
 *	ossd_exec.c		CustomScan executor (MVCC rule, host blocks, stream)
 *	ossd_explain.c	EXPLAIN output
 *	ossd_joinfilter.c	join filters: a hash join's build keys sent to the
 *					drive scan of its probe side
 *	ossd_joinpath.c	set_join_pathlist_hook: hash joins priced with the
 *					probe side's join filter
 *	ossd_indexblocks.c	drive scans of the blocks an index names (the
 *					offloaded bitmap heap scan)
 *	ossd_sqlapi.c	SQL-callable functions
 *
 *-------------------------------------------------------------------------
 */
#ifndef PG_OSSD_H
#define PG_OSSD_H

#include "postgres.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"
#include "utils/rel.h"

/* GUCs (pg_ossd.c) */
extern bool ossd_enabled;
extern bool ossd_aggregate_pushdown;
extern int	ossd_kernel_mode;
extern int	ossd_jit_above_tuples;
extern int	ossd_min_relation_pages;
extern double ossd_drive_startup_cost;
extern double ossd_drive_page_cost;
extern double ossd_drive_tuple_cost;
extern double ossd_transfer_tuple_cost;
extern double ossd_drive_transfer_tuple_cost;
extern double ossd_drive_call_cost;
extern double ossd_drive_inline_call_share;
extern bool ossd_force_offload;
extern char *ossd_default_device;
extern char *ossd_devices_guc;
extern int	ossd_timeout_ms;
extern int	ossd_device_workers;
extern int	ossd_array_scan_drives;
extern int	ossd_parallel_chunk_blocks;
extern bool ossd_join_filter;
extern bool ossd_index_blocks;

typedef enum OssdKernelMode
{
	OSSD_KMODE_JIT = 0,
	OSSD_KMODE_INTERPRETER = 1
} OssdKernelMode;

/* ossd_relation.c */
struct ossd;
extern bool ossd_tablespace_device(Oid spcoid, char **uri);
extern int	ossd_tablespace_drives(Oid spcoid);
extern bool ossd_relation_on_drive(Relation rel, char **uri);

/* What a scan start needs of one segment file (ossd_segment_lookup). */
#define OSSD_SEGMENT_MAX_DRIVES 64	/* OSSD_ARRAY_MAX_DRIVES */
#define OSSD_SCAN_XATTR_MAX 16383	/* user.ossd.scan, as ossdfs serves it */
typedef struct OssdSegment
{
	uint64		pid;
	uint64		oid;
	uint64		size;			/* of the file */
	char	   *uri;			/* user.ossd.device: drive 0's */
	char	   *layout;			/* user.ossd.layout, or NULL */
	bool		caps_known;		/* caps[] came with the lookup */
	char	   *caps[OSSD_SEGMENT_MAX_DRIVES];	/* capability text per drive,
												 * NULL: none granted */
} OssdSegment;
extern void ossd_segment_path(Relation rel, int segno, char *path, size_t cap);
extern bool ossd_segment_lookup(Relation rel, int segno, OssdSegment *seg);
extern uint64 ossd_add_capability_text_quietly(struct ossd *o, const char *text);
extern struct ossd *ossd_get_connection(const char *uri);
extern struct ossd *ossd_try_connection(const char *uri, bool *busy);
extern void ossd_segment_capability(Relation rel, int segno, struct ossd *o);
extern uint64 ossd_add_kernel_capability(struct ossd *o, const char *uri);
extern uint64 ossd_add_capability_from(struct ossd *o, const char *path, const char *name);
extern void ossd_forget_connection(const char *uri);
extern int	ossd_wait_interrupted(void *arg);
extern __thread volatile bool *ossd_thread_abandon_wait;
extern void ossd_interrupts_after_wait(int status);
extern List *ossd_known_devices(void);
extern bool ossd_device_uri_allowed(const char *uri, const char **why);

/* ossd_array.c (the rest in ossd_exec.h) */
extern List *ossd_tablespace_members(Oid spcoid);
extern uint64 ossd_array_kernel_capability(struct ossd *o, const char *uri,
										   const char *path);

/* ossd_pushdown.c */
typedef enum OssdOpClass
{
	OSSD_OPC_NONE = 0,
	OSSD_OPC_INT,				/* int2/4/8, bool, oid: signed 64-bit compare */
	OSSD_OPC_DATE,				/* date vs date */
	OSSD_OPC_TS,				/* timestamp(tz) vs the same */
	OSSD_OPC_DATE_TS,			/* date vs timestamp (either side) */
	OSSD_OPC_FLOAT,
	OSSD_OPC_NUMERIC,
	OSSD_OPC_TEXT,
	OSSD_OPC_BPCHAR,
	OSSD_OPC_LIKE,
	OSSD_OPC_NOTLIKE
} OssdOpClass;

extern bool ossd_collation_is_bytewise(Oid collid);

/* strategy: BTLessStrategyNumber..BTGreaterStrategyNumber, or 6 for <> */
#define OSSD_STRAT_NE 6
extern OssdOpClass ossd_classify_operator(Oid opno, Oid inputcollid,
										  Oid ltype, Oid rtype, int *strategy);
extern bool ossd_type_supported(Oid typid);
extern bool ossd_qual_pushable(Expr *expr, Index relid);
extern Node *ossd_strip_relabel(Node *n);
extern char *ossd_kernel_call(Expr *expr, Index relid, List **attnos, List **consts);

/* ossd_sqlapi.c */
extern void ossd_check_kernel_call(Oid filter_fn, const char *name, int given);

/* ossd_qualgen.c */
typedef struct OssdProgram
{
	bytea	   *image;			/* raw image (OSSD_RAW_MAGIC) */
	List	   *bind;			/* Integer attnos: ctx->col[i] */
	int			ninsns;
	int			ncalls;			/* helper calls in the code */
	int			ninline;		/* of which the drive's JIT compiles inline */
	int			nlike;			/* of which LIKE matches */
	uint64		features;		/* OSSD_FEATURE_* bits the drive needs to
								 * run it (ossd_frame.h) */
} OssdProgram;
extern bool ossd_compile_map(List *exprs, Index relid, List *prebind,
							 OssdProgram *out, char **why);
extern bool ossd_map_scalar_type(Oid t);
extern bool ossd_compile_filter(List *quals, Index relid, OssdProgram *out,
								char **why);

/* ossd_planner.c */
extern void ossd_planner_init(void);
extern void ossd_add_offload_path(PlannerInfo *root, RelOptInfo *rel,
								  Path *path);
extern bool ossd_rel_rescanned(PlannerInfo *root, RelOptInfo *rel);
extern List *ossd_private_element(List *custom_private, const char *tag);
extern List *ossd_private_add_features(List *custom_private, uint64 features);
extern uint64 ossd_private_features(List *custom_private);
extern CustomPath *ossd_join_filtered_path(PlannerInfo *root, RelOptInfo *rel,
										   int parallel_workers, double join_pass,
										   int join_keys);
extern bool ossd_projection_fits(RelOptInfo *rel, List *dev);
extern Cost ossd_drive_cost(RelOptInfo *rel, Cost extra);
extern Cost ossd_drive_cost_share(RelOptInfo *rel, double share, Cost extra);
extern Cost ossd_drive_qual_cost(PlannerInfo *root, RelOptInfo *rel, List *device_quals);
extern double ossd_program_call_units(const OssdProgram *prog);
extern CustomPath *ossd_make_index_block_path(PlannerInfo *root, RelOptInfo *rel,
											  List *device_quals, int parallel_workers,
											  Oid indexoid, List *index_quals,
											  double share, Cost index_cost);
extern CustomScanMethods ossd_scan_plan_methods;
extern bool ossd_rel_candidate(PlannerInfo *root, RelOptInfo *rel,
							   RangeTblEntry *rte, char **uri);

/* ossd_upper.c */
extern void ossd_upper_init(void);

/* ossd_exec.c */
extern Node *ossd_create_scan_state(CustomScan *cscan);
extern void ossd_exec_init(void);

/* ossd_explain.c */
struct OssdScanState;
extern void ossd_explain_scan(CustomScanState *node, List *ancestors,
							  struct ExplainState *es);

/*
 * custom_private of the CustomScan plan, by position.
 */
#define OSSD_PRIV_PROGRAM	0		/* Const bytea or NULL Const */
#define OSSD_PRIV_BIND		1		/* IntList of attnos */
#define OSSD_PRIV_PROJ		2		/* IntList of attnos the device returns */
#define OSSD_PRIV_KERNEL	3		/* String: deployed kernel name or "" */
#define OSSD_PRIV_AGG		4		/* List: aggregate spec (ossd_upper.c) or NIL */
#define OSSD_PRIV_NINSNS	5		/* Integer */
#define OSSD_PRIV_CONSTS	6		/* List of Const: ossd_filter's constant
									 * arguments (OSSD_PRIV_BIND has 0 there) */
#define OSSD_PRIV_PARTIAL	7		/* Integer: 1 when the participants of a
									 * parallel plan share the scan's blocks */
#define OSSD_PRIV_COUNT		8
/*
 * Optional elements after those, found by their tag (a List of a String
 * tag and the payload), so that any number may be added in any order:
 */
#define OSSD_PRIV_INDEX_BLOCKS_TAG "ossd_index_blocks"	/* ossd_indexblocks.c:
															 * List of Integer
															 * index oid, List
															 * of index quals */
#define OSSD_PRIV_JOIN_FILTER_TAG "ossd_join_filter"	/* ossd_joinfilter.c: List
														 * of IntList (attnum,
														 * key kind, hash clause,
														 * inner type) */
#define OSSD_PRIV_FEATURES_TAG "ossd_features"	/* List of one Integer: the
												 * OSSD_FEATURE_* bits its
												 * kernels need of the drive
												 * (absent: none) */

/* ossd_joinfilter.c */
struct PlannedStmt;
extern void ossd_joinfilter_plan(struct PlannedStmt *stmt);
extern void ossd_joinfilter_init(void);
extern int	ossd_joinfilter_clause_kind(OpExpr *op, Var *col, Node *inner);
extern double ossd_joinfilter_false_pass(double tuples, double distinct);

/* ossd_selectivity.c */
extern Selectivity ossd_device_selectivity(PlannerInfo *root, RelOptInfo *rel,
										   List *clauses);

/* ossd_indexblocks.c */
extern List *ossd_index_block_paths(PlannerInfo *root, RelOptInfo *rel,
									List *device_quals, int parallel_workers);
struct OssdScanState;

/*
 * The tuples an index named, by block (the exact pages of its bitmap):
 * blocks[i] ascending, its line pointers offsets[start[i] .. + count[i]]
 * ascending; count 0 for a lossy page (every tuple).
 */
typedef struct OssdIndexTids
{
	int			nblocks;
	BlockNumber *blocks;
	uint32	   *start;
	uint16	   *count;
	uint16	   *offsets;
} OssdIndexTids;

extern uint8 *ossd_index_block_mask(struct OssdScanState *ss, List *spec,
									BlockNumber nblocks, OssdIndexTids **tids);
extern int	ossd_index_tids_append(const OssdIndexTids *tids, BlockNumber blk,
								   StringInfo buf);
extern void ossd_index_tids_free(OssdIndexTids *tids);
extern List *ossd_plan_index_blocks(List *custom_private);

/* ossd_joinpath.c */
extern void ossd_joinpath_init(void);

#endif							/* PG_OSSD_H */
