--
-- ossd_agg_planning: where the planner puts an aggregation at the
-- default settings (nothing forced), from what the drive would send back
-- (pg_ossd/ossd_upper.c, docs/cost-model.md): a few groups always come
-- back as partial groups; many groups (more than a drive thread's table
-- of 65,536) come back about once per group when the first key is in the
-- table's physical order (pg_stats correlation near 1: lineitem by
-- l_orderkey, TPC-H Q18's subquery) and about once per row otherwise,
-- which a host HashAggregate beats.  HAVING scales the rows out.  Every
-- answer is checked against offload off.
--
SET max_parallel_workers_per_gather = 0;
SET default_tablespace = ossd;
-- a host HashAggregate of 100,001 groups in memory (with the default 4MB
-- it would be priced as spilling, and lose to the drive even shuffled)
SET work_mem = '64MB';
SET extra_float_digits = 0;

-- offload_check(q): tests/pg/regress-helpers.sql

-- ===================================================================
-- Test data: the same 400,000 rows (100,001 keys, four rows each) in key
-- order and shuffled; n_distinct pinned so that ANALYZE's sample does not
-- move the estimates
-- ===================================================================
CREATE TABLE apo (k int8, q numeric(12,2), pad text);
INSERT INTO apo SELECT g / 4, (g % 50) + 0.25, repeat('p', 10) FROM generate_series(1, 400000) g;
CREATE TABLE aps (k int8, q numeric(12,2), pad text);
INSERT INTO aps SELECT k, q, pad FROM apo ORDER BY (k * 7919) % 100003, q;
ALTER TABLE apo ALTER COLUMN k SET (n_distinct = 100001);
ALTER TABLE aps ALTER COLUMN k SET (n_distinct = 100001);
VACUUM (FREEZE, ANALYZE) apo, aps;
CHECKPOINT;
SELECT tablename, n_distinct, round(correlation::numeric, 1) AS correlation
  FROM pg_stats WHERE tablename IN ('apo', 'aps') AND attname = 'k' ORDER BY 1;

-- ===================================================================
-- Many groups in key order: the drive aggregates (each thread sends its
-- table when full and starts again; a key is split only at the edges)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, sum(q), count(*) FROM apo GROUP BY k;
SELECT * FROM offload_check($$SELECT k, sum(q), count(*) FROM apo GROUP BY k$$);
-- the TPC-H Q18 shape: a HAVING on the merged groups, in an IN subquery
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM apo WHERE k IN (SELECT k FROM apo GROUP BY k HAVING sum(q) > 180);
SELECT count(*) FROM apo WHERE k IN (SELECT k FROM apo GROUP BY k HAVING sum(q) > 180);
SELECT * FROM offload_check($$SELECT count(*) FROM apo WHERE k IN (SELECT k FROM apo GROUP BY k HAVING sum(q) > 180)$$);

