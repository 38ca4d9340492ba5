/*
 * sqlsmith_check.c - the judge of bench/soak/sqlsmith: re-runs what
 * sqlsmith ran with offload forced, once more with offload forced and once
 * with ossd.enabled = off, and compares.
 *
 *  - every error sqlsmith logged (its --log-to table "error"): the SQLSTATE
 *    and primary message of both re-runs; an error that occurs with offload
 *    forced but not (or differently) with offload off is a failure; the
 *    same error raised on another row (the message differs only in quoted
 *    values and numbers: see same_error_other_row) is counted apart, and so
 *    is one of a query random by rule (query_is_random);
 *  - every K-th successful query, rewritten to be deterministic and then
 *    kept when deterministic by rule (deterministic_rewrite,
 *    query_is_deterministic): both result sets as multisets of rows; a
 *    difference is a failure (float fields may differ in the last digits:
 *    summation order; counted apart).
 *
 * Each statement runs as sqlsmith runs it: BEGIN; statement; ROLLBACK.
 * Figures go to stdout and --json FILE, each failing case with its query
 * to --details FILE.  Exit 0 when there is no failure.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libpq-fe.h>

#define MAX_EXAMPLES 20

typedef struct outcome
{
	bool		ok;				/* statement succeeded */
	bool		lost;			/* connection lost */
	char		sqlstate[6];
	char	   *message;		/* primary message (malloc) */
	char	  **rows;			/* sorted row strings (malloc) */
	long		nrows;
} outcome;

typedef struct session
{
	const char *conninfo;
	const char *const *setup;	/* SET commands */
	PGconn	   *conn;
} session;

typedef struct logged_error
{
	char	   *query;
	char	   *sqlstate;
	char	   *message;
} logged_error;

typedef struct figures
{
	long		queries;
	long		errors;
	long		errors_by_class[36 * 36];
	long		connection_lost;	/* logged 08xxx: server gone mid-run */
	long		errors_rerun;
	long		errors_same;
	long		errors_same_other_row;
	long		errors_offload_only;
	long		errors_offload_only_random;
	long		timeouts_offload_only;
	long		errors_not_reproduced;
	long		successes;
	long		deterministic;
	long		compared;
	long		identical;
	long		float_close;
	long		diffs;
	long		error_only_offload_in_sample;
	long		error_only_off_in_sample;
	long		skipped_timeout;
	long		skipped_other_error;
	long		order_dependent;
	long		rerun_connection_lost;
} figures;

static const char *const forced_setup[] = {
	"SET ossd.enabled = on", "SET ossd.force_offload = on",
	"SET ossd.min_relation_pages = 0", "SET client_min_messages = error",
	"SET application_name = 'sqlsmith_check forced'", NULL
};
/* rows in the heap's order: one drive scan thread, no parallel plan */
static const char *const serial_setup[] = {
	"SET ossd.enabled = on", "SET ossd.force_offload = on",
	"SET ossd.min_relation_pages = 0", "SET ossd.device_workers = 1",
	"SET max_parallel_workers_per_gather = 0", "SET client_min_messages = error",
	"SET application_name = 'sqlsmith_check serial'", NULL
};
static const char *const off_setup[] = {
	"SET ossd.enabled = off", "SET client_min_messages = error",
	"SET application_name = 'sqlsmith_check off'", NULL
};

static FILE *details;
static int	timeout_ms = 1000;

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: sqlsmith_check --target CONNINFO --log CONNINFO --queries FILE\n"
			"                      [--sample-every K] [--timeout-ms MS] [--json FILE]\n"
			"                      [--details FILE]\n"
			"  --target CONNINFO  the database sqlsmith ran against (its role)\n"
			"  --log CONNINFO     the database of sqlsmith's --log-to (table error)\n"
			"  --queries FILE     sqlsmith's --dump-all-queries output (\";\" ends each)\n"
			"  --sample-every K   compare the results of every K-th deterministic\n"
			"                     successful query (default 1: all of them)\n"
			"  --timeout-ms MS    statement_timeout of the re-runs (default 1000,\n"
			"                     sqlsmith's own)\n"
			"  --json FILE        figures as JSON\n"
			"  --details FILE     each failure and example, with its query\n"
			"Exit 0: no error only with offload, no result difference.\n");
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (!p)
	{
		fprintf(stderr, "sqlsmith_check: out of memory\n");
		exit(2);
	}
	return p;
}

