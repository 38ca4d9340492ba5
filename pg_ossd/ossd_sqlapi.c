/*-------------------------------------------------------------------------
 *
 * ossd_sqlapi.c
 *		  SQL-callable functions: drives, their statistics, deployed
 *		  kernels, and ossd_filter(name, VARIADIC "any").
 *
 * Deployed kernels are verified here first (the same verifier the drive
 * runs, so a rejection quotes it), then deployed on the drive, and their
 * images kept in the table kernel_images so that ossd_filter() can run the
 * same kernel, with the same runtime, on rows the host evaluates (host-side
 * blocks, rows handed back, scans that are not offloaded).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "libossd.h"
#include "ossd_rt.h"
#include "ossd_jit.h"
#include "pg_ossd.h"

PG_FUNCTION_INFO_V1(ossd_devices);
PG_FUNCTION_INFO_V1(ossd_device_stats);
PG_FUNCTION_INFO_V1(ossd_deploy_kernel);
PG_FUNCTION_INFO_V1(ossd_kernels);
PG_FUNCTION_INFO_V1(ossd_drop_kernel);
PG_FUNCTION_INFO_V1(ossd_filter);

/*
 * The drives SQL may name: those of ossd tablespaces (the user.ossd.device
 * xattr that ossdfs puts on the tablespace directory, and on an array
 * every member of its user.ossd.array), ossd.default_device
 * and the entries of ossd.devices -- both superuser-only settings.  A URI
 * whose scheme would open a drive image inside this process (inproc:,
 * file:) is never among them, whoever wrote it.  *spcnames gets the
 * tablespace of each drive (NULL for the registered ones).
 */
static List *
all_devices(List **spcnames)
{
	List	   *uris = NIL;
	List	   *names = NIL;
	List	   *registered = NIL;
	ListCell   *lc;
	uint64		i;
	MemoryContext cxt = CurrentMemoryContext;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT oid, spcname FROM pg_catalog.pg_tablespace ORDER BY oid", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute failed");
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			spc = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		char	   *uri;
		const char *why;

		if (ossd_tablespace_device(spc, &uri) && ossd_device_uri_allowed(uri, &why) &&
			!list_member(uris, makeString(uri)))
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);
			ListCell   *mc;

			uris = lappend(uris, makeString(pstrdup(uri)));
			names = lappend(names, pstrdup(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2)));
			/* an array tablespace: every member drive too (ossd_array.c) */
			foreach(mc, ossd_tablespace_members(spc))
				if (ossd_device_uri_allowed(lfirst(mc), &why) &&
					!list_member(uris, makeString(lfirst(mc))))
				{
					uris = lappend(uris, makeString(pstrdup(lfirst(mc))));
					names = lappend(names, pstrdup(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2)));
				}
			MemoryContextSwitchTo(old);
		}
	}
	SPI_finish();

	if (ossd_default_device && ossd_default_device[0])
		registered = lappend(registered, pstrdup(ossd_default_device));
	if (ossd_devices_guc && ossd_devices_guc[0])
	{
		List	   *elems;

		/* the check hook accepted the syntax */
		if (SplitGUCList(pstrdup(ossd_devices_guc), ',', &elems))
			registered = list_concat(registered, elems);
	}
	foreach(lc, registered)
	{
		const char *why;

		if (ossd_device_uri_allowed(lfirst(lc), &why) &&
			!list_member(uris, makeString(lfirst(lc))))
		{
			uris = lappend(uris, makeString(lfirst(lc)));
			names = lappend(names, NULL);
		}
	}
	if (spcnames)
		*spcnames = names;
	/* plain C strings for the callers */
	foreach(lc, uris)
		lfirst(lc) = strVal(lfirst(lc));
	return uris;
}

/*
 * A device named by an SQL argument: refused unless it is one of
 * all_devices().
 */
static char *
known_device(text *arg)
{
	char	   *uri = text_to_cstring(arg);
	const char *why;
	ListCell   *lc;

	if (!ossd_device_uri_allowed(uri, &why))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("device URI \"%s\" is not allowed", uri),
				 errdetail("%s", why)));
	foreach(lc, all_devices(NULL))
		if (strcmp(lfirst(lc), uri) == 0)
			return uri;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("device \"%s\" is not a known OSSD drive", uri),
			 errdetail("SQL may name only the drives of ossd tablespaces and those of ossd.devices and ossd.default_device."),
			 errhint("A superuser can add the drive to ossd.devices.")));
	return NULL;				/* keep the compiler quiet */
}

/*
 * The drives a function works on: the one named by argument `argno`, or
 * every known drive when it is NULL.  `required`: no drive is an ERROR.
 * `whole_array`: a named drive of an array tablespace stands for every
 * drive of the array (a kernel must be on each drive a scan goes to).
 */
