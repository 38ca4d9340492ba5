--
-- ossd_having: HAVING pushdown (ossd_upper.c).  When the drive computes a
-- query's partial aggregates, the host merges each group and HAVING is
-- the OssdScan's own qual (Filter) on the merged group; an aggregate that
-- only HAVING names is computed on the drive too.  A HAVING with a
-- volatile function or a SubPlan stays with a host Agg (it runs once per
-- group there), and so does any query whose aggregates the drive cannot
-- compute.  Covered: each aggregate and key type the drive aggregates,
-- aggregates only in HAVING, OR / NOT / NULL tests, InitPlan and
-- prepared-statement parameters, volatile and stable functions, HAVING
-- in subqueries (TPC-H Q18's IN (... GROUP BY k HAVING sum(q) > X)), the
-- one-group aggregate of an empty input, errors, and groups split over
-- the drive's group-table flushes (more than 65,536 groups per drive
-- thread), which HAVING must see merged.  ossd_aggregates.sql has the
-- first HAVING section; this one goes further.
--
-- having_check(q): where q is aggregated ('drive': the plan has Device
-- Partial Aggregates), where its HAVING runs ('scan': a Filter on the
-- aggregating OssdScan; 'agg': a Filter on a host Agg node; 'none'), its
-- row count and whether the rows are those of ossd.enabled = off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql
CREATE FUNCTION having_check(q text, OUT aggregated text, OUT having_at text,
                             OUT n_rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
  node text := '';
BEGIN
  aggregated := 'host';
  having_at := 'none';
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ '(Custom Scan|Aggregate|Seq Scan|Result|Sort|Join|Append|Limit|Gather)' AND ln !~ 'Device Partial' THEN
      node := ln;
    END IF;
    IF ln ~ 'Device Partial Aggregates' THEN
      aggregated := 'drive';
    END IF;
    IF ln ~ '^ *Filter:' AND node ~ 'Custom Scan \(OssdScan\)$' THEN
      having_at := 'scan';
    ELSIF ln ~ '^ *Filter:' AND node ~ 'Aggregate' THEN
      having_at := 'agg';
    END IF;
  END LOOP;
  SELECT c.n_rows, c.same INTO n_rows, same FROM offload_check(q) c;
END
$$;

-- ===================================================================
-- Test data: group keys of every type the drive groups by, aggregate
-- inputs of every type it aggregates, NULLs in both
-- ===================================================================
CREATE TABLE hv (
  id   int4,
  k2   int2,
  k4   int4,
  k8   int8,
  kn   numeric(10,0),
  kf   numeric(8,2),
  kt   text,
  kvc  varchar(6),
  kc   char(1),
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
INSERT INTO hv
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i % 9 - 4) END,
       CASE WHEN i % 101 = 0 THEN NULL ELSE i % 17 END,
       CASE WHEN i % 103 = 0 THEN NULL ELSE (i % 6) * 5000000000 END,
       CASE WHEN i % 107 = 0 THEN NULL ELSE (i % 11) - 5 END,
       CASE WHEN i % 109 = 0 THEN NULL ELSE ((i % 7) - 3) * 0.75 END,
       CASE WHEN i % 113 = 0 THEN NULL ELSE (ARRAY['ant', 'bee', 'cat', 'dog', '', 'elk'])[i % 6 + 1] END,
       CASE WHEN i % 127 = 0 THEN NULL ELSE (ARRAY['p', 'q ', 'rr'])[i % 3 + 1] END,
       CASE WHEN i % 131 = 0 THEN NULL ELSE (ARRAY['A', 'N', 'R', 'F'])[i % 4 + 1] END,
       CASE WHEN i % 137 = 0 THEN NULL ELSE date '2021-03-01' + i % 13 END,
       CASE WHEN i % 139 = 0 THEN NULL ELSE timestamp '2021-03-01' + (i % 8) * interval '90 minutes' END,
       CASE WHEN i % 149 = 0 THEN NULL ELSE i % 3 = 0 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 2000 - 1000) END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 7919) % 200000 - 100000 END,
       CASE WHEN i % 23 = 0 THEN NULL WHEN i = 77 THEN 9223372036854775000 ELSE i::int8 * 3000000019 END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE ((i * 104729) % 1000000) / 100.0 - 5000 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE ((i * 17) % 1000) / 3.0 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 1000) / 16.0 - 20 END,
       CASE WHEN i % 41 = 0 THEN NULL ELSE 'v' || lpad((i * 31 % 1009)::text, 4, '0') END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE date '1999-01-01' + (i * 11) % 8000 END,
       CASE WHEN i % 47 = 0 THEN NULL ELSE timestamp '1999-01-01' + i * interval '97 minutes' END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE timestamptz '1999-01-01 00:00+00' + i * interval '61 minutes' END