static char *
xstrdup(const char *s)
{
	size_t		n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

static void
outcome_free(outcome *o)
{
	free(o->message);
	for (long i = 0; i < o->nrows; i++)
		free(o->rows[i]);
	free(o->rows);
	memset(o, 0, sizeof(*o));
}

/* ---- reading sqlsmith's dump: each statement ends with ";\n" ---------- */

static char **
read_queries(const char *path, long *n)
{
	FILE	   *f = fopen(path, "r");
	char	  **q = NULL;
	long		cap = 0;
	char	   *line = NULL;
	size_t		lcap = 0;
	ssize_t		len;
	char	   *cur = NULL;
	size_t		curlen = 0;

	*n = 0;
	if (!f)
	{
		fprintf(stderr, "sqlsmith_check: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while ((len = getline(&line, &lcap, f)) >= 0)
	{
		cur = realloc(cur, curlen + len + 1);
		if (!cur)
			exit(2);
		memcpy(cur + curlen, line, len + 1);
		curlen += len;
		if (len >= 2 && line[len - 1] == '\n' && line[len - 2] == ';')
		{
			cur[curlen - 2] = '\0';	/* the text sqlsmith executed */
			if (*n == cap)
			{
				cap = cap ? cap * 2 : 1024;
				q = realloc(q, cap * sizeof(*q));
				if (!q)
					exit(2);
			}
			q[(*n)++] = cur;
			cur = NULL;
			curlen = 0;
		}
	}
	free(cur);
	free(line);
	fclose(f);
	return q;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* ---- sessions ---------------------------------------------------------- */

static bool
session_connect(session *s)
{
	char		buf[64];

	if (s->conn)
		PQfinish(s->conn);
	for (int tries = 0; tries < 60; tries++)
	{
		s->conn = PQconnectdb(s->conninfo);
		if (PQstatus(s->conn) == CONNECTION_OK)
			break;
		PQfinish(s->conn);
		s->conn = NULL;
		sleep(1);				/* the server may be restarting after a crash */
	}
	if (!s->conn)
		return false;
	snprintf(buf, sizeof(buf), "SET statement_timeout = %d", timeout_ms);
	PQclear(PQexec(s->conn, buf));
	for (const char *const *c = s->setup; *c; c++)
	{
		PGresult   *r = PQexec(s->conn, *c);

		if (PQresultStatus(r) != PGRES_COMMAND_OK)
		{
			fprintf(stderr, "sqlsmith_check: %s: %s", *c, PQerrorMessage(s->conn));
			PQclear(r);
			return false;
		}
		PQclear(r);
	}
	return true;
}

static char *
row_string(PGresult *r, int row)
{
	size_t		len = 1;
	int			nf = PQnfields(r);
	char	   *s,
			   *p;

	for (int f = 0; f < nf; f++)
		len += (PQgetisnull(r, row, f) ? 2 : PQgetlength(r, row, f)) + 1;
	p = s = xmalloc(len);
	for (int f = 0; f < nf; f++)
	{
		if (f)
			*p++ = '\x1f';
		if (PQgetisnull(r, row, f))
		{
			*p++ = '\x01';
			*p++ = 'N';
		}
		else
		{
			memcpy(p, PQgetvalue(r, row, f), PQgetlength(r, row, f));
			p += PQgetlength(r, row, f);
		}
	}
	*p = '\0';
	return s;
}

/* BEGIN; query; ROLLBACK, as sqlsmith's libpq driver runs it */
static void
run(session *s, const char *query, bool keep_rows, outcome *o)
{
	PGresult   *r;
	ExecStatusType st;

	memset(o, 0, sizeof(*o));
	if (!s->conn || PQstatus(s->conn) != CONNECTION_OK)
	{
		if (!session_connect(s))
		{
			o->lost = true;
			o->message = xstrdup("cannot connect");
			return;
		}
	}
	PQclear(PQexec(s->conn, "ROLLBACK"));
	PQclear(PQexec(s->conn, "BEGIN"));
	r = PQexec(s->conn, query);
	st = PQresultStatus(r);
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
	{
		o->ok = true;
		if (keep_rows && st == PGRES_TUPLES_OK)
		{
			o->nrows = PQntuples(r);
			o->rows = xmalloc(sizeof(char *) * (o->nrows ? o->nrows : 1));
			for (long i = 0; i < o->nrows; i++)
				o->rows[i] = row_string(r, (int) i);
			qsort(o->rows, o->nrows, sizeof(char *), cmp_str);
		}
	}
	else
	{
		const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

		if (PQstatus(s->conn) != CONNECTION_OK)
		{
			o->lost = true;
			state = state ? state : "08006";
		}
		snprintf(o->sqlstate, sizeof(o->sqlstate), "%s", state ? state : "?????");
		o->message = xstrdup(msg ? msg : PQerrorMessage(s->conn));
	}
	PQclear(r);
	if (PQstatus(s->conn) == CONNECTION_OK)
		PQclear(PQexec(s->conn, "ROLLBACK"));
}

static bool
same_error(const outcome *a, const outcome *b)
{
	return !a->ok && !b->ok && strcmp(a->sqlstate, b->sqlstate) == 0 &&
		strcmp(a->message, b->message) == 0;
}

/* msg with each quoted value ("..." or '...') and each number as "?"
 * (malloc) */
static char *
message_shape(const char *msg)
{
	char	   *out = xmalloc(strlen(msg) + 1),
			   *o = out;

	for (const char *p = msg; *p;)
	{
		if (*p == '"' || *p == '\'')
		{
			const char *end = strchr(p + 1, *p);

			if (end)
			{
				*o++ = '?';
				p = end + 1;
				continue;
			}
		}
		if (isdigit((unsigned char) *p))
		{
			*o++ = '?';
			while (isdigit((unsigned char) *p) || *p == '.')
				p++;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/*
 * The same error raised on another row: same SQLSTATE and message but for
 * the quoted values and numbers in it.  Which row fails first depends on
 * the scan order (the drive's chunks come in another order than a heap
 * scan's blocks) or on which row a LIMIT without ORDER BY picked.
 */
static bool
same_error_other_row(const outcome *a, const outcome *b)
{
	char	   *x,
			   *y;
	bool		same;

	if (a->ok || b->ok || strcmp(a->sqlstate, b->sqlstate) != 0)
		return false;
	x = message_shape(a->message);
	y = message_shape(b->message);
	same = strcmp(x, y) == 0;
	free(x);
	free(y);
	return same;
}

/* ---- which successful queries are deterministic enough to compare ----- */

static regex_t re_start,
			re_excluded,
			re_dml,
			re_call,
			re_scalar_limit,
			re_limit,
			re_sample;
static char **nondet_funcs;
static long n_nondet;

/*
 * sqlsmith writes LIMIT without ORDER BY nearly everywhere (a scalar
 * subquery "(select c from t limit 1 offset k)", a derived table's or the
 * statement's "limit n") and TABLESAMPLE without REPEATABLE; as written
 * such a query may return other rows each time.  So the query compared is
 * a deterministic rewrite of it, run both ways alike:
 *  - "(select c from t limit 1 offset k)" -> "(... order by 1 limit 1
 *    offset k)": the k-th smallest value, whatever the scan order;
 *  - any other "limit n": removed (all rows instead of some);
 *  - "tablesample m (p)" -> "tablesample m (p) repeatable (0)".
 * The rewrite is then compared when it is a SELECT (or WITH ... SELECT)
 * without window frames other than the default (sqlsmith's windows are
 * aggregates over the default RANGE frame, which takes ties together),
 * aggregates whose result depends on input order, data-modifying statements, volatile
 * functions or stable ones whose value depends on the time, the session or
 * the server's state (names from pg_proc at start).
 */
static void
compile_rules(PGconn *c)
{
	PGresult   *r;

	regcomp(&re_start, "^[[:space:]]*(select|with)[^[:alnum:]_]", REG_EXTENDED | REG_ICASE | REG_NOSUB);
	regcomp(&re_excluded,
			"(^|[^[:alnum:]_])(limit|offset|rows|groups|range|string_agg|array_agg|json_agg|jsonb_agg|"
			"json_agg_strict|jsonb_agg_strict|json_object_agg|jsonb_object_agg|"
			"json_object_agg_strict|jsonb_object_agg_strict|json_object_agg_unique|"
			"jsonb_object_agg_unique|xmlagg|range_agg|range_intersect_agg)([^[:alnum:]_]|$)",
			REG_EXTENDED | REG_ICASE | REG_NOSUB);
	regcomp(&re_dml, "(^|[^[:alnum:]_])(insert|delete|merge|update)([^[:alnum:]_]|$)",
			REG_EXTENDED | REG_ICASE | REG_NOSUB);
	regcomp(&re_call, "([[:alnum:]_]+)\"?[[:space:]]*\\(", REG_EXTENDED | REG_ICASE);
	regcomp(&re_scalar_limit,
			"\\(select[[:space:]]+[^[:space:]()]+[[:space:]]+from[[:space:]]+[^[:space:]()]+"
			"([[:space:]]+)limit 1 offset [0-9]+\\)", REG_EXTENDED | REG_ICASE);
	regcomp(&re_limit, "[[:space:]]limit[[:space:]]+[0-9]+", REG_EXTENDED | REG_ICASE);
	regcomp(&re_sample, "tablesample[[:space:]]+[[:alnum:]_]+[[:space:]]*\\([^()]*\\)",
			REG_EXTENDED | REG_ICASE);

	r = PQexec(c,
			   "SELECT DISTINCT proname FROM pg_proc WHERE provolatile = 'v' "
			   "OR (provolatile = 's' AND proname ~ "
			   "'^(pg_|txid|now|current|statement_|transaction_|clock_|timeofday|"
			   "inet_|session_|localtime|age$|has_|row_security|ossd_)') ORDER BY 1");
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		fprintf(stderr, "sqlsmith_check: volatile functions: %s", PQerrorMessage(c));
		exit(2);
	}
	n_nondet = PQntuples(r);
	nondet_funcs = xmalloc(sizeof(char *) * (n_nondet ? n_nondet : 1));
	for (long i = 0; i < n_nondet; i++)
		nondet_funcs[i] = xstrdup(PQgetvalue(r, (int) i, 0));
	PQclear(r);
}

/* s with [so, eo) replaced by with (s is freed) */
static char *
splice(char *s, regoff_t so, regoff_t eo, const char *with)
{
	size_t		n = strlen(s),
				w = strlen(with);
	char	   *t = xmalloc(n - (eo - so) + w + 1);

	memcpy(t, s, so);
	memcpy(t + so, with, w);
	memcpy(t + so + w, s + eo, n - eo + 1);
	free(s);
	return t;
}

/* the deterministic rewrite of q (malloc), see above */
static char *
deterministic_rewrite(const char *q)
{
	char	   *s = xstrdup(q);
	regmatch_t m[2];
	regoff_t	from = 0;

	while (regexec(&re_scalar_limit, s + from, 2, m, 0) == 0)
	{
		regoff_t	at = from + m[1].rm_eo;	/* before "limit 1 offset" */

		s = splice(s, at, at, "order by 1 ");
		from = at + strlen("order by 1 limit 1 offset ");
	}
	/* the others: any "limit n" not followed by the scalar form's offset */
	from = 0;
	while (regexec(&re_limit, s + from, 1, m, 0) == 0)
	{
		regoff_t	so = from + m[0].rm_so,
					eo = from + m[0].rm_eo;

		if (strncasecmp(s + eo, " offset ", 8) == 0)
		{
			from = eo;
			continue;
		}
		s = splice(s, so, eo, "");
		from = so;
	}
	from = 0;
	while (regexec(&re_sample, s + from, 1, m, 0) == 0)
	{
		regoff_t	eo = from + m[0].rm_eo;

		if (strncasecmp(s + eo, " repeatable", 11) == 0)
		{
			from = eo;
			continue;
		}
		s = splice(s, eo, eo, " repeatable (0)");
		from = eo + strlen(" repeatable (0)");
	}
	return s;
}

static bool
query_is_deterministic(const char *q)
{
	char	   *low = xstrdup(q);
	char	   *p;
	regmatch_t m[2];
	bool		ok = true;

	for (p = low; *p; p++)
		*p = tolower((unsigned char) *p);
	/* row locks do not change a result: "for update" is not an UPDATE */
	while ((p = strstr(low, "for update")) || (p = strstr(low, "for no key update")))
		memset(p, ' ', strlen(p[4] == 'u' ? "for update" : "for no key update"));
	/* the scalar subqueries' "order by 1 limit 1 offset k" are */
	while ((p = strstr(low, "order by 1 limit 1 offset ")))
		memset(p, ' ', strlen("order by 1 limit 1 offset "));
	if (regexec(&re_start, low, 0, NULL, 0) != 0 ||
		regexec(&re_excluded, low, 0, NULL, 0) == 0 ||
		regexec(&re_dml, low, 0, NULL, 0) == 0)
		ok = false;
	for (p = low; ok && regexec(&re_call, p, 2, m, 0) == 0; p += m[0].rm_eo)
	{
		char		save = p[m[1].rm_eo];
		char	   *name = p + m[1].rm_so;

		p[m[1].rm_eo] = '\0';
		if (bsearch(&name, nondet_funcs, n_nondet, sizeof(char *), cmp_str))
			ok = false;
		p[m[1].rm_eo] = save;
	}
	free(low);
	return ok;
}

/*
 * A query whose outcome may change from one run to the next whatever the
 * scan: TABLESAMPLE without REPEATABLE, or a call of a function from the
 * nondeterministic list above.  Its error seen with offload forced only
 * is counted apart (errors_only_with_offload_random), not as a failure.
 */
static bool
query_is_random(const char *q)
{
	char	   *low = xstrdup(q);
	char	   *p;
	regmatch_t m[2];
	bool		random = false;

	for (p = low; *p; p++)
		*p = tolower((unsigned char) *p);
	for (regoff_t from = 0; !random && regexec(&re_sample, low + from, 1, m, 0) == 0;
		 from += m[0].rm_eo)
		random = strncmp(low + from + m[0].rm_eo, " repeatable", 11) != 0;
	for (p = low; !random && regexec(&re_call, p, 2, m, 0) == 0; p += m[0].rm_eo)
	{
		char		save = p[m[1].rm_eo];
		char	   *name = p + m[1].rm_so;

		p[m[1].rm_eo] = '\0';
		random = bsearch(&name, nondet_funcs, n_nondet, sizeof(char *), cmp_str) != NULL;
		p[m[1].rm_eo] = save;
	}
	free(low);
	return random;
}

/* ---- comparing result sets -------------------------------------------- */

static bool
field_close(const char *a, size_t la, const char *b, size_t lb)
{
	char		ba[128],
				bb[128];
	char	   *ea,
			   *eb;
	double		x,
				y;

	if (la >= sizeof(ba) || lb >= sizeof(bb))
		return false;
	memcpy(ba, a, la);
	ba[la] = '\0';
	memcpy(bb, b, lb);
	bb[lb] = '\0';
	x = strtod(ba, &ea);
	y = strtod(bb, &eb);
	if (ea == ba || eb == bb || *ea || *eb)
		return false;
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
}

/* rows equal but for float fields that agree to 9 significant digits */
static bool
row_close(const char *a, const char *b)
{
	while (*a || *b)
	{
		size_t		la = strcspn(a, "\x1f"),
					lb = strcspn(b, "\x1f");

		if (!(la == lb && memcmp(a, b, la) == 0) && !field_close(a, la, b, lb))
			return false;
		a += la;
		b += lb;
		if ((*a == '\x1f') != (*b == '\x1f'))
			return false;
		if (*a)
			a++, b++;
	}
	return true;
}

typedef enum
{
	RESULT_IDENTICAL, RESULT_FLOAT_CLOSE, RESULT_DIFFERENT
} result_cmp;

static result_cmp
compare_rows(const outcome *a, const outcome *b)
{
	bool		close = false;

	if (a->nrows != b->nrows)
		return RESULT_DIFFERENT;
	for (long i = 0; i < a->nrows; i++)
	{
		if (strcmp(a->rows[i], b->rows[i]) == 0)
			continue;
		if (!row_close(a->rows[i], b->rows[i]))
			return RESULT_DIFFERENT;
		close = true;
	}
	return close ? RESULT_FLOAT_CLOSE : RESULT_IDENTICAL;
}

/* ---- reporting --------------------------------------------------------- */

static void
print_row(FILE *f, const char *row)
{
	for (const char *p = row; *p; p++)
		if (*p == '\x1f')
			fputs(" | ", f);
		else if (*p == '\x01')
			fputs("<NULL", f), p++, fputc('>', f);
		else
			fputc(*p, f);
	fputc('\n', f);
}

static void
print_outcome(FILE *f, const char *label, const outcome *o)
{
	if (o->ok)
		fprintf(f, "  %s: ok, %ld rows\n", label, o->nrows);
	else
		fprintf(f, "  %s: ERROR %s: %s%s\n", label, o->sqlstate, o->message,
				o->lost ? " (connection lost)" : "");
}

static void
detail(const char *kind, const char *query, const outcome *forced, const outcome *off)
{
	if (!details)
		return;
	fprintf(details, "=== %s\n%s;\n", kind, query);
	print_outcome(details, "offload forced", forced);
	print_outcome(details, "offload off   ", off);
	if (forced->ok && off->ok && forced->rows && off->rows)
	{
		long		shown = 0;

		for (long i = 0, j = 0; (i < forced->nrows || j < off->nrows) && shown < 10;)
		{
			int			c = i >= forced->nrows ? 1 : j >= off->nrows ? -1 :
				strcmp(forced->rows[i], off->rows[j]);

			if (c == 0)
			{
				i++, j++;
				continue;
			}
			fputs(c < 0 ? "  only forced: " : "  only off:    ", details);
			print_row(details, c < 0 ? forced->rows[i++] : off->rows[j++]);
			shown++;
		}
	}
	fflush(details);
}

static int
class_index(const char *state)
{
	int			v[2];

	for (int i = 0; i < 2; i++)
	{
		char		c = state[i];

		v[i] = isdigit((unsigned char) c) ? c - '0' :
			isupper((unsigned char) c) ? c - 'A' + 10 : 35;
	}
	return v[0] * 36 + v[1];
}

/*
 * Whether a difference in failing is the order of the rows: the drive's
 * scan threads (and a parallel plan's processes) hand rows over in another
 * order than a scan of the heap, and which row fails a cast first, or
 * whether a float aggregate overflows before it meets an infinity (as
 * float8_accum checks), can depend on it.  Re-run with offload forced, one
 * drive thread and no parallel plan, the rows in block order as the
 * host's scan reads them: if that agrees with offload off, the drive is not
 * at fault.
 */
static bool
order_explains(session *serial, const char *query, const outcome *off)
{
	outcome		c;
	bool		same;

	run(serial, query, true, &c);
	if (c.lost || off->lost)
		same = false;
	else if (c.ok && off->ok)
		same = off->rows == NULL || compare_rows(&c, off) != RESULT_DIFFERENT;
	else
		same = !c.ok && !off->ok && same_error(&c, off);
	outcome_free(&c);
	return same;
}

static const char digits36[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

static void
write_figures(FILE *f, const figures *g, bool json)
{
	const struct
	{
		const char *name;
		long		value;
	}			items[] = {
		{"queries", g->queries},
		{"errors", g->errors},
		{"errors_connection_lost", g->connection_lost},
		{"errors_rerun", g->errors_rerun},
		{"errors_same_with_offload_off", g->errors_same},
		{"errors_same_but_on_another_row", g->errors_same_other_row},
		{"errors_only_with_offload", g->errors_offload_only},
		{"errors_only_with_offload_random", g->errors_offload_only_random},
		{"timeouts_only_with_offload", g->timeouts_offload_only},
		{"errors_not_reproduced", g->errors_not_reproduced},
		{"rerun_connection_lost", g->rerun_connection_lost},
		{"successes", g->successes},
		{"deterministic_successes", g->deterministic},
		{"result_sets_compared", g->compared},
		{"result_sets_identical", g->identical},
		{"result_sets_float_close", g->float_close},
		{"result_diffs", g->diffs},
		{"sample_error_only_with_offload", g->error_only_offload_in_sample},
		{"sample_error_only_with_offload_off", g->error_only_off_in_sample},
		{"sample_skipped_timeout", g->skipped_timeout},
		{"sample_skipped_same_error", g->skipped_other_error},
		{"order_dependent", g->order_dependent},
	};
	size_t		n = sizeof(items) / sizeof(items[0]);
	bool		first = true;

	if (json)
		fputs("{", f);
	for (size_t i = 0; i < n; i++)
		if (json)
			fprintf(f, "%s\"%s\": %ld", i ? ", " : "", items[i].name, items[i].value);
		else
			fprintf(f, "%-36s %ld\n", items[i].name, items[i].value);
	fputs(json ? ", \"errors_by_sqlstate_class\": {" : "errors by SQLSTATE class:", f);
	for (int c = 0; c < 36 * 36; c++)
		if (g->errors_by_class[c])
		{
			fprintf(f, json ? "%s\"%c%c\": %ld" : "%s%c%c %ld", json ? (first ? "" : ", ") : " ",
					digits36[c / 36], digits36[c % 36], g->errors_by_class[c]);
			first = false;
		}
	fputs(json ? "}}\n" : "\n", f);
}

/* ---- main -------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"target", required_argument, NULL, 't'},
		{"log", required_argument, NULL, 'l'},
		{"queries", required_argument, NULL, 'q'},
		{"sample-every", required_argument, NULL, 's'},
		{"timeout-ms", required_argument, NULL, 'T'},
		{"json", required_argument, NULL, 'j'},
		{"details", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	const char *target = NULL,
			   *logdb = NULL,
			   *qfile = NULL,
			   *json = NULL,
			   *dfile = NULL;
	long		sample_every = 1;
	int			opt;
	figures		g = {0};
	char	  **queries,
			  **errq;
	logged_error *errs;
	long		nerr,
				det_seen = 0;
	PGconn	   *lc;
	PGresult   *r;
	session		forced = {0},
				serial = {0},
				off = {0};

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		switch (opt)
		{
			case 't':
				target = optarg;
				break;
			case 'l':
				logdb = optarg;
				break;
			case 'q':
				qfile = optarg;
				break;
			case 's':
				sample_every = atol(optarg);
				break;
			case 'T':
				timeout_ms = atoi(optarg);
				break;
			case 'j':
				json = optarg;
				break;
			case 'd':
				dfile = optarg;
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	if (!target || !logdb || !qfile || sample_every < 1)
	{
		usage(stderr);
		return 2;
	}
	if (dfile && !(details = fopen(dfile, "w")))
	{
		fprintf(stderr, "sqlsmith_check: %s: %s\n", dfile, strerror(errno));
		return 2;
	}

	queries = read_queries(qfile, &g.queries);

	for (int tries = 0;; tries++)
	{
		lc = PQconnectdb(logdb);
		if (PQstatus(lc) == CONNECTION_OK || tries == 60)
			break;
		PQfinish(lc);
		sleep(1);				/* the server may be restarting after a crash */
	}
	if (PQstatus(lc) != CONNECTION_OK)
	{
		fprintf(stderr, "sqlsmith_check: log database: %s", PQerrorMessage(lc));
		return 2;
	}
	r = PQexec(lc, "SELECT query, coalesce(sqlstate, 'XXXXX'), msg FROM error ORDER BY errid");
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		fprintf(stderr, "sqlsmith_check: table error: %s", PQerrorMessage(lc));
		return 2;
	}
	nerr = PQntuples(r);
	errs = xmalloc(sizeof(*errs) * (nerr ? nerr : 1));
	errq = xmalloc(sizeof(char *) * (nerr ? nerr : 1));
	for (long i = 0; i < nerr; i++)
	{
		errs[i].query = errq[i] = xstrdup(PQgetvalue(r, (int) i, 0));
		errs[i].sqlstate = xstrdup(PQgetvalue(r, (int) i, 1));
		errs[i].message = xstrdup(PQgetvalue(r, (int) i, 2));
	}
	PQclear(r);
	PQfinish(lc);
	qsort(errq, nerr, sizeof(char *), cmp_str);
	g.errors = nerr;

	forced.conninfo = serial.conninfo = off.conninfo = target;
	forced.setup = forced_setup;
	serial.setup = serial_setup;
	off.setup = off_setup;
	if (!session_connect(&forced) || !session_connect(&serial) || !session_connect(&off))
	{
		fprintf(stderr, "sqlsmith_check: cannot connect to %s\n", target);
		return 2;
	}
	compile_rules(forced.conn);

	/* every logged error, re-run both ways */
	for (long i = 0; i < nerr; i++)
	{
		outcome		a,
					b;

		g.errors_by_class[class_index(errs[i].sqlstate)]++;
		if (strncmp(errs[i].sqlstate, "08", 2) == 0)
		{
			/* the server went away under this statement: a crash or a
			 * restart; bench/soak/sqlsmith reads the server log for it */
			g.connection_lost++;
			if (details)
				fprintf(details, "=== connection lost (%s: %s)\n%s;\n", errs[i].sqlstate,
						errs[i].message, errs[i].query);
			continue;
		}
		g.errors_rerun++;
		run(&forced, errs[i].query, false, &a);
		run(&off, errs[i].query, false, &b);
		if (a.lost || b.lost)
		{
			g.rerun_connection_lost++;
			detail("connection lost on re-run", errs[i].query, &a, &b);
		}
		else if (same_error(&a, &b))
			g.errors_same++;
		else if (same_error_other_row(&a, &b))
		{
			g.errors_same_other_row++;
			if (g.errors_same_other_row <= MAX_EXAMPLES)
				detail("same error, on another row (example)", errs[i].query, &a, &b);
		}
		else if (a.ok || strcmp(a.sqlstate, errs[i].sqlstate) != 0)
		{
			g.errors_not_reproduced++;
			detail("logged error not reproduced with offload forced", errs[i].query, &a, &b);
		}
		else if (strcmp(a.sqlstate, "57014") == 0)
		{
			g.timeouts_offload_only++;
			detail("timeout only with offload", errs[i].query, &a, &b);
		}
		else if (query_is_random(errs[i].query))
		{
			g.errors_offload_only_random++;
			detail("error only with offload, random query (TABLESAMPLE or a volatile function)",
				   errs[i].query, &a, &b);
		}
		else if (order_explains(&serial, errs[i].query, &b))
		{
			g.order_dependent++;
			if (g.order_dependent <= MAX_EXAMPLES)
				detail("error only with offload, as with the heap's row order (example)",
					   errs[i].query, &a, &b);
		}
		else
		{
			g.errors_offload_only++;
			detail("ERROR ONLY WITH OFFLOAD", errs[i].query, &a, &b);
		}
		outcome_free(&a);
		outcome_free(&b);
		if ((i + 1) % 200 == 0)
			fprintf(stderr, "[sqlsmith_check] errors %ld/%ld re-run\n", i + 1, nerr);
	}

	/* a sample of the deterministic successes, results compared */
	for (long i = 0; i < g.queries; i++)
	{
		outcome		a,
					b;
		result_cmp	c;
		char	   *q;

		if (bsearch(&queries[i], errq, nerr, sizeof(char *), cmp_str))
			continue;
		g.successes++;
		q = deterministic_rewrite(queries[i]);
		if (!query_is_deterministic(q) || det_seen++ % sample_every != 0)
		{
			g.deterministic += query_is_deterministic(q);
			free(q);
			continue;
		}
		g.deterministic++;
		run(&forced, q, true, &a);
		run(&off, q, true, &b);
		if (a.lost || b.lost)
		{
			g.rerun_connection_lost++;
			detail("connection lost on re-run", q, &a, &b);
		}
		else if (a.ok && b.ok)
		{
			g.compared++;
			c = compare_rows(&a, &b);
			if (c == RESULT_IDENTICAL)
				g.identical++;
			else if (c == RESULT_FLOAT_CLOSE)
			{
				g.float_close++;
				if (g.float_close <= MAX_EXAMPLES)
					detail("float fields differ in the last digits (example)", q, &a, &b);
			}
			else
			{
				g.diffs++;
				detail("RESULT DIFFERS", q, &a, &b);
			}
		}
		else if ((!a.ok && strcmp(a.sqlstate, "57014") == 0) ||
				 (!b.ok && strcmp(b.sqlstate, "57014") == 0))
			g.skipped_timeout++;
		else if (same_error(&a, &b) || same_error_other_row(&a, &b))
			g.skipped_other_error++;
		else if (order_explains(&serial, q, &b))
		{
			g.order_dependent++;
			if (g.order_dependent <= MAX_EXAMPLES)
				detail("one side fails, as the heap's row order does (example)", q, &a, &b);
		}
		else if (!a.ok && b.ok)
		{
			g.error_only_offload_in_sample++;
			detail("ERROR ONLY WITH OFFLOAD (re-run of a success)", q, &a, &b);
		}
		else
		{
			g.error_only_off_in_sample++;
			detail("ERROR ONLY WITH OFFLOAD OFF", q, &a, &b);
		}
		if (a.ok && b.ok && g.compared % 500 == 0)
			fprintf(stderr, "[sqlsmith_check] %ld result sets compared\n", g.compared);
		outcome_free(&a);
		outcome_free(&b);
		free(q);
	}

	write_figures(stdout, &g, false);
	if (json)
	{
		FILE	   *f = fopen(json, "w");

		if (!f)
		{
			fprintf(stderr, "sqlsmith_check: %s: %s\n", json, strerror(errno));
			return 2;
		}
		write_figures(f, &g, true);
		fclose(f);
	}
	if (details)
		fclose(details);
	PQfinish(forced.conn);
	PQfinish(off.conn);
	return (g.errors_offload_only || g.diffs || g.error_only_offload_in_sample ||
			g.error_only_off_in_sample) ? 1 : 0;
}
