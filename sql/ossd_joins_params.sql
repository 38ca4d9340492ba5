--
-- ossd_joins_params: offloaded scans as sides of joins (hash, merge,
-- nested loop, outer, semi and anti joins), parameterised paths and
-- LATERAL (issue 12, D2: outer references of an offloaded scan are
-- nestloop Params), correlated subqueries and rescans (a scan run once
-- per outer row is offloaded only if it pays: ossd_rel_rescanned, and
-- force_offload does not force it), CTEs and set operations.
--
-- offload_check() runs a query with offload as set and with
-- ossd.enabled = off: its rows, the scans the drive ran (one per rescan
-- of an OssdScan) and whether both answers are the same multiset.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- offload_check(q): tests/pg/regress-helpers.sql

-- The plan's node lines and the OssdScans' block counters under EXPLAIN
-- ANALYZE: loops and blocks add up over rescans (row counts are masked)
CREATE FUNCTION scan_loops(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN ln !~ '(->|^[A-Z]|Blocks on|SubPlan)';
    ln := regexp_replace(ln, 'actual rows=\d+ ', 'actual ');
    RETURN NEXT ln;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data
-- ===================================================================
CREATE TABLE jo (id int4, k int4, v int4, tag text, pad text);
CREATE TABLE ji (id int4, k int4, w int4, pad text);
CREATE TABLE js (id int4, k int4, name text);
INSERT INTO jo SELECT g, g % 50, g * 3, 'o' || (g % 7), repeat('o', 200) FROM generate_series(1, 6000) g;
INSERT INTO ji SELECT g, CASE WHEN g % 101 = 0 THEN NULL ELSE g % 2000 END, g % 997, repeat('i', 150)
  FROM generate_series(1, 20000) g;
INSERT INTO js SELECT g, g * 7, 'small ' || g FROM generate_series(1, 5) g;
INSERT INTO js VALUES (6, NULL, 'null key');
CREATE INDEX ji_k ON ji (k);
VACUUM (FREEZE, ANALYZE) jo;
VACUUM (FREEZE, ANALYZE) ji;
VACUUM (FREEZE, ANALYZE) js;
CHECKPOINT;
SELECT relname, relpages >= 128 AS candidate_size FROM pg_class
 WHERE relname IN ('jo', 'ji', 'js') ORDER BY 1;

-- ===================================================================
-- Joins of offloaded scans, default settings
-- ===================================================================
-- both sides filtered on the drive, hash join on the host
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.id, i.id, i.w FROM jo o JOIN ji i ON o.id = i.k WHERE o.v < 300 AND i.w < 100;
SELECT o.id, i.id, i.w FROM jo o JOIN ji i ON o.id = i.k WHERE o.v < 15 AND i.w < 30 ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT o.id, i.id, i.w FROM jo o JOIN ji i ON o.id = i.k WHERE o.v < 300 AND i.w < 100$$);
-- a merge join
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF)
SELECT o.id, i.id FROM jo o JOIN ji i ON o.id = i.w WHERE o.v < 300 AND i.k < 100;
SELECT * FROM offload_check($$SELECT o.id, i.id FROM jo o JOIN ji i ON o.id = i.w WHERE o.v < 300 AND i.k < 100$$);
RESET enable_hashjoin;
-- a parameterised index scan inside (the outer side offloaded); with join
-- filters the hash join over ji's filtered drive scan is cheaper (shown
-- after this one), so they are off for it
SET ossd.join_filter = off;
EXPLAIN (COSTS OFF)
SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 30;
SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 9 ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 30$$);
RESET ossd.join_filter;
EXPLAIN (COSTS OFF)
SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 30;
SELECT * FROM offload_check($$SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 30$$);
-- outer joins: a qual on the nullable side in ON filters the inner scan,
-- in WHERE it is a qual of the join
EXPLAIN (COSTS OFF)
SELECT s.id, i.id FROM js s LEFT JOIN ji i ON i.w = s.k AND i.id < 3000;
SELECT s.id, i.id FROM js s LEFT JOIN ji i ON i.w = s.k AND i.id < 3000 ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT s.id, i.id FROM js s LEFT JOIN ji i ON i.w = s.k AND i.id < 3000$$);
EXPLAIN (COSTS OFF)
SELECT s.id, i.id FROM js s LEFT JOIN ji i ON i.w = s.k WHERE i.id < 3000 OR i.id IS NULL;
SELECT * FROM offload_check($$SELECT s.id, i.id FROM js s LEFT JOIN ji i ON i.w = s.k WHERE i.id < 3000 OR i.id IS NULL$$);
SELECT * FROM offload_check($$SELECT s.id, i.id FROM ji i RIGHT JOIN js s ON i.w = s.k AND i.id < 3000$$);
SELECT * FROM offload_check($$SELECT o.id, i.id FROM (SELECT * FROM jo WHERE v < 60) o FULL JOIN (SELECT * FROM ji WHERE w = 7 AND id < 5000) i ON o.id = i.k$$);
SELECT * FROM offload_check($$SELECT count(*), count(i.id) FROM jo o LEFT JOIN ji i ON o.id = i.k AND i.w > 990$$);
-- a self join
SELECT * FROM offload_check($$SELECT a.id, b.id FROM ji a JOIN ji b ON a.id = b.k WHERE a.w = 3 AND b.w < 500$$);
-- semi and anti joins, NULL keys included (NOT IN sees them)
EXPLAIN (COSTS OFF)
SELECT count(*) FROM jo o WHERE EXISTS (SELECT 1 FROM ji i WHERE i.w = o.id AND i.id < 10000);
SELECT count(*) FROM jo o WHERE EXISTS (SELECT 1 FROM ji i WHERE i.w = o.id AND i.id < 10000);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE EXISTS (SELECT 1 FROM ji i WHERE i.w = o.id AND i.id < 10000)$$);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE o.id IN (SELECT k FROM ji WHERE w < 10)$$);
EXPLAIN (COSTS OFF)
SELECT count(*) FROM jo o WHERE NOT EXISTS (SELECT 1 FROM ji i WHERE i.k = o.id AND i.w < 500);
SELECT count(*) FROM jo o WHERE NOT EXISTS (SELECT 1 FROM ji i WHERE i.k = o.id AND i.w < 500);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE NOT EXISTS (SELECT 1 FROM ji i WHERE i.k = o.id AND i.w < 500)$$);
SELECT count(*) FROM jo o WHERE o.id NOT IN (SELECT k FROM ji WHERE w < 500);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE o.id NOT IN (SELECT k FROM ji WHERE w < 500)$$);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE o.id NOT IN (SELECT k FROM ji WHERE w < 500 AND k IS NOT NULL)$$);
SELECT * FROM offload_check($$SELECT s.id FROM js s WHERE s.k NOT IN (SELECT w FROM ji WHERE id < 100)$$);

