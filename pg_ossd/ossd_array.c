/*-------------------------------------------------------------------------
 *
 * ossd_array.c
 *		  Tablespaces striped over an array of drives (docs/arrays.md).
 *
 * ossdfs can stripe every file RAID-0 over N drives: unit k of a segment
 * file (heap blocks [k*u, (k+1)*u) of it, u = the stripe unit in blocks)
 * is on drive k % N, in one object with the same (PID, OID) on every
 * drive.  Its user.ossd.layout attribute says so ("raid0 n=N unit=BYTES
 * [uuid=U] drives=URI,..."), and user.ossd.array on any inode, the
 * tablespace directory too, gives the mount's layout.  RAID-5 ("raid5
 * ...") puts one parity unit in every row of N units (ossd_scan.h); its
 * "out=D" names a drive that is out of the array: the blocks it held are
 * the host's, which ossdfs rebuilds from the other drives.
 *
 * This file owns what pg_ossd needs of that: the layout of a segment
 * (OssdArray: the drives in array order, the unit, per-drive statistics),
 * the ScanTarget geometry each member drive is sent (the same heap ranges
 * to every drive; the drive keeps the blocks of its own units and reports
 * them by heap block, so TIDs, handed-back blocks and rows need no
 * translation on the host), the heap blocks each drive holds, the
 * capability of each member (user.ossd.cap.D, user.ossd.kernelcap.D), the
 * member drives of a tablespace (kernels are deployed to every one) and
 * the per-drive lines of EXPLAIN ANALYZE.
 *
 * A segment without user.ossd.layout (an older ossdfs) or with n=1 is the
 * one-drive layout: no OssdArray differs from today's scan in anything.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/xattr.h>

#include "commands/explain.h"
#include "common/relpath.h"
#include "storage/fd.h"
#include "utils/rel.h"

#include "libossd.h"
#include "ossd_array.h"
#include "ossd_exec.h"
#include "ossd_scan.h"
#include "pg_ossd.h"

static bool
read_text_xattr(const char *path, const char *name, char *buf, size_t cap)
{
	ssize_t		n = getxattr(path, name, buf, cap - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

StaticAssertDecl(OSSD_SEGMENT_MAX_DRIVES == OSSD_ARRAY_MAX_DRIVES,
				 "an OssdSegment holds a capability for every drive of an array");

/*
 * Parse layout text into a palloc'd OssdArray; NULL for the one-drive
 * layout.  `what` names the file for the error; with noerror, text that is
 * not a layout gives NULL instead.
 */
static OssdArray *
array_from_layout(const char *text, const char *what, bool noerror)
{
	struct ossd_layout l;
	char		why[256];
	OssdArray  *a;

	if (ossd_layout_parse(text, &l, why, sizeof(why)) < 0)
	{
		if (noerror)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not parse the stripe layout of \"%s\"", what),
				 errdetail("%s: \"%s\"", why, text)));
	}
	if (l.n <= 1 || (noerror && l.unit % BLCKSZ != 0))
	{
		ossd_layout_free(&l);
		return NULL;
	}
	if (l.unit % BLCKSZ != 0)
	{
		ossd_layout_free(&l);
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the stripe unit of \"%s\" is not a multiple of the block size", what),
				 errdetail("Layout \"%s\", block size %d.", text, BLCKSZ)));
	}
	a = palloc0(sizeof(OssdArray));
	a->ndrives = (int) l.n;
	a->unit_blocks = (uint32) (l.unit / BLCKSZ);
	a->parity = l.level == OSSD_ARRAY_RAID5;
	a->out_mask = l.out_mask;
	a->uris = palloc(sizeof(char *) * l.n);
	for (uint32 d = 0; d < l.n; d++)
		a->uris[d] = pstrdup(l.uris[d]);
	a->blocks = palloc0(sizeof(uint64) * l.n);
	a->rows = palloc0(sizeof(uint64) * l.n);
	a->bytes = palloc0(sizeof(uint64) * l.n);
	ossd_layout_free(&l);
	return a;
}

