--
-- ossd_rescans_stored: Rescans from Stored Rows (ossd_exec.c,
-- ossd_rescan).  A rescan that changes none of an OssdScan's parameters
-- (the inner side of a nested loop, an uncorrelated SubPlan run once per
-- outer row, the child of a Limit whose count is a parameter) returns the
-- same rows: the scan keeps what it returned in a tuplestore, reads it
-- again on the next pass and goes on with the drive's stream where the
-- last pass stopped, as a Material node would.  Not with a join filter
-- (the hash join above rebuilds it), a volatile qual or output, a
-- parallel-aware scan or an EvalPlanQual recheck: those scan again.  A
-- rescan whose parameters changed (LATERAL, a correlated subquery) scans
-- again and must not return the last pass's rows.
--
-- Plans are shown before the queries they explain; the ANALYZE counters
-- are filtered (rsd_counters) to the ones that do not depend on the order
-- in which the drive's threads return rows; each answer is checked
-- against ossd.enabled = off, and offload_check's drive_scans says how
-- many drive scans the query ran.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql

-- The plan's node lines with their loops (row counts masked where they
-- depend on the drive's row order) and the OssdScan counters that do not:
-- whether blocks were scanned on the drive, how many rescans read stored
-- rows
CREATE FUNCTION rsd_counters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN ln !~ '(->|^[A-Z]|Blocks on Drive|Rescans from Stored|SubPlan|InitPlan)';
    ln := regexp_replace(ln, 'actual rows=\d+ ', 'actual ');
    ln := regexp_replace(ln, 'Memory Usage: \d+kB', 'Memory Usage: NkB');
    ln := regexp_replace(ln, 'Blocks on Drive: [1-9]\d*', 'Blocks on Drive: >0');
    RETURN NEXT ln;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data: an inner table on the drive (about 60 blocks), whose key
-- k = 7 lies only in its last block (a semi join probing k = 7 reads the
-- whole stream, one probing k = 0 stops at the first row), and small
-- outer tables on the host
-- ===================================================================
CREATE TABLE rsd_in (id int4, k int4, v numeric(12,2), t text, pad text);
INSERT INTO rsd_in SELECT g, CASE WHEN g > 4990 THEN 7 ELSE g % 7 END, g * 1.25,
  'row' || g, repeat('i', 60) FROM generate_series(1, 5000) g;
CREATE TABLE rsd_out (a int4, b int4, note text) TABLESPACE pg_default;
INSERT INTO rsd_out SELECT g, g % 9, 'o' || g FROM generate_series(1, 20) g;
CREATE TABLE rsd_keys (k int4) TABLESPACE pg_default;
INSERT INTO rsd_keys VALUES (0), (7), (8), (1), (7), (NULL), (0), (9), (3);
VACUUM (FREEZE, ANALYZE) rsd_in, rsd_out, rsd_keys;
CHECKPOINT;
SELECT relname, relpages FROM pg_class WHERE relname LIKE 'rsd\_%' AND relkind = 'r' ORDER BY 1;
SELECT k, count(*), min(id), max(id) FROM rsd_in GROUP BY k ORDER BY k;

SET ossd.force_offload = on;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_memoize = off;

-- ===================================================================
-- A nested loop's unparameterised inner OssdScan: the drive scans once,
-- the other 19 loops read the rows the scan stored
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 700;
SELECT * FROM rsd_counters($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 700$$);
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 700$$);
SELECT o.a, count(i.id), sum(i.v) FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 700
 GROUP BY o.a ORDER BY o.a;
-- the stored rows are the projected ones (Device Projection): columns
-- not needed above the scan are not stored, expressions are
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, i.t, i.v * 2 FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 250;
SELECT o.a, i.t, i.v * 2 FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 250 ORDER BY o.a;
SELECT * FROM offload_check($$SELECT o.a, i.t, i.v * 2 FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 250$$);
-- an inner side with no filter at all: every row of the table stored
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a + 4980$$);
SELECT * FROM offload_check($$SELECT o.a, i.id, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a + 4980$$);
-- an empty inner side: the first pass reaches the end at once, every
-- later pass is empty too
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 0$$);
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 0$$);
-- one outer row: no rescan reads stored rows
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b WHERE o.a = 3$$);
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b WHERE o.a = 3$$);
-- no outer rows: the inner scan never starts
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b WHERE o.a < 0$$);
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b WHERE o.a < 0$$);