static List *
target_devices(FunctionCallInfo fcinfo, int argno, bool required, bool whole_array)
{
	List	   *uris;

	if (!PG_ARGISNULL(argno))
	{
		char	   *uri = known_device(PG_GETARG_TEXT_PP(argno));
		List	   *names;
		List	   *res = NIL;
		char	   *spc = NULL;
		ListCell   *lc,
				   *nc;

		if (!whole_array)
			return list_make1(uri);
		/* all_devices names each drive of a tablespace by that tablespace */
		uris = all_devices(&names);
		forboth(lc, uris, nc, names)
			if (strcmp(lfirst(lc), uri) == 0)
				spc = lfirst(nc);
		if (spc == NULL)
			return list_make1(uri);
		forboth(lc, uris, nc, names)
			if (lfirst(nc) && strcmp(lfirst(nc), spc) == 0)
				res = lappend(res, lfirst(lc));
		return res;
	}
	uris = all_devices(NULL);
	if (uris == NIL && required)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("no OSSD drive is known"),
				 errhint("Create a tablespace on an ossdfs mount, or add the drive to ossd.devices.")));
	return uris;
}

/* ERROR unless argument `argno` is not NULL. */
static void
arg_not_null(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
}

/*
 * The kernel_images table, schema-qualified: the extension's schema is
 * that of the SQL function being run (fn_oid), so a table of the same name
 * earlier in search_path (pg_temp comes first) is never used.
 */
static char *
kernel_images_table(FunctionCallInfo fcinfo)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);

	return psprintf("%s.kernel_images", quote_identifier(get_namespace_name(nsp)));
}

static void
call_or_error(const char *uri, Ossd__Request *req, Ossd__Response **resp, const char *what)
{
	ossd_t	   *o = ossd_get_connection(uri);
	ossd_error	err;

	int			r;

	memset(&err, 0, sizeof(err));
	*resp = NULL;
	r = ossd_call(o, req, resp, &err);
	if (r < 0 && ((err.status == OSSD_STATUS_TRANSPORT && err.errnum != ETIMEDOUT) ||
				  err.status == OSSD__STATUS__ERR_SLOT))
	{
		/* a cached connection whose slot lease lapsed: reconnect once */
		if (*resp)
			ossd__response__free_unpacked(*resp, NULL);
		*resp = NULL;
		ossd_forget_connection(uri);
		o = ossd_get_connection(uri);
		memset(&err, 0, sizeof(err));
		r = ossd_call(o, req, resp, &err);
	}
	if (r < 0)
	{
		int			status = err.status;

		if (*resp)
			ossd__response__free_unpacked(*resp, NULL);
		*resp = NULL;
		ossd_interrupts_after_wait(status);
		if (status == OSSD_STATUS_TRANSPORT)
			ossd_forget_connection(uri);
		ereport(ERROR,
				(errcode(status == OSSD__STATUS__ERR_VERIFIER ? ERRCODE_INVALID_PARAMETER_VALUE :
						 status == OSSD__STATUS__ERR_NOT_FOUND ? ERRCODE_UNDEFINED_OBJECT :
						 ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("%s failed on drive \"%s\"", what, uri),
				 errdetail("%s", err.msg)));
	}
}

/*
 * ossd_devices(): one row per known drive.
 */
Datum
ossd_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *names;
	List	   *uris;
	ListCell   *lc1,
			   *lc2;

	InitMaterializedSRF(fcinfo, 0);
	uris = all_devices(&names);
	forboth(lc1, uris, lc2, names)
	{
		Datum		values[10];
		bool		nulls[10];
		ossd_t	   *o = NULL;
		Ossd__InfoResult *info = NULL;
		ossd_error	err;
		struct ossd_connect_opts opts;

		memset(nulls, 0, sizeof(nulls));
		memset(&err, 0, sizeof(err));
		values[0] = CStringGetTextDatum(lfirst(lc1));
		if (lfirst(lc2))
			values[1] = CStringGetTextDatum(lfirst(lc2));
		else
			nulls[1] = true;
		memset(&opts, 0, sizeof(opts));
		opts.client_name = "pg_ossd";
		opts.timeout_ms = 5000;
		/* a dedicated short-lived connection: a dead drive is reported, not raised */
		if (ossd_connect(lfirst(lc1), &opts, &o, &err) == 0 &&
			ossd_info(o, &info, &err) == 0)
		{
			values[2] = BoolGetDatum(true);
			values[3] = Int64GetDatum(info->capacity_bytes);
			values[4] = Int64GetDatum(info->used_bytes);
			values[5] = Int64GetDatum(info->free_bytes);
			values[6] = Int64GetDatum(info->objects);
			values[7] = Int32GetDatum(info->scan_workers);
			values[8] = CStringGetTextDatum(info->firmware ? info->firmware : "");
			values[9] = CStringGetTextDatum(info->profile ? info->profile : "");
			ossd__info_result__free_unpacked(info, NULL);
		}
		else
		{
			values[2] = BoolGetDatum(false);
			for (int i = 3; i < 10; i++)
				nulls[i] = true;
		}
		ossd_disconnect(o);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * ossd_device_stats(device text default null): counters and gauges.
 */
Datum
ossd_device_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *uris;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	uris = target_devices(fcinfo, 0, false, false);
	foreach(lc, uris)
	{
		Ossd__Request req = OSSD__REQUEST__INIT;
		Ossd__Stats st = OSSD__STATS__INIT;
		Ossd__Response *resp;

		req.body_case = OSSD__REQUEST__BODY_STATS;
		req.stats = &st;
		call_or_error(lfirst(lc), &req, &resp, "STATS");
		if (resp->stats)
		{
			for (size_t i = 0; i < resp->stats->n_counters; i++)
			{
				Datum		values[3];
				bool		nulls[3] = {false, false, false};

				values[0] = CStringGetTextDatum(lfirst(lc));
				values[1] = CStringGetTextDatum(resp->stats->counters[i]->key);
				values[2] = Float8GetDatum((double) resp->stats->counters[i]->value);
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			}
			for (size_t i = 0; i < resp->stats->n_gauges; i++)
			{
				Datum		values[3];
				bool		nulls[3] = {false, false, false};

				values[0] = CStringGetTextDatum(lfirst(lc));
				values[1] = CStringGetTextDatum(resp->stats->gauges[i]->key);
				values[2] = Float8GetDatum(resp->stats->gauges[i]->value);
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			}
		}
		ossd__response__free_unpacked(resp, NULL);
	}
	return (Datum) 0;
}

/* Load and verify an image; ERROR quoting the verifier on rejection. */
static struct ossd_prog *
load_verified(const char *name, const void *img, size_t len)
{
	struct ossd_prog *prog = NULL;
	char		log[2048];

	log[0] = '\0';
	if (ossd_prog_load(img, len, &prog, log, sizeof(log)) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kernel \"%s\" could not be loaded", name),
				 errdetail("%s", log)));
	if (ossd_prog_verify(prog, log, sizeof(log)) < 0)
	{
		char	   *msg = pstrdup(log);

		ossd_prog_free(prog);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kernel \"%s\" was rejected by the verifier", name),
				 errdetail("verifier: %s", msg)));
	}
	return prog;
}