FROM generate_series(1, 15000) i;
-- a key whose every input is NULL: sum() and min() of that group are NULL
UPDATE hv SET v4 = NULL, vn = NULL, vd = NULL, vt = NULL WHERE k4 = 16;
VACUUM (FREEZE, ANALYZE) hv;
CHECKPOINT;
SET ossd.force_offload = on;

-- ===================================================================
-- HAVING on each aggregate the drive computes, over each input type:
-- the Filter of the aggregating OssdScan, evaluated on the merged groups
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k4, count(*), sum(v8) FROM hv GROUP BY k4 HAVING sum(v8) > 2000000000000000;
SELECT k4, count(*), sum(v8) FROM hv GROUP BY k4 HAVING sum(v8) > 2000000000000000 ORDER BY k4;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kt, min(vd), max(vts) FROM hv GROUP BY kt HAVING min(vd) < date '1999-01-20' AND max(vts) > timestamp '2001-10-07 04:00';
SELECT kt, min(vd), max(vts) FROM hv GROUP BY kt HAVING min(vd) < date '1999-01-20' AND max(vts) > timestamp '2001-10-07 04:00'
 ORDER BY kt;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) >= 875'),
  ('SELECT k4, count(v2) FROM hv GROUP BY k4 HAVING count(v2) < 807'),
  ('SELECT k4, count(vt) FROM hv GROUP BY k4 HAVING count(vt) = 0'),
  ('SELECT k4, sum(v2) FROM hv GROUP BY k4 HAVING sum(v2) > -25000'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) < -500000'),
  ('SELECT k4, sum(v8) FROM hv GROUP BY k4 HAVING sum(v8) BETWEEN 1e16 AND 2.3e16'),
  ('SELECT k4, sum(vn) FROM hv GROUP BY k4 HAVING sum(vn) > 1000.5'),
  ('SELECT k4, sum(vu) FROM hv GROUP BY k4 HAVING sum(vu) >= 141000'),
  ('SELECT k4, sum(vf) FROM hv GROUP BY k4 HAVING sum(vf) > 9000'),
  ('SELECT k4, avg(v2) FROM hv GROUP BY k4 HAVING avg(v2) > -30'),
  ('SELECT k4, avg(v4) FROM hv GROUP BY k4 HAVING avg(v4) < 0'),
  ('SELECT k4, avg(v8) FROM hv GROUP BY k4 HAVING avg(v8) > 22500000000000'),
  ('SELECT k4, avg(vn) FROM hv GROUP BY k4 HAVING avg(vn) BETWEEN -100 AND 100'),
  ('SELECT k4, avg(vf) FROM hv GROUP BY k4 HAVING avg(vf) > 11.2'),
  ('SELECT k4, min(v2), max(v2) FROM hv GROUP BY k4 HAVING min(v2) > -1000 OR max(v2) < 999'),
  ('SELECT k4, min(v4) FROM hv GROUP BY k4 HAVING min(v4) < -99950'),
  ('SELECT k4, max(v8) FROM hv GROUP BY k4 HAVING max(v8) > 44000000000000'),
  ('SELECT k4, min(vn) FROM hv GROUP BY k4 HAVING min(vn) > -4999'),
  ('SELECT k4, max(vd) FROM hv GROUP BY k4 HAVING max(vd) = date ''2020-11-25'''),
  ('SELECT k4, min(vts) FROM hv GROUP BY k4 HAVING min(vts) < timestamp ''1999-01-02'''),
  ('SELECT k4, max(vtz) FROM hv GROUP BY k4 HAVING max(vtz) > timestamptz ''2000-09-15 00:00+00'''),
  ('SELECT k4, min(vt), max(vt) FROM hv GROUP BY k4 HAVING min(vt) > ''v0000'' AND max(vt) < ''v1008'''),
  ('SELECT k4, max(vt) FROM hv GROUP BY k4 HAVING max(vt) IS NULL')
) v(q), LATERAL having_check(v.q) c;
-- min/max of an unconstrained numeric (ties of different scales) and
-- count(DISTINCT) are host aggregates: HAVING stays with the host Agg
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, min(vu) FROM hv GROUP BY k4 HAVING min(vu) > 0.5'),
  ('SELECT k4, count(DISTINCT v2) FROM hv GROUP BY k4 HAVING count(DISTINCT v2) > 800'),
  ('SELECT k4, sum(v4) FILTER (WHERE kb) FROM hv GROUP BY k4 HAVING sum(v4) FILTER (WHERE kb) > 0'),
  ('SELECT k4, bool_and(kb) FROM hv GROUP BY k4 HAVING bool_or(kb)')
) v(q), LATERAL having_check(v.q) c;

