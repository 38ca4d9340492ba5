/*
 * randq.h - the random differential query test of pg_ossd (ossd-randq).
 *
 * Three parts: randq_data.c prints the schema and its rows (a seeded
 * function of --seed), randq_query.c builds query i of a seed as a
 * structure (so that a failing query can be shrunk part by part) and
 * prints it, randq_run.c runs each query under every mode over libpq and
 * compares the answers.
 */
#ifndef RANDQ_H
#define RANDQ_H

#include <stdint.h>
#include <stdio.h>

/* splitmix64: a small seeded generator, the same on every machine */
typedef struct Rng
{
	uint64_t	s;
} Rng;

uint64_t	rng_next(Rng *r);
void		rng_seed(Rng *r, uint64_t seed, uint64_t stream);
int			rng_int(Rng *r, int lo, int hi);	/* lo..hi inclusive */
int			rng_pct(Rng *r, int pct);	/* true pct% of the time */

/* ---- schema and data (randq_data.c) ---- */
void		randq_print_schema(FILE *out, uint64_t seed);
void		randq_print_data(FILE *out, uint64_t seed);

/*
 * How a result column's text may legitimately differ between two correct
 * executions (see README's Tests section for the rule):
 *   LOOSE_ZERO   a float min/max or group key: -0 and 0 are equal, which
 *                one survives depends on row order
 *   LOOSE_SCALE  a min/max or group key of unconstrained numeric: 1.0 and
 *                1.00 are equal, the display scale depends on row order
 */
enum
{
	LOOSE_NONE = 0,
	LOOSE_ZERO = 1,
	LOOSE_SCALE = 2
};

#define RQ_MAX_PARTS 24

typedef struct RqQuery
{
	const char *table;
	int			nitems;
	char	   *items[RQ_MAX_PARTS];	/* select list */
	int			loose[RQ_MAX_PARTS];
	int			nkeys;			/* the first nkeys items are group keys */
	int			grouped;		/* GROUP BY / aggregates */
	int			nconj;
	char	   *conj[RQ_MAX_PARTS];	/* WHERE: conjuncts */
	char	   *having;
	int			ordered;		/* ORDER BY every output column */
	char	   *orderdir[RQ_MAX_PARTS];
	int			limit;			/* 0: none */
	int			wrap_limit;		/* >0: SELECT count(*) FROM (query LIMIT n) s */
	int			skip_item[RQ_MAX_PARTS];	/* shrinking: parts left out */
	int			skip_conj[RQ_MAX_PARTS];
} RqQuery;

void		randq_make_query(RqQuery *q, uint64_t seed, int index);
char	   *randq_query_sql(const RqQuery *q);	/* malloc'd */
void		randq_free_query(RqQuery *q);

#endif
