/*-------------------------------------------------------------------------
 *
 * ossd_qualgen.c
 *		  Compiles whitelisted quals into eBPF raw images for the drive.
 *
 * The generated filter follows SQL's three-valued logic exactly: every
 * boolean node is compiled with three continuation labels (true, false,
 * null); AND/OR keep a "saw null" flag in a stack slot.  The kernel returns
 * OSSD_ROW_MATCH only for TRUE.  Whenever an operand cannot be decided
 * exactly (a date outside the timestamp range, a numeric out of 128 bits,
 * ...) the kernel or the helper returns OSSD_ROW_TO_HOST and PostgreSQL
 * decides.
 *
 * Registers: r6 = ctx (kept across helper calls), r7/r8 operands,
 * r0..r5 helper arguments and results.  Constants live in immediates or in
 * the image's read-only data (numeric constants as struct ossd_numeric,
 * text payloads as bytes).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "ossd_frame.h"
#include "ossd_kernel.h"
#include "ossd_bpf.h"
#include "ossd_rt.h"
#include "pg_ossd.h"

extern bool ossd_like_pattern_ok(const char *pat, int len);

typedef struct Fixup
{
	int			insn;
	int			label;
} Fixup;

typedef struct QGen
{
	struct ossd_insn *insns;
	int			ninsns;
	int			cap;
	StringInfoData rodata;
	int		   *labels;			/* insn index of each label, -1 = unplaced */
	int			nlabels;
	int			labcap;
	Fixup	   *fixups;
	int			nfixups;
	int			fixcap;
	int			stack;			/* bytes of stack used */
	Index		relid;
	int			nbind;
	AttrNumber	bind[OSSD_KCTX_MAX_COLS];
	int			Lhost;			/* return OSSD_ROW_TO_HOST */
	uint64		features;		/* OSSD_FEATURE_* the kernel needs of the drive */
	const char *why;
} QGen;

#define COL_OFF(i)		((int) (offsetof(struct ossd_kctx, col) + (i) * sizeof(struct ossd_col)))
#define COL_VALUE(i)	(COL_OFF(i) + (int) offsetof(struct ossd_col, value))
#define COL_DATA(i)		(COL_OFF(i) + (int) offsetof(struct ossd_col, data))
#define COL_LEN(i)		(COL_OFF(i) + (int) offsetof(struct ossd_col, len))
#define COL_ISNULL(i)	(COL_OFF(i) + (int) offsetof(struct ossd_col, isnull))

static bool gen_bool(QGen *g, Expr *e, int Lt, int Lf, int Ln);

static void
emit(QGen *g, struct ossd_insn insn)
{
	if (g->ninsns >= g->cap)
	{
		g->cap *= 2;
		g->insns = repalloc(g->insns, g->cap * sizeof(struct ossd_insn));
	}
	g->insns[g->ninsns++] = insn;
}

static int
label_new(QGen *g)
{
	if (g->nlabels >= g->labcap)
	{
		g->labcap *= 2;
		g->labels = repalloc(g->labels, g->labcap * sizeof(int));
	}
	g->labels[g->nlabels] = -1;
	return g->nlabels++;
}

static void
label_place(QGen *g, int L)
{
	g->labels[L] = g->ninsns;
}

/* Emit a jump (conditional or not) whose target is label L. */
static void
emit_jump(QGen *g, struct ossd_insn insn, int L)
{
	if (g->nfixups >= g->fixcap)
	{
		g->fixcap *= 2;
		g->fixups = repalloc(g->fixups, g->fixcap * sizeof(Fixup));
	}
	g->fixups[g->nfixups].insn = g->ninsns;
	g->fixups[g->nfixups].label = L;
	g->nfixups++;
	emit(g, insn);
}

static void
jmp(QGen *g, int L)
{
	emit_jump(g, (struct ossd_insn) OSSD_JA(0), L);
}

static void
emit_imm64(QGen *g, int reg, uint64 v)
{
	struct ossd_insn pair[2] = {OSSD_LD_IMM64(reg, v)};

	emit(g, pair[0]);
	emit(g, pair[1]);
}

static void
emit_rodata_ptr(QGen *g, int reg, int off)
{
	struct ossd_insn pair[2] = {OSSD_LD_RODATA(reg, off)};

	emit(g, pair[0]);
	emit(g, pair[1]);
}

static int
rodata_add(QGen *g, const void *data, int len)
{
	int			off;

	while (g->rodata.len % 8)
		appendStringInfoChar(&g->rodata, '\0');
	off = g->rodata.len;
	if (len > 0)
		appendBinaryStringInfo(&g->rodata, data, len);
	else
		appendStringInfoChar(&g->rodata, '\0');
	return off;
}

static int
stack_alloc(QGen *g)
{
	if (g->stack + 8 > OSSD_STACK_SIZE)
		return 0;
	g->stack += 8;
	return -g->stack;
}

/* Column index of a Var of our relation (bound on first use), or -1. */
static int
bind_var(QGen *g, Var *v)
{
	if (v->varno != g->relid || v->varlevelsup != 0 || v->varattno <= 0)
		return -1;
	for (int i = 0; i < g->nbind; i++)
		if (g->bind[i] == v->varattno)
			return i;
	if (g->nbind >= OSSD_KCTX_MAX_COLS)
		return -1;
	g->bind[g->nbind] = v->varattno;
	return g->nbind++;
}

/*
 * An operand: a Var of the scanned relation, a Const, or substring() of a
 * text-like column at constant positions (is_substr: col is the column,
 * spec what helper 23 selects of it).
 */
typedef struct Operand
{
	bool		is_const;
	bool		is_substr;
	int			col;			/* Var: context column */
	uint64		spec;			/* is_substr: OSSD_SUBSTR_SPEC and flags */
	Const	   *c;
	Oid			type;
} Operand;

/*
 * The characters substring(s, start[, length]) keeps, as PostgreSQL's
 * text_substring (varlena.c) computes them: skip max(start, 1) - 1
 * characters, then keep start + length - max(start, 1) of them (none when
 * start + length < 1: a start below 1 shortens the take), or all the rest
 * without a length or when start + length overflows int32.  A negative
 * length is an error PostgreSQL raises: false, and the host raises it.
 */
