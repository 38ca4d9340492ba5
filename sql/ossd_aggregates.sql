--
-- ossd_aggregates: partial aggregation on the drive with the host's exact
-- final merge (ossd_upper.c), and what stays a host Agg: each aggregate
-- over each type, GROUP BY keys of each type (numeric keys with a map
-- kernel: issue 12, D3), NULL keys, expressions, empty input, HAVING on
-- the merged groups, more groups than the drive's table holds, DISTINCT,
-- FILTER clauses and CASE arguments (map kernel), DISTINCT aggregates
-- (the drive's grouping under a host Agg), ORDER BY inside aggregates,
-- grouping sets, window
-- functions, joins, and the rows the drive cannot aggregate (host blocks,
-- TOAST, sums past 128 bits, NaN and infinities).
--
-- agg_check(q) says where q is aggregated (the plan has Device Partial
-- Aggregates: 'drive', otherwise 'host'), how many groups it returns and
-- whether they are the same with ossd.enabled = off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- The query's rows with offload as set and with ossd.enabled = off: their
-- count, the scans the drive ran for the first and whether both are the
-- same multiset.
-- offload_check(q): tests/pg/regress-helpers.sql

-- Where the query's aggregation runs, its groups, and the check above.
CREATE FUNCTION agg_check(q text, OUT aggregated text, OUT n_rows bigint,
                          OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  aggregated := 'host';
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ 'Device Partial Aggregates' THEN
      aggregated := 'drive';
    END IF;
  END LOOP;
  SELECT c.n_rows, c.same INTO n_rows, same FROM offload_check(q) c;
END
$$;

-- What the drive did for an aggregating scan (counters that do not
-- depend on timing; the number of partial groups depends on how the
-- drive's workers split the blocks: only whether there were any)
CREATE FUNCTION agg_counters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF ln ~ '(Blocks on|Host Rows from Drive|Partial Groups)' THEN
      ln := regexp_replace(ln, '^ +', '');
      ln := regexp_replace(ln, 'Partial Groups from Drive: [1-9]\d*', 'Partial Groups from Drive: >0');
      RETURN NEXT ln;
    END IF;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data: group keys and aggregate inputs of every type, NULLs
-- ===================================================================
CREATE TABLE ag (
  id   int4,
  k2   int2,
  k4   int4,
  k8   int8,
  kn   numeric(10,0),
  kf   numeric(8,2),
  ku   numeric,
  kt   text,
  kc   char(1),
  kvc  varchar(5),
  kbc  char(3),
  kd   date,
  kts  timestamp,
  kb   bool,
  v2   int2,
  v4   int4,
  v8   int8,
  vn   numeric(12,2),
  vu   numeric,
  vf   float8,
  vt   text,
  vd   date,
  vts  timestamp,
  vtz  timestamptz
);
INSERT INTO ag
SELECT i,
       CASE WHEN i % 101 = 0 THEN NULL ELSE (i % 7 - 3) END,
       CASE WHEN i % 103 = 0 THEN NULL ELSE i % 13 END,
       CASE WHEN i % 107 = 0 THEN NULL ELSE (i % 5) * 10000000000 END,
       CASE WHEN i % 109 = 0 THEN NULL ELSE (i % 40) - 20 END,
       CASE WHEN i % 113 = 0 THEN NULL ELSE ((i % 9) - 4) * 1.25 END,
       CASE WHEN i % 127 = 0 THEN NULL WHEN i % 2 = 0 THEN (i % 4)::numeric ELSE (i % 4)::numeric(5,2) END,
       CASE WHEN i % 131 = 0 THEN NULL ELSE (ARRAY['alpha', 'beta', 'gamma', 'delta', ''])[i % 5 + 1] END,
       CASE WHEN i % 137 = 0 THEN NULL ELSE (ARRAY['A', 'N', 'R'])[i % 3 + 1] END,
       CASE WHEN i % 139 = 0 THEN NULL ELSE (ARRAY['x', 'y ', 'zz'])[i % 3 + 1] END,
       CASE WHEN i % 149 = 0 THEN NULL ELSE (ARRAY['a', 'a ', 'bb'])[i % 3 + 1] END,
       CASE WHEN i % 151 = 0 THEN NULL ELSE date '2020-01-01' + i % 17 END,
       CASE WHEN i % 157 = 0 THEN NULL ELSE timestamp '2020-01-01' + (i % 11) * interval '1 hour' END,
       CASE WHEN i % 163 = 0 THEN NULL ELSE i % 2 = 0 END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 1000 - 500) END,
       CASE WHEN i % 17 = 0 THEN NULL WHEN i = 5 THEN 2147483647 ELSE (i * 37) % 100000 - 50000 END,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i = 6 THEN 9223372036854775807 ELSE i::int8 * 1000000007 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 7919) % 1000000) / 100.0 - 5000 END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE ((i * 13) % 1000) / 7.0 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE (i % 1000) / 8.0 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE 'val' || lpad((i % 997)::text, 4, '0') END,
       CASE WHEN i % 41 = 0 THEN NULL ELSE date '2000-01-01' + (i * 7) % 9000 END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE timestamp '2000-01-01' + i * interval '1 hour 7 minutes' END,
       CASE WHEN i % 47 = 0 THEN NULL ELSE timestamptz '2000-01-01 00:00+00' + i * interval '53 minutes' END
FROM generate_series(1, 12000) i;
VACUUM (FREEZE, ANALYZE) ag;
CHECKPOINT;
SET ossd.force_offload = on;