-- ===================================================================
-- HAVING on the group keys, each key type: a HAVING that names only
-- keys is moved to WHERE by the planner (and goes to the drive as a
-- Device Filter); with an aggregate beside it, it stays HAVING
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, count(*) FROM hv GROUP BY k2 HAVING k2 > 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k2, count(*) FROM hv GROUP BY k2 HAVING k2 > 0 OR count(*) < 1600;
SELECT k2, count(*) FROM hv GROUP BY k2 HAVING k2 > 0 OR count(*) < 1600 ORDER BY k2 NULLS FIRST;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k2, count(*) FROM hv GROUP BY k2 HAVING k2 IS NULL OR count(*) > 1670'),
  ('SELECT k8, sum(v4) FROM hv GROUP BY k8 HAVING k8 >= 10000000000 AND sum(v4) > 0'),
  ('SELECT kn, avg(vn) FROM hv GROUP BY kn HAVING kn <> 0 AND avg(vn) < 0'),
  ('SELECT kf, count(*) FROM hv GROUP BY kf HAVING kf * count(*) > 1000'),
  ('SELECT kt, count(*) FROM hv GROUP BY kt HAVING kt > ''b'' OR count(*) < 2480'),
  ('SELECT kt, count(*) FROM hv GROUP BY kt HAVING kt = '''' OR kt IS NULL'),
  ('SELECT kvc, sum(v2) FROM hv GROUP BY kvc HAVING kvc = ''q '' OR sum(v2) < 0'),
  ('SELECT kc, count(*) FROM hv GROUP BY kc HAVING kc IN (''A'', ''F'') AND count(*) > 3700'),
  ('SELECT kd, max(v8) FROM hv GROUP BY kd HAVING kd > date ''2021-03-05'' AND max(v8) > 0'),
  ('SELECT kts, min(v4) FROM hv GROUP BY kts HAVING kts >= timestamp ''2021-03-01 06:00'' OR min(v4) > -99000'),
  ('SELECT kb, count(*) FROM hv GROUP BY kb HAVING kb AND count(*) > 1'),
  ('SELECT kb, count(*) FROM hv GROUP BY kb HAVING kb IS NOT TRUE'),
  ('SELECT k2, k4, count(*) FROM hv GROUP BY k2, k4 HAVING k2 + k4 > 10 AND count(*) > 95'),
  ('SELECT kt, kc, sum(vn) FROM hv GROUP BY kt, kc HAVING sum(vn) > 0 AND kc < ''N''')
) v(q), LATERAL having_check(v.q) c;

