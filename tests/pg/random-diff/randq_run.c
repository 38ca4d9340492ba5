/*
 * randq_run.c - ossd-randq: the random differential query test of pg_ossd.
 *
 *   ossd-randq --seed S --schema --data          the tables and their rows (SQL)
 *   ossd-randq --seed S --queries N --print      the queries, one a line
 *   ossd-randq --seed S --queries N --run CONNINFO [--out DIR] [--json]
 *       runs every query with offload off (the reference), then forced to
 *       the drive with the JIT and with the interpreter, each without and
 *       with parallel workers, and compares the answers: in order under
 *       ORDER BY (every output column is a sort key), as multisets
 *       otherwise; errors by SQLSTATE and message.  A difference prints
 *       the seed, the query and both answers, is shrunk (select items and
 *       conjuncts left out while it still differs) and written as a
 *       reproducer under DIR.  EXPLAIN of every query under the JIT mode
 *       counts the queries the drive ran (OssdScan).
 * Exit status: 0 no difference, 1 differences, 2 usage or connection error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "randq.h"

typedef struct Mode
{
	const char *name;
	const char *options;
} Mode;

#define COMMON_OPTS "-c TimeZone=UTC -c lc_messages=C -c extra_float_digits=1 -c statement_timeout=300000 "
#define FORCED "-c ossd.force_offload=on -c ossd.min_relation_pages=0 "

static const Mode all_modes[] = {
	{"off", COMMON_OPTS "-c ossd.enabled=off -c max_parallel_workers_per_gather=0"},
	{"jit", COMMON_OPTS FORCED "-c ossd.kernel_mode=jit -c max_parallel_workers_per_gather=0"},
	{"interpreter", COMMON_OPTS FORCED "-c ossd.kernel_mode=interpreter -c max_parallel_workers_per_gather=0"},
	{"jit-parallel", COMMON_OPTS FORCED "-c ossd.kernel_mode=jit -c max_parallel_workers_per_gather=2"},
	{"interpreter-parallel", COMMON_OPTS FORCED "-c ossd.kernel_mode=interpreter -c max_parallel_workers_per_gather=2"},
};
#define NMODES ((int) (sizeof(all_modes) / sizeof(all_modes[0])))

typedef struct Result
{
	int			crashed;
	int			is_err;
	char		sqlstate[6];
	char	   *msg;
	int			nrows;
	int			ncols;
	char	  **rows;			/* cells joined by \x1f, NULL as \x01 */
} Result;

typedef struct Stats
{
	int			queries;
	int			offloaded;
	int			device_filter;
	int			device_agg;
	int			compared;
	int			ref_errors;
	int			diffs;
	int			crashes;
	long long	drive_scans;	/* the drives' "scans" counter, run's delta */
} Stats;

static const char *conninfo;
static PGconn *conns[NMODES];
static int	mode_on[NMODES];

static PGconn *
connect_mode(int m)
{
	const char *keys[] = {"dbname", "options", NULL};
	const char *vals[] = {conninfo, all_modes[m].options, NULL};

	for (int tries = 0; tries < 120; tries++)
	{
		PGconn	   *c = PQconnectdbParams(keys, vals, 1);

		if (PQstatus(c) == CONNECTION_OK)
			return c;
		if (tries == 119)
			fprintf(stderr, "ossd-randq: connect (%s): %s", all_modes[m].name, PQerrorMessage(c));
		PQfinish(c);
		sleep(1);				/* after a crash the server restarts */
	}
	return NULL;
}

static int
reconnect_all(void)
{
	for (int m = 0; m < NMODES; m++)
	{
		if (!mode_on[m])
			continue;
		if (conns[m])
			PQfinish(conns[m]);
		if ((conns[m] = connect_mode(m)) == NULL)
			return -1;
	}
	return 0;
}

