/*
 * randq_query.c - query i of a seed, built as parts (select items, WHERE
 * conjuncts, GROUP BY keys, ORDER BY) so that a failing query can be
 * shrunk by leaving parts out.
 *
 * The expressions mix what pg_ossd pushes to the drive (comparisons of a
 * column with a constant or another column, BETWEEN, IN lists, IS [NOT]
 * NULL, boolean tests, LIKE without escapes, AND/OR/NOT; count, sum, avg,
 * min, max of columns and numeric +,-,* expressions, GROUP BY columns) with
 * what it must refuse (arithmetic, functions, casts, ILIKE, escapes,
 * float sums, HAVING, expression keys).
 *
 * Errors.  A query holds at most one expression that can raise an error
 * (overflow, division by zero, out of range), and of one kind only (so
 * no numeric-to-integer casts of columns holding NaN, no float products
 * that can both overflow and underflow), so
 * that every mode must raise the same one whatever the row order.  In the
 * WHERE clause it is the last conjunct, after conjuncts that each cost one
 * operator: PostgreSQL evaluates a scan's quals cheapest first, keeping
 * the written order among equals, so with offload off the same rows reach
 * it as with the drive filtering first.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "randq.h"

enum
{
	T_I2, T_I4, T_I8, T_F4, T_F8, T_FX, T_NUM, T_NUMFIX, T_TEXT, T_VC, T_BPC, T_C1,
	T_BOOL, T_DATE, T_TS, T_TZ
};

typedef struct Col
{
	const char *name;
	int			ty;
} Col;

static const Col wide_cols[] = {
	{"id", T_I4}, {"i2", T_I2}, {"i4", T_I4}, {"i8", T_I8}, {"f4", T_F4}, {"f8", T_F8}, {"fx", T_FX},
	{"n", T_NUM}, {"n2", T_NUMFIX}, {"n0", T_NUMFIX}, {"nneg", T_NUMFIX}, {"nsp", T_NUMFIX},
	{"t", T_TEXT}, {"vc", T_VC}, {"c5", T_BPC}, {"c1", T_C1}, {"b", T_BOOL}, {"d", T_DATE},
	{"ts", T_TS}, {"tz", T_TZ}
};
static const Col keys_cols[] = {
	{"id", T_I4}, {"k2", T_I2}, {"k4", T_I4}, {"k8", T_I8}, {"kn", T_NUMFIX}, {"kn2", T_NUMFIX},
	{"kc", T_C1}, {"kt", T_TEXT}, {"kb", T_BOOL}, {"kd", T_DATE}, {"v4", T_I4}, {"v8", T_I8},
	{"vn", T_NUMFIX}, {"vf", T_F8}, {"vu", T_NUM}, {"ka", T_I4}, {"kx", T_TEXT}, {"ky", T_NUMFIX},
	{"kz", T_F8}, {"kw", T_DATE}
};

typedef struct Gen
{
	Rng			r;
	const Col  *cols;
	int			ncols;
	int			err_used;		/* an error-prone expression was placed */
	int			pushonly;		/* only what the drive aggregates (ossd_upper.c) */
	int			maxdepth;		/* of AND/OR/NOT nesting */
} Gen;

#define NELEM(a) ((int) (sizeof(a) / sizeof((a)[0])))
#define PICK(g, arr) ((arr)[rng_int(&(g)->r, 0, NELEM(arr) - 1)])

