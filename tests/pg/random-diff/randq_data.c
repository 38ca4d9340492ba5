/*
 * randq_data.c - the schema of the random differential test and its rows.
 *
 * Three tables on the ossd tablespace, every value a function of the seed:
 *   rq_wide  one column of every type pg_ossd pushes down, with NULLs,
 *            NaN, +-Infinity, -0, the integer limits, numerics at the
 *            edges of the drive's 128-bit range and of PostgreSQL's
 *            scales (negative scale, scale > precision), empty strings,
 *            LIKE metacharacters, non-ASCII text, compressed and external
 *            TOAST values, dates and timestamps at their limits;
 *   rq_keys  narrow rows with few distinct values per column, for GROUP BY,
 *            with a dropped column and columns added with defaults;
 *   rq_part  the rows of rq_keys in four partitions (by k4, NULLs in the
 *            default one): Parallel Append runs OssdScans in workers.
 * Float columns that aggregates sum (f4, f8, vf) hold only multiples of
 * 1/4 or 1/8 small enough that every partial sum is exact, so that the sum
 * does not depend on row order (README, Tests); fx holds the extremes.
 * Rows are loaded with COPY, then frozen and checkpointed so that the
 * drive scans every block.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "randq.h"

#define WIDE_ROWS 24000
#define KEYS_ROWS 40000

uint64_t
rng_next(Rng *r)
{
	uint64_t	z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
rng_seed(Rng *r, uint64_t seed, uint64_t stream)
{
	/* streams far apart: the state is a hash of (seed, stream) */
	r->s = seed;
	r->s = rng_next(r) ^ (stream * 0xd1b54a32d192ed03ULL);
	r->s = rng_next(r);
}

int
rng_int(Rng *r, int lo, int hi)
{
	return lo + (int) (rng_next(r) % (uint64_t) (hi - lo + 1));
}

int
rng_pct(Rng *r, int pct)
{
	return rng_int(r, 0, 99) < pct;
}

#define PICK(r, arr) ((arr)[rng_int((r), 0, (int) (sizeof(arr) / sizeof((arr)[0])) - 1)])

void
randq_print_schema(FILE *out, uint64_t seed)
{
	fprintf(out,
			"-- ossd-randq schema, seed %" PRIu64 "\n"
			"SET default_tablespace = ossd;\n"
			"SET TimeZone = 'UTC';\n"
			"DROP TABLE IF EXISTS rq_wide, rq_keys, rq_part;\n"
			"CREATE TABLE rq_wide (id int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,\n"
			"  fx float8, n numeric, n2 numeric(12,2), n0 numeric(39,0), nneg numeric(8,-3),\n"
			"  nsp numeric(3,5), t text, vc varchar(20), c5 char(5), c1 char(1), b bool,\n"
			"  d date, ts timestamp, tz timestamptz);\n"
			"CREATE TABLE rq_keys (id int4, k2 int2, k4 int4, k8 int8, kn numeric(10,0),\n"
			"  kn2 numeric(8,2), kc char(1), kt text, kb bool, kd date, v4 int4, v8 int8,\n"
			"  vn numeric(15,3), vf float8, vu numeric, dropme text);\n"
			"CREATE TABLE rq_part (id int4, k2 int2, k4 int4, k8 int8, kn numeric(10,0),\n"
			"  kn2 numeric(8,2), kc char(1), kt text, kb bool, kd date, v4 int4, v8 int8,\n"
			"  vn numeric(15,3), vf float8, vu numeric, ka int4, kx text, ky numeric(8,2),\n"
			"  kz float8, kw date) PARTITION BY RANGE (k4);\n"
			"CREATE TABLE rq_part_lo PARTITION OF rq_part FOR VALUES FROM (MINVALUE) TO (60);\n"
			"CREATE TABLE rq_part_mid PARTITION OF rq_part FOR VALUES FROM (60) TO (130);\n"
			"CREATE TABLE rq_part_hi PARTITION OF rq_part FOR VALUES FROM (130) TO (MAXVALUE);\n"
			"CREATE TABLE rq_part_null PARTITION OF rq_part DEFAULT;\n", seed);
}