static void
normalize(char *v, int loose)
{
	if (loose == LOOSE_ZERO && strcmp(v, "-0") == 0)
		strcpy(v, "0");
	else if (loose == LOOSE_SCALE && strchr(v, '.') && !strchr(v, 'e'))
	{
		char	   *e = v + strlen(v) - 1;

		while (*e == '0')
			*e-- = '\0';
		if (*e == '.')
			*e = '\0';
	}
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void
result_free(Result *r)
{
	for (int i = 0; i < r->nrows; i++)
		free(r->rows[i]);
	free(r->rows);
	free(r->msg);
	memset(r, 0, sizeof(*r));
}

static void
run_one(int m, const char *sql, const RqQuery *q, Result *out)
{
	PGresult   *res;
	int			loose[RQ_MAX_PARTS];
	int			nloose = 0;

	memset(out, 0, sizeof(*out));
	res = PQexec(conns[m], sql);
	if (PQstatus(conns[m]) != CONNECTION_OK)
	{
		out->crashed = 1;
		out->msg = strdup(PQerrorMessage(conns[m]));
		PQclear(res);
		return;
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		const char *pm = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

		out->is_err = 1;
		snprintf(out->sqlstate, sizeof(out->sqlstate), "%s", st ? st : "?????");
		out->msg = strdup(pm ? pm : PQresultErrorMessage(res));
		PQclear(res);
		return;
	}
	/* the loose rule of each output column (items not left out) */
	for (int i = 0; i < q->nitems; i++)
		if (!q->skip_item[i])
			loose[nloose++] = q->loose[i];
	out->nrows = PQntuples(res);
	out->ncols = PQnfields(res);
	out->rows = calloc(out->nrows + 1, sizeof(char *));
	for (int i = 0; i < out->nrows; i++)
	{
		size_t		len = 1;
		char	   *row,
				   *p;

		for (int c = 0; c < out->ncols; c++)
			len += PQgetlength(res, i, c) + 2;
		row = p = malloc(len);
		for (int c = 0; c < out->ncols; c++)
		{
			if (c)
				*p++ = '\x1f';
			if (PQgetisnull(res, i, c))
				*p++ = '\x01';
			else
			{
				strcpy(p, PQgetvalue(res, i, c));
				normalize(p, c < nloose ? loose[c] : LOOSE_NONE);
				p += strlen(p);
			}
		}
		*p = '\0';
		out->rows[i] = row;
	}
	if (!q->ordered)
		qsort(out->rows, out->nrows, sizeof(char *), cmpstr);
	PQclear(res);
}

/* 0: same answer */
static int
result_differs(const Result *a, const Result *b)
{
	if (a->crashed || b->crashed)
		return 1;
	if (a->is_err || b->is_err)
		return !(a->is_err && b->is_err && strcmp(a->sqlstate, b->sqlstate) == 0 &&
				 strcmp(a->msg, b->msg) == 0);
	if (a->nrows != b->nrows || a->ncols != b->ncols)
		return 1;
	for (int i = 0; i < a->nrows; i++)
		if (strcmp(a->rows[i], b->rows[i]) != 0)
			return 1;
	return 0;
}

static void
print_row(FILE *f, const char *prefix, const char *row)
{
	fputs(prefix, f);
	for (const char *p = row; *p; p++)
	{
		if (*p == '\x1f')
			fputs(" | ", f);
		else if (*p == '\x01')
			fputs("NULL", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
		if (p - row > 400)
		{
			fputs("...", f);
			break;
		}
	}
	fputc('\n', f);
}

static void
print_result(FILE *f, const char *prefix, const char *name, const Result *r, const Result *other)
{
	if (r->crashed)
	{
		fprintf(f, "%s%s: connection lost (server crash?): %s", prefix, name, r->msg);
		return;
	}
	if (r->is_err)
	{
		fprintf(f, "%s%s: ERROR %s: %s\n", prefix, name, r->sqlstate, r->msg);
		return;
	}
	fprintf(f, "%s%s: %d rows\n", prefix, name, r->nrows);
	/* the rows that differ from the other answer (at most 10) */
	for (int i = 0, shown = 0; i < r->nrows && shown < 10; i++)
	{
		int			found = 0;

		if (other && !other->is_err && !other->crashed)
		{
			if (i < other->nrows && strcmp(r->rows[i], other->rows[i]) == 0)
				continue;
			for (int j = 0; j < other->nrows && !found; j++)
				found = strcmp(r->rows[i], other->rows[j]) == 0;
			if (found && other->nrows == r->nrows)
				continue;
		}
		print_row(f, prefix, r->rows[i]);
		shown++;
	}
}

/* run q under the reference and mode m; 1 when they differ */
static int
pair_differs(RqQuery *q, int m)
{
	char	   *sql = randq_query_sql(q);
	Result		a,
				b;
	int			d;

	run_one(0, sql, q, &a);
	run_one(m, sql, q, &b);
	d = result_differs(&a, &b);
	if (a.crashed || b.crashed)
		reconnect_all();
	result_free(&a);
	result_free(&b);
	free(sql);
	return d;
}

/* leave parts out while the difference stays */
static void
shrink(RqQuery *q, int m)
{
	int			changed = 1;

	while (changed)
	{
		changed = 0;
		for (int i = 0; i < q->nconj; i++)
		{
			if (q->skip_conj[i])
				continue;
			q->skip_conj[i] = 1;
			if (pair_differs(q, m))
				changed = 1;
			else
				q->skip_conj[i] = 0;
		}
		for (int i = 0; i < q->nitems; i++)
		{
			int			left = 0;

			if (q->skip_item[i])
				continue;
			for (int j = 0; j < q->nitems; j++)
				left += !q->skip_item[j];
			if (left <= 1)
				break;
			q->skip_item[i] = 1;
			if (pair_differs(q, m))
				changed = 1;
			else
				q->skip_item[i] = 0;
		}
		if (q->having)
		{
			char	   *h = q->having;

			q->having = NULL;
			if (pair_differs(q, m))
				changed = 1;
			else
				q->having = h;
		}
		if (q->ordered && !q->limit)
		{
			q->ordered = 0;
			if (pair_differs(q, m))
				changed = 1;
			else
				q->ordered = 1;
		}
		if (q->limit)
		{
			int			l = q->limit;

			q->limit = 0;
			if (pair_differs(q, m))
				changed = 1;
			else
				q->limit = l;
		}
	}
}

static void
write_repro(const char *dir, uint64_t seed, int index, int m, const char *orig, const char *min)
{
	char		path[4096];
	FILE	   *f;

	if (dir == NULL)
		return;
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/repro-seed%" PRIu64 "-q%d.sql", dir, seed, index);
	f = fopen(path, "w");
	if (f == NULL)
	{
		fprintf(stderr, "ossd-randq: %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f,
			"-- ossd-randq: query %d of seed %" PRIu64 " answers differently with offload off and in mode %s\n"
			"-- tables and rows:  ossd-randq --seed %" PRIu64 " --schema --data | psql -v ON_ERROR_STOP=1\n"
			"-- the query again:  ossd-randq --seed %" PRIu64 " --only %d --print\n"
			"-- original: %s\n"
			"-- mode %s: %s\n"
			"SET TimeZone = 'UTC';\n"
			"SET ossd.enabled = off;\n%s;\n"
			"RESET ossd.enabled;\n",
			index, seed, all_modes[m].name, seed, seed, index, orig, all_modes[m].name, all_modes[m].options, min);
	{
		/* the mode's settings as SET commands */
		char	   *opts = strdup(all_modes[m].options);
		char	   *tok,
				   *save;

		for (tok = strtok_r(opts, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		{
			char	   *eq;

			if (strcmp(tok, "-c") == 0 || (eq = strchr(tok, '=')) == NULL)
				continue;
			*eq = '\0';
			fprintf(f, "SET %s = '%s';\n", tok, eq + 1);
		}
		free(opts);
	}
	fprintf(f, "EXPLAIN (VERBOSE, COSTS OFF) %s;\n%s;\n", min, min);
	fclose(f);
	printf("# reproducer: %s\n", path);
	fflush(stdout);
}

static void
explain_counts(const char *sql, Stats *st)
{
	char	   *ex = malloc(strlen(sql) + 32);
	PGresult   *res;
	int			m = mode_on[1] ? 1 : mode_on[2] ? 2 : -1;

	if (m < 0)
	{
		free(ex);
		return;
	}
	sprintf(ex, "EXPLAIN (VERBOSE, COSTS OFF) %s", sql);
	res = PQexec(conns[m], ex);
	if (PQresultStatus(res) == PGRES_TUPLES_OK)
	{
		int			scan = 0,
					filt = 0,
					agg = 0;

		for (int i = 0; i < PQntuples(res); i++)
		{
			const char *line = PQgetvalue(res, i, 0);

			scan |= strstr(line, "Custom Scan (OssdScan)") != NULL;
			filt |= strstr(line, "Device Filter:") != NULL;
			agg |= strstr(line, "Device Partial Aggregates:") != NULL;
		}
		st->offloaded += scan;
		st->device_filter += filt;
		st->device_agg += agg;
	}
	PQclear(res);
	if (PQstatus(conns[m]) != CONNECTION_OK)
		reconnect_all();
	free(ex);
}

/* the drives' count of scans run (ossd_device_stats), or -1 */
static long long
drive_scans(void)
{
	PGresult   *res = PQexec(conns[0], "SELECT sum(value)::int8 FROM ossd_device_stats() WHERE name = 'scans'");
	long long	n = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		n = atoll(PQgetvalue(res, 0, 0));
	PQclear(res);
	return n;
}

static int
run_queries(uint64_t seed, int first, int n, const char *outdir, int max_diffs, int progress, Stats *st)
{
	Result		res[NMODES];

	long long	scans0;

	if (reconnect_all() != 0)
		return 2;
	scans0 = drive_scans();
	for (int i = first; i < first + n; i++)
	{
		RqQuery		q;
		char	   *sql;
		int			crashed = 0;

		randq_make_query(&q, seed, i);
		sql = randq_query_sql(&q);
		st->queries++;
		explain_counts(sql, st);
		for (int m = 0; m < NMODES; m++)
		{
			if (!mode_on[m])
				continue;
			run_one(m, sql, &q, &res[m]);
			crashed |= res[m].crashed;
			if (res[m].crashed)
				reconnect_all();
		}
		if (res[0].is_err)
			st->ref_errors++;
		for (int m = 1; m < NMODES; m++)
		{
			if (!mode_on[m])
				continue;
			st->compared++;
			if (!result_differs(&res[0], &res[m]))
				continue;
			st->diffs++;
			if (res[m].crashed)
				st->crashes++;
			printf("# DIFFERENCE seed %" PRIu64 " query %d: off vs %s\n# query: %s\n", seed, i,
				   all_modes[m].name, sql);
			print_result(stdout, "#   ", "off", &res[0], &res[m]);
			print_result(stdout, "#   ", all_modes[m].name, &res[m], &res[0]);
			fflush(stdout);
			{
				RqQuery		mq = q;
				char	   *min;

				shrink(&mq, m);
				min = randq_query_sql(&mq);
				printf("# shrunk: %s\n", min);
				fflush(stdout);
				write_repro(outdir, seed, i, m, sql, min);
				free(min);
			}
			break;				/* one report per query */
		}
		for (int m = 0; m < NMODES; m++)
			if (mode_on[m])
				result_free(&res[m]);
		free(sql);
		(void) crashed;
		if (progress && (i - first + 1) % progress == 0)
			fprintf(stderr, "# %d/%d queries, %d offloaded, %d differences\n", i - first + 1, n,
					st->offloaded, st->diffs);
		if (max_diffs > 0 && st->diffs >= max_diffs)
		{
			printf("# stopping after %d differences\n", st->diffs);
			break;
		}
	}
	st->drive_scans = scans0 < 0 ? -1 : drive_scans() - scans0;
	return st->diffs ? 1 : 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: ossd-randq [--seed S] [--schema] [--data]\n"
			"       ossd-randq [--seed S] [--queries N] [--first I | --only I] --print\n"
			"       ossd-randq [--seed S] [--queries N] [--first I | --only I] --run CONNINFO\n"
			"                  [--modes off,jit,...] [--out DIR] [--max-diffs N] [--progress N] [--json]\n"
			"Random differential queries for pg_ossd, a function of the seed.\n"
			"  --schema        print CREATE TABLE of rq_wide and rq_keys (on the ossd tablespace)\n"
			"  --data          print their rows (COPY), VACUUM (FREEZE, ANALYZE) and CHECKPOINT\n"
			"  --print         print the queries, one a line\n"
			"  --run CONNINFO  run them with offload off and forced (modes below), compare the answers\n"
			"  --modes LIST    of: off (always, the reference), jit, interpreter, jit-parallel,\n"
			"                  interpreter-parallel (default: all)\n"
			"  --out DIR       write a shrunk reproducer of every difference to DIR\n"
			"  --max-diffs N   stop after N differences (default: 0, never)\n"
			"  --progress N    a progress line on stderr every N queries\n"
			"  --json          the summary as JSON on the last line\n"
			"Exit status: 0 no difference, 1 differences, 2 usage or connection error.\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"seed", required_argument, NULL, 's'}, {"queries", required_argument, NULL, 'n'},
		{"first", required_argument, NULL, 'f'}, {"only", required_argument, NULL, 'o'},
		{"schema", no_argument, NULL, 'S'}, {"data", no_argument, NULL, 'D'},
		{"print", no_argument, NULL, 'p'}, {"run", required_argument, NULL, 'r'},
		{"modes", required_argument, NULL, 'm'}, {"out", required_argument, NULL, 'O'},
		{"max-diffs", required_argument, NULL, 'x'}, {"progress", required_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}
	};
	uint64_t	seed = 1;
	int			nq = 200,
				first = 0,
				schema = 0,
				data = 0,
				print = 0,
				json = 0,
				max_diffs = 0,
				progress = 0;
	const char *outdir = NULL;
	int			c;
	Stats		st = {0};
	int			rc;

	for (int m = 0; m < NMODES; m++)
		mode_on[m] = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
	{
		switch (c)
		{
			case 's':
				seed = strtoull(optarg, NULL, 10);
				break;
			case 'n':
				nq = atoi(optarg);
				break;
			case 'f':
				first = atoi(optarg);
				break;
			case 'o':
				first = atoi(optarg);
				nq = 1;
				break;
			case 'S':
				schema = 1;
				break;
			case 'D':
				data = 1;
				break;
			case 'p':
				print = 1;
				break;
			case 'r':
				conninfo = optarg;
				break;
			case 'm':
				{
					char	   *l = strdup(optarg),
							   *tok,
							   *save;

					for (int m = 1; m < NMODES; m++)
						mode_on[m] = 0;
					for (tok = strtok_r(l, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
					{
						int			found = 0;

						for (int m = 0; m < NMODES; m++)
							if (strcmp(tok, all_modes[m].name) == 0)
								mode_on[m] = found = 1;
						if (!found)
						{
							fprintf(stderr, "ossd-randq: unknown mode %s\n", tok);
							return 2;
						}
					}
					free(l);
					break;
				}
			case 'O':
				outdir = optarg;
				break;
			case 'x':
				max_diffs = atoi(optarg);
				break;
			case 'P':
				progress = atoi(optarg);
				break;
			case 'j':
				json = 1;
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc || (!schema && !data && !print && !conninfo) || nq < 0 || first < 0)
	{
		usage(stderr);
		return 2;
	}
	if (schema)
		randq_print_schema(stdout, seed);
	if (data)
		randq_print_data(stdout, seed);
	if (print)
	{
		for (int i = first; i < first + nq; i++)
		{
			RqQuery		q;
			char	   *sql;

			randq_make_query(&q, seed, i);
			sql = randq_query_sql(&q);
			printf("%s;\n", sql);
			free(sql);
		}
	}
	if (!conninfo)
		return 0;
	rc = run_queries(seed, first, nq, outdir, max_diffs, progress, &st);
	printf("# seed %" PRIu64 ": %d queries, %d offloaded (OssdScan in EXPLAIN; %d with a device filter, "
		   "%d with device aggregation), %lld scans on the drive, %d result sets compared, "
		   "%d errors in the reference, %d differences (%d crashes)\n", seed, st.queries, st.offloaded,
		   st.device_filter, st.device_agg, st.drive_scans, st.compared, st.ref_errors, st.diffs, st.crashes);
	if (json)
		printf("{\"seed\": %" PRIu64 ", \"queries\": %d, \"offloaded\": %d, \"device_filter\": %d, "
			   "\"device_agg\": %d, \"drive_scans\": %lld, \"compared\": %d, \"ref_errors\": %d, "
			   "\"differences\": %d, \"crashes\": %d}\n", seed, st.queries, st.offloaded, st.device_filter,
			   st.device_agg, st.drive_scans, st.compared, st.ref_errors, st.diffs, st.crashes);
	for (int m = 0; m < NMODES; m++)
		if (conns[m])
			PQfinish(conns[m]);
	return rc;
}