static char *
fmt(const char *f,...)
{
	va_list		ap;
	char	   *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

static const Col *
col_any(Gen *g)
{
	return &g->cols[rng_int(&g->r, 0, g->ncols - 1)];
}

static const Col *
col_of(Gen *g, int (*ok) (int))
{
	for (int tries = 0; tries < 200; tries++)
	{
		const Col  *c = col_any(g);

		if (ok(c->ty))
			return c;
	}
	return NULL;
}

static int
family(int ty)
{
	switch (ty)
	{
		case T_I2:
		case T_I4:
		case T_I8:
			return 0;
		case T_F4:
		case T_F8:
		case T_FX:
			return 1;
		case T_NUM:
		case T_NUMFIX:
			return 2;
		case T_TEXT:
		case T_VC:
			return 3;
		case T_BPC:
		case T_C1:
			return 4;
		case T_BOOL:
			return 5;
		default:
			return 6;			/* date, timestamp, timestamptz */
	}
}

static int is_int(int t) { return family(t) == 0; }
static int is_float(int t) { return family(t) == 1; }
static int is_num(int t) { return family(t) == 2; }
static int is_textish(int t) { return family(t) == 3; }
static int is_bool(int t) { return t == T_BOOL; }
static int is_dt(int t) { return family(t) == 6; }
static int is_exactfloat(int t) { return t == T_F4 || t == T_F8; }
static int not_bool(int t) { return t != T_BOOL; }

static const char *
rand_word(Gen *g)
{
	static const char *w[] = {"''", "' '", "'a'", "'abc'", "'ABC'", "'ab%'", "'a_b'", "'a\\b'", "'100%'",
		"'é'", "'café'", "'日本語'", "'zzz'", "'a '", "'Ünïcödé'", "'abc '", "'ab'", "'b'", "'Z'",
	"'O''Neil'", "'abd'", "'日本'", "'\\'", "'%'", "'_'", "'naïve'"};

	return PICK(g, w);
}

/* A constant comparable with a column of type ty (sometimes of another type of its family) */
static char *
const_for(Gen *g, int ty)
{
	Rng		   *r = &g->r;

	switch (ty)
	{
		case T_I2:
		case T_I4:
		case T_I8:
			{
				static const char *sp[] = {"0", "-1", "1", "32767", "'-32768'::int2", "int2 '7'", "40000",
					"2147483647", "'-2147483648'::int4", "'9223372036854775807'::int8",
					"'-9223372036854775808'::int8", "int8 '4294967296'", "'2'::int2", "-100", "100",
				"'-32768'::int8"};

				if (rng_pct(r, 40))
					return fmt("%s", PICK(g, sp));
				return fmt("%d", rng_int(r, -100, 100));
			}
		case T_F4:
		case T_F8:
		case T_FX:
			{
				static const char *sp[] = {"0", "'-0'::float8", "'NaN'::float4", "'NaN'::float8",
					"'Infinity'::float8", "'-Infinity'::float4", "0.5", "1e308", "'5e-324'::float8",
					"12.25", "float4 '0.1'", "0.1", "float8 '0.1'", "'1.7976931348623157e308'::float8",
					"-1e-300", "float4 '3.4028235e38'", "float4 '1e-45'", "'9007199254740993'::float8",
				"-12.5"};

				if (rng_pct(r, 50))
					return fmt("%s", PICK(g, sp));
				return fmt("%g", (double) rng_int(r, -4000, 4000) / 8);
			}
		case T_NUM:
		case T_NUMFIX:
			{
				static const char *sp[] = {"0", "1.5", "1.50", "'NaN'::numeric", "'Infinity'::numeric",
					"'-Infinity'::numeric", "170141183460469231731687303715884105727",
					"170141183460469231731687303715884105728", "-170141183460469231731687303715884105728",
					"1e-300", "-0.005", "0.005", "12345678901234567890.123", "9999999999.99", "0.00001",
					"-1000", "9223372036854775807", "0.000000000000000000000000000000000000001",
				"99999999999999999999999999999999999999", "2000", "0.00123"};

				if (rng_pct(r, 50))
					return fmt("%s", PICK(g, sp));
				return fmt("%d.%02d", rng_int(r, -60, 60), rng_int(r, 0, 99));
			}
		case T_TEXT:
		case T_VC:
			return fmt("%s", rand_word(g));
		case T_BPC:
		case T_C1:
			{
				static const char *sp[] = {"'a'", "'ab'", "'ab   '", "''", "'abcde'", "' a'", "'é'", "'日本'",
				"'A'", "'N'", "'R'", "' '", "'a%'", "'zz'", "'ABC'"};

				return fmt("%s", PICK(g, sp));
			}
		case T_BOOL:
			return fmt("%s", rng_pct(r, 50) ? "true" : "false");
		default:
			{
				static const char *sp[] = {"'2000-01-01'", "date 'infinity'", "'-infinity'",
					"timestamp '2000-01-01 12:00'", "'294276-12-31'::date", "'5874897-12-31'::date",
					"date '1999-12-31'", "timestamp 'infinity'", "timestamp '1999-12-31 23:59:59.999999'",
					"'4713-01-01 BC'::date", "timestamp '294276-12-31 23:59:59.999999'",
					"timestamptz '2000-01-01 00:00:00+00'", "'2010-06-01 00:00:00'",
				"timestamptz '-infinity'"};

				if (rng_pct(r, 50))
				{
					const char *c = PICK(g, sp);

					/* timestamptz constants with timestamptz columns only (others: TimeZone) */
					if (strstr(c, "timestamptz") && ty != T_TZ)
						c = "'2005-05-05'";
					return fmt("%s", c);
				}
				return fmt("%s '%04d-%02d-%02d%s'", ty == T_DATE ? "date" : ty == T_TS ? "timestamp" : "timestamptz",
						   rng_int(r, 1990, 2030), rng_int(r, 1, 12), rng_int(r, 1, 28),
						   ty == T_DATE ? "" : " 06:30:00");
			}
	}
}

static const char *
cmp_op(Gen *g)
{
	static const char *ops[] = {"<", "<=", "=", "<>", ">=", ">", "!="};

	return PICK(g, ops);
}

static char *
like_pattern(Gen *g)
{
	static const char *p[] = {"'a%'", "'%b%'", "'%'", "''", "'abc'", "'%é%'", "'日本%'", "'%\\%%'",
		"'a\\_b'", "'a_b'", "'_'", "'%c'", "'%a%b%'", "'ab%%'", "'big-%'", "'rnd-%'", "'%z'",
	"'\\\\'", "'%\\\\%'", "'A%'", "'%Ü%'", "'__'"};

	return fmt("%s", PICK(g, p));
}

static char *gen_pred(Gen *g, int depth, int simple);

/* A predicate pg_ossd pushes when it is alone (simple: one operator) */
static char *
gen_pushable(Gen *g, int simple)
{
	Rng		   *r = &g->r;
	int			k = rng_int(r, 0, simple ? 6 : 9);
	const Col  *c;

	switch (k)
	{
		case 0:
		case 1:
			c = col_any(g);
			if (c->ty == T_BOOL)
				return fmt("%s%s", rng_pct(r, 50) ? "NOT " : "", c->name);
			if (rng_pct(r, 15))
				return fmt("%s %s %s", const_for(g, c->ty), cmp_op(g), c->name);
			return fmt("%s %s %s", c->name, cmp_op(g), const_for(g, c->ty));
		case 2:
			{
				const Col  *a = col_any(g);
				const Col  *b;

				for (int i = 0; i < 100; i++)
				{
					b = col_any(g);
					if (family(b->ty) == family(a->ty) && b != a &&
						!((a->ty == T_TZ) != (b->ty == T_TZ)))
						return fmt("%s %s %s", a->name, cmp_op(g), b->name);
				}
				return fmt("%s IS NOT NULL", a->name);
			}
		case 3:
			c = col_any(g);
			return fmt("%s IS %sNULL", c->name, rng_pct(r, 50) ? "NOT " : "");
		case 4:
			{
				static const char *bt[] = {"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE",
				"IS UNKNOWN", "IS NOT UNKNOWN", "= true", "<> false"};

				c = col_of(g, is_bool);
				return fmt("%s %s", c ? c->name : "true", PICK(g, bt));
			}
		case 5:
			c = col_of(g, is_textish);
			return fmt("%s %sLIKE %s", c->name, rng_pct(r, 30) ? "NOT " : "", like_pattern(g));
		case 6:
			c = col_of(g, not_bool);
			return fmt("%s %s %s", c->name, cmp_op(g), const_for(g, c->ty));
		case 7:
			c = col_of(g, not_bool);
			return fmt("%s %sBETWEEN %s%s AND %s", c->name, rng_pct(r, 25) ? "NOT " : "",
					   rng_pct(r, 15) ? "SYMMETRIC " : "", const_for(g, c->ty), const_for(g, c->ty));
		default:
			{
				int			n = rng_pct(r, 10) ? rng_int(r, 7, 40) : rng_int(r, 1, 6);
				char		buf[8192] = "";

				c = col_of(g, not_bool);
				for (int i = 0; i < n; i++)
				{
					char	   *e = rng_pct(r, 8) ? fmt("NULL") : const_for(g, c->ty);

					snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? ", " : "", e);
					free(e);
				}
				return fmt("%s %sIN (%s)", c->name, rng_pct(r, 25) ? "NOT " : "", buf);
			}
	}
}