static void
put_text(FILE *out, const char *s)
{
	for (; *s; s++)
	{
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

#define NUL "\\N"

static void
v_int(FILE *out, Rng *r, int bits)
{
	static const char *i2s[] = {"0", "-1", "1", "32767", "-32768", "32766", "-32767", "2", "-2", "100"};
	static const char *i4s[] = {"0", "-1", "1", "2147483647", "-2147483648", "2147483646", "-2147483647", "65536", "-65536"};
	static const char *i8s[] = {"0", "-1", "1", "9223372036854775807", "-9223372036854775808",
	"9223372036854775806", "4294967296", "-4294967296", "2147483648"};
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 16)
		fputs(bits == 16 ? PICK(r, i2s) : bits == 32 ? PICK(r, i4s) : PICK(r, i8s), out);
	else if (p < 70)
		fprintf(out, "%d", rng_int(r, -100, 100));
	else if (bits == 16)
		fprintf(out, "%d", (int) (int16_t) rng_next(r));
	else if (bits == 32)
		fprintf(out, "%d", (int) (int32_t) rng_next(r));
	else
		fprintf(out, "%" PRId64, (int64_t) rng_next(r) >> rng_int(r, 0, 40));
}

/* exact floats: multiples of 1/div, |k| <= kmax, and the specials */
static void
v_float_exact(FILE *out, Rng *r, int div, int kmax)
{
	static const char *sp[] = {"NaN", "Infinity", "-Infinity", "-0", "0"};
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 11)
		fputs(PICK(r, sp), out);
	else
		fprintf(out, "%.17g", (double) rng_int(r, -kmax, kmax) / div);
}

static void
v_float_extreme(FILE *out, Rng *r)
{
	static const char *sp[] = {"NaN", "Infinity", "-Infinity", "-0", "0", "1.7976931348623157e+308",
		"-1.7976931348623157e+308", "5e-324", "-5e-324", "2.2250738585072014e-308", "0.1",
		"0.3333333333333333", "1e+300", "-1e+300", "1e-300", "9007199254740993", "123456.789",
	"4.9406564584124654e-324"};
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 40)
		fputs(PICK(r, sp), out);
	else
	{
		uint64_t	bits = rng_next(r);
		double		d;

		memcpy(&d, &bits, 8);
		if (!isfinite(d))
			d = (double) (int64_t) bits / 1e6;
		fprintf(out, "%.17g", d);
	}
}

/* unconstrained numeric: specials, 128-bit edges, wide scales */
static void
v_numeric(FILE *out, Rng *r)
{
	static const char *sp[] = {"NaN", "Infinity", "-Infinity", "0", "0.000", "1.5", "1.50", "1.500000",
		"-1.5", "170141183460469231731687303715884105727", "170141183460469231731687303715884105728",
		"-170141183460469231731687303715884105728", "-170141183460469231731687303715884105729",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"0.00000000000000000000000000000000000001", "1e-300", "9.99e130", "-1e100",
		"12345678901234567890.12345678901234567890", "0.1", "100", "1e3", "999999999999999999999999999999999999999",
	"3.14159265358979323846264338327950288419716939937510"};
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 35)
		fputs(PICK(r, sp), out);
	else
	{
		int			scale = rng_int(r, 0, 12);
		int64_t		v = (int64_t) (rng_next(r) >> rng_int(r, 1, 60));

		if (rng_pct(r, 50))
			v = -v;
		if (scale == 0)
			fprintf(out, "%" PRId64, v);
		else
		{
			char		buf[64];
			int			neg = v < 0;
			uint64_t	u = neg ? -(uint64_t) v : (uint64_t) v;
			int			len;

			len = snprintf(buf, sizeof(buf), "%0*" PRIu64, scale + 1, u);
			fprintf(out, "%s%.*s.%s", neg ? "-" : "", len - scale, buf, buf + len - scale);
		}
	}
}

static void
v_numfix(FILE *out, Rng *r, int kind)
{
	int			p = rng_int(r, 0, 99);

	if (p < 6)
	{
		fputs(NUL, out);
		return;
	}
	switch (kind)
	{
		case 2:				/* numeric(12,2) */
			{
				static const char *sp[] = {"NaN", "0", "-0.01", "0.01", "9999999999.99", "-9999999999.99",
				"0.005", "-0.005", "1.5", "1.499"};

				if (p < 16)
					fputs(PICK(r, sp), out);
				else if (p < 60)
					fprintf(out, "%d.%02d", rng_int(r, -50, 50), rng_int(r, 0, 99));
				else
					fprintf(out, "%d.%02d", rng_int(r, -999999999, 999999999), rng_int(r, 0, 99));
				break;
			}
		case 0:				/* numeric(39,0): the 128-bit edges fit */
			{
				static const char *sp[] = {"999999999999999999999999999999999999999",
					"-99999999999999999999999999999999999999", "170141183460469231731687303715884105727",
					"-170141183460469231731687303715884105728", "9223372036854775808",
				"-9223372036854775809", "0", "1", "-1", "NaN"};

				if (p < 20)
					fputs(PICK(r, sp), out);
				else
					fprintf(out, "%" PRId64 "%s", (int64_t) rng_next(r) >> rng_int(r, 0, 50),
							rng_pct(r, 20) ? "000000000000" : "");
				break;
			}
		case -3:				/* numeric(8,-3): rounds to thousands */
			fprintf(out, "%d", rng_int(r, -99999999, 99999999));
			break;
		default:				/* numeric(3,5): |v| < 0.001 */
			fprintf(out, "%s0.00%03d", rng_pct(r, 50) ? "-" : "", rng_int(r, 0, 999));
			break;
	}
}