static bool
substr_skip_take(int32 start, bool has_len, int32 len,
				 uint64 *skip, uint64 *take)
{
	int32		s1 = Max(start, 1);
	int32		end;

	*skip = (uint64) (s1 - 1);
	if (!has_len || (len >= 0 && pg_add_s32_overflow(start, len, &end)))
	{
		*take = OSSD_SUBSTR_TO_END;
		return true;
	}
	if (len < 0)
		return false;
	if (end < 1)
	{
		*skip = 0;
		*take = 0;
		return true;
	}

	/*
	 * No text value holds OSSD_SUBSTR_TO_END characters (a varlena is under
	 * 1 GB): a longer take is the rest of the string
	 */
	*take = Min((uint64) (end - s1), (uint64) OSSD_SUBSTR_TO_END);
	return true;
}

/*
 * substring(x, start[, length]) / substr(...) of a text, varchar or char(n)
 * column x at constant positions: the column and the helper's spec.  A
 * char(n) column reaches substring() through the cast to text, which drops
 * its trailing blanks (rtrim1): OSSD_SUBSTR_RTRIM does the same on the
 * drive.  Characters are counted as the server counts them: UTF-8
 * sequences in a UTF8 database, bytes in a single-byte encoding; other
 * multibyte encodings stay on the host.  The drive must know helper 23
 * (OSSD_FEATURE_TEXT_SUBSTR, which the plan records and the executor
 * checks: ossd_exec.c).
 */
static bool
get_substr_operand(QGen *g, FuncExpr *f, Operand *op)
{
	Node	   *arg;
	Const	   *cstart;
	Const	   *clen = NULL;
	bool		has_len;
	uint64		skip,
				take;
	uint64		flags = 0;

	if (f->funcid != F_SUBSTRING_TEXT_INT4_INT4 && f->funcid != F_SUBSTR_TEXT_INT4_INT4 &&
		f->funcid != F_SUBSTRING_TEXT_INT4 && f->funcid != F_SUBSTR_TEXT_INT4)
		return false;
	has_len = list_length(f->args) == 3;
	arg = ossd_strip_relabel(linitial(f->args));
	cstart = (Const *) ossd_strip_relabel(lsecond(f->args));
	if (has_len)
		clen = (Const *) ossd_strip_relabel(lthird(f->args));
	if (!IsA(cstart, Const) || (has_len && !IsA(clen, Const)))
	{
		g->why = "substring positions that are not constants";
		return false;
	}
	/* a NULL position is folded away by the planner (substring is strict) */
	if (cstart->constisnull || (has_len && clen->constisnull))
		return false;

	/* text(char(n)) drops the trailing blanks before substring() sees them */
	if (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == F_TEXT_BPCHAR &&
		list_length(((FuncExpr *) arg)->args) == 1)
	{
		arg = ossd_strip_relabel(linitial(((FuncExpr *) arg)->args));
		if (!IsA(arg, Var) || ((Var *) arg)->vartype != BPCHAROID)
			return false;
		flags |= OSSD_SUBSTR_RTRIM;
	}
	if (!IsA(arg, Var))
		return false;
	switch (((Var *) arg)->vartype)
	{
		case TEXTOID:
		case VARCHAROID:
			break;
		case BPCHAROID:
			/* a relabeled char(n) keeps its blanks: only text(char(n)) is known */
			if (!(flags & OSSD_SUBSTR_RTRIM))
				return false;
			break;
		default:
			return false;
	}

	if (GetDatabaseEncoding() == PG_UTF8)
		flags |= OSSD_SUBSTR_UTF8;
	else if (pg_database_encoding_max_length() != 1)
	{
		g->why = "substring in a multibyte encoding other than UTF8";
		return false;
	}
	if (!substr_skip_take(DatumGetInt32(cstart->constvalue), has_len,
						  has_len ? DatumGetInt32(clen->constvalue) : 0, &skip, &take))
	{
		g->why = "substring with a negative length (an error the host raises)";
		return false;
	}

	op->col = bind_var(g, (Var *) arg);
	if (op->col < 0)
		return false;
	op->is_substr = true;
	op->spec = OSSD_SUBSTR_SPEC(skip, take) | flags;
	op->type = TEXTOID;
	return true;
}

static bool
get_operand(QGen *g, Expr *e, Operand *op)
{
	Expr	   *s = (Expr *) ossd_strip_relabel((Node *) e);

	op->type = exprType((Node *) e);
	op->is_substr = false;
	if (IsA(s, FuncExpr))
	{
		op->is_const = false;
		op->c = NULL;
		return get_substr_operand(g, (FuncExpr *) s, op);
	}
	if (IsA(s, Var))
	{
		Var		   *v = (Var *) s;

		/*
		 * The column's own type is what the drive is told of (ossd_exec.c):
		 * a domain over text, relabeled to text here, is a type it refuses
		 */
		if (!ossd_type_supported(v->vartype))
			return false;
		op->is_const = false;
		op->col = bind_var(g, v);
		op->c = NULL;
		return op->col >= 0;
	}
	if (IsA(s, Const))
	{
		op->is_const = true;
		op->c = (Const *) s;
		op->col = -1;
		return true;
	}
	return false;
}

/* if operand is NULL go to Ln */
static void
gen_null_check(QGen *g, Operand *op, int Ln)
{
	if (op->is_const)
	{
		if (op->c->constisnull)
			jmp(g, Ln);
		return;
	}
	emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_B, OSSD_R0, OSSD_R6, COL_ISNULL(op->col)));
	emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0), Ln);
}

/* Scalar 64-bit value of an int-like / date / timestamp / float operand */
static bool
const_scalar(Const *c, uint64 *v)
{
	switch (c->consttype)
	{
		case BOOLOID:
			*v = DatumGetBool(c->constvalue) ? 1 : 0;
			return true;
		case INT2OID:
			*v = (uint64) (int64) DatumGetInt16(c->constvalue);
			return true;
		case INT4OID:
			*v = (uint64) (int64) DatumGetInt32(c->constvalue);
			return true;
		case INT8OID:
			*v = (uint64) DatumGetInt64(c->constvalue);
			return true;
		case DATEOID:
			*v = (uint64) (int64) DatumGetDateADT(c->constvalue);
			return true;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*v = (uint64) DatumGetTimestamp(c->constvalue);
			return true;
		case FLOAT4OID:
			{
				double		d = (double) DatumGetFloat4(c->constvalue);

				memcpy(v, &d, 8);
				return true;
			}
		case FLOAT8OID:
			{
				double		d = DatumGetFloat8(c->constvalue);

				memcpy(v, &d, 8);
				return true;
			}
		default:
			return false;
	}
}

