/*-------------------------------------------------------------------------
 *
 * pg_ossd.c
 *		  Module entry point and every GUC of pg_ossd.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/varlena.h"

#include "pg_ossd.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

bool		ossd_enabled = true;
bool		ossd_aggregate_pushdown = true;
int			ossd_kernel_mode = OSSD_KMODE_JIT;
int			ossd_jit_above_tuples = 50000;
int			ossd_min_relation_pages = 128;
double		ossd_drive_startup_cost = 150.0;
double		ossd_drive_page_cost = 0.5;
double		ossd_drive_tuple_cost = 0.0135;
double		ossd_transfer_tuple_cost = 0.06;
double		ossd_drive_transfer_tuple_cost = 0.06;
double		ossd_drive_call_cost = 0.004;
double		ossd_drive_inline_call_share = 0.3;
bool		ossd_force_offload = false;
char	   *ossd_default_device = NULL;
char	   *ossd_devices_guc = NULL;
int			ossd_timeout_ms = 60000;
int			ossd_parallel_chunk_blocks = 0;
int			ossd_device_workers = 0;
int			ossd_array_scan_drives = 0;
bool		ossd_join_filter = true;
bool		ossd_index_blocks = true;

static const struct config_enum_entry kernel_mode_options[] = {
	{"jit", OSSD_KMODE_JIT, false},
	{"interpreter", OSSD_KMODE_INTERPRETER, false},
	{NULL, 0, false}
};

/*
 * ossd.default_device and ossd.devices name drives the SQL API may open:
 * only schemes that reach a drive served by another process are accepted
 * (inproc: and file: would open a drive image inside the backend).
 */
static bool
check_default_device(char **newval, void **extra, GucSource source)
{
	const char *why;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	if (!ossd_device_uri_allowed(*newval, &why))
	{
		GUC_check_errdetail("%s", why);
		return false;
	}
	return true;
}

static bool
check_devices(char **newval, void **extra, GucSource source)
{
	char	   *raw;
	List	   *elems;
	ListCell   *lc;

	if (*newval == NULL)
		return true;
	raw = pstrdup(*newval);
	if (!SplitGUCList(raw, ',', &elems))
	{
		GUC_check_errdetail("List syntax is invalid.");
		pfree(raw);
		list_free(elems);
		return false;
	}
	foreach(lc, elems)
	{
		const char *why;

		if (!ossd_device_uri_allowed(lfirst(lc), &why))
		{
			GUC_check_errdetail("%s", why);
			pfree(raw);
			list_free(elems);
			return false;
		}
	}
	pfree(raw);
	list_free(elems);
	return true;
}