-- ===================================================================
-- The same keys shuffled: a drive thread would send about one partial
-- group per row, so the host aggregates the rows of a plain scan
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, sum(q), count(*) FROM aps GROUP BY k;
SELECT * FROM offload_check($$SELECT k, sum(q), count(*) FROM aps GROUP BY k$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT k FROM aps GROUP BY k HAVING sum(q) > 180;
SELECT * FROM offload_check($$SELECT k FROM aps GROUP BY k HAVING sum(q) > 180$$);
-- forced, the drive aggregates it all the same, and the answer holds
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, sum(q), count(*) FROM aps GROUP BY k;
SELECT * FROM offload_check($$SELECT k, sum(q), count(*) FROM aps GROUP BY k$$);
RESET ossd.force_offload;

-- with PostgreSQL's default work_mem the host's HashAggregate of 100,001
-- groups is priced as spilling to disk (and a Sort + GroupAggregate as a
-- sort of 400,000 rows): the drive, which sends its groups merged in the
-- host's memory, is then the cheaper one even shuffled
SET work_mem = '4MB';
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, sum(q), count(*) FROM aps GROUP BY k;
SELECT * FROM offload_check($$SELECT k, sum(q), count(*) FROM aps GROUP BY k$$);
SET work_mem = '64MB';

-- ===================================================================
-- Few groups, whatever the order: always the drive's (50 values of q)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT q, count(*), sum(k) FROM aps GROUP BY q;
SELECT * FROM offload_check($$SELECT q, count(*), sum(k) FROM aps GROUP BY q$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT q, count(*) FROM apo GROUP BY q HAVING count(*) > 8000;
SELECT q, count(*) FROM apo GROUP BY q HAVING count(*) > 8000 ORDER BY q;
SELECT * FROM offload_check($$SELECT q, count(*) FROM apo GROUP BY q HAVING count(*) > 8000$$);

-- ===================================================================
-- SELECT DISTINCT and a GROUP BY without aggregates: groups of keys
-- only, the duplicates of each drive thread's share dropped on the drive
-- and those between shares on the host; a NULL key is one group, as in
-- PostgreSQL.  Not pushed: DISTINCT ON, DISTINCT over an expression,
-- DISTINCT of a join; over an aggregate's results the DISTINCT is the
-- host's (the aggregation below it the drive's)
-- ===================================================================
CREATE TABLE apd (a int4, t text COLLATE "C", d date, pad text);
INSERT INTO apd
  SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE g % 40 END,
         CASE WHEN g % 89 = 0 THEN NULL ELSE 'tag' || (g % 13) END,
         date '2020-01-01' + (g % 30), repeat('d', 40)
    FROM generate_series(1, 60000) g;
VACUUM (FREEZE, ANALYZE) apd;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT DISTINCT a, t FROM apd;
SELECT count(*), count(a), count(t) FROM (SELECT DISTINCT a, t FROM apd) s;
SELECT * FROM offload_check($$SELECT DISTINCT a, t FROM apd$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT DISTINCT t FROM apd WHERE d < date '2020-01-03' ORDER BY t;
SELECT DISTINCT t FROM apd WHERE d < date '2020-01-03' ORDER BY t;
SELECT * FROM offload_check($$SELECT DISTINCT t FROM apd WHERE d < date '2020-01-03'$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT d FROM apd WHERE a = 7 GROUP BY d;
SELECT d FROM apd WHERE a = 7 GROUP BY d ORDER BY d LIMIT 3;
SELECT * FROM offload_check($$SELECT d FROM apd WHERE a = 7 GROUP BY d$$);
SELECT * FROM offload_check($$SELECT DISTINCT a FROM apd WHERE a IS NULL OR a < 3$$);
-- not pushed: these keep the host's Unique or HashAggregate
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (a) a, t FROM apd ORDER BY a, t;
EXPLAIN (COSTS OFF) SELECT DISTINCT a + 1 FROM apd;
EXPLAIN (COSTS OFF) SELECT DISTINCT count(*) FROM apd GROUP BY a;
SELECT * FROM offload_check($$SELECT DISTINCT ON (a) a, t FROM apd ORDER BY a, t$$);
SELECT * FROM offload_check($$SELECT DISTINCT count(*) FROM apd GROUP BY a$$);
-- forced, the drive's grouping answers as the host's does
SET ossd.force_offload = on;
SELECT * FROM offload_check($$SELECT DISTINCT a, t, d FROM apd$$);
RESET ossd.force_offload;
DROP TABLE apd;

-- ===================================================================
-- The estimates: groups from estimate_num_groups, HAVING's selectivity
-- on top (an inequality on an aggregate: PostgreSQL's default third)
-- ===================================================================
CREATE FUNCTION plan_rows(q text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
END
$$;
SELECT plan_rows($$SELECT k, sum(q) FROM apo GROUP BY k$$) AS groups,
       plan_rows($$SELECT k FROM apo GROUP BY k HAVING sum(q) > 180$$) AS having_groups,
       plan_rows($$SELECT q, count(*) FROM apo GROUP BY q$$) AS few_groups;
DROP FUNCTION plan_rows(text);
DROP TABLE apo, aps;
