/*-------------------------------------------------------------------------
 *
 * ossd_exec.h
 *		  Executor state of the pg_ossd CustomScan (shared by ossd_exec.c,
 *		  ossd_upper.c and ossd_explain.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef OSSD_EXEC_H
#define OSSD_EXEC_H

#include "postgres.h"

#include <pthread.h>

#include "access/htup_details.h"
#include "nodes/execnodes.h"
#include "storage/buf.h"
#include "utils/rel.h"

#include "libossd.h"

/*
 * Chunks queued per stream (about 64 KiB each), and at most in all: enough
 * that a scan started before the hash table it probes is built (Hash Join
 * fetches its first outer row first) runs to its end meanwhile -- Q14's
 * 75,004 lineitem rows are ~3 MB: with 8 chunks the drive stalled after
 * half a MB and Q14 at 0 workers took 210 ms, with 32 162 ms -- and a
 * bounded cost (2 MB a stream) where the host is slower than the drive.
 */
#define OSSD_QUEUE_PER_STREAM 32
#define OSSD_QUEUE_CAP 128

/*
 * The per-drive statistics of the processes of a parallel plan, in its
 * shared memory (ossd_exec.c's OssdSharedInstr; ossd_array.c adds to them).
 */
#define OSSD_INSTR_MAX_DRIVES 64
typedef struct OssdArrayInstr
{
	int			ndrives;		/* 0: no process scanned an array */
	uint64		blocks[OSSD_INSTR_MAX_DRIVES];
	uint64		rows[OSSD_INSTR_MAX_DRIVES];
	uint64		bytes[OSSD_INSTR_MAX_DRIVES];
} OssdArrayInstr;

/*
 * A join filter's statistics (ossd_joinfilter.c), added up over the
 * processes of a parallel scan as the other counters are.
 */
typedef struct OssdJoinFilterInstr
{
	uint64		builds;			/* filters made from a hash table */
	uint64		sent;			/* builds that sent filters */
	uint64		keys_sent;		/* distinct keys, summed over keys and builds */
	uint64		bytes_sent;
	uint64		dropped;		/* rows the drive dropped */
	bool		used_exact;
	bool		used_bloom;
	bool		spilled;		/* a build read batch files too */
	char		skipped[64];	/* why a build sent nothing, or "" */
} OssdJoinFilterInstr;

/*
 * One stream of a scan: one drive's SCAN, read by its own thread (a
 * one-drive scan's first small chunks by the backend, read_inline)
 */
typedef struct OssdStreamReader
{
	struct OssdStreamCtx *ctx;
	ossd_stream *stream;
	int			drive;			/* index in the array (0 on one drive) */
	pthread_t	thread;
	bool		thread_started;
} OssdStreamReader;

/*
 * What the reader threads (one per drive scanned) and the backend share.
 * malloc'd: the threads must never touch palloc'd memory or call into
 * PostgreSQL.  The chunks of every drive go to one queue, each with the
 * index of its drive.
 */
typedef struct OssdStreamCtx
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	Ossd__Response *q[OSSD_QUEUE_CAP];
	int			qdrive[OSSD_QUEUE_CAP];
	int			head;
	int			count;
	int			qcap;			/* queue bound: OSSD_QUEUE_PER_STREAM each */
	bool		cancel;			/* backend -> threads: stop */
	bool		done;			/* threads -> backend: no more chunks */
	int			nlive;			/* streams not at their end */
	bool		failed;
	int			status;
	char		errmsg[600];
	uint64		bytes;			/* packed response bytes received */
	uint64		chunks;
	bool		read_inline;	/* the backend reads chunks itself */
	int			nreaders;
	OssdStreamReader readers[FLEXIBLE_ARRAY_MEMBER];
} OssdStreamCtx;

/*
 * The array of drives a striped relation is on (ossd_array.c), with the
 * statistics of each drive for EXPLAIN ANALYZE.  NULL in OssdScanState for
 * a relation on one drive.
 */
