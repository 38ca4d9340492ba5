/*-------------------------------------------------------------------------
 *
 * ossd_exec.c
 *		  The CustomScan executor: splits the relation's blocks between the
 *		  drive and the host (MVCC rule of DESIGN.md), streams the drive's
 *		  result chunks into tuple slots and scans the other blocks on the
 *		  host through shared buffers, concurrently.
 *
 * MVCC rule.  The executor's snapshot is taken before the scan starts; only
 * then, per block, the visibility map is read and the buffer mapping table
 * is probed (for a large relation, one pass over the buffer headers
 * instead): a block goes to the drive only when it is all-visible and not
 * dirty (nor being written) in shared buffers.  An all-visible block that
 * is dirty (VACUUM has just set its bits, say) is first written out, and
 * goes to the drive if it is then clean: from then on it is like any clean
 * block checked after the snapshot.  Anything changed on such a
 * page afterwards was written by a transaction our snapshot cannot see, so
 * the drive counts a tuple only when its xmin precedes a bound B and
 * ignores xmax.  B is the older of the snapshot's xmin and the relation's
 * current removal horizon: VACUUM marks a page all-visible using its
 * database's horizon, which can be newer than a snapshot xmin held back by
 * a transaction of another database, so the snapshot xmin alone could hide
 * committed rows; the horizon cannot, and it is never newer than any
 * transaction that could still write to the relation invisibly to us.
 *
 * Everything else -- blocks not all-visible or dirty, blocks the drive hands
 * back, rows it hands back (TOAST, overflow, kernel TO_HOST) -- is decided
 * by PostgreSQL: blocks with HeapTupleSatisfiesVisibility, rows with the
 * pushed quals re-evaluated by the executor.
 *
 * The drive's stream is read by a helper thread (no PostgreSQL calls in it,
 * all signals blocked) into a bounded queue, so the drive keeps scanning
 * while the backend works on host blocks.  A relation striped over an
 * array of drives (ossd_array.c) is sent to every drive at once, one
 * stream and thread per drive feeding the one queue.  Cancel and statement_timeout are
 * noticed while waiting for chunks; the thread then closes the stream,
 * which cancels the scan on the drive.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>
#include <time.h>

#include "access/heapam.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tupdesc_details.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "ossd_scan.h"
#include "ossd_exec.h"
#include "pg_ossd.h"


static void ossd_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *ossd_exec(CustomScanState *node);
static void ossd_end(CustomScanState *node);
static void ossd_rescan(CustomScanState *node);
static Size ossd_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void ossd_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
								void *coordinate);
static void ossd_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
								  void *coordinate);
static void ossd_initialize_worker(CustomScanState *node, shm_toc *toc,
								   void *coordinate);
static void ossd_shutdown(CustomScanState *node);

static CustomExecMethods ossd_exec_methods = {
	.CustomName = "OssdScan",
	.BeginCustomScan = ossd_begin,
	.ExecCustomScan = ossd_exec,
	.EndCustomScan = ossd_end,
	.ReScanCustomScan = ossd_rescan,
	.EstimateDSMCustomScan = ossd_estimate_dsm,
	.InitializeDSMCustomScan = ossd_initialize_dsm,
	.ReInitializeDSMCustomScan = ossd_reinitialize_dsm,
	.InitializeWorkerCustomScan = ossd_initialize_worker,
	.ShutdownCustomScan = ossd_shutdown,
	.ExplainCustomScan = ossd_explain_scan,
};

/*
 * Parallel query.  An OssdScan from a partial path (OSSD_PRIV_PARTIAL)
 * divides its blocks between the processes of the parallel plan: each
 * claims the next chunk of blocks from a counter in the query's shared
 * memory, splits it into drive and host blocks and sends the drive its own
 * SCAN for it, so the drive works on several chunks at once and no block
 * is scanned twice.  The relation's size is fixed once, by the leader, as
 * a Parallel Seq Scan fixes it.  Any other OssdScan under a Gather runs
 * whole in whichever process runs it (a Parallel Append hands each child
 * to one); the planner marks it parallel-aware there (ossd_planner.c) for
 * its piece of shared memory too.  There each worker adds its statistics
 * when it shuts the node down; the leader adds them to its own when it
 * shuts the node down, after the Gather has waited for its workers and
 * before the shared memory goes, so EXPLAIN ANALYZE shows what every
 * process did.
 */
#define OSSD_INSTR_COUNTERS(X) \
	X(blocks_drive) X(blocks_host) X(blocks_back) X(rows_drive) \
	X(host_rows_back) X(groups_drive) X(dev_blocks_scanned) \
	X(dev_tuples_seen) X(dev_tuples_visible) X(dev_tuples_matched) \
	X(dev_bytes_read) X(dev_ns) X(channel_bytes) X(slot_fallbacks) \
	X(chunks_claimed) X(blocks_named) X(tuples_named) X(feature_fallbacks)

typedef struct OssdSharedInstr
{
	slock_t		mutex;
#define OSSD_INSTR_FIELD(f) uint64 f;
	OSSD_INSTR_COUNTERS(OSSD_INSTR_FIELD)
	char		kernel_mode_used[32];
	OssdArrayInstr array;		/* per drive of an array (ossd_array.c) */
	OssdJoinFilterInstr join_filter;	/* ossd_joinfilter.c */
	/* a partial scan's blocks: [0, nblocks) in chunks of chunk_blocks */
	BlockNumber nblocks;
	uint32		chunk_blocks;
	pg_atomic_uint32 next_chunk;
} OssdSharedInstr;

/*
 * ossd.parallel_chunk_blocks, or chunks of at least 8 MB, so that a SCAN request's round trip is small
 * beside its work, and about four per process, so that a process slowed
 * down (by host blocks, by a busy drive) is made up for by the others.
 */
static uint32
ossd_chunk_blocks(BlockNumber nblocks, int nworkers)
{
	uint32		chunk = nblocks / (4 * (nworkers + 1)) + 1;

	if (ossd_parallel_chunk_blocks > 0)
		return ossd_parallel_chunk_blocks;
	return Max(chunk, (uint32) (8 * 1024 * 1024 / BLCKSZ));
}

/* The next chunk [*lo, *hi) of a partial scan; false when none is left */
static bool
ossd_claim_chunk(OssdScanState *ss, BlockNumber *lo, BlockNumber *hi)
{
	OssdSharedInstr *si = ss->shared;
	uint64		start;

	if (si->nblocks == 0)
		return false;
	start = (uint64) pg_atomic_fetch_add_u32(&si->next_chunk, 1) * si->chunk_blocks;
	if (start >= si->nblocks)
		return false;
	*lo = (BlockNumber) start;
	*hi = (BlockNumber) Min(start + si->chunk_blocks, (uint64) si->nblocks);
	ss->chunks_claimed++;
	return true;
}

static Size
ossd_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return sizeof(OssdSharedInstr);
}

static void
ossd_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	OssdScanState *ss = (OssdScanState *) node;
	OssdSharedInstr *si = coordinate;

	memset(si, 0, sizeof(OssdSharedInstr));
	SpinLockInit(&si->mutex);
	pg_atomic_init_u32(&si->next_chunk, 0);
	if (ss->partial)
	{
		si->nblocks = RelationGetNumberOfBlocks(node->ss.ss_currentRelation);
		si->chunk_blocks = ossd_chunk_blocks(si->nblocks, pcxt->nworkers);
	}
	ss->shared = si;
	ss->instr_merged = false;
}

static void
ossd_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	OssdScanState *ss = (OssdScanState *) node;

	ss->shared = coordinate;
	ss->instr_merged = false;
}

/* A worker adds its statistics to the shared ones, the leader takes them. */
static void
ossd_merge_instr(OssdScanState *ss)
{
	OssdSharedInstr *si = ss->shared;

	if (si == NULL || ss->instr_merged)
		return;
	ss->instr_merged = true;
	if (!IsParallelWorker())
		ossd_array_instr_prepare(ss, &si->array);
	SpinLockAcquire(&si->mutex);
	if (IsParallelWorker())
	{
#define OSSD_INSTR_PUT(f) si->f += ss->f;
		OSSD_INSTR_COUNTERS(OSSD_INSTR_PUT)
		ossd_array_instr_put(ss, &si->array);
		ossd_joinfilter_instr_put(ss, &si->join_filter);
		if (strcmp(ss->kernel_mode_used, "none") != 0)
			strlcpy(si->kernel_mode_used, ss->kernel_mode_used, sizeof(si->kernel_mode_used));
	}
	else
	{
#define OSSD_INSTR_TAKE(f) ss->f += si->f;
		OSSD_INSTR_COUNTERS(OSSD_INSTR_TAKE)
		ossd_array_instr_take(ss, &si->array);
		ossd_joinfilter_instr_take(ss, &si->join_filter);
		if (si->kernel_mode_used[0] && strcmp(ss->kernel_mode_used, "none") == 0)
			strlcpy(ss->kernel_mode_used, si->kernel_mode_used, sizeof(ss->kernel_mode_used));
	}
	SpinLockRelease(&si->mutex);
}

