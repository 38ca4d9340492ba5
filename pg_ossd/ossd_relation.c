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
 * looked up again for every scan (a getxattr served from ossdfs' memory), so
 * a relfilenode change (TRUNCATE, VACUUM FULL) can never leave a stale
 * mapping behind.
 *
 * Connections to drives are kept per URI for the life of the backend.
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
	char		uri[MAXPGPATH];
} SpcCacheEntry;

static HTAB *spc_cache = NULL;

typedef struct OssdConn
{
	char	   *uri;
	ossd_t	   *o;
} OssdConn;

static List *connections = NIL;
static bool exit_hook_set = false;

/* Release our channel slots at backend exit (the drive would reclaim them
 * when the connection closes anyway). */
static void
close_all_connections(int code, Datum arg)
{
	ListCell   *lc;

	foreach(lc, connections)
		ossd_disconnect(((OssdConn *) lfirst(lc))->o);
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
 * Is the tablespace on an ossdfs mount?  *uri gets the drive's URI.
 */
bool
ossd_tablespace_device(Oid spcoid, char **uri)
{
	SpcCacheEntry *e;
	bool		found;

	if (spcoid == InvalidOid)
		spcoid = MyDatabaseTableSpace;
	if (spcoid == DEFAULTTABLESPACE_OID || spcoid == GLOBALTABLESPACE_OID)
		return false;

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
	}
	if (e->on_drive && uri)
		*uri = e->uri;
	return e->on_drive;
}

bool
ossd_relation_on_drive(Relation rel, char **uri)
{
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return false;
	return ossd_tablespace_device(rel->rd_rel->reltablespace, uri);
}

/*
 * The object behind segment `segno` of the relation's main fork.  Returns
 * false when the segment file does not exist or has no ossd attributes.
 */
bool
ossd_segment_object(Relation rel, int segno, char **uri, uint64 *pid,
					uint64 *oid, uint64 *size)
{
	char	   *base = relpathbackend(rel->rd_node, InvalidBackendId, MAIN_FORKNUM);
	char		path[MAXPGPATH];
	char		buf[MAXPGPATH];
	struct stat st;

	if (segno == 0)
		snprintf(path, sizeof(path), "%s", base);
	else
		snprintf(path, sizeof(path), "%s.%d", base, segno);
	pfree(base);

	if (stat(path, &st) < 0)
		return false;
	*size = (uint64) st.st_size;
	if (!read_xattr(path, "user.ossd.oid", buf, sizeof(buf)))
		return false;
	*oid = strtoull(buf, NULL, 10);
	if (!read_xattr(path, "user.ossd.pid", buf, sizeof(buf)))
		return false;
	*pid = strtoull(buf, NULL, 10);
	if (!read_xattr(path, "user.ossd.device", buf, sizeof(buf)))
		return false;
	*uri = pstrdup(buf);
	return true;
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
		if (strcmp(c->uri, uri) == 0)
			return c->o;
	}

	memset(&opts, 0, sizeof(opts));
	memset(&err, 0, sizeof(err));
	opts.slots = 1;
	opts.max_slots = 4;
	opts.client_name = "pg_ossd";
	opts.timeout_ms = ossd_timeout_ms;
	if (busy)
		*busy = false;
	if (ossd_connect(uri, &opts, &o, &err) < 0 && busy &&
		err.status == OSSD__STATUS__ERR_BUSY)
	{
		*busy = true;
		return NULL;
	}
	if (o == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not connect to OSSD drive \"%s\"", uri),
				 errdetail("%s", err.msg),
				 errhint("Check that the drive is running and that ossdfs is mounted.")));

	if (!exit_hook_set)
	{
		on_proc_exit(close_all_connections, (Datum) 0);
		exit_hook_set = true;
	}
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	c = palloc(sizeof(OssdConn));
	c->uri = pstrdup(uri);
	c->o = o;
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