-- ===================================================================
-- One group: each aggregate the drive computes, over each type
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), count(v4), sum(v4), avg(v4), min(v4), max(v4) FROM ag WHERE k4 < 10;
SELECT count(*), count(v4), sum(v4), avg(v4), min(v4), max(v4) FROM ag WHERE k4 < 10;
SELECT * FROM agg_check($$SELECT count(*), count(v4), sum(v4), avg(v4), min(v4), max(v4) FROM ag WHERE k4 < 10$$);
SELECT * FROM agg_counters($$SELECT count(*), count(v4), sum(v4), avg(v4), min(v4), max(v4) FROM ag WHERE k4 < 10$$);
SELECT count(v2), sum(v2), avg(v2), min(v2), max(v2) FROM ag;
SELECT count(v8), sum(v8), avg(v8), min(v8), max(v8) FROM ag;
SELECT count(vn), sum(vn), avg(vn), min(vn), max(vn) FROM ag;
SELECT count(vu), sum(vu), avg(vu) FROM ag;
SELECT min(vt), max(vt), min(vd), max(vd), min(vts), max(vts), min(vtz), max(vtz) FROM ag;
SELECT v.q, c.* FROM (VALUES
  ('SELECT count(*) FROM ag'), ('SELECT count(*) FROM ag WHERE vt LIKE ''val1%'''),
  ('SELECT count(v2), count(v4), count(v8), count(vn), count(vu), count(vf), count(vt), count(vd), count(vts), count(vtz), count(kb) FROM ag'),
  ('SELECT sum(v2), avg(v2) FROM ag'), ('SELECT sum(v4), avg(v4) FROM ag'),
  ('SELECT sum(v8), avg(v8) FROM ag'), ('SELECT sum(vn), avg(vn) FROM ag'),
  ('SELECT sum(vu), avg(vu) FROM ag'), ('SELECT sum(kn), avg(kf), sum(ku) FROM ag'),
  ('SELECT min(v2), max(v2), min(v4), max(v4), min(v8), max(v8) FROM ag'),
  ('SELECT min(vn), max(vn), min(kn), max(kf) FROM ag'),
  ('SELECT min(vt), max(vt) FROM ag'), ('SELECT min(kt), max(kt) FROM ag'),
  ('SELECT min(vd), max(vd), min(vts), max(vts), min(vtz), max(vtz) FROM ag'),
  ('SELECT min(vu), max(vu) FROM ag'),
  ('SELECT sum(vf), avg(vf) FROM ag'), ('SELECT min(vf), max(vf) FROM ag'),
  ('SELECT min(kvc), max(kvc) FROM ag'), ('SELECT min(kc), max(kc) FROM ag'),
  ('SELECT min(vt COLLATE "und-x-icu") FROM ag'), ('SELECT max(vt COLLATE "C") FROM ag'),
  ('SELECT bool_and(kb), bool_or(kb), every(kb) FROM ag'),
  ('SELECT count(DISTINCT v2) FROM ag'), ('SELECT sum(DISTINCT v2) FROM ag'),
  ('SELECT string_agg(kt, '','' ORDER BY kt) FROM ag WHERE id < 20'),
  ('SELECT array_agg(v4 ORDER BY v4) FROM ag WHERE id < 20'),
  ('SELECT count(*) FILTER (WHERE v4 > 0) FROM ag'), ('SELECT sum(v4) FILTER (WHERE kb) FROM ag'),
  ('SELECT stddev(v4), variance(v8) FROM ag'), ('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v4) FROM ag'),
  ('SELECT bit_and(v4), bit_or(v4) FROM ag'), ('SELECT count(ag) FROM ag'), ('SELECT count(ag.*) FROM ag'),
  ('SELECT sum(v4)::numeric / count(*) FROM ag'), ('SELECT count(*) * 2, sum(v4) + 1 FROM ag'),
  ('SELECT sum(v4 - 1) FROM ag'), ('SELECT sum(v2 * 2) FROM ag'), ('SELECT avg(v8 - 1) FROM ag'),
  ('SELECT sum(vn * 2), avg(vn + 1), sum(vn - kf) FROM ag'),
  ('SELECT sum(vn * vn), sum(vn * kf * kn) FROM ag'), ('SELECT min(vn * 2) FROM ag'),
  ('SELECT sum(vn::numeric(20,4)) FROM ag'), ('SELECT sum(v4::numeric) FROM ag'),
  ('SELECT sum(vn / 2) FROM ag'), ('SELECT sum(-vn) FROM ag'), ('SELECT sum(abs(vn)) FROM ag'),
  ('SELECT sum(1), count(1), sum(2.5) FROM ag'), ('SELECT max(1) FROM ag'),
  ('SELECT count(*), 42 FROM ag'), ('SELECT count(*), now() IS NOT NULL FROM ag')
) v(q), LATERAL agg_check(v.q) c;

-- ===================================================================
-- Empty input: count is 0, the others NULL (no group without GROUP BY)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), count(v4), sum(v4), avg(vn), min(vt), max(vd) FROM ag WHERE v4 < -1000000;
SELECT count(*), count(v4), sum(v4), avg(vn), min(vt), max(vd) FROM ag WHERE v4 < -1000000;
SELECT * FROM agg_check($$SELECT count(*), count(v4), sum(v4), avg(vn), min(vt), max(vd) FROM ag WHERE v4 < -1000000$$);
SELECT k4, count(*) FROM ag WHERE v4 < -1000000 GROUP BY k4;
SELECT * FROM agg_check($$SELECT k4, count(*) FROM ag WHERE v4 < -1000000 GROUP BY k4$$);
-- only NULL inputs
SELECT count(v4), sum(v4), avg(v4), min(v4), max(vt) FROM ag WHERE v4 IS NULL;
SELECT * FROM agg_check($$SELECT count(v4), sum(v4), avg(v4), min(v4), max(vt) FROM ag WHERE v4 IS NULL$$);
SELECT * FROM agg_check($$SELECT k2, count(v4), sum(v4), avg(v4), min(v4) FROM ag WHERE v4 IS NULL GROUP BY k2$$);