/* The Gather is rescanned: keep what its workers did so far, start over. */
static void
ossd_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	OssdScanState *ss = (OssdScanState *) node;
	OssdSharedInstr *si = coordinate;

	ss->shared = si;
	ossd_merge_instr(ss);
	SpinLockAcquire(&si->mutex);
#define OSSD_INSTR_ZERO(f) si->f = 0;
	OSSD_INSTR_COUNTERS(OSSD_INSTR_ZERO)
	memset(&si->array, 0, sizeof(si->array));
	memset(&si->join_filter, 0, sizeof(si->join_filter));
	si->kernel_mode_used[0] = '\0';
	SpinLockRelease(&si->mutex);
	/* the workers are gone: the chunks are handed out anew */
	pg_atomic_write_u32(&si->next_chunk, 0);
	ss->instr_merged = false;
}

static void
ossd_shutdown(CustomScanState *node)
{
	ossd_merge_instr((OssdScanState *) node);
}

void
ossd_exec_init(void)
{
}

Node *
ossd_create_scan_state(CustomScan *cscan)
{
	OssdScanState *ss = (OssdScanState *) newNode(sizeof(OssdScanState),
												  T_CustomScanState);

	ss->css.methods = &ossd_exec_methods;
	return (Node *) ss;
}

/* ---------------------------------------------------------------------
 * The reader thread
 * ---------------------------------------------------------------------
 */
/*
 * Read the next chunk of rd's stream into the queue.  Returns true when
 * the stream has more; false at its end or on an error (then s->failed).
 * The queue must have room.
 */
static bool
reader_take_one(OssdStreamReader *rd)
{
	OssdStreamCtx *s = rd->ctx;
	Ossd__Response *resp = NULL;
	ossd_error	err;
	bool		last;
	int			r;

	memset(&err, 0, sizeof(err));
	r = ossd_stream_next(rd->stream, &resp, &err);

	pthread_mutex_lock(&s->mu);
	if (r < 0)
	{
		/* one drive failing ends the whole scan */
		if (!s->failed)
		{
			s->failed = true;
			s->status = err.status;
			if (s->nreaders > 1)
				snprintf(s->errmsg, sizeof(s->errmsg), "drive %d of the array: %s", rd->drive,
						 err.msg[0] ? err.msg : "unknown channel error");
			else
				snprintf(s->errmsg, sizeof(s->errmsg), "%s",
						 err.msg[0] ? err.msg : "unknown channel error");
		}
		if (resp)
			ossd__response__free_unpacked(resp, NULL);
		s->done = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		return false;
	}
	if (resp == NULL)
	{
		if (--s->nlive == 0)
			s->done = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		return false;
	}
	s->bytes += ossd__response__get_packed_size(resp);
	s->chunks++;
	last = resp->scan == NULL || resp->scan->last;
	s->q[(s->head + s->count) % OSSD_QUEUE_CAP] = resp;
	s->qdrive[(s->head + s->count) % OSSD_QUEUE_CAP] = rd->drive;
	s->count++;
	if (last && --s->nlive == 0)
		s->done = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return !last;
}