-- ===================================================================
-- Two levels of nested loops: the innermost OssdScan is rescanned for
-- every row of the middle join, still from its stored rows
-- ===================================================================
EXPLAIN (COSTS OFF)
SELECT o.a, k.k, i.id FROM rsd_out o LEFT JOIN rsd_keys k ON k.k = o.b
  LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 300 AND i.id % 10 = o.a % 10;
SELECT * FROM rsd_counters($$SELECT o.a, k.k, i.id FROM rsd_out o LEFT JOIN rsd_keys k ON k.k = o.b
  LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 300 AND i.id % 10 = o.a % 10$$);
SELECT * FROM offload_check($$SELECT o.a, k.k, i.id FROM rsd_out o LEFT JOIN rsd_keys k ON k.k = o.b
  LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 300 AND i.id % 10 = o.a % 10$$);
-- the same OssdScan table twice on the inner sides, each scan its own
-- store
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_out o LEFT JOIN rsd_in i1 ON i1.id = o.a
  LEFT JOIN rsd_in i2 ON i2.id = o.a + 1000$$);
SELECT * FROM offload_check($$SELECT o.a, i1.t, i2.t FROM rsd_out o LEFT JOIN rsd_in i1 ON i1.id = o.a
  LEFT JOIN rsd_in i2 ON i2.id = o.a + 1000$$);
-- a full join's nested loop is not possible; a right join turns around
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_in i RIGHT JOIN rsd_out o ON i.id = o.a * 3 AND i.k > 1$$);

-- ===================================================================
-- Semi and anti joins stop reading the inner side at the first match of
-- each outer row.  The next pass reads the stored rows and then goes on
-- with the drive's stream: an outer row probing k = 7 (the last block)
-- after one probing k = 0 (the first rows) continues the stream, one
-- probing k = 8 (absent) reads it to its end, and later probes read only
-- stored rows.  No hash aggregation: the semi join stays a semi join
-- (not a join to the unique keys of the inner side).
-- ===================================================================
SET enable_hashagg = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k.k FROM rsd_keys k WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10);
SELECT * FROM rsd_counters($$SELECT k.k FROM rsd_keys k WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10)$$);
SELECT k.k FROM rsd_keys k WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10) ORDER BY 1;
SELECT * FROM offload_check($$SELECT k.k FROM rsd_keys k WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10)$$);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k.k FROM rsd_keys k WHERE NOT EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10);
SELECT * FROM rsd_counters($$SELECT k.k FROM rsd_keys k WHERE NOT EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10)$$);
SELECT k.k FROM rsd_keys k WHERE NOT EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10) ORDER BY 1 NULLS FIRST;
SELECT * FROM offload_check($$SELECT k.k FROM rsd_keys k WHERE NOT EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 10)$$);
-- the last key's rows only: every probe but k = 7 reads the whole stream
SELECT * FROM offload_check($$SELECT k.k FROM rsd_keys k WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 4990)$$);
SELECT * FROM offload_check($$SELECT k.k FROM rsd_keys k WHERE NOT EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = k.k AND i.id > 4990)$$);
-- IN and NOT IN (NULLs on both sides: NOT IN with a NULL key is never
-- true)
SELECT * FROM offload_check($$SELECT k.k FROM rsd_keys k WHERE k.k IN (SELECT i.k FROM rsd_in i WHERE i.id % 3 = 0)$$);
SELECT * FROM offload_check($$SELECT o.b FROM rsd_out o WHERE o.b NOT IN (SELECT i.k FROM rsd_in i WHERE i.id < 4000)$$);
SELECT o.b FROM rsd_out o WHERE o.b NOT IN (SELECT i.k FROM rsd_in i WHERE i.id < 4000) ORDER BY 1;
SELECT * FROM offload_check($$SELECT o.b FROM rsd_out o WHERE o.b NOT IN (SELECT k FROM rsd_keys)$$);
-- the probes in another order: the absent key first reads the stream to
-- its end on the first pass
SELECT * FROM offload_check($$SELECT x.k FROM (VALUES (8), (0), (7), (0), (8), (7)) x(k)
  WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = x.k AND i.id > 10)$$);
SELECT * FROM offload_check($$SELECT x.k FROM (VALUES (7), (7), (8), (1)) x(k)
  WHERE NOT EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = x.k AND i.id > 10)$$);
RESET enable_hashagg;