-- ===================================================================
-- GROUP BY plain columns of every type the drive groups by
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k2, count(*), sum(v4), avg(vn), min(vt), max(vts) FROM ag WHERE v8 > 0 GROUP BY k2;
SELECT k2, count(*), sum(v4), avg(vn), min(vt), max(vts) FROM ag WHERE v8 > 0 GROUP BY k2 ORDER BY k2;
SELECT * FROM agg_check($$SELECT k2, count(*), sum(v4), avg(vn), min(vt), max(vts) FROM ag WHERE v8 > 0 GROUP BY k2$$);
SELECT * FROM agg_counters($$SELECT k2, count(*), sum(v4), avg(vn), min(vt), max(vts) FROM ag WHERE v8 > 0 GROUP BY k2$$);
SELECT kt, kc, count(*), sum(v2) FROM ag GROUP BY kt, kc ORDER BY kt, kc;
SELECT kd, count(*), min(vd) FROM ag GROUP BY kd ORDER BY kd;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k2, count(*), sum(v8) FROM ag GROUP BY k2'), ('SELECT k4, count(*), avg(v2) FROM ag GROUP BY k4'),
  ('SELECT k8, count(*), max(v4) FROM ag GROUP BY k8'), ('SELECT kn, count(*), sum(vn) FROM ag GROUP BY kn'),
  ('SELECT kf, count(*), min(vn) FROM ag GROUP BY kf'), ('SELECT ku, count(*) FROM ag GROUP BY ku'),
  ('SELECT kt, count(*), max(vt) FROM ag GROUP BY kt'), ('SELECT kc, count(*), sum(vn) FROM ag GROUP BY kc'),
  ('SELECT kvc, count(*) FROM ag GROUP BY kvc'), ('SELECT kbc, count(*) FROM ag GROUP BY kbc'),
  ('SELECT kd, count(*), sum(v4) FROM ag GROUP BY kd'), ('SELECT kts, count(*), min(vtz) FROM ag GROUP BY kts'),
  ('SELECT kb, count(*), avg(v4) FROM ag GROUP BY kb'), ('SELECT vf, count(*) FROM ag GROUP BY vf'),
  ('SELECT k2, k4, k8, kn, kf, kt, kc, kd, kts, kb, count(*) FROM ag GROUP BY k2, k4, k8, kn, kf, kt, kc, kd, kts, kb'),
  ('SELECT kt, kc, count(*), sum(v2) FROM ag GROUP BY kt, kc'), ('SELECT kc, kt, count(*) FROM ag GROUP BY 2, 1'),
  ('SELECT count(*) FROM ag GROUP BY k4'), ('SELECT sum(v4) FROM ag GROUP BY k2, k4'),
  ('SELECT k4, count(*) FROM ag GROUP BY k4, k4'), ('SELECT id, count(*) FROM ag GROUP BY id'),
  ('SELECT v4, count(*) FROM ag GROUP BY v4'), ('SELECT vt, count(*) FROM ag GROUP BY vt'),
  ('SELECT kt COLLATE "und-x-icu", count(*) FROM ag GROUP BY 1'),
  ('SELECT k4 % 5, count(*) FROM ag GROUP BY k4 % 5'), ('SELECT k4 + 0, count(*) FROM ag GROUP BY 1'),
  ('SELECT lower(kt), count(*) FROM ag GROUP BY lower(kt)'), ('SELECT kd + 1, count(*) FROM ag GROUP BY 1'),
  ('SELECT k4, k4 + 1, count(*) FROM ag GROUP BY k4'), ('SELECT k4, v4, count(*) FROM ag GROUP BY k4, v4'),
  ('SELECT k4, max(v2) - min(v2) FROM ag GROUP BY k4'), ('SELECT k4, count(*) FROM ag GROUP BY k4 ORDER BY 2 DESC, 1 LIMIT 3'),
  ('SELECT k2, count(*) FROM ag WHERE kt = ''beta'' GROUP BY k2'), ('SELECT k2, count(*) FROM ag WHERE length(kt) = 4 GROUP BY k2'),
  ('SELECT k2, count(*) FROM ag WHERE kt LIKE ''%a'' AND vn > 0 GROUP BY k2')
) v(q), LATERAL agg_check(v.q) c;
-- NULL keys form one group each, first or last as ORDER BY says
SELECT k2, k4 IS NULL AS k4_null, count(*) FROM ag WHERE k2 IS NULL OR k4 IS NULL GROUP BY k2, k4 IS NULL ORDER BY 1 NULLS FIRST, 2;
SELECT * FROM agg_check($$SELECT k2, k4, count(*) FROM ag WHERE k2 IS NULL OR k4 IS NULL GROUP BY k2, k4$$);
SELECT kt, kc, count(*) FROM ag WHERE kt IS NULL OR kc IS NULL GROUP BY kt, kc ORDER BY 1, 2;
SELECT * FROM agg_check($$SELECT kt, kc, count(*) FROM ag WHERE kt IS NULL OR kc IS NULL GROUP BY kt, kc$$);
-- char(3) keys: 'a' and 'a ' were stored alike (padded): one group
SELECT kbc, octet_length(kbc), count(*) FROM ag GROUP BY kbc ORDER BY 1;
-- many groups: one per row
SELECT * FROM agg_check($$SELECT id, count(*), sum(v4) FROM ag GROUP BY id$$);
SELECT * FROM agg_check($$SELECT vt, vd, count(*) FROM ag GROUP BY vt, vd$$);
SELECT * FROM agg_counters($$SELECT id, count(*), sum(v4) FROM ag GROUP BY id$$);

-- ===================================================================
-- Numeric expressions: a map kernel computes them on the drive
-- (numeric +, -, *, exact, with PostgreSQL's result scales)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kc, sum(vn * 2), avg(vn + kf), sum(vn - 1.005), count(*) FROM ag WHERE k4 < 12 GROUP BY kc;
SELECT kc, sum(vn * 2), avg(vn + kf), sum(vn - 1.005), count(*) FROM ag WHERE k4 < 12 GROUP BY kc ORDER BY kc;
SELECT * FROM agg_check($$SELECT kc, sum(vn * 2), avg(vn + kf), sum(vn - 1.005), count(*) FROM ag WHERE k4 < 12 GROUP BY kc$$);
SELECT * FROM agg_counters($$SELECT kc, sum(vn * 2), avg(vn + kf), sum(vn - 1.005), count(*) FROM ag WHERE k4 < 12 GROUP BY kc$$);
-- a text key does not go through the map kernel: it travels as stored,
-- in a projected column after the kernel's outputs (NULL and '' keys
-- their own groups), and so do text, varchar and char(n) keys and text
-- min/max arguments beside computed ones
EXPLAIN (VERBOSE, COSTS OFF) SELECT kt, sum(vn * 2) FROM ag GROUP BY kt;
SELECT kt, sum(vn * 2) FROM ag GROUP BY kt ORDER BY kt;
SELECT * FROM agg_check($$SELECT kt, sum(vn * 2) FROM ag GROUP BY kt$$);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kvc, k2, kbc, sum(vn * kf), count(*), max(vt) FROM ag WHERE k4 < 6 GROUP BY kvc, k2, kbc;
SELECT kvc, k2, kbc, sum(vn * kf), count(*), max(vt) FROM ag WHERE k4 < 6
 GROUP BY kvc, k2, kbc ORDER BY kvc, k2, kbc LIMIT 12;