/* Close rd's stream, telling a backend waiting for it. */
static void
reader_close(OssdStreamReader *rd)
{
	OssdStreamCtx *s = rd->ctx;

	ossd_stream_close(rd->stream);
	pthread_mutex_lock(&s->mu);
	rd->stream = NULL;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void *
reader_main(void *arg)
{
	OssdStreamReader *rd = arg;
	OssdStreamCtx *s = rd->ctx;

	/* a wait on the drive ends when the backend stops the stream */
	ossd_thread_abandon_wait = (volatile bool *) &s->cancel;
	for (;;)
	{
		bool		stop;

		pthread_mutex_lock(&s->mu);
		while (s->count >= s->qcap && !s->cancel)
			pthread_cond_wait(&s->cv, &s->mu);
		stop = s->cancel;
		pthread_mutex_unlock(&s->mu);
		if (stop || !reader_take_one(rd))
			break;
	}
	reader_close(rd);
	return NULL;
}

/*
 * Start the reader thread of every stream.  Signals stay with the
 * backend's own thread.
 */
static void
start_reader_threads(OssdStreamCtx *s)
{
	sigset_t	all,
				old;
	int			i;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < s->nreaders; i++)
	{
		OssdStreamReader *rd = &s->readers[i];

		if (pthread_create(&rd->thread, NULL, reader_main, rd) == 0)
			rd->thread_started = true;
		else
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (i < s->nreaders)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the pg_ossd stream reader thread")));
}

/*
 * A scan of one drive reads its chunks in the backend itself while they
 * are small: most small scans (a rescan, a chunk of a parallel scan, a
 * selective filter, a drive-side aggregate's groups and last chunk) end
 * within OSSD_INLINE_READ_BYTES, and a thread would cost more than they do
 * (~50-100 us to start and hand over).  Past that the stream's reader
 * thread takes over, to read the next chunk while the backend works on
 * this one.
 */
#define OSSD_INLINE_READ_BYTES (64 * 1024)

static void
read_chunk_inline(OssdStreamCtx *s)
{
	OssdStreamReader *rd = &s->readers[0];

	if (!reader_take_one(rd))
	{
		s->read_inline = false;
		reader_close(rd);
	}
	else if (s->bytes >= OSSD_INLINE_READ_BYTES)
	{
		s->read_inline = false;
		start_reader_threads(s);
	}
}

/* A context for up to nreaders streams, none started yet. */
static OssdStreamCtx *
stream_ctx_new(int nreaders)
{
	OssdStreamCtx *s = calloc(1, offsetof(OssdStreamCtx, readers) +
							  sizeof(OssdStreamReader) * nreaders);

	if (s == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->qcap = Min(OSSD_QUEUE_CAP, OSSD_QUEUE_PER_STREAM * nreaders);
	return s;
}

static void
stream_ctx_free(OssdStreamCtx *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	s->cancel = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < s->nreaders; i++)
	{
		OssdStreamReader *rd = &s->readers[i];

		if (rd->thread_started)
			pthread_join(rd->thread, NULL);
		else if (rd->stream)
			ossd_stream_close(rd->stream);
	}
	while (s->count > 0)
	{
		ossd__response__free_unpacked(s->q[s->head], NULL);
		s->head = (s->head + 1) % OSSD_QUEUE_CAP;
		s->count--;
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

/*
 * Stop the drive's work and release everything the scan holds.  Safe to
 * call more than once (end of scan, rescan, error cleanup).
 */
void
ossd_scan_stop(OssdScanState *ss)
{
	if (ss->sc)
	{
		stream_ctx_free(ss->sc);
		ss->sc = NULL;
	}
	if (ss->cur)
	{
		ossd__response__free_unpacked(ss->cur, NULL);
		ss->cur = NULL;
	}
}

static void
ossd_reset_callback(void *arg)
{
	OssdScanState *ss = arg;

	/* on error: buffers are released by the resource owner */
	ss->cur_buf = InvalidBuffer;
	ossd_scan_stop(ss);
}

/* ---------------------------------------------------------------------
 * Begin
 * ---------------------------------------------------------------------
 */
void
ossd_scan_begin(OssdScanState *ss, EState *estate)
{
	CustomScan *cscan = (CustomScan *) ss->css.ss.ps.plan;
	Relation	rel;
	TupleDesc	tupdesc;
	List	   *priv = cscan->custom_private;
	Const	   *progc = linitial(priv);
	ListCell   *lc;
	int			i;
	MemoryContextCallback *cb;

	ss->aggpriv = (List *) list_nth(priv, OSSD_PRIV_AGG);
	ss->index_blocks = ossd_plan_index_blocks(priv);
	if (ss->aggpriv != NIL)
	{
		/* aggregation replaces the scan: open the relation ourselves */
		Index		planned = intVal(linitial(ss->aggpriv));
		Oid			reloid = (Oid) strtoul(strVal(list_nth(ss->aggpriv, 10)), NULL, 10);
		Index		final = 0;
		ListCell   *rc;

		/*
		 * The plan's range table index was offset by setrefs when the
		 * aggregation sits in a subquery (an upper-rel CustomScan has no
		 * scanrelid to follow): find the relation's entry again.  Any
		 * entry of the same relation is as good (same columns, same lock).
		 */
		foreach(rc, estate->es_range_table)
		{
			RangeTblEntry *rte = lfirst(rc);

			if (rte->rtekind == RTE_RELATION && rte->relid == reloid)
			{
				final = foreach_current_index(rc) + 1;
				if (final == planned)
					break;
			}
		}
		if (final == 0)
			elog(ERROR, "pg_ossd: relation %u not in the range table", reloid);

		/* setrefs offsets the range table of subqueries: follow it */
		if (planned != final)
		{
			List	   *ap = list_copy(ss->aggpriv);

			for (int k = 5; k <= 7; k++)
			{
				Node	   *n = copyObject(list_nth(ap, k));

				ChangeVarNodes(n, planned, final, 0);
				list_nth_cell(ap, k)->ptr_value = n;
			}
			linitial(ap) = makeInteger(final);
			ss->aggpriv = ap;
		}
		ss->css.ss.ss_currentRelation = ExecOpenScanRelation(estate, final, 0);
		rel = ss->css.ss.ss_currentRelation;
		ss->rel_slot = ExecAllocTableSlot(&estate->es_tupleTable, RelationGetDescr(rel),
										  &TTSOpsVirtual);
	}
	else
	{
		rel = ss->css.ss.ss_currentRelation;
		ss->rel_slot = ss->css.ss.ss_ScanTupleSlot;
	}
	tupdesc = RelationGetDescr(rel);

	ss->program = progc->constisnull ? NULL : DatumGetByteaPP(progc->constvalue);
	ss->bind = (List *) list_nth(priv, OSSD_PRIV_BIND);
	ss->proj = (List *) list_nth(priv, OSSD_PRIV_PROJ);
	ss->kernel = strVal(list_nth(priv, OSSD_PRIV_KERNEL));
	ss->ninsns = intVal(list_nth(priv, OSSD_PRIV_NINSNS));
	ss->consts = (List *) list_nth(priv, OSSD_PRIV_CONSTS);
	ss->partial = intVal(list_nth(priv, OSSD_PRIV_PARTIAL)) != 0;
	ss->features = ossd_private_features(priv);

	ss->nproj = list_length(ss->proj);
	ss->proj_attnos = palloc0(sizeof(AttrNumber) * (ss->nproj + 1));
	ss->proj_byval = palloc0(sizeof(bool) * (ss->nproj + 1));
	ss->vals = palloc0(sizeof(struct ossd_value_view) * (ss->nproj + 1));
	ss->max_attr = 0;
	i = 0;
	foreach(lc, ss->proj)
	{
		AttrNumber	a = lfirst_int(lc);

		ss->proj_attnos[i] = a;
		ss->proj_byval[i] = TupleDescAttr(tupdesc, a - 1)->attbyval;
		ss->max_attr = Max(ss->max_attr, a);
		i++;
	}
	foreach(lc, ss->bind)
		ss->max_attr = Max(ss->max_attr, lfirst_int(lc));

	ss->device_exprs = ss->aggpriv ? (List *) list_nth(ss->aggpriv, 7) : cscan->custom_exprs;
	ss->device_qual = ExecInitQual(ss->device_exprs, &ss->css.ss.ps);
	ss->buf_slot = ExecAllocTableSlot(&estate->es_tupleTable, tupdesc,
									  &TTSOpsBufferHeapTuple);
	ss->tup_slot = ExecAllocTableSlot(&estate->es_tupleTable, tupdesc,
									  &TTSOpsHeapTuple);
	ss->cur_buf = InvalidBuffer;
	snprintf(ss->kernel_mode_used, sizeof(ss->kernel_mode_used), "none");
	ss->jit = ossd_scan_wants_jit(rel);
	if (ss->aggpriv != NIL)
		ossd_agg_begin(ss, estate);

	cb = MemoryContextAllocZero(estate->es_query_cxt, sizeof(MemoryContextCallback));
	cb->func = ossd_reset_callback;
	cb->arg = ss;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, cb);
}

/*
 * back_store: the rows returned so far, read again by a backward fetch or
 * by a rescan that changes no parameter (nodeMaterial.c's rule).
 */
static void
back_store_init(OssdScanState *ss, EState *estate)
{
	{
		TupleDesc	rd = ExecGetResultType(&ss->css.ss.ps);
		TupleDesc	kd = CreateTemplateTupleDesc(rd->natts + 1);

		/* each row with the TID of its heap tuple, for WHERE CURRENT OF */
		for (int i = 1; i <= rd->natts; i++)
			TupleDescCopyEntry(kd, i, rd, i);
		TupleDescInitEntry(kd, rd->natts + 1, "ctid", TIDOID, -1, 0);
		ss->back_store = tuplestore_begin_heap(true, false, work_mem);
		ss->back_eof_underlying = false;
		ss->back_kept = ExecAllocTableSlot(&estate->es_tupleTable, kd,
										   &TTSOpsMinimalTuple);
		ss->back_slot = ExecAllocTableSlot(&estate->es_tupleTable, rd,
										   &TTSOpsVirtual);
	}
}

static void
ossd_begin(CustomScanState *node, EState *estate, int eflags)
{
	OssdScanState *ss = (OssdScanState *) node;

	ossd_scan_begin(ss, estate);
	/* a volatile qual or output (random()) differs from pass to pass */
	ss->rescan_storable =
		!contain_volatile_functions((Node *) node->ss.ps.plan->qual) &&
		!contain_volatile_functions((Node *) node->ss.ps.plan->targetlist);
	/* the drive streams forward only: keep what was returned */
	if (eflags & EXEC_FLAG_BACKWARD)
		back_store_init(ss, estate);
}

/* Keep a returned row (and the TID of its heap tuple) in back_store. */
static void
back_store_put(OssdScanState *ss, TupleTableSlot *out)
{
	TupleTableSlot *k = ss->back_kept;
	TupleTableSlot *scan = ss->css.ss.ss_ScanTupleSlot;
	int			n = out->tts_tupleDescriptor->natts;

	slot_getallattrs(out);
	ExecClearTuple(k);
	memcpy(k->tts_values, out->tts_values, sizeof(Datum) * n);
	memcpy(k->tts_isnull, out->tts_isnull, sizeof(bool) * n);
	k->tts_values[n] = PointerGetDatum(&scan->tts_tid);
	k->tts_isnull[n] = ss->agg != NULL || TupIsNull(scan) ||
		!ItemPointerIsValid(&scan->tts_tid);
	ExecStoreVirtualTuple(k);
	tuplestore_puttupleslot(ss->back_store, k);
}

/*
 * The row read again from back_store, in back_slot; the scan slot is
 * positioned on its heap tuple (execCurrentOf reads the TID there).
 */
static TupleTableSlot *
back_store_row(OssdScanState *ss)
{
	TupleTableSlot *k = ss->back_kept;
	TupleTableSlot *slot = ss->back_slot;
	TupleTableSlot *scan = ss->css.ss.ss_ScanTupleSlot;
	int			n = slot->tts_tupleDescriptor->natts;

	slot_getallattrs(k);
	ExecClearTuple(slot);
	memcpy(slot->tts_values, k->tts_values, sizeof(Datum) * n);
	memcpy(slot->tts_isnull, k->tts_isnull, sizeof(bool) * n);
	ExecStoreVirtualTuple(slot);
	if (!k->tts_isnull[n])
	{
		ItemPointerData tid = *(ItemPointer) DatumGetPointer(k->tts_values[n]);

		ExecClearTuple(scan);
		for (int i = 0; i < scan->tts_tupleDescriptor->natts; i++)
		{
			scan->tts_values[i] = (Datum) 0;
			scan->tts_isnull[i] = true;
		}
		ExecStoreVirtualTuple(scan);
		scan->tts_tid = tid;
		scan->tts_tableOid = RelationGetRelid(ss->css.ss.ss_currentRelation);
	}
	return slot;
}

/* ---------------------------------------------------------------------
 * Block split
 * ---------------------------------------------------------------------
 */
static bool
buffer_is_dirty(Relation rel, BlockNumber blk)
{
	BufferTag	tag;
	uint32		hash;
	LWLock	   *lock;
	int			buf_id;
	bool		dirty = false;

	INIT_BUFFERTAG(tag, rel->rd_node, MAIN_FORKNUM, blk);
	hash = BufTableHashCode(&tag);
	lock = BufMappingPartitionLock(hash);
	LWLockAcquire(lock, LW_SHARED);
	buf_id = BufTableLookup(&tag, hash);
	if (buf_id >= 0)
	{
		BufferDesc *bd = GetBufferDescriptor(buf_id);
		uint32		state = pg_atomic_read_u32(&bd->state);

		/* dirty, or being written out (BM_DIRTY stays set until done) */
		dirty = (state & (BM_DIRTY | BM_JUST_DIRTIED | BM_IO_IN_PROGRESS)) != 0;
	}
	LWLockRelease(lock);
	return dirty;
}

/*
 * The blocks of rel's main fork below nblocks that are dirty or being
 * written in shared buffers, found in one pass over the buffer headers:
 * for a relation larger than a fraction of shared_buffers this is much
 * cheaper than one mapping-table lookup per block.  Same information as
 * buffer_is_dirty, taken once after the snapshot (which is all the MVCC
 * rule needs: docs/mvcc.md).  Returns a bitmap of nblocks bits.
 */
static uint8 *
dirty_block_map(Relation rel, BlockNumber nblocks)
{
	uint8	   *map = palloc0(nblocks / 8 + 1);
	int			i;

	for (i = 0; i < NBuffers; i++)
	{
		BufferDesc *bd = GetBufferDescriptor(i);
		uint32		state = LockBufHdr(bd);

		if (RelFileNodeEquals(bd->tag.rnode, rel->rd_node) &&
			bd->tag.forkNum == MAIN_FORKNUM && bd->tag.blockNum < nblocks &&
			(state & (BM_DIRTY | BM_JUST_DIRTIED | BM_IO_IN_PROGRESS)) != 0)
			map[bd->tag.blockNum / 8] |= (uint8) (1 << (bd->tag.blockNum % 8));
		UnlockBufHdr(bd, state);
	}
	return map;
}

/*
 * Write out a dirty all-visible block so that the drive can scan it (its
 * WAL first, as the checkpointer would).  True when the buffer is clean
 * afterwards; a writer that dirtied it again meanwhile leaves it to the
 * host.
 */
static bool
write_out_block(Relation rel, BlockNumber blk, BufferAccessStrategy strategy)
{
	Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	FlushOneBuffer(buf);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	ReleaseBuffer(buf);
	return !buffer_is_dirty(rel, blk);
}

static void
add_host_block(OssdScanState *ss, BlockNumber blk)
{
	if (ss->nhost_blocks >= ss->host_cap)
	{
		ss->host_cap = Max(64, ss->host_cap * 2);
		if (ss->host_blocks)
			ss->host_blocks = repalloc(ss->host_blocks, sizeof(BlockNumber) * ss->host_cap);
		else
			ss->host_blocks = palloc(sizeof(BlockNumber) * ss->host_cap);
	}
	ss->host_blocks[ss->nhost_blocks++] = blk;
}

typedef struct SegPlan
{
	int			segno;
	List	   *ranges;			/* of Ossd__BlockRange * */
	int			nblocks;
	StringInfo	tids;			/* tuple_offsets for the ranges, or NULL */
	OssdSegment seg;			/* its lookup, with the capabilities */
} SegPlan;

/*
 * Whether a scan of rel asks the drive for the JIT: ossd.kernel_mode = jit
 * and at least ossd.jit_above_tuples tuples (reltuples; a relation never
 * analyzed or vacuumed counts as large).  The drive compiles each kernel
 * it has not seen, 10-13 ms, which a scan of a small relation does not win
 * back.
 */
bool
ossd_scan_wants_jit(Relation rel)
{
	double		tuples = rel->rd_rel->reltuples;

	if (ossd_kernel_mode != OSSD_KMODE_JIT)
		return false;
	return ossd_jit_above_tuples == 0 || tuples < 0 ||
		tuples >= (double) ossd_jit_above_tuples;
}

/*
 * ossd_filter's constant arguments as the drive takes them: the datum
 * image (by-value types their attlen bytes, varlena types detoasted with
 * their header, name its NAMEDATALEN bytes), the type and a null flag.
 */
static void
fill_constant_args(List *consts, Ossd__Scan *sc)
{
	int			n = list_length(consts);
	int			k = 0;
	ListCell   *lc;

	sc->n_filter_args = n;
	sc->filter_args = palloc0(sizeof(ProtobufCBinaryData) * n);
	sc->n_const_types = n;
	sc->const_types = palloc0(sizeof(uint32) * n);
	sc->n_const_nulls = n;
	sc->const_nulls = palloc0(sizeof(protobuf_c_boolean) * n);
	foreach(lc, consts)
	{
		Const	   *c = lfirst(lc);
		int16		len;
		bool		byval;

		get_typlenbyval(c->consttype, &len, &byval);
		sc->const_types[k] = c->consttype;
		sc->const_nulls[k] = c->constisnull;
		if (c->constisnull)
			;
		else if (byval)
		{
			uint8	   *img = palloc(len);
			int64		v = (int64) c->constvalue;

			/* little-endian attlen bytes, as a heap tuple stores them */
			memcpy(img, &v, len);
			sc->filter_args[k].data = img;
			sc->filter_args[k].len = len;
		}
		else if (len == -1)
		{
			struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(c->constvalue));

			sc->filter_args[k].data = (uint8_t *) v;
			sc->filter_args[k].len = VARSIZE_ANY(v);
		}
		else
		{
			sc->filter_args[k].data = (uint8_t *) DatumGetPointer(c->constvalue);
			sc->filter_args[k].len = len;
		}
		k++;
	}
}

/*
 * The drive scans an object only with a capability for it: ossdfs grants
 * one per segment file as its permissions allow (ossd_relation.c), given
 * with the segment's lookup or, from an older ossdfs, asked for here.
 */
static void
attach_segment_capabilities(Relation rel, List *segs, int drive, ossd_t *o)
{
	ListCell   *lc;

	foreach(lc, segs)
	{
		SegPlan    *sp = lfirst(lc);

		if (sp->seg.caps_known)
			(void) ossd_add_capability_text_quietly(o, sp->seg.caps[drive]);
		else
			ossd_array_segment_capability(rel, sp->segno, drive, o);
	}
}

/*
 * Open the stream of drive `drive` (at uri) for req, as the next reader of
 * ss->sc.  False, having opened nothing, when the drive has no channel
 * slot free for us; other failures are errors.
 */
static bool
start_drive_stream(OssdScanState *ss, Ossd__Request *req, List *segs,
				   int drive, const char *uri)
{
	Relation	rel = ss->css.ss.ss_currentRelation;
	OssdStreamCtx *s = ss->sc;
	OssdStreamReader *rd = &s->readers[s->nreaders];
	ossd_error	err;
	ossd_t	   *o;
	bool		busy;

	o = ossd_try_connection(uri, &busy);
	if (o == NULL)
		return false;

	/*
	 * Every slot of the backend's connection is held by its own open scans
	 * (cursors left open, several scans of one plan): waiting for one would
	 * wait for ourselves until the timeout.  The host scans this one.
	 */
	if (ossd_slots_all_busy(o))
		return false;

	/*
	 * A drive that does not know parity layouts would read a RAID-5 one as
	 * RAID-0: the host scans instead.
	 */
	if (ss->array && ss->array->parity &&
		!(ossd_control_block(o)->feature_bits & OSSD_FEATURE_PARITY_SCAN))
		return false;

	/*
	 * The planner does not ask the drive what it supports: a kernel calling
	 * a helper this drive does not announce (an older drive, a plan cached
	 * across a drive's replacement) would be refused by its verifier and
	 * fail the query.  The host scans instead, with the same quals.
	 */
	ss->missing_features = ss->features & ~ossd_control_block(o)->feature_bits;
	if (ss->missing_features != 0)
		return false;
	attach_segment_capabilities(rel, segs, drive, o);
	if (s->nreaders == 0)
		ossd_joinfilter_fill(ss, req->scan, ossd_control_block(o)->feature_bits);
	rd->ctx = s;
	rd->drive = drive;

	memset(&err, 0, sizeof(err));
	if (ossd_stream_start(o, req, &rd->stream, &err) < 0 &&
		((err.status == OSSD_STATUS_TRANSPORT && err.errnum != ETIMEDOUT) ||
		 err.status == OSSD__STATUS__ERR_SLOT))
	{
		/* a cached connection whose slot lease lapsed: reconnect once */
		ossd_forget_connection(uri);
		o = ossd_try_connection(uri, &busy);
		if (o != NULL)
			attach_segment_capabilities(rel, segs, drive, o);
		memset(&err, 0, sizeof(err));
		rd->stream = NULL;
		if (o == NULL)
			err.status = OSSD__STATUS__ERR_BUSY;
		else
			(void) ossd_stream_start(o, req, &rd->stream, &err);
	}
	if (rd->stream == NULL && err.status == OSSD__STATUS__ERR_BUSY)
		return false;
	if (rd->stream == NULL)
	{
		ossd_interrupts_after_wait(err.status);
		if (err.status == OSSD_STATUS_TRANSPORT)
			ossd_forget_connection(uri);
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("could not start an offloaded scan of \"%s\" on drive \"%s\"",
						RelationGetRelationName(rel), uri),
				 errdetail("%s", err.msg)));
	}
	s->nreaders++;
	s->nlive++;
	return true;
}