static bool
load_scalar(QGen *g, Operand *op, int reg)
{
	if (op->is_const)
	{
		uint64		v;

		if (!const_scalar(op->c, &v))
			return false;
		emit_imm64(g, reg, v);
	}
	else
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, reg, OSSD_R6, COL_VALUE(op->col)));
	return true;
}

/* date (days) in reg -> timestamp (us); out-of-range or infinite -> host */
static void
date_to_ts(QGen *g, int reg)
{
	/* finite dates that convert without overflow: see date2timestamp */
	emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JSLE, reg, -2451545, 0), g->Lhost);
	emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JSGE, reg,
												 TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE, 0),
			  g->Lhost);
	emit_imm64(g, OSSD_R0, (uint64) USECS_PER_DAY);
	emit(g, (struct ossd_insn) OSSD_ALU64_REG(OSSD_BPF_MUL, reg, OSSD_R0));
}

/* Jump to Lt when (r7 <op> r8) signed, else Lf */
static void
gen_signed_compare(QGen *g, int strategy, int ra, int rb, int Lt, int Lf)
{
	int			op;

	switch (strategy)
	{
		case BTLessStrategyNumber:
			op = OSSD_BPF_JSLT;
			break;
		case BTLessEqualStrategyNumber:
			op = OSSD_BPF_JSLE;
			break;
		case BTEqualStrategyNumber:
			op = OSSD_BPF_JEQ;
			break;
		case BTGreaterEqualStrategyNumber:
			op = OSSD_BPF_JSGE;
			break;
		case BTGreaterStrategyNumber:
			op = OSSD_BPF_JSGT;
			break;
		default:
			op = OSSD_BPF_JNE;
			break;
	}
	emit_jump(g, (struct ossd_insn) OSSD_JMP_REG(op, ra, rb, 0), Lt);
	jmp(g, Lf);
}

/* r0 holds -1/0/1: compare it with 0 */
static void
gen_cmp_result(QGen *g, int strategy, int Lt, int Lf)
{
	emit(g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R7, 0));
	gen_signed_compare(g, strategy, OSSD_R0, OSSD_R7, Lt, Lf);
}

/* Load pointer+length of a text-like operand into (rp, rl) */
static bool
load_bytes(QGen *g, Operand *op, int rp, int rl)
{
	Assert(!op->is_substr);
	if (op->is_const)
	{
		text	   *t = DatumGetTextPP(op->c->constvalue);
		int			len = VARSIZE_ANY_EXHDR(t);
		int			off;

		/*
		 * A bpchar constant only ever meets the bpchar helpers, which ignore
		 * trailing blanks: drop them here once rather than on every row.
		 */
		if (op->c->consttype == BPCHAROID)
			len = bpchartruelen(VARDATA_ANY(t), len);
		off = rodata_add(g, VARDATA_ANY(t), len);

		emit_rodata_ptr(g, rp, off);
		emit(g, (struct ossd_insn) OSSD_MOV64_IMM(rl, len));
	}
	else
	{
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, rp, OSSD_R6, COL_DATA(op->col)));
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_W, rl, OSSD_R6, COL_LEN(op->col)));
	}
	return true;
}

static bool
load_numeric_ptr(QGen *g, Operand *op, int rp)
{
	if (op->is_const)
	{
		Numeric		n = DatumGetNumeric(op->c->constvalue);
		struct ossd_numeric on;

		if (ossd_numeric_from_pg(VARDATA_ANY(n), VARSIZE_ANY_EXHDR(n), &on) != 0)
		{
			g->why = "numeric constant outside the drive's 128-bit range";
			return false;
		}
		emit_rodata_ptr(g, rp, rodata_add(g, &on, sizeof(on)));
	}
	else
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, rp, OSSD_R6, COL_DATA(op->col)));
	return true;
}

/* The strategy of "b op a" for the strategy of "a op b" */
static int
commuted_strategy(int strategy)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return BTGreaterStrategyNumber;
		case BTLessEqualStrategyNumber:
			return BTGreaterEqualStrategyNumber;
		case BTGreaterEqualStrategyNumber:
			return BTLessEqualStrategyNumber;
		case BTGreaterStrategyNumber:
			return BTLessStrategyNumber;
		default:
			return strategy;	/* = and <> */
	}
}

/*
 * A text comparison of substring(col, ...) with a constant (either side):
 * helper 23 compares the selected characters with the constant's bytes,
 * which is the comparison itself under the collations ossd_classify_operator
 * accepts (bytewise order; bytewise equality for deterministic ones).
 */
static bool
gen_substr_compare(QGen *g, OssdOpClass cls, int strategy, Operand *a,
				   Operand *b, int Lt, int Lf, int Ln)
{
	Operand    *sub = a->is_substr ? a : b;
	Operand    *k = a->is_substr ? b : a;

	if (cls != OSSD_OPC_TEXT || !k->is_const)
	{
		g->why = "substring other than compared with a text constant";
		return false;
	}
	if (sub == b)
		strategy = commuted_strategy(strategy);
	gen_null_check(g, sub, Ln);
	gen_null_check(g, k, Ln);
	if (k->c->constisnull)
		return true;			/* already jumped to Ln */

	emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, OSSD_R1, OSSD_R6, COL_DATA(sub->col)));
	emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_W, OSSD_R2, OSSD_R6, COL_LEN(sub->col)));
	emit_imm64(g, OSSD_R3, sub->spec);
	load_bytes(g, k, OSSD_R4, OSSD_R5);
	emit(g, (struct ossd_insn) OSSD_CALL(OSSD_H_TEXT_SUBSTR_CMP));
	g->features |= OSSD_FEATURE_TEXT_SUBSTR;
	gen_cmp_result(g, strategy, Lt, Lf);
	return true;
}