/*
 * The array segment `segno` of the relation's main fork is striped over
 * (seg, from ossd_segment_lookup), or NULL when it lives on one drive.
 * Its user.ossd.device must be the array's drive 0.
 */
OssdArray *
ossd_segment_array(Relation rel, int segno, const OssdSegment *seg)
{
	char		path[MAXPGPATH];
	OssdArray  *a;

	if (seg->layout == NULL)
		return NULL;
	ossd_segment_path(rel, segno, path, sizeof(path));
	a = array_from_layout(seg->layout, path, false);
	if (a && strcmp(a->uris[0], seg->uri) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the stripe layout of \"%s\" does not start with its device", path),
				 errdetail("user.ossd.device is \"%s\", the layout's drive 0 \"%s\".",
						   seg->uri, a->uris[0])));
	return a;
}

/*
 * Set the striped geometry of a ScanTarget for member `drive`; the ranges
 * stay the segment's heap blocks (relative to first_block).
 */
void
ossd_array_target(const OssdArray *a, int drive, Ossd__ScanTarget *t)
{
	t->stripe_unit_blocks = a->unit_blocks;
	t->stripe_index = (uint32) drive;
	t->stripe_count = (uint32) a->ndrives;
	t->stripe_parity = a->parity ? 1 : 0;
}

/*
 * Whether segment block `segblk` is on a drive that is out of the array
 * (RAID-5, degraded): the host reads it, through ossdfs.
 */
bool
ossd_array_block_out(const OssdArray *a, uint32 segblk)
{
	uint32		d;

	if (a == NULL || a->out_mask == 0)
		return false;
	d = ossd_stripe_unit_drive(segblk / a->unit_blocks, (uint32) a->ndrives,
							   a->parity ? 1 : 0);
	return (a->out_mask >> d) & 1;
}

/* How many of the blocks of ranges (of one segment) member `drive` holds. */
uint64
ossd_array_drive_blocks(const OssdArray *a, int drive,
						Ossd__BlockRange *const *ranges, size_t nranges)
{
	uint64		n = 0;

	for (size_t i = 0; i < nranges; i++)
	{
		uint64		b = ranges[i]->start;
		uint64		end = b + ranges[i]->count;

		while (b < end)
		{
			uint64		k = b / a->unit_blocks;
			uint64		stop = Min((k + 1) * a->unit_blocks, end);

			if (ossd_stripe_unit_drive(k, (uint32) a->ndrives, a->parity ? 1 : 0)
				== (uint32) drive)
				n += stop - b;
			b = stop;
		}
	}
	return n;
}

/*
 * Give member `drive`'s connection the capability ossdfs grants for segment
 * `segno`: each drive checks capabilities under its own key.
 */
void
ossd_array_segment_capability(Relation rel, int segno, int drive, ossd_t *o)
{
	char		path[MAXPGPATH];
	char		name[64];

	if (drive == 0)
	{
		ossd_segment_capability(rel, segno, o);
		return;
	}
	ossd_segment_path(rel, segno, path, sizeof(path));
	snprintf(name, sizeof(name), "user.ossd.cap.%d", drive);
	(void) ossd_add_capability_from(o, path, name);
}

/*
 * The mount layout of directory `path` (user.ossd.array), or NULL for one
 * drive or when it has none.
 */
static OssdArray *
directory_array(const char *path)
{
	char		text[8192];

	if (!read_text_xattr(path, "user.ossd.array", text, sizeof(text)))
		return NULL;
	return array_from_layout(text, path, true);
}

/*
 * When directory `path` is on an array whose member `uri` is not drive 0,
 * add that member's kernel capability (user.ossd.kernelcap.D) to o and
 * return its expiry; 0 otherwise.  Raises no ERROR (called where
 * ossd_add_kernel_capability is): a layout that does not parse is none.
 */