/*
 * Build and send the SCAN request for the device blocks.
 * Returns false, having started nothing, when the drive has no channel
 * slot free for us (all claimed by other hosts and backends): the caller
 * scans those blocks on the host.  Other failures are errors.
 */
static bool
start_drive_scan(OssdScanState *ss, List *segs, TransactionId bound)
{
	Relation	rel = ss->css.ss.ss_currentRelation;
	TupleDesc	tupdesc = RelationGetDescr(rel);
	Ossd__Request req = OSSD__REQUEST__INIT;
	Ossd__Scan	sc;
	ListCell   *lc;
	int			i;
	int			d;
	int			ndrives;
	uint64	   *drive_blocks;
	OssdStreamCtx *s;

	ossd__scan__init(&sc);
	sc.n_targets = list_length(segs);
	sc.targets = palloc(sizeof(Ossd__ScanTarget *) * sc.n_targets);
	i = 0;
	foreach(lc, segs)
	{
		SegPlan    *sp = lfirst(lc);
		Ossd__ScanTarget *t = palloc(sizeof(Ossd__ScanTarget));
		Ossd__ObjectId *id = palloc(sizeof(Ossd__ObjectId));
		ListCell   *rc;
		int			k = 0;

		ossd__scan_target__init(t);
		ossd__object_id__init(id);
		id->pid = sp->seg.pid;
		id->oid = sp->seg.oid;
		t->obj = id;
		t->segment_blocks = RELSEG_SIZE;
		t->first_block = sp->segno * RELSEG_SIZE;
		t->n_ranges = list_length(sp->ranges);
		t->ranges = palloc(sizeof(Ossd__BlockRange *) * t->n_ranges);
		foreach(rc, sp->ranges)
			t->ranges[k++] = lfirst(rc);
		if (sp->tids)
		{
			t->tuple_offsets.data = (uint8_t *) sp->tids->data;
			t->tuple_offsets.len = sp->tids->len;
		}
		sc.targets[i++] = t;
	}

	sc.n_attrs = tupdesc->natts;
	sc.attrs = palloc(sizeof(Ossd__ScanAttr *) * tupdesc->natts);
	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		Ossd__ScanAttr *a = palloc(sizeof(Ossd__ScanAttr));

		ossd__scan_attr__init(a);
		a->len = att->attlen;
		a->align = att->attalign == TYPALIGN_DOUBLE ? 8 :
			att->attalign == TYPALIGN_INT ? 4 :
			att->attalign == TYPALIGN_SHORT ? 2 : 1;
		a->byval = att->attbyval;
		a->type_oid = att->attisdropped ? 0 : att->atttypid;
		a->typmod = att->atttypmod;
		a->dropped = att->attisdropped;
		if (att->atthasmissing && !att->attisdropped && tupdesc->constr &&
			tupdesc->constr->missing)
		{
			AttrMissing *am = &tupdesc->constr->missing[i];

			a->has_missing = true;
			if (!am->am_present)
				a->missing_null = true;
			else if (att->attbyval)
			{
				Datum	   *d = palloc(sizeof(Datum));

				*d = am->am_value;
				a->missing.data = (uint8_t *) d;
				a->missing.len = att->attlen;
			}
			else if (att->attlen == -1)
			{
				a->missing.data = (uint8_t *) DatumGetPointer(am->am_value);
				a->missing.len = VARSIZE_ANY(DatumGetPointer(am->am_value));
			}
			else if (att->attlen == -2)
			{
				a->missing.data = (uint8_t *) DatumGetPointer(am->am_value);
				a->missing.len = strlen(DatumGetCString(am->am_value)) + 1;
			}
			else
			{
				a->missing.data = (uint8_t *) DatumGetPointer(am->am_value);
				a->missing.len = att->attlen;
			}
		}
		sc.attrs[i] = a;
	}
	sc.snapshot_xmin = bound;
	/* the drive verifies page checksums as PostgreSQL would */
	sc.data_checksums = DataChecksumsEnabled();
	if (ss->kernel && ss->kernel[0])
	{
		sc.filter_case = OSSD__SCAN__FILTER_FILTER_KERNEL;
		sc.filter_kernel = ss->kernel;
	}
	else if (ss->program)
	{
		sc.filter_case = OSSD__SCAN__FILTER_FILTER_PROGRAM;
		sc.filter_program.data = (uint8_t *) VARDATA_ANY(ss->program);
		sc.filter_program.len = VARSIZE_ANY_EXHDR(ss->program);
	}
	sc.n_referenced = list_length(ss->bind);
	sc.referenced = palloc(sizeof(uint32) * (sc.n_referenced + 1));
	i = 0;
	foreach(lc, ss->bind)
		sc.referenced[i++] = lfirst_int(lc);
	if (ss->consts != NIL)
		fill_constant_args(ss->consts, &sc);
	sc.n_projection = ss->nproj;
	sc.projection = palloc(sizeof(uint32) * (ss->nproj + 1));
	for (i = 0; i < ss->nproj; i++)
		sc.projection[i] = ss->proj_attnos[i];
	sc.mode = ss->jit ? OSSD__KERNEL_MODE__KERNEL_JIT :
		OSSD__KERNEL_MODE__KERNEL_INTERPRETER;
	sc.workers = ossd_device_workers;
	if (ss->agg)
		ossd_agg_fill_request(ss, &sc);

	req.body_case = OSSD__REQUEST__BODY_SCAN;
	req.scan = &sc;

	/*
	 * One stream per drive: a striped relation's drives are each sent the
	 * same heap ranges with their own geometry (ossd_array.c) and keep the
	 * blocks of their units; a drive with none of them is not asked.
	 */
	ndrives = ss->array ? ss->array->ndrives : 1;
	drive_blocks = palloc0(sizeof(uint64) * ndrives);
	ss->sc = stream_ctx_new(ndrives);
	for (d = 0; d < ndrives; d++)
	{
		if (ss->array)
		{
			for (i = 0; i < (int) sc.n_targets; i++)
			{
				ossd_array_target(ss->array, d, sc.targets[i]);
				drive_blocks[d] += ossd_array_drive_blocks(ss->array, d, sc.targets[i]->ranges,
														   sc.targets[i]->n_ranges);
			}
			if (drive_blocks[d] == 0)
				continue;
		}
		if (!start_drive_stream(ss, &req, segs, d, ss->array ? ss->array->uris[d] : ss->uri))
		{
			/* the host scans every block, under the same rule as any */
			stream_ctx_free(ss->sc);
			ss->sc = NULL;
			return false;
		}
	}
	s = ss->sc;
	if (s->nreaders == 0)
		s->done = true;
	if (ss->array)
		for (d = 0; d < ndrives; d++)
			ss->array->blocks[d] += drive_blocks[d];

	if (s->nreaders == 1)
		s->read_inline = true;
	else
		start_reader_threads(s);
	return true;
}