/*
 * A predicate pg_ossd refuses.  *err set when it may raise an error;
 * with allow_err 0 it never does.
 */
static char *
gen_refused(Gen *g, int allow_err, int *err)
{
	static const char *safe_w[] = {
		"length(t) > 5", "lower(vc) = 'abc'", "coalesce(i4, 0) > 10", "i4::int8 + 1 > 0",
		"i2 + 1 > 0", "(i8 % 3) = 1", "f8 * 2 > 10", "n + 1 > 2", "n2 * n2 < 100",
		"t ILIKE 'A%'", "t LIKE 'a#%%' ESCAPE '#'", "vc ~ '^a'", "c5 LIKE 'a%'", "upper(c5) = 'AB'",
		"substr(t, 1, 2) = 'ab'", "d > tz", "tz < date '2000-01-01'", "f4::float8 = f8",
		"n::float8 > 0", "fx::numeric > 0", "t COLLATE \"C\" > 'b'", "octet_length(c5) > 2",
		"abs(f8) < 3", "greatest(i2, i4) > 5", "nsp * 1000 > 0.5", "n2 = n0 + 0", "b IS DISTINCT FROM true",
		"i4 IS DISTINCT FROM 5", "t || '' = 'abc'", "round(n2) = 3", "ts::date = d",
		"c1 || 'x' = 'Ax'", "nullif(vc, '') IS NULL", "i4 / 2 > 3", "vc LIKE '%_%'"
	};
	static const char *err_w[] = {
		"i4 + 1 > 0", "i4 * 2 < 7", "i8 - 1 < 0", "i8 * 3 > 5", "-i2 > 0", "abs(i4) > 5",
		"i2 * 2 > 10", "fx * 1e10 > 1", "fx / 2 > 1", "n2 / i2 > 1", "i8::int4 > 0", "i4::int2 > 0",
		"f8::int4 > 3", "fx::int8 > 0", "d + 1 > '2000-01-01'", "ts + interval '1 day' > '2000-01-01'",
		"1 / i4 = 0", "n2 / n2 = 1"
	};
	static const char *safe_k[] = {
		"length(kt) > 1", "k4 % 7 = 3", "kn2 * 2 > 1", "v8::numeric > 0", "vf * 2 > 1", "kt ILIKE 'A%'",
		"kc LIKE 'A%'", "lower(kt) = 'ab'", "vu + 1 > 0", "kn + kn2 > 1", "k2 + k4 > 50"
	};
	static const char *err_k[] = {
		"v4 + 1 > 0", "v8 * 2 > 0", "vn / k2 > 1", "-v4 > 0", "v4::int2 > 0", "v8 - 1 < 0", "kn / k4 > 0.5"
	};
	int			wide = g->cols == wide_cols;

	if (allow_err && !g->err_used && rng_pct(&g->r, 40))
	{
		*err = 1;
		g->err_used = 1;
		return fmt("%s", wide ? PICK(g, err_w) : PICK(g, err_k));
	}
	return fmt("%s", wide ? PICK(g, safe_w) : PICK(g, safe_k));
}