typedef struct OssdArray
{
	int			ndrives;
	uint32		unit_blocks;	/* stripe unit in heap blocks */
	bool		parity;			/* RAID-5: a parity unit in every row */
	uint64		out_mask;		/* RAID-5 drives out of the array */
	char	  **uris;			/* in array order; uris[0] is ss->uri */
	uint64	   *blocks;			/* heap blocks sent to each drive */
	uint64	   *rows;			/* rows each drive returned */
	uint64	   *bytes;			/* packed response bytes from each drive */
} OssdArray;

/* Aggregate-mode hooks (ossd_upper.c) */
struct OssdAggExec;

typedef struct OssdScanState
{
	CustomScanState css;

	/* from the plan */
	bytea	   *program;
	List	   *bind;
	List	   *consts;			/* ossd_filter's constant arguments */
	List	   *proj;
	char	   *kernel;
	int			ninsns;
	List	   *aggpriv;
	int			nproj;
	AttrNumber *proj_attnos;
	bool	   *proj_byval;
	void	   *vals;			/* struct ossd_value_view[nproj] */
	AttrNumber	max_attr;		/* highest attribute read on the host */
	ExprState  *device_qual;	/* the pushed quals, for host-side tuples */
	List	   *device_exprs;
	bool		partial;		/* shares its blocks with the other processes */

	/* run state */
	bool		started;
	bool		finished;
	BufferAccessStrategy strategy;
	BlockNumber nblocks;
	bool		drive_ok;		/* the snapshot and relation allow the drive */
	uint8	   *dirty;			/* dirty buffers by block, or NULL */
	List	   *index_blocks;	/* the plan's index to take blocks from, or NIL */
	uint8	   *block_mask;		/* the blocks it named, or NULL: all blocks */
	struct OssdIndexTids *index_tids;	/* and the tuples on each, or NULL */
	BlockNumber mask_nblocks;	/* the relation's blocks when it named them */
	BlockNumber *host_blocks;
	int			nhost_blocks;
	int			host_cap;
	int			host_next;
	Buffer		cur_buf;
	BlockNumber cur_blk;
	OffsetNumber vis[MaxHeapTuplesPerPage];
	int			nvis;
	int			vis_next;
	HeapTupleData htup;

	char	   *uri;
	OssdArray  *array;			/* the drives of a striped relation, or NULL */
	int			cur_drive;		/* the drive ss->cur came from */
	OssdStreamCtx *sc;
	Ossd__Response *cur;
	size_t		row_pos;
	size_t		hrow_pos;
	bool		cur_rows_done;

	TupleTableSlot *rel_slot;	/* virtual, relation's rowtype */
	TupleTableSlot *buf_slot;	/* BufferHeapTuple: host pages */
	TupleTableSlot *tup_slot;	/* HeapTuple: host rows from the drive */

	/* aggregation (NULL in rows mode) */
	struct OssdAggExec *agg;

	/* join filter from the hash join above (ossd_joinfilter.c), or NULL */
	struct OssdJoinFilter *jf;
	/*
	 * Backward fetches (a cursor that may scroll: EXEC_FLAG_BACKWARD): the
	 * rows returned so far, read again in either direction, as nodeMaterial
	 * does.  NULL when the scan only runs forward.
	 */
	struct Tuplestorestate *back_store;
	uint64		stored_rescans; /* rescans read from back_store */
	bool		rescan_storable;	/* no volatile qual or output */
	bool		back_eof_underlying;	/* the scan itself has ended */
	TupleTableSlot *back_kept;	/* MinimalTuple: a stored row + its TID */
	TupleTableSlot *back_slot;	/* virtual: the row returned from the store */

	/* statistics (EXPLAIN ANALYZE) */
	uint64		blocks_total;
	uint64		blocks_drive;	/* sent to the drive */
	uint64		blocks_host;	/* scanned on the host from the start */
	uint64		blocks_written_out; /* dirty all-visible blocks written out
									 * for the drive */
	uint64		blocks_back;	/* handed back by the drive */
	uint64		blocks_named;	/* by the index (index_blocks), over loops */
	uint64		tuples_named;	/* on those sent to the drive with a list */
	uint64		rows_drive;
	uint64		host_rows_back;
	uint64		groups_drive;
	uint64		dev_blocks_scanned;
	uint64		dev_tuples_seen;
	uint64		dev_tuples_visible;
	uint64		dev_tuples_matched;
	uint64		dev_bytes_read;
	uint64		dev_ns;
	uint64		channel_bytes;
	uint64		channel_bytes_done; /* of the loops before this one */
	uint64		slot_fallbacks; /* scans run on the host: no channel slot */
	uint64		feature_fallbacks;	/* scans run on the host: the drive
									 * lacks a feature the kernels need */
	uint64		features;		/* OSSD_FEATURE_* the plan's kernels need */
	uint64		missing_features;	/* of the last drive refused for them */
	uint64		chunks_claimed; /* of a partial scan, by this process */
	uint32		snapshot_bound;
	bool		jit;			/* asks the drive for the JIT (ossd_scan_wants_jit) */
	char		kernel_mode_used[32];

	/* parallel query: the workers' statistics (ossd_exec.c) */
	struct OssdSharedInstr *shared;
	bool		instr_merged;
} OssdScanState;