-- ===================================================================
-- Aggregates that only HAVING names: computed on the drive with the
-- output's, merged on the host, not returned
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k4 FROM hv GROUP BY k4 HAVING max(v4) - min(v4) > 199900 AND count(vn) > 820;
SELECT k4 FROM hv GROUP BY k4 HAVING max(v4) - min(v4) > 199900 AND count(vn) > 820 ORDER BY k4;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT kt, sum(vn) FROM hv GROUP BY kt HAVING avg(vn) > 0;
SELECT kt, sum(vn) FROM hv GROUP BY kt HAVING avg(vn) > 0 ORDER BY kt;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4 FROM hv GROUP BY k4 HAVING max(v4) - min(v4) > 199900 AND count(vn) > 820'),
  ('SELECT kt, sum(vn) FROM hv GROUP BY kt HAVING avg(vn) > 0'),
  ('SELECT kc FROM hv GROUP BY kc HAVING max(vd) - min(vd) > 7990'),
  ('SELECT k2, count(*) FROM hv GROUP BY k2 HAVING sum(v8) / count(v8) > 22000000000000'),
  ('SELECT kd FROM hv GROUP BY kd HAVING max(vtz) - min(vtz) > interval ''600 days'''),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING sum(vf) > avg(vf) * 800'),
  ('SELECT k4 FROM hv GROUP BY k4 HAVING min(vt) < ''v0002'''),
  ('SELECT 1 AS one FROM hv GROUP BY kb HAVING count(*) > 4000')
) v(q), LATERAL having_check(v.q) c;
-- the same aggregate in the output and in HAVING, spelt differently
SELECT * FROM having_check($$SELECT k4, sum(v4) AS s FROM hv GROUP BY k4 HAVING sum(v4) > 100000 OR SUM(hv.v4) < -300000$$);

-- ===================================================================
-- OR, NOT and NULL tests: a group whose sum is NULL (all its inputs
-- NULL, k4 = 16) passes IS NULL and fails every comparison, NOT of a
-- NULL comparison is NULL too
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) IS NULL;
SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) IS NULL;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING NOT (sum(v4) > 0);
SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING NOT (sum(v4) > 0) ORDER BY k4 NULLS FIRST;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) IS NOT NULL'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING NOT (sum(v4) > 0)'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING (sum(v4) > 0) IS NOT TRUE'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING (sum(v4) > 0) IS UNKNOWN'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING (sum(v4) < 0) IS FALSE'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > 0 OR sum(v4) IS NULL'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING NOT (sum(v4) > 0 OR count(*) < 874)'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING NOT (sum(v4) > 0) AND NOT (count(*) > 874)'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING coalesce(sum(v4), 0) = 0'),
  ('SELECT k4, min(vt) FROM hv GROUP BY k4 HAVING coalesce(min(vt), ''none'') = ''none'''),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING CASE WHEN count(v4) = 0 THEN true ELSE sum(v4) > 0 END'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING nullif(count(v4), 0) IS NULL'),
  ('SELECT k4, sum(vn) FROM hv GROUP BY k4 HAVING sum(vn) IS DISTINCT FROM NULL'),
  ('SELECT k4, sum(vn) FROM hv GROUP BY k4 HAVING sum(vn) IS NOT DISTINCT FROM NULL'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > NULL'),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) IN (873, 875)'),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) NOT IN (873, 874)'),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) = ANY (ARRAY[874, 148])'),
  ('SELECT k4, max(vt) FROM hv GROUP BY k4 HAVING max(vt) LIKE ''v100%'''),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING greatest(count(*), 874) = count(*)'),
  ('SELECT k4 FROM hv GROUP BY k4 HAVING true'),
  ('SELECT k4 FROM hv GROUP BY k4 HAVING false')
) v(q), LATERAL having_check(v.q) c;
-- the NULL key's group
SELECT * FROM having_check($$SELECT k4, count(*) FROM hv GROUP BY k4 HAVING k4 IS NULL AND count(*) > 0$$);
SELECT k4, count(*) FROM hv GROUP BY k4 HAVING k4 IS NULL AND count(*) > 0;