void
_PG_init(void)
{
	DefineCustomBoolVariable("ossd.enabled",
							 "Offload scans of tables on an ossdfs tablespace to the drive.",
							 NULL,
							 &ossd_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ossd.aggregate_pushdown",
							 "Compute partial aggregates on the drive (final merge on the host).",
							 NULL,
							 &ossd_aggregate_pushdown,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("ossd.kernel_mode",
							 "How kernels run: jit or interpreter.",
							 "The drive reports the mode it actually used; EXPLAIN shows both.",
							 &ossd_kernel_mode,
							 OSSD_KMODE_JIT,
							 kernel_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * The drive compiles a kernel it has not seen (10-13 ms: its constants
	 * are in its instructions); below this many tuples the interpreter
	 * finishes first (docs/cost-model.md).
	 */
	DefineCustomIntVariable("ossd.jit_above_tuples",
							"Smallest relation, in tuples, whose drive scans ask for the JIT.",
							"0 asks for it on every scan; only with ossd.kernel_mode = jit.",
							&ossd_jit_above_tuples,
							50000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("ossd.min_relation_pages",
							"Relations smaller than this many pages are never offloaded.",
							NULL,
							&ossd_min_relation_pages,
							128,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	/*
	 * The cost model (ossd_planner.c), in the planner's units: what one
	 * drive thread spends per page and per tuple it reads, and what the
	 * host spends per row the drive sends back.  Fitted from measured runs:
	 * docs/cost-model.md.
	 */
	DefineCustomRealVariable("ossd.drive_startup_cost",
							 "Cost of starting one drive scan: its request, stream and first answer.",
							 NULL,
							 &ossd_drive_startup_cost,
							 150.0,
							 0.0, 1.0e6,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("ossd.drive_page_cost",
							 "Cost of reading one page on the drive, per drive scan thread.",
							 NULL,
							 &ossd_drive_page_cost,
							 0.5,
							 0.0, 1000.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("ossd.drive_tuple_cost",
							 "Cost of deforming and filtering one tuple on the drive, per drive scan thread.",
							 NULL,
							 &ossd_drive_tuple_cost,
							 0.0135,
							 0.0, 1000.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("ossd.drive_call_cost",
							 "Cost of one helper call a drive kernel makes for a tuple (a text compare, numeric arithmetic; LIKE counts four), per drive scan thread.",
							 NULL,
							 &ossd_drive_call_cost,
							 0.004,
							 0.0, 1000.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("ossd.drive_inline_call_share",
							 "Share of ossd.drive_call_cost a call costs that the drive's JIT compiles inline (text, bpchar and numeric equality).",
							 NULL,
							 &ossd_drive_inline_call_share,
							 0.3,
							 0.0, 1.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("ossd.transfer_tuple_cost",
							 "Cost to the host of one row or partial group the drive sends back (the channel, unpacking, forming the tuple).",
							 NULL,
							 &ossd_transfer_tuple_cost,
							 0.06,
							 0.0, 1000.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("ossd.drive_transfer_tuple_cost",
							 "Cost to the drive of one row or partial group it sends back (projecting and packing it into a response).",
							 NULL,
							 &ossd_drive_transfer_tuple_cost,
							 0.06,
							 0.0, 1000.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ossd.force_offload",
							 "Debug: offload every scan that can be offloaded, whatever the cost.",
							 NULL,
							 &ossd_force_offload,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("ossd.default_device",
							   "A drive the SQL API may name, besides those of ossd tablespaces and ossd.devices.",
							   "inproc: and file: URIs are refused.",
							   &ossd_default_device,
							   "",
							   PGC_SUSET,
							   0,
							   check_default_device, NULL, NULL);

	DefineCustomStringVariable("ossd.devices",
							   "Comma-separated device URIs the SQL API may open, besides those of ossd tablespaces.",
							   "inproc: and file: URIs are refused.",
							   &ossd_devices_guc,
							   "",
							   PGC_SUSET,
							   GUC_LIST_INPUT,
							   check_devices, NULL, NULL);

	DefineCustomIntVariable("ossd.timeout_ms",
							"Per-call timeout of the drive channel.",
							NULL,
							&ossd_timeout_ms,
							60000,
							100, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("ossd.device_workers",
							"Scan worker threads requested from the drive (0 = the drive's default).",
							NULL,
							&ossd_device_workers,
							0,
							0, 64,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("ossd.array_scan_drives",
							"Drives of an array the cost model counts as scanning at once (0 = all of the tablespace's).",
							"1 prices a scan as one drive's, for arrays whose drives share one bottleneck (emulated drives on one host's cores).",
							&ossd_array_scan_drives,
							0,
							0, 1024,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("ossd.parallel_chunk_blocks",
							"Blocks the processes of a parallel offloaded scan take at a time (0 = chosen by the relation's size).",
							NULL,
							&ossd_parallel_chunk_blocks,
							0,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("ossd.join_filter",
							 "Send the drive a filter of a hash join's build-side keys when an offloaded scan is its probe side.",
							 "The drive then drops rows that cannot join before they cross the channel.",
							 &ossd_join_filter,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("ossd.index_blocks",
							 "Offer drive scans of the blocks an index names, in place of bitmap heap scans.",
							 "The host builds the bitmap from the index; the drive scans only its blocks.",
							 &ossd_index_blocks,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("ossd");

	/*
	 * Hooks installed when one backend happens to load the library would
	 * offload in that backend alone.  Without shared_preload_libraries
	 * nothing is offloaded, anywhere, and every load says so.
	 */
	if (!process_shared_preload_libraries_in_progress)
	{
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_ossd is not in shared_preload_libraries: no scan will be offloaded"),
				 errhint("Add pg_ossd to shared_preload_libraries in postgresql.conf and restart the server.")));
		return;
	}

	ossd_planner_init();
	ossd_upper_init();
	ossd_exec_init();
	ossd_joinfilter_init();
	ossd_joinpath_init();
}