/* ossd_exec.c, for ossd_upper.c */
extern bool ossd_scan_wants_jit(Relation rel);
extern void ossd_scan_begin(OssdScanState *ss, EState *estate);
/* Next tuple of the underlying scan in rows mode (scan slot), or NULL */
extern TupleTableSlot *ossd_scan_next_row(OssdScanState *ss);
extern void ossd_scan_stop(OssdScanState *ss);

/* ossd_upper.c: device-side partial aggregation, host-side final merge */
extern void ossd_agg_begin(OssdScanState *ss, EState *estate);
extern void ossd_agg_fill_request(OssdScanState *ss, Ossd__Scan *sc);
extern void ossd_agg_consume_groups(OssdScanState *ss, Ossd__ScanChunk *c);
extern TupleTableSlot *ossd_agg_next(OssdScanState *ss);
extern void ossd_agg_rescan(OssdScanState *ss);
extern void ossd_agg_explain(OssdScanState *ss, List *dpcontext, struct ExplainState *es);

/* ossd_array.c */
struct OssdSegment;
extern OssdArray *ossd_segment_array(Relation rel, int segno,
									  const struct OssdSegment *seg);
extern void ossd_array_target(const OssdArray *a, int drive, Ossd__ScanTarget *t);
extern bool ossd_array_block_out(const OssdArray *a, uint32 segblk);
extern uint64 ossd_array_drive_blocks(const OssdArray *a, int drive,
									  Ossd__BlockRange *const *ranges, size_t nranges);
extern void ossd_array_segment_capability(Relation rel, int segno, int drive, ossd_t *o);
extern void ossd_array_explain(OssdScanState *ss, struct ExplainState *es);
extern void ossd_array_instr_put(OssdScanState *ss, OssdArrayInstr *ai);
extern void ossd_array_instr_prepare(OssdScanState *ss, OssdArrayInstr *ai);
extern void ossd_array_instr_take(OssdScanState *ss, OssdArrayInstr *ai);

/* ossd_joinfilter.c */
extern void ossd_joinfilter_fill(OssdScanState *ss, Ossd__Scan *sc, uint64 feature_bits);
extern void ossd_joinfilter_count(OssdScanState *ss, uint64 dropped);
extern void ossd_joinfilter_explain(OssdScanState *ss, struct ExplainState *es);
extern void ossd_joinfilter_rescan(OssdScanState *ss);
extern void ossd_joinfilter_instr_put(OssdScanState *ss, OssdJoinFilterInstr *ji);
extern void ossd_joinfilter_instr_take(OssdScanState *ss, OssdJoinFilterInstr *ji);

#endif							/* OSSD_EXEC_H */
