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
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

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

/* Every drive of an ossd tablespace, plus ossd.default_device */
static List *
all_devices(List **spcnames)
{
	List	   *uris = NIL;
	List	   *names = NIL;
	uint64		i;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT oid, spcname FROM pg_catalog.pg_tablespace ORDER BY oid", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute failed");
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			spc = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		char	   *uri;

		if (ossd_tablespace_device(spc, &uri))
		{
			MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);

			uris = lappend(uris, pstrdup(uri));
			names = lappend(names, pstrdup(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2)));
			MemoryContextSwitchTo(old);
		}
	}
	SPI_finish();
	if (ossd_default_device && ossd_default_device[0])
	{
		ListCell   *lc;
		bool		found = false;

		foreach(lc, uris)
			if (strcmp(lfirst(lc), ossd_default_device) == 0)
				found = true;
		if (!found)
		{
			uris = lappend(uris, pstrdup(ossd_default_device));
			names = lappend(names, NULL);
		}
	}
	if (spcnames)
		*spcnames = names;
	return uris;
}

/* The device named by a function's first argument, or every device. */
static List *
devices_from_arg(FunctionCallInfo fcinfo)
{
	if (!PG_ARGISNULL(0))
		return list_make1(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	return all_devices(NULL);
}

static char *
resolve_device(text *arg)
{
	List	   *uris;

	if (arg)
		return text_to_cstring(arg);
	if (ossd_default_device && ossd_default_device[0])
		return pstrdup(ossd_default_device);
	uris = all_devices(NULL);
	if (uris == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("no OSSD drive is known"),
				 errhint("Create a tablespace on an ossdfs mount, or set ossd.default_device.")));
	return linitial(uris);
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
	uris = devices_from_arg(fcinfo);
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
 * ossd_deploy_kernel(name text, image bytea, device text, replace bool)
 */
Datum
ossd_deploy_kernel(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	bytea	   *image = PG_GETARG_BYTEA_PP(1);
	char	   *uri = resolve_device(PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2));
	bool		replace = PG_ARGISNULL(3) ? false : PG_GETARG_BOOL(3);
	struct ossd_prog *prog;
	char		hash[65];
	Ossd__Request req = OSSD__REQUEST__INIT;
	Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
	Ossd__Response *resp;
	Oid			argtypes[4] = {TEXTOID, TEXTOID, BYTEAOID, BOOLOID};
	Datum		args[4];

	if (name[0] == '\0' || strlen(name) > 63)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kernel names must have 1 to 63 characters")));
	prog = load_verified(name, VARDATA_ANY(image), VARSIZE_ANY_EXHDR(image));
	ossd_prog_hash_hex(prog, hash);
	ossd_prog_free(prog);

	kd.name = name;
	kd.image.data = (uint8_t *) VARDATA_ANY(image);
	kd.image.len = VARSIZE_ANY_EXHDR(image);
	kd.replace = replace;
	req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
	req.kernel_deploy = &kd;
	call_or_error(uri, &req, &resp, "KERNEL DEPLOY");
	ossd__response__free_unpacked(resp, NULL);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	args[0] = CStringGetTextDatum(name);
	args[1] = CStringGetTextDatum(uri);
	args[2] = PointerGetDatum(image);
	args[3] = BoolGetDatum(replace);
	if (SPI_execute_with_args("INSERT INTO kernel_images (name, device, image) VALUES ($1, $2, $3) "
							  "ON CONFLICT (name) DO UPDATE SET device = $2, image = $3, deployed_at = now() "
							  "WHERE $4",
							  4, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record kernel \"%s\"", name);
	SPI_finish();
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
	uris = devices_from_arg(fcinfo);
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

Datum
ossd_drop_kernel(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *uri = resolve_device(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1));
	Ossd__Request req = OSSD__REQUEST__INIT;
	Ossd__KernelRemove kr = OSSD__KERNEL_REMOVE__INIT;
	Ossd__Response *resp;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];

	kr.name = name;
	req.body_case = OSSD__REQUEST__BODY_KERNEL_REMOVE;
	req.kernel_remove = &kr;
	call_or_error(uri, &req, &resp, "KERNEL REMOVE");
	ossd__response__free_unpacked(resp, NULL);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	args[0] = CStringGetTextDatum(name);
	SPI_execute_with_args("DELETE FROM kernel_images WHERE name = $1", 1, argtypes, args,
						  NULL, false, 0);
	SPI_finish();
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
	if (SPI_execute_with_args("SELECT image FROM kernel_images WHERE name = $1", 1, argtypes,
							  args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
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

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (nargs > OSSD_KCTX_MAX_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_ARGUMENTS),
				 errmsg("ossd_filter takes at most %d kernel arguments", OSSD_KCTX_MAX_COLS)));
	fc = filter_cache(fcinfo, name);
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
	if (r == OSSD_ROW_TO_HOST)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("kernel \"%s\" handed a row to the host, which has no other way to evaluate it", name)));
	pfree(ctx);
	PG_RETURN_BOOL(r == OSSD_ROW_MATCH);
}