/*
 * The number of arguments a verified kernel takes: one per ctx->col[i] it
 * can read, or -1 when it reads ctx->ncols (it adapts to what it is given).
 */
static int
kernel_takes(const struct ossd_prog *prog)
{
	return prog->reads_ncols ? -1 : (int) prog->ncols_read;
}

/* ERROR unless a kernel that takes `takes` arguments (-1: any) gets `given`. */
static void
check_kernel_args(const char *name, int takes, int given)
{
	if (takes >= 0 && takes != given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kernel \"%s\" takes %d argument%s, but ossd_filter passes %d",
						name, takes, takes == 1 ? "" : "s", given),
				 errdetail("The verifier found that the kernel reads ctx->col[0] to ctx->col[%d].",
						   takes - 1)));
}

/*
 * Plan time: ossd_filter(name, ...) with `given` kernel arguments.  Checked
 * against kernel_images.nargs (recorded at deploy), so that a scan whose
 * blocks all go to the drive -- where ossd_filter() never runs on the host --
 * reports a mismatch too.  A kernel not in kernel_images is left to the
 * drive and to ossd_filter().  filter_fn: the OID of ossd_filter, in the
 * extension's schema.
 */
void
ossd_check_kernel_call(Oid filter_fn, const char *name, int given)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	int			takes = -1;
	Oid			nsp = get_func_namespace(filter_fn);
	char	   *table;

	/* an ossd_filter of another schema, not the extension's */
	if (!OidIsValid(get_relname_relid("kernel_images", nsp)))
		return;
	table = psprintf("%s.kernel_images", quote_identifier(get_namespace_name(nsp)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_with_args(psprintf("SELECT nargs FROM %s WHERE name = $1", table),
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read %s", table);
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			takes = DatumGetInt32(d);
	}
	SPI_finish();
	check_kernel_args(name, takes, given);
}

/* ---------------------------------------------------------------------
 * Deploying and dropping kernels, transactionally
 *
 * A deploy or drop changes two things: the drive's kernel table and the
 * row of kernel_images.  They commit or fail together:
 *
 *	1. LOCK TABLE kernel_images IN SHARE ROW EXCLUSIVE MODE.  It needs a
 *	   write privilege on the table, so a role that may not change the
 *	   catalog is refused here, before any drive is touched; and it orders
 *	   concurrent deploys and drops (readers -- ossd_filter -- are not
 *	   blocked), so the row read next stays what the drives hold.
 *	2. The row is read (the previous image) and written (or deleted).
 *	3. For each drive, before changing it, an undo entry is recorded: the
 *	   previous image to deploy back (replace), or "remove the kernel".
 *	   Then the drive is changed.  The entry is recorded first so that an
 *	   ERROR or a cancel while the request is in flight is undone too (both
 *	   undo actions are idempotent).
 *	4. If the transaction (or the subtransaction that made the change)
 *	   aborts, the entries are played back newest first; at commit they are
 *	   dropped.
 *
 * Why not defer the drive change to pre-commit instead?  The drive's
 * answer (a name already taken, a drive that is down, no space) would
 * then come at COMMIT, not from the call that caused it, and could not be
 * caught by the caller's exception block; and with several drives a
 * failure on the second would still need the first one undone.  Undo on
 * abort keeps errors where they belong and needs one mechanism.
 *
 * The one change that cannot be undone is removing a kernel that the
 * drive holds but kernel_images does not know (deployed by ossdctl, or
 * left over from a crash): there is no image to deploy back.  That removal
 * is the only one deferred, to after the commit (a failure then is a
 * WARNING: the drive keeps the stray kernel).  For the same reason a
 * deploy refuses a name that a drive holds without a catalog row.
 * ---------------------------------------------------------------------
 */
typedef enum KernelChangeKind
{
	KC_UNDO_REMOVE,				/* on abort: remove the kernel */
	KC_UNDO_REDEPLOY,			/* on abort: deploy image back (replace) */
	KC_COMMIT_REMOVE			/* after commit: remove the kernel */
} KernelChangeKind;

typedef struct KernelChange
{
	KernelChangeKind kind;
	SubTransactionId subid;		/* subtransaction that made the change */
	char	   *uri;
	char	   *name;
	bytea	   *image;			/* KC_UNDO_REDEPLOY */
} KernelChange;

/* newest first; everything in TopMemoryContext */
static List *kernel_changes = NIL;
static bool kernel_callbacks_registered = false;

static void
kernel_change_free(KernelChange *kc)
{
	pfree(kc->uri);
	pfree(kc->name);
	if (kc->image)
		pfree(kc->image);
	pfree(kc);
}

/*
 * Play one entry back on a connection of its own (the cached one may be in
 * the middle of the request that failed).  Never raises an ERROR: this runs
 * in transaction callbacks.
 */
static void
kernel_change_apply(KernelChange *kc)
{
	ossd_t	   *o = NULL;
	ossd_error	err;
	struct ossd_connect_opts opts;
	Ossd__Request req = OSSD__REQUEST__INIT;
	Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
	Ossd__KernelRemove kr = OSSD__KERNEL_REMOVE__INIT;
	Ossd__Response *resp = NULL;
	int			r;

	memset(&err, 0, sizeof(err));
	memset(&opts, 0, sizeof(opts));
	opts.client_name = "pg_ossd";
	opts.timeout_ms = ossd_timeout_ms;
	if (kc->kind == KC_UNDO_REDEPLOY)
	{
		kd.name = kc->name;
		kd.image.data = (uint8_t *) VARDATA_ANY(kc->image);
		kd.image.len = VARSIZE_ANY_EXHDR(kc->image);
		kd.replace = true;
		req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
		req.kernel_deploy = &kd;
	}
	else
	{
		kr.name = kc->name;
		req.body_case = OSSD__REQUEST__BODY_KERNEL_REMOVE;
		req.kernel_remove = &kr;
	}
	r = ossd_connect(kc->uri, &opts, &o, &err);
	if (r == 0)
	{
		/* the drive checks the kernel right on this connection too */
		(void) ossd_add_kernel_capability(o, kc->uri);
		r = ossd_call(o, &req, &resp, &err);
	}
	if (resp)
		ossd__response__free_unpacked(resp, NULL);
	ossd_disconnect(o);
	/* removing what is not there is what we wanted */
	if (r < 0 && !(kc->kind != KC_UNDO_REDEPLOY && err.status == OSSD__STATUS__ERR_NOT_FOUND))
		ereport(WARNING,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("could not %s kernel \"%s\" on drive \"%s\"",
						kc->kind == KC_UNDO_REDEPLOY ? "restore the previous" :
						kc->kind == KC_UNDO_REMOVE ? "remove the rolled-back" : "remove the dropped",
						kc->name, kc->uri),
				 errdetail("%s", err.msg[0] ? err.msg : "transport error"),
				 errhint("Check the drive's kernels with ossd_kernels().")));
}