SELECT * FROM agg_check($$SELECT kvc, k2, kbc, sum(vn * kf), count(*), max(vt) FROM ag WHERE k4 < 6 GROUP BY kvc, k2, kbc$$);
SELECT * FROM agg_counters($$SELECT kt, kc, sum(vn * 2) FROM ag GROUP BY kt, kc$$);
SELECT v.q, c.* FROM (VALUES
  ('SELECT k2, sum(vn * 2) FROM ag GROUP BY k2'), ('SELECT k8, avg(vn * kf) FROM ag GROUP BY k8'),
  ('SELECT kd, sum(vn + vn + vn) FROM ag GROUP BY kd'), ('SELECT kts, sum(kf * kf * kf * kf) FROM ag GROUP BY kts'),
  ('SELECT kb, sum(vn * 0.001) FROM ag GROUP BY kb'), ('SELECT kc, sum(vn * 1.0000000001) FROM ag GROUP BY kc'),
  ('SELECT kvc, sum(vn * 2) FROM ag GROUP BY kvc'), ('SELECT kbc, sum(vn * 2) FROM ag GROUP BY kbc'),
  ('SELECT kt, kc, sum(vn * 2) FROM ag GROUP BY kt, kc'), ('SELECT k4, sum(vu * 2) FROM ag GROUP BY k4'),
  ('SELECT k4, sum(vu + kn) FROM ag GROUP BY k4'), ('SELECT k4, sum(vn * NULL) FROM ag GROUP BY k4'),
  ('SELECT k4, sum(vn * 2), min(vn), max(vd) FROM ag GROUP BY k4'), ('SELECT k4, sum(v2 * 2) FROM ag GROUP BY k4'),
  ('SELECT kt, sum(vn * 2), min(vt), max(kt) FROM ag GROUP BY kt'), ('SELECT kt, kvc, kbc, kc, kd, avg(vn - kf) FROM ag GROUP BY 1, 2, 3, 4, 5'),
  ('SELECT kt, sum(vn * 2) FROM ag WHERE kt IS NULL GROUP BY kt'), ('SELECT sum(vn * 2), max(vt) FROM ag'),
  ('SELECT k4, sum(v4::numeric * 2) FROM ag GROUP BY k4'), ('SELECT k4, sum(vn * 2) FROM ag WHERE vn > 0 GROUP BY k4'),
  ('SELECT sum(vn * vn * vn * vn * vn) FROM ag'), ('SELECT sum(vu * 1e30 * 1e30) FROM ag'),
  ('SELECT sum(vn * 99999999999999999999) FROM ag'), ('SELECT avg(kn * kn) FROM ag')
) v(q), LATERAL agg_check(v.q) c;

-- ===================================================================
-- FILTER clauses and CASE in an aggregate's argument: the map kernel.
-- agg(x) FILTER (WHERE c) is agg(CASE WHEN c THEN x END) -- both skip the
-- rows where c is not true -- and count(*) FILTER (WHERE c) counts CASE
-- WHEN c THEN true END; the conditions compile as filters do (a NULL one
-- is not taken).  EXPLAIN shows a FILTER as written.  A simple CASE (CASE
-- x WHEN v ...) of a column is the searched CASE WHEN x = v ...; one of an
-- expression, a condition off the whitelist and text results stay on the
-- host.
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k2, count(*) FILTER (WHERE v4 > 0), sum(vn) FILTER (WHERE kb),
       sum(CASE WHEN kt = 'beta' THEN vn * 2 ELSE 0 END),
       count(CASE WHEN vd < date '2020-01-05' THEN 1 END)
  FROM ag GROUP BY k2;
SELECT k2, count(*) FILTER (WHERE v4 > 0), sum(vn) FILTER (WHERE kb),
       sum(CASE WHEN kt = 'beta' THEN vn * 2 ELSE 0 END),
       count(CASE WHEN vd < date '2020-01-05' THEN 1 END)
  FROM ag GROUP BY k2 ORDER BY k2;
SELECT * FROM agg_check($$SELECT k2, count(*) FILTER (WHERE v4 > 0), sum(vn) FILTER (WHERE kb),
       sum(CASE WHEN kt = 'beta' THEN vn * 2 ELSE 0 END),
       count(CASE WHEN vd < date '2020-01-05' THEN 1 END)
  FROM ag GROUP BY k2$$);
SELECT * FROM agg_counters($$SELECT k2, count(*) FILTER (WHERE v4 > 0), sum(vn) FILTER (WHERE kb) FROM ag GROUP BY k2$$);
-- TPC-H Q12's shape, over one table: counts of a condition and its opposite
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kc, sum(CASE WHEN v4 > 0 THEN 1 ELSE 0 END) AS pos,
       sum(CASE WHEN v4 <= 0 THEN 1 ELSE 0 END) AS nonpos
  FROM ag WHERE k4 < 12 GROUP BY kc;
SELECT kc, sum(CASE WHEN v4 > 0 THEN 1 ELSE 0 END) AS pos,
       sum(CASE WHEN v4 <= 0 THEN 1 ELSE 0 END) AS nonpos
  FROM ag WHERE k4 < 12 GROUP BY kc ORDER BY kc;
-- a simple CASE of a column: the drive tests x = v for each WHEN
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(CASE k2 WHEN 1 THEN vn ELSE 0 END) FROM ag;
SELECT sum(CASE k2 WHEN 1 THEN vn ELSE 0 END) FROM ag;
SELECT v.q, c.* FROM (VALUES
  ('SELECT count(*) FILTER (WHERE v4 > 0), count(*) FROM ag'),
  ('SELECT sum(v4) FILTER (WHERE kb), avg(v8) FILTER (WHERE kb IS NOT TRUE) FROM ag'),
  ('SELECT min(vd) FILTER (WHERE kb), max(v8) FILTER (WHERE v4 IS NULL), max(vts) FILTER (WHERE v2 > 1) FROM ag'),
  ('SELECT k4, count(v4) FILTER (WHERE v4 > 0), sum(vn) FILTER (WHERE vn > 0 AND kb OR kt = ''gamma'') FROM ag GROUP BY k4'),
  ('SELECT count(*) FILTER (WHERE vt LIKE ''val1%''), count(*) FILTER (WHERE kt IN (''alpha'', ''beta'')) FROM ag'),
  ('SELECT count(*) FILTER (WHERE vd BETWEEN date ''2000-06-01'' AND date ''2010-01-01'') FROM ag'),
  ('SELECT sum(CASE WHEN v4 > 100 THEN vn WHEN v4 > 0 THEN vn * 2 WHEN kb THEN 1.5 END) FROM ag'),
  ('SELECT count(CASE WHEN kb THEN NULL ELSE v4 END), sum(CASE WHEN kb IS NULL THEN 1 END) FROM ag'),
  ('SELECT sum(CASE WHEN kb THEN 9000000000 ELSE -1 END), sum(CASE WHEN kb THEN v8 ELSE 0 END) FROM ag'),
  ('SELECT k2, max(CASE WHEN kb THEN vd END), min(CASE WHEN v4 > 0 THEN v4 ELSE 0 END) FROM ag GROUP BY k2'),
  ('SELECT kd, avg(CASE WHEN kc = ''A'' THEN vn ELSE vn - 1 END) FROM ag GROUP BY kd'),
  ('SELECT sum(CASE WHEN kb THEN vu * 1e30 * 1e30 END) FROM ag'),
  ('SELECT sum(CASE WHEN vn > 0 THEN vn END) FILTER (WHERE k2 < 3) FROM ag'),
  ('SELECT k4 FROM ag GROUP BY k4 HAVING count(*) FILTER (WHERE kb) > 700'),
  ('SELECT sum(CASE k2 WHEN 1 THEN vn ELSE 0 END) FROM ag'),
  ('SELECT count(*) FILTER (WHERE length(kt) = 4) FROM ag'),
  ('SELECT sum(CASE WHEN length(kt) = 4 THEN vn END) FROM ag'),
  ('SELECT kt, count(*) FILTER (WHERE v4 > 0) FROM ag GROUP BY kt'),
  ('SELECT min(vt) FILTER (WHERE kb) FROM ag'), ('SELECT min(vn) FILTER (WHERE kb) FROM ag'),
  ('SELECT sum(vf) FILTER (WHERE kb) FROM ag'), ('SELECT count(DISTINCT v2) FILTER (WHERE kb) FROM ag'),
  ('SELECT sum(CASE WHEN kb THEN v4::numeric / 3 END) FROM ag'),
  ('SELECT min(CASE WHEN v4 > 0 THEN v4 ELSE -v4 END) FROM ag'),
  ('SELECT sum(CASE kt WHEN ''beta'' THEN vn WHEN ''gamma'' THEN 1 END), count(CASE kc WHEN ''A'' THEN 1 END) FROM ag'),
  ('SELECT sum(CASE k2 + 1 WHEN 1 THEN vn END) FROM ag'),
  ('SELECT sum(CASE kb WHEN true THEN v8 WHEN false THEN -1 END) FROM ag')
) v(q), LATERAL agg_check(v.q) c;
-- the same kernels in the drive's interpreter
SET ossd.kernel_mode = interpreter;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k2, count(*) FILTER (WHERE v4 > 0), sum(vn) FILTER (WHERE kb), sum(CASE WHEN kt = ''beta'' THEN vn * 2 ELSE 0 END) FROM ag GROUP BY k2'),
  ('SELECT sum(CASE WHEN v4 > 100 THEN vn WHEN v4 > 0 THEN vn * 2 WHEN kb THEN 1.5 END), count(CASE WHEN kb THEN NULL ELSE v4 END) FROM ag'),
  ('SELECT kd, avg(CASE WHEN kc = ''A'' THEN vn ELSE vn - 1 END), max(v8) FILTER (WHERE v4 IS NULL) FROM ag GROUP BY kd'),
  ('SELECT kt, kvc, sum(vn * 2), count(*) FILTER (WHERE kb), max(vt) FROM ag GROUP BY kt, kvc')
) v(q), LATERAL agg_check(v.q) c;
RESET ossd.kernel_mode;