/* OpExpr returning bool: a comparison or LIKE */
static bool
gen_opexpr(QGen *g, Oid opno, Oid inputcollid, Expr *le, Expr *re,
		   int Lt, int Lf, int Ln)
{
	Operand		a,
				b;
	int			strategy = 0;
	OssdOpClass cls;

	if (!get_operand(g, le, &a) || !get_operand(g, re, &b))
		return false;
	cls = ossd_classify_operator(opno, inputcollid, a.type, b.type, &strategy);
	if (cls == OSSD_OPC_NONE)
	{
		g->why = "operator not on the whitelist";
		return false;
	}
	if (a.is_const && b.is_const)
		return false;			/* left to the planner's folding */
	if (a.is_substr || b.is_substr)
		return gen_substr_compare(g, cls, strategy, &a, &b, Lt, Lf, Ln);
	gen_null_check(g, &a, Ln);
	gen_null_check(g, &b, Ln);
	if ((a.is_const && a.c->constisnull) || (b.is_const && b.c->constisnull))
		return true;			/* already jumped to Ln */

	switch (cls)
	{
		case OSSD_OPC_INT:
		case OSSD_OPC_DATE:
		case OSSD_OPC_TS:
			if (!load_scalar(g, &a, OSSD_R7) || !load_scalar(g, &b, OSSD_R8))
				return false;
			gen_signed_compare(g, strategy, OSSD_R7, OSSD_R8, Lt, Lf);
			return true;
		case OSSD_OPC_DATE_TS:
			if (!load_scalar(g, &a, OSSD_R7) || !load_scalar(g, &b, OSSD_R8))
				return false;
			if (a.type == DATEOID)
				date_to_ts(g, OSSD_R7);
			if (b.type == DATEOID)
				date_to_ts(g, OSSD_R8);
			gen_signed_compare(g, strategy, OSSD_R7, OSSD_R8, Lt, Lf);
			return true;
		case OSSD_OPC_FLOAT:
			if (!load_scalar(g, &a, OSSD_R1) || !load_scalar(g, &b, OSSD_R2))
				return false;
			emit(g, (struct ossd_insn) OSSD_CALL(OSSD_H_FLOAT8_CMP));
			gen_cmp_result(g, strategy, Lt, Lf);
			return true;
		case OSSD_OPC_NUMERIC:
			if (!load_numeric_ptr(g, &a, OSSD_R1) || !load_numeric_ptr(g, &b, OSSD_R2))
				return false;
			emit(g, (struct ossd_insn) OSSD_CALL(OSSD_H_NUMERIC_CMP));
			gen_cmp_result(g, strategy, Lt, Lf);
			return true;
		case OSSD_OPC_TEXT:
		case OSSD_OPC_BPCHAR:
			load_bytes(g, &a, OSSD_R1, OSSD_R2);
			load_bytes(g, &b, OSSD_R3, OSSD_R4);
			if (strategy == BTEqualStrategyNumber || strategy == OSSD_STRAT_NE)
			{
				emit(g, (struct ossd_insn) OSSD_CALL(cls == OSSD_OPC_TEXT ? OSSD_H_TEXT_EQ : OSSD_H_BPCHAR_EQ));
				emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0),
						  strategy == BTEqualStrategyNumber ? Lt : Lf);
				jmp(g, strategy == BTEqualStrategyNumber ? Lf : Lt);
				return true;
			}
			emit(g, (struct ossd_insn) OSSD_CALL(cls == OSSD_OPC_TEXT ? OSSD_H_TEXT_CMP : OSSD_H_BPCHAR_CMP));
			gen_cmp_result(g, strategy, Lt, Lf);
			return true;
		case OSSD_OPC_LIKE:
		case OSSD_OPC_NOTLIKE:
			{
				text	   *pat;

				if (a.is_const || !b.is_const)
					return false;
				pat = DatumGetTextPP(b.c->constvalue);
				if (!ossd_like_pattern_ok(VARDATA_ANY(pat), VARSIZE_ANY_EXHDR(pat)))
				{
					g->why = "LIKE pattern with escapes or '_' in a multibyte encoding";
					return false;
				}
				load_bytes(g, &a, OSSD_R1, OSSD_R2);
				load_bytes(g, &b, OSSD_R3, OSSD_R4);
				emit(g, (struct ossd_insn) OSSD_CALL(OSSD_H_TEXT_LIKE));
				emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0),
						  cls == OSSD_OPC_LIKE ? Lt : Lf);
				jmp(g, cls == OSSD_OPC_LIKE ? Lf : Lt);
				return true;
			}
		default:
			return false;
	}
}

/*
 * AND (is_and) / OR over args.
 *
 * Once an argument of an AND is NULL the result can only be FALSE or NULL;
 * if NULL goes where FALSE goes (Ln == Lf, as in a WHERE clause) the NULL
 * argument jumps there at once, and if NULL goes where TRUE goes (Ln ==
 * Lt, under NOT) a NULL argument is passed over like a TRUE one.  OR is
 * the same with TRUE and FALSE swapped.  Only when NULL has a label of its
 * own is a "saw NULL" flag kept on the stack: such flags multiply the
 * states the verifier must explore (each flag doubles them), and a WHERE
 * clause of ten IN lists was rejected as too complex with one flag each.
 * The flag is a 32-bit stack word: the verifier tracks the values of
 * 64-bit stack stores, and a 32-bit word is plain data to it.
 */