/*
 * Split the blocks [lo, hi) into drive and host blocks and start the drive
 * on its part.
 */
static void
ossd_scan_blocks(OssdScanState *ss, BlockNumber lo, BlockNumber hi)
{
	Relation	rel = ss->css.ss.ss_currentRelation;
	Buffer		vmbuf = InvalidBuffer;
	List	   *segs = NIL;
	SegPlan    *sp = NULL;
	Ossd__BlockRange *cur = NULL;
	int			nranges = 0;
	BlockNumber blk;
	uint64		drive0 = ss->blocks_drive;	/* counters add up over rescans */
	uint64		host0 = ss->nhost_blocks;

	for (blk = lo; blk < hi; blk++)
	{
		int			segno = blk / RELSEG_SIZE;
		bool		to_drive = ss->drive_ok;

		if ((blk & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		/* a scan of the blocks an index names: the others hold no match */
		if (ss->block_mask)
		{
			if (!((ss->block_mask[blk / 8] >> (blk % 8)) & 1))
				continue;
			/* counted here, chunk by chunk: a partial scan's add up */
			ss->blocks_named++;
		}
		if (to_drive && (sp == NULL || sp->segno != segno))
		{
			sp = palloc0(sizeof(SegPlan));
			cur = NULL;
			if (ossd_segment_lookup(rel, segno, &sp->seg) &&
				(ss->uri == NULL || strcmp(ss->uri, sp->seg.uri) == 0))
			{
				if (ss->uri == NULL)
				{
					ss->uri = sp->seg.uri;
					/* every segment of the relation is on the same drives */
					ss->array = ossd_segment_array(rel, segno, &sp->seg);
				}
				sp->segno = segno;
				segs = lappend(segs, sp);
				/* never past the object's end as the drive sees it */
				if (sp->seg.size / BLCKSZ < (uint64) RELSEG_SIZE)
					sp->nblocks = (int) (sp->seg.size / BLCKSZ);
				else
					sp->nblocks = RELSEG_SIZE;
			}
			else
			{
				pfree(sp);
				sp = NULL;
			}
		}
		if (to_drive && (sp == NULL || sp->segno != segno ||
						 (int) (blk % RELSEG_SIZE) >= sp->nblocks))
			to_drive = false;
		if (to_drive && nranges >= 60000 && !(cur && cur->start + cur->count == blk % RELSEG_SIZE))
			to_drive = false;
		/* a degraded RAID-5 array: the lost drive's blocks are rebuilt by ossdfs */
		if (to_drive && ossd_array_block_out(ss->array, blk % RELSEG_SIZE))
			to_drive = false;
		if (to_drive && VM_ALL_VISIBLE(rel, blk, &vmbuf))
		{
			if (ss->dirty ? (ss->dirty[blk / 8] >> (blk % 8)) & 1 : buffer_is_dirty(rel, blk))
			{
				to_drive = write_out_block(rel, blk, ss->strategy);
				ss->blocks_written_out++;
			}
		}
		else
			to_drive = false;
		if (!to_drive)
		{
			add_host_block(ss, blk);
			continue;
		}
		if (cur && cur->start + cur->count == blk % RELSEG_SIZE &&
			llast(sp->ranges) == cur)
			cur->count++;
		else
		{
			cur = palloc(sizeof(Ossd__BlockRange));
			ossd__block_range__init(cur);
			cur->start = blk % RELSEG_SIZE;
			cur->count = 1;
			sp->ranges = lappend(sp->ranges, cur);
			nranges++;
		}
		/* the tuples the index named there (ossd_indexblocks.c) */
		if (ss->index_tids)
		{
			if (sp->tids == NULL)
				sp->tids = makeStringInfo();
			ss->tuples_named += ossd_index_tids_append(ss->index_tids, blk, sp->tids);
		}
		ss->blocks_drive++;
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	ss->blocks_host += ss->nhost_blocks - host0;

	if (ss->blocks_drive > drive0)
	{
		List	   *nonempty = NIL;
		ListCell   *lc;

		foreach(lc, segs)
			if (((SegPlan *) lfirst(lc))->ranges != NIL)
				nonempty = lappend(nonempty, lfirst(lc));
		if (!start_drive_scan(ss, nonempty, ss->snapshot_bound))
		{
			/*
			 * No channel slot free: a query must not fail for lack of one.
			 * The host scans the drive's blocks too, under the same rule as
			 * any host block; EXPLAIN ANALYZE counts the fallback.
			 */
			foreach(lc, nonempty)
			{
				SegPlan    *p = lfirst(lc);
				ListCell   *rc;

				foreach(rc, p->ranges)
				{
					Ossd__BlockRange *br = lfirst(rc);

					for (uint32 k = 0; k < br->count; k++)
						add_host_block(ss, (BlockNumber) p->segno * RELSEG_SIZE + br->start + k);
				}
			}
			ss->blocks_host += ss->blocks_drive - drive0;
			ss->blocks_drive = drive0;
			if (ss->missing_features != 0)
			{
				ss->feature_fallbacks++;
				elog(DEBUG1, "pg_ossd: drive \"%s\" lacks features 0x%llx of the kernel: \"%s\" scanned on the host",
					 ss->uri, (unsigned long long) ss->missing_features,
					 RelationGetRelationName(rel));
				ss->missing_features = 0;
			}
			else
			{
				ss->slot_fallbacks++;
				elog(DEBUG1, "pg_ossd: no free channel slot on drive \"%s\": \"%s\" scanned on the host",
					 ss->uri, RelationGetRelationName(rel));
			}
		}
	}
}

/*
 * Start the scan, after the snapshot was taken (it was: the executor holds
 * it since ExecutorStart): the whole relation, or a partial scan's first
 * chunk (the next ones: ossd_scan_next_chunk).
 */
static void
ossd_scan_start(OssdScanState *ss)
{
	EState	   *estate = ss->css.ss.ps.state;
	Relation	rel = ss->css.ss.ss_currentRelation;
	Snapshot	snapshot = estate->es_snapshot;
	TransactionId bound;
	char	   *spcuri = NULL;
	BlockNumber lo = 0;
	BlockNumber hi;
	bool		shared_chunks = ss->partial && ss->shared != NULL;

	ss->started = true;
	ss->strategy = GetAccessStrategy(BAS_BULKREAD);
	/* a partial scan without shared memory (no workers at all) runs whole */
	ss->nblocks = shared_chunks ? ss->shared->nblocks : RelationGetNumberOfBlocks(rel);
	ss->blocks_total = ss->nblocks;

	ss->drive_ok = ossd_enabled && IsMVCCSnapshot(snapshot) &&
		!snapshot->takenDuringRecovery && !IsolationIsSerializable() &&
		ossd_relation_on_drive(rel, &spcuri);

	/* the bound B (see the file header); computed after the snapshot */
	bound = snapshot->xmin;
	if (ss->drive_ok)
	{
		TransactionId horizon = GetOldestNonRemovableTransactionId(rel);

		if (TransactionIdIsNormal(horizon) && TransactionIdPrecedes(horizon, bound))
			bound = horizon;
	}
	ss->snapshot_bound = bound;
	if (ss->dirty)
		pfree(ss->dirty);
	ss->dirty = NULL;
	if (ss->drive_ok && ss->nblocks > (BlockNumber) (NBuffers / 8))
		ss->dirty = dirty_block_map(rel, ss->nblocks);
	/*
	 * The blocks an index names: its bounds are constants and the snapshot
	 * is the query's, so a rescan over as many blocks names the same ones
	 * (run after the snapshot, as a Bitmap Index Scan would be).
	 */
	if (ss->index_blocks != NIL)
	{
		if (ss->block_mask == NULL || ss->mask_nblocks != ss->nblocks)
		{
			if (ss->block_mask)
				pfree(ss->block_mask);
			ossd_index_tids_free(ss->index_tids);
			ss->index_tids = NULL;
			ss->block_mask = ossd_index_block_mask(ss, ss->index_blocks, ss->nblocks,
												   &ss->index_tids);
			ss->mask_nblocks = ss->nblocks;
		}
	}

	hi = ss->nblocks;
	if (shared_chunks && !ossd_claim_chunk(ss, &lo, &hi))
		return;					/* the other processes took every chunk */
	ossd_scan_blocks(ss, lo, hi);
}

/*
 * A partial scan's current chunk is done: claim the next one and start it.
 * False when there is none (or the scan is not partial).
 */
static bool
ossd_scan_next_chunk(OssdScanState *ss)
{
	BlockNumber lo,
				hi;

	if (!ss->partial || ss->shared == NULL)
		return false;
	if (!ossd_claim_chunk(ss, &lo, &hi))
		return false;
	ss->nhost_blocks = 0;
	ss->host_next = 0;
	ossd_scan_blocks(ss, lo, hi);
	return true;
}

/* ---------------------------------------------------------------------
 * Producing tuples
 * ---------------------------------------------------------------------
 */

/* Copy the first max_attr attributes of src into the virtual scan slot. */
static TupleTableSlot *
to_scan_slot(OssdScanState *ss, TupleTableSlot *src)
{
	TupleTableSlot *slot = ss->rel_slot;
	int			natts = slot->tts_tupleDescriptor->natts;
	int			n = Min(ss->max_attr, natts);

	ExecClearTuple(slot);
	if (n > 0)
	{
		slot_getsomeattrs(src, n);
		memcpy(slot->tts_values, src->tts_values, sizeof(Datum) * n);
		memcpy(slot->tts_isnull, src->tts_isnull, sizeof(bool) * n);
	}
	for (int i = n; i < natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	slot->tts_tid = src->tts_tid;
	slot->tts_tableOid = RelationGetRelid(ss->css.ss.ss_currentRelation);
	return ExecStoreVirtualTuple(slot);
}

/* Evaluate the pushed quals on a host-side tuple in the scan slot. */
static bool
device_qual_passes(OssdScanState *ss, TupleTableSlot *slot)
{
	ExprContext *econtext = ss->css.ss.ps.ps_ExprContext;

	if (ss->device_qual == NULL)
		return true;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecQual(ss->device_qual, econtext);
}

/* Read the visible tuples of one host block. */
static void
load_host_block(OssdScanState *ss, BlockNumber blk)
{
	Relation	rel = ss->css.ss.ss_currentRelation;
	Snapshot	snapshot = ss->css.ss.ps.state->es_snapshot;
	Page		page;
	OffsetNumber maxoff;
	bool		all_visible;

	if (BufferIsValid(ss->cur_buf))
	{
		ReleaseBuffer(ss->cur_buf);
		ss->cur_buf = InvalidBuffer;
	}
	ss->cur_buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, ss->strategy);
	ss->cur_blk = blk;
	ss->nvis = 0;
	ss->vis_next = 0;
	heap_page_prune_opt(rel, ss->cur_buf);
	LockBuffer(ss->cur_buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(ss->cur_buf);
	maxoff = PageGetMaxOffsetNumber(page);
	all_visible = PageIsAllVisible(page) && !snapshot->takenDuringRecovery;
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lpp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (!ItemIdIsNormal(lpp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		tup.t_len = ItemIdGetLength(lpp);
		tup.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&tup.t_self, blk, off);
		if (all_visible || HeapTupleSatisfiesVisibility(&tup, snapshot, ss->cur_buf))
			ss->vis[ss->nvis++] = off;
	}
	LockBuffer(ss->cur_buf, BUFFER_LOCK_UNLOCK);
}

/* Next tuple of the current host block passing the pushed quals */
static TupleTableSlot *
next_host_tuple(OssdScanState *ss)
{
	Relation	rel = ss->css.ss.ss_currentRelation;

	while (ss->vis_next < ss->nvis)
	{
		OffsetNumber off = ss->vis[ss->vis_next++];
		Page		page = BufferGetPage(ss->cur_buf);
		ItemId		lpp = PageGetItemId(page, off);
		TupleTableSlot *slot;

		ss->htup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		ss->htup.t_len = ItemIdGetLength(lpp);
		ss->htup.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&ss->htup.t_self, ss->cur_blk, off);
		ExecStoreBufferHeapTuple(&ss->htup, ss->buf_slot, ss->cur_buf);
		slot = to_scan_slot(ss, ss->buf_slot);
		if (device_qual_passes(ss, slot))
			return slot;
	}
	return NULL;
}

static void
device_error(OssdScanState *ss, const char *msg)
{
	Relation	rel = ss->css.ss.ss_currentRelation;

	ereport(ERROR,
			(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
			 errmsg("offloaded scan of \"%s\" failed on drive \"%s\"",
					RelationGetRelationName(rel), ss->uri),
			 errdetail("%s", msg)));
}

static void
chunk_done(OssdScanState *ss)
{
	Ossd__ScanChunk *c = ss->cur->scan;

	if (c && c->last)
	{
		ss->dev_blocks_scanned += c->blocks_scanned;
		ss->dev_tuples_seen += c->tuples_seen;
		ss->dev_tuples_visible += c->tuples_visible;
		ss->dev_tuples_matched += c->tuples_matched;
		ss->dev_bytes_read += c->bytes_read;
		ss->dev_ns += c->device_ns;
		ossd_joinfilter_count(ss, c->join_filter_dropped);
	}
	ossd__response__free_unpacked(ss->cur, NULL);
	ss->cur = NULL;
}

/*
 * Take the next chunk: wait == false returns false at once when none is
 * queued.  Returns false at the end of the stream too (ss->sc->done and
 * empty queue).
 */
static bool
take_chunk(OssdScanState *ss, bool wait)
{
	OssdStreamCtx *s = ss->sc;

	for (;;)
	{
		bool		got = false;
		bool		end = false;
		bool		failed = false;
		char		msg[600];

		/* no thread yet: the queue is the backend's alone */
		if (s->read_inline && wait && s->count == 0)
			read_chunk_inline(s);
		pthread_mutex_lock(&s->mu);
		if (s->count > 0)
		{
			ss->cur = s->q[s->head];
			ss->cur_drive = s->qdrive[s->head];
			s->head = (s->head + 1) % OSSD_QUEUE_CAP;
			s->count--;
			got = true;
			pthread_cond_broadcast(&s->cv);
		}
		else if (s->done)
		{
			end = true;
			failed = s->failed;
			if (failed)
				memcpy(msg, s->errmsg, sizeof(msg));
		}
		else if (wait)
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 50 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000L)
			{
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		}
		ss->channel_bytes = ss->channel_bytes_done + s->bytes;
		pthread_mutex_unlock(&s->mu);

		if (got)
		{
			Ossd__ScanChunk *c = ss->cur->scan;

			ss->row_pos = 0;
			ss->hrow_pos = 0;
			if (c == NULL)
				device_error(ss, "the drive answered a scan without a scan chunk");
			if (c->kernel_mode && c->kernel_mode[0])
				snprintf(ss->kernel_mode_used, sizeof(ss->kernel_mode_used), "%s", c->kernel_mode);
			/* counted as they arrive: a LIMIT may leave some unread */
			ss->rows_drive += c->row_count;
			if (ss->array)
			{
				ss->array->rows[ss->cur_drive] += c->row_count;
				ss->array->bytes[ss->cur_drive] += ossd__response__get_packed_size(ss->cur);
			}
			/* blocks handed back whole: scan them on the host */
			for (size_t i = 0; i + 2 < c->n_host_blocks; i += 3)
			{
				uint32		b = c->host_blocks[i + 1];	/* relation block */

				if (b < ss->nblocks)
					add_host_block(ss, b);
				ss->blocks_back++;
			}
			if (c->groups.len > 0 && ss->agg)
			{
				ossd_agg_consume_groups(ss, c);
				ss->groups_drive += c->group_count;
			}
			return true;
		}
		if (end)
		{
			if (failed)
			{
				ossd_interrupts_after_wait(s->status);
				device_error(ss, msg);
			}
			return false;
		}
		if (!wait)
			return false;
		CHECK_FOR_INTERRUPTS();
	}
}

/* Next packed row of the current chunk, into the scan slot */
static TupleTableSlot *
next_drive_row(OssdScanState *ss)
{
	Ossd__ScanChunk *c = ss->cur->scan;
	TupleTableSlot *slot = ss->css.ss.ss_ScanTupleSlot;
	struct ossd_row_view row;
	struct ossd_value_view *vals = ss->vals;
	int			r;
	int			natts = slot->tts_tupleDescriptor->natts;

	r = ossd_row_read(c->rows.data, c->rows.len, &ss->row_pos, ss->nproj,
					  ss->proj_byval, &row, vals);
	if (r == 0)
		return NULL;
	if (r < 0)
		device_error(ss, "malformed packed row in a scan chunk");
	ExecClearTuple(slot);
	for (int i = 0; i < natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	for (int i = 0; i < ss->nproj; i++)
	{
		int			a = ss->proj_attnos[i] - 1;

		if (vals[i].isnull)
			continue;
		slot->tts_isnull[a] = false;
		slot->tts_values[a] = ss->proj_byval[i] ? (Datum) vals[i].datum :
			PointerGetDatum(vals[i].data);
	}
	ItemPointerSet(&slot->tts_tid, row.block, row.offnum);
	slot->tts_tableOid = RelationGetRelid(ss->css.ss.ss_currentRelation);
	return ExecStoreVirtualTuple(slot);
}

/* Next host row record of the current chunk passing the pushed quals */
static TupleTableSlot *
next_drive_host_row(OssdScanState *ss)
{
	Ossd__ScanChunk *c = ss->cur->scan;
	struct ossd_host_row_view h;
	Relation	rel = ss->css.ss.ss_currentRelation;

	for (;;)
	{
		int			r = ossd_host_row_read(c->host_rows.data, c->host_rows.len,
										   &ss->hrow_pos, &h);
		TupleTableSlot *slot;

		if (r == 0)
			return NULL;
		if (r < 0)
			device_error(ss, "malformed host row record in a scan chunk");
		ss->host_rows_back++;
		ss->htup.t_data = (HeapTupleHeader) h.tuple;
		ss->htup.t_len = h.tuple_len;
		ss->htup.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&ss->htup.t_self, h.block, h.offnum);
		ExecStoreHeapTuple(&ss->htup, ss->tup_slot, false);
		slot = to_scan_slot(ss, ss->tup_slot);
		if ((h.reason & OSSD_HR_FLAG_FILTER_PASSED) || device_qual_passes(ss, slot))
			return slot;
	}
}

/*
 * The next tuple of the scan (rows from the drive, host rows, host
 * blocks), or NULL at the end.  Used by the rows mode and by aggregation.
 */
TupleTableSlot *
ossd_scan_next_row(OssdScanState *ss)
{
	TupleTableSlot *slot;

	if (!ss->started)
		ossd_scan_start(ss);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ss->nvis > ss->vis_next && (slot = next_host_tuple(ss)) != NULL)
			return slot;
		if (ss->cur)
		{
			if (!ss->agg && (slot = next_drive_row(ss)) != NULL)
				return slot;
			if ((slot = next_drive_host_row(ss)) != NULL)
				return slot;
			chunk_done(ss);
			continue;
		}
		if (ss->sc && take_chunk(ss, false))
			continue;
		if (ss->host_next < ss->nhost_blocks)
		{
			load_host_block(ss, ss->host_blocks[ss->host_next++]);
			continue;
		}
		if (ss->sc && take_chunk(ss, true))
			continue;
		/* the drive may have handed blocks back while we waited */
		if (ss->host_next < ss->nhost_blocks)
			continue;
		/* a partial scan goes on with its next chunk, on a new stream */
		if (ss->partial && ss->shared != NULL)
		{
			if (ss->sc)
			{
				ss->channel_bytes = ss->channel_bytes_done + ss->sc->bytes;
				ossd_scan_stop(ss);
				ss->channel_bytes_done = ss->channel_bytes;
			}
			if (ossd_scan_next_chunk(ss))
				continue;
		}
		break;
	}
	if (BufferIsValid(ss->cur_buf))
	{
		ExecClearTuple(ss->buf_slot);
		ReleaseBuffer(ss->cur_buf);
		ss->cur_buf = InvalidBuffer;
	}
	if (ss->sc)
	{
		ss->channel_bytes = ss->channel_bytes_done + ss->sc->bytes;
		ossd_scan_stop(ss);
	}
	ss->channel_bytes_done = ss->channel_bytes;
	ss->finished = true;
	return NULL;
}