static char *
gen_pred(Gen *g, int depth, int simple)
{
	Rng		   *r = &g->r;
	int			k = rng_int(r, 0, 9);

	if (simple || depth >= g->maxdepth || k < 5)
		return gen_pushable(g, simple);
	if (g->pushonly && k < 7)
		return gen_pushable(g, 0);
	if (k < 7)
	{
		int			dummy = 0;

		return gen_refused(g, 0, &dummy);
	}
	if (k == 7)
	{
		static const char *bt[] = {"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN",
		"IS NOT UNKNOWN"};

		if (rng_pct(r, 50))
			return fmt("NOT (%s)", gen_pred(g, depth + 1, 0));
		return fmt("(%s) %s", gen_pred(g, depth + 1, 0), PICK(g, bt));
	}
	{
		int			n = rng_int(r, 2, 3);
		const char *op = rng_pct(r, 50) ? " AND " : " OR ";
		char	   *s = fmt("(%s", gen_pred(g, depth + 1, 0));

		for (int i = 1; i < n; i++)
			s = fmt("%s%s%s", s, op, gen_pred(g, depth + 1, 0));
		return fmt("%s)", s);
	}
}

/* the WHERE clause: conjuncts, an error-prone one last */
static void
gen_where(Gen *g, RqQuery *q)
{
	Rng		   *r = &g->r;
	int			n = rng_pct(r, 15) ? rng_int(r, 5, 10) : rng_int(r, 0, 4);
	int			err = 0;
	int			with_err = !g->err_used && !g->pushonly && rng_pct(r, 20);

	for (int i = 0; i < n && q->nconj < RQ_MAX_PARTS - 1; i++)
		q->conj[q->nconj++] = gen_pred(g, 0, with_err);
	if (with_err)
	{
		char	   *e = gen_refused(g, 1, &err);

		q->conj[q->nconj++] = e;
	}
	/* often bound the rows of the wide table by id (pushable, one operator) */
	if (g->cols == wide_cols && rng_pct(r, 40) && q->nconj < RQ_MAX_PARTS)
	{
		int			lo = rng_int(r, 1, 24000);

		memmove(&q->conj[1], &q->conj[0], sizeof(char *) * q->nconj);
		q->conj[0] = fmt("id < %d", lo);
		q->nconj++;				/* an error conjunct stays last */
	}
}