-- ===================================================================
-- A Limit above the inner OssdScan whose count is the outer row's
-- parameter: the Limit changes, the scan's own parameters do not, so each
-- pass reads the stored rows and then more of the stream.  Each pass
-- returns a prefix of the next one's rows (the stored order is the
-- drive's first order); the counts are what offload off returns.  The
-- scan below LATERAL runs once per outer row, so forced offload does not
-- force it: with the drive's costs at zero (and the host's seq_page_cost
-- high) the planner picks it at its own cost.
-- ===================================================================
SET ossd.drive_page_cost = 0;
SET ossd.drive_tuple_cost = 0;
SET seq_page_cost = 10;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.k = 3 LIMIT o.a * 40) l) s;
SELECT * FROM rsd_counters($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.k = 3 LIMIT o.a * 40) l) s$$);
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.k = 3 LIMIT o.a * 40) l) s$$);
SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.k = 3 LIMIT o.a * 40) l) s
 WHERE o.a IN (1, 5, 17, 18, 20) ORDER BY o.a;
-- the prefix property: pass n's rows are the first rows of pass n + 1
WITH p AS (
  SELECT o.a, s.ids FROM rsd_out o,
    LATERAL (SELECT array_agg(l.id) AS ids FROM (SELECT i.id FROM rsd_in i WHERE i.k = 3 LIMIT o.a * 40) l) s)
SELECT count(*) AS passes,
       bool_and(p1.ids = p2.ids[1:cardinality(p1.ids)]) AS each_a_prefix_of_the_next,
       bool_and(cardinality(p2.ids) = least(p2.a * 40, (SELECT count(*) FROM rsd_in WHERE k = 3))) AS counts
  FROM p p1 JOIN p p2 ON p2.a = p1.a + 1;
-- decreasing limits: the later passes read stored rows only
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.k = 3 LIMIT (21 - o.a) * 40) l) s$$);
-- LIMIT 0 on the first pass, then more
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.id > 100 LIMIT (o.a - 1) * 300) l) s$$);
-- an OFFSET from the outer row
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM (SELECT i.id FROM rsd_in i WHERE i.k = 5 OFFSET o.a * 30) l) s$$);
-- a LATERAL reference in the scan's own qual changes its parameters: a
-- drive scan per outer row (drive_scans 20), no stored rows
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_in i WHERE i.k = o.b AND i.id % 100 = o.a) s;
SELECT * FROM rsd_counters($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_in i WHERE i.k = o.b AND i.id % 100 = o.a) s$$);
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_in i WHERE i.k = o.b AND i.id % 100 = o.a) s$$);
SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_in i WHERE i.k = o.b AND i.id % 100 = o.a) s ORDER BY o.a;
-- the outer reference in the scan's output only: parameters change too
SELECT * FROM rsd_counters($$SELECT o.a, s.x FROM rsd_out o,
  LATERAL (SELECT i.id * 1000 + o.a AS x FROM rsd_in i WHERE i.id < 3) s$$);
SELECT * FROM offload_check($$SELECT o.a, s.x FROM rsd_out o,
  LATERAL (SELECT i.id * 1000 + o.a AS x FROM rsd_in i WHERE i.id < 3) s$$);
-- a correlated subquery's scan with a parameter in its Device Filter
SELECT * FROM rsd_counters($$SELECT o.a, (SELECT max(i.v) FROM rsd_in i WHERE i.id = o.a * 7) FROM rsd_out o$$);
SELECT * FROM offload_check($$SELECT o.a, (SELECT max(i.v) FROM rsd_in i WHERE i.id = o.a * 7) FROM rsd_out o$$);
SELECT o.a, (SELECT max(i.v) FROM rsd_in i WHERE i.id = o.a * 7) FROM rsd_out o WHERE o.a > 16 ORDER BY 1;
RESET ossd.drive_page_cost;
RESET ossd.drive_tuple_cost;
RESET seq_page_cost;