static bool
gen_andor(QGen *g, List *args, bool is_and, int Lt, int Lf, int Ln)
{
	int			Lshort = is_and ? Lf : Lt;	/* decided by one argument */
	int			Lpass = is_and ? Lt : Lf;	/* every argument passed over */
	int			slot;
	ListCell   *lc;

	if (Ln == Lshort || Ln == Lpass)
	{
		foreach(lc, args)
		{
			int			Lnext = label_new(g);
			int			Lnull = Ln == Lshort ? Lshort : Lnext;

			if (!(is_and ? gen_bool(g, lfirst(lc), Lnext, Lf, Lnull)
				  : gen_bool(g, lfirst(lc), Lt, Lnext, Lnull)))
				return false;
			label_place(g, Lnext);
		}
		jmp(g, Lpass);
		return true;
	}

	slot = stack_alloc(g);
	if (slot == 0)
	{
		g->why = "expression too deep";
		return false;
	}

	/*
	 * Every way out of here leaves the flag 0 again (the short-circuit
	 * through Lreset), so that the states after this AND/OR are the same
	 * whatever it saw: a flag the verifier still saw as 0 or 1 later on
	 * would double the paths it explores after every such AND/OR.
	 */
	{
		int			Lreset = label_new(g);

		emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_W, OSSD_R10, slot, 0));
		foreach(lc, args)
		{
			int			Lnext = label_new(g);
			int			Lsetnull = label_new(g);

			if (!(is_and ? gen_bool(g, lfirst(lc), Lnext, Lreset, Lsetnull)
				  : gen_bool(g, lfirst(lc), Lreset, Lnext, Lsetnull)))
				return false;
			label_place(g, Lsetnull);
			emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_W, OSSD_R10, slot, 1));
			label_place(g, Lnext);
		}
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_W, OSSD_R0, OSSD_R10, slot));
		emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_W, OSSD_R10, slot, 0));
		emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0), Ln);
		jmp(g, Lpass);
		label_place(g, Lreset);
		emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_W, OSSD_R10, slot, 0));
		jmp(g, Lshort);
	}
	return true;
}

static bool
gen_bool(QGen *g, Expr *e, int Lt, int Lf, int Ln)
{
	e = (Expr *) ossd_strip_relabel((Node *) e);
	if (e == NULL)
		return false;
	switch (nodeTag(e))
	{
		case T_BoolExpr:
			{
				BoolExpr   *b = (BoolExpr *) e;

				if (b->boolop == NOT_EXPR)
					return gen_bool(g, linitial(b->args), Lf, Lt, Ln);
				return gen_andor(g, b->args, b->boolop == AND_EXPR, Lt, Lf, Ln);
			}
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) e;

				if (list_length(op->args) != 2 || op->opresulttype != BOOLOID)
					return false;
				return gen_opexpr(g, op->opno, op->inputcollid,
								  linitial(op->args), lsecond(op->args), Lt, Lf, Ln);
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) e;
				Expr	   *arr = (Expr *) ossd_strip_relabel((Node *) lsecond(sa->args));
				Const	   *c;
				ArrayType  *at;
				Datum	   *elems;
				bool	   *nulls;
				int			n;
				int16		typlen;
				bool		typbyval;
				char		typalign;
				Oid			elemtype;
				List	   *items = NIL;

				if (!IsA(arr, Const))
					return false;
				c = (Const *) arr;
				if (c->constisnull)
				{
					jmp(g, Ln);
					return true;
				}
				at = DatumGetArrayTypeP(c->constvalue);
				elemtype = ARR_ELEMTYPE(at);
				if (ARR_NDIM(at) > 1 || list_length(sa->args) != 2)
					return false;
				get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
				deconstruct_array(at, elemtype, typlen, typbyval, typalign,
								  &elems, &nulls, &n);
				if (n > 256)
					return false;
				for (int i = 0; i < n; i++)
				{
					Const	   *ec = makeConst(elemtype, -1, c->constcollid, typlen,
											   elems[i], nulls[i], typbyval);
					OpExpr	   *oe = makeNode(OpExpr);

					oe->opno = sa->opno;
					oe->opfuncid = sa->opfuncid;
					oe->opresulttype = BOOLOID;
					oe->inputcollid = sa->inputcollid;
					oe->args = list_make2(linitial(sa->args), ec);
					oe->location = -1;
					items = lappend(items, oe);
				}
				return gen_andor(g, items, !sa->useOr, Lt, Lf, Ln);
			}
		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) e;
				Expr	   *arg = (Expr *) ossd_strip_relabel((Node *) nt->arg);
				int			col;

				if (nt->argisrow || !IsA(arg, Var) ||
					!ossd_type_supported(((Var *) arg)->vartype))
					return false;
				col = bind_var(g, (Var *) arg);
				if (col < 0)
					return false;
				emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_B, OSSD_R0, OSSD_R6, COL_ISNULL(col)));
				emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0),
						  nt->nulltesttype == IS_NULL ? Lt : Lf);
				jmp(g, nt->nulltesttype == IS_NULL ? Lf : Lt);
				return true;
			}
		case T_BooleanTest:
			{
				BooleanTest *bt = (BooleanTest *) e;

				switch (bt->booltesttype)
				{
					case IS_TRUE:
						return gen_bool(g, bt->arg, Lt, Lf, Lf);
					case IS_NOT_TRUE:
						return gen_bool(g, bt->arg, Lf, Lt, Lt);
					case IS_FALSE:
						return gen_bool(g, bt->arg, Lf, Lt, Lf);
					case IS_NOT_FALSE:
						return gen_bool(g, bt->arg, Lt, Lf, Lt);
					case IS_UNKNOWN:
						return gen_bool(g, bt->arg, Lf, Lf, Lt);
					case IS_NOT_UNKNOWN:
						return gen_bool(g, bt->arg, Lt, Lt, Lf);
				}
				return false;
			}
		case T_Var:
			{
				Var		   *v = (Var *) e;
				int			col;

				if (v->vartype != BOOLOID)
					return false;
				col = bind_var(g, v);
				if (col < 0)
					return false;
				emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_B, OSSD_R0, OSSD_R6, COL_ISNULL(col)));
				emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0), Ln);
				emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, OSSD_R0, OSSD_R6, COL_VALUE(col)));
				emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0), Lt);
				jmp(g, Lf);
				return true;
			}
		case T_Const:
			{
				Const	   *c = (Const *) e;

				if (c->consttype != BOOLOID)
					return false;
				if (c->constisnull)
					jmp(g, Ln);
				else
					jmp(g, DatumGetBool(c->constvalue) ? Lt : Lf);
				return true;
			}
		default:
			g->why = "node type not on the whitelist";
			return false;
	}
}

/* A generator with empty buffers, for relation relid. */
static void
qgen_init(QGen *g, Index relid)
{
	memset(g, 0, sizeof(*g));
	g->cap = 64;
	g->insns = palloc(g->cap * sizeof(struct ossd_insn));
	g->labcap = 32;
	g->labels = palloc(g->labcap * sizeof(int));
	g->fixcap = 32;
	g->fixups = palloc(g->fixcap * sizeof(Fixup));
	initStringInfo(&g->rodata);
	g->relid = relid;
}