/*
 * Play back (or just forget) the entries of subtransaction `subid`, or all
 * of them when subid is InvalidSubTransactionId.
 */
static void
kernel_changes_finish(bool commit, SubTransactionId subid)
{
	ListCell   *lc;

	foreach(lc, kernel_changes)
	{
		KernelChange *kc = lfirst(lc);

		if (subid != InvalidSubTransactionId && kc->subid != subid)
			continue;
		if (commit ? kc->kind == KC_COMMIT_REMOVE : kc->kind != KC_COMMIT_REMOVE)
			kernel_change_apply(kc);
		kernel_change_free(kc);
		kernel_changes = foreach_delete_current(kernel_changes, lc);
	}
}

static void
kernel_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_PREPARE:
			if (kernel_changes != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that deployed or dropped OSSD kernels")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			kernel_changes_finish(true, InvalidSubTransactionId);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			kernel_changes_finish(false, InvalidSubTransactionId);
			break;
		default:
			break;
	}
}

static void
kernel_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_ABORT_SUB)
		kernel_changes_finish(false, mySubid);
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		foreach(lc, kernel_changes)
		{
			KernelChange *kc = lfirst(lc);

			if (kc->subid == mySubid)
				kc->subid = parentSubid;
		}
	}
}

static void
kernel_change_record(KernelChangeKind kind, const char *uri, const char *name,
					 bytea *image)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	KernelChange *kc = palloc0(sizeof(KernelChange));

	if (!kernel_callbacks_registered)
	{
		RegisterXactCallback(kernel_xact_callback, NULL);
		RegisterSubXactCallback(kernel_subxact_callback, NULL);
		kernel_callbacks_registered = true;
	}
	kc->kind = kind;
	kc->subid = GetCurrentSubTransactionId();
	kc->uri = pstrdup(uri);
	kc->name = pstrdup(name);
	if (image)
	{
		kc->image = palloc(VARSIZE_ANY(image));
		memcpy(kc->image, image, VARSIZE_ANY(image));
	}
	kernel_changes = lcons(kc, kernel_changes);
	MemoryContextSwitchTo(old);
}