-- ===================================================================
-- One group, no GROUP BY: HAVING decides whether the single row is
-- returned; over an empty input count(*) is 0 and sum() NULL, and the
-- row is still there when HAVING holds
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING count(*) = 0;
SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING count(*) = 0;
SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING sum(v4) IS NULL;
SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING count(*) > 0;
SELECT v.q, c.* FROM (VALUES
  ('SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING count(*) = 0'),
  ('SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING sum(v4) IS NULL'),
  ('SELECT count(*), sum(v4) FROM hv WHERE id < 0 HAVING count(*) > 0'),
  ('SELECT max(vd) FROM hv WHERE id < 0 HAVING max(vd) IS NULL'),
  ('SELECT count(*) FROM hv HAVING count(*) = 15000'),
  ('SELECT count(*) FROM hv HAVING count(*) <> 15000'),
  ('SELECT sum(vn), avg(vf) FROM hv WHERE k4 = 3 HAVING sum(vn) > 0 AND avg(vf) > 0'),
  ('SELECT min(v2) FROM hv WHERE kb HAVING min(v2) = -1000'),
  ('SELECT count(*) FROM hv WHERE k4 = 16 HAVING sum(v4) IS NULL')
) v(q), LATERAL having_check(v.q) c;

-- ===================================================================
-- Parameters: an InitPlan (an uncorrelated scalar subquery, run once
-- before the scan) is a Param in HAVING and is pushed; a prepared
-- statement's $1 too, custom and generic plans; a correlated subquery
-- in HAVING is a SubPlan per group and stays with the host Agg
-- ===================================================================
CREATE TABLE hv_lim (name text, lim numeric) TABLESPACE pg_default;
INSERT INTO hv_lim VALUES ('count', 874), ('sum', 0), ('none', NULL);
ANALYZE hv_lim;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) > (SELECT lim FROM hv_lim WHERE name = 'count');
SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) > (SELECT lim FROM hv_lim WHERE name = 'count') ORDER BY k4;
-- the InitPlan over the drive table itself (an aggregating OssdScan of
-- its own)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > (SELECT avg(v4) * 800 FROM hv);
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) > (SELECT lim FROM hv_lim WHERE name = ''count'')'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > (SELECT lim FROM hv_lim WHERE name = ''sum'')'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > (SELECT lim FROM hv_lim WHERE name = ''none'')'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > (SELECT lim FROM hv_lim WHERE name = ''absent'')'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING sum(v4) > (SELECT avg(v4) * 800 FROM hv)'),
  ('SELECT k4, sum(v4) FROM hv GROUP BY k4 HAVING count(*) = (SELECT max(c) FROM (SELECT count(*) AS c FROM hv GROUP BY k4) m)'),
  ('SELECT kt FROM hv GROUP BY kt HAVING max(vt) = (SELECT max(vt) FROM hv)'),
  ('SELECT k4 FROM hv GROUP BY k4 HAVING count(*) > ALL (SELECT lim FROM hv_lim WHERE lim IS NOT NULL)'),
  ('SELECT k4 FROM hv GROUP BY k4 HAVING count(*) IN (SELECT count(*) FROM hv WHERE k4 = 3 GROUP BY k4)'),
  ('SELECT k4 FROM hv GROUP BY k4 HAVING EXISTS (SELECT 1 FROM hv_lim WHERE lim > 0)')
) v(q), LATERAL having_check(v.q) c;
-- correlated: the subquery names the group key
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k4, count(*) FROM hv h GROUP BY k4 HAVING count(*) > (SELECT count(*) FROM hv_lim WHERE lim < h.k4) * 874;
SELECT * FROM having_check($$SELECT k4, count(*) FROM hv h GROUP BY k4
  HAVING count(*) > (SELECT count(*) FROM hv_lim WHERE lim < h.k4) * 874$$);
-- prepared statements: $1 in HAVING
PREPARE hv_p (bigint, numeric) AS
  SELECT k4, count(*), sum(vn) FROM hv GROUP BY k4 HAVING count(*) > $1 AND sum(vn) > $2;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE hv_p(873, 0);
SELECT * FROM offload_check($$EXECUTE hv_p(873, 0)$$);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE hv_p(873, 0);
SELECT * FROM offload_check($$EXECUTE hv_p(873, 0)$$);
SELECT * FROM offload_check($$EXECUTE hv_p(0, -1e9)$$);
SELECT * FROM offload_check($$EXECUTE hv_p(NULL, 0)$$);
EXECUTE hv_p(873, 10000);
RESET plan_cache_mode;
DEALLOCATE hv_p;
-- PL/pgSQL variables are parameters too
CREATE FUNCTION hv_groups_over(n bigint) RETURNS TABLE (k int4, c bigint) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT hv.k4, count(*) FROM hv GROUP BY hv.k4 HAVING count(*) > n ORDER BY 1;
END
$$;
SELECT * FROM hv_groups_over(874);
SELECT * FROM offload_check($$SELECT * FROM hv_groups_over(873)$$);
DROP FUNCTION hv_groups_over(bigint);