/*
 * Resolve the jumps and build the raw image (struct ossd_raw_header,
 * instructions, rodata) and the bindings into out.  False, with a
 * reason, when the kernel is too long or a jump does not fit 16 bits.
 */
static bool
qgen_finish(QGen *g, OssdProgram *out, char **why)
{
	struct ossd_raw_header hdr;
	bytea	   *img;
	Size		len;

	if (g->ninsns > OSSD_MAX_INSNS)
	{
		*why = "kernel too long";
		return false;
	}
	for (int i = 0; i < g->nfixups; i++)
	{
		int			target = g->labels[g->fixups[i].label];

		Assert(target >= 0);
		if (target - (g->fixups[i].insn + 1) > PG_INT16_MAX)
		{
			*why = "jump too long";
			return false;
		}
		g->insns[g->fixups[i].insn].off = (int16) (target - (g->fixups[i].insn + 1));
	}

	hdr.magic = OSSD_RAW_MAGIC;
	hdr.version = 1;
	hdr.insn_count = g->ninsns;
	hdr.rodata_len = g->rodata.len;
	len = sizeof(hdr) + g->ninsns * sizeof(struct ossd_insn) + g->rodata.len;
	img = palloc(VARHDRSZ + len);
	SET_VARSIZE(img, VARHDRSZ + len);
	memcpy(VARDATA(img), &hdr, sizeof(hdr));
	memcpy(VARDATA(img) + sizeof(hdr), g->insns, g->ninsns * sizeof(struct ossd_insn));
	if (g->rodata.len)
		memcpy(VARDATA(img) + sizeof(hdr) + g->ninsns * sizeof(struct ossd_insn),
			   g->rodata.data, g->rodata.len);

	/*
	 * The drive runs only what its verifier accepts; a kernel it would
	 * reject (too many paths to explore, say) fails the whole scan there.
	 * The same verifier runs here first, so that such a qual stays on the
	 * host instead.
	 */
	{
		struct ossd_prog *prog = NULL;
		char		log[512];

		log[0] = '\0';
		if (ossd_prog_load(VARDATA(img), len, &prog, log, sizeof(log)) < 0 ||
			ossd_prog_verify(prog, log, sizeof(log)) < 0)
		{
			if (prog)
				ossd_prog_free(prog);
			*why = psprintf("kernel rejected by the verifier: %s", log);
			return false;
		}
		ossd_prog_free(prog);
	}

	out->image = img;
	out->ninsns = g->ninsns;
	out->ncalls = 0;
	out->ninline = 0;
	out->nlike = 0;
	for (int i = 0; i < g->ninsns; i++)
		if (g->insns[i].code == (OSSD_BPF_JMP | OSSD_BPF_CALL))
		{
			out->ncalls++;
			/* the equality helpers the drive's JIT compiles inline */
			if (g->insns[i].imm == OSSD_H_TEXT_EQ || g->insns[i].imm == OSSD_H_BPCHAR_EQ ||
				g->insns[i].imm == OSSD_H_NUMERIC_CMP)
				out->ninline++;
			else if (g->insns[i].imm == OSSD_H_TEXT_LIKE)
				out->nlike++;
		}
	out->features = g->features;
	out->bind = NIL;
	for (int i = 0; i < g->nbind; i++)
		out->bind = lappend_int(out->bind, g->bind[i]);
	return true;
}

/*
 * Compile the implicit AND of quals into a filter kernel.  Returns false
 * (with a reason) when any part is not on the whitelist.
 */
bool
ossd_compile_filter(List *quals, Index relid, OssdProgram *out, char **why)
{
	QGen		g;
	int			Lt,
				Lf;
	Expr	   *top;

	qgen_init(&g, relid);

	Lt = label_new(&g);
	Lf = label_new(&g);
	g.Lhost = label_new(&g);

	emit(&g, (struct ossd_insn) OSSD_MOV64_REG(OSSD_R6, OSSD_R1));
	top = list_length(quals) == 1 ? linitial(quals) : make_andclause(quals);
	if (quals == NIL || !gen_bool(&g, top, Lt, Lf, Lf))
	{
		*why = (char *) (g.why ? g.why : "not on the whitelist");
		return false;
	}
	label_place(&g, Lt);
	emit(&g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R0, OSSD_ROW_MATCH));
	emit(&g, (struct ossd_insn) OSSD_EXIT());
	label_place(&g, Lf);
	emit(&g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R0, OSSD_ROW_SKIP));
	emit(&g, (struct ossd_insn) OSSD_EXIT());
	label_place(&g, g.Lhost);
	emit(&g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R0, OSSD_ROW_TO_HOST));
	emit(&g, (struct ossd_insn) OSSD_EXIT());

	return qgen_finish(&g, out, why);
}

/* ---------------------------------------------------------------------
 * Map kernels: output columns for device-side aggregation.
 *
 * Each output is a Var (passed through: by-value types and numeric), a
 * numeric expression of Vars and constants built from +, - and * (the
 * numeric helpers are exact and keep PostgreSQL's result scales; overflow
 * hands the row to the host), or a searched CASE whose conditions the
 * filter compiler takes and whose results are any of these or constants.
 * A NULL input makes the output NULL, as these operators are strict.
 * ---------------------------------------------------------------------
 */
#define OUT_OFF(i)		((int) (offsetof(struct ossd_kctx, out) + (i) * sizeof(struct ossd_outcol)))
#define OUT_VALUE(i)	(OUT_OFF(i) + (int) offsetof(struct ossd_outcol, value))
#define OUT_NUM(i)		(OUT_OFF(i) + (int) offsetof(struct ossd_outcol, num))
#define OUT_ISNULL(i)	(OUT_OFF(i) + (int) offsetof(struct ossd_outcol, isnull))

#define F_NUMERIC_ADD_OID	1724
#define F_NUMERIC_SUB_OID	1725
#define F_NUMERIC_MUL_OID	1726

typedef struct NumLoc
{
	int			kind;			/* 0 column data, 1 stack, 2 rodata */
	int			off;			/* column index, stack offset or rodata offset */
} NumLoc;