/* a projected expression (non-aggregate queries) */
static char *
gen_proj(Gen *g)
{
	static const char *safe_w[] = {
		"i4::int8 * 2", "i2 + 1", "-(i4::int8)", "n + 1", "n2 * n2", "round(n2, 1)", "f8 / 3", "f4 * 2",
		"t || '|'", "length(t)", "md5(t)", "upper(vc)", "c5 || '|'", "octet_length(c5)", "c1::text",
		"ts::date", "tz::date", "b::int", "coalesce(i4, -1)",
		"CASE WHEN i4 > 0 THEN 'pos' WHEN i4 < 0 THEN 'neg' ELSE 'zero' END", "nsp * 1000",
		"nneg / 1000", "n::float8", "fx::numeric", "f8::text", "i8::text", "i8 % 3", "i4 / 2",
		"greatest(i2, i4)", "nullif(t, '')", "d IS NULL", "(i4 > 5)", "i4 BETWEEN 1 AND 10",
		"left(t, 8)", "n2 - n0", "n * 2", "n0 * n0", "f4::float8", "fx * 1", "t LIKE '%a%'",
		"c5 = 'ab'", "length(c5)", "i8::numeric / 7", "n2 / 3", "extract(year from ts)",
		"abs(n)", "trunc(n, 3)", "n::text", "sign(fx)", "vc || c1", "b AND i4 > 0", "NOT b"
	};
	static const char *err_w[] = {
		"i4 + 1", "i4 * 2", "i8 - 1", "i8 * 3", "-i2", "abs(i4)", "i2 * 2", "fx * 1e10",
		"n2 / i2", "i8::int4", "i4::int2", "f8::int4", "fx::int8", "d + 1", "ts + interval '1 day'",
		"1 / i4", "fx / 2", "i2 * i2", "nneg::int2", "fx / 3", "to_char(d, 'YYYY-MM-DD')"
	};
	Rng		   *r = &g->r;

	if (rng_pct(r, 45))
	{
		const Col  *c = col_any(g);

		if (c->ty == T_TEXT && rng_pct(r, 60))
			return fmt("md5(%s)", c->name);
		return fmt("%s", c->name);
	}
	if (!g->err_used && rng_pct(r, 10))
	{
		g->err_used = 1;
		return fmt("%s", PICK(g, err_w));
	}
	if (g->cols != wide_cols)
	{
		static const char *safe_k[] = {"k4 % 10", "kt || '|'", "kn2 * kn", "vf / 2", "vu + 1", "v8::numeric * 2",
		"kc::text", "kd + 1", "vn - kn2"};

		return fmt("%s", PICK(g, safe_k));
	}
	return fmt("%s", PICK(g, safe_w));
}

