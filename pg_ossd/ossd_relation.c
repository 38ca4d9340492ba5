/*-------------------------------------------------------------------------
 *
 * ossd_relation.c
 *		  Which relations live on the drive, and which objects hold their
 *		  segment files.
 *
 * ossdfs gives every file the extended attributes user.ossd.oid,
 * user.ossd.pid and user.ossd.device (the drive's URI).  A tablespace is an
 * "ossd tablespace" when its directory carries user.ossd.device; the answer
 * is cached per tablespace for the life of the backend.  Segment files are
 * looked up again for every scan, so a relfilenode change (TRUNCATE,
 * VACUUM FULL) or a drive taken out of an array can never leave a stale
 * mapping behind: one getxattr of user.ossd.scan, served from ossdfs'
 * memory, gives the object, its layout and its capabilities at once.
 *
 * Connections to drives are kept per URI for the life of the backend.
 * Every wait on a drive ends after ossd.timeout_ms, and sooner on a query
 * cancel or a termination: libossd calls ossd_wait_interrupted during its
 * waits, the call fails with ERR_CANCELLED, and the caller then lets
 * CHECK_FOR_INTERRUPTS() raise the cancel (ossd_interrupts_after_wait):
 * nothing is raised from inside libossd.  A drive that restarted is
 * reconnected by libossd itself.
 *
 * The drive checks a capability on every command (docs/security.md);
 * this backend holds no key, so it asks ossdfs, which grants what the
 * file permissions allow: the "cap" lines of user.ossd.scan (or
 * user.ossd.cap, from an older ossdfs) on each segment file before it is
 * scanned, and user.ossd.kernelcap on the tablespace directory (granted
 * to ossdfs' --kernel-group) for kernel deploy and remove.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/xattr.h>

#include "catalog/pg_tablespace_d.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "libossd.h"
#include "pg_ossd.h"

typedef struct SpcCacheEntry
{
	Oid			spcoid;			/* hash key */
	bool		on_drive;
	int			ndrives;		/* drives of its array; 1 for one drive */
	char		uri[MAXPGPATH];
} SpcCacheEntry;

static HTAB *spc_cache = NULL;

typedef struct OssdConn
{
	char	   *uri;
	ossd_t	   *o;
	uint64		kernel_cap_expiry_ns;	/* 0: none obtained */
	int			timeout_ms;		/* ossd.timeout_ms when connected */
} OssdConn;

/* Ask ossdfs again for a capability this long before it expires. */
#define CAP_RENEW_NS (UINT64CONST(600) * 1000000000)

/*
 * Set by a thread of ours that waits on a drive for the backend (the scan
 * stream reader, ossd_exec.c) to its "stop" flag.
 */
__thread volatile bool *ossd_thread_abandon_wait = NULL;

/*
 * libossd's interrupted hook: called every ~100 ms while a call waits for
 * the drive, on the backend's thread or on a reader thread.  It only
 * looks at flags (signal handlers set them); a nonzero answer makes the
 * call fail with ERR_CANCELLED.
 */
int
ossd_wait_interrupted(void *arg)
{
	if (QueryCancelPending || ProcDiePending)
		return 1;
	if (ossd_thread_abandon_wait && *ossd_thread_abandon_wait)
		return 1;
	return 0;
}

/*
 * After a call on the drive failed: when it was cut short by a cancel or
 * a termination, raise that now (the usual "canceling statement ..."
 * ERROR or FATAL) rather than the call's own error.
 */
void
ossd_interrupts_after_wait(int status)
{
	if (status == OSSD__STATUS__ERR_CANCELLED)
		CHECK_FOR_INTERRUPTS();
}

static List *connections = NIL;
static bool exit_hook_set = false;

/* Close our connections at backend exit: the drive frees their slots as
 * they close, and a parallel query waits for its workers' exit. */
static void
close_all_connections(int code, Datum arg)
{
	ListCell   *lc;

	foreach(lc, connections)
		ossd_disconnect_at_exit(((OssdConn *) lfirst(lc))->o);
	connections = NIL;
}