-- ===================================================================
-- Group keys computed on the drive: an expression over the columns with
-- a by-value result (ints, date, timestamps, bool; not float, whose -0
-- and NaN have images of their own) goes through the map kernel like an
-- aggregate's argument -- CASE buckets, simple or searched, a condition's
-- value (true, false or NULL).  The host evaluates the same expression
-- on the rows the drive hands back.  Text and numeric results, and
-- expressions the kernel cannot compute, stay on the host; so does a
-- DISTINCT aggregate beside a computed key.
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT CASE WHEN v4 > 0 THEN 1 WHEN v4 < 0 THEN -1 END AS sign, count(*), sum(vn)
  FROM ag GROUP BY 1;
SELECT CASE WHEN v4 > 0 THEN 1 WHEN v4 < 0 THEN -1 END AS sign, count(*), sum(vn)
  FROM ag GROUP BY 1 ORDER BY 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kd < date '2020-01-09' AS early, kt, count(*) FROM ag GROUP BY 1, 2 HAVING count(*) > 100;
SELECT kd < date '2020-01-09' AS early, kt, count(*) FROM ag GROUP BY 1, 2 HAVING count(*) > 100
 ORDER BY 1, 2;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT CASE kc WHEN 'A' THEN 1 WHEN 'N' THEN 2 ELSE 3 END, max(vd) FROM ag GROUP BY 1;
SELECT v.q, c.* FROM (VALUES
  ('SELECT CASE WHEN v4 > 0 THEN 1 WHEN v4 < 0 THEN -1 END, count(*), sum(vn) FROM ag GROUP BY 1'),
  ('SELECT kd < date ''2020-01-09'', kt, count(*) FROM ag GROUP BY 1, 2 HAVING count(*) > 100'),
  ('SELECT CASE kc WHEN ''A'' THEN 1 WHEN ''N'' THEN 2 ELSE 3 END, max(vd) FROM ag GROUP BY 1'),
  ('SELECT CASE WHEN kb THEN kd ELSE date ''1999-12-31'' END, count(*) FROM ag GROUP BY 1'),
  ('SELECT CASE WHEN k8 IS NULL THEN 0::int8 ELSE k8 END, sum(v2) FROM ag GROUP BY 1'),
  ('SELECT k2, v4 > 0 AND kb, count(*), avg(vn * 2) FROM ag GROUP BY 1, 2'),
  ('SELECT kb IS NOT TRUE, kvc, count(*) FROM ag GROUP BY 1, 2'),
  ('SELECT CASE WHEN v4 > 0 THEN 1 ELSE 0 END FROM ag GROUP BY 1'),
  ('SELECT CASE WHEN v4 > 0 THEN 1 END AS b, count(*) FROM ag GROUP BY 1 HAVING CASE WHEN v4 > 0 THEN 1 END IS NULL'),
  ('SELECT CASE WHEN v4 > 0 THEN ''pos'' ELSE ''other'' END, count(*) FROM ag GROUP BY 1'),
  ('SELECT vn * 2, count(*) FROM ag GROUP BY 1'),
  ('SELECT v4 / 2, count(*) FROM ag GROUP BY 1'),
  ('SELECT CASE WHEN vf > 0 THEN 1 END, count(*) FROM ag GROUP BY 1'),
  ('SELECT CASE WHEN v4 > 0 THEN 1 END, count(DISTINCT k2) FROM ag GROUP BY 1'),
  ('SELECT CASE WHEN random() > 2 THEN 1 END, count(*) FROM ag GROUP BY 1')
) v(q), LATERAL agg_check(v.q) c;
SET ossd.kernel_mode = interpreter;
SELECT v.q, c.* FROM (VALUES
  ('SELECT CASE WHEN v4 > 0 THEN 1 WHEN v4 < 0 THEN -1 END, count(*), sum(vn) FROM ag GROUP BY 1'),
  ('SELECT kd < date ''2020-01-09'', kt, count(*) FROM ag GROUP BY 1, 2 HAVING count(*) > 100'),
  ('SELECT CASE kc WHEN ''A'' THEN 1 WHEN ''N'' THEN 2 ELSE 3 END, max(vd) FROM ag GROUP BY 1')
) v(q), LATERAL agg_check(v.q) c;
RESET ossd.kernel_mode;