/* an aggregate, its loose rule in *loose */
static char *
gen_agg(Gen *g, int *loose)
{
	Rng		   *r = &g->r;
	int			k = rng_int(r, 0, 11);
	const Col  *c;

	*loose = LOOSE_NONE;
	if (g->pushonly)
	{
		/* count, sum/avg of integers and numerics and of +,-,* of numerics, min/max of ordered types */
		static const int kinds[] = {0, 1, 2, 3, 4, 4, 11, 12, 12};

		k = kinds[rng_int(r, 0, NELEM(kinds) - 1)];
		if (k == 12)
		{
			static const char *mw[] = {"i2", "i4", "i8", "n2", "n0", "nneg", "nsp", "d", "ts", "tz", "t", "vc", "id"};
			static const char *mk[] = {"k2", "k4", "k8", "kn", "kn2", "kd", "kt", "v4", "v8", "vn", "id",
			"ka", "kx", "ky", "kw"};

			return fmt("%s(%s)", rng_pct(r, 50) ? "min" : "max",
					   g->cols == wide_cols ? PICK(g, mw) : PICK(g, mk));
		}
	}
	switch (k)
	{
		case 0:
			return fmt("count(*)");
		case 1:
			c = col_any(g);
			return fmt("count(%s)", c->name);
		case 2:
		case 3:
			c = rng_pct(r, 50) ? col_of(g, is_int) : col_of(g, is_num);
			return fmt("%s(%s)", rng_pct(r, 50) ? "sum" : "avg", c->name);
		case 4:
			{
				/* numeric expressions: the drive's map kernel */
				const Col  *a = col_of(g, is_num);
				const Col  *b = col_of(g, is_num);
				static const char *ops[] = {"+", "-", "*"};

				if (a->ty == T_NUM || b->ty == T_NUM)
				{
					/* unconstrained numeric: products may get huge but stay exact */
				}
				return fmt("%s(%s %s %s)", rng_pct(r, 60) ? "sum" : "avg", a->name, PICK(g, ops),
						   rng_pct(r, 30) ? const_for(g, T_NUMFIX) : fmt("%s", b->name));
			}
		case 5:
			c = col_of(g, is_exactfloat);
			if (c == NULL)
				return fmt("count(*)");
			{
				static const char *fx[] = {"%s", "%s * 2", "%s + 1", "-%s"};
				char	   *arg = fmt(PICK(g, fx), c->name);

				return fmt("%s(%s)", rng_pct(r, 50) ? "sum" : "avg", arg);
			}
		case 6:
		case 7:
		case 8:
			c = col_any(g);
			if (c->ty == T_BOOL)
				return fmt("%s(%s)", rng_pct(r, 50) ? "bool_and" : "bool_or", c->name);
			if (is_float(c->ty))
				*loose = LOOSE_ZERO;
			if (c->ty == T_NUM)
				*loose = LOOSE_SCALE;
			return fmt("%s(%s)", rng_pct(r, 50) ? "min" : "max", c->name);
		case 9:
			if (!g->err_used && rng_pct(r, 50))
			{
				static const char *ew[] = {"sum(i8 + 1)", "sum(i4 * 2)", "sum(n2 / i2)", "avg(i8 * 2)",
				"max(i4 + 1)", "min(-i2)", "count(fx * 1e10)", "count(1 / i4)"};
				static const char *ek[] = {"sum(v8 * 2)", "sum(vn / k2)", "max(v4 + 1)", "avg(v4 * 3)"};

				g->err_used = 1;
				return fmt("%s", g->cols == wide_cols ? PICK(g, ew) : PICK(g, ek));
			}
			return fmt("sum(%s::numeric)", col_of(g, is_int)->name);
		case 10:
			{
				static const char *w[] = {"min(length(t))", "max(upper(vc))", "count(n2 * 2)", "sum(i2::int4)",
					"avg(i4::int8)", "max(d)", "min(ts)", "max(tz)", "min(t)", "max(c5)", "min(vc)",
					"count(DISTINCT c1)", "sum(i4) FILTER (WHERE b)", "max(t) FILTER (WHERE i4 > 0)",
				"avg(n2 ORDER BY id)", "count(*) FILTER (WHERE n2 IS NULL)", "sum(DISTINCT i2)"};
				static const char *kk[] = {"min(kt)", "max(kd)", "sum(vn * kn2)", "avg(kn2 + kn)", "max(kt)",
					"min(kc)", "sum(v4)", "avg(v8)", "count(vu)", "sum(vu)", "avg(vf)", "sum(vf)",
					"count(DISTINCT kc)", "sum(v8) FILTER (WHERE kb)", "avg(vn) FILTER (WHERE k2 > 3)",
				"min(kx) FILTER (WHERE ka = 7)", "sum(DISTINCT kn2)"};

				return fmt("%s", g->cols == wide_cols ? PICK(g, w) : PICK(g, kk));
			}
		default:
			c = col_of(g, is_dt);
			return fmt("%s(%s)", rng_pct(r, 50) ? "min" : "max", c->name);
	}
}

