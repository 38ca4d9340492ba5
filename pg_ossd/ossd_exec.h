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

#include "libossd.h"

#define OSSD_QUEUE_CAP 8

/*
 * What the reader thread and the backend share.  malloc'd: the thread must
 * never touch palloc'd memory or call into PostgreSQL.
 */
typedef struct OssdStreamCtx
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	ossd_stream *stream;
	Ossd__Response *q[OSSD_QUEUE_CAP];
	int			head;
	int			count;
	bool		cancel;			/* backend -> thread: stop */
	bool		done;			/* thread -> backend: no more chunks */
	bool		exited;
	bool		failed;
	int			status;
	char		errmsg[600];
	uint64		bytes;			/* packed response bytes received */
	uint64		chunks;
	pthread_t	thread;
	bool		thread_started;
} OssdStreamCtx;

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
	uint64		chunks_claimed; /* of a partial scan, by this process */
	uint32		snapshot_bound;
	char		kernel_mode_used[32];

	/* parallel query: the workers' statistics (ossd_exec.c) */
	struct OssdSharedInstr *shared;
	bool		instr_merged;
} OssdScanState;

/* ossd_exec.c, for ossd_upper.c */
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

/* ossd_joinfilter.c */
extern void ossd_joinfilter_fill(OssdScanState *ss, Ossd__Scan *sc, uint64 feature_bits);
extern void ossd_joinfilter_count(OssdScanState *ss, uint64 dropped);
extern void ossd_joinfilter_explain(OssdScanState *ss, struct ExplainState *es);

#endif							/* OSSD_EXEC_H */