-- ===================================================================
-- DISTINCT aggregates: every aggregate over DISTINCT x (the same x) runs
-- as the drive's grouping by the keys and x with no aggregate -- the
-- distinct pairs of its share, merged on the host as SELECT DISTINCT's
-- are -- under PostgreSQL's own Agg, sorted by the keys, which aggregates
-- each group's distinct x.  Any aggregate then works; x must be a column
-- the drive groups by (not float, numeric with a scale).  Mixed with other
-- aggregates, over two columns, or with ORDER BY or FILTER: a host Agg.
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, count(DISTINCT v4) FROM ag GROUP BY k2;
SELECT k2, count(DISTINCT v4) FROM ag GROUP BY k2 ORDER BY k2;
SELECT * FROM agg_check($$SELECT k2, count(DISTINCT v4) FROM ag GROUP BY k2$$);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kt, count(DISTINCT kc) FROM ag WHERE v4 > 0 GROUP BY kt HAVING count(DISTINCT kc) > 2;
SELECT kt, count(DISTINCT kc) FROM ag WHERE v4 > 0 GROUP BY kt HAVING count(DISTINCT kc) > 2 ORDER BY kt;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(DISTINCT vd), min(DISTINCT vd) FROM ag;
SELECT count(DISTINCT vd), min(DISTINCT vd) FROM ag;
SELECT v.q, c.* FROM (VALUES
  ('SELECT count(DISTINCT v2), sum(DISTINCT v2), avg(DISTINCT v2) FROM ag'),
  ('SELECT kd, count(DISTINCT vn), avg(DISTINCT vn), max(DISTINCT vn) FROM ag GROUP BY kd'),
  ('SELECT kc, count(DISTINCT vt) FROM ag GROUP BY kc'),
  ('SELECT k2, kb, count(DISTINCT v8) FROM ag WHERE k4 < 7 GROUP BY k2, kb'),
  ('SELECT k2, count(DISTINCT k2) FROM ag GROUP BY k2'),
  ('SELECT k4, array_length(array_agg(DISTINCT v2), 1) FROM ag GROUP BY k4'),
  ('SELECT count(DISTINCT id) FROM ag'),
  ('SELECT count(DISTINCT v4), count(*) FROM ag'),
  ('SELECT count(DISTINCT v4), count(DISTINCT v2) FROM ag'),
  ('SELECT count(DISTINCT vf) FROM ag'), ('SELECT count(DISTINCT vu) FROM ag'),
  ('SELECT count(DISTINCT v2 + 1) FROM ag'),
  ('SELECT count(DISTINCT v4) FILTER (WHERE kb) FROM ag'),
  ('SELECT array_agg(DISTINCT kc ORDER BY kc) FROM ag')
) v(q), LATERAL agg_check(v.q) c;

-- ===================================================================
-- Issue 12, D3: a fixed-scale numeric group key beside a map kernel
-- (the drive's key was read as a varlena: SIGSEGV in hash_numeric)
-- ===================================================================
CREATE TABLE d3 (k int8, n numeric(10,0), x int4);
INSERT INTO d3 SELECT g % 50, (g % 40) - 20, g FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) d3;
CHECKPOINT;
RESET ossd.force_offload;
-- default settings, as reported
EXPLAIN (VERBOSE, COSTS OFF) SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n;
SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n ORDER BY n;
SELECT * FROM agg_check($$SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n$$);
SELECT * FROM agg_counters($$SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n$$);
SELECT * FROM agg_check($$SELECT n, k, sum(n * 2), avg(n - k) FROM d3 GROUP BY n, k$$);
SELECT * FROM agg_check($$SELECT k, n, min(n), max(n), sum(n + 1) FROM d3 WHERE x < 15000 GROUP BY k, n$$);
SET ossd.force_offload = on;
SELECT * FROM agg_check($$SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n$$);
SELECT * FROM agg_check($$SELECT kn, kf, count(*), sum(kn * kf) FROM ag GROUP BY kn, kf$$);
DROP TABLE d3;

-- ===================================================================
-- HAVING: the drive's partial groups are merged on the host, then HAVING
-- is the OssdScan's Filter on each merged group; an aggregate that only
-- HAVING names is computed on the drive too.  A volatile HAVING or one
-- with a subquery stays with a host Agg (it must run once per group).
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > 900;
SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > 900 ORDER BY k4;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k2 FROM ag WHERE k4 < 10 GROUP BY k2 HAVING sum(vn) > -100000 AND count(*) > 1100;
SELECT k2 FROM ag WHERE k4 < 10 GROUP BY k2 HAVING sum(vn) > -100000 AND count(*) > 1100 ORDER BY k2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, avg(vn * 2) FROM ag GROUP BY k4 HAVING k4 > 5 OR avg(vn * 2) < 0;
SELECT k4, avg(vn * 2) FROM ag GROUP BY k4 HAVING k4 > 5 OR avg(vn * 2) < 0 ORDER BY k4;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM ag HAVING count(*) > 20000;
SELECT count(*) FROM ag HAVING count(*) > 20000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > random() * 0;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > (SELECT count(*) / 14 FROM ag);
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > 900'),
  ('SELECT k4, count(*) FROM ag GROUP BY k4 HAVING k4 > 5'),
  ('SELECT k4, count(*) FROM ag GROUP BY k4 HAVING sum(v4) > 0'),
  ('SELECT k4, count(*) FROM ag GROUP BY k4 HAVING sum(v4) IS NULL OR max(kt) = ''gamma'' AND k4 < 4'),
  ('SELECT kt, sum(vn) FROM ag GROUP BY kt HAVING count(vn) < 2390'),
  ('SELECT kn, kf FROM ag GROUP BY kn, kf HAVING sum(kn * kf) > 100'),
  ('SELECT count(*) FROM ag HAVING count(*) > 0'),
  ('SELECT count(*) FROM ag HAVING count(*) > 20000'),
  ('SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > random() * 0'),
  ('SELECT k4, count(*) FROM ag GROUP BY k4 HAVING count(*) > (SELECT count(*) / 14 FROM ag)')
) v(q), LATERAL agg_check(v.q) c;