static TupleTableSlot *
ossd_access(ScanState *node)
{
	OssdScanState *ss = (OssdScanState *) node;


	TupleTableSlot *slot;

	if (ss->agg)
		return ossd_agg_next(ss);
	slot = ss->finished ? NULL : ossd_scan_next_row(ss);
	/* past the end the scan is on no row (WHERE CURRENT OF: execCurrentOf) */
	if (TupIsNull(slot))
		ExecClearTuple(ss->css.ss.ss_ScanTupleSlot);
	return slot;
}

static bool
ossd_recheck(ScanState *node, TupleTableSlot *slot)
{
	OssdScanState *ss = (OssdScanState *) node;
	ExprContext *econtext = node->ps.ps_ExprContext;

	if (ss->device_qual == NULL)
		return true;
	econtext->ecxt_scantuple = slot;
	return ExecQual(ss->device_qual, econtext);
}

/*
 * Under EXEC_FLAG_BACKWARD the rows go through back_store (nodeMaterial.c's
 * scheme): forward past its end runs the scan and appends what it returns,
 * backward and forward within it read it again.
 */
static TupleTableSlot *
ossd_exec(CustomScanState *node)
{
	OssdScanState *ss = (OssdScanState *) node;
	Tuplestorestate *ts = ss->back_store;
	bool		forward;
	bool		eof_store;
	TupleTableSlot *slot;

	if (ts == NULL)
		return ExecScan(&node->ss, ossd_access, ossd_recheck);
	forward = ScanDirectionIsForward(node->ss.ps.state->es_direction);
	slot = ss->back_slot;
	eof_store = tuplestore_ateof(ts);
	/* before the first row or past the last, the scan is on no row */
	ExecClearTuple(node->ss.ss_ScanTupleSlot);
	if (!forward && eof_store)
	{
		/* stepping back from the end: past the last row if the scan ended */
		if (!ss->back_eof_underlying && !tuplestore_advance(ts, forward))
			return NULL;
		eof_store = false;
	}
	if (!eof_store)
	{
		if (tuplestore_gettupleslot(ts, forward, false, ss->back_kept))
			return back_store_row(ss);
		if (forward)
			eof_store = true;
	}
	if (eof_store && !ss->back_eof_underlying)
	{
		TupleTableSlot *out = ExecScan(&node->ss, ossd_access, ossd_recheck);

		if (TupIsNull(out))
		{
			ss->back_eof_underlying = true;
			return NULL;
		}
		back_store_put(ss, out);
		return out;
	}
	return ExecClearTuple(slot);
}