/* Does the drive hold a kernel of this name? */
static bool
drive_has_kernel(const char *uri, const char *name)
{
	Ossd__Request req = OSSD__REQUEST__INIT;
	Ossd__KernelList kl = OSSD__KERNEL_LIST__INIT;
	Ossd__Response *resp;
	bool		found = false;

	req.body_case = OSSD__REQUEST__BODY_KERNEL_LIST;
	req.kernel_list = &kl;
	call_or_error(uri, &req, &resp, "KERNEL LIST");
	if (resp->kernels)
		for (size_t i = 0; i < resp->kernels->n_kernels; i++)
			if (strcmp(resp->kernels->kernels[i]->name, name) == 0)
				found = true;
	ossd__response__free_unpacked(resp, NULL);
	return found;
}

/*
 * Steps 1 and 2 of the protocol: lock kernel_images and read the image
 * recorded for `name` (NULL if none), copied into the caller's context.
 * Must be called inside SPI_connect().
 */
static bytea *
lock_and_read_catalog(const char *table, const char *name, MemoryContext cxt)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	bytea	   *old = NULL;

	if (SPI_execute(psprintf("LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE", table), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not lock %s", table);
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_with_args(psprintf("SELECT image FROM %s WHERE name = $1", table),
							  1, argtypes, args, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read %s", table);
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		MemoryContext oldcxt = MemoryContextSwitchTo(cxt);

		old = DatumGetByteaPCopy(d);
		MemoryContextSwitchTo(oldcxt);
	}
	return old;
}

static void
check_kernel_name(const char *name)
{
	if (name[0] == '\0' || strlen(name) > 63)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kernel names must have 1 to 63 characters")));
}

/*
 * ossd_deploy_kernel(name text, image bytea, device text, replace bool)
 *
 * Deploys on the named drive, or on every known drive when device is NULL.
 */
Datum
ossd_deploy_kernel(PG_FUNCTION_ARGS)
{
	char	   *name;
	bytea	   *image;
	bool		replace;
	List	   *uris;
	List	   *on_drive = NIL;
	ListCell   *lc,
			   *lc2;
	struct ossd_prog *prog;
	char		hash[65];
	char	   *table = kernel_images_table(fcinfo);
	bytea	   *old;
	int			nargs;
	Oid			argtypes[4] = {TEXTOID, TEXTOID, BYTEAOID, INT4OID};
	Datum		args[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	MemoryContext cxt = CurrentMemoryContext;

	arg_not_null(fcinfo, 0, "kernel name");
	arg_not_null(fcinfo, 1, "kernel image");
	arg_not_null(fcinfo, 3, "replace");
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	image = PG_GETARG_BYTEA_PP(1);
	replace = PG_GETARG_BOOL(3);
	check_kernel_name(name);
	uris = target_devices(fcinfo, 2, true, true);

	prog = load_verified(name, VARDATA_ANY(image), VARSIZE_ANY_EXHDR(image));
	ossd_prog_hash_hex(prog, hash);
	nargs = kernel_takes(prog);
	ossd_prog_free(prog);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	old = lock_and_read_catalog(table, name, cxt);
	if (old && !replace)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("kernel \"%s\" is already deployed", name),
				 errhint("Pass replace => true to replace it.")));
	/* what each drive holds, before anything changes */
	foreach(lc, uris)
	{
		const char *uri = lfirst(lc);
		bool		exists = drive_has_kernel(uri, name);

		if (exists && old == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("drive \"%s\" holds a kernel \"%s\" that pg_ossd did not deploy", uri, name),
					 errdetail("It is not in kernel_images, so replacing it could not be undone."),
					 errhint("Remove it with ossd_drop_kernel('%s') first.", name)));
		on_drive = lappend_int(on_drive, exists);
	}
	args[0] = CStringGetTextDatum(name);
	if (PG_ARGISNULL(2))
		nulls[1] = 'n';
	else
		args[1] = CStringGetTextDatum(linitial(uris));
	args[2] = PointerGetDatum(image);
	args[3] = Int32GetDatum(nargs);
	if (nargs < 0)
		nulls[3] = 'n';
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (name, device, image, nargs) VALUES ($1, $2, $3, $4) "
									   "ON CONFLICT (name) DO UPDATE SET device = $2, image = $3, nargs = $4, deployed_at = now()",
									   table),
							  4, argtypes, args, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record kernel \"%s\"", name);
	SPI_finish();

	/* step 3: the drives */
	forboth(lc, uris, lc2, on_drive)
	{
		const char *uri = lfirst(lc);
		bool		exists = lfirst_int(lc2);
		Ossd__Request req = OSSD__REQUEST__INIT;
		Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
		Ossd__Response *resp;

		if (exists)
			kernel_change_record(KC_UNDO_REDEPLOY, uri, name, old);
		else
			kernel_change_record(KC_UNDO_REMOVE, uri, name, NULL);
		kd.name = name;
		kd.image.data = (uint8_t *) VARDATA_ANY(image);
		kd.image.len = VARSIZE_ANY_EXHDR(image);
		kd.replace = exists;
		req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
		req.kernel_deploy = &kd;
		call_or_error(uri, &req, &resp, "KERNEL DEPLOY");
		ossd__response__free_unpacked(resp, NULL);
	}
	PG_RETURN_TEXT_P(cstring_to_text(hash));
}

