/*-------------------------------------------------------------------------
 *
 * ossd_priority.c
 *		  SQL access to a relation's I/O priority on the drive
 *		  (docs/qos.md): ossd_set_priority(regclass, int) and
 *		  ossd_get_priority(regclass).
 *
 * The drive keeps a priority per object (0 lowest to 7, default 4) and
 * its offloaded scans yield to flash work of a higher priority, each
 * batch for at most the drive's bound.  A relation's files are objects on
 * the drive; ossdfs sets their priority through the extended attribute
 * user.ossd.priority.  Here every segment of the main fork gets it.
 * Who may: the relation's owner, and only a superuser above the default
 * (a higher priority makes everyone else's scans wait).  A rewrite
 * (VACUUM FULL, CLUSTER, TRUNCATE) makes new files at the default, and a
 * segment added later starts at the default too: set it again then.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/xattr.h>

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg_ossd.h"

#define OSSD_PRIORITY_XATTR "user.ossd.priority"
#define OSSD_PRIORITY_DEFAULT 4
#define OSSD_PRIORITY_MAX 7

PG_FUNCTION_INFO_V1(ossd_set_priority);
PG_FUNCTION_INFO_V1(ossd_get_priority);

/* The path of segment segno of rel's main fork, or NULL past its last. */
static char *
existing_segment_path(Relation rel, int segno)
{
	char		path[MAXPGPATH];
	struct stat st;

	ossd_segment_path(rel, segno, path, sizeof(path));
	if (stat(path, &st) < 0)
		return NULL;
	return pstrdup(path);
}

/* Open relid for the priority functions: on an ossd tablespace, with files */
static Relation
open_drive_relation(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);

	if (!RELKIND_HAS_STORAGE(rel->rd_rel->relkind))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" has no storage of its own", RelationGetRelationName(rel)),
				 errdetail("A priority belongs to the files of a table, an index or a materialized view.")));
	if (!ossd_relation_on_drive(rel, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("relation \"%s\" is not on an ossd tablespace", RelationGetRelationName(rel)),
				 errhint("Move it with ALTER TABLE ... SET TABLESPACE.")));
	return rel;
}

Datum
ossd_set_priority(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int32		level = PG_GETARG_INT32(1);
	Relation	rel;
	char		value[2];
	int			segno;

	if (level < 0 || level > OSSD_PRIORITY_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("priority %d is out of range", level),
				 errdetail("A priority is 0 (lowest) to %d; the default is %d.",
						   OSSD_PRIORITY_MAX, OSSD_PRIORITY_DEFAULT)));
	rel = open_drive_relation(relid);
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(rel->rd_rel->relkind),
					   RelationGetRelationName(rel));
	if (level > OSSD_PRIORITY_DEFAULT && !superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to raise the priority of \"%s\" above %d",
						RelationGetRelationName(rel), OSSD_PRIORITY_DEFAULT),
				 errdetail("Offloaded scans of every other relation yield to a higher priority."),
				 errhint("A superuser can; the owner may set 0 to %d.", OSSD_PRIORITY_DEFAULT)));

	value[0] = (char) ('0' + level);
	value[1] = '\0';
	for (segno = 0;; segno++)
	{
		char	   *path = existing_segment_path(rel, segno);

		if (path == NULL)
			break;
		if (setxattr(path, OSSD_PRIORITY_XATTR, value, 1, 0) < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not set the priority of file \"%s\": %m", path),
					 errdetail("Segment %d of relation \"%s\".", segno,
							   RelationGetRelationName(rel))));
		pfree(path);
	}
	relation_close(rel, AccessShareLock);
	PG_RETURN_INT32(segno);
}

Datum
ossd_get_priority(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = open_drive_relation(relid);
	char	   *path = existing_segment_path(rel, 0);
	char		buf[8];
	ssize_t		n;

	if (path == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("relation \"%s\" has no file", RelationGetRelationName(rel))));
	n = getxattr(path, OSSD_PRIORITY_XATTR, buf, sizeof(buf) - 1);
	if (n < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read the priority of file \"%s\": %m", path)));
	if (n < 1 || buf[0] < '0' || buf[0] > '0' + OSSD_PRIORITY_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("file \"%s\" has a malformed priority", path),
				 errdetail("user.ossd.priority is one digit, 0 to %d.", OSSD_PRIORITY_MAX)));
	relation_close(rel, AccessShareLock);
	PG_RETURN_INT32(buf[0] - '0');
}