-- ===================================================================
-- An uncorrelated SubPlan (not an InitPlan: its test expression names
-- the outer row) is rescanned without parameters: stored rows
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a FROM rsd_out o WHERE o.a * 100 > ALL (SELECT i.id FROM rsd_in i WHERE i.k = 2 AND i.id < 1000);
SELECT * FROM rsd_counters($$SELECT o.a FROM rsd_out o WHERE o.a * 100 > ALL (SELECT i.id FROM rsd_in i WHERE i.k = 2 AND i.id < 1000)$$);
SELECT o.a FROM rsd_out o WHERE o.a * 100 > ALL (SELECT i.id FROM rsd_in i WHERE i.k = 2 AND i.id < 1000) ORDER BY 1;
SELECT * FROM offload_check($$SELECT o.a FROM rsd_out o WHERE o.a * 100 > ALL (SELECT i.id FROM rsd_in i WHERE i.k = 2 AND i.id < 1000)$$);
-- ANY with an ordering operator stops at the first row that satisfies it
SELECT * FROM offload_check($$SELECT o.a FROM rsd_out o WHERE o.a * 50 < ANY (SELECT i.id FROM rsd_in i WHERE i.k = 2 AND i.id < 600)$$);
-- the same in the target list
SELECT * FROM offload_check($$SELECT o.a, o.a * 100 > ALL (SELECT i.id FROM rsd_in i WHERE i.k = 4 AND i.id < 900) FROM rsd_out o$$);
-- an InitPlan runs once: no rescan at all
EXPLAIN (COSTS OFF)
SELECT o.a FROM rsd_out o WHERE o.a > (SELECT count(*) / 300 FROM rsd_in i WHERE i.k = 2);
SELECT * FROM offload_check($$SELECT o.a FROM rsd_out o WHERE o.a > (SELECT count(*) / 300 FROM rsd_in i WHERE i.k = 2)$$);

-- ===================================================================
-- Rescans whose parameters change scan again: LATERAL references and
-- correlated subqueries.  Forced offload does not force a drive scan per
-- outer row (ossd_rescans.sql); with the planner's choice the answers are
-- each outer row's own rows, never the last pass's
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, s.n, s.m FROM rsd_out o,
  LATERAL (SELECT count(*) AS n, max(i.id) AS m FROM rsd_in i WHERE i.k = o.b AND i.id < o.a * 100) s;
SELECT o.a, s.n, s.m FROM rsd_out o,
  LATERAL (SELECT count(*) AS n, max(i.id) AS m FROM rsd_in i WHERE i.k = o.b AND i.id < o.a * 100) s
 ORDER BY o.a;
SELECT * FROM offload_check($$SELECT o.a, s.n, s.m FROM rsd_out o,
  LATERAL (SELECT count(*) AS n, max(i.id) AS m FROM rsd_in i WHERE i.k = o.b AND i.id < o.a * 100) s$$);
-- the outer reference only in the target list: the scan's qual is the
-- same each pass, its output is not
SELECT * FROM offload_check($$SELECT o.a, s.x FROM rsd_out o,
  LATERAL (SELECT i.id + o.a AS x FROM rsd_in i WHERE i.id < 4) s$$);
SELECT o.a, s.x FROM rsd_out o, LATERAL (SELECT i.id + o.a AS x FROM rsd_in i WHERE i.id < 3) s
 WHERE o.a < 4 ORDER BY 1, 2;
-- a correlated scalar subquery, in the target list and in WHERE
EXPLAIN (COSTS OFF)
SELECT o.a, (SELECT max(i.v) FROM rsd_in i WHERE i.id = o.a * 7) FROM rsd_out o;
SELECT * FROM offload_check($$SELECT o.a, (SELECT max(i.v) FROM rsd_in i WHERE i.id = o.a * 7) FROM rsd_out o$$);
SELECT * FROM offload_check($$SELECT o.a FROM rsd_out o
  WHERE (SELECT count(*) FROM rsd_in i WHERE i.k = o.b AND i.id < 200) > 28$$);
-- a correlated EXISTS kept as a SubPlan (an OR prevents the semi join)
SELECT * FROM offload_check($$SELECT o.a FROM rsd_out o
  WHERE o.a = 1 OR EXISTS (SELECT 1 FROM rsd_in i WHERE i.id = o.a * 3 AND i.k = o.b)$$);
-- an unparameterised inner scan below a parameterised one: the inner
-- one's stored rows serve every pass of the outer one
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_keys k LEFT JOIN rsd_in i ON i.k = k.k AND i.id < 50
            WHERE k.k IS DISTINCT FROM o.b) s$$);

-- ===================================================================
-- Rescans that must scan again although no parameter changed: a
-- volatile qual or output (random() each pass), so the drive scans once
-- per outer row (drive_scans 20); the answers do not depend on random()
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 11 AND i.id < 900 + random() * 0;
SELECT * FROM rsd_counters($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 11 AND i.id < 900 + random() * 0$$);
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 11 AND i.id < 900 + random() * 0$$);
-- a volatile output column of the inner scan
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, s.id, s.r FROM rsd_out o
  LEFT JOIN (SELECT i.id, (random() * 0)::int AS r FROM rsd_in i WHERE i.id < 400) s ON s.id = o.a * 13;
