/*-------------------------------------------------------------------------
 *
 * ossd_pushdown.c
 *		  The whitelist of what the drive may evaluate.
 *
 * Operators are accepted through their btree interpretation in a
 * whitelisted operator family (by OID), with operand types the kernel ABI
 * knows, and only when their function is immutable.  Text ordering and
 * LIKE are accepted only under the C collation; text equality under any
 * deterministic collation (PostgreSQL compares bytes then).  Anything not
 * accepted here stays a host qual.  "C" here includes the libc locale
 * C.UTF-8 (Debian's default) in a UTF8 database: glibc orders it by code
 * point, which in UTF-8 is byte order, exactly as "C" does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/syscache.h"

#include <locale.h>

#include "pg_ossd.h"

/* Operator families of pg_opfamily.dat without a macro in pg_opfamily_d.h */
#define OSSD_FLOAT_BTREE_FAM_OID	1970
#define OSSD_NUMERIC_BTREE_FAM_OID	1988
#define OSSD_DATETIME_BTREE_FAM_OID	434

/* NOT LIKE operators (pg_operator.dat) */
#define OSSD_TEXT_NOT_LIKE_OP		1210
#define OSSD_BPCHAR_NOT_LIKE_OP		1212

bool
ossd_type_supported(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

static bool
is_int_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
}

static bool
is_text_type(Oid t)
{
	return t == TEXTOID || t == VARCHAROID;
}

/* A libc locale name that orders as "C" does in a UTF8 database */
static bool
locale_is_c_utf8(const char *name)
{
	return name != NULL && GetDatabaseEncoding() == PG_UTF8 &&
		(pg_strcasecmp(name, "C.UTF-8") == 0 || pg_strcasecmp(name, "C.utf8") == 0);
}

/*
 * Does the collation order text by its bytes (as the drive compares)?
 * "C" and "POSIX", and C.UTF-8 in a UTF8 database.
 */
bool
ossd_collation_is_bytewise(Oid collid)
{
	HeapTuple	tp;
	bool		result = false;

	if (!OidIsValid(collid))
		return false;
	if (lc_collate_is_c(collid))
		return true;
	if (collid == DEFAULT_COLLATION_OID)
		return locale_is_c_utf8(setlocale(LC_COLLATE, NULL));
	tp = SearchSysCache1(COLLOID, ObjectIdGetDatum(collid));
	if (HeapTupleIsValid(tp))
	{
		Form_pg_collation coll = (Form_pg_collation) GETSTRUCT(tp);
		bool		isnull;
		Datum		d;

		if (coll->collprovider == COLLPROVIDER_LIBC)
		{
			d = SysCacheGetAttr(COLLOID, tp, Anum_pg_collation_collcollate, &isnull);
			if (!isnull)
				result = locale_is_c_utf8(TextDatumGetCString(d));
		}
		ReleaseSysCache(tp);
	}
	return result;
}

static bool
collation_ok_for(Oid collid, int strategy)
{
	if (!OidIsValid(collid))
		return false;
	if (strategy == BTEqualStrategyNumber || strategy == OSSD_STRAT_NE)
		return ossd_collation_is_bytewise(collid) || get_collation_isdeterministic(collid);
	return ossd_collation_is_bytewise(collid);
}

