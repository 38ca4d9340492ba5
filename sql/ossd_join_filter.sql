-- ossd_join_filter: join filters.  When an offloaded scan is the probe
-- (outer) side of a hash join, the hash table's keys go to the drive, which
-- drops rows that cannot join.  Checked here: the filter is there for
-- INNER, SEMI and RIGHT joins and absent for LEFT, FULL and ANTI; every
-- answer equals the one with offload off; NULL keys, cross-type integer
-- keys, text keys under C, deterministic and nondeterministic collations,
-- bpchar padding, multi-key joins, spilled hash tables, rescans, the exact
-- set and the Bloom filter, and ossd.join_filter off (at plan and at run
-- time).
SET ossd.force_offload = on;
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;

-- The plan lines that matter, under EXPLAIN ANALYZE; counters that depend
-- on which blocks the drive scanned are reduced to "N > 0".
CREATE FUNCTION jf_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Join|Hash|OssdScan|Drive Join Filter|Removed by Join Filter' AND l !~ 'Buckets' THEN
      l := regexp_replace(l, 'on Drive: [1-9][0-9]*', 'on Drive: N > 0');
      l := regexp_replace(l, ' \(actual rows=[0-9]+ loops=([0-9]+)\)', ' (loops=\1)');
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- A plan line without its loop count (parallel plans: how many processes
-- ran a node depends on when the workers started)
CREATE FUNCTION jf_noloops(l text) RETURNS text LANGUAGE sql AS
$$SELECT regexp_replace(l, ' \(loops=[0-9]+\)', '')$$;

-- Same rows with offload off as with offload (and the filter) on?
CREATE FUNCTION jf_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
  n bigint;
BEGIN
  EXECUTE format('SELECT md5(coalesce(string_agg(x::text, %L ORDER BY x::text), %L)), count(*) FROM (%s) x',
                 '|', '', q) INTO a, n;
  PERFORM set_config('ossd.enabled', 'off', true);
  EXECUTE format('SELECT md5(coalesce(string_agg(x::text, %L ORDER BY x::text), %L)) FROM (%s) x',
                 '|', '', q) INTO b;
  PERFORM set_config('ossd.enabled', 'on', true);
  RETURN CASE WHEN a = b THEN 'same ' || n || ' rows' ELSE 'DIFFERENT: ' || a || ' vs ' || b END;
END $$;

-- build-side tables (not on the drive: small, hashed by the host)
CREATE TEMP TABLE keys_i4 (k int4, tag text);
INSERT INTO keys_i4 SELECT i * 37, 'k' || i FROM generate_series(1, 300) i;
INSERT INTO keys_i4 VALUES (NULL, 'null key'), (NULL, 'null key 2');
CREATE TEMP TABLE keys_text (m text COLLATE "C", mv varchar(10));
INSERT INTO keys_text VALUES ('AIR', 'AIR'), ('MAIL', 'MAIL'), ('air', 'air'), (NULL, NULL);
CREATE TEMP TABLE keys_bpchar (s char(30));
INSERT INTO keys_bpchar VALUES ('DELIVER IN PERSON'), ('NONE   '), (NULL);
ANALYZE keys_i4, keys_text, keys_bpchar;

-- 1. INNER, int8 = int8, a selective build side: an exact key set
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                WHERE o.o_orderdate < date '1992-03-01'$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, o.o_orderdate FROM lineitem l
                 JOIN orders o ON l.l_orderkey = o.o_orderkey WHERE o.o_orderdate < date '1992-03-01'$$);

-- 2. cross-type integer keys: int4 probe = int8 build, int8 probe = int4 build
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o ON l.l_suppkey = o.o_orderkey
                WHERE o.o_orderdate < date '1992-02-01'$$);