uint64
ossd_array_kernel_capability(ossd_t *o, const char *uri, const char *path)
{
	OssdArray  *a = directory_array(path);
	uint64		expiry = 0;

	if (a == NULL)
		return 0;
	for (int d = 1; d < a->ndrives && expiry == 0; d++)
		if (strcmp(a->uris[d], uri) == 0)
		{
			char		name[64];

			snprintf(name, sizeof(name), "user.ossd.kernelcap.%d", d);
			expiry = ossd_add_capability_from(o, path, name);
		}
	return expiry;
}

/*
 * The drives after drive 0 of the array tablespace spcoid is on (a List of
 * palloc'd C strings, NIL for a one-drive tablespace): SQL may name them,
 * and kernels are deployed to every one.
 */
List *
ossd_tablespace_members(Oid spcoid)
{
	char		path[MAXPGPATH];
	OssdArray  *a;
	List	   *res = NIL;

	snprintf(path, sizeof(path), "pg_tblspc/%u/%s", spcoid, TABLESPACE_VERSION_DIRECTORY);
	a = directory_array(path);
	if (a == NULL)
	{
		snprintf(path, sizeof(path), "pg_tblspc/%u", spcoid);
		a = directory_array(path);
	}
	if (a == NULL)
		return NIL;
	for (int d = 1; d < a->ndrives; d++)
		res = lappend(res, a->uris[d]);
	return res;
}

/*
 * EXPLAIN ANALYZE of a striped scan: per drive, the heap blocks it was sent,
 * the rows it returned and the bytes that crossed its channel.
 */
void
ossd_array_explain(OssdScanState *ss, ExplainState *es)
{
	OssdArray  *a = ss->array;

	if (a == NULL || !es->analyze)
		return;
	ExplainPropertyInteger("Drives", NULL, a->ndrives, es);
	for (int d = 0; d < a->ndrives; d++)
	{
		char		label[32];

		snprintf(label, sizeof(label), "Drive %d", d);
		ExplainPropertyText(label,
							psprintf("blocks=" UINT64_FORMAT ", rows=" UINT64_FORMAT ", bytes=" UINT64_FORMAT,
									 a->blocks[d], a->rows[d], a->bytes[d]),
							es);
	}
}

/* A parallel worker adds its per-drive statistics to the shared ones. */
void
ossd_array_instr_put(OssdScanState *ss, OssdArrayInstr *ai)
{
	OssdArray  *a = ss->array;

	if (a == NULL || a->ndrives > OSSD_INSTR_MAX_DRIVES)
		return;
	ai->ndrives = Max(ai->ndrives, a->ndrives);
	for (int d = 0; d < a->ndrives; d++)
	{
		ai->blocks[d] += a->blocks[d];
		ai->rows[d] += a->rows[d];
		ai->bytes[d] += a->bytes[d];
	}
}

/*
 * Before the leader takes them: a leader that scanned none of the array's
 * blocks itself (the workers took every chunk) gets zeroed statistics of
 * as many drives, so EXPLAIN shows the workers' figures.  The workers have
 * finished: ndrives no longer changes.
 */
void
ossd_array_instr_prepare(OssdScanState *ss, OssdArrayInstr *ai)
{
	OssdArray  *a;

	if (ss->array != NULL || ai->ndrives <= 1)
		return;
	a = palloc0(sizeof(OssdArray));
	a->ndrives = ai->ndrives;
	a->uris = palloc0(sizeof(char *) * a->ndrives);
	a->blocks = palloc0(sizeof(uint64) * a->ndrives);
	a->rows = palloc0(sizeof(uint64) * a->ndrives);
	a->bytes = palloc0(sizeof(uint64) * a->ndrives);
	ss->array = a;
}

/*
 * The leader takes the workers' (under the shared memory's spinlock: no
 * ERROR, and the memory is the query's, allocated before).
 */
void
ossd_array_instr_take(OssdScanState *ss, OssdArrayInstr *ai)
{
	OssdArray  *a = ss->array;

	if (ai->ndrives <= 1 || a == NULL || a->ndrives != ai->ndrives)
		return;
	for (int d = 0; d < a->ndrives; d++)
	{
		a->blocks[d] += ai->blocks[d];
		a->rows[d] += ai->rows[d];
		a->bytes[d] += ai->bytes[d];
	}
}