-- ===================================================================
-- The same joins with every scan forced onto the drive
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF)
SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 30;
SELECT * FROM offload_check($$SELECT o.id, i.id FROM jo o JOIN ji i ON i.k = o.id WHERE o.v < 30$$);
SELECT * FROM offload_check($$SELECT o.id, i.id, i.w FROM jo o JOIN ji i ON o.id = i.k WHERE o.v < 300 AND i.w < 100$$);
SELECT * FROM offload_check($$SELECT s.id, i.id FROM js s LEFT JOIN ji i ON i.w = s.k AND i.id < 3000$$);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE NOT EXISTS (SELECT 1 FROM ji i WHERE i.k = o.id AND i.w < 500)$$);
SELECT * FROM offload_check($$SELECT o.id FROM jo o WHERE o.id NOT IN (SELECT k FROM ji WHERE w < 500)$$);
SELECT * FROM offload_check($$SELECT a.id, b.id FROM ji a JOIN ji b ON a.id = b.k WHERE a.w = 3 AND b.w < 500$$);
-- a nested loop without a Material: the inner OssdScan is rescanned once
-- per outer row, each rescan a drive scan of its own
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT s.id, i.id FROM js s JOIN ji i ON i.w = s.id + 900 WHERE i.id < 2000 AND s.id < 4;
SELECT s.id, i.id FROM js s JOIN ji i ON i.w = s.id + 900 WHERE i.id < 2000 AND s.id < 4 ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT s.id, i.id FROM js s JOIN ji i ON i.w = s.id + 900 WHERE i.id < 2000 AND s.id < 4$$);
SELECT * FROM scan_loops($$SELECT s.id, i.id FROM js s JOIN ji i ON i.w = s.id + 900 WHERE i.id < 2000 AND s.id < 4$$);
-- a semi join: its plan, its loops, its answer
SELECT * FROM scan_loops($$SELECT s.id FROM js s WHERE EXISTS (SELECT 1 FROM ji i WHERE i.w = s.id AND i.id < 19000)$$);
SELECT * FROM offload_check($$SELECT s.id FROM js s WHERE EXISTS (SELECT 1 FROM ji i WHERE i.w = s.id AND i.id < 19000)$$);
RESET enable_material;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET ossd.force_offload;