static void
numloc_ptr(QGen *g, NumLoc *l, int reg)
{
	if (l->kind == 0)
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, reg, OSSD_R6, COL_DATA(l->off)));
	else if (l->kind == 1)
	{
		emit(g, (struct ossd_insn) OSSD_MOV64_REG(reg, OSSD_R10));
		emit(g, (struct ossd_insn) OSSD_ALU64_IMM(OSSD_BPF_ADD, reg, l->off));
	}
	else
		emit_rodata_ptr(g, reg, l->off);
}

/* collect null checks of every Var of a numeric expression */
static bool
map_null_checks(QGen *g, Expr *e, int Lnull)
{
	e = (Expr *) ossd_strip_relabel((Node *) e);
	if (IsA(e, Var))
	{
		int			col = bind_var(g, (Var *) e);

		if (col < 0)
			return false;
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_B, OSSD_R0, OSSD_R6, COL_ISNULL(col)));
		emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 0, 0), Lnull);
		return true;
	}
	if (IsA(e, Const))
	{
		if (((Const *) e)->constisnull)
			jmp(g, Lnull);
		return true;
	}
	if (IsA(e, OpExpr))
	{
		ListCell   *lc;

		foreach(lc, ((OpExpr *) e)->args)
			if (!map_null_checks(g, lfirst(lc), Lnull))
				return false;
		return true;
	}
	return false;
}

static bool
gen_num(QGen *g, Expr *e, NumLoc *out)
{
	e = (Expr *) ossd_strip_relabel((Node *) e);
	if (exprType((Node *) e) != NUMERICOID)
		return false;
	if (IsA(e, Var))
	{
		out->kind = 0;
		out->off = bind_var(g, (Var *) e);
		return out->off >= 0;
	}
	if (IsA(e, Const))
	{
		Const	   *c = (Const *) e;
		Numeric		n;
		struct ossd_numeric on;

		if (c->constisnull)
			return false;
		n = DatumGetNumeric(c->constvalue);
		if (ossd_numeric_from_pg(VARDATA_ANY(n), VARSIZE_ANY_EXHDR(n), &on) != 0)
			return false;
		out->kind = 2;
		out->off = rodata_add(g, &on, sizeof(on));
		return true;
	}
	if (IsA(e, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) e;
		NumLoc		a,
					b;
		int			helper;

		if (op->opfuncid == F_NUMERIC_ADD_OID)
			helper = OSSD_H_NUMERIC_ADD;
		else if (op->opfuncid == F_NUMERIC_SUB_OID)
			helper = OSSD_H_NUMERIC_SUB;
		else if (op->opfuncid == F_NUMERIC_MUL_OID)
			helper = OSSD_H_NUMERIC_MUL;
		else
			return false;
		if (list_length(op->args) != 2 ||
			!gen_num(g, linitial(op->args), &a) || !gen_num(g, lsecond(op->args), &b))
			return false;
		if (g->stack + 24 > OSSD_STACK_SIZE)
			return false;
		g->stack += 24;
		out->kind = 1;
		out->off = -g->stack;
		numloc_ptr(g, &a, OSSD_R1);
		numloc_ptr(g, &b, OSSD_R2);
		numloc_ptr(g, out, OSSD_R3);
		emit(g, (struct ossd_insn) OSSD_CALL(helper));
		return true;
	}
	return false;
}

/* by-value output types a map kernel passes through (and CASE yields) */
bool
ossd_map_scalar_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID || t == DATEOID ||
		t == TIMESTAMPOID || t == TIMESTAMPTZOID || t == BOOLOID;
}

/* ctx->out[i] is NULL, then on to Ldone */
static void
map_output_null(QGen *g, int i, int Ldone, bool done_follows)
{
	emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_B, OSSD_R6, OUT_ISNULL(i), 1));
	if (!done_follows)
		jmp(g, Ldone);
}

/*
 * The CaseTestExprs of one simple CASE's WHEN condition replaced by its
 * test expression.  A CASE nested in the condition keeps its own
 * (CaseTestExpr stands for the innermost simple CASE's test value).
 */
static Node *
replace_case_test_mutator(Node *node, void *arg)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, CaseTestExpr))
		return copyObject((Node *) arg);
	if (IsA(node, CaseExpr) && ((CaseExpr *) node)->arg != NULL)
	{
		CaseExpr   *inner = (CaseExpr *) copyObject(node);

		inner->arg = (Expr *) replace_case_test_mutator((Node *) inner->arg, arg);
		return (Node *) inner;
	}
	return expression_tree_mutator(node, replace_case_test_mutator, arg);
}

/*
 * A simple CASE (CASE x WHEN v THEN ...) as the searched CASE it means
 * (CASE WHEN x = v THEN ...), when x is a column: evaluating it once per
 * WHEN is then the same as once.  NULL for any other test expression.
 */
static CaseExpr *
searched_case(CaseExpr *ce)
{
	Node	   *x = ossd_strip_relabel((Node *) ce->arg);
	CaseExpr   *out;
	ListCell   *lc;

	if (!IsA(x, Var))
		return NULL;
	out = copyObject(ce);
	out->arg = NULL;
	foreach(lc, out->args)
	{
		CaseWhen   *w = lfirst(lc);

		w->expr = (Expr *) replace_case_test_mutator((Node *) w->expr, ce->arg);
	}
	return out;
}

/*
 * ctx->out[i] = e, then on to Ldone.  A searched CASE tests its WHEN
 * conditions in order with the filter's three-valued code -- a NULL
 * condition is not taken, as in SQL -- and computes the first taken
 * branch's result, else the ELSE (a NULL constant when there is none).
 * This is also how an aggregate's FILTER (WHERE c) reaches the drive:
 * agg(x) FILTER (WHERE c) is agg(CASE WHEN c THEN x END) (ossd_upper.c).
 * done_follows: Ldone is placed right after this code (no last jump).
 */
