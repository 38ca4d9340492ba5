--
-- ossd_parallel_partitions: offloaded scans of partitions and of
-- inheritance children, partition pruning (static and at run time),
-- partition-wise aggregation and joins, and parallel query: an OssdScan
-- is not partial, a Parallel Append gives each child to one process, the
-- plan marks the OssdScans under a Gather parallel-aware so that the
-- workers' counters reach EXPLAIN ANALYZE (issue 12: "parallel workers
-- are invisible").
--
-- offload_check() runs a query with offload as set and with
-- ossd.enabled = off: its rows, the scans the drive ran and whether both
-- answers are the same multiset.  In EXPLAIN ANALYZE the blocks each
-- OssdScan sent to the drive are deterministic (frozen, checkpointed
-- tables, autovacuum off) whichever process ran it; row counts per
-- loop, worker numbers and times are not, and are masked.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- offload_check(q): tests/pg/regress-helpers.sql

-- EXPLAIN ANALYZE: node lines and block counters, nondeterministic
-- numbers masked
CREATE FUNCTION explain_blocks(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN ln !~ '(->|^[A-Z]|Blocks on|Workers Planned|Workers Launched|Subplans Removed)';
    ln := regexp_replace(ln, '\(actual rows=\d+ loops=\d+\)', '(actual)');
    ln := regexp_replace(ln, '\(never executed\)', '(actual)');
    ln := regexp_replace(ln, 'Workers Launched: \d+', 'Workers Launched: N');
    RETURN NEXT ln;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data: a range-partitioned table, one partition on pg_default,
-- one sub-partitioned by list, a default partition
-- ===================================================================
CREATE TABLE pp (id int4, g int4, d date, amount numeric(10,2), pad text) PARTITION BY RANGE (id);
CREATE TABLE pp_1 PARTITION OF pp FOR VALUES FROM (0) TO (10000);
CREATE TABLE pp_2 PARTITION OF pp FOR VALUES FROM (10000) TO (20000);
CREATE TABLE pp_3 PARTITION OF pp FOR VALUES FROM (20000) TO (30000) TABLESPACE pg_default;
CREATE TABLE pp_4 PARTITION OF pp FOR VALUES FROM (30000) TO (40000) PARTITION BY LIST (g);
CREATE TABLE pp_4a PARTITION OF pp_4 FOR VALUES IN (0, 1, 2, 3, 4, 5);
CREATE TABLE pp_4b PARTITION OF pp_4 DEFAULT;
CREATE TABLE pp_def PARTITION OF pp DEFAULT;
INSERT INTO pp SELECT i, i % 13, date '2020-01-01' + i % 365, (i % 1000) / 4.0, repeat('q', 120)
  FROM generate_series(0, 39999) i;
INSERT INTO pp SELECT i, i % 13, NULL, NULL, 'default' FROM generate_series(40000, 40999) i;
VACUUM (FREEZE, ANALYZE) pp;
CHECKPOINT;
SELECT c.relname, c.relpages, t.spcname IS NULL AS default_tablespace
  FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
 WHERE c.relname LIKE 'pp%' AND c.relkind = 'r' ORDER BY 1;

-- ===================================================================
-- Partitions, serial plans: each partition is its own candidate
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3;
SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
-- forced: every partition on the drive's tablespace, the one on
-- pg_default a seq scan
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3;
SELECT * FROM offload_check($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
SELECT * FROM explain_blocks($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
-- static pruning: only the partitions the quals can match
EXPLAIN (COSTS OFF) SELECT count(*) FROM pp WHERE id >= 15000 AND id < 35000 AND g = 4;
SELECT count(*) FROM pp WHERE id >= 15000 AND id < 35000 AND g = 4;
SELECT * FROM offload_check($$SELECT id FROM pp WHERE id >= 15000 AND id < 35000 AND g = 4$$);
-- a partition alone, and the sub-partitioned partition
EXPLAIN (COSTS OFF) SELECT count(*), sum(amount) FROM pp_2 WHERE g = 4;
SELECT count(*), sum(amount) FROM pp_2 WHERE g = 4;
SELECT * FROM offload_check($$SELECT count(*), sum(amount) FROM pp_2 WHERE g = 4$$);
EXPLAIN (COSTS OFF) SELECT count(*) FROM pp_4 WHERE g > 3;
SELECT * FROM offload_check($$SELECT g, count(*) FROM pp_4 WHERE g > 3 GROUP BY g$$);
-- the default partition
SELECT * FROM offload_check($$SELECT id, d FROM pp WHERE id > 40990$$);
SELECT id, d, amount, pad FROM pp WHERE id > 40995 ORDER BY id;
-- run-time pruning: a generic plan with a parameter prunes at executor
-- start (the OssdScans of removed partitions never run)
SET plan_cache_mode = force_generic_plan;
PREPARE pp_q(int4) AS SELECT count(*) FROM pp WHERE id < $1 AND g = 2;
EXPLAIN (COSTS OFF) EXECUTE pp_q(5000);
SELECT * FROM explain_blocks($$EXECUTE pp_q(5000)$$);
EXECUTE pp_q(5000);
EXECUTE pp_q(25000);
SET ossd.enabled = off;
EXECUTE pp_q(5000);
EXECUTE pp_q(25000);
RESET ossd.enabled;
DEALLOCATE pp_q;
RESET plan_cache_mode;
-- a join with a few keys: without an index on pp no parameterised inner
-- path can prune by the join's keys, every partition is scanned once
CREATE TABLE pp_keys (id int4);
INSERT INTO pp_keys VALUES (5), (15005), (35005);
ANALYZE pp_keys;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT k.id, p.g FROM pp_keys k JOIN pp p ON p.id = k.id AND p.g >= 0;
SELECT k.id, p.g FROM pp_keys k JOIN pp p ON p.id = k.id AND p.g >= 0 ORDER BY 1;
SELECT * FROM offload_check($$SELECT k.id, p.g FROM pp_keys k JOIN pp p ON p.id = k.id AND p.g >= 0$$);
RESET enable_mergejoin;
RESET enable_hashjoin;
DROP TABLE pp_keys;
-- aggregates over the partitioned table: the parent is an appendrel, its
-- aggregation is the host's over the partitions' offloaded scans
EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count(*), sum(amount) FROM pp WHERE id < 20000 GROUP BY g;
SELECT g, count(*), sum(amount) FROM pp WHERE id < 20000 GROUP BY g ORDER BY g;
SELECT * FROM offload_check($$SELECT g, count(*), sum(amount) FROM pp WHERE id < 20000 GROUP BY g$$);
-- partition-wise aggregation: one Agg per partition, over its OssdScan
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(amount) FROM pp GROUP BY g;
SELECT * FROM offload_check($$SELECT g, count(*), sum(amount), avg(amount), min(d), max(d) FROM pp GROUP BY g$$);
EXPLAIN (COSTS OFF) SELECT id / 10000, count(*) FROM pp GROUP BY id / 10000;
SELECT id / 10000, count(*) FROM pp GROUP BY id / 10000 ORDER BY 1;
SELECT * FROM offload_check($$SELECT id / 10000, count(*), sum(g) FROM pp GROUP BY id / 10000$$);
RESET enable_partitionwise_aggregate;
-- partition-wise join of two tables partitioned alike
CREATE TABLE pq (id int4, w int4) PARTITION BY RANGE (id);
CREATE TABLE pq_1 PARTITION OF pq FOR VALUES FROM (0) TO (10000);
CREATE TABLE pq_2 PARTITION OF pq FOR VALUES FROM (10000) TO (20000);
CREATE TABLE pq_3 PARTITION OF pq FOR VALUES FROM (20000) TO (30000);
CREATE TABLE pq_4 PARTITION OF pq FOR VALUES FROM (30000) TO (40000);
CREATE TABLE pq_def PARTITION OF pq DEFAULT;
INSERT INTO pq SELECT i, i % 7 FROM generate_series(0, 40999, 3) i;
VACUUM (FREEZE, ANALYZE) pq;
CHECKPOINT;
SET enable_partitionwise_join = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pp JOIN pq ON pp.id = pq.id WHERE pp.g = 1 AND pq.w = 1;
SELECT count(*) FROM pp JOIN pq ON pp.id = pq.id WHERE pp.g = 1 AND pq.w = 1;
SELECT * FROM offload_check($$SELECT pp.id FROM pp JOIN pq ON pp.id = pq.id WHERE pp.g = 1 AND pq.w = 1$$);
RESET enable_partitionwise_join;
SELECT * FROM offload_check($$SELECT pp.id FROM pp JOIN pq ON pp.id = pq.id WHERE pp.g = 1 AND pq.w = 1$$);
-- changes: a row moved between partitions, an update in place; the
-- changed blocks are host blocks
UPDATE pp SET id = id + 10000 WHERE id % 1000 = 7 AND id < 10000;
UPDATE pp SET amount = amount + 1 WHERE id % 1000 = 8;
DELETE FROM pp WHERE id % 1000 = 9;
SELECT * FROM explain_blocks($$SELECT count(*) FROM pp WHERE g >= 0$$);
SELECT * FROM offload_check($$SELECT id, g, amount FROM pp WHERE g = 7$$);
SELECT count(*), sum(id), sum(amount) FROM pp WHERE g >= 0;
SET ossd.enabled = off;
SELECT count(*), sum(id), sum(amount) FROM pp WHERE g >= 0;
RESET ossd.enabled;
VACUUM (FREEZE, ANALYZE) pp;
CHECKPOINT;
RESET ossd.force_offload;

-- ===================================================================
-- Parallel query: Parallel Append over the partitions; each OssdScan
-- runs whole in one process and is marked parallel-aware for its
-- shared statistics
-- ===================================================================
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3;
SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
-- the workers' blocks add up in the leader's EXPLAIN ANALYZE: the same
-- counts as the serial plan's
SELECT * FROM explain_blocks($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
SET parallel_leader_participation = off;
SELECT * FROM explain_blocks($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
SELECT * FROM offload_check($$SELECT id, g FROM pp WHERE g = 3 AND id % 1000 = 3$$);
RESET parallel_leader_participation;
-- an aggregate above the Parallel Append: partial aggregation in the
-- workers over their OssdScans' rows, finalised in the leader
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(amount) FROM pp GROUP BY g;
SELECT g, count(*), sum(amount) FROM pp GROUP BY g ORDER BY g;
SELECT * FROM offload_check($$SELECT g, count(*), sum(amount), avg(amount) FROM pp GROUP BY g$$);
SELECT * FROM explain_blocks($$SELECT g, count(*), sum(amount) FROM pp GROUP BY g$$);
-- partition-wise aggregation under the Gather
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(amount) FROM pp GROUP BY g;
SELECT * FROM offload_check($$SELECT g, count(*), sum(amount), min(d) FROM pp GROUP BY g$$);
RESET enable_partitionwise_aggregate;
-- Gather Merge over sorted partitions
EXPLAIN (COSTS OFF) SELECT id, g FROM pp WHERE g = 5 ORDER BY id LIMIT 5;
SELECT id, g FROM pp WHERE g = 5 ORDER BY id LIMIT 5;
SELECT * FROM offload_check($$SELECT id, g FROM pp WHERE g = 5 ORDER BY id LIMIT 5$$);
-- a join of partitions under the Gather
SET enable_partitionwise_join = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pp JOIN pq ON pp.id = pq.id WHERE pp.g = 1 AND pq.w = 1;
SELECT * FROM offload_check($$SELECT pp.id FROM pp JOIN pq ON pp.id = pq.id WHERE pp.g = 1 AND pq.w = 1$$);
RESET enable_partitionwise_join;
-- a single table: an OssdScan is not partial, so a forced scan has no
-- Gather; unforced, a Parallel Seq Scan competes with it
CREATE TABLE ps (id int4, g int4, pad text);
INSERT INTO ps SELECT i, i % 17, repeat('s', 150) FROM generate_series(1, 30000) i;
VACUUM (FREEZE, ANALYZE) ps;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps WHERE g = 3 AND id % 2 = 0;
SELECT * FROM offload_check($$SELECT count(*) FROM ps WHERE g = 3 AND id % 2 = 0$$);
EXPLAIN (COSTS OFF) SELECT id FROM ps WHERE g = 3;
SELECT * FROM offload_check($$SELECT id FROM ps WHERE g = 3$$);
RESET ossd.force_offload;
EXPLAIN (COSTS OFF) SELECT id FROM ps WHERE g = 3;
SELECT * FROM offload_check($$SELECT id FROM ps WHERE g = 3$$);
-- the offloaded side of a parallel join: the processes share ps's chunks,
-- each filtered on the drive by the keys of the one hash table they all
-- built from pp's partitions (a parallel hash join)
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ps JOIN pp ON ps.id = pp.id WHERE ps.g = 2 AND pp.g = 2;
SELECT count(*) FROM ps JOIN pp ON ps.id = pp.id WHERE ps.g = 2 AND pp.g = 2;
-- (how many scans the drive runs depends on the chunks each process took)
SELECT n_rows, same FROM offload_check($$SELECT ps.id FROM ps JOIN pp ON ps.id = pp.id WHERE ps.g = 2 AND pp.g = 2$$);
-- a correlated subquery in a parallel plan: the SubPlan runs in the
-- leader, above the Gather, once per row
EXPLAIN (COSTS OFF) SELECT p.id, (SELECT count(*) FROM ps s WHERE s.g = p.g AND s.id < 100) FROM pp p WHERE p.id % 5000 = 1;
SELECT * FROM offload_check($$SELECT p.id, (SELECT count(*) FROM ps s WHERE s.g = p.g AND s.id < 100) FROM pp p WHERE p.id % 5000 = 1$$);
DROP TABLE ps;

-- ===================================================================
-- Inheritance trees under a Parallel Append (issue 12, D1 with workers)
-- ===================================================================
CREATE TABLE ih (a int4, b text);
CREATE TABLE ih_c1 () INHERITS (ih);
CREATE TABLE ih_c2 (c int4) INHERITS (ih);
CREATE TABLE ih_c1_1 () INHERITS (ih_c1);
INSERT INTO ih SELECT g, repeat('h', 100) FROM generate_series(1, 15000) g;
INSERT INTO ih_c1 SELECT g, 'c1' FROM generate_series(1, 15000) g;
INSERT INTO ih_c2 SELECT g, 'c2', g FROM generate_series(1, 15000) g;
INSERT INTO ih_c1_1 SELECT g, 'c1_1' FROM generate_series(1, 15000) g;
VACUUM (FREEZE, ANALYZE) ih, ih_c1, ih_c2, ih_c1_1;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT b, count(*) FROM ih WHERE a < 100 GROUP BY b;
SELECT b, count(*) FROM ih WHERE a < 100 GROUP BY b ORDER BY b;
SELECT * FROM offload_check($$SELECT b, count(*) FROM ih WHERE a < 100 GROUP BY b$$);
SELECT * FROM explain_blocks($$SELECT b, count(*) FROM ih WHERE a < 100 GROUP BY b$$);
SELECT * FROM offload_check($$SELECT a, b FROM ih WHERE a % 5000 = 1$$);
SELECT * FROM offload_check($$SELECT count(*) FROM ih_c1 WHERE a < 100$$);
SELECT * FROM offload_check($$SELECT count(*) FROM ONLY ih WHERE a < 100$$);
DROP TABLE ih, ih_c1, ih_c2, ih_c1_1;

-- ===================================================================
-- A SubPlan that runs in the workers (a hashed NOT IN in a parallel
-- scan's filter): its OssdScan is parallel-aware too, so that each
-- process's drive scan reaches EXPLAIN ANALYZE: its blocks on the drive
-- are its pages times the processes that ran it (its loops)
-- ===================================================================
CREATE TABLE sp_big (id int4, k int4, pad text);
CREATE TABLE sp_small (k int4, v int4, pad text);
INSERT INTO sp_big SELECT g, g % 3000, repeat('b', 60) FROM generate_series(1, 60000) g;
INSERT INTO sp_small SELECT g, g % 7, repeat('s', 60) FROM generate_series(1, 3000) g;
VACUUM (FREEZE, ANALYZE) sp_big, sp_small;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sp_big WHERE k NOT IN (SELECT k FROM sp_small WHERE v = 3);
SELECT count(*) FROM sp_big WHERE k NOT IN (SELECT k FROM sp_small WHERE v = 3);
SELECT * FROM offload_check($$SELECT count(*) FROM sp_big WHERE k NOT IN (SELECT k FROM sp_small WHERE v = 3)$$);
CREATE FUNCTION subplan_blocks_add_up(q text, rel regclass) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  ln text;
  in_subplan boolean := false;
  loops int;
  blocks bigint;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF ln ~ 'SubPlan' THEN
      in_subplan := true;
    ELSIF in_subplan AND ln ~ 'OssdScan\) on ' THEN
      loops := substring(ln FROM 'loops=(\d+)')::int;
    ELSIF in_subplan AND loops IS NOT NULL AND ln ~ 'Blocks on Drive' THEN
      blocks := substring(ln FROM 'Blocks on Drive: (\d+)')::bigint;
      EXIT;
    END IF;
  END LOOP;
  RETURN blocks = loops * (SELECT relpages FROM pg_class WHERE oid = rel);
END
$$;
SELECT subplan_blocks_add_up($$SELECT count(*) FROM sp_big WHERE k NOT IN (SELECT k FROM sp_small WHERE v = 3)$$,
                             'sp_small');
DROP FUNCTION subplan_blocks_add_up(text, regclass);
DROP TABLE sp_big, sp_small;
RESET ossd.force_offload;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

DROP TABLE pp, pq;
DROP FUNCTION explain_blocks(text);