SELECT * FROM rsd_counters($$SELECT o.a, s.id, s.r FROM rsd_out o
  LEFT JOIN (SELECT i.id, (random() * 0)::int AS r FROM rsd_in i WHERE i.id < 400) s ON s.id = o.a * 13$$);
SELECT * FROM offload_check($$SELECT o.a, s.id, s.r FROM rsd_out o
  LEFT JOIN (SELECT i.id, (random() * 0)::int AS r FROM rsd_in i WHERE i.id < 400) s ON s.id = o.a * 13$$);
-- a stable function (now()) is the same each pass: stored rows
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_out o
  LEFT JOIN rsd_in i ON i.id = o.a * 11 AND now() > timestamptz '2000-01-01'$$);
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o
  LEFT JOIN rsd_in i ON i.id = o.a * 11 AND now() > timestamptz '2000-01-01'$$);

-- ===================================================================
-- Aggregating OssdScans on the inner side (partial groups on the drive):
-- the merged groups are what a rescan reads again
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.a, g.n, g.s FROM rsd_out o
  LEFT JOIN (SELECT k, count(*) AS n, sum(v) AS s FROM rsd_in GROUP BY k) g ON g.k = o.b;
SELECT * FROM rsd_counters($$SELECT o.a, g.n, g.s FROM rsd_out o
  LEFT JOIN (SELECT k, count(*) AS n, sum(v) AS s FROM rsd_in GROUP BY k) g ON g.k = o.b$$);
SELECT o.a, g.n, g.s FROM rsd_out o
  LEFT JOIN (SELECT k, count(*) AS n, sum(v) AS s FROM rsd_in GROUP BY k) g ON g.k = o.b ORDER BY o.a;
SELECT * FROM offload_check($$SELECT o.a, g.n, g.s FROM rsd_out o
  LEFT JOIN (SELECT k, count(*) AS n, sum(v) AS s FROM rsd_in GROUP BY k) g ON g.k = o.b$$);
