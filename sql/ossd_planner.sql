--
-- ossd_planner: planner decisions of pg_ossd on SQL outside the TPC-H-like
-- schema -- inheritance, LATERAL, numeric group keys with map kernels,
-- partitions under Parallel Append, rescans.  Each EXPLAIN (VERBOSE, COSTS
-- OFF) shows the decision the following query's answer depends on.
--
SET extra_float_digits = 0;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- EXPLAIN ANALYZE with only the deterministic counters: row counts per
-- loop, worker distribution, bytes and times are masked.
CREATE FUNCTION explain_ossd(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
  LOOP
    CONTINUE WHEN ln ~ '(Bytes|Drive Time|Snapshot Bound|Kernel Instructions|Worker \d+:|Output:)';
    ln := regexp_replace(ln, 'actual rows=\d+ loops=\d+', 'actual rows=N loops=N');
    ln := regexp_replace(ln, '(Rows Removed by Filter|Workers Launched): \d+', '\1: N');
    ln := regexp_replace(ln, 'Partial Groups from Drive: [1-9]\d*', 'Partial Groups from Drive: >0');
    RETURN NEXT ln;
  END LOOP;
END
$$;

-- ===================================================================
-- inheritance: a parent's scan must keep its children (an Append)
-- ===================================================================
CREATE TABLE d1_par (a int, b text);
CREATE TABLE d1_chi () INHERITS (d1_par);
INSERT INTO d1_par SELECT g, repeat('x', 100) FROM generate_series(1, 30000) g;
INSERT INTO d1_chi SELECT g, 'child' FROM generate_series(1, 1000) g;
VACUUM (FREEZE, ANALYZE) d1_par;
VACUUM (FREEZE, ANALYZE) d1_chi;
CHECKPOINT;
SET ossd.min_relation_pages = 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM d1_par WHERE a < 500;
SELECT count(*) FROM d1_par WHERE a < 500;
EXPLAIN (VERBOSE, COSTS OFF) SELECT b, count(*) FROM d1_par WHERE a < 500 GROUP BY b ORDER BY b;
SELECT b, count(*) FROM d1_par WHERE a < 500 GROUP BY b ORDER BY b;
EXPLAIN (VERBOSE, COSTS OFF) SELECT a, b FROM d1_par WHERE a = 7 ORDER BY b;
SELECT a, b FROM d1_par WHERE a = 7 ORDER BY b;
-- ONLY: the parent alone is an ordinary candidate
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM ONLY d1_par WHERE a < 500;
SELECT count(*) FROM ONLY d1_par WHERE a < 500;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM d1_par WHERE a < 500;
SELECT count(*) FROM d1_par WHERE a < 500;
RESET ossd.force_offload;
RESET ossd.min_relation_pages;

-- ===================================================================
-- LATERAL: outer references of an offloaded scan are parameters
-- ===================================================================
CREATE TABLE d2_a (id int, v int);
CREATE TABLE d2_b (id int, w int, pad text);
INSERT INTO d2_a SELECT g, g * 10 FROM generate_series(1, 3) g;
INSERT INTO d2_b SELECT g, g * 100, repeat('p', 200) FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) d2_a;
VACUUM (FREEZE, ANALYZE) d2_b;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v * 1 AS av FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v * 1 AS av FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
-- a lateral reference in the scan's quals: a join clause, on the host
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w FROM d2_b b WHERE b.id < 5 AND b.w > a.v * 20) ss ORDER BY 1, 2;
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT b.id, b.w FROM d2_b b WHERE b.id < 5 AND b.w > a.v * 20) ss ORDER BY 1, 2;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
SELECT a.id, ss.* FROM d2_a a LEFT JOIN LATERAL
  (SELECT b.id, b.w, a.v AS x FROM d2_b b WHERE b.id < 3) ss ON a.id = ss.id ORDER BY 1, 2;
-- an aggregate in a LATERAL subquery: the outer column is a Param of the
-- subquery, which runs once per outer row.  Rows from the drive made dear,
-- so that the drive aggregates (999 rows are cheaper to aggregate on the
-- host at the default costs)
SET ossd.transfer_tuple_cost = 1;
SET ossd.drive_transfer_tuple_cost = 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT count(*) AS c, sum(b.w) AS s, a.v AS x FROM d2_b b WHERE b.id < 1000) ss ORDER BY 1;
SELECT a.id, ss.* FROM d2_a a CROSS JOIN LATERAL
  (SELECT count(*) AS c, sum(b.w) AS s, a.v AS x FROM d2_b b WHERE b.id < 1000) ss ORDER BY 1;
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;