static const Col *
gen_key(Gen *g, int *loose)
{
	static const char *wk[] = {"c1", "b", "c5", "vc", "nsp", "c1", "b"};
	static const char *kk[] = {"k2", "k4", "k8", "kn", "kn2", "kc", "kt", "kb", "kd", "vf", "vu", "k2", "kc",
	"kz", "ka", "kx"};
	static const char *wkp[] = {"c1", "b", "c5", "vc", "nsp", "i2", "n2", "d", "nneg"};
	static const char *kkp[] = {"k2", "k4", "k8", "kn", "kn2", "kc", "kt", "kb", "kd", "ka", "kx", "ky", "kw"};
	const char *name = g->pushonly ? (g->cols == wide_cols ? PICK(g, wkp) : PICK(g, kkp)) :
		(g->cols == wide_cols ? PICK(g, wk) : PICK(g, kk));

	for (int i = 0; i < g->ncols; i++)
		if (strcmp(g->cols[i].name, name) == 0)
		{
			*loose = is_float(g->cols[i].ty) ? LOOSE_ZERO : g->cols[i].ty == T_NUM ? LOOSE_SCALE : LOOSE_NONE;
			return &g->cols[i];
		}
	return NULL;
}

void
randq_make_query(RqQuery *q, uint64_t seed, int index)
{
	Gen			g;
	int			kind;

	memset(q, 0, sizeof(*q));
	memset(&g, 0, sizeof(g));
	rng_seed(&g.r, seed, 1000003ULL + (uint64_t) index);
	g.maxdepth = rng_pct(&g.r, 20) ? 4 : 2;
	kind = rng_int(&g.r, 0, 99);
	if (kind < 50)
	{
		g.cols = wide_cols;
		g.ncols = NELEM(wide_cols);
		q->table = "rq_wide";
	}
	else
	{
		g.cols = keys_cols;
		g.ncols = NELEM(keys_cols);
		q->table = kind < 80 ? "rq_keys" : "rq_part";
	}
	kind = rng_int(&g.r, 0, 9);
	/* the select list first: its error-prone expression, if any, wins */
	if (kind < 4)
	{
		int			n = rng_int(&g.r, 1, 5);

		/*
		 * count(*) over a LIMIT without ORDER BY: which rows the scan
		 * stops after differs, the count must not (the drive's stream is
		 * cut short).  Which rows are read decides whether an error is
		 * raised: none here.
		 */
		if (rng_pct(&g.r, 15))
		{
			q->wrap_limit = rng_int(&g.r, 1, 3000);
			g.err_used = 1;
		}

		q->items[q->nitems++] = fmt("id");
		for (int i = 0; i < n; i++)
			q->items[q->nitems++] = gen_proj(&g);
	}
	else
	{
		q->grouped = 1;
		g.pushonly = rng_pct(&g.r, 50);
		if (kind >= 6)
		{
			int			nk = rng_int(&g.r, 1, 3);

			for (int i = 0; i < nk; i++)
			{
				int			loose = LOOSE_NONE;
				const Col  *k = gen_key(&g, &loose);
				int			dup = 0;

				for (int j = 0; j < q->nkeys; j++)
					dup |= strcmp(q->items[j], k->name) == 0;
				if (dup)
					continue;
				if (!g.pushonly && rng_pct(&g.r, 8))
				{
					static const char *ek[] = {"k4 % 10", "lower(kt)", "kn2 * 2", "(kb IS NULL)"};
					static const char *ew[] = {"length(c5)", "(i4 > 0)", "lower(vc)", "c1 || ''"};

					q->items[q->nitems] = fmt("%s", g.cols == wide_cols ? PICK(&g, ew) : PICK(&g, ek));
				}
				else
					q->items[q->nitems] = fmt("%s", k->name);
				q->loose[q->nitems++] = loose;
				q->nkeys++;
			}
		}
		{
			int			na = rng_int(&g.r, 1, 5);

			for (int i = 0; i < na; i++)
			{
				int			loose;

				q->items[q->nitems] = gen_agg(&g, &loose);
				q->loose[q->nitems++] = loose;
			}
		}
		if (q->nkeys > 0 && !g.pushonly && rng_pct(&g.r, 10))
			q->having = fmt("count(*) > %d", rng_int(&g.r, 1, 50));
	}
	gen_where(&g, q);
	if (!q->wrap_limit && rng_pct(&g.r, 45))
	{
		q->ordered = 1;
		for (int i = 0; i < q->nitems; i++)
		{
			static const char *dirs[] = {"", " DESC", " NULLS FIRST", " DESC NULLS LAST", ""};

			q->orderdir[i] = fmt("%s", PICK(&g, dirs));
		}
		if (rng_pct(&g.r, 30))
			q->limit = rng_int(&g.r, 1, 50);
	}
}