-- ===================================================================
-- More groups than a drive thread's group table (65,536): the thread
-- sends the full table and goes on with an empty one; the host merges a
-- key that comes twice.  In key order (the TPC-H Q18 shape) and shuffled,
-- every row is aggregated on the drive (Host Rows from Drive: 0).
-- ===================================================================
CREATE TABLE manyg (k int8, q numeric(12,2), pad int4);
INSERT INTO manyg SELECT g / 2, (g % 50) + 0.25, g FROM generate_series(1, 300000) g;
CREATE TABLE manyg_shuffled (k int8, q numeric(12,2), pad int4);
INSERT INTO manyg_shuffled SELECT k, q, pad FROM manyg ORDER BY (pad::int8 * 7919) % 300007;
VACUUM (FREEZE, ANALYZE) manyg;
VACUUM (FREEZE, ANALYZE) manyg_shuffled;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM (SELECT k FROM manyg GROUP BY k HAVING sum(q) > 95) s;
SELECT count(*) FROM (SELECT k FROM manyg GROUP BY k HAVING sum(q) > 95) s;
SELECT * FROM agg_counters($$SELECT k, sum(q) FROM manyg GROUP BY k$$);
SELECT * FROM agg_counters($$SELECT k, sum(q) FROM manyg_shuffled GROUP BY k$$);
SELECT v.q, c.* FROM (VALUES
  ('SELECT k, sum(q), count(*), min(pad), max(pad) FROM manyg GROUP BY k'),
  ('SELECT k, sum(q), count(*), min(pad), max(pad) FROM manyg_shuffled GROUP BY k'),
  ('SELECT k FROM manyg GROUP BY k HAVING sum(q) > 95'),
  ('SELECT k FROM manyg_shuffled GROUP BY k HAVING sum(q) > 95'),
  ('SELECT pad % 100000, avg(q) FROM manyg GROUP BY pad % 100000')
) v(q), LATERAL agg_check(v.q) c;
DROP TABLE manyg, manyg_shuffled;

-- ===================================================================
-- Aggregation that stays on the host: DISTINCT beside other aggregates,
-- ORDER BY in the aggregate, grouping sets, window functions, SRFs, a
-- qual that is not pushed, joins (a plain SELECT DISTINCT of columns is
-- the drive's: a grouping with no aggregate, ossd_agg_planning.sql; so
-- are DISTINCT aggregates of one column and FILTER clauses, above)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, count(DISTINCT k4), count(*) FROM ag GROUP BY k2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, sum(v4) FILTER (WHERE length(kt) = 4) FROM ag GROUP BY k2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, k4, count(*) FROM ag GROUP BY ROLLUP (k2, k4);
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, count(*), rank() OVER (ORDER BY count(*)) FROM ag GROUP BY k2;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, count(*) FROM ag WHERE v4 % 2 = 0 GROUP BY k2;
SELECT v.q, c.* FROM (VALUES
  ('SELECT DISTINCT k2 FROM ag'), ('SELECT DISTINCT k2, count(*) FROM ag GROUP BY k2'),
  ('SELECT k2, count(DISTINCT k4) FROM ag GROUP BY k2'), ('SELECT k2, sum(DISTINCT v2) FROM ag GROUP BY k2'),
  ('SELECT k2, sum(v4) FILTER (WHERE kb) FROM ag GROUP BY k2'),
  ('SELECT k2, count(*) FILTER (WHERE v4 > 0), count(*) FROM ag GROUP BY k2'),
  ('SELECT k2, string_agg(kt, '','' ORDER BY kt, id) FROM ag WHERE id < 100 GROUP BY k2'),
  ('SELECT k2, array_agg(v4 ORDER BY id) FROM ag WHERE id < 100 GROUP BY k2'),
  ('SELECT k2, k4, count(*) FROM ag GROUP BY ROLLUP (k2, k4)'),
  ('SELECT k2, k4, count(*) FROM ag GROUP BY CUBE (k2, k4)'),
  ('SELECT k2, kc, sum(v4) FROM ag GROUP BY GROUPING SETS ((k2), (kc), ())'),
  ('SELECT k2, grouping(k2), count(*) FROM ag GROUP BY ROLLUP (k2)'),
  ('SELECT k2, count(*), rank() OVER (ORDER BY count(*), k2) FROM ag GROUP BY k2'),
  ('SELECT k2, sum(count(*)) OVER () FROM ag GROUP BY k2'),
  ('SELECT k2, count(*), generate_series(1, 2) FROM ag GROUP BY k2'),
  ('SELECT k2, count(*) FROM ag WHERE v4 % 2 = 0 GROUP BY k2'),
  ('SELECT k2, count(*) FROM ag WHERE vf > 10 AND v4 > 0 GROUP BY k2'),
  ('SELECT k2, count(*) FROM ag WHERE kt ILIKE ''A%'' GROUP BY k2'),
  ('SELECT k2, count(*) FROM ag WHERE random() >= 0 GROUP BY k2'),
  ('SELECT a.k2, count(*) FROM ag a JOIN ag b ON a.id = b.id WHERE a.id < 3000 GROUP BY a.k2'),
  ('SELECT k2, count(*) FROM (SELECT * FROM ag WHERE k4 < 5) s GROUP BY k2'),
  ('SELECT k2, count(*) FROM (SELECT * FROM ag WHERE k4 < 5 LIMIT 100000) s GROUP BY k2'),
  ('SELECT k2, count(*) FROM (SELECT * FROM ag UNION ALL SELECT * FROM ag) s GROUP BY k2'),
  ('SELECT s.k2, s.c FROM (SELECT k2, count(*) AS c FROM ag GROUP BY k2) s WHERE s.c > 1000'),
  ('SELECT k2, c FROM (SELECT k2, count(*) c FROM ag GROUP BY k2 ORDER BY k2 OFFSET 1) s'),
  ('SELECT (SELECT count(*) FROM ag WHERE k4 = 3), (SELECT sum(v4) FROM ag WHERE k2 = 1)'),
  ('SELECT k2, count(*) FROM ag GROUP BY k2 ORDER BY count(*) DESC, k2 LIMIT 2'),
  ('WITH g AS (SELECT k2, sum(vn) s FROM ag GROUP BY k2) SELECT * FROM g WHERE s > 0'),
  ('SELECT k2, count(*) FROM ag GROUP BY k2 UNION SELECT k4, count(*) FROM ag GROUP BY k4')
) v(q), LATERAL agg_check(v.q) c;
-- with ossd.aggregate_pushdown = off every aggregation is the host's
SET ossd.aggregate_pushdown = off;
SELECT * FROM agg_check($$SELECT k2, count(*), sum(v4), avg(vn) FROM ag GROUP BY k2$$);
RESET ossd.aggregate_pushdown;

