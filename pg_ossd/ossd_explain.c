/*-------------------------------------------------------------------------
 *
 * ossd_explain.c
 *		  EXPLAIN output of the pg_ossd CustomScan: device quals,
 *		  projection, aggregates, kernel mode; under ANALYZE the blocks
 *		  scanned on the drive and on the host and the bytes that crossed
 *		  the channel.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "ossd_exec.h"
#include "pg_ossd.h"


void
ossd_explain_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	OssdScanState *ss = (OssdScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	List	   *priv = cscan->custom_private;
	List	   *dpcontext;
	char	   *kernel = strVal(list_nth(priv, OSSD_PRIV_KERNEL));
	List	   *proj = (List *) list_nth(priv, OSSD_PRIV_PROJ);
	StringInfoData buf;
	ListCell   *lc;

	dpcontext = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	if (cscan->custom_exprs != NIL)
	{
		Node	   *q = (Node *) make_ands_explicit(cscan->custom_exprs);

		ExplainPropertyText("Device Filter",
							deparse_expression(q, dpcontext, es->verbose, false), es);
	}
	if (kernel && kernel[0])
		ExplainPropertyText("Device Kernel", kernel, es);
	if (ss->index_blocks != NIL)
		ExplainPropertyText("Drive Blocks from Index",
							get_rel_name((Oid) intVal(linitial(ss->index_blocks))), es);

	initStringInfo(&buf);
	/* an aggregating scan sends partial groups, not projected rows */
	if (list_nth(priv, OSSD_PRIV_AGG) != NIL)
		ossd_agg_explain(ss, dpcontext, es);
	else
	{
		foreach(lc, proj)
		{
			AttrNumber	a = lfirst_int(lc);

			if (buf.len)
				appendStringInfoString(&buf, ", ");
			appendStringInfoString(&buf, quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(rel), a - 1)->attname)));
		}
		ExplainPropertyText("Device Projection", buf.len ? buf.data : "(none)", es);
	}

	ossd_joinfilter_explain(ss, es);

	resetStringInfo(&buf);
	appendStringInfo(&buf, "%s requested", ss->jit ? "jit" : "interpreter");
	if (!ss->jit && ossd_kernel_mode == OSSD_KMODE_JIT)
		appendStringInfoString(&buf, " (below ossd.jit_above_tuples)");
	if (es->analyze && ss->sc == NULL && strcmp(ss->kernel_mode_used, "none") != 0)
		appendStringInfo(&buf, ", drive ran %s", ss->kernel_mode_used);
	ExplainPropertyText("Kernel Mode", buf.data, es);
	/* a deployed kernel is counted by ossd_deployed_kernels, not here */
	if (es->verbose && !(kernel && kernel[0]))
		ExplainPropertyInteger("Kernel Instructions", NULL, intVal(list_nth(priv, OSSD_PRIV_NINSNS)), es);

	if (es->analyze)
	{
		if (ss->index_blocks != NIL)
		{
			ExplainPropertyUInteger("Blocks Named by Index", NULL, ss->blocks_named, es);
			/* the drive looks at these alone on their blocks */
			ExplainPropertyUInteger("Tuples Named by Index", NULL, ss->tuples_named, es);
		}
		ExplainPropertyUInteger("Blocks on Drive", NULL, ss->blocks_drive, es);
		ExplainPropertyUInteger("Blocks on Host", NULL, ss->blocks_host, es);
		ExplainPropertyUInteger("Blocks Handed Back", NULL, ss->blocks_back, es);
		/* dirty all-visible blocks the scan wrote out so the drive could scan them */
		if (ss->blocks_written_out > 0)
			ExplainPropertyUInteger("Blocks Written Out", NULL, ss->blocks_written_out, es);
		/* rows the drive sent, read by the executor or not (LIMIT) */
		ExplainPropertyUInteger("Rows from Drive", NULL, ss->rows_drive, es);
		ExplainPropertyUInteger("Host Rows from Drive", NULL, ss->host_rows_back, es);
		if (list_nth(priv, OSSD_PRIV_AGG) != NIL)
			ExplainPropertyUInteger("Partial Groups from Drive", NULL, ss->groups_drive, es);
		ExplainPropertyUInteger("Scans on Host for Want of a Slot", NULL, ss->slot_fallbacks, es);
		/* a drive that does not announce what the kernels call (ossd_exec.c) */
		if (ss->feature_fallbacks > 0)
			ExplainPropertyUInteger("Scans on Host for Want of a Drive Feature", NULL,
									ss->feature_fallbacks, es);
		/* rescans with unchanged parameters, read from the stored rows */
		if (ss->stored_rescans > 0)
			ExplainPropertyUInteger("Rescans from Stored Rows", NULL, ss->stored_rescans, es);
		/* a partial scan: the chunks of blocks its processes took in turn */
		if (ss->partial)
			ExplainPropertyUInteger("Block Chunks", NULL, ss->chunks_claimed, es);
		ExplainPropertyUInteger("Channel Bytes", "bytes", ss->channel_bytes, es);
		ExplainPropertyUInteger("Heap Bytes on Drive", "bytes", ss->blocks_drive * BLCKSZ, es);
		/* a striped relation: what each drive of the array did */
		ossd_array_explain(ss, es);
		if (es->verbose)
		{
			ExplainPropertyUInteger("Drive Tuples Seen", NULL, ss->dev_tuples_seen, es);
			ExplainPropertyUInteger("Drive Tuples Visible", NULL, ss->dev_tuples_visible, es);
			ExplainPropertyUInteger("Drive Tuples Matched", NULL, ss->dev_tuples_matched, es);
			ExplainPropertyFloat("Drive Time", "ms", ss->dev_ns / 1e6, 3, es);
			ExplainPropertyUInteger("Snapshot Bound Xid", NULL, ss->snapshot_bound, es);
		}
	}
}