/*
 * ossd_kernels(device text default null): the drive's list.
 */
Datum
ossd_kernels(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *uris;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	uris = target_devices(fcinfo, 0, false, false);
	foreach(lc, uris)
	{
		Ossd__Request req = OSSD__REQUEST__INIT;
		Ossd__KernelList kl = OSSD__KERNEL_LIST__INIT;
		Ossd__Response *resp;

		req.body_case = OSSD__REQUEST__BODY_KERNEL_LIST;
		req.kernel_list = &kl;
		call_or_error(lfirst(lc), &req, &resp, "KERNEL LIST");
		if (resp->kernels)
		{
			for (size_t i = 0; i < resp->kernels->n_kernels; i++)
			{
				Ossd__KernelInfo *k = resp->kernels->kernels[i];
				Datum		values[7];
				bool		nulls[7] = {0};
				char		hex[17];

				snprintf(hex, sizeof(hex), "%016llx", (unsigned long long) k->hash);
				values[0] = CStringGetTextDatum(lfirst(lc));
				values[1] = CStringGetTextDatum(k->name);
				values[2] = CStringGetTextDatum(hex);
				values[3] = Int32GetDatum(k->insns);
				values[4] = CStringGetTextDatum(k->format ? k->format : "");
				values[5] = TimestampTzGetDatum(time_t_to_timestamptz((pg_time_t) (k->deployed_ns / 1000000000ULL)));
				values[6] = CStringGetTextDatum(k->verifier_log ? k->verifier_log : "");
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			}
		}
		ossd__response__free_unpacked(resp, NULL);
	}
	return (Datum) 0;
}

/*
 * ossd_drop_kernel(name text, device text, if_exists bool)
 *
 * Removes the kernel from the named drive, or from every known drive when
 * device is NULL.  Its row in kernel_images goes when no known drive keeps
 * it.  Returns false (with a NOTICE) when there was nothing to drop and
 * if_exists is true.
 */
