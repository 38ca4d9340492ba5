--
-- ossd_types: the comparison semantics of each type the drive evaluates,
-- at the edges of its domain: int2/int4/int8 at their limits (and
-- cross-type against constants outside the column's range), numeric of
-- mixed scales, NaN and values past 128 bits, float4/float8 with -0, NaN,
-- +-Infinity and denormals, char(n) padding, varchar and text with
-- non-ASCII bytes (C collation), dates and timestamps at their limits
-- and +-infinity.  Then min/max/sum/count pushed down to the drive over
-- the same extreme values.
--
-- cmp_matrix(tab, col, constants) runs "SELECT id FROM tab WHERE col OP c"
-- for every comparison operator and every constant, with offload forced,
-- and says for each whether the qual went to the drive (Device Filter),
-- how many rows matched and whether the rows are the same with
-- ossd.enabled = off.  A single "f" in column "same" is a wrong answer.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
-- the tables are small (a few pages): let the drive scan them anyway
SET ossd.min_relation_pages = 0;

-- The rows of q with offload forced and with ossd.enabled = off: whether
-- the drive evaluated the qual, the count, and whether both are the same
-- multiset.
CREATE FUNCTION both_ways(q text, OUT on_drive boolean, OUT n_rows bigint,
                          OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  ln text;
  a text[] := '{}';
  b text[] := '{}';
BEGIN
  PERFORM set_config('ossd.force_offload', 'on', true);
  on_drive := false;
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ '(Device Filter|Device Partial Aggregates)' THEN
      on_drive := true;
    END IF;
  END LOOP;
  FOR r IN EXECUTE q LOOP
    a := a || r::text;
  END LOOP;
  PERFORM set_config('ossd.force_offload', 'off', true);
  PERFORM set_config('ossd.enabled', 'off', true);
  FOR r IN EXECUTE q LOOP
    b := b || r::text;
  END LOOP;
  PERFORM set_config('ossd.enabled', 'on', true);
  n_rows := cardinality(a);
  same := (SELECT array_agg(x ORDER BY x) FROM unnest(a) x) IS NOT DISTINCT FROM
          (SELECT array_agg(x ORDER BY x) FROM unnest(b) x);
END
$$;

-- Every comparison operator against every constant (given as SQL
-- literals, casts included)
CREATE FUNCTION cmp_matrix(tab text, col text, consts text[])
RETURNS TABLE (op text, c text, on_drive boolean, n_rows bigint, same boolean)
LANGUAGE plpgsql AS $$
BEGIN
  FOREACH c IN ARRAY consts LOOP
    FOREACH op IN ARRAY ARRAY['=', '<>', '<', '<=', '>', '>='] LOOP
      SELECT w.on_drive, w.n_rows, w.same INTO on_drive, n_rows, same
        FROM both_ways(format('SELECT id FROM %I WHERE %I %s %s', tab, col, op, c)) w;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END
$$;

-- ===================================================================
-- integers at their limits; constants of the other widths, in and out
-- of the column's range (cross-type operators)
-- ===================================================================
CREATE TABLE ty_int (id int4, i2 int2, i4 int4, i8 int8);
INSERT INTO ty_int VALUES
  (1, -32768, -2147483648, -9223372036854775808),
  (2, -32767, -2147483647, -9223372036854775807),
  (3, -1, -1, -1), (4, 0, 0, 0), (5, 1, 1, 1),
  (6, 32766, 2147483646, 9223372036854775806),
  (7, 32767, 2147483647, 9223372036854775807),
  (8, NULL, NULL, NULL);
INSERT INTO ty_int SELECT 100 + g, g % 1000, g * 1000, g::int8 * 1000000000000
  FROM generate_series(1, 2000) g;
VACUUM (FREEZE, ANALYZE) ty_int;
CHECKPOINT;
-- the drive compares an int2 column with an int4 constant
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM ty_int WHERE i2 >= 32767::int4;
SELECT id FROM ty_int WHERE i2 >= 32767::int4 ORDER BY id;
RESET ossd.force_offload;
SELECT * FROM cmp_matrix('ty_int', 'i2',
  ARRAY['(-32768)::int2', '32767::int2', '32768::int4', '(-32769)::int8']);
SELECT * FROM cmp_matrix('ty_int', 'i4',
  ARRAY['-2147483648', '2147483647', '2147483648::int8', '32767::int2']);
SELECT * FROM cmp_matrix('ty_int', 'i8',
  ARRAY['(-9223372036854775808)::int8', '9223372036854775807::int8', '(-2147483648)::int4']);
-- the extremes through aggregate pushdown: sum(int8) is numeric and does
-- not overflow, sum(int4) is int8
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT min(i2), max(i2), min(i4), max(i4), min(i8), max(i8), sum(i2), sum(i4), sum(i8), count(i8)
  FROM ty_int WHERE id < 100;
SELECT min(i2), max(i2), min(i4), max(i4), min(i8), max(i8), sum(i2), sum(i4), sum(i8), count(i8)
  FROM ty_int WHERE id < 100;
RESET ossd.force_offload;
SELECT * FROM both_ways($$SELECT min(i2), max(i2), min(i4), max(i4), min(i8), max(i8),
  sum(i2), sum(i4), sum(i8), avg(i8), count(*) FROM ty_int$$);
SELECT * FROM both_ways($$SELECT i2 % 3 AS g, min(i8), max(i8), sum(i8), sum(i4), count(*)
  FROM ty_int WHERE i8 < 0 OR i8 > 9223372036854775000 GROUP BY 1$$);

-- ===================================================================
-- numeric: one value at many scales compares equal; NaN equals NaN and
-- is above every number; values far beyond 128 bits and far below 1.
-- A constant the drive's numeric format cannot hold (NaN, 1e-100)
-- keeps its qual on the host (on_drive f); the answers agree either way
-- ===================================================================
CREATE TABLE ty_num (id int4, n numeric, n2 numeric(12,2));
INSERT INTO ty_num VALUES
  (1, 1, 1), (2, 1.0, 1.00), (3, 1.000000000000000000000001, 1.01),
  (4, 0.999999999999999999999999, 0.99), (5, 0, 0), (6, -0.0, -0.00),
  (7, 'NaN', NULL), (8, 'NaN', 'NaN'),
  (9, 1e100, 9999999999.99), (10, -1e100, -9999999999.99),
  (11, 1e-100, 0.01), (12, -1e-100, -0.01),
  (13, 123456789012345678901234567890.123456789, 1234567890.12),
  (14, -123456789012345678901234567890.123456789, -1234567890.12),
  (15, NULL, NULL);
INSERT INTO ty_num SELECT 100 + g, g / 7.0, g / 3.0 FROM generate_series(1, 2000) g;
VACUUM (FREEZE, ANALYZE) ty_num;
CHECKPOINT;
SELECT * FROM cmp_matrix('ty_num', 'n',
  ARRAY['1.0000', '''NaN''::numeric', '1e-100',
        '123456789012345678901234567890.123456789']);
SELECT * FROM cmp_matrix('ty_num', 'n2',
  ARRAY['1', '1.005', '''NaN''::numeric']);
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT min(n2), max(n2), sum(n2), count(n2) FROM ty_num;
SELECT min(n2), max(n2), sum(n2), count(n2) FROM ty_num;
RESET ossd.force_offload;
SELECT * FROM both_ways($$SELECT min(n2), max(n2), sum(n2), avg(n2), count(n2) FROM ty_num$$);
SELECT * FROM both_ways($$SELECT sum(n), avg(n), count(n) FROM ty_num WHERE id < 100$$);
SELECT * FROM both_ways($$SELECT sum(n), count(*) FROM ty_num WHERE n <> 'NaN' AND id < 100$$);

-- ===================================================================
-- float4 / float8: -0 = 0, NaN = NaN and NaN above +Infinity, the
-- smallest normal and denormal values, float4 against float8 constants
-- ===================================================================
CREATE TABLE ty_flt (id int4, f4 float4, f8 float8);
INSERT INTO ty_flt VALUES
  (1, '-0', '-0'), (2, '0', '0'), (3, 'NaN', 'NaN'),
  (4, 'Infinity', 'Infinity'), (5, '-Infinity', '-Infinity'),
  (6, 1.17549435e-38, 2.2250738585072014e-308), (7, 1.4e-45, 4.9e-324),
  (8, 3.4028235e38, 1.7976931348623157e308), (9, -3.4028235e38, -1.7976931348623157e308),
  (10, 0.1, 0.1), (11, NULL, NULL);
INSERT INTO ty_flt SELECT 100 + g, g / 8.0 - 100, g / 3.0 - 300 FROM generate_series(1, 2000) g;
VACUUM (FREEZE, ANALYZE) ty_flt;
CHECKPOINT;
SELECT * FROM cmp_matrix('ty_flt', 'f4',
  ARRAY['''-0''::float4', '''NaN''::float4', '''Infinity''::float4', '0.1::float8',
        '1.4e-45::float4']);
SELECT * FROM cmp_matrix('ty_flt', 'f8',
  ARRAY['''-0''::float8', '''NaN''::float8', '''-Infinity''::float8', '4.9e-324::float8']);
-- the row order of -0 and 0 and of NaN from the drive and the host
SET ossd.force_offload = on;
SELECT id, f4, f8 FROM ty_flt WHERE id < 100 AND f8 >= 0 ORDER BY f8, id;
RESET ossd.force_offload;

-- ===================================================================
-- char(n) pads with spaces and compares without them; varchar and text
-- do not; non-ASCII text (UTF-8 multibyte) compared byte by byte in the
-- C collation
-- ===================================================================
CREATE TABLE ty_str (id int4, c char(6), v varchar(10), t text);
INSERT INTO ty_str VALUES
  (1, 'ab', 'ab', 'ab'), (2, 'ab  ', 'ab  ', 'ab  '), (3, '', '', ''),
  (4, 'abc', 'abc', 'abc'), (5, 'b', 'b', 'b'),
  (6, 'é', 'é', 'é'), (7, 'e', 'e', 'e'), (8, 'ü', 'ü', 'ü'),
  (9, '日本', '日本', '日本語'), (10, 'z', 'z', 'z'), (11, 'Z', 'Z', 'Z'),
  (12, NULL, NULL, NULL), (13, 'a%b', 'a%b', 'a%b'), (14, 'a_b', 'a_b', 'a_b');
INSERT INTO ty_str SELECT 100 + g, 'k' || (g % 100), 'k' || (g % 100), 'k' || g
  FROM generate_series(1, 2000) g;
VACUUM (FREEZE, ANALYZE) ty_str;
CHECKPOINT;
SELECT * FROM cmp_matrix('ty_str', 'c',
  ARRAY['''ab''::bpchar', '''''::bpchar', '''é''::bpchar']);
SELECT * FROM cmp_matrix('ty_str', 'v',
  ARRAY['''ab''', '''ab  ''']);
SELECT * FROM cmp_matrix('ty_str', 't',
  ARRAY['''ab'' COLLATE "C"', '''é'' COLLATE "C"', '''日本'' COLLATE "C"', '''Z'' COLLATE "C"']);
-- LIKE: %, non-ASCII prefixes and suffixes on the drive; escapes, "_" in a
-- UTF8 database and LIKE on char(n) (padding) stay on the host
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM ty_str WHERE t LIKE '日本%';
SELECT id, t FROM ty_str WHERE t LIKE '日本%' ORDER BY id;
RESET ossd.force_offload;
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE t LIKE '日本%'$$);
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE t LIKE '%é'$$);
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE t NOT LIKE 'k%'$$);
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE t LIKE 'a\%b'$$);
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE t LIKE 'a_b'$$);
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE c LIKE 'ab'$$);
SELECT * FROM both_ways($$SELECT id FROM ty_str WHERE c LIKE 'ab%'$$);
SELECT * FROM both_ways($$SELECT min(t COLLATE "C"), max(t COLLATE "C"), count(t) FROM ty_str$$);

-- ===================================================================
-- dates and timestamps at their limits, +-infinity, date against
-- timestamp constants
-- ===================================================================
CREATE TABLE ty_time (id int4, d date, ts timestamp, tz timestamptz);
INSERT INTO ty_time VALUES
  (1, '4713-01-01 BC', '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00+00 BC'),
  (2, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00'),
  (3, 'infinity', 'infinity', 'infinity'), (4, '-infinity', '-infinity', '-infinity'),
  (5, '2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00'),
  (6, '1999-12-31', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59.999999+00'),
  (7, '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00'),
  (8, NULL, NULL, NULL);
INSERT INTO ty_time SELECT 100 + g, date '1990-01-01' + g, timestamp '1990-01-01' + g * interval '1 hour',
  timestamptz '1990-01-01 00:00+00' + g * interval '1 hour' FROM generate_series(1, 2000) g;
VACUUM (FREEZE, ANALYZE) ty_time;
CHECKPOINT;
SELECT * FROM cmp_matrix('ty_time', 'd',
  ARRAY['''2000-01-01''::date', '''infinity''::date', '''4713-01-01 BC''::date',
        '''1999-12-31 23:59:59''::timestamp', '''infinity''::timestamp']);
SELECT * FROM cmp_matrix('ty_time', 'ts',
  ARRAY['''2000-01-01''::timestamp', '''294276-12-31 23:59:59.999999''::timestamp',
        '''-infinity''::timestamp', '''2000-01-01''::date']);
SELECT * FROM cmp_matrix('ty_time', 'tz',
  ARRAY['''2000-01-01 00:00:00+00''::timestamptz', '''infinity''::timestamptz',
        '''4713-01-01 00:00:00+00 BC''::timestamptz']);
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM ty_time;
SELECT min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM ty_time;
SELECT min(d), max(d), min(ts), max(ts) FROM ty_time WHERE id < 100 AND d > '-infinity' AND d < 'infinity';
RESET ossd.force_offload;
SELECT * FROM both_ways($$SELECT min(d), max(d), min(ts), max(ts), min(tz), max(tz), count(d) FROM ty_time$$);
SELECT * FROM both_ways($$SELECT id % 2, min(d), max(ts) FROM ty_time WHERE id < 100 GROUP BY 1$$);

-- ===================================================================
-- booleans and NULL tests (IS DISTINCT FROM stays on the host)
-- ===================================================================
CREATE TABLE ty_bool (id int4, b bool);
INSERT INTO ty_bool SELECT g, CASE g % 3 WHEN 0 THEN true WHEN 1 THEN false END
  FROM generate_series(1, 3000) g;
VACUUM (FREEZE, ANALYZE) ty_bool;
CHECKPOINT;
SELECT q, w.* FROM unnest(ARRAY['b', 'NOT b', 'b IS TRUE', 'b IS NOT TRUE', 'b IS FALSE',
    'b IS NOT FALSE', 'b IS UNKNOWN', 'b IS NOT UNKNOWN', 'b IS NULL', 'b = false',
    'b <> true', 'b IS DISTINCT FROM true']) q,
  LATERAL both_ways('SELECT id FROM ty_bool WHERE ' || q) w ORDER BY q;

DROP TABLE ty_int, ty_num, ty_flt, ty_str, ty_time, ty_bool;
DROP FUNCTION cmp_matrix(text, text, text[]);
DROP FUNCTION both_ways(text);
RESET ossd.min_relation_pages;