static bool
map_output(QGen *g, Expr *e, int i, int Ldone, bool done_follows, char **why)
{
	Oid			t;
	int			Lnull;

	e = (Expr *) ossd_strip_relabel((Node *) e);
	t = exprType((Node *) e);
	if (IsA(e, CaseExpr))
	{
		CaseExpr   *ce = (CaseExpr *) e;
		ListCell   *lc;

		if (ce->arg != NULL)
		{
			ce = searched_case(ce);
			if (ce == NULL)
			{
				*why = "CASE whose test expression is not a column";
				return false;
			}
		}
		foreach(lc, ce->args)
		{
			CaseWhen   *w = lfirst(lc);
			int			Lthen = label_new(g);
			int			Lnext = label_new(g);

			if (!gen_bool(g, w->expr, Lthen, Lnext, Lnext))
			{
				*why = (char *) (g->why ? g->why : "CASE condition not on the whitelist");
				return false;
			}
			label_place(g, Lthen);
			if (!map_output(g, w->result, i, Ldone, false, why))
				return false;
			label_place(g, Lnext);
		}
		return map_output(g, ce->defresult, i, Ldone, done_follows, why);
	}

	if (t == BOOLOID && !IsA(e, Var) && !IsA(e, Const))
	{
		/* a condition's value: true, false or NULL, as SQL has it */
		int			Lt = label_new(g);
		int			Lf = label_new(g);
		int			Ln = label_new(g);

		if (!gen_bool(g, e, Lt, Lf, Ln))
		{
			*why = (char *) (g->why ? g->why : "condition not on the whitelist");
			return false;
		}
		for (int v = 1; v >= 0; v--)
		{
			label_place(g, v ? Lt : Lf);
			emit(g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R0, v));
			emit(g, (struct ossd_insn) OSSD_STX_MEM(OSSD_BPF_DW, OSSD_R6, OSSD_R0, OUT_VALUE(i)));
			emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_B, OSSD_R6, OUT_ISNULL(i), 0));
			jmp(g, Ldone);
		}
		label_place(g, Ln);
		map_output_null(g, i, Ldone, done_follows);
		return true;
	}
	if (IsA(e, Const) && ((Const *) e)->constisnull)
	{
		/* a CASE without ELSE, or a NULL branch */
		map_output_null(g, i, Ldone, done_follows);
		return true;
	}
	Lnull = label_new(g);
	if (!map_null_checks(g, e, Lnull))
	{
		*why = "map output not on the whitelist";
		return false;
	}
	if (t == NUMERICOID)
	{
		NumLoc		l;

		if (!gen_num(g, e, &l))
		{
			*why = "numeric expression not on the whitelist";
			return false;
		}
		numloc_ptr(g, &l, OSSD_R1);
		for (int w = 0; w < 3; w++)
		{
			emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, OSSD_R0, OSSD_R1, w * 8));
			emit(g, (struct ossd_insn) OSSD_STX_MEM(OSSD_BPF_DW, OSSD_R6, OSSD_R0, OUT_NUM(i) + w * 8));
		}
	}
	else if (IsA(e, Var) && t == BPCHAROID && ((Var *) e)->vartypmod == VARHDRSZ + 1)
	{
		/* char(1): its one byte (a multibyte character goes to the host) */
		int			col = bind_var(g, (Var *) e);

		if (col < 0)
			return false;
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_W, OSSD_R0, OSSD_R6, COL_LEN(col)));
		emit_jump(g, (struct ossd_insn) OSSD_JMP_IMM(OSSD_BPF_JNE, OSSD_R0, 1, 0), g->Lhost);
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, OSSD_R1, OSSD_R6, COL_DATA(col)));
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_B, OSSD_R0, OSSD_R1, 0));
		emit(g, (struct ossd_insn) OSSD_STX_MEM(OSSD_BPF_DW, OSSD_R6, OSSD_R0, OUT_VALUE(i)));
	}
	else if (IsA(e, Var) && ossd_map_scalar_type(t))
	{
		int			col = bind_var(g, (Var *) e);

		if (col < 0)
			return false;
		emit(g, (struct ossd_insn) OSSD_LDX_MEM(OSSD_BPF_DW, OSSD_R0, OSSD_R6, COL_VALUE(col)));
		emit(g, (struct ossd_insn) OSSD_STX_MEM(OSSD_BPF_DW, OSSD_R6, OSSD_R0, OUT_VALUE(i)));
	}
	else if (IsA(e, Const) && ossd_map_scalar_type(t))
	{
		/* a CASE branch's constant */
		uint64		v;

		if (!const_scalar((Const *) e, &v))
			return false;
		emit_imm64(g, OSSD_R0, v);
		emit(g, (struct ossd_insn) OSSD_STX_MEM(OSSD_BPF_DW, OSSD_R6, OSSD_R0, OUT_VALUE(i)));
	}
	else
	{
		*why = "map output type not supported";
		return false;
	}
	emit(g, (struct ossd_insn) OSSD_ST_MEM(OSSD_BPF_B, OSSD_R6, OUT_ISNULL(i), 0));
	jmp(g, Ldone);
	label_place(g, Lnull);
	map_output_null(g, i, Ldone, done_follows);
	return true;
}

/*
 * Compile a map kernel computing `exprs` into ctx->out[0..n-1].  The
 * output types are the expressions' types.
 */
bool
ossd_compile_map(List *exprs, Index relid, List *prebind, OssdProgram *out,
				 char **why)
{
	QGen		g;
	ListCell   *lc;
	int			i = 0;

	qgen_init(&g, relid);
	g.Lhost = label_new(&g);
	foreach(lc, prebind)
		g.bind[g.nbind++] = lfirst_int(lc);

	emit(&g, (struct ossd_insn) OSSD_MOV64_REG(OSSD_R6, OSSD_R1));
	foreach(lc, exprs)
	{
		int			Lnext = label_new(&g);

		if (i >= OSSD_KCTX_MAX_OUT)
			return false;
		if (!map_output(&g, lfirst(lc), i, Lnext, true, why))
			return false;
		label_place(&g, Lnext);
		i++;
	}
	emit(&g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R0, OSSD_ROW_MATCH));
	emit(&g, (struct ossd_insn) OSSD_EXIT());
	label_place(&g, g.Lhost);
	emit(&g, (struct ossd_insn) OSSD_MOV64_IMM(OSSD_R0, OSSD_ROW_TO_HOST));
	emit(&g, (struct ossd_insn) OSSD_EXIT());

	return qgen_finish(&g, out, why);
}