SELECT jf_same($$SELECT l.l_suppkey, o.o_orderkey FROM lineitem l JOIN orders o ON l.l_suppkey = o.o_orderkey
                 WHERE o.o_orderdate < date '1992-02-01'$$);
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN keys_i4 k ON l.l_orderkey = k.k$$);
SELECT jf_same($$SELECT l.l_orderkey, k.tag FROM lineitem l JOIN keys_i4 k ON l.l_orderkey = k.k$$);
-- int2 probe
SELECT jf_same($$SELECT l.l_linenumber, k.tag FROM lineitem l JOIN keys_i4 k ON l.l_linenumber = k.k / 37$$);

-- 3. NULL keys: l_partkey has NULLs, keys_i4 too; neither joins
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN keys_i4 k ON l.l_partkey = k.k$$);
SELECT jf_same($$SELECT l.l_partkey, k.tag FROM lineitem l JOIN keys_i4 k ON l.l_partkey = k.k$$);

-- 4. SEMI join (EXISTS)
SELECT jf_plan($$SELECT count(*) FROM lineitem l WHERE EXISTS
                (SELECT 1 FROM keys_i4 k WHERE k.k = l.l_partkey)$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber FROM lineitem l WHERE EXISTS
                 (SELECT 1 FROM keys_i4 k WHERE k.k = l.l_partkey)$$);

-- 5. RIGHT join: unmatched build rows (the NULL keys too) still come out
SELECT jf_plan($$SELECT count(*) FROM keys_i4 k LEFT JOIN lineitem l ON l.l_partkey = k.k$$);
SELECT jf_same($$SELECT k.tag, l.l_orderkey, l.l_linenumber FROM keys_i4 k LEFT JOIN lineitem l ON l.l_partkey = k.k$$);

-- 6. LEFT, FULL and ANTI joins with the scan as the probe side: no filter
SELECT jf_plan($$SELECT count(*) FROM lineitem l LEFT JOIN keys_i4 k ON l.l_partkey = k.k$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, k.tag FROM lineitem l LEFT JOIN keys_i4 k ON l.l_partkey = k.k$$);
SELECT jf_plan($$SELECT count(*) FROM lineitem l FULL JOIN keys_i4 k ON l.l_partkey = k.k$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, k.tag FROM lineitem l FULL JOIN keys_i4 k ON l.l_partkey = k.k$$);
SELECT jf_plan($$SELECT count(*) FROM lineitem l WHERE NOT EXISTS
                (SELECT 1 FROM keys_i4 k WHERE k.k = l.l_partkey)$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber FROM lineitem l WHERE NOT EXISTS
                 (SELECT 1 FROM keys_i4 k WHERE k.k = l.l_partkey)$$);

-- 7. text keys: varchar probe = text build under "C" (bytes), under a
-- deterministic ICU collation (equality is still byte equality), and
-- under a nondeterministic one (case-insensitive: no filter)
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN keys_text t ON l.l_shipmode = t.m$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, t.m FROM lineitem l JOIN keys_text t ON l.l_shipmode = t.m$$);
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN keys_text t
                ON l.l_shipmode = t.mv COLLATE "en-US-x-icu"$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber FROM lineitem l JOIN keys_text t
                 ON l.l_shipmode = t.mv COLLATE "en-US-x-icu"$$);
CREATE COLLATION jf_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN keys_text t
                ON l.l_shipmode = t.mv COLLATE jf_nocase$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, t.mv FROM lineitem l JOIN keys_text t
                 ON l.l_shipmode = t.mv COLLATE jf_nocase$$);

-- 8. bpchar keys: char(25) probe = char(30) build, padding ignored
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN keys_bpchar b ON l.l_shipinstruct = b.s$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, b.s FROM lineitem l JOIN keys_bpchar b ON l.l_shipinstruct = b.s$$);

-- 9. two keys: one filter each
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o
                ON l.l_orderkey = o.o_orderkey AND l.l_suppkey = o.o_custkey
                WHERE o.o_orderdate < date '1993-01-01'$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber FROM lineitem l JOIN orders o
                 ON l.l_orderkey = o.o_orderkey AND l.l_suppkey = o.o_custkey
                 WHERE o.o_orderdate < date '1993-01-01'$$);