-- ===================================================================
-- Functions in HAVING: volatile ones (random(), a VOLATILE SQL
-- function) keep the host Agg; stable and immutable ones are pushed
-- ===================================================================
-- (a VOLATILE SQL function whose body is not volatile is inlined: PL/pgSQL
-- is never inlined)
CREATE FUNCTION hv_vol(x bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS 'BEGIN RETURN x; END';
CREATE FUNCTION hv_imm(x bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT x * 2';
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) > 873 + random() * 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, count(*) FROM hv GROUP BY k4 HAVING hv_vol(count(*)) > 874;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k4, count(*) FROM hv GROUP BY k4 HAVING hv_imm(count(*)) > 1748;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) > 873 + random() * 0'),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING hv_vol(count(*)) > 874'),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING hv_imm(count(*)) > 1748'),
  ('SELECT k4, max(vtz) FROM hv GROUP BY k4 HAVING max(vtz) < now()'),
  ('SELECT k4, max(vts) FROM hv GROUP BY k4 HAVING max(vts) < localtimestamp'),
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING abs(sum(v4)) > 700000'),
  ('SELECT k4, min(vt) FROM hv GROUP BY k4 HAVING length(min(vt)) = 5 AND upper(max(vt)) > ''V1'''),
  ('SELECT kd, count(*) FROM hv GROUP BY kd HAVING extract(dow FROM kd) = 1 OR count(*) < 1150'),
  ('SELECT k4, sum(vn) FROM hv GROUP BY k4 HAVING round(sum(vn), -3) = 0'),
  ('SELECT k4, avg(vf) FROM hv GROUP BY k4 HAVING sqrt(abs(avg(vf))) > 3.3')
) v(q), LATERAL having_check(v.q) c;
DROP FUNCTION hv_vol(bigint), hv_imm(bigint);

-- ===================================================================
-- Errors in HAVING are raised as offload off raises them (division by
-- zero on the merged group; an overflow of a cast)
-- ===================================================================
SELECT k4 FROM hv GROUP BY k4 HAVING sum(v4) / (count(*) - 873) > 0;
SET ossd.enabled = off;
SELECT k4 FROM hv GROUP BY k4 HAVING sum(v4) / (count(*) - 873) > 0;
RESET ossd.enabled;
SELECT k4 FROM hv GROUP BY k4 HAVING sum(v8)::int4 > 0;
SET ossd.enabled = off;
SELECT k4 FROM hv GROUP BY k4 HAVING sum(v8)::int4 > 0;
RESET ossd.enabled;
-- the error condition on no group at all: no error
SELECT * FROM having_check($$SELECT k4 FROM hv GROUP BY k4 HAVING count(*) > 10000 AND sum(v4) / 0 > 0$$);

-- ===================================================================
-- HAVING in subqueries.  TPC-H Q18's shape: orders whose lines sum to
-- more than a quantity, IN (SELECT key ... GROUP BY key HAVING ...);
-- the grouped subquery aggregates on the drive with its HAVING on the
-- OssdScan, the outer query joins its keys
-- ===================================================================
CREATE TABLE hv_ord (o_key int8, o_cust int4, o_date date, o_total numeric(12,2));
CREATE TABLE hv_li (l_key int8, l_line int4, l_qty numeric(12,2), l_price numeric(12,2), l_flag char(1));
INSERT INTO hv_ord SELECT g, g % 400 + 1, date '1995-01-01' + g % 1000, (g % 977) * 10.5 FROM generate_series(1, 6000) g;
INSERT INTO hv_li SELECT o, l, ((o * 7 + l * 13) % 50) + 1, ((o + l) % 1000) * 2.25 + 1,
       (ARRAY['A', 'N', 'R'])[(o + l) % 3 + 1]
  FROM generate_series(1, 6000) o, generate_series(1, 7) l WHERE l <= o % 7 + 1;