OssdOpClass
ossd_classify_operator(Oid opno, Oid inputcollid, Oid ltype, Oid rtype,
					   int *strategy)
{
	List	   *interps;
	ListCell   *lc;

	if (func_volatile(get_opcode(opno)) != PROVOLATILE_IMMUTABLE)
		return OSSD_OPC_NONE;

	if (opno == OID_TEXT_LIKE_OP || opno == OSSD_TEXT_NOT_LIKE_OP)
	{
		if (!is_text_type(ltype) || !is_text_type(rtype) ||
			!ossd_collation_is_bytewise(inputcollid))
			return OSSD_OPC_NONE;
		*strategy = 0;
		return opno == OID_TEXT_LIKE_OP ? OSSD_OPC_LIKE : OSSD_OPC_NOTLIKE;
	}

	interps = get_op_btree_interpretation(opno);
	foreach(lc, interps)
	{
		OpBtreeInterpretation *bi = lfirst(lc);
		int			s = bi->strategy;

		if (s == ROWCOMPARE_NE)
			s = OSSD_STRAT_NE;
		if (s < BTLessStrategyNumber || s > OSSD_STRAT_NE)
			continue;
		*strategy = s;
		switch (bi->opfamily_id)
		{
			case INTEGER_BTREE_FAM_OID:
				if (is_int_type(ltype) && is_int_type(rtype))
					return OSSD_OPC_INT;
				break;
			case BOOL_BTREE_FAM_OID:
				if (ltype == BOOLOID && rtype == BOOLOID)
					return OSSD_OPC_INT;
				break;
			case OSSD_FLOAT_BTREE_FAM_OID:
				if ((ltype == FLOAT4OID || ltype == FLOAT8OID) &&
					(rtype == FLOAT4OID || rtype == FLOAT8OID))
					return OSSD_OPC_FLOAT;
				break;
			case OSSD_NUMERIC_BTREE_FAM_OID:
				if (ltype == NUMERICOID && rtype == NUMERICOID)
					return OSSD_OPC_NUMERIC;
				break;
			case TEXT_BTREE_FAM_OID:
				if (is_text_type(ltype) && is_text_type(rtype) &&
					collation_ok_for(inputcollid, s))
					return OSSD_OPC_TEXT;
				break;
			case BPCHAR_BTREE_FAM_OID:
				if (ltype == BPCHAROID && rtype == BPCHAROID &&
					collation_ok_for(inputcollid, s))
					return OSSD_OPC_BPCHAR;
				break;
			case OSSD_DATETIME_BTREE_FAM_OID:
				if (ltype == DATEOID && rtype == DATEOID)
					return OSSD_OPC_DATE;
				if ((ltype == TIMESTAMPOID && rtype == TIMESTAMPOID) ||
					(ltype == TIMESTAMPTZOID && rtype == TIMESTAMPTZOID))
					return OSSD_OPC_TS;
				if ((ltype == DATEOID && rtype == TIMESTAMPOID) ||
					(ltype == TIMESTAMPOID && rtype == DATEOID))
					return OSSD_OPC_DATE_TS;
				break;
			default:
				break;
		}
	}
	return OSSD_OPC_NONE;
}

/*
 * Can the drive evaluate this qual?  The qual compiler is the walker: a
 * qual is pushable exactly when it compiles on its own.
 */
bool
ossd_qual_pushable(Expr *expr, Index relid)
{
	OssdProgram prog;
	char	   *why = NULL;

	return ossd_compile_filter(list_make1(expr), relid, &prog, &why);
}

/* LIKE patterns the helper matches exactly like PostgreSQL. */
bool ossd_like_pattern_ok(const char *pat, int len);
bool
ossd_like_pattern_ok(const char *pat, int len)
{
	for (int i = 0; i < len; i++)
	{
		if (pat[i] == '\\')
			return false;
		/* '_' is one character: bytewise only in single-byte encodings */
		if (pat[i] == '_' && pg_database_encoding_max_length() > 1)
			return false;
	}
	return true;
}

/*
 * ossd_filter('kernel', arg, arg, ...) with a constant name and, as
 * arguments, columns of the scanned relation or constants of supported
 * types: the deployed kernel can run on the drive, with ctx->col[i] bound
 * to the i-th argument.  Returns the name, the attnos (0 for a constant)
 * and the constants in order, or NULL.
 */
char *
ossd_kernel_call(Expr *expr, Index relid, List **attnos, List **consts)
{
	FuncExpr   *f;
	Const	   *c;
	char	   *fname;
	ListCell   *lc;
	List	   *res = NIL;
	List	   *cres = NIL;

	if (!IsA(expr, FuncExpr))
		return NULL;
	f = (FuncExpr *) expr;
	fname = get_func_name(f->funcid);
	if (fname == NULL || strcmp(fname, "ossd_filter") != 0 || f->funcresulttype != BOOLOID)
		return NULL;
	if (list_length(f->args) < 2 || list_length(f->args) > 33 || !IsA(linitial(f->args), Const))
		return NULL;
	c = linitial(f->args);
	if (c->constisnull || c->consttype != TEXTOID)
		return NULL;
	for_each_from(lc, f->args, 1)
	{
		Expr	   *a = lfirst(lc);
		Var		   *v;

		while (IsA(a, RelabelType))
			a = ((RelabelType *) a)->arg;
		if (IsA(a, Const))
		{
			Const	   *k = (Const *) a;

			if (!ossd_type_supported(k->consttype))
				return NULL;
			res = lappend_int(res, 0);
			cres = lappend(cres, k);
			continue;
		}
		if (!IsA(a, Var))
			return NULL;
		v = (Var *) a;
		if (v->varno != relid || v->varlevelsup != 0 || v->varattno <= 0 ||
			!ossd_type_supported(v->vartype))
			return NULL;
		res = lappend_int(res, v->varattno);
	}
	ossd_check_kernel_call(f->funcid, TextDatumGetCString(c->constvalue), list_length(res));
	*attnos = res;
	if (consts)
		*consts = cres;
	return TextDatumGetCString(c->constvalue);
}

/* An expression without the binary-compatible relabels around it. */
Node *
ossd_strip_relabel(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n;
}