static bool
read_xattr(const char *path, const char *name, char *buf, size_t cap)
{
	ssize_t		n = getxattr(path, name, buf, cap - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * The cache entry of a tablespace: whether it is on an ossdfs mount, its
 * drive's URI (drive 0 of an array) and how many drives it spans.  Filled
 * once per backend: a mount's drives do not change under it.
 */
static SpcCacheEntry *
tablespace_entry(Oid spcoid)
{
	SpcCacheEntry *e;
	bool		found;

	if (spcoid == InvalidOid)
		spcoid = MyDatabaseTableSpace;
	if (spcoid == DEFAULTTABLESPACE_OID || spcoid == GLOBALTABLESPACE_OID)
		return NULL;

	if (spc_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(SpcCacheEntry);
		ctl.hcxt = TopMemoryContext;
		spc_cache = hash_create("pg_ossd tablespaces", 16, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(spc_cache, &spcoid, HASH_ENTER, &found);
	if (!found)
	{
		char		path[MAXPGPATH];

		snprintf(path, sizeof(path), "pg_tblspc/%u/%s", spcoid,
				 TABLESPACE_VERSION_DIRECTORY);
		e->on_drive = read_xattr(path, "user.ossd.device", e->uri, sizeof(e->uri));
		if (!e->on_drive)
		{
			snprintf(path, sizeof(path), "pg_tblspc/%u", spcoid);
			e->on_drive = read_xattr(path, "user.ossd.device", e->uri, sizeof(e->uri));
		}
		if (!e->on_drive)
			e->uri[0] = '\0';
		e->ndrives = e->on_drive ? 1 + list_length(ossd_tablespace_members(spcoid)) : 1;
	}
	return e;
}

/*
 * Is the tablespace on an ossdfs mount?  *uri gets the drive's URI.
 */
bool
ossd_tablespace_device(Oid spcoid, char **uri)
{
	SpcCacheEntry *e = tablespace_entry(spcoid);

	if (e == NULL)
		return false;
	if (e->on_drive && uri)
		*uri = e->uri;
	return e->on_drive;
}

/*
 * How many drives the tablespace's files are striped over (1 for one drive
 * or a tablespace not on a drive): the planner divides a drive scan's time
 * among them.
 */
int
ossd_tablespace_drives(Oid spcoid)
{
	SpcCacheEntry *e = tablespace_entry(spcoid);

	return e ? e->ndrives : 1;
}

bool
ossd_relation_on_drive(Relation rel, char **uri)
{
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return false;
	return ossd_tablespace_device(rel->rd_rel->reltablespace, uri);
}

/*
 * The path of segment `segno` of the relation's main fork, into path.
 */
void
ossd_segment_path(Relation rel, int segno, char *path, size_t cap)
{
	char	   *base = relpathbackend(rel->rd_node, InvalidBackendId, MAIN_FORKNUM);

	if (segno == 0)
		snprintf(path, cap, "%s", base);
	else
		snprintf(path, cap, "%s.%d", base, segno);
	pfree(base);
}

/*
 * Fill seg from user.ossd.scan: "name value" lines (oid, pid, device,
 * layout, cap, cap.D).  Names it does not know are skipped, so a newer
 * ossdfs may add lines.  False when one of oid, pid and device is missing.
 */
static bool
parse_scan_xattr(char *text, OssdSegment *seg)
{
	bool		have_oid = false,
				have_pid = false;
	char	   *line = text;

	while (line && *line)
	{
		char	   *next = strchr(line, '\n');
		char	   *value;

		if (next)
			*next++ = '\0';
		value = strchr(line, ' ');
		if (value)
		{
			*value++ = '\0';
			if (strcmp(line, "oid") == 0)
			{
				seg->oid = strtoull(value, NULL, 10);
				have_oid = true;
			}
			else if (strcmp(line, "pid") == 0)
			{
				seg->pid = strtoull(value, NULL, 10);
				have_pid = true;
			}
			else if (strcmp(line, "device") == 0)
				seg->uri = pstrdup(value);
			else if (strcmp(line, "layout") == 0)
				seg->layout = pstrdup(value);
			else if (strcmp(line, "cap") == 0)
				seg->caps[0] = pstrdup(value);
			else if (strncmp(line, "cap.", 4) == 0)
			{
				char	   *end;
				unsigned long d = strtoul(line + 4, &end, 10);

				if (*end == '\0' && end != line + 4 && d < OSSD_SEGMENT_MAX_DRIVES)
					seg->caps[d] = pstrdup(value);
			}
		}
		line = next;
	}
	seg->caps_known = true;
	return have_oid && have_pid && seg->uri != NULL;
}

/*
 * What a scan of segment `segno` of the relation's main fork needs: its
 * object, size, layout and (from ossdfs' user.ossd.scan, one FUSE round
 * trip) the capabilities ossdfs grants this backend for it.  An ossdfs
 * without user.ossd.scan (or an array whose attribute would not fit in
 * OSSD_SCAN_XATTR_MAX bytes) is asked name by name, and then the
 * capabilities are fetched at stream start (seg->caps_known false).
 * Returns false when the segment file does not exist or has no ossd
 * attributes.
 */
bool
ossd_segment_lookup(Relation rel, int segno, OssdSegment *seg)
{
	char		path[MAXPGPATH];
	char		buf[MAXPGPATH];
	struct stat st;
	ssize_t		n;
	char	   *text;

	memset(seg, 0, sizeof(*seg));
	ossd_segment_path(rel, segno, path, sizeof(path));
	if (stat(path, &st) < 0)
		return false;
	seg->size = (uint64) st.st_size;

	text = palloc(OSSD_SCAN_XATTR_MAX + 1);
	n = getxattr(path, "user.ossd.scan", text, OSSD_SCAN_XATTR_MAX);
	if (n >= 0)
	{
		bool		ok;

		text[n] = '\0';
		ok = parse_scan_xattr(text, seg);
		pfree(text);			/* a rescan looks it up again */
		return ok;
	}
	pfree(text);
	/* an older ossdfs, or an array too wide for one attribute */
	if (errno != ENODATA && errno != ENOTSUP && errno != ERANGE && errno != E2BIG)
		return false;

	if (!read_xattr(path, "user.ossd.oid", buf, sizeof(buf)))
		return false;
	seg->oid = strtoull(buf, NULL, 10);
	if (!read_xattr(path, "user.ossd.pid", buf, sizeof(buf)))
		return false;
	seg->pid = strtoull(buf, NULL, 10);
	if (!read_xattr(path, "user.ossd.device", buf, sizeof(buf)))
		return false;
	seg->uri = pstrdup(buf);
	text = palloc(OSSD_SCAN_XATTR_MAX + 1);
	if (read_xattr(path, "user.ossd.layout", text, OSSD_SCAN_XATTR_MAX + 1))
		seg->layout = text;
	else
		pfree(text);
	return true;
}

/*
 * Add the capability in extended attribute `name` of `path` to o; returns
 * its expiry, or 0 when ossdfs gives none (the drive will then say what
 * is missing).
 */
uint64
ossd_add_capability_from(ossd_t *o, const char *path, const char *name)
{
	char		text[OSSD_CAP_TEXT_MAX + 1];

	if (!read_xattr(path, name, text, sizeof(text)))
		return 0;
	return ossd_add_capability_text_quietly(o, text);
}

/*
 * The kernel capability for the drive at uri: from the directory of an
 * ossd tablespace on that drive (pg_tblspc/OID or its version
 * directory).  Raises no ERROR (the kernel undo of ossd_sqlapi.c calls it
 * from transaction callbacks): an unreadable directory gives no capability.
 */
uint64
ossd_add_kernel_capability(ossd_t *o, const char *uri)
{
	DIR		   *d = AllocateDir("pg_tblspc");
	struct dirent *de;
	uint64		expiry = 0;

	while (expiry == 0 && (de = ReadDirExtended(d, "pg_tblspc", LOG)) != NULL)
	{
		char		path[MAXPGPATH];
		char		dev[MAXPGPATH];
		int			i;

		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < 2 && expiry == 0; i++)
		{
			if (i == 0)
				snprintf(path, sizeof(path), "pg_tblspc/%s/%s", de->d_name,
						 TABLESPACE_VERSION_DIRECTORY);
			else
				snprintf(path, sizeof(path), "pg_tblspc/%s", de->d_name);
			if (read_xattr(path, "user.ossd.device", dev, sizeof(dev)) &&
				strcmp(dev, uri) == 0)
				expiry = ossd_add_capability_from(o, path, "user.ossd.kernelcap");
			else
				expiry = ossd_array_kernel_capability(o, uri, path);
		}
	}
	if (d)
		FreeDir(d);
	return expiry;
}

/*
 * Give the connection the capability ossdfs grants this backend for
 * segment `segno` of the relation's main fork, before a scan of it.
 */
void
ossd_segment_capability(Relation rel, int segno, ossd_t *o)
{
	char		path[MAXPGPATH];

	ossd_segment_path(rel, segno, path, sizeof(path));
	(void) ossd_add_capability_from(o, path, "user.ossd.cap");
}

/*
 * Add capability text (an attribute's value, a "cap" line of
 * user.ossd.scan) to o; returns its expiry, or 0 when there is none, it
 * does not parse or has expired (the drive will then say what is missing).
 */
uint64
ossd_add_capability_text_quietly(ossd_t *o, const char *text)
{
	struct ossd_cap cap;
	ossd_error	err;

	if (text == NULL || ossd_cap_parse(text, &cap) < 0 ||
		ossd_add_capability(o, &cap, &err) < 0)
		return 0;
	return cap.expiry_ns;
}

/*
 * May SQL make this backend open `uri`?  Only schemes that reach a drive
 * served by another process (libossd's transport.c: nbd:, nbd+unix:, nbds:,
 * nbds+unix:, sg:, nvme:).  inproc: and file: would open a drive image
 * inside the backend, with the server's file access: never from SQL.
 * *why gets a sentence for errdetail when the answer is no.
 */
bool
ossd_device_uri_allowed(const char *uri, const char **why)
{
	static const char *const allowed[] = {
		"nbd:", "nbd+unix:", "nbds:", "nbds+unix:", "sg:", "nvme:"
	};

	for (int i = 0; i < lengthof(allowed); i++)
		if (strncmp(uri, allowed[i], strlen(allowed[i])) == 0)
			return true;
	if (strncmp(uri, "inproc:", 7) == 0 || strncmp(uri, "file:", 5) == 0)
		*why = "inproc: and file: device URIs open a drive image inside the server process and are never reachable from SQL.";
	else
		*why = "A device URI must start with nbd:, nbd+unix:, nbds:, nbds+unix:, sg: or nvme:.";
	return false;
}

/*
 * A connection to the drive at `uri`, opened on first use and kept.
 */
ossd_t *
ossd_get_connection(const char *uri)
{
	return ossd_try_connection(uri, NULL);
}

/*
 * Same, but with busy non-NULL a drive whose channel slots are all claimed
 * by other hosts is not an error: *busy is set and NULL returned (the
 * caller scans on the host instead).
 */
ossd_t *
ossd_try_connection(const char *uri, bool *busy)
{
	ListCell   *lc;
	struct ossd_connect_opts opts;
	ossd_error	err;
	ossd_t	   *o = NULL;
	OssdConn   *c;
	MemoryContext oldcxt;

	foreach(lc, connections)
	{
		c = lfirst(lc);
		if (strcmp(c->uri, uri) == 0 && c->timeout_ms == ossd_timeout_ms)
		{
			if (c->kernel_cap_expiry_ns != 0 &&
				ossd_realtime_ns() + CAP_RENEW_NS > c->kernel_cap_expiry_ns)
				c->kernel_cap_expiry_ns = ossd_add_kernel_capability(c->o, uri);
			return c->o;
		}
		if (strcmp(c->uri, uri) == 0)
		{
			/* ossd.timeout_ms changed: connect again with the new one */
			ossd_forget_connection(uri);
			break;
		}
	}

	{
		const char *why;

		if (!ossd_device_uri_allowed(uri, &why))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("device URI \"%s\" is not allowed", uri),
					 errdetail("%s", why)));
	}

	memset(&opts, 0, sizeof(opts));
	memset(&err, 0, sizeof(err));
	opts.slots = 1;
	opts.max_slots = 4;
	opts.client_name = "pg_ossd";
	opts.timeout_ms = ossd_timeout_ms;
	opts.interrupted = ossd_wait_interrupted;
	if (busy)
		*busy = false;
	if (ossd_connect(uri, &opts, &o, &err) < 0)
	{
		/* every slot claimed by others: the caller scans on the host */
		if (busy && err.status == OSSD__STATUS__ERR_BUSY)
		{
			*busy = true;
			return NULL;
		}
		ossd_interrupts_after_wait(err.status);
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not connect to OSSD drive \"%s\"", uri),
				 errdetail("%s", err.msg),
				 err.errnum == EACCES ?
				 errhint("The drive's socket does not let the server's user in: start the drive with \"ossdctl device start --group GROUP\", GROUP being one the server's user belongs to.") :
				 errhint("Check that the drive is running and that ossdfs is mounted.")));
	}

	if (!exit_hook_set)
	{
		on_proc_exit(close_all_connections, (Datum) 0);
		exit_hook_set = true;
	}
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	c = palloc(sizeof(OssdConn));
	c->uri = pstrdup(uri);
	c->o = o;
	c->kernel_cap_expiry_ns = ossd_add_kernel_capability(o, uri);
	c->timeout_ms = ossd_timeout_ms;
	connections = lappend(connections, c);
	MemoryContextSwitchTo(oldcxt);
	return o;
}

/* Drop a connection that failed at the transport level. */
void
ossd_forget_connection(const char *uri)
{
	ListCell   *lc;

	foreach(lc, connections)
	{
		OssdConn   *c = lfirst(lc);

		if (strcmp(c->uri, uri) == 0)
		{
			ossd_disconnect(c->o);
			connections = foreach_delete_current(connections, lc);
			return;
		}
	}
}

/*
 * URIs of every drive this backend knows of: the connected ones, the
 * tablespaces found so far, and ossd.default_device.
 */
List *
ossd_known_devices(void)
{
	List	   *res = NIL;
	ListCell   *lc;

	if (ossd_default_device && ossd_default_device[0])
		res = list_append_unique(res, makeString(pstrdup(ossd_default_device)));
	foreach(lc, connections)
		res = list_append_unique(res, makeString(pstrdup(((OssdConn *) lfirst(lc))->uri)));
	if (spc_cache)
	{
		HASH_SEQ_STATUS st;
		SpcCacheEntry *e;

		hash_seq_init(&st, spc_cache);
		while ((e = hash_seq_search(&st)) != NULL)
			if (e->on_drive)
				res = list_append_unique(res, makeString(pstrdup(e->uri)));
	}
	return res;
}