-- ===================================================================
-- LATERAL (issue 12, D2): the outer columns an offloaded scan returns
-- or filters on are nestloop Params; they must never read a column of
-- the scanned table
-- ===================================================================
CREATE TABLE d2_a (id int4, v int4);
CREATE TABLE d2_b (id int4, w int4, pad text);
INSERT INTO d2_a SELECT g, g * 10 FROM generate_series(1, 3) g;
INSERT INTO d2_b SELECT g, g * 100, repeat('p', 200) FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) d2_a;
VACUUM (FREEZE, ANALYZE) d2_b;
CHECKPOINT;
-- the reproducer of the issue, default settings: x must be 10, 20
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id$$);
-- an expression of the outer column (a PlaceHolderVar): must not be NULL
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v * 1 AS av FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v * 1 AS av FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id$$);
-- outer columns of two relations, and a constant
SELECT * FROM offload_check($$SELECT a.id, c.id, ss.* FROM d2_a a CROSS JOIN d2_a c CROSS JOIN LATERAL
  (SELECT b.id, a.v + c.v AS s, 'k' AS k, b.w - a.v AS d FROM d2_b b WHERE b.id <= a.id + c.id) ss$$);
-- the outer column in the scan's quals: a join clause evaluated on the
-- host, the rest still pushed
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w FROM d2_b b WHERE b.id < 5 AND b.w > a.v * 20) ss ORDER BY 1, 2;
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w FROM d2_b b WHERE b.id < 5 AND b.w > a.v * 20) ss ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w FROM d2_b b WHERE b.id < 5 AND b.w > a.v * 20) ss$$);
-- LATERAL with ORDER BY / LIMIT: a subquery scan per outer row
EXPLAIN (COSTS OFF)
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w + a.v AS wv FROM d2_b b WHERE b.id % 1000 = a.id ORDER BY b.id LIMIT 2) ss;
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w + a.v AS wv FROM d2_b b WHERE b.id % 1000 = a.id ORDER BY b.id LIMIT 2) ss ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w + a.v AS wv FROM d2_b b WHERE b.id % 1000 = a.id ORDER BY b.id LIMIT 2) ss$$);
-- LATERAL aggregates: the outer column is a Param of the subquery
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT count(*) AS c, sum(b.w) AS s, a.v AS x FROM d2_b b WHERE b.id < 1000 AND b.id > a.id) ss ORDER BY 1;
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT count(*) AS c, sum(b.w) AS s, a.v AS x FROM d2_b b WHERE b.id < 1000 AND b.id > a.id) ss$$);
-- a LATERAL function call over an offloaded scan's columns
SELECT * FROM offload_check($$SELECT b.id, g FROM d2_b b, LATERAL generate_series(1, b.id % 3) g WHERE b.id < 10$$);
-- forced: the same answers
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id$$);
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v * 1 AS av FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id$$);
SELECT * FROM offload_check($$SELECT a.id, c.id, ss.* FROM d2_a a CROSS JOIN d2_a c CROSS JOIN LATERAL
  (SELECT b.id, a.v + c.v AS s, 'k' AS k, b.w - a.v AS d FROM d2_b b WHERE b.id <= a.id + c.id) ss$$);
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w FROM d2_b b WHERE b.id < 5 AND b.w > a.v * 20) ss$$);
SELECT * FROM offload_check($$SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT count(*) AS c, sum(b.w) AS s, a.v AS x FROM d2_b b WHERE b.id < 1000 AND b.id > a.id) ss$$);
SELECT * FROM scan_loops($$SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id$$);
RESET ossd.force_offload;
DROP TABLE d2_a, d2_b;

