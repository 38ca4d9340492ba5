--
-- ossd_quals: every qual the drive evaluates as a filter, and those it
-- refuses (kept on the host): comparisons of each type (cross-type too),
-- BETWEEN, IN / ANY / ALL lists, IS [NOT] NULL, boolean tests, LIKE and
-- its escapes, ILIKE, substring() at constant positions, three-valued
-- AND/OR/NOT, casts and arithmetic,
-- NaN / Infinity / -0, numeric scales and values past 128 bits, char(n)
-- padding, dates outside the timestamp range; errors (overflow, division
-- by zero) are the same with offload on and off.
--
-- qual_check(qual) plans "SELECT id FROM qt WHERE qual" with
-- ossd.force_offload = on and reports what the plan put in the Device
-- Filter (the drive) and in the Filter (the host), how many rows match,
-- and whether the rows -- and count(*), sum(id) through aggregate
-- pushdown -- are the same with offload off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET intervalstyle = 'postgres';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- The query's rows with offload as set and with ossd.enabled = off: their
-- count, the scans the drive ran for the first and whether both are the
-- same multiset.
-- offload_check(q): tests/pg/regress-helpers.sql

-- The same comparison in linear time, for qual_check's hundreds of
-- queries: the multisets compared by their count and two sums of 31-bit
-- row hashes (two different multisets agree by chance with odds of about
-- 2^-62), without the drive's counters (no round trip to the drive)
CREATE FUNCTION offload_same_hashed(q text, OUT n_rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  t text;
  n1 bigint := 0;
  n2 bigint := 0;
  h1 bigint := 0;
  h2 bigint := 0;
  g1 bigint := 0;
  g2 bigint := 0;
  saved text := current_setting('ossd.enabled');
BEGIN
  FOR r IN EXECUTE q LOOP
    t := r::text;
    n1 := n1 + 1;
    h1 := h1 + (hashtext(t) & 2147483647);
    g1 := g1 + (hashtextextended(t, 1) & 2147483647);
  END LOOP;
  PERFORM set_config('ossd.enabled', 'off', false);
  FOR r IN EXECUTE q LOOP
    t := r::text;
    n2 := n2 + 1;
    h2 := h2 + (hashtext(t) & 2147483647);
    g2 := g2 + (hashtextextended(t, 1) & 2147483647);
  END LOOP;
  PERFORM set_config('ossd.enabled', saved, false);
  n_rows := n1;
  same := n1 = n2 AND h1 = h2 AND g1 = g2;
END
$$;

-- Where the plan evaluates a qual of qt, how many rows pass, and whether
-- the rows and the aggregate over them match offload off.
CREATE FUNCTION qual_check(qual text, OUT n_rows bigint, OUT device text,
                           OUT host text, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
  rows_same boolean;
  agg_same boolean;
  q text := 'SELECT id FROM qt WHERE ' || qual;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ '^ *Device Filter: ' THEN
      device := regexp_replace(ln, '^ *Device Filter: ', '');
    ELSIF ln ~ '^ *Filter: ' THEN
      host := regexp_replace(ln, '^ *Filter: ', '');
    END IF;
  END LOOP;
  SELECT c.n_rows, c.same INTO n_rows, rows_same FROM offload_same_hashed(q) c;
  SELECT c.same INTO agg_same
    FROM offload_same_hashed('SELECT count(*), sum(id) FROM qt WHERE ' || qual) c;
  same := rows_same AND agg_same;
END
$$;

-- The error a query raises (or 'no error') with offload on and off.
CREATE FUNCTION offload_error(q text, OUT offloaded text, OUT not_offloaded text,
                              OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  saved text := current_setting('ossd.enabled');
BEGIN
  BEGIN
    EXECUTE q;
    offloaded := 'no error';
  EXCEPTION WHEN OTHERS THEN
    offloaded := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('ossd.enabled', 'off', false);
  BEGIN
    EXECUTE q;
    not_offloaded := 'no error';
  EXCEPTION WHEN OTHERS THEN
    not_offloaded := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('ossd.enabled', saved, false);
  same := offloaded = not_offloaded;
END
$$;

-- ===================================================================
-- Test data: every type the drive knows, NULLs, extremes and special
-- values, deterministic (arithmetic on the row number)
-- ===================================================================
CREATE TABLE qt (
  id  int4,
  i2  int2,
  i4  int4,
  i8  int8,
  f4  float4,
  f8  float8,
  n   numeric,
  nf  numeric(10,2),
  t   text,
  vc  varchar(12),
  c   char(5),
  d   date,
  ts  timestamp,
  tz  timestamptz,
  b   bool,
  iv  interval
);
INSERT INTO qt
SELECT i,
       CASE WHEN i % 53 = 0 THEN NULL WHEN i = 1 THEN 32767 WHEN i = 2 THEN -32768
            ELSE i % 200 - 100 END,
       CASE WHEN i % 59 = 0 THEN NULL WHEN i = 3 THEN 2147483647 WHEN i = 4 THEN -2147483648
            ELSE (i * 7) % 10007 - 5000 END,
       CASE WHEN i % 61 = 0 THEN NULL WHEN i = 5 THEN 9223372036854775807
            WHEN i = 6 THEN -9223372036854775808 ELSE i::int8 * 1000003 - 10000000000 END,
       CASE WHEN i % 67 = 0 THEN NULL WHEN i % 1000 = 7 THEN 'NaN'::float4
            WHEN i = 8 THEN 'Infinity' WHEN i = 9 THEN '-Infinity'
            WHEN i % 997 = 0 THEN '-0'::float4 ELSE (i % 1000) / 8.0 - 60 END,
       CASE WHEN i % 71 = 0 THEN NULL WHEN i % 1000 = 17 THEN 'NaN'::float8
            WHEN i = 18 THEN 'Infinity' WHEN i = 19 THEN '-Infinity' WHEN i = 20 THEN 1e308
            WHEN i = 21 THEN 5e-324 WHEN i % 991 = 0 THEN '-0'::float8
            ELSE (i % 3000) / 3.0 - 500 END,
       CASE WHEN i % 73 = 0 THEN NULL WHEN i % 1000 = 27 THEN 'NaN'::numeric
            WHEN i = 28 THEN 'Infinity' WHEN i = 29 THEN '-Infinity'
            WHEN i = 30 THEN 1e40 WHEN i = 31 THEN -1e40 WHEN i = 32 THEN 1e-40
            WHEN i = 33 THEN 123456789012345678.123456789
            WHEN i % 3 = 0 THEN ((i % 1000) - 500)::numeric / 8
            WHEN i % 3 = 1 THEN round(((i % 1000) - 500)::numeric / 8, 1)
            ELSE ((i % 1000) - 500)::numeric(12, 4) / 8 END,
       CASE WHEN i % 79 = 0 THEN NULL ELSE (i % 10000 - 5000) / 100.0 END,
       CASE WHEN i % 83 = 0 THEN NULL
            WHEN i % 100 = 1 THEN (ARRAY['', 'a%b', 'a_b', 'a\b', 'ÄÖ', 'naïve', '日本語', 'A%B', 'x'])[i / 100 % 9 + 1]
            ELSE 'v' || (i % 500) END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE 'w' || (i % 300) || (ARRAY['', ' ', '  '])[i % 3 + 1] END,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (ARRAY['ab', 'ab ', 'abc', 'a', '', 'abcde', 'x y'])[i % 7 + 1] END,
       CASE WHEN i % 101 = 0 THEN NULL WHEN i = 34 THEN 'infinity'::date WHEN i = 35 THEN '-infinity'::date
            WHEN i = 36 THEN '4713-01-01 BC'::date WHEN i = 37 THEN '5874897-12-31'::date
            ELSE date '2000-01-01' + (i % 5000 - 2500) END,
       CASE WHEN i % 103 = 0 THEN NULL WHEN i = 38 THEN 'infinity'::timestamp
            WHEN i = 39 THEN '-infinity'::timestamp
            ELSE timestamp '2000-01-01' + i * interval '37 minutes 13 seconds' END,
       CASE WHEN i % 107 = 0 THEN NULL WHEN i = 40 THEN 'infinity'::timestamptz
            ELSE timestamptz '2000-01-01 00:00:00+00' + i * interval '41 minutes 7 seconds' END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END,
       i * interval '1 minute'
FROM generate_series(1, 8000) i;
VACUUM (FREEZE, ANALYZE) qt;
CHECKPOINT;
SET ossd.force_offload = on;
-- the drive scans every block of qt
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE i4 < 0;
SELECT * FROM offload_check($$SELECT * FROM qt WHERE i4 < 0$$);
SELECT * FROM offload_check($$SELECT * FROM qt$$);

-- ===================================================================
-- Integers: int2, int4, int8, cross-type, extremes
-- ===================================================================
SELECT v.qual, c.* FROM (VALUES
  ('i2 = 5'), ('i2 <> 5'), ('i2 < 5'), ('i2 <= 5'), ('i2 > 5'), ('i2 >= 5'),
  ('i2 = 32767'), ('i2 = -32768'), ('i2 < -32767'),
  ('i4 = 7'), ('i4 <> 7'), ('i4 < -4990'), ('i4 <= -4990'), ('i4 > 4990'), ('i4 >= 4990'),
  ('i4 = 2147483647'), ('i4 = -2147483648'), ('i4 > 2147483646'),
  ('i8 = 90000027'), ('i8 < -9999000000'), ('i8 > 9000000000'),
  ('i8 = 9223372036854775807'), ('i8 = -9223372036854775808'),
  ('i2 < 5::int8'), ('i2 = 70000'), ('i2 < 70000'), ('i4 > 3000000000'), ('i4 < 5::int2'),
  ('i8 > 5::int2'), ('i8 < i4'), ('i2 = i4'), ('i4 <> i8'), ('i2 < i2'), ('5 > i4'), ('-3 <= i2'),
  ('i4 BETWEEN -10 AND 10'), ('i4 NOT BETWEEN -4990 AND 4990'), ('i4 BETWEEN 10 AND -10'),
  ('i4 BETWEEN SYMMETRIC 10 AND -10'), ('i2 BETWEEN i2 AND 5')
) v(qual), LATERAL qual_check(v.qual) c;
-- a cast of the column is a function call, not a column: on the host
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE i4::int8 < 5 AND i2::int4 > 3;
-- arithmetic on columns stays on the host (with a pushed neighbour)
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE i4 + 1 < 5 AND i2 > 3;
SELECT v.qual, c.* FROM (VALUES
  ('i4::int8 < 5'), ('i2::int4 > 3'), ('i4 / 2 < 5'), ('i4 % 10 = 3'), ('i2 / 2 > 40'),
  ('i2 % 7 = 3'), ('i2 % 2 = 0 AND i4 > 0'), ('i4::numeric < 5.5'), ('i4 < 5.5'),
  ('i4::float8 > 4999.5'), ('i8::text = ''90000027''')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- IN, NOT IN, = ANY, <> ALL, < ANY: lists of up to 256 constants
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE i4 IN (1, 2, 3) AND i2 NOT IN (5, 6);
SELECT v.qual, c.* FROM (VALUES
  ('i4 IN (1, 2, 3, 7, 14, 21)'), ('i4 NOT IN (1, 2, 3)'), ('i2 IN (5)'), ('i2 IN (5, NULL)'),
  ('i2 NOT IN (5, NULL)'), ('i2 NOT IN (5, 6, 7)'), ('i4 = ANY (ARRAY[7, 14, 21])'),
  ('i4 <> ALL (ARRAY[7, 14, 21])'), ('i4 < ANY (ARRAY[-4990, -4980])'), ('i4 > ALL (ARRAY[4990, 4980])'),
  ('i4 = ANY (NULL::int4[])'), ('i4 = ANY (''{}''::int4[])'), ('i4 <> ALL (''{}''::int4[])'),
  ('i8 IN (90000027, 9223372036854775807)'), ('i2 IN (1::int8, 2::int8)'),
  ('i4 = ANY (ARRAY(SELECT generate_series(1, 3)))'), ('i4 = ANY (''{{1,2},{3,4}}''::int4[])'),
  ('nf IN (1.50, 2.5, -49.99)'), ('t IN (''v1'', ''v2'', ''a%b'')'), ('c IN (''ab'', ''a'')'),
  ('d IN (date ''2000-01-01'', ''infinity'')'), ('f8 IN (0, ''NaN'', ''Infinity'')'),
  ('b IN (true)'), ('t NOT IN (''v1'', NULL)')
) v(qual), LATERAL qual_check(v.qual) c;
-- 256 constants at most
SELECT n_rows, device IS NOT NULL AS on_drive, host IS NOT NULL AS on_host, same
  FROM qual_check('i4 IN (' || (SELECT string_agg(g::text, ',') FROM generate_series(-128, 127) g) || ')');
SELECT n_rows, device IS NOT NULL AS on_drive, host IS NOT NULL AS on_host, same
  FROM qual_check('i4 IN (' || (SELECT string_agg(g::text, ',') FROM generate_series(-128, 128) g) || ')');
SELECT n_rows, device IS NOT NULL AS on_drive, host IS NOT NULL AS on_host, same
  FROM qual_check('t NOT IN (' || (SELECT string_agg(format('''v%s''', g), ',') FROM generate_series(1, 256) g) || ')');

-- ===================================================================
-- NULL tests and boolean columns: three-valued logic on the drive
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM qt WHERE b IS NOT TRUE AND (i2 IS NULL OR NOT (i4 > 0 AND f8 < 0));
SELECT v.qual, c.* FROM (VALUES
  ('i2 IS NULL'), ('i2 IS NOT NULL'), ('f4 IS NULL'), ('n IS NULL'), ('t IS NULL'), ('c IS NOT NULL'),
  ('d IS NULL'), ('ts IS NOT NULL'), ('tz IS NULL'), ('b IS NULL'), ('iv IS NULL'),
  ('b'), ('NOT b'), ('b = true'), ('b <> false'), ('b < true'), ('b IS TRUE'), ('b IS NOT TRUE'),
  ('b IS FALSE'), ('b IS NOT FALSE'), ('b IS UNKNOWN'), ('b IS NOT UNKNOWN'),
  ('(i4 > 0) IS TRUE'), ('(i2 > 0) IS UNKNOWN'), ('(i2 > 0 OR i4 > 0) IS NOT FALSE'),
  ('NOT (i2 > 0)'), ('NOT (i2 > 0 AND i4 > 0)'), ('NOT (i2 > 0 OR i4 > 0)'),
  ('i2 > 0 OR i2 <= 0'), ('i2 > 0 AND i2 <= 0'), ('(i2 > 0 OR i2 <= 0) IS UNKNOWN'),
  ('NOT b OR b IS NULL'), ('b AND i2 IS NULL'), ('b OR i2 IS NULL'),
  ('i2 > 0 AND (i4 < 0 OR (f8 > 100 AND NOT b))'),
  ('(i2 IS NULL) = (i4 IS NULL)'), ('true'), ('NOT false AND i4 < 0'), ('i4 < 0 AND NULL::bool'),
  ('i4 < 0 OR NULL::bool'), ('(i4 < 0 OR NULL::bool) IS NULL'),
  ('i2 < NULL'), ('NOT (i2 = NULL::int2)'), ('i2 IS DISTINCT FROM 5'), ('i2 IS NOT DISTINCT FROM NULL')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- float4 and float8: NaN is equal to itself and above everything,
-- -0 equals 0, infinities, float4 against float8 constants
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE f4 < 10 AND f8 = 'NaN';
SELECT v.qual, c.* FROM (VALUES
  ('f4 < 10'), ('f4 >= 64.875'), ('f4 = 0'), ('f4 = ''-0'''), ('f4 <> 0'), ('f4 = ''NaN'''),
  ('f4 <> ''NaN'''), ('f4 > ''Infinity'''), ('f4 >= ''Infinity'''), ('f4 < ''-Infinity'''),
  ('f4 = ''-Infinity'''), ('f4 < ''NaN'''), ('f4 <= ''NaN'''),
  ('f4 = 0.1'), ('f4 = 0.125'), ('f4 = 0.1::float4'), ('f4 < 0.1::float8'), ('f4 = f8'),
  ('f8 = 0'), ('f8 = ''-0'''), ('f8 > 1e300'), ('f8 > 0 AND f8 < 1e-300'), ('f8 = 5e-324'),
  ('f8 = ''NaN'''), ('f8 > ''Infinity'''), ('f8 = ''Infinity'''), ('f8 = ''-Infinity'''),
  ('f8 BETWEEN -1 AND 1'), ('f8 < 166.333333333333'), ('f8 = 1.0 / 3.0'), ('f8 < f4'),
  ('NOT (f8 < 0)'), ('f8 <> f8'), ('f4 = f4'), ('f8 >= ''NaN'''),
  ('f8 IN (''NaN'', ''-Infinity'')'), ('f8 = -0.0'), ('f4::float8 = 0.1'), ('f8 + 0 < 0')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- numeric: any scale, NaN and infinities, values past 128 bits
-- (the drive hands those rows to the host), fixed-scale columns
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE n < 1.5 AND nf = 12.30;
SELECT v.qual, c.* FROM (VALUES
  ('n = 1.5'), ('n = 1.50'), ('n = 1.500000'), ('n <> 1.5'), ('n < -62'), ('n <= -62.5'), ('n > 62'),
  ('n >= 62.375'), ('n = 0'), ('n = -0.0'), ('n = ''NaN'''), ('n <> ''NaN'''), ('n > 1e39'),
  ('n >= ''Infinity'''), ('n = ''-Infinity'''), ('n < ''-Infinity'''), ('n > ''NaN'''), ('n < ''NaN'''),
  ('n = 1e40'), ('n < -1e39'), ('n > 0 AND n < 1e-39'), ('n = 1e-40'), ('n = 0.0000000000000000000000000000000000000001'),
  ('n = 123456789012345678.123456789'), ('n > 123456789012345678.12345678'),
  ('n > 99999999999999999999999999999999999999'), ('n < 0.000000000000000000000000000000000000001'),
  ('n BETWEEN -1 AND 1'), ('n = nf'), ('n < nf'), ('n IN (1.5, 2.5, ''NaN'')'),
  ('nf = 12.3'), ('nf = 12.30'), ('nf = 12.301'), ('nf < -49.99'), ('nf > 49.9'), ('nf <> 0'),
  ('nf BETWEEN 0.01 AND 0.05'), ('nf < 1e-3'), ('nf > -1e-3 AND nf < 1e-3'), ('nf >= 123456789012345678901234567890'),
  ('nf = 49.99::numeric(4,2)'), ('nf = 50::numeric'), ('nf < ''Infinity'''),
  ('n::float8 < 1.5'), ('n + 0 = 1.5'), ('round(n, 1) = 1.5'), ('n * 2 = 3')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- Text and varchar: equality and order under C (the database's
-- collation), LIKE without escapes, '_' refused in UTF8
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE t LIKE 'v1%' AND vc >= 'w2';
SELECT v.qual, c.* FROM (VALUES
  ('t = ''v7'''), ('t <> ''v7'''), ('t < ''v2'''), ('t <= ''v2'''), ('t > ''v8'''), ('t >= ''v8'''),
  ('t = '''''), ('t < ''a'''), ('t > ''z'''), ('t = ''日本語'''), ('t > ''ÄÖ'''), ('t = ''naïve'''),
  ('t = vc'), ('t < vc'), ('t = ''v7''::varchar'), ('vc = ''w7'''), ('vc = ''w7 '''), ('vc = ''w7  '''),
  ('vc < ''w2'''), ('vc > ''w9'''), ('vc LIKE ''w1%'''), ('vc LIKE ''% '''),
  ('t BETWEEN ''v1'' AND ''v2'''), ('t IN (''v1'', ''v10'')'), ('t = ''V7'''),
  ('t LIKE ''v1%'''), ('t LIKE ''%9'''), ('t LIKE ''%2%'''), ('t LIKE ''v'''), ('t LIKE ''v%%'''),
  ('t LIKE ''%'''), ('t LIKE '''''), ('t NOT LIKE ''v%'''), ('t LIKE ''a%b'''), ('t LIKE ''a%'''),
  ('t LIKE ''%b'''), ('t LIKE ''日%'''), ('t LIKE ''%ï%'''), ('t LIKE ''A%'''),
  ('t LIKE ''v_'''), ('t LIKE ''a_b'''), ('t NOT LIKE ''v_%'''),
  ('t LIKE ''a\%b'''), ('t LIKE ''a\_b'''), ('t LIKE ''a\\b'''), ('t LIKE ''a#%b'' ESCAPE ''#'''),
  ('t LIKE ''v1%'' ESCAPE '''''), ('t LIKE ''a%b'' ESCAPE ''x'''),
  ('t ILIKE ''V1%'''), ('t NOT ILIKE ''v%'''), ('t ~ ''^v1'''), ('t ~* ''^V1'''), ('t SIMILAR TO ''v1%'''),
  ('t LIKE t'), ('''v1'' LIKE t'), ('t || ''x'' = ''v1x'''), ('lower(t) = ''a%b'''), ('length(t) = 0'),
  ('t < ''v2'' COLLATE "C"'), ('t COLLATE "POSIX" > ''v8'''), ('t = ''v7'' COLLATE "und-x-icu"'),
  ('t LIKE ''v1%'' COLLATE "POSIX"'), ('t LIKE ''v1%'' COLLATE "und-x-icu"'),
  ('t < ''v2'' COLLATE "und-x-icu"'), ('t > ''ÄÖ'' COLLATE "C.utf8"')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- char(n): trailing blanks are not significant for comparisons
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE c = 'ab' AND c < 'abd';
SELECT v.qual, c.* FROM (VALUES
  ('c = ''ab'''), ('c = ''ab   '''), ('c = ''ab ''::char(3)'), ('c <> ''ab'''), ('c < ''ab'''),
  ('c <= ''ab'''), ('c > ''ab'''), ('c >= ''abc'''), ('c = '''''), ('c = '' '''), ('c < '' '''),
  ('c = ''x y'''), ('c > ''x'''), ('c = ''abcde'''), ('c = ''abcdef'''), ('c < ''abcdef'''),
  ('c BETWEEN ''a'' AND ''ab'''), ('c = ''ab''::text'), ('c::text = ''ab'''), ('c = vc'),
  ('c LIKE ''ab'''), ('c LIKE ''ab%'''), ('c LIKE ''ab %'''), ('c NOT LIKE ''a%'''),
  ('c < ''ab'' COLLATE "C"'), ('c = ''AB'''), ('octet_length(c) = 3')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- date, timestamp, timestamptz: infinities, dates outside the
-- timestamp range (to the host), date against timestamp, stable
-- cross-type comparisons (timezone dependent: on the host)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE d < date '1995-01-01' AND ts >= d;
SELECT v.qual, c.* FROM (VALUES
  ('d = date ''2000-01-01'''), ('d <> date ''2000-01-01'''), ('d < date ''1995-01-01'''),
  ('d <= date ''1995-01-01'''), ('d > date ''2006-01-01'''), ('d >= ''2006-11-06'''),
  ('d = ''infinity'''), ('d > ''infinity'''), ('d >= ''infinity'''), ('d < ''-infinity'''),
  ('d = ''-infinity'''), ('d < date ''0001-01-01'''), ('d > date ''100000-01-01'''),
  ('d BETWEEN ''2000-01-01'' AND ''2000-01-31'''), ('d IN (''2000-01-01'', ''2000-02-29'')'),
  ('d < timestamp ''1995-01-01 12:00'''), ('d >= timestamp ''2006-11-06 00:00:01'''),
  ('d = timestamp ''2000-01-01 00:00'''), ('d < ''infinity''::timestamp'), ('d > ''-infinity''::timestamp'),
  ('timestamp ''2000-01-01 00:00'' = d'), ('d < ts'), ('d = ts'), ('ts > d'),
  ('d < timestamptz ''1995-01-01 00:00+00'''), ('d < now()'), ('d + 0 > date ''2006-11-06'''),
  ('d < date ''1995-01-01'' + 1'), ('d < date ''1995-01-01'' + interval ''1 day'''),
  ('ts = timestamp ''2000-01-01 00:37:13'''), ('ts < timestamp ''2000-01-02'''),
  ('ts > timestamp ''2014-01-01'''), ('ts >= ''infinity'''), ('ts = ''-infinity'''),
  ('ts BETWEEN ''2005-01-01'' AND ''2005-02-01'''), ('ts > date ''2014-01-01'''),
  ('ts < date ''5874897-12-31'''), ('ts > ''4713-01-01 BC''::date'), ('ts < tz'),
  ('ts > timestamptz ''2014-01-01 00:00+00'''), ('ts::date = date ''2000-01-02'''),
  ('tz = timestamptz ''2000-01-01 00:41:07+00'''), ('tz < timestamptz ''2000-01-02 00:00+00'''),
  ('tz > ''2015-01-01 00:00+05'''), ('tz >= ''infinity'''), ('tz > timestamp ''2015-01-01'''),
  ('tz > date ''2015-01-01'''), ('tz < now()'), ('tz IN (''infinity'', ''2000-01-01 00:41:07+00'')')
) v(qual), LATERAL qual_check(v.qual) c;

-- ===================================================================
-- Mixed: many quals together, some pushed, some not
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM qt WHERE i4 > 0 AND t LIKE 'v1%' AND f8 < 100 AND iv > interval '1 hour' AND length(t) = 3;
SELECT v.qual, c.* FROM (VALUES
  ('i4 > 0 AND t LIKE ''v1%'' AND f8 < 100 AND iv > interval ''1 hour'' AND length(t) = 3'),
  ('(i4 > 0 AND t LIKE ''v1%'') OR (f8 < 100 AND length(t) = 3)'),
  ('i2 > 0 OR iv > interval ''1 day'''),
  ('NOT (i2 > 0 OR iv > interval ''1 day'')'),
  ('i2 > 0 AND (b OR n > 10 OR d < ''1999-01-01'' OR c = ''ab'' OR ts > ''2010-01-01'')'),
  ('(i2, i4) > (0, 0)'), ('(i2, i4) = (5, 12)'), ('ROW(i2, i4) IS NULL'),
  ('CASE WHEN i2 > 0 THEN true ELSE false END'), ('coalesce(i2, 0) > 0'), ('nullif(i2, 5) = 6'),
  ('i2 > 0 AND i4 > 0 AND i8 > 0 AND f4 > 0 AND f8 > 0 AND n > 0 AND nf > 0 AND t > ''v'' AND vc > ''w'' AND c > ''a'' AND d > ''1990-01-01'' AND ts > ''2000-01-01'' AND tz > ''2000-01-01'' AND b')
) v(qual), LATERAL qual_check(v.qual) c;
-- long kernels: a qual that does not fit the drive's limits (each AND or
-- OR takes a slot of the kernel's 512-byte stack) stays on the host
SELECT n_rows, device IS NOT NULL AS on_drive, host IS NOT NULL AS on_host, same
  FROM qual_check((SELECT string_agg(format('i4 <> %s', g), ' AND ') FROM generate_series(1, 200) g));
-- an OR of ANDs in a WHERE clause: NULL goes where FALSE goes, so no
-- AND/OR keeps a "saw NULL" flag and none takes a stack slot: 64 pairs
-- run on the drive; its verifier explores such a kernel in linear time
-- (30 pairs used to be refused by the drive as "program too complex",
-- failing the query)
SELECT n, c.n_rows, c.device IS NOT NULL AS on_drive, c.host IS NOT NULL AS on_host, c.same
  FROM (VALUES (2), (10), (30), (40), (64)) v(n),
  LATERAL qual_check((SELECT string_agg(format('(i2 = %s AND t = ''v%s'')', g, g), ' OR ') FROM generate_series(1, v.n) g)) c;
-- nested three levels deep, NULLs on every level
SELECT n_rows, device IS NOT NULL AS on_drive, host IS NOT NULL AS on_host, same
  FROM qual_check((SELECT string_agg(format('((i2 = %s OR b) AND (f8 > %s OR n < %s OR t IS NULL))', g, g, -g), ' OR ') FROM generate_series(1, 15) g));

-- ===================================================================
-- Kernel modes: the drive's interpreter decides every qual as its JIT
-- does (the same kernels, run by the other engine)
-- ===================================================================
SET ossd.kernel_mode = interpreter;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE i2 = 5 OR t LIKE 'v1%';
SELECT v.qual, c.n_rows, c.device IS NOT NULL AS on_drive, c.same FROM (VALUES
  ('i2 = 5'), ('i2 <> 5'), ('i4 < -4990'), ('i8 > 9000000000'), ('i8 = -9223372036854775808'),
  ('i2 < 5::int8'), ('i4 > 3000000000'), ('i8 < i4'), ('i4 BETWEEN -10 AND 10'),
  ('i4 IN (1, 2, 3, 7, 14, 21)'), ('i2 NOT IN (5, NULL)'), ('i4 <> ALL (ARRAY[7, 14, 21])'),
  ('b IS NOT TRUE'), ('b IS UNKNOWN'), ('NOT (i2 > 0 AND i4 > 0)'), ('(i2 > 0 OR i4 > 0) IS NOT FALSE'),
  ('f4 = ''NaN'''), ('f4 = ''-0'''), ('f8 > ''Infinity'''), ('f8 = 5e-324'), ('f4 < 0.1::float8'),
  ('n = 1.500000'), ('n > 123456789012345678.12345678'), ('nf BETWEEN 0.01 AND 0.05'), ('n = nf'),
  ('t LIKE ''%2%'''), ('t NOT LIKE ''v%'''), ('t LIKE ''%ï%'''), ('t = ''日本語'''), ('t < vc'),
  ('vc = ''w7 '''), ('c = ''ab   '''), ('c < ''abcdef'''), ('c = vc'),
  ('d >= ''infinity'''), ('d > date ''100000-01-01'''), ('d < timestamp ''1995-01-01 12:00'''),
  ('ts < date ''5874897-12-31'''), ('ts = ''-infinity'''), ('tz IN (''infinity'', ''2000-01-01 00:41:07+00'')'),
  ('i2 > 0 AND (b OR n > 10 OR d < ''1999-01-01'' OR c = ''ab'' OR ts > ''2010-01-01'')')
) v(qual), LATERAL qual_check(v.qual) c;
SELECT n_rows, device IS NOT NULL AS on_drive, same
  FROM qual_check((SELECT string_agg(format('(i2 = %s AND t = ''v%s'')', g, g), ' OR ') FROM generate_series(1, 30) g));
RESET ossd.kernel_mode;

-- ===================================================================
-- Errors: the same error whether the drive filtered first or not
-- ===================================================================
SELECT v.q, e.* FROM (VALUES
  ('SELECT id FROM qt WHERE i4 > 0 AND i4 * 1000000 > 0'),
  ('SELECT id FROM qt WHERE i2 > 90 AND (i2 * 1000)::int2 > 0'),
  ('SELECT id FROM qt WHERE i8 > 0 AND i8 + i8 > 0'),
  ('SELECT id FROM qt WHERE i4 > 0 AND 100 / (i4 - 7) > 0'),
  ('SELECT id FROM qt WHERE i4 <> 7 AND 100 / (i4 - 7) > 0'),
  ('SELECT id FROM qt WHERE i2 IS NOT NULL AND 1 / i2 > 0'),
  ('SELECT id FROM qt WHERE n > 0 AND n / 0 > 1'),
  ('SELECT id FROM qt WHERE f8 > 0 AND f8 / 0 > 1'),
  ('SELECT id FROM qt WHERE f8 > 1e300 AND f8 * 10 > 0'),
  ('SELECT id FROM qt WHERE n > 1e39 AND n::int8 > 0'),
  -- (one value fails, 'a%b': which of several fails first would depend on
  -- the order rows come in, which an array of drives changes)
  ('SELECT id FROM qt WHERE t LIKE ''a\%%'' AND t::int4 > 0'),
  ('SELECT id FROM qt WHERE t = ''v7'' AND t::int4 > 0'),
  ('SELECT id FROM qt WHERE d > ''3000-01-01'' AND d::timestamp > ''2000-01-01'''),
  ('SELECT id FROM qt WHERE i4 = 2147483647 AND i4 + 1 > 0'),
  ('SELECT id FROM qt WHERE i4 + 1 < 5'),
  ('SELECT id FROM qt WHERE -i4 > 4000'),
  ('SELECT id FROM qt WHERE i2 * 2 = 10 AND i4 > 0'),
  ('SELECT id FROM qt WHERE i4 < 0 AND abs(i4) > 4000'),
  ('SELECT id FROM qt WHERE i4 > 0 AND d + 1 > ''2000-01-01'''),
  ('SELECT i4 + 1 FROM qt WHERE i4 > 2147483600'),
  ('SELECT i2 * i2 FROM qt WHERE i2 < -32000'),
  ('SELECT 1 / i4 FROM qt WHERE i4 IN (0, 1)'),
  ('SELECT id FROM qt WHERE t ~ ''('''),
  ('SELECT id FROM qt WHERE t LIKE ''v1\'''),
  ('SELECT id FROM qt WHERE i4 < 0 AND t LIKE ''v1\'''),
  ('SELECT id FROM qt WHERE t LIKE ''ab\'''),
  ('SELECT id FROM qt WHERE t LIKE ''a%'' ESCAPE ''ab'''),
  ('SELECT id FROM qt WHERE i4 > 0 AND sqrt(f8) > 1'),
  ('SELECT id FROM qt WHERE f8 > 0 AND sqrt(f8) > 1'),
  ('SELECT id FROM qt WHERE i4 > 0 AND i4 < ''x''::int4'),
  ('SELECT count(*) FROM qt WHERE i4 > 0 AND i4 * 1000000 > 0'),
  ('SELECT sum(i4 * 1000000) FROM qt WHERE i4 > 0'),
  ('SELECT sum(i8) FROM qt WHERE i8 > 0'),
  ('SELECT sum(i8 + 1) FROM qt WHERE i8 > 0')
) v(q), LATERAL offload_error(v.q) e;
-- SQL does not fix the order in which a scan's quals are evaluated.
-- The drive's filter runs before the host's quals: a host qual that would
-- raise an error on a row the drive's filter removes does not raise it.
-- Offload can avoid an error this way, never add one (the host keeps its
-- quals' order, after the drive's); here the plain scan evaluates the
-- LIKE first, as written (both cost the same), and fails on 'v1...'
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM qt WHERE t LIKE 'v1\' AND i4 < -100000;
SELECT * FROM offload_error($$SELECT id FROM qt WHERE t LIKE 'v1\' AND i4 < -100000$$);

-- ===================================================================
-- substring(x FROM s FOR n) / substr(x, s, n) / substring(x, s) of a
-- text, varchar or char(n) column at constant positions, compared with
-- a constant or in an IN list: helper 23 selects the characters
-- (UTF-8 in this database) and compares them bytewise.  Positions are
-- PostgreSQL's (a start below 1 shortens the take, a start past the
-- end gives ''); a negative length is PostgreSQL's error, raised by the
-- host; non-constant positions and ordering under a non-C collation
-- stay on the host.
-- ===================================================================
SELECT getdatabaseencoding();
CREATE TABLE st (
  id  int4,
  t   text,
  vc  varchar(20),
  ph  char(15)
);
INSERT INTO st
SELECT i,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE (ARRAY['żółw', '日本語', 'abc', 'ab  ', '', 'a', 'xyz12', 'Zebra', 'naïve', 'b'])[i % 10 + 1]
                 || CASE WHEN i % 3 = 0 THEN (i % 7)::text ELSE '' END END,
       CASE WHEN i % 41 = 0 THEN NULL ELSE 'w' || (i % 300) END,
       CASE WHEN i % 43 = 0 THEN NULL
            WHEN i % 11 = 0 THEN (ARRAY['ab', 'ab c', '日本', ' '])[i % 4 + 1]
            ELSE format('%s-%s-%s-%s', 10 + i % 25, lpad((i * 7 % 1000)::text, 3, '0'),
                        lpad((i * 13 % 1000)::text, 3, '0'), lpad((i % 10000)::text, 4, '0')) END
FROM generate_series(1, 6000) i;
VACUUM (FREEZE, ANALYZE) st;
CHECKPOINT;
-- TPC-H Q22's country codes on a char(15) column: the IN list on the drive
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM st WHERE substring(ph FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17');
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17')$$);
-- and Q22's aggregate over them: the filter and the aggregate on the drive
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(id) FROM st WHERE substring(ph FROM 1 FOR 2) IN ('13', '31', '23');
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM st WHERE substring(ph FROM 1 FOR 2) IN ('13', '31', '23')$$);
-- an IN list on a text column, multibyte first characters
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM st WHERE substr(t, 1, 1) IN ('ż', '日', 'a');
SELECT * FROM offload_check($$SELECT id FROM st WHERE substr(t, 1, 1) IN ('ż', '日', 'a')$$);
-- characters, not bytes: 'ół' are the second and third of 'żółw'
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 2, 2) = 'ół';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 2, 2) = 'ół'$$);
-- the two-argument form: to the end
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t FROM 2) = '本語';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t FROM 2) = '本語'$$);
-- start 0 keeps one character less: substring(t, 0, 3) is t's first two
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 0, 3) = 'ab';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 0, 3) = 'ab'$$);
-- a negative start likewise: S = -1, L = 4 are characters 1 and 2
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, -1, 4) = 'ab';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, -1, 4) = 'ab'$$);
-- start + length below 1, and length 0: the empty string (for every row
-- but the NULLs)
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, -5, 3) = '';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, -5, 3) = ''$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substr(t, 2, 0) = '';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substr(t, 2, 0) = ''$$);
-- a start past the end: '' too
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t FROM 6) = '';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t FROM 6) = ''$$);
-- a length past the end, and one whose end overflows int4: to the end
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 3, 2147483647) = 'c';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 3, 2147483647) = 'c'$$);
-- ordering (C collation: bytes), the constant on either side
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 1, 2) < 'b' AND 'ż' <= substr(t, 1, 1);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 1, 2) < 'b'$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE 'ż' <= substr(t, 1, 1)$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE 'ab' > substring(t, 1, 3)$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 2) >= '本'$$);
-- char(n): the cast to text drops the trailing blanks first, so of 'ab'
-- (stored 'ab' and 13 blanks) the first five characters are 'ab' and
-- from the second on it is 'b'; ' ' becomes ''
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(ph, 1, 5) = 'ab';
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph, 1, 5) = 'ab'$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph FROM 2) = 'b'$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph FROM 2) = 'b c'$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph, 1, 3) = ''$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substr(ph, 2, 1) = '本'$$);
-- text keeps its trailing blanks: 'ab  ' from the second character
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t FROM 2) = 'b  '$$);
-- varchar (relabeled to text)
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substr(vc, 2, 2) IN ('29', '7');
SELECT * FROM offload_check($$SELECT id FROM st WHERE substr(vc, 2, 2) IN ('29', '7')$$);
-- NULLs: a NULL column is a NULL substring, three-valued under NOT and IS
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE NOT (substring(t, 1, 1) = 'a');
SELECT * FROM offload_check($$SELECT id FROM st WHERE NOT (substring(t, 1, 1) = 'a')$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE (substring(t, 1, 1) = 'a') IS UNKNOWN$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph, 1, 2) NOT IN ('13', '31')$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph, 1, 2) IN ('13', NULL)$$);
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(ph, 1, 2) NOT IN ('13', NULL)$$);
-- a CASE condition of an aggregate's map kernel
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(CASE WHEN substring(t, 1, 1) = 'a' THEN 1 ELSE 0 END) FROM st WHERE id > 10;
SELECT * FROM offload_check($$SELECT sum(CASE WHEN substring(t, 1, 1) = 'a' THEN 1 ELSE 0 END) FROM st WHERE id > 10$$);
-- equality under a deterministic non-C collation compares bytes: pushed;
-- ordering under it is the collation's: on the host
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 1, 2) = 'ab' COLLATE "und-x-icu";
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 1, 2) = 'ab' COLLATE "und-x-icu"$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 1, 2) < 'b' COLLATE "und-x-icu";
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 1, 2) < 'b' COLLATE "und-x-icu"$$);
-- a negative length is an error: on the host, which raises it
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 2, -1) = 'a';
SELECT * FROM offload_error($$SELECT id FROM st WHERE substring(t, 2, -1) = 'a'$$);
-- on the host: positions from a column, a substring compared with a
-- column or with another substring, LIKE of a substring (each beside a
-- pushed qual)
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, id % 3 + 1, 1) = 'a' AND id > 0;
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, id % 3 + 1, 1) = 'a' AND id > 0$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(vc, 1, 1) < t AND id > 0;
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(vc, 1, 1) < t AND id > 0$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substr(t, 3, 1) = substr(t, 4, 1) AND id > 0;
SELECT * FROM offload_check($$SELECT id FROM st WHERE substr(t, 3, 1) = substr(t, 4, 1) AND id > 0$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM st WHERE substring(t, 1, 2) LIKE 'a%' AND id > 0;
SELECT * FROM offload_check($$SELECT id FROM st WHERE substring(t, 1, 2) LIKE 'a%' AND id > 0$$);
-- prepared statements: a custom plan folds the parameter into a
-- constant (pushed), a generic plan keeps the Param (on the host)
PREPARE st_p(int4) AS SELECT id FROM st WHERE substring(t, $1, 2) = 'bc';
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE st_p(2);
CREATE TEMP TABLE st_custom AS EXECUTE st_p(2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE st_p(2);
CREATE TEMP TABLE st_generic AS EXECUTE st_p(2);
RESET plan_cache_mode;
SET ossd.enabled = off;
CREATE TEMP TABLE st_off AS SELECT id FROM st WHERE substring(t, 2, 2) = 'bc';
RESET ossd.enabled;
SELECT (SELECT count(*) FROM st_off) AS n_rows,
       NOT EXISTS (TABLE st_custom EXCEPT ALL TABLE st_off) AND
       NOT EXISTS (TABLE st_off EXCEPT ALL TABLE st_custom) AS custom_same,
       NOT EXISTS (TABLE st_generic EXCEPT ALL TABLE st_off) AND
       NOT EXISTS (TABLE st_off EXCEPT ALL TABLE st_generic) AS generic_same;
DEALLOCATE st_p;
DROP TABLE st_custom, st_generic, st_off;
-- the same cases on qt, rows and aggregates against offload off
SELECT v.qual, c.* FROM (VALUES
  ('substring(t, 1, 2) = ''v1'''), ('substr(t, 2) = ''7'''), ('substring(t FROM 2 FOR 2) IN (''1'', ''42'', ''本語'')'),
  ('substring(t, 1, 1) > ''v'''), ('substring(vc, 2, 2) <= ''12'''), ('substring(c, 2) = ''b'''),
  ('substring(c, 1, 2) = ''ab'''), ('substr(c, 3, 5) = '''''), ('substring(t, 0) = ''naïve'''),
  ('substring(t, -3, 5) = ''a'''), ('substring(t, 3, 0) = '''''), ('substring(t, 1, 1) = ''Ä'''),
  ('substring(t, 3, 1) = ''ï'' AND i4 > -5000'), ('substring(t, 1, 2) = ''v1'' OR substring(vc, 1, 2) = ''w1''')
) v(qual), LATERAL qual_check(v.qual) c;
DROP TABLE st;

RESET ossd.force_offload;
DROP TABLE qt;
DROP FUNCTION qual_check(text);
DROP FUNCTION offload_error(text);
DROP FUNCTION offload_same_hashed(text);

-- ===================================================================
-- substring() in other server encodings: in a single-byte one (LATIN1)
-- its characters are bytes (on the drive: 'é' is one byte there, which
-- as a UTF-8 lead byte would start a sequence of three); in a multibyte
-- one other than UTF8 (EUC_JP) it stays on the host
-- ===================================================================
CREATE DATABASE regress_ossd_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C';
CREATE DATABASE regress_ossd_eucjp TEMPLATE template0 ENCODING 'EUC_JP' LC_COLLATE 'C' LC_CTYPE 'C';
\c regress_ossd_latin1
-- this file is UTF-8 (psql would take it as the database's encoding)
SET client_encoding = 'UTF8';
CREATE EXTENSION pg_ossd;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.force_offload = on;
SELECT getdatabaseencoding();
CREATE TABLE sb (id int4, t text);
INSERT INTO sb SELECT i, (ARRAY['éxy', 'àb', 'xéz', 'ü', 'éé'])[i % 5 + 1] FROM generate_series(1, 3000) i;
VACUUM (FREEZE, ANALYZE) sb;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM sb WHERE substring(t, 2, 1) IN ('x', 'é', 'b');
CREATE TEMP TABLE scans0 AS SELECT device, value FROM ossd_device_stats() WHERE name = 'scans';
CREATE TEMP TABLE sb_on AS SELECT id FROM sb WHERE substring(t, 2, 1) IN ('x', 'é', 'b');
SELECT bool_or(s.value > s0.value) AS drive_scanned
  FROM ossd_device_stats() s JOIN scans0 s0 USING (device) WHERE s.name = 'scans';
SET ossd.enabled = off;
CREATE TEMP TABLE sb_off AS SELECT id FROM sb WHERE substring(t, 2, 1) IN ('x', 'é', 'b');
RESET ossd.enabled;
SELECT (SELECT count(*) FROM sb_off) AS n_rows,
       NOT EXISTS (TABLE sb_on EXCEPT ALL TABLE sb_off) AND
       NOT EXISTS (TABLE sb_off EXCEPT ALL TABLE sb_on) AS same;
\c regress_ossd_eucjp
CREATE EXTENSION pg_ossd;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.force_offload = on;
SELECT getdatabaseencoding();
CREATE TABLE mb (id int4, t text);
INSERT INTO mb SELECT i, 'abc' || i FROM generate_series(1, 100) i;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM mb WHERE substring(t, 2, 2) = 'bc' AND id > 0;
\c regress_ossd
DROP DATABASE regress_ossd_latin1;
DROP DATABASE regress_ossd_eucjp;