-- with HAVING (the OssdScan's qual on the merged groups)
SELECT * FROM offload_check($$SELECT o.a, g.k FROM rsd_out o
  LEFT JOIN (SELECT k, sum(v) AS s FROM rsd_in GROUP BY k HAVING sum(v) > 2200000) g ON g.k = o.b$$);
-- a plain aggregate (one group) on the inner side of a semi join
SELECT * FROM offload_check($$SELECT o.a FROM rsd_out o
  WHERE o.a * 1000 < (SELECT max(id) FROM rsd_in WHERE k = 1)$$);

-- ===================================================================
-- Cursors over a nested loop with a stored inner scan: NO SCROLL reads
-- forward only; SCROLL puts a Material on top (a nested loop does not
-- run backwards).  The inner side matches at most one row per outer row,
-- so the rows come in the outer table's order.
-- ===================================================================
EXPLAIN (COSTS OFF)
DECLARE c1 SCROLL CURSOR FOR SELECT o.a, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 17;
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT o.a, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 17;
FETCH 3 FROM c1;
FETCH BACKWARD 2 FROM c1;
MOVE FORWARD 5 IN c1;
FETCH NEXT FROM c1;
FETCH ABSOLUTE 15 FROM c1;
FETCH RELATIVE -3 FROM c1;
FETCH LAST FROM c1;
FETCH PRIOR FROM c1;
MOVE ABSOLUTE 0 IN c1;
FETCH 2 FROM c1;
FETCH FIRST FROM c1;
CLOSE c1;
COMMIT;
-- the same cursor with offload off: the same rows in the same order
SET ossd.enabled = off;
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT o.a, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 17;
FETCH 3 FROM c1;
FETCH BACKWARD 2 FROM c1;
MOVE FORWARD 5 IN c1;
FETCH NEXT FROM c1;
FETCH ABSOLUTE 15 FROM c1;
FETCH RELATIVE -3 FROM c1;
FETCH LAST FROM c1;
FETCH PRIOR FROM c1;
MOVE ABSOLUTE 0 IN c1;
FETCH 2 FROM c1;
FETCH FIRST FROM c1;
CLOSE c1;
COMMIT;
RESET ossd.enabled;
-- a forward cursor fetched a few rows at a time: the scan below is
-- suspended between fetches, and each new outer row's pass still reads
-- the stored rows first
BEGIN;
DECLARE c2 NO SCROLL CURSOR FOR
  SELECT o.a, count(i.id) FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 2000 GROUP BY o.a ORDER BY o.a;
FETCH 4 FROM c2;
FETCH 4 FROM c2;
MOVE 10 IN c2;
FETCH ALL FROM c2;
CLOSE c2;
COMMIT;
-- an unordered SCROLL cursor over a semi join with early stops: the rows
-- backwards are the forward rows reversed, a rewind gives them again
DO $$
DECLARE
  c SCROLL CURSOR FOR
    SELECT x.k, x.n FROM (SELECT k, row_number() OVER () AS n FROM rsd_keys) x
     WHERE EXISTS (SELECT 1 FROM rsd_in i WHERE i.k = x.k AND i.id > 10);
  fwd text[] := '{}';
  bwd text[] := '{}';
  again text[] := '{}';
  r record;
BEGIN
  OPEN c;
  LOOP
    FETCH NEXT FROM c INTO r;
    EXIT WHEN NOT FOUND;
    fwd := fwd || r::text;
  END LOOP;
  LOOP
    FETCH PRIOR FROM c INTO r;
    EXIT WHEN NOT FOUND;
    bwd := r::text || bwd;
  END LOOP;
  MOVE ABSOLUTE 0 FROM c;
  LOOP
    FETCH NEXT FROM c INTO r;
    EXIT WHEN NOT FOUND;
    again := again || r::text;
  END LOOP;
  RAISE NOTICE 'rows %: %, backward the same: %, after the rewind the same: %',
    cardinality(fwd), fwd, fwd = bwd, fwd = again;
  CLOSE c;
END
$$;
-- a cursor closed in the middle of an inner pass, then the same query
-- again (a fresh store)
BEGIN;
DECLARE c3 CURSOR FOR SELECT o.a, i.id FROM rsd_out o JOIN rsd_in i ON i.k = o.b AND i.id < 60 ORDER BY o.a, i.id;
FETCH 5 FROM c3;
CLOSE c3;
COMMIT;
SELECT * FROM offload_check($$SELECT o.a, i.id FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < 60$$);

-- ===================================================================
-- Prepared statements and PL/pgSQL: each execution a new store; the
-- generic plan's nested loop the same as the custom one's
-- ===================================================================
PREPARE rsd_p (int) AS
  SELECT o.a, count(i.id) FROM rsd_out o LEFT JOIN rsd_in i ON i.k = o.b AND i.id < $1 GROUP BY o.a;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE rsd_p(500);
SELECT * FROM offload_check($$EXECUTE rsd_p(500)$$);
SELECT * FROM offload_check($$EXECUTE rsd_p(5001)$$);
SELECT * FROM offload_check($$EXECUTE rsd_p(0)$$);
SET plan_cache_mode = force_custom_plan;
SELECT * FROM offload_check($$EXECUTE rsd_p(500)$$);
RESET plan_cache_mode;
DEALLOCATE rsd_p;
-- a function run per outer row whose query has a stored inner scan
CREATE FUNCTION rsd_count_below(lim int) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
  n bigint;
BEGIN
  SELECT count(*) INTO n FROM rsd_keys k LEFT JOIN rsd_in i ON i.k = k.k AND i.id < lim;
  RETURN n;
END
$$;
SELECT * FROM offload_check($$SELECT o.a, rsd_count_below(o.a * 10) FROM rsd_out o$$);

-- ===================================================================
-- DML with a nested-loop inner OssdScan: UPDATE ... FROM, DELETE ...
-- USING, INSERT ... SELECT.  The target is a host table changed twice
-- (offload forced and off, in copies) and the copies compared.  A table
-- of the FROM list carries a row mark (its ctid, for EvalPlanQual) and
-- stays a heap scan; a subquery in FROM (OFFSET 0 keeps it one) is
-- marked as a whole row, and its own scan is an OssdScan, rescanned from
-- stored rows below the nested loop.
-- ===================================================================
CREATE TABLE rsd_t_on (a int4, b int4, note text) TABLESPACE pg_default;
CREATE TABLE rsd_t_off (a int4, b int4, note text) TABLESPACE pg_default;
INSERT INTO rsd_t_on SELECT * FROM rsd_out;
INSERT INTO rsd_t_off SELECT * FROM rsd_out;
ANALYZE rsd_t_on, rsd_t_off;
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE rsd_t_on t SET note = i.t FROM rsd_in i WHERE i.id = t.a * 19 AND i.k <> 3;
SELECT * FROM rsd_counters($$UPDATE rsd_t_on t SET note = i.t FROM rsd_in i WHERE i.id = t.a * 19 AND i.k <> 3$$);
SET ossd.enabled = off;
UPDATE rsd_t_off t SET note = i.t FROM rsd_in i WHERE i.id = t.a * 19 AND i.k <> 3;
RESET ossd.enabled;
SELECT count(*) AS differing FROM
  ((SELECT * FROM rsd_t_on EXCEPT ALL SELECT * FROM rsd_t_off) UNION ALL
   (SELECT * FROM rsd_t_off EXCEPT ALL SELECT * FROM rsd_t_on)) d;
SELECT a, note FROM rsd_t_on WHERE note LIKE 'row%' ORDER BY a;
-- the same through a subquery: an OssdScan (here the planner puts it on
-- the outer side, the target table is the one rescanned)
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE rsd_t_on t SET note = i.t || '+' FROM (SELECT id, t FROM rsd_in WHERE k <> 4 OFFSET 0) i WHERE i.id = t.a * 29;
SELECT * FROM rsd_counters($$UPDATE rsd_t_on t SET note = i.t || '+' FROM (SELECT id, t FROM rsd_in WHERE k <> 4 OFFSET 0) i
 WHERE i.id = t.a * 29$$);
SET ossd.enabled = off;
UPDATE rsd_t_off t SET note = i.t || '+' FROM (SELECT id, t FROM rsd_in WHERE k <> 4 OFFSET 0) i WHERE i.id = t.a * 29;
RESET ossd.enabled;
SELECT count(*) AS differing FROM
  ((SELECT * FROM rsd_t_on EXCEPT ALL SELECT * FROM rsd_t_off) UNION ALL
   (SELECT * FROM rsd_t_off EXCEPT ALL SELECT * FROM rsd_t_on)) d;
SELECT a, note FROM rsd_t_on WHERE note LIKE '%+' ORDER BY a;
-- DELETE ... USING such a subquery, RETURNING the subquery's columns
WITH d AS (DELETE FROM rsd_t_on t USING (SELECT id, k FROM rsd_in WHERE id % 5 = 0 AND k < 3 OFFSET 0) i
 WHERE i.id = t.a * 45 RETURNING t.a, i.id, i.k)
SELECT * FROM d ORDER BY a;
SET ossd.enabled = off;
DELETE FROM rsd_t_off t USING (SELECT id, k FROM rsd_in WHERE id % 5 = 0 AND k < 3 OFFSET 0) i WHERE i.id = t.a * 45;
RESET ossd.enabled;
SELECT count(*) AS differing FROM
  ((SELECT * FROM rsd_t_on EXCEPT ALL SELECT * FROM rsd_t_off) UNION ALL
   (SELECT * FROM rsd_t_off EXCEPT ALL SELECT * FROM rsd_t_on)) d;
-- UPDATE ... FROM an aggregate of the drive table
WITH u AS (UPDATE rsd_t_on t SET b = g.n FROM (SELECT k, count(*) AS n FROM rsd_in WHERE id < 1000 GROUP BY k) g
 WHERE g.k = t.b RETURNING t.a, t.b)
SELECT * FROM u ORDER BY a;
SET ossd.enabled = off;
UPDATE rsd_t_off t SET b = g.n FROM (SELECT k, count(*) AS n FROM rsd_in WHERE id < 1000 GROUP BY k) g
 WHERE g.k = t.b;
RESET ossd.enabled;
SELECT count(*) AS differing FROM
  ((SELECT * FROM rsd_t_on EXCEPT ALL SELECT * FROM rsd_t_off) UNION ALL
   (SELECT * FROM rsd_t_off EXCEPT ALL SELECT * FROM rsd_t_on)) d;
-- DELETE ... USING with a semi-join shape
EXPLAIN (COSTS OFF)
DELETE FROM rsd_t_on t USING rsd_in i WHERE i.id = t.a * 200 AND i.k IN (1, 2, 3);
WITH d AS (DELETE FROM rsd_t_on t USING rsd_in i WHERE i.id = t.a * 200 AND i.k IN (1, 2, 3) RETURNING t.a)
SELECT * FROM d ORDER BY a;
SET ossd.enabled = off;
DELETE FROM rsd_t_off t USING rsd_in i WHERE i.id = t.a * 200 AND i.k IN (1, 2, 3);
RESET ossd.enabled;
SELECT count(*) AS differing FROM
  ((SELECT * FROM rsd_t_on EXCEPT ALL SELECT * FROM rsd_t_off) UNION ALL
   (SELECT * FROM rsd_t_off EXCEPT ALL SELECT * FROM rsd_t_on)) d;
-- INSERT ... SELECT through a nested loop with a stored inner scan
INSERT INTO rsd_t_on SELECT o.a + 100, i.k, i.t FROM rsd_out o JOIN rsd_in i ON i.id = o.a * 31 + 1;
SET ossd.enabled = off;
INSERT INTO rsd_t_off SELECT o.a + 100, i.k, i.t FROM rsd_out o JOIN rsd_in i ON i.id = o.a * 31 + 1;
RESET ossd.enabled;
SELECT count(*) AS rows_now, (SELECT count(*) FROM
  ((SELECT * FROM rsd_t_on EXCEPT ALL SELECT * FROM rsd_t_off) UNION ALL
   (SELECT * FROM rsd_t_off EXCEPT ALL SELECT * FROM rsd_t_on)) d) AS differing FROM rsd_t_on;
-- SELECT ... FOR UPDATE of the outer table over a stored inner scan
BEGIN;
SELECT o.a, i.id FROM rsd_t_on o LEFT JOIN rsd_in i ON i.id = o.a * 23 WHERE o.a < 6 ORDER BY o.a FOR UPDATE OF o;
ROLLBACK;
-- a change to the drive table inside the transaction: its changed blocks
-- are host blocks, the stored rows of the next statement see the change
BEGIN;
UPDATE rsd_in SET t = 'changed' WHERE id IN (17, 34, 51);
SELECT * FROM rsd_counters($$SELECT o.a, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 17$$);
SELECT o.a, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 17 WHERE o.a < 5 ORDER BY o.a;
SELECT * FROM offload_check($$SELECT o.a, i.t FROM rsd_out o LEFT JOIN rsd_in i ON i.id = o.a * 17$$);
ROLLBACK;
DROP TABLE rsd_t_on, rsd_t_off;

-- ===================================================================
-- Parallel query: a parallel-aware OssdScan (its blocks shared by the
-- processes) below a rescanned Gather is never read from a store: no
-- Rescans from Stored Rows, each Gather pass runs it again
-- ===================================================================
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rsd_in i1 WHERE EXISTS (SELECT 1 FROM rsd_keys k WHERE k.k = i1.k);
SELECT * FROM rsd_counters($$SELECT count(*) FROM rsd_in i1 WHERE EXISTS (SELECT 1 FROM rsd_keys k WHERE k.k = i1.k)$$);
SELECT * FROM offload_check($$SELECT count(*) FROM rsd_in i1 WHERE EXISTS (SELECT 1 FROM rsd_keys k WHERE k.k = i1.k)$$);
SELECT * FROM offload_check($$SELECT i1.k, count(*) FROM rsd_in i1 LEFT JOIN rsd_keys k ON k.k = i1.k + 1 GROUP BY i1.k$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
SET max_parallel_workers_per_gather = 0;

-- ===================================================================
-- Join filters: a hash join's probe-side OssdScan carries one (Drive
-- Join Filter from Hash Keys) built from the hash side; a rescanned hash
-- join rebuilds it and the scan scans again (never its stored rows: the
-- filter may differ).  The first query's LATERAL is flattened into the
-- join (no rescan); the second's is not (an outer reference in a join
-- qual of the subquery): a drive scan per outer row
-- ===================================================================
RESET enable_hashjoin;
EXPLAIN (COSTS OFF)
SELECT o.a, s.id FROM rsd_out o,
  LATERAL (SELECT i.id FROM rsd_keys k JOIN rsd_in i ON i.k = k.k WHERE i.id = o.a * 50) s;
SELECT * FROM offload_check($$SELECT o.a, s.id FROM rsd_out o,
  LATERAL (SELECT i.id FROM rsd_keys k JOIN rsd_in i ON i.k = k.k WHERE i.id = o.a * 50) s$$);
SELECT * FROM rsd_counters($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_keys k JOIN rsd_in i ON i.k = k.k AND i.id < 100
            WHERE k.k > o.b - 3) s$$);
SELECT * FROM offload_check($$SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_keys k JOIN rsd_in i ON i.k = k.k AND i.id < 100
            WHERE k.k > o.b - 3) s$$);
SELECT o.a, s.n FROM rsd_out o,
  LATERAL (SELECT count(*) AS n FROM rsd_keys k JOIN rsd_in i ON i.k = k.k AND i.id < 100
            WHERE k.k > o.b - 3) s WHERE o.a < 10 ORDER BY o.a;
SET enable_hashjoin = off;

RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET enable_memoize;
RESET ossd.force_offload;
DROP FUNCTION rsd_count_below(int);
DROP TABLE rsd_in, rsd_out, rsd_keys;
DROP FUNCTION rsd_counters(text);