-- 10. many keys: a Bloom filter (false positives reach the host's join)
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                WHERE o.o_orderdate < date '1995-01-01'$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                 WHERE o.o_orderdate < date '1995-01-01'$$);

-- 11. hash tables that spilled to batch files: the keys of the batches on
-- disk go into the filter too (the first batch alone would drop rows that
-- join in later ones); the second one grows its batches while it is built
-- and has skew buckets for the probe side's common values
SET work_mem = '64kB';
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, o.o_orderdate FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey$$);
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o ON l.l_linenumber = o.o_custkey % 5 + 3
                WHERE l.l_orderkey < 100$$);
SELECT jf_same($$SELECT l.l_linenumber, count(*) FROM lineitem l JOIN orders o
                 ON l.l_linenumber = o.o_custkey % 5 + 3 WHERE l.l_orderkey < 100 GROUP BY 1$$);
RESET work_mem;

-- 12. rescans: the hash join runs once per outer row, each time with a new
-- hash table (its inner side depends on the outer row): a filter per loop.
-- A scan run once per outer row is offloaded only if it pays, and the cost
-- model gives a rescanned scan no credit for the rows a filter drops (its
-- join paths are not made: section 16): rows from the drive are made cheap
-- here so that the rescanned scan is offloaded
SET enable_nestloop = on;
SET ossd.transfer_tuple_cost = 0.001;
SET ossd.drive_transfer_tuple_cost = 0.001;
SELECT jf_plan($$SELECT v.x, s.n FROM (VALUES (1), (2), (3)) v(x) CROSS JOIN LATERAL
                (SELECT count(*) AS n FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                 WHERE o.o_custkey = v.x * 7 OFFSET 0) s$$);
SELECT jf_same($$SELECT v.x, s.n FROM (VALUES (1), (2), (3)) v(x) CROSS JOIN LATERAL
                 (SELECT count(*) AS n FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                  WHERE o.o_custkey = v.x * 7 OFFSET 0) s$$);
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;
SET enable_nestloop = off;

-- 13. ossd.join_filter off: no filter planned
SET ossd.join_filter = off;
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                WHERE o.o_orderdate < date '1992-03-01'$$);
RESET ossd.join_filter;

-- 14. a plan cached with the filter, run after ossd.join_filter went off:
-- the executor sends none and says why
SET plan_cache_mode = force_generic_plan;
PREPARE jf_cached AS SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
  WHERE o.o_orderdate < date '1992-03-01';
SELECT jf_plan('EXECUTE jf_cached');
SET ossd.join_filter = off;
SELECT jf_plan('EXECUTE jf_cached');
EXECUTE jf_cached;
RESET ossd.join_filter;
DEALLOCATE jf_cached;
RESET plan_cache_mode;

-- 15. EXPLAIN VERBOSE without ANALYZE names the keys
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey AND l.l_suppkey = o.o_custkey
 WHERE o.o_orderdate < date '1992-03-01';