static const char *words[] = {"", " ", "a", "abc", "ABC", "ab%", "a_b", "a\\b", "100%", "_", "%", "\\",
	"é", "café", "日本語", "zzz", "a ", "Ünïcödé", "abc ", "x%y_z", "%%", "__", "a\\%b", "O'Neil",
	"ümlaut", "Ω", "naïve", "abd", "ab", "b", "Z", "[a]", "tab\there", "line\nbreak", "~", "日本"};

static void
v_text(FILE *out, Rng *r, int maxlen, int toast)
{
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 50)
	{
		const char *w = PICK(r, words);

		if ((int) strlen(w) > maxlen)
			w = "a";
		put_text(out, w);
	}
	else if (toast && p < 53)
	{
		/* compressible: inline compressed, or external when long */
		const char *w = PICK(r, words);
		int			n = rng_int(r, 300, 3000);

		fprintf(out, "big-%d-", n);
		for (int i = 0; i < n; i++)
			put_text(out, *w ? w : "q");
	}
	else if (toast && p < 55)
	{
		/* incompressible: external */
		int			n = rng_int(r, 2100, 9000);

		fputs("rnd-", out);
		for (int i = 0; i < n; i++)
			fputc("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[rng_next(r) % 62], out);
	}
	else
	{
		int			n = rng_int(r, 1, maxlen < 12 ? maxlen : 12);

		for (int i = 0; i < n; i++)
			fputc("abcdefghij%_ ABZ"[rng_next(r) % 16], out);
	}
}

static void
v_char5(FILE *out, Rng *r)
{
	static const char *sp[] = {"", "a", "ab", "abcde", "ab  ", " a", "é", "日本", "a%", "a_", "\\",
	"ABC", "zz"};

	if (rng_pct(r, 6))
		fputs(NUL, out);
	else
		put_text(out, PICK(r, sp));
}

static void
v_char1(FILE *out, Rng *r)
{
	static const char *sp[] = {"A", "N", "R", " ", "é", "a", "%", "_", "\\"};

	if (rng_pct(r, 6))
		fputs(NUL, out);
	else
		put_text(out, PICK(r, sp));
}

static void
v_bool(FILE *out, Rng *r)
{
	int			p = rng_int(r, 0, 9);

	fputs(p == 0 ? NUL : p < 5 ? "t" : "f", out);
}

static void
v_date(FILE *out, Rng *r)
{
	static const char *sp[] = {"infinity", "-infinity", "4713-01-01 BC", "5874897-12-31", "2000-01-01",
	"1999-12-31", "294276-12-31", "294277-01-01", "1970-01-01", "4714-11-24 BC"};
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 16)
		fputs(PICK(r, sp), out);
	else
		fprintf(out, "%04d-%02d-%02d", rng_int(r, 1990, 2030), rng_int(r, 1, 12), rng_int(r, 1, 28));
}

static void
v_ts(FILE *out, Rng *r, int tz)
{
	static const char *sp[] = {"infinity", "-infinity", "4713-01-01 00:00:00 BC", "294276-12-31 23:59:59.999999",
	"2000-01-01 00:00:00", "1999-12-31 23:59:59.999999", "1970-01-01 00:00:00", "2000-01-01 00:00:00.000001"};
	int			p = rng_int(r, 0, 99);

	if (p < 6)
		fputs(NUL, out);
	else if (p < 16)
		fputs(PICK(r, sp), out);
	else
		fprintf(out, "%04d-%02d-%02d %02d:%02d:%02d.%06d%s", rng_int(r, 1990, 2030), rng_int(r, 1, 12),
				rng_int(r, 1, 28), rng_int(r, 0, 23), rng_int(r, 0, 59), rng_int(r, 0, 59),
				rng_pct(r, 50) ? 0 : rng_int(r, 0, 999999), tz ? (rng_pct(r, 50) ? "+00" : "+05:30") : "");
}

#define SEP fputc('\t', out)