-- ===================================================================
-- Rows and blocks the drive does not aggregate: blocks changed since
-- VACUUM (the host aggregates them), sums past 128 bits, TOAST
-- ===================================================================
CREATE TABLE ag_mix AS SELECT * FROM ag ORDER BY id;  -- (ORDER BY: the same layout whatever scans it)
VACUUM (FREEZE, ANALYZE) ag_mix;
CHECKPOINT;
UPDATE ag_mix SET v4 = v4 + 1 WHERE id % 500 = 0;
DELETE FROM ag_mix WHERE id % 700 = 0;
INSERT INTO ag_mix (id, k2, v4, vn, kt) SELECT 100000 + g, g % 3, g, g / 4.0, 'new' FROM generate_series(1, 300) g;
SELECT * FROM agg_counters($$SELECT k2, count(*), sum(v4), avg(vn), max(kt) FROM ag_mix GROUP BY k2$$);
SELECT k2, count(*), sum(v4), avg(vn), max(kt) FROM ag_mix GROUP BY k2 ORDER BY k2;
SELECT * FROM agg_check($$SELECT k2, count(*), sum(v4), avg(vn), max(kt) FROM ag_mix GROUP BY k2$$);
SELECT * FROM agg_check($$SELECT count(*), sum(v8), min(vt) FROM ag_mix$$);
SELECT * FROM agg_check($$SELECT kc, sum(vn * 2), count(*) FROM ag_mix GROUP BY kc$$);
-- inside the transaction that changes it
BEGIN;
DELETE FROM ag_mix WHERE k2 = 0;
UPDATE ag_mix SET vn = vn + 1 WHERE k2 = 1;
SELECT * FROM agg_check($$SELECT k2, count(*), sum(vn) FROM ag_mix GROUP BY k2$$);
SELECT k2, count(*), sum(vn) FROM ag_mix GROUP BY k2 ORDER BY k2;
ROLLBACK;
DROP TABLE ag_mix;
-- sums past what the drive's 128-bit accumulators hold: the host adds
-- those exactly
CREATE TABLE ag_big (k int4, n numeric, n20 numeric(38,0), t text);
INSERT INTO ag_big
  SELECT g % 3, CASE WHEN g % 1000 = 0 THEN 9.99e37 WHEN g % 777 = 0 THEN 'NaN'
                     WHEN g % 999 = 0 THEN 'Infinity' ELSE g / 3.0 END,
         CASE WHEN g % 2 = 0 THEN 99999999999999999999999999999999999999 ELSE -g END,
         CASE WHEN g % 100 = 0 THEN repeat('toast', 1000 + g) ELSE 'x' || g END
  FROM generate_series(1, 9000) g;
VACUUM (FREEZE, ANALYZE) ag_big;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, sum(n), avg(n), sum(n20), count(*) FROM ag_big GROUP BY k;
SELECT k, sum(n), avg(n), sum(n20), count(*) FROM ag_big GROUP BY k ORDER BY k;
SELECT * FROM agg_check($$SELECT k, sum(n), avg(n), sum(n20), count(*) FROM ag_big GROUP BY k$$);
SELECT * FROM agg_check($$SELECT k, sum(n), avg(n) FROM ag_big WHERE n <> 'NaN' GROUP BY k$$);
SELECT * FROM agg_check($$SELECT sum(n20), sum(n20 * 10), avg(n20 + n20) FROM ag_big$$);
SELECT sum(n20), sum(n20 * 10), avg(n20 + n20) FROM ag_big;
-- TOASTed text: min/max and keys
SELECT k, length(max(t)), length(min(t)), left(min(t), 12), count(t) FROM ag_big GROUP BY k ORDER BY k;
SELECT * FROM agg_check($$SELECT k, max(t), min(t), count(t) FROM ag_big GROUP BY k$$);
SELECT * FROM agg_check($$SELECT t, count(*) FROM ag_big WHERE k = 1 GROUP BY t$$);
SELECT * FROM agg_counters($$SELECT t, count(*) FROM ag_big WHERE k = 1 GROUP BY t$$);
DROP TABLE ag_big;

-- ===================================================================
-- The answer's types: sum(int2/int4) is int8, sum(int8) numeric, avg
-- numeric, as PostgreSQL's own aggregates
-- ===================================================================
SELECT pg_typeof(sum(v2)), pg_typeof(sum(v4)), pg_typeof(sum(v8)), pg_typeof(sum(vn)),
       pg_typeof(avg(v2)), pg_typeof(avg(v8)), pg_typeof(avg(vn)), pg_typeof(count(*)),
       pg_typeof(min(vd)), pg_typeof(max(vtz)), pg_typeof(min(vt))
  FROM ag WHERE k4 < 3;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(v2), sum(v8), avg(v2), scale(avg(vn)), scale(sum(vn)) FROM ag WHERE k4 < 3;
SELECT sum(v2), sum(v8), avg(v2), scale(avg(vn)), scale(sum(vn)) FROM ag WHERE k4 < 3;
SELECT * FROM agg_check($$SELECT sum(v2), sum(v8), avg(v2), scale(avg(vn)), scale(sum(vn)) FROM ag WHERE k4 < 3$$);
SELECT * FROM agg_check($$SELECT k4, scale(avg(vu)), scale(sum(vu)), avg(vu) FROM ag GROUP BY k4$$);

-- ===================================================================
-- The drive's interpreter aggregates as its JIT does (filters, map
-- kernels and partial groups by the other engine)
-- ===================================================================
SET ossd.kernel_mode = interpreter;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kc, sum(vn * 2), avg(vn + kf), count(*) FROM ag WHERE k4 < 12 GROUP BY kc;
SELECT kc, sum(vn * 2), avg(vn + kf), count(*) FROM ag WHERE k4 < 12 GROUP BY kc ORDER BY kc;
SELECT v.q, c.* FROM (VALUES
  ('SELECT count(*), count(v4), sum(v4), avg(v4), min(v4), max(v4) FROM ag WHERE k4 < 10'),
  ('SELECT sum(v8), avg(v8), min(v8), max(v8) FROM ag'), ('SELECT sum(vn), avg(vn), min(vn), max(vn) FROM ag'),
  ('SELECT sum(vu), avg(vu) FROM ag'), ('SELECT min(vt), max(vt), min(vd), max(vtz) FROM ag'),
  ('SELECT k2, count(*), sum(v4), avg(vn), min(vt), max(vts) FROM ag WHERE v8 > 0 GROUP BY k2'),
  ('SELECT kn, count(*), sum(vn) FROM ag GROUP BY kn'), ('SELECT kt, kc, count(*), sum(v2) FROM ag GROUP BY kt, kc'),
  ('SELECT kd, kts, kb, count(*) FROM ag GROUP BY kd, kts, kb'), ('SELECT id, count(*), sum(v4) FROM ag GROUP BY id'),
  ('SELECT k8, avg(vn * kf) FROM ag GROUP BY k8'), ('SELECT kn, kf, count(*), sum(kn * kf) FROM ag GROUP BY kn, kf'),
  ('SELECT sum(vn * vn * vn * vn * vn) FROM ag'), ('SELECT k2, count(*) FROM ag WHERE kt LIKE ''%a'' AND vn > 0 GROUP BY k2')
) v(q), LATERAL agg_check(v.q) c;
RESET ossd.kernel_mode;

RESET ossd.force_offload;
DROP TABLE ag;
DROP FUNCTION agg_counters(text);
DROP FUNCTION agg_check(text);