-- 16. The planner prices the filter (not forced).  The probe side's scan is
-- priced at the rows the filter passes: the rows that find a match (a semi
-- join's selectivity on the key clause) and the filter's false positives.
-- lineitem joined to one month of orders has no qual of its own, yet its
-- offloaded scan is chosen: the drive drops all but a month's rows.  With
-- ossd.join_filter off the planner has no such path, and the scan stays
-- on the host.  Default planner settings from here on.
RESET ossd.force_offload;
RESET enable_mergejoin;
RESET enable_nestloop;
CREATE FUNCTION jf_estimate(q text) RETURNS TABLE (node text, rows_estimated float8)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN QUERY WITH RECURSIVE n(p) AS (
      SELECT j -> 0 -> 'Plan'
    UNION ALL
      SELECT c FROM n, json_array_elements(n.p -> 'Plans') c)
    SELECT coalesce(p ->> 'Custom Plan Provider', p ->> 'Node Type') || ' on ' ||
           coalesce(p ->> 'Relation Name', '-'),
           (p ->> 'Plan Rows')::float8
      FROM n WHERE p ->> 'Relation Name' IS NOT NULL;
END $$;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
 WHERE o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-02-01';
SELECT jf_same($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                 WHERE o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-02-01'$$);
-- the probe scan's estimate is the month's share of lineitem, not all of it
SELECT e.node, round((e.rows_estimated / c.reltuples)::numeric, 2) AS share_of_table
  FROM jf_estimate($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                     WHERE o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-02-01'$$) e,
       pg_class c
 WHERE c.relname = split_part(e.node, ' on ', 2) ORDER BY 1;
SET ossd.join_filter = off;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
 WHERE o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-02-01';
RESET ossd.join_filter;

-- a build side that keeps most keys gives the probe side no credit worth
-- a drive scan: lineitem stays on the host
EXPLAIN (COSTS OFF)
SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
 WHERE o.o_orderdate >= date '1992-02-01';

-- semi join (EXISTS) with the probe side on the drive: priced alike
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM lineitem l
 WHERE EXISTS (SELECT 1 FROM orders o WHERE o.o_orderkey = l.l_orderkey
                AND o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-01-15');
SELECT jf_same($$SELECT count(*) FROM lineitem l
                 WHERE EXISTS (SELECT 1 FROM orders o WHERE o.o_orderkey = l.l_orderkey
                                AND o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-01-15')$$);

-- under a Gather: each process builds its own hash table and filters its
-- own chunks of the probe side, or all build one parallel hash table
-- (below).  The build side is a table off the drive (temporary tables
-- cannot be read by workers)
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
CREATE TABLE jf_build_keys (k int8) TABLESPACE pg_default;
INSERT INTO jf_build_keys SELECT i * 37 FROM generate_series(1, 300) i;
ANALYZE jf_build_keys;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_keys b ON l.l_orderkey = b.k;
-- (how many processes built a filter, and so the keys and bytes summed,
-- depends on which of them got to the scan first: not shown; nor are the
-- loops, as a worker that starts after the others finished the shared
-- table's one batch never runs its scan)
SELECT jf_noloops(l) FROM jf_plan($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_keys b ON l.l_orderkey = b.k$$) l
 WHERE l !~ 'Drive Join Filter (Keys|Size|Builds)';
SELECT jf_same($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_keys b ON l.l_orderkey = b.k$$);
-- a build side that scans the drive would run whole in every process, each
-- scan going to the one drive: the partial join pays for all of them, and
-- here the plan without a Gather wins
EXPLAIN (COSTS OFF)
SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
 WHERE o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-02-01';
SELECT jf_same($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey
                 WHERE o.o_orderdate >= date '1995-01-01' AND o.o_orderdate < date '1995-02-01'$$);
-- that was a parallel hash join: the processes build one shared table,
-- and each makes its filter of the whole of it once every process has
-- passed the build barrier, before the join asks the probe side for a row;
-- each process builds its filter once and sends it with every chunk it
-- claims, and the drive's counts of dropped rows add up over the
-- processes.  Without parallel hash, each process's own table:
SET enable_parallel_hash = off;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_keys b ON l.l_orderkey = b.k;
SELECT jf_noloops(l) FROM jf_plan($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_keys b ON l.l_orderkey = b.k$$) l
 WHERE l !~ 'Drive Join Filter (Keys|Size|Builds)';
SELECT jf_same($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_keys b ON l.l_orderkey = b.k$$);
RESET enable_parallel_hash;
-- a shared table of many keys: a Bloom filter; a semi join too
SET ossd.force_offload = on;
CREATE TABLE jf_build_many (k int8, pad text) TABLESPACE pg_default;
INSERT INTO jf_build_many SELECT i * 7, repeat('x', 200) FROM generate_series(1, 20000) i;
ANALYZE jf_build_many;
SELECT jf_noloops(l) FROM jf_plan($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_many b ON l.l_orderkey = b.k$$) l
 WHERE l !~ 'Drive Join Filter (Keys|Size|Builds)';
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber, b.k FROM lineitem l JOIN jf_build_many b ON l.l_orderkey = b.k$$);
-- the rows the drive dropped, added up over the processes, are the rows
-- one process drops alone
CREATE FUNCTION jf_dropped(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Rows Removed by Join Filter on Drive' THEN
      RETURN substring(l from ': ([0-9]+)')::bigint;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SELECT parallel > 0 AS dropped, parallel = serial AS same FROM
  (SELECT jf_dropped($$SELECT count(*) FROM lineitem l JOIN jf_build_many b ON l.l_orderkey = b.k$$) AS parallel,
          (SELECT jf_dropped($$SELECT count(*) FROM lineitem l JOIN jf_build_many b ON l.l_orderkey = b.k$$)
             FROM (SELECT set_config('max_parallel_workers_per_gather', '0', true)) s) AS serial) c;
SET max_parallel_workers_per_gather = 2;
SELECT jf_same($$SELECT count(*) FROM lineitem l WHERE l.l_orderkey IN (SELECT k FROM jf_build_many)$$);
-- a shared table that spilled to batch files gives no filter: its batch
-- files are read by the processes in parallel
SET work_mem = '64kB';
SELECT jf_noloops(l) FROM jf_plan($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_many b ON l.l_orderkey = b.k$$) l
 WHERE l ~ 'Parallel Hash|Drive Join Filter Kind';
SELECT jf_same($$SELECT count(*), sum(l.l_quantity) FROM lineitem l JOIN jf_build_many b ON l.l_orderkey = b.k$$);
RESET work_mem;
RESET ossd.force_offload;
DROP TABLE jf_build_many;
DROP TABLE jf_build_keys;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- 17. A foreign key into a whole table (TPC-H Q14's lineitem into part):
-- an inner join on the build side's primary key, no qual on it, keeps every
-- probe row, and a filtered scan would wait for the hash table to be built
-- rather than start at once: no filter.  A qual on the build side brings
-- it back (section 1).
SET ossd.force_offload = on;
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
CREATE TEMP TABLE jf_all_orders (k int8 PRIMARY KEY);
INSERT INTO jf_all_orders SELECT DISTINCT l_orderkey FROM lineitem WHERE l_orderkey IS NOT NULL;
ANALYZE jf_all_orders;
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN jf_all_orders a ON l.l_orderkey = a.k$$);
SELECT jf_same($$SELECT l.l_orderkey, l.l_linenumber FROM lineitem l JOIN jf_all_orders a ON l.l_orderkey = a.k$$);
SELECT jf_plan($$SELECT count(*) FROM lineitem l JOIN jf_all_orders a ON l.l_orderkey = a.k
                WHERE a.k < 1000$$);
-- the same as an outer join that keeps every key (TPC-H Q13's customers
-- LEFT JOIN orders): a Hash Right Join, no filter either
SELECT jf_plan($$SELECT count(l.l_orderkey) FROM jf_all_orders a LEFT JOIN lineitem l ON l.l_orderkey = a.k$$);
SELECT jf_same($$SELECT a.k, l.l_linenumber FROM jf_all_orders a LEFT JOIN lineitem l ON l.l_orderkey = a.k$$);
DROP TABLE jf_all_orders;
RESET ossd.force_offload;
RESET max_parallel_workers_per_gather;
RESET enable_mergejoin;
RESET enable_nestloop;
DROP FUNCTION jf_estimate(text);

DROP COLLATION jf_nocase;
DROP FUNCTION jf_plan(text);
DROP FUNCTION jf_noloops(text);
DROP FUNCTION jf_dropped(text);
DROP FUNCTION jf_same(text);