VACUUM (FREEZE, ANALYZE) hv_ord, hv_li;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.o_cust, o.o_key, o.o_date, o.o_total, sum(l.l_qty)
  FROM hv_ord o JOIN hv_li l ON l.l_key = o.o_key
 WHERE o.o_key IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)
 GROUP BY o.o_cust, o.o_key, o.o_date, o.o_total
 ORDER BY o.o_total DESC, o.o_date, o.o_key LIMIT 10;
SELECT o.o_cust, o.o_key, o.o_date, o.o_total, sum(l.l_qty)
  FROM hv_ord o JOIN hv_li l ON l.l_key = o.o_key
 WHERE o.o_key IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)
 GROUP BY o.o_cust, o.o_key, o.o_date, o.o_total
 ORDER BY o.o_total DESC, o.o_date, o.o_key LIMIT 10;
SELECT * FROM offload_check($$SELECT o.o_cust, o.o_key, o.o_date, o.o_total, sum(l.l_qty)
  FROM hv_ord o JOIN hv_li l ON l.l_key = o.o_key
 WHERE o.o_key IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)
 GROUP BY o.o_cust, o.o_key, o.o_date, o.o_total$$);
SELECT v.q, c.* FROM (VALUES
  ('SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200'),
  ('SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200 AND count(*) = 7'),
  ('SELECT l_key, count(*) FROM hv_li GROUP BY l_key HAVING count(*) = 1 AND min(l_flag) = ''A'''),
  ('SELECT o_key FROM hv_ord WHERE o_key IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)'),
  ('SELECT o_key FROM hv_ord WHERE o_key NOT IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) <= 200)'),
  ('SELECT o_key FROM hv_ord o WHERE EXISTS (SELECT 1 FROM hv_li l WHERE l.l_key = o.o_key GROUP BY l.l_key HAVING sum(l.l_qty) > 200) AND o.o_key < 300'),
  ('SELECT o_cust, count(*) FROM hv_ord WHERE o_key IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING max(l_price) > 2200) GROUP BY o_cust HAVING count(*) > 1')
) v(q), LATERAL having_check(v.q) c;
-- HAVING in a derived table joined to another, in a CTE, and twice
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.o_cust, s.q FROM hv_ord o
  JOIN (SELECT l_key, sum(l_qty) AS q FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 210) s ON s.l_key = o.o_key;
SELECT * FROM offload_check($$SELECT o.o_cust, s.q FROM hv_ord o
  JOIN (SELECT l_key, sum(l_qty) AS q FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 210) s ON s.l_key = o.o_key$$);
SELECT * FROM offload_check($$WITH big AS (SELECT l_key, sum(l_qty) AS q FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)
SELECT count(*), sum(q), min(l_key), max(l_key) FROM big$$);
WITH big AS (SELECT l_key, sum(l_qty) AS q FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)
SELECT count(*), sum(q), min(l_key), max(l_key) FROM big;
SELECT * FROM offload_check($$SELECT a.l_key FROM
  (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 180) a
  JOIN (SELECT l_key FROM hv_li GROUP BY l_key HAVING min(l_price) > 1000) b ON a.l_key = b.l_key$$);
-- a grouped query over the grouped subquery (the outer HAVING on a host
-- Agg: its input is not a relation)
SELECT * FROM having_check($$SELECT n, count(*) FROM
  (SELECT l_key, count(*) AS n FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 100) s GROUP BY n HAVING count(*) > 100$$);
-- a LATERAL grouped subquery correlated with the outer row: run per row,
-- its HAVING with it
SELECT * FROM offload_check($$SELECT o.o_key, s.q FROM hv_ord o,
  LATERAL (SELECT sum(l_qty) AS q FROM hv_li l WHERE l.l_key = o.o_key HAVING sum(l_qty) > 190) s
 WHERE o.o_key < 60$$);
-- HAVING with ORDER BY and LIMIT above it
SELECT * FROM offload_check($$SELECT l_key, sum(l_qty) FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200
 ORDER BY sum(l_qty) DESC, l_key LIMIT 5$$);
SELECT l_key, sum(l_qty) FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200 ORDER BY sum(l_qty) DESC, l_key LIMIT 5;