-- ===================================================================
-- Correlated subqueries: a scan of the subquery runs once per outer
-- row (ossd_rel_rescanned); it is offloaded only when that pays, and
-- force_offload does not force it
-- ===================================================================
SET ossd.force_offload = on;
-- with an index: an index scan per outer row, not a drive scan per row
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.id, (SELECT sum(i.w) FROM ji i WHERE i.k = o.id) FROM jo o WHERE o.v < 30;
SELECT o.id, (SELECT sum(i.w) FROM ji i WHERE i.k = o.id) FROM jo o WHERE o.v < 30 ORDER BY 1;
SELECT * FROM offload_check($$SELECT o.id, (SELECT sum(i.w) FROM ji i WHERE i.k = o.id) FROM jo o WHERE o.v < 30$$);
-- a correlated qual the index cannot use: the drive scan per outer row
-- competes at its real cost with a seq scan per outer row.  Three
-- quarters of ji come back from the drive each time: at the default
-- ossd.transfer_tuple_cost the seq scan per row is cheaper ...
EXPLAIN (COSTS OFF)
SELECT s.id, (SELECT count(*) FROM ji i WHERE i.w = s.id AND i.id < 15000) FROM js s;
-- ... and with rows back at a third of that cost the drive scan per row
-- wins (here and in the rescanned subqueries below, up to the
-- uncorrelated one)
SET ossd.transfer_tuple_cost = 0.02;
SET ossd.drive_transfer_tuple_cost = 0.02;
EXPLAIN (COSTS OFF)
SELECT s.id, (SELECT count(*) FROM ji i WHERE i.w = s.id AND i.id < 15000) FROM js s;
SELECT s.id, (SELECT count(*) FROM ji i WHERE i.w = s.id AND i.id < 15000) FROM js s ORDER BY 1;
SELECT * FROM offload_check($$SELECT s.id, (SELECT count(*) FROM ji i WHERE i.w = s.id AND i.id < 15000) FROM js s$$);
SELECT * FROM scan_loops($$SELECT s.id, (SELECT count(*) FROM ji i WHERE i.w = s.id AND i.id < 15000) FROM js s$$);
-- in WHERE, and an EXISTS the planner cannot turn into a semi join
SELECT * FROM offload_check($$SELECT s.id FROM js s WHERE s.id * 100 < (SELECT max(i.w) FROM ji i WHERE i.w % 7 = s.id AND i.id < 3000)$$);
SELECT * FROM offload_check($$SELECT s.id FROM js s WHERE s.id = 1 OR EXISTS (SELECT 1 FROM ji i WHERE i.w = s.id * 100 AND i.id < 500)$$);
-- two levels of correlation: the innermost scan is rescanned too
EXPLAIN (COSTS OFF)
SELECT s.id, (SELECT count(*) FROM jo o WHERE o.k = s.id AND o.id < 250
                 AND o.id < (SELECT min(i.id) FROM ji i WHERE i.w = o.k + s.id AND i.id > 100)) FROM js s;
SELECT * FROM offload_check($$SELECT s.id, (SELECT count(*) FROM jo o WHERE o.k = s.id AND o.id < 250
                 AND o.id < (SELECT min(i.id) FROM ji i WHERE i.w = o.k + s.id AND i.id > 100)) FROM js s$$);
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;
-- an uncorrelated subquery runs once: forced as usual
EXPLAIN (COSTS OFF)
SELECT count(*) FROM jo WHERE v > (SELECT avg(w) FROM ji WHERE id < 500);
SELECT count(*) FROM jo WHERE v > (SELECT avg(w) FROM ji WHERE id < 500);
SELECT * FROM offload_check($$SELECT count(*) FROM jo WHERE v > (SELECT avg(w) FROM ji WHERE id < 500)$$);
-- ... also inside a correlated one: its level has no outer Params (the
-- correlated level around it offloaded at the lower transfer cost)
SET ossd.transfer_tuple_cost = 0.02;
SET ossd.drive_transfer_tuple_cost = 0.02;
SELECT * FROM offload_check($$SELECT s.id, (SELECT count(*) FROM jo o WHERE o.k = s.id AND o.v > (SELECT avg(w) FROM ji WHERE id < 500)) FROM js s$$);
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;
-- a correlated subquery under ossd.min_relation_pages = 0 and default
-- costs: the small side is not worth a channel per row
RESET ossd.force_offload;
SET ossd.min_relation_pages = 0;
EXPLAIN (COSTS OFF)
SELECT o.id, (SELECT s.name FROM js s WHERE s.id = o.k) FROM jo o WHERE o.v < 30;
SELECT * FROM offload_check($$SELECT o.id, (SELECT s.name FROM js s WHERE s.id = o.k) FROM jo o WHERE o.v < 30$$);
RESET ossd.min_relation_pages;
-- TPC-H Q17's shape (sum over rows below a correlated average), forced
SET ossd.force_offload = on;
SELECT * FROM offload_check($$SELECT sum(o.v) FROM jo o WHERE o.k < 5 AND o.v < (SELECT 0.2 * avg(i.w) FROM ji i WHERE i.k = o.k)$$);
SELECT sum(o.v) FROM jo o WHERE o.k < 5 AND o.v < (SELECT 0.2 * avg(i.w) FROM ji i WHERE i.k = o.k);
RESET ossd.force_offload;