static void
ossd_end(CustomScanState *node)
{
	OssdScanState *ss = (OssdScanState *) node;

	ossd_scan_stop(ss);
	if (BufferIsValid(ss->cur_buf))
	{
		ExecClearTuple(ss->buf_slot);
		ReleaseBuffer(ss->cur_buf);
		ss->cur_buf = InvalidBuffer;
	}
	if (ss->strategy)
	{
		FreeAccessStrategy(ss->strategy);
		ss->strategy = NULL;
	}
	if (ss->back_store)
	{
		tuplestore_end(ss->back_store);
		ss->back_store = NULL;
	}
}

static void
ossd_rescan(CustomScanState *node)
{
	OssdScanState *ss = (OssdScanState *) node;

	Tuplestorestate *ts = ss->back_store;
	EState	   *estate = node->ss.ps.state;

	/* no current row until the scan returns one (ExecScanReScan) */
	ExecScanReScan(&node->ss);

	/*
	 * A rescan that changes none of the scan's parameters (a nested loop's
	 * inner side, a subplan without correlation) returns the same rows:
	 * read them again from back_store, and go on with the drive's stream
	 * where the last pass stopped reading, as a Material node would,
	 * instead of a drive scan of the whole relation per outer row.  The
	 * first such rescan starts the scan again with the store on.  Not for
	 * a parallel scan (its blocks are shared), an EvalPlanQual recheck, or
	 * a scan with a join filter: the hash join above builds it again on
	 * each rescan from what its inner side returns then (a recursive
	 * union's work table), a parameter that chgParam does not show; nor
	 * with a volatile qual or output.
	 */
	if (node->ss.ps.chgParam == NULL && !ss->partial && ss->jf == NULL &&
		ss->rescan_storable && estate->es_epq_active == NULL)
	{
		if (ts)
		{
			tuplestore_rescan(ts);
			ss->stored_rescans++;
			return;
		}
		back_store_init(ss, estate);
		ts = ss->back_store;
	}
	/* parameters changed: the stored rows are another scan's */
	ss->back_store = NULL;
	ossd_end(node);
	if (ts)
	{
		tuplestore_clear(ts);
		ss->back_store = ts;
		ss->back_eof_underlying = false;
	}
	ss->started = false;
	ss->finished = false;
	if (ss->jf)
		ossd_joinfilter_rescan(ss);
	ss->nhost_blocks = 0;
	ss->host_next = 0;
	ss->nvis = ss->vis_next = 0;
	/* the statistics add up over all loops, as EXPLAIN ANALYZE shows them */
	ss->channel_bytes_done = ss->channel_bytes;
	if (ss->agg)
		ossd_agg_rescan(ss);
}
