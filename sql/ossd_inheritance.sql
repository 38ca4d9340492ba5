--
-- ossd_inheritance: each member of an inheritance tree or a partitioned
-- table is its own candidate (issue 12, D1: a parent stands for its
-- children, its rel is an Append of every member's scan), with columns
-- in another order, dropped or added in a child, children in another
-- tablespace, ONLY, UNION ALL views, partitions by list, range and hash
-- with a default partition, pruning at plan time and at run time
-- (parameters, a nested loop's outer values), partition-wise aggregation
-- and joins, and aggregates over each.  Each plan is shown before the
-- query whose answer depends on it; each answer against offload off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql

-- ===================================================================
-- An inheritance tree three levels deep: a child with an extra column,
-- a child whose columns are in another order (attached with INHERIT), a
-- child with a dropped column, a grandchild, a child on pg_default
-- ===================================================================
CREATE TABLE ih_root (a int4, b text, c numeric(8,2));
CREATE TABLE ih_extra (x int4 DEFAULT 7) INHERITS (ih_root);
CREATE TABLE ih_order (c numeric(8,2), pad text, b text, a int4);
ALTER TABLE ih_order INHERIT ih_root;
CREATE TABLE ih_dropped (gone int4, a int4, b text, c numeric(8,2));
ALTER TABLE ih_dropped INHERIT ih_root;
CREATE TABLE ih_grand (g text) INHERITS (ih_extra);
CREATE TABLE ih_host () INHERITS (ih_root) TABLESPACE pg_default;
INSERT INTO ih_root SELECT g, 'root ' || g % 10, g / 8.0 FROM generate_series(1, 6000) g;
INSERT INTO ih_extra SELECT g, 'extra ' || g % 10, g / 4.0, g % 3 FROM generate_series(1, 2000) g;
INSERT INTO ih_order SELECT g / 2.0, repeat('o', 50), 'order ' || g % 10, g FROM generate_series(1, 2000) g;
INSERT INTO ih_dropped SELECT g * 100, g, 'dropped ' || g % 10, g FROM generate_series(1, 1500) g;
ALTER TABLE ih_dropped DROP COLUMN gone;
INSERT INTO ih_grand SELECT g, 'grand ' || g % 10, g, g % 5, 'gg' || g FROM generate_series(1, 1000) g;
INSERT INTO ih_host SELECT g, 'host ' || g % 10, g FROM generate_series(1, 500) g;
VACUUM (FREEZE, ANALYZE) ih_root, ih_extra, ih_order, ih_dropped, ih_grand, ih_host;
CHECKPOINT;
-- every member on the drive except ih_host, each scanned by its own node
EXPLAIN (VERBOSE, COSTS OFF) SELECT a, b FROM ih_root WHERE a = 7;
SELECT tableoid::regclass, a, b, c FROM ih_root WHERE a = 7 ORDER BY 1;
SELECT * FROM offload_check($$SELECT a, b, c FROM ih_root WHERE a = 7$$);
SELECT * FROM offload_check($$SELECT a, b, c FROM ih_root WHERE a < 100 AND c > 10$$);
-- an aggregate over the tree: per member, appended, finalized on the host
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(c) FROM ih_root WHERE a < 1000;
SELECT count(*), sum(c) FROM ih_root WHERE a < 1000;
SELECT * FROM offload_check($$SELECT count(*), sum(c) FROM ih_root WHERE a < 1000$$);
SELECT tableoid::regclass, count(*), sum(c), min(b), max(b) FROM ih_root WHERE a < 1000 GROUP BY 1 ORDER BY 1;
SELECT * FROM offload_check($$SELECT tableoid::regclass, count(*), sum(c), min(b), max(b) FROM ih_root WHERE a < 1000 GROUP BY 1$$);
SELECT * FROM offload_check($$SELECT b, count(*) FROM ih_root WHERE a % 7 = 1 GROUP BY b$$);
-- ONLY: the root's heap alone (its own aggregate on the drive)
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(c) FROM ONLY ih_root WHERE a < 1000;
SELECT count(*), sum(c) FROM ONLY ih_root WHERE a < 1000;
SELECT * FROM offload_check($$SELECT count(*), sum(c) FROM ONLY ih_root WHERE a < 1000$$);
-- a middle level: itself and its grandchild, the extra column through it
EXPLAIN (VERBOSE, COSTS OFF) SELECT a, x FROM ih_extra WHERE x = 2 AND a < 30;
SELECT tableoid::regclass, a, x FROM ih_extra WHERE x = 2 AND a < 30 ORDER BY 2, 1;
SELECT * FROM offload_check($$SELECT a, x FROM ih_extra WHERE x = 2 AND a < 30$$);
SELECT * FROM offload_check($$SELECT x, count(*), sum(a) FROM ih_extra GROUP BY x$$);
-- the child with its columns in another order, alone and through the root
EXPLAIN (VERBOSE, COSTS OFF) SELECT a, b, c FROM ih_order WHERE a < 5;
SELECT a, b, c FROM ih_order WHERE a < 5 ORDER BY a;
SELECT * FROM offload_check($$SELECT a, b, c, pad FROM ih_order WHERE a < 50$$);
SELECT * FROM offload_check($$SELECT count(*), sum(a), sum(c) FROM ih_order WHERE c > 100$$);
-- the child with a dropped column
SELECT a, b, c FROM ih_dropped WHERE a < 4 ORDER BY a;
SELECT * FROM offload_check($$SELECT a, b, c FROM ih_dropped WHERE a < 400$$);
SELECT * FROM offload_check($$SELECT count(*), sum(a), avg(c) FROM ih_dropped WHERE b = 'dropped 3'$$);
-- the grandchild's own columns
SELECT * FROM offload_check($$SELECT a, x, g FROM ih_grand WHERE x = 3 AND a < 200$$);
-- rows added to a member after VACUUM: host blocks of that member only
INSERT INTO ih_order SELECT 0, 'late', 'late', g FROM generate_series(100001, 100050) g;
UPDATE ih_extra SET b = 'changed' WHERE a % 500 = 0;
SELECT * FROM offload_check($$SELECT a, b FROM ih_root WHERE a > 100000 OR b = 'changed'$$);
SELECT tableoid::regclass, count(*) FROM ih_root WHERE a > 100000 OR b = 'changed' GROUP BY 1 ORDER BY 1;
-- forced: every member on the drive but the one on pg_default
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ih_root WHERE b LIKE '%1';
SELECT * FROM offload_check($$SELECT count(*) FROM ih_root WHERE b LIKE '%1'$$);
SELECT * FROM offload_check($$SELECT tableoid::regclass, b, count(*) FROM ih_root WHERE a < 300 GROUP BY 1, 2$$);
-- a join of the tree with itself, and with one member
SELECT * FROM offload_check($$SELECT r.a, e.x FROM ih_root r JOIN ih_extra e ON e.a = r.a WHERE r.a < 50 AND e.x = 1$$);
SELECT * FROM offload_check($$SELECT r.tableoid::regclass, count(*) FROM ih_root r WHERE r.a IN (SELECT a FROM ih_grand WHERE x = 0) GROUP BY 1$$);
RESET ossd.force_offload;
-- UPDATE and DELETE through the root: targets, never offloaded
EXPLAIN (COSTS OFF) UPDATE ih_root SET c = c + 1 WHERE a = 11;
UPDATE ih_root SET c = c + 1 WHERE a = 11;
DELETE FROM ih_root WHERE a = 12;
SELECT * FROM offload_check($$SELECT tableoid::regclass, a, c FROM ih_root WHERE a BETWEEN 10 AND 13$$);
SELECT tableoid::regclass, a, c FROM ih_root WHERE a BETWEEN 10 AND 13 ORDER BY 1, 2;
-- a child removed from the tree: no longer appended
ALTER TABLE ih_dropped NO INHERIT ih_root;
SELECT * FROM offload_check($$SELECT count(*) FROM ih_root WHERE a < 1000$$);
SELECT count(*) FROM ih_root WHERE a < 1000;

-- ===================================================================
-- UNION ALL views over tables on the drive and off it: each branch is
-- its own scan (an appendrel of subqueries)
-- ===================================================================
CREATE VIEW ih_union AS
  SELECT a, b, c, 'root' AS src FROM ONLY ih_root
  UNION ALL SELECT a, b, c, 'extra' FROM ONLY ih_extra
  UNION ALL SELECT a, b, c, 'host' FROM ih_host
  UNION ALL SELECT a, b, c, 'dropped' FROM ih_dropped;
EXPLAIN (VERBOSE, COSTS OFF) SELECT src, a FROM ih_union WHERE a = 9;
SELECT src, a, b FROM ih_union WHERE a = 9 ORDER BY 1;
SELECT * FROM offload_check($$SELECT src, a, b FROM ih_union WHERE a = 9$$);
SELECT * FROM offload_check($$SELECT src, count(*), sum(c) FROM ih_union WHERE a < 800 GROUP BY src$$);
SELECT src, count(*), sum(c) FROM ih_union WHERE a < 800 GROUP BY src ORDER BY src;
-- a branch pruned by a constant qual on its tag
EXPLAIN (COSTS OFF) SELECT count(*) FROM ih_union WHERE src = 'extra' AND a < 100;
SELECT * FROM offload_check($$SELECT count(*) FROM ih_union WHERE src = 'extra' AND a < 100$$);
-- UNION (not ALL) and a branch with its own aggregate
SELECT * FROM offload_check($$SELECT a FROM ih_root WHERE a < 20 UNION SELECT a FROM ih_dropped WHERE a < 30$$);
SELECT * FROM offload_check($$SELECT 'r', count(*) FROM ONLY ih_root WHERE a < 50 UNION ALL SELECT 'o', count(*) FROM ih_order WHERE a < 50$$);
DROP VIEW ih_union;
DROP TABLE ih_root, ih_extra, ih_order, ih_dropped, ih_grand, ih_host;

-- ===================================================================
-- List partitions with a default partition, a partition with its
-- columns in another order (ATTACH), sub-partitions by hash
-- ===================================================================
CREATE TABLE pl (region text, id int4, amt numeric(10,2), d date) PARTITION BY LIST (region);
CREATE TABLE pl_eu PARTITION OF pl FOR VALUES IN ('eu', 'uk');
CREATE TABLE pl_us PARTITION OF pl FOR VALUES IN ('us');
CREATE TABLE pl_asia (d date, amt numeric(10,2), id int4, region text);
ALTER TABLE pl ATTACH PARTITION pl_asia FOR VALUES IN ('jp', 'cn');
CREATE TABLE pl_other PARTITION OF pl DEFAULT PARTITION BY HASH (id);
CREATE TABLE pl_other_0 PARTITION OF pl_other FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE pl_other_1 PARTITION OF pl_other FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO pl SELECT (ARRAY['eu', 'uk', 'us', 'jp', 'cn', 'br', 'za', NULL])[g % 8 + 1], g, (g % 300) / 3.0,
  date '2022-01-01' + g % 365 FROM generate_series(1, 16000) g;
VACUUM (FREEZE, ANALYZE) pl;
CHECKPOINT;
SELECT tableoid::regclass, count(*) FROM pl GROUP BY 1 ORDER BY 1;
-- pruning at plan time: one partition, one OssdScan
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, amt FROM pl WHERE region = 'us' AND id < 100;
SELECT id, amt FROM pl WHERE region = 'us' AND id < 100 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, amt FROM pl WHERE region = 'us' AND id < 100$$);
-- the default partition's hash sub-partitions, for a value in no list
EXPLAIN (COSTS OFF) SELECT count(*) FROM pl WHERE region = 'br';
SELECT * FROM offload_check($$SELECT count(*), sum(amt) FROM pl WHERE region = 'br'$$);
-- NULL keys go to the default partition
EXPLAIN (COSTS OFF) SELECT count(*) FROM pl WHERE region IS NULL;
SELECT * FROM offload_check($$SELECT count(*), sum(amt) FROM pl WHERE region IS NULL$$);
-- the partition with another column order, alone and through the parent
SELECT * FROM offload_check($$SELECT region, id, amt, d FROM pl WHERE region IN ('jp', 'cn') AND id < 500$$);
SELECT * FROM offload_check($$SELECT region, id, amt, d FROM pl_asia WHERE id < 500$$);
-- aggregates over every partition, grouped by the partition key and not
EXPLAIN (COSTS OFF) SELECT region, count(*), sum(amt) FROM pl WHERE id > 100 GROUP BY region;
SELECT region, count(*), sum(amt) FROM pl WHERE id > 100 GROUP BY region ORDER BY region;
SELECT * FROM offload_check($$SELECT region, count(*), sum(amt) FROM pl WHERE id > 100 GROUP BY region$$);
SELECT * FROM offload_check($$SELECT d, count(*) FROM pl WHERE amt > 90 GROUP BY d$$);
-- partition-wise aggregation: each partition aggregated on its own
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT region, count(*), sum(amt) FROM pl WHERE id > 100 GROUP BY region;
SELECT * FROM offload_check($$SELECT region, count(*), sum(amt) FROM pl WHERE id > 100 GROUP BY region$$);
EXPLAIN (COSTS OFF) SELECT id % 4, count(*) FROM pl GROUP BY 1;
SELECT * FROM offload_check($$SELECT id % 4, count(*) FROM pl GROUP BY 1$$);
RESET enable_partitionwise_aggregate;

-- ===================================================================
-- Run-time pruning: a generic plan's parameter, a stable expression, a
-- nested loop's outer values; pruned subplans never run on the drive
-- ===================================================================
SET plan_cache_mode = force_generic_plan;
PREPARE pl_p(text, int4) AS SELECT count(*), sum(amt) FROM pl WHERE region = $1 AND id < $2;
EXPLAIN (COSTS OFF) EXECUTE pl_p('us', 5000);
EXECUTE pl_p('us', 5000);
EXECUTE pl_p('cn', 5000);
EXECUTE pl_p('xx', 5000);
SET ossd.enabled = off;
EXECUTE pl_p('us', 5000);
EXECUTE pl_p('cn', 5000);
EXECUTE pl_p('xx', 5000);
RESET ossd.enabled;
-- the drive's scan count: only the partition left after pruning
SELECT * FROM offload_check('EXECUTE pl_p(''us'', 5000)');
DEALLOCATE pl_p;
RESET plan_cache_mode;
-- a stable function's value prunes at executor start
EXPLAIN (COSTS OFF) SELECT count(*) FROM pl WHERE region = lower(current_setting('ossd.kernel_mode')::text || 'x');
-- a nested loop with the partition key from the outer side
CREATE TABLE pl_keys (region text);
INSERT INTO pl_keys VALUES ('uk'), ('jp');
ANALYZE pl_keys;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT k.region, count(*) FROM pl_keys k JOIN pl p ON p.region = k.region GROUP BY 1;
SELECT k.region, count(*) FROM pl_keys k JOIN pl p ON p.region = k.region GROUP BY 1 ORDER BY 1;
SELECT * FROM offload_check($$SELECT k.region, count(*) FROM pl_keys k JOIN pl p ON p.region = k.region GROUP BY 1$$);
RESET enable_mergejoin;
RESET enable_hashjoin;
DROP TABLE pl_keys;

-- ===================================================================
-- Range partitions (multi-column bounds, MINVALUE/MAXVALUE), a
-- partition detached and attached again, a partition off the drive
-- ===================================================================
CREATE TABLE pr2 (y int4, m int4, v int8, pad text) PARTITION BY RANGE (y, m);
CREATE TABLE pr2_old PARTITION OF pr2 FOR VALUES FROM (MINVALUE, MINVALUE) TO (2020, 1);
CREATE TABLE pr2_2020h1 PARTITION OF pr2 FOR VALUES FROM (2020, 1) TO (2020, 7);
CREATE TABLE pr2_2020h2 PARTITION OF pr2 FOR VALUES FROM (2020, 7) TO (2021, 1);
CREATE TABLE pr2_new PARTITION OF pr2 FOR VALUES FROM (2021, 1) TO (MAXVALUE, MAXVALUE) TABLESPACE pg_default;
INSERT INTO pr2 SELECT 2018 + g % 5, g % 12 + 1, g, repeat('r', 80) FROM generate_series(1, 12000) g;
VACUUM (FREEZE, ANALYZE) pr2;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM pr2 WHERE y = 2020 AND m >= 5;
SELECT count(*), sum(v) FROM pr2 WHERE y = 2020 AND m >= 5;
SELECT * FROM offload_check($$SELECT count(*), sum(v) FROM pr2 WHERE y = 2020 AND m >= 5$$);
SELECT * FROM offload_check($$SELECT y, m, count(*), min(v), max(v) FROM pr2 WHERE v % 3 = 0 GROUP BY y, m$$);
SELECT * FROM offload_check($$SELECT y, count(*) FROM pr2 WHERE (y, m) < (2020, 3) GROUP BY y$$);
-- detached: the parent no longer reaches it, it is a table of its own
ALTER TABLE pr2 DETACH PARTITION pr2_2020h2;
SELECT * FROM offload_check($$SELECT count(*) FROM pr2 WHERE y = 2020$$);
SELECT count(*) FROM pr2 WHERE y = 2020;
SELECT * FROM offload_check($$SELECT count(*) FROM pr2_2020h2 WHERE v > 100$$);
ALTER TABLE pr2 ATTACH PARTITION pr2_2020h2 FOR VALUES FROM (2020, 7) TO (2021, 1);
SELECT count(*) FROM pr2 WHERE y = 2020;
SELECT * FROM offload_check($$SELECT count(*) FROM pr2 WHERE y = 2020$$);

-- ===================================================================
-- Partition-wise joins: two tables partitioned alike, joined partition
-- by partition, each side's scans offloaded
-- ===================================================================
CREATE TABLE pj_a (k int4, a text) PARTITION BY RANGE (k);
CREATE TABLE pj_a1 PARTITION OF pj_a FOR VALUES FROM (0) TO (3000);
CREATE TABLE pj_a2 PARTITION OF pj_a FOR VALUES FROM (3000) TO (6000);
CREATE TABLE pj_b (k int4, b int4, pad text) PARTITION BY RANGE (k);
CREATE TABLE pj_b1 PARTITION OF pj_b FOR VALUES FROM (0) TO (3000);
CREATE TABLE pj_b2 PARTITION OF pj_b FOR VALUES FROM (3000) TO (6000);
INSERT INTO pj_a SELECT g, 'a' || g % 9 FROM generate_series(0, 5999) g;
INSERT INTO pj_b SELECT g % 6000, g, repeat('b', 60) FROM generate_series(0, 11999) g;
VACUUM (FREEZE, ANALYZE) pj_a, pj_b;
CHECKPOINT;
SET enable_partitionwise_join = on;
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT a.a, count(*) FROM pj_a a JOIN pj_b b ON a.k = b.k WHERE b.b % 5 = 0 AND a.a <> 'a0' GROUP BY a.a;
SELECT a.a, count(*) FROM pj_a a JOIN pj_b b ON a.k = b.k WHERE b.b % 5 = 0 AND a.a <> 'a0' GROUP BY a.a ORDER BY 1;
SELECT * FROM offload_check($$SELECT a.a, count(*) FROM pj_a a JOIN pj_b b ON a.k = b.k WHERE b.b % 5 = 0 AND a.a <> 'a0' GROUP BY a.a$$);
SELECT * FROM offload_check($$SELECT a.k, b.b FROM pj_a a LEFT JOIN pj_b b ON a.k = b.k AND b.b > 11000 WHERE a.k < 100$$);
SELECT * FROM offload_check($$SELECT count(*) FROM pj_a a WHERE NOT EXISTS (SELECT 1 FROM pj_b b WHERE b.k = a.k AND b.b < 6000)$$);
RESET ossd.force_offload;
RESET enable_partitionwise_join;
DROP TABLE pj_a, pj_b;

-- ===================================================================
-- Hash partitions, and a partitioned table under a Parallel Append
-- with offload forced: the same answers
-- ===================================================================
CREATE TABLE ph (id int8, g int4, pad text) PARTITION BY HASH (id);
CREATE TABLE ph_0 PARTITION OF ph FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE ph_1 PARTITION OF ph FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE ph_2 PARTITION OF ph FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO ph SELECT g, g % 11, repeat('h', 100) FROM generate_series(1, 9000) g;
VACUUM (FREEZE, ANALYZE) ph;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM ph WHERE id = 4242 GROUP BY g;
SELECT * FROM offload_check($$SELECT g, count(*) FROM ph WHERE id = 4242 GROUP BY g$$);
SELECT * FROM offload_check($$SELECT g, count(*), sum(id) FROM ph WHERE id > 100 GROUP BY g$$);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(id) FROM ph WHERE id > 100 GROUP BY g;
SELECT g, count(*), sum(id) FROM ph WHERE id > 100 GROUP BY g ORDER BY g;
SELECT * FROM offload_check($$SELECT g, count(*), sum(id) FROM ph WHERE id > 100 GROUP BY g$$);
SELECT * FROM offload_check($$SELECT id, g FROM ph WHERE g = 5 AND id < 3000$$);
RESET ossd.force_offload;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
DROP TABLE ph, pr2, pl;
RESET ossd.min_relation_pages;