-- ===================================================================
-- CTEs and set operations
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF)
WITH c AS MATERIALIZED (SELECT id, w FROM ji WHERE w < 20)
SELECT count(*) FROM c a JOIN c b ON a.id = b.w;
SELECT * FROM offload_check($$WITH c AS MATERIALIZED (SELECT id, w FROM ji WHERE w < 20)
SELECT a.id, b.id FROM c a JOIN c b ON a.id = b.w$$);
EXPLAIN (COSTS OFF)
WITH c AS NOT MATERIALIZED (SELECT id, w FROM ji WHERE w < 20)
SELECT count(*) FROM c WHERE id < 5000;
SELECT * FROM offload_check($$WITH c AS NOT MATERIALIZED (SELECT id, w FROM ji WHERE w < 20)
SELECT id FROM c WHERE id < 5000$$);
-- a recursive CTE seeded and joined by offloaded scans
EXPLAIN (COSTS OFF)
WITH RECURSIVE r(id, depth) AS (
  SELECT id, 0 FROM jo WHERE id < 4
  UNION ALL
  SELECT o.id, r.depth + 1 FROM r JOIN jo o ON o.id = r.id * 2 WHERE r.depth < 8 AND o.v > 0)
SELECT * FROM r;
SELECT * FROM offload_check($$WITH RECURSIVE r(id, depth) AS (
  SELECT id, 0 FROM jo WHERE id < 4
  UNION ALL
  SELECT o.id, r.depth + 1 FROM r JOIN jo o ON o.id = r.id * 2 WHERE r.depth < 8 AND o.v > 0)
SELECT * FROM r$$);
WITH RECURSIVE r(id, depth) AS (
  SELECT id, 0 FROM jo WHERE id < 4
  UNION ALL
  SELECT o.id, r.depth + 1 FROM r JOIN jo o ON o.id = r.id * 2 WHERE r.depth < 8 AND o.v > 0)
SELECT depth, count(*), max(id) FROM r GROUP BY depth ORDER BY depth;
-- UNION, INTERSECT, EXCEPT
SELECT * FROM offload_check($$SELECT k FROM jo WHERE v < 600 UNION SELECT w FROM ji WHERE id < 300$$);
SELECT * FROM offload_check($$SELECT k FROM jo WHERE v < 600 UNION ALL SELECT w FROM ji WHERE id < 300$$);
SELECT * FROM offload_check($$SELECT k FROM jo WHERE v < 6000 INTERSECT SELECT w FROM ji WHERE id < 3000$$);
SELECT * FROM offload_check($$SELECT w FROM ji WHERE id < 3000 EXCEPT SELECT k FROM jo WHERE v < 6000$$);
SELECT * FROM offload_check($$SELECT w FROM ji WHERE id < 3000 EXCEPT ALL SELECT k FROM jo WHERE v < 6000$$);
(SELECT w FROM ji WHERE id < 3000 INTERSECT SELECT k FROM jo WHERE v < 30) ORDER BY 1;
-- a window over an offloaded scan's rows
SELECT * FROM offload_check($$SELECT id, w, rank() OVER (PARTITION BY w % 3 ORDER BY id) FROM ji WHERE w < 5$$);
-- DISTINCT ON and ORDER BY ... LIMIT over an offloaded scan
SELECT * FROM offload_check($$SELECT DISTINCT ON (w) w, id FROM ji WHERE w < 50 ORDER BY w, id$$);
SELECT * FROM offload_check($$SELECT id, w FROM ji WHERE w = 13 ORDER BY id DESC LIMIT 5$$);
SELECT id, w FROM ji WHERE w = 13 ORDER BY id DESC LIMIT 5;
-- a LIMIT that stops the scan early (the drive's stream is closed)
SELECT count(*) FROM (SELECT id FROM ji WHERE w < 900 LIMIT 7) s;
SELECT * FROM scan_loops($$SELECT id FROM ji WHERE w < 900 LIMIT 7$$);
RESET ossd.force_offload;

DROP TABLE jo, ji, js;
DROP FUNCTION scan_loops(text);