void
randq_print_data(FILE *out, uint64_t seed)
{
	Rng			r;

	rng_seed(&r, seed, 1);
	fputs("SET TimeZone = 'UTC';\nCOPY rq_wide FROM STDIN;\n", out);
	for (int id = 1; id <= WIDE_ROWS; id++)
	{
		fprintf(out, "%d", id);
		SEP; v_int(out, &r, 16);
		SEP; v_int(out, &r, 32);
		SEP; v_int(out, &r, 64);
		SEP; v_float_exact(out, &r, 4, 200);
		SEP; v_float_exact(out, &r, 8, 100000);
		SEP; v_float_extreme(out, &r);
		SEP; v_numeric(out, &r);
		SEP; v_numfix(out, &r, 2);
		SEP; v_numfix(out, &r, 0);
		SEP; v_numfix(out, &r, -3);
		SEP; v_numfix(out, &r, 5);
		SEP; v_text(out, &r, 100000, 1);
		SEP; v_text(out, &r, 20, 0);
		SEP; v_char5(out, &r);
		SEP; v_char1(out, &r);
		SEP; v_bool(out, &r);
		SEP; v_date(out, &r);
		SEP; v_ts(out, &r, 0);
		SEP; v_ts(out, &r, 1);
		fputc('\n', out);
	}
	fputs("\\.\nCOPY rq_keys FROM STDIN;\n", out);
	for (int id = 1; id <= KEYS_ROWS; id++)
	{
		static const char *kts[] = {"", "a", "b", "ab", "é", "日本", "a%", "x_y", "\\", "Z", "zz", "abc"};
		static const char *kcs[] = {"A", "N", "R", "é", " "};

		/*
		 * Half the rows before the ALTER TABLE, half after: in the first
		 * half ka..kw are the catalog's defaults (attmissingval), and the
		 * dropped column is still in the tuples.
		 */
		if (id == KEYS_ROWS / 2 + 1)
			fputs("\\.\n"
				  "ALTER TABLE rq_keys DROP COLUMN dropme, ADD COLUMN ka int4 DEFAULT 7,\n"
				  "  ADD COLUMN kx text DEFAULT 'dflt', ADD COLUMN ky numeric(8,2) DEFAULT 2.50,\n"
				  "  ADD COLUMN kz float8 DEFAULT '-0', ADD COLUMN kw date DEFAULT 'infinity';\n"
				  "COPY rq_keys FROM STDIN;\n", out);
		fprintf(out, "%d", id);
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "%d", rng_int(&r, -3, 20));
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "%d", rng_int(&r, 0, 200));
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "%" PRId64, (int64_t) rng_int(&r, -5, 5) * INT64_C(2000000000000000000));
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "%d", rng_int(&r, -20, 20));
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "%d.%d", rng_int(&r, -3, 3), rng_int(&r, 0, 9) * 25 % 100);
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fputs(PICK(&r, kcs), out);
		SEP; rng_pct(&r, 5) ? (void) fputs(NUL, out) : put_text(out, PICK(&r, kts));
		SEP; v_bool(out, &r);
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "2020-01-%02d", rng_int(&r, 1, 30));
		SEP; v_int(out, &r, 32);
		SEP; v_int(out, &r, 64);
		SEP; rng_pct(&r, 5) ? fputs(NUL, out) : fprintf(out, "%d.%03d", rng_int(&r, -999999, 999999), rng_int(&r, 0, 999));
		SEP; v_float_exact(out, &r, 8, 100000);
		SEP; v_numeric(out, &r);
		if (id <= KEYS_ROWS / 2)
		{
			SEP; fputs("dropped", out);
		}
		else
		{
			SEP; rng_pct(&r, 30) ? fputs(NUL, out) : fprintf(out, "%d", rng_int(&r, 0, 9));
			SEP; rng_pct(&r, 30) ? (void) fputs(NUL, out) : put_text(out, PICK(&r, kts));
			SEP; rng_pct(&r, 30) ? fputs(NUL, out) : fprintf(out, "%d.%d", rng_int(&r, -3, 3), rng_int(&r, 0, 9) * 25 % 100);
			SEP; v_float_exact(out, &r, 8, 1000);
			SEP; rng_pct(&r, 30) ? fputs(NUL, out) : fprintf(out, "2021-02-%02d", rng_int(&r, 1, 28));
		}
		fputc('\n', out);
	}

	/*
	 * Frozen, so that the drive scans the blocks; then a few rows updated
	 * in place: their pages are no longer all-visible and the host scans
	 * them, so that most queries merge the drive's answer with the host's.
	 */
	fputs("\\.\nINSERT INTO rq_part SELECT * FROM rq_keys;\n"
		  "VACUUM (FREEZE, ANALYZE) rq_wide;\nVACUUM (FREEZE, ANALYZE) rq_keys;\n"
		  "VACUUM (FREEZE, ANALYZE) rq_part;\n"
		  "UPDATE rq_wide SET i2 = i2 WHERE id % 613 = 0;\n"
		  "UPDATE rq_keys SET k2 = k2 WHERE id % 997 = 0;\n"
		  "UPDATE rq_part SET k2 = k2 WHERE id % 991 = 0;\n"
		  "CHECKPOINT;\n", out);
}