-- ===================================================================
-- Parallel query: the aggregating OssdScan is not parallel (the drive's
-- threads are its parallelism); HAVING is the same with workers allowed
-- ===================================================================
SET max_parallel_workers_per_gather = 2;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k4, count(*) FROM hv GROUP BY k4 HAVING count(*) >= 875'),
  ('SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200'),
  ('SELECT o_key FROM hv_ord WHERE o_key IN (SELECT l_key FROM hv_li GROUP BY l_key HAVING sum(l_qty) > 200)')
) v(q), LATERAL having_check(v.q) c;
SET max_parallel_workers_per_gather = 0;

-- ===================================================================
-- More groups than a drive thread's group table holds (65,536): the
-- thread sends its full table and starts an empty one, so a key's rows
-- can reach the host in several partial groups.  HAVING must see the
-- merged group: with every key on two rows far apart (shuffled), each
-- partial group may hold one row, and HAVING count(*) = 1 must still
-- return nothing.  Keys of int8, text and two columns; the NULL key;
-- keys in physical order (at most one flush boundary per key).
-- ===================================================================
CREATE TABLE hv_many (k int8, kt text, q numeric(12,2), n int4);
INSERT INTO hv_many SELECT g % 75000, 'key' || (g % 75000), (g % 37) + 0.5, g FROM generate_series(0, 149999) g;
INSERT INTO hv_many SELECT NULL, NULL, 1, -g FROM generate_series(1, 3) g;
CREATE TABLE hv_many_ord (k int8, q numeric(12,2), n int4);
INSERT INTO hv_many_ord SELECT g / 2, (g % 37) + 0.5, g FROM generate_series(0, 149999) g;
VACUUM (FREEZE, ANALYZE) hv_many, hv_many_ord;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k FROM hv_many GROUP BY k HAVING count(*) = 1;
SELECT k FROM hv_many GROUP BY k HAVING count(*) = 1;
SELECT count(*) FROM (SELECT k FROM hv_many GROUP BY k HAVING count(*) = 2) s;
-- the drive did send keys in more than one partial group (from a full
-- table it flushed, or from two of its threads): more partial groups
-- than groups, which HAVING above saw merged
DO $$
DECLARE
  ln text;
  sent bigint;
BEGIN
  FOR ln IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT k FROM hv_many GROUP BY k HAVING count(*) = 1 LOOP
    IF ln ~ 'Partial Groups from Drive' THEN
      sent := substring(ln FROM 'Partial Groups from Drive: (\d+)')::bigint;
    END IF;
  END LOOP;
  RAISE NOTICE 'partial groups from the drive above the 75001 groups: %', sent > 75001;
END
$$;
SELECT v.q, c.* FROM (VALUES
  ('SELECT k FROM hv_many GROUP BY k HAVING count(*) = 1'),
  ('SELECT k FROM hv_many GROUP BY k HAVING min(n) = max(n)'),
  ('SELECT k, sum(q) FROM hv_many GROUP BY k HAVING sum(q) > 50'),
  ('SELECT kt FROM hv_many GROUP BY kt HAVING count(*) < 2'),
  ('SELECT k, kt FROM hv_many GROUP BY k, kt HAVING count(*) = 1 OR k IS NULL'),
  ('SELECT k, sum(q) FROM hv_many_ord GROUP BY k HAVING sum(q) > 60'),
  ('SELECT k FROM hv_many_ord GROUP BY k HAVING min(n) + 1 <> max(n) OR count(*) = 1')
) v(q), LATERAL having_check(v.q) c;
-- the Q18 shape over them: keys whose two rows together pass
SELECT count(*), sum(k) FROM hv_many WHERE k IN (SELECT k FROM hv_many GROUP BY k HAVING sum(q) > 50);
SELECT * FROM offload_check($$SELECT count(*), sum(k) FROM hv_many WHERE k IN (SELECT k FROM hv_many GROUP BY k HAVING sum(q) > 50)$$);
DROP TABLE hv_many, hv_many_ord;

RESET ossd.force_offload;
DROP TABLE hv, hv_lim, hv_ord, hv_li;
DROP FUNCTION having_check(text);