char *
randq_query_sql(const RqQuery *q)
{
	char	   *s = fmt("SELECT ");
	int			first = 1;

	for (int i = 0; i < q->nitems; i++)
	{
		if (q->skip_item[i])
			continue;
		s = fmt("%s%s%s", s, first ? "" : ", ", q->items[i]);
		first = 0;
	}
	if (first)
		s = fmt("%s1", s);
	s = fmt("%s FROM %s", s, q->table);
	first = 1;
	for (int i = 0; i < q->nconj; i++)
	{
		if (q->skip_conj[i])
			continue;
		s = fmt("%s%s%s", s, first ? " WHERE " : " AND ", q->conj[i]);
		first = 0;
	}
	if (q->nkeys > 0)
	{
		int			pos = 0;

		first = 1;
		for (int i = 0; i < q->nkeys; i++)
		{
			if (q->skip_item[i])
				continue;
			s = fmt("%s%s%d", s, first ? " GROUP BY " : ", ", ++pos);
			first = 0;
		}
		/* every key left out: an aggregate over the whole table */
	}
	if (q->having)
		s = fmt("%s HAVING %s", s, q->having);
	if (q->ordered)
	{
		int			pos = 0;

		first = 1;
		for (int i = 0; i < q->nitems; i++)
		{
			if (q->skip_item[i])
				continue;
			pos++;
			s = fmt("%s%s%d%s", s, first ? " ORDER BY " : ", ", pos, q->orderdir[i]);
			first = 0;
		}
		if (q->limit)
			s = fmt("%s LIMIT %d", s, q->limit);
	}
	if (q->wrap_limit)
		s = fmt("SELECT count(*) FROM (%s LIMIT %d) s", s, q->wrap_limit);
	return s;
}

void
randq_free_query(RqQuery *q)
{
	/* parts are small and leaked on purpose: the program is short-lived */
	(void) q;
}