Datum
ossd_drop_kernel(PG_FUNCTION_ARGS)
{
	char	   *name;
	bool		if_exists;
	List	   *uris;
	List	   *others = NIL;
	List	   *on_drive = NIL;
	ListCell   *lc,
			   *lc2;
	char	   *table = kernel_images_table(fcinfo);
	bytea	   *old;
	bool		dropped;
	bool		kept = false;
	MemoryContext cxt = CurrentMemoryContext;

	arg_not_null(fcinfo, 0, "kernel name");
	arg_not_null(fcinfo, 2, "if_exists");
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if_exists = PG_GETARG_BOOL(2);
	uris = target_devices(fcinfo, 1, true, true);
	if (!PG_ARGISNULL(1))
		foreach(lc, all_devices(NULL))
			if (strcmp(lfirst(lc), linitial(uris)) != 0)
				others = lappend(others, lfirst(lc));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	old = lock_and_read_catalog(table, name, cxt);
	dropped = old != NULL;

	/* what the drives hold, before anything changes */
	foreach(lc, uris)
	{
		bool		exists = drive_has_kernel(lfirst(lc), name);

		on_drive = lappend_int(on_drive, exists);
		dropped |= exists;
	}
	foreach(lc, others)
		if (drive_has_kernel(lfirst(lc), name))
			kept = true;
	if (old && !kept)
	{
		Oid			argtypes[1] = {TEXTOID};
		Datum		args[1];

		args[0] = CStringGetTextDatum(name);
		if (SPI_execute_with_args(psprintf("DELETE FROM %s WHERE name = $1", table), 1, argtypes, args,
								  NULL, false, 0) != SPI_OK_DELETE)
			elog(ERROR, "could not delete kernel \"%s\" from %s", name, table);
	}
	SPI_finish();

	/* step 3: the drives */
	forboth(lc, uris, lc2, on_drive)
	{
		const char *uri = lfirst(lc);
		Ossd__Request req = OSSD__REQUEST__INIT;
		Ossd__KernelRemove kr = OSSD__KERNEL_REMOVE__INIT;
		Ossd__Response *resp;

		if (!lfirst_int(lc2))
			continue;
		if (old == NULL)
		{
			/* no image to deploy back: removed once the drop commits */
			kernel_change_record(KC_COMMIT_REMOVE, uri, name, NULL);
			continue;
		}
		kernel_change_record(KC_UNDO_REDEPLOY, uri, name, old);
		kr.name = name;
		req.body_case = OSSD__REQUEST__BODY_KERNEL_REMOVE;
		req.kernel_remove = &kr;
		call_or_error(uri, &req, &resp, "KERNEL REMOVE");
		ossd__response__free_unpacked(resp, NULL);
	}

	if (!dropped)
	{
		if (!if_exists)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("kernel \"%s\" is not deployed", name),
					 errhint("Pass if_exists => true to ignore a kernel that is not there.")));
		ereport(NOTICE,
				(errmsg("kernel \"%s\" is not deployed, skipping", name)));
		PG_RETURN_BOOL(false);
	}
	PG_RETURN_BOOL(true);
}

/* ---------------------------------------------------------------------
 * ossd_filter(name, VARIADIC "any"): the kernel run on the host
 * ---------------------------------------------------------------------
 */
typedef struct FilterCache
{
	char		name[64];
	struct ossd_prog *prog;
	struct ossd_jit_kernel *jit;
} FilterCache;

static void
filter_cache_free(void *arg)
{
	FilterCache *fc = arg;

	if (fc->jit)
		ossd_jit_release(fc->jit);
	if (fc->prog)
		ossd_prog_free(fc->prog);
	fc->jit = NULL;
	fc->prog = NULL;
}

static FilterCache *
filter_cache(FunctionCallInfo fcinfo, const char *name)
{
	FilterCache *fc = fcinfo->flinfo->fn_extra;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	bool		isnull;
	bytea	   *img;
	MemoryContextCallback *cb;

	if (fc && strcmp(fc->name, name) == 0)
		return fc;
	if (fc == NULL)
	{
		fc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(FilterCache));
		cb = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(MemoryContextCallback));
		cb->func = filter_cache_free;
		cb->arg = fc;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, cb);
		fcinfo->flinfo->fn_extra = fc;
	}
	filter_cache_free(fc);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_with_args(psprintf("SELECT image FROM %s WHERE name = $1", kernel_images_table(fcinfo)),
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("kernel \"%s\" is not deployed", name),
				 errhint("Deploy it with ossd_deploy_kernel(name, image).")));
	img = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	fc->prog = load_verified(name, VARDATA_ANY(img), VARSIZE_ANY_EXHDR(img));
	SPI_finish();
	strlcpy(fc->name, name, sizeof(fc->name));
	if (ossd_kernel_mode == OSSD_KMODE_JIT)
	{
		char		err[512];

		if (ossd_jit_compile(fc->prog, &fc->jit, err, sizeof(err)) < 0)
			fc->jit = NULL;		/* the interpreter gives the same answers */
	}
	return fc;
}