-- ===================================================================
-- numeric group keys with a map kernel: one key format for the host
-- ===================================================================
CREATE TABLE d3 (k int8, n numeric(10,0), x int4, s numeric(8,2));
INSERT INTO d3 SELECT g % 50, (g % 40) - 20, g, ((g % 7) - 3) * 1.25 FROM generate_series(1, 20000) g;
INSERT INTO d3 VALUES (NULL, NULL, NULL, NULL), (1, NULL, 5, NULL);
VACUUM (FREEZE, ANALYZE) d3;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n ORDER BY n;
SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n ORDER BY n;
-- two numeric keys, one of them with a fraction, and a filter
EXPLAIN (VERBOSE, COSTS OFF)
SELECT s, n, sum(s * n), avg(s + n), count(n) FROM d3 WHERE x < 15000 GROUP BY s, n ORDER BY s, n LIMIT 12;
SELECT s, n, sum(s * n), avg(s + n), count(n) FROM d3 WHERE x < 15000 GROUP BY s, n ORDER BY s, n LIMIT 12;
-- a numeric key beside an int8 key
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(c), sum(t) FROM (SELECT s, k, count(*) AS c, sum(s * 2) AS t FROM d3 GROUP BY s, k) g;
SELECT count(*), sum(c), sum(t) FROM (SELECT s, k, count(*) AS c, sum(s * 2) AS t FROM d3 GROUP BY s, k) g;
-- the drive really merged partial groups keyed by numerics
SELECT ln FROM explain_ossd('SELECT n, count(*), sum(n * n) FROM d3 GROUP BY n') AS ln
 WHERE ln ~ '(Map Kernel|Partial Groups|Blocks on)';

-- ===================================================================
-- partitions under a Parallel Append: the workers' counters add up
-- ===================================================================
CREATE TABLE d4 (id int8, g int4, pad text) PARTITION BY RANGE (id);
CREATE TABLE d4_1 PARTITION OF d4 FOR VALUES FROM (0) TO (20000);
CREATE TABLE d4_2 PARTITION OF d4 FOR VALUES FROM (20000) TO (40000);
CREATE TABLE d4_3 PARTITION OF d4 FOR VALUES FROM (40000) TO (60000);
INSERT INTO d4 SELECT i, i % 13, repeat('q', 150) FROM generate_series(0, 59999) i;
VACUUM (FREEZE, ANALYZE) d4;
CHECKPOINT;
SELECT sum(relpages) AS d4_pages FROM pg_class WHERE relname IN ('d4_1', 'd4_2', 'd4_3');
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_partitionwise_aggregate = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, g FROM d4 WHERE g = 3 AND id % 1000 = 3;
SELECT id, g FROM d4 WHERE g = 3 AND id % 1000 = 3 ORDER BY id;
-- every block of the three partitions on the drive, once, whichever
-- process scanned it
SELECT ln FROM explain_ossd('SELECT id, g FROM d4 WHERE g = 3 AND id % 1000 = 3') AS ln;
-- and with the leader taking part or not, the same sums
SET parallel_leader_participation = off;
SELECT ln FROM explain_ossd('SELECT id, g FROM d4 WHERE g = 3 AND id % 1000 = 3') AS ln
 WHERE ln ~ '(Blocks on|Rows from Drive|Parallel|Gather)';
RESET parallel_leader_participation;
RESET enable_partitionwise_aggregate;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- ===================================================================
-- one table under a Gather: its processes share the blocks, chunk by
-- chunk, each sending the drive its own chunks
-- ===================================================================
CREATE TABLE d6 (id int8, g int4, pad text);
INSERT INTO d6 SELECT i, i % 7, repeat('s', 150) FROM generate_series(1, 60000) i;
VACUUM (FREEZE, ANALYZE) d6;
CHECKPOINT;
SELECT relpages AS d6_pages FROM pg_class WHERE relname = 'd6';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET ossd.parallel_chunk_blocks = 64;
-- most rows pass: the host's share of the work is what the processes
-- divide (a selective scan is bound by the drive, and stays whole)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(id), min(id), max(id) FROM (SELECT id FROM d6 WHERE id > 2000 OFFSET 0) s;
SELECT count(*), sum(id), min(id), max(id) FROM (SELECT id FROM d6 WHERE id > 2000 OFFSET 0) s;
-- every block on the drive once, in ceil(1464 / 64) = 23 chunks in all,
-- whichever process took them
SELECT ln FROM explain_ossd('SELECT id, g FROM d6 WHERE id > 2000') AS ln
 WHERE ln ~ '(Blocks on|Rows from Drive|Block Chunks|Parallel|Gather)';
-- the leader alone (no workers): the same chunks, the same rows
SET max_parallel_workers = 0;
SELECT ln FROM explain_ossd('SELECT id, g FROM d6 WHERE id > 2000') AS ln
 WHERE ln ~ '(Blocks on|Rows from Drive|Block Chunks|Workers Launched)';