static void
datum_to_col(Datum d, Oid t, struct ossd_col *c)
{
	memset(c, 0, sizeof(*c));
	switch (t)
	{
		case BOOLOID:
			c->type = OSSD_T_BOOL;
			c->value = DatumGetBool(d) ? 1 : 0;
			break;
		case INT2OID:
			c->type = OSSD_T_INT2;
			c->value = (uint64) (int64) DatumGetInt16(d);
			break;
		case INT4OID:
			c->type = OSSD_T_INT4;
			c->value = (uint64) (int64) DatumGetInt32(d);
			break;
		case INT8OID:
			c->type = OSSD_T_INT8;
			c->value = (uint64) DatumGetInt64(d);
			break;
		case DATEOID:
			c->type = OSSD_T_DATE;
			c->value = (uint64) (int64) DatumGetDateADT(d);
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			c->type = t == TIMESTAMPOID ? OSSD_T_TIMESTAMP : OSSD_T_TIMESTAMPTZ;
			c->value = (uint64) DatumGetTimestamp(d);
			break;
		case FLOAT4OID:
		case FLOAT8OID:
			{
				double		f = t == FLOAT4OID ? (double) DatumGetFloat4(d) : DatumGetFloat8(d);

				c->type = t == FLOAT4OID ? OSSD_T_FLOAT4 : OSSD_T_FLOAT8;
				memcpy(&c->value, &f, 8);
				break;
			}
		case NUMERICOID:
			{
				Numeric		n = DatumGetNumeric(d);
				struct ossd_numeric *on = palloc(sizeof(struct ossd_numeric));

				if (ossd_numeric_from_pg(VARDATA_ANY(n), VARSIZE_ANY_EXHDR(n), on) != 0)
					ereport(ERROR,
							(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							 errmsg("numeric value outside the kernel ABI's 128-bit range")));
				c->type = OSSD_T_NUMERIC;
				c->data = (uint64) (uintptr_t) on;
				c->len = sizeof(*on);
				break;
			}
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			{
				text	   *tx = DatumGetTextPP(d);

				c->type = t == TEXTOID ? OSSD_T_TEXT : t == VARCHAROID ? OSSD_T_VARCHAR : OSSD_T_BPCHAR;
				c->data = (uint64) (uintptr_t) VARDATA_ANY(tx);
				c->len = VARSIZE_ANY_EXHDR(tx);
				break;
			}
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("ossd_filter does not support arguments of type %s", format_type_be(t))));
	}
}

Datum
ossd_filter(PG_FUNCTION_ARGS)
{
	char	   *name;
	FilterCache *fc;
	struct ossd_kctx *ctx;
	struct ossd_exec_state st;
	int64		r;
	int			nargs = PG_NARGS() - 1;

	arg_not_null(fcinfo, 0, "kernel name");
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (nargs > OSSD_KCTX_MAX_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_ARGUMENTS),
				 errmsg("ossd_filter takes at most %d kernel arguments", OSSD_KCTX_MAX_COLS)));
	fc = filter_cache(fcinfo, name);
	check_kernel_args(name, kernel_takes(fc->prog), nargs);
	ctx = palloc0(sizeof(struct ossd_kctx));
	ctx->ncols = nargs;
	for (int i = 0; i < nargs; i++)
	{
		if (PG_ARGISNULL(i + 1))
		{
			ctx->col[i].isnull = 1;
			ctx->col[i].type = OSSD_T_NONE;
			continue;
		}
		datum_to_col(PG_GETARG_DATUM(i + 1), get_fn_expr_argtype(fcinfo->flinfo, i + 1), &ctx->col[i]);
	}
	ossd_exec_state_init(&st);
	r = fc->jit ? ossd_jit_run(fc->jit, ctx, &st) : ossd_interp_run(fc->prog, ctx, &st);
	if (r < 0)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("kernel \"%s\" faulted", name),
				 errdetail("instruction %u: %s", st.fault_insn,
						   st.fault_reason ? st.fault_reason : "run-time error")));
	pfree(ctx);
	/*
	 * TO_HOST: the kernel (or a helper, on overflow) cannot decide this row.
	 * The host has no other code for a custom kernel, so the answer is
	 * unknown, as SQL has it: NULL (WHERE drops the row), the same whether
	 * the drive handed the row back or the host ran the kernel itself.
	 */
	if (r == OSSD_ROW_TO_HOST)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(r == OSSD_ROW_MATCH);
}