RESET max_parallel_workers;
-- partial aggregates over the shared scan, finalized above the Gather
SET ossd.aggregate_pushdown = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g, count(*), sum(id) FROM d6 WHERE id > 2000 GROUP BY g ORDER BY g;
SELECT g, count(*), sum(id) FROM d6 WHERE id > 2000 GROUP BY g ORDER BY g;
RESET ossd.aggregate_pushdown;
-- a Gather rescanned under a nested loop: its chunks are handed out anew
-- each time
CREATE TABLE d6_k (k int4);
INSERT INTO d6_k VALUES (1), (2), (3);
ANALYZE d6_k;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT d6_k.k, count(*) FROM d6_k JOIN d6 ON d6.g = d6_k.k AND d6.id > 2000 GROUP BY d6_k.k ORDER BY 1;
SELECT d6_k.k, count(*) FROM d6_k JOIN d6 ON d6.g = d6_k.k AND d6.id > 2000 GROUP BY d6_k.k ORDER BY 1;
RESET enable_material;
RESET enable_mergejoin;
RESET enable_hashjoin;
-- the same answers from the host alone
SET ossd.enabled = off;
SELECT count(*), sum(id), min(id), max(id) FROM (SELECT id FROM d6 WHERE id > 2000 OFFSET 0) s;
SELECT g, count(*), sum(id) FROM d6 WHERE id > 2000 GROUP BY g ORDER BY g;
SELECT d6_k.k, count(*) FROM d6_k JOIN d6 ON d6.g = d6_k.k AND d6.id > 2000 GROUP BY d6_k.k ORDER BY 1;
RESET ossd.enabled;
RESET ossd.parallel_chunk_blocks;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- ===================================================================
-- rescans: a scan run once per outer row is offloaded only if it pays,
-- and force_offload does not force it
-- ===================================================================
CREATE TABLE d5_out (k int4);
CREATE TABLE d5_in (k int4, v int4, pad text);
INSERT INTO d5_out SELECT g * 7 FROM generate_series(1, 40) g;
INSERT INTO d5_in SELECT g % 2000, g, repeat('r', 100) FROM generate_series(1, 40000) g;
CREATE INDEX d5_in_k ON d5_in (k);
VACUUM (FREEZE, ANALYZE) d5_out;
VACUUM (FREEZE, ANALYZE) d5_in;
CHECKPOINT;
-- a correlated subquery (TPC-H Q17's shape): an index scan per outer row,
-- with offload forced too
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.k, (SELECT sum(i.v) FROM d5_in i WHERE i.k = o.k AND i.v > 100) FROM d5_out o ORDER BY o.k LIMIT 5;
SELECT o.k, (SELECT sum(i.v) FROM d5_in i WHERE i.k = o.k AND i.v > 100) FROM d5_out o ORDER BY o.k LIMIT 5;
-- EXISTS becomes a semi join: the outer side forced onto the drive, the
-- inner probed by its index per outer row (a parameterised path stays
-- beside a forced scan)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM d5_out o WHERE EXISTS (SELECT 1 FROM d5_in i WHERE i.k = o.k AND i.v % 3 = 0);
SELECT count(*) FROM d5_out o WHERE EXISTS (SELECT 1 FROM d5_in i WHERE i.k = o.k AND i.v % 3 = 0);
-- without an index the drive scan pays (and the outer query is still forced)
DROP INDEX d5_in_k;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT o.k, (SELECT sum(i.v) FROM d5_in i WHERE i.k = o.k AND i.v > 100) FROM d5_out o ORDER BY o.k LIMIT 3;
SELECT o.k, (SELECT sum(i.v) FROM d5_in i WHERE i.k = o.k AND i.v > 100) FROM d5_out o ORDER BY o.k LIMIT 3;
-- the counters of a rescanned OssdScan add up over its loops: 3 scans
SELECT sum(relpages) * 3 AS d5_in_pages_x3 FROM pg_class WHERE relname = 'd5_in';
SELECT ln FROM explain_ossd('SELECT o.k, (SELECT sum(i.v) FROM d5_in i WHERE i.k = o.k AND i.v > 100) FROM d5_out o ORDER BY o.k LIMIT 3') AS ln
 WHERE ln ~ '(Blocks on|SubPlan|OssdScan)';
-- an uncorrelated subquery runs once: forced as usual
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM d5_out o WHERE o.k > (SELECT avg(v) / 1000 FROM d5_in WHERE v < 500);
SELECT count(*) FROM d5_out o WHERE o.k > (SELECT avg(v) / 1000 FROM d5_in WHERE v < 500);
RESET ossd.force_offload;

DROP TABLE d1_par, d1_chi, d2_a, d2_b, d3, d4, d5_out, d5_in;
DROP FUNCTION explain_ossd(text);
