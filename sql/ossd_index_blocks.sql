--
-- ossd_index_blocks: drive scans of the blocks an index names, the
-- offloaded form of a bitmap heap scan (pg_ossd/ossd_indexblocks.c).  The
-- host runs the index scan into a bitmap; the drive scans only the blocks
-- it names, under the MVCC rule as any block, with every qual of the scan.
-- Checked here: the path is chosen for a selective range on an indexed
-- column and not otherwise; quals in either order; blocks that are not
-- all-visible go to the host; a lossy bitmap; a qual with a run-time value
-- (no such path); a partial scan under a Gather; rescans; ossd.index_blocks
-- off.  Every answer is compared with ossd.enabled = off (offload_check:
-- regress-helpers.sql).
--
SET extra_float_digits = 0;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- The plan lines that matter under EXPLAIN ANALYZE
CREATE FUNCTION ib_counters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF ln ~ 'OssdScan|Index|Blocks (on|Named)|Bitmap' THEN
      RETURN NEXT regexp_replace(regexp_replace(ln, '^ +', ''), ' \(actual rows=[0-9]+ loops=([0-9]+)\)', ' (loops=\1)');
    END IF;
  END LOOP;
END $$;

-- 600 days of rows in random order of d: a month's rows lie on a fraction
-- of the pages, as TPC-H's l_shipdate does in lineitem
CREATE TABLE ib_li (id int8, d date, q int4, price numeric(12,2), pad text);
INSERT INTO ib_li
  SELECT i, date '2020-01-01' + ((i * 7919) % 600)::int, (i % 50) + 1,
         ((i * 13) % 10000) / 100.0, repeat('x', 60)
    FROM generate_series(1::int8, 60000) i
   ORDER BY (i * 104729) % 60000;
CREATE INDEX ib_li_d ON ib_li (d);
VACUUM (FREEZE, ANALYZE) ib_li;
CHECKPOINT;
SELECT relpages > 500 AS big_enough FROM pg_class WHERE relname = 'ib_li';

-- ===================================================================
-- A selective range on the indexed column: the drive scans the blocks
-- the index names
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04';
SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04';
SELECT * FROM offload_check($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
-- all named blocks are all-visible and clean: every one on the drive, and
-- fewer than the table's
SELECT * FROM ib_counters($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
SELECT (regexp_match(string_agg(l, ' '), 'Named by Index: ([0-9]+)'))[1]::int <
       (SELECT relpages FROM pg_class WHERE relname = 'ib_li') AS fewer_blocks
  FROM ib_counters($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$) l;

-- the constant on the left; a cross-type bound (date < timestamp); a qual
-- the index does not cover goes to the drive with the others
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ib_li WHERE date '2020-03-01' <= d AND d < date '2020-03-01' + interval '2 days' AND q < 10;
SELECT * FROM offload_check($$SELECT id, d, q FROM ib_li WHERE date '2020-03-01' <= d AND d < date '2020-03-01' + interval '2 days' AND q < 10$$);

-- the rows themselves, not just an aggregate
SELECT * FROM offload_check($$SELECT id, d, price FROM ib_li WHERE d BETWEEN date '2020-05-10' AND date '2020-05-11'$$);

-- ===================================================================
-- Blocks that are not all-visible: the named ones go to the host
-- ===================================================================
UPDATE ib_li SET price = price + 1 WHERE id % 997 = 0;
DELETE FROM ib_li WHERE id % 991 = 0;
INSERT INTO ib_li VALUES (1000001, date '2020-03-02', 1, 1.00, 'new'), (1000002, date '2020-03-02', 2, 2.00, 'new');
SELECT * FROM offload_check($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
SELECT * FROM offload_check($$SELECT id, price FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
-- some blocks on the host now, none outside the index's
SELECT l FROM ib_counters($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$) l
 WHERE l ~ 'Blocks on Host: [1-9]' OR l ~ 'Drive Blocks from Index';
VACUUM (FREEZE, ANALYZE) ib_li;
CHECKPOINT;

-- ===================================================================
-- A bitmap too big for work_mem turns lossy: its pages are still named
-- whole, and the quals decide the rows
-- ===================================================================
SET work_mem = '64kB';
SELECT * FROM offload_check($$SELECT count(*), sum(q) FROM ib_li WHERE d >= date '2020-02-01' AND d < date '2020-04-01'$$);
RESET work_mem;

-- ===================================================================
-- Where it is not offered
-- ===================================================================
-- a bound known only at run time (an InitPlan's value): no ScanKeys
-- made once, no such path
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ib_li WHERE d >= (SELECT date '2020-03-01') AND d < date '2020-03-04';
SELECT * FROM offload_check($$SELECT count(*) FROM ib_li WHERE d >= (SELECT date '2020-03-01') AND d < date '2020-03-04'$$);
-- most of the table: the whole table's drive scan
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ib_li WHERE d >= date '2020-02-01';
-- ossd.index_blocks off: no scan takes its blocks from an index (which
-- plan wins then depends on the drives' prices: not shown)
SET ossd.index_blocks = off;
SELECT count(*) AS scans_of_index_blocks
  FROM ib_counters($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$) l
 WHERE l ~ 'Drive Blocks from Index';
SELECT * FROM offload_same($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
RESET ossd.index_blocks;

-- ===================================================================
-- Under a Gather: a partial path, each process building the same bitmap
-- and sending the drive the named blocks of the chunks it claims; the
-- blocks named add up over the processes to the serial scan's.  (The
-- table is small: rows priced dear to unpack, which the processes divide,
-- and free tuples on the drive make the partial path the cheaper.)
-- ===================================================================
SET ossd.transfer_tuple_cost = 1;
SET ossd.drive_transfer_tuple_cost = 1;
SET ossd.drive_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT id, price FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04';
SELECT * FROM offload_check($$SELECT id, price FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
SELECT * FROM offload_check($$SELECT id, d, price FROM ib_li WHERE d BETWEEN date '2020-05-10' AND date '2020-05-11'$$);
CREATE TEMP TABLE ib_named AS
SELECT (regexp_match(string_agg(l, ' '), 'Named by Index: ([0-9]+)'))[1]::int AS parallel_named,
       string_agg(l, ' ') ~ 'Parallel Custom Scan' AS was_parallel
  FROM ib_counters($$SELECT id, price FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$) l;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;
RESET ossd.drive_tuple_cost;
SET max_parallel_workers_per_gather = 0;
SELECT parallel_named = (SELECT (regexp_match(string_agg(l, ' '), 'Named by Index: ([0-9]+)'))[1]::int
                           FROM ib_counters($$SELECT id, price FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$) l)
       AS named_add_up, was_parallel
  FROM ib_named;
DROP TABLE ib_named;

-- ===================================================================
-- The tuples the index named: with the block ranges the drive gets, for
-- each of the bitmap's exact pages, the line pointers on it, and looks at
-- those alone (a redirect left by HOT pruning followed to its tuple), not
-- at the page's 60 rows.  A lossy page's list is empty: every tuple
-- (offload_runtime/tests/test_scan_engine.c, test_tuple_offsets).
-- ===================================================================
CREATE FUNCTION ib_tuples(q text, OUT named int, OUT seen int) LANGUAGE plpgsql AS $$
DECLARE
  p text;
BEGIN
  FOR p IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF p ~ 'Tuples Named by Index' THEN
      named := (regexp_match(p, ': ([0-9]+)'))[1]::int;
    ELSIF p ~ 'Drive Tuples Seen' THEN
      seen := (regexp_match(p, ': ([0-9]+)'))[1]::int;
    END IF;
  END LOOP;
END $$;
SELECT named, seen, named = seen AS only_named
  FROM ib_tuples($$SELECT sum(price), count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04'$$);
-- HOT chains: rows updated in place on their pages (no indexed column
-- changed), pruned and frozen by VACUUM, so that the index's entries name
-- redirects to the tuples now holding the rows
CREATE TABLE ib_hot (id int8, d date, v int4, pad text) WITH (fillfactor = 50);
INSERT INTO ib_hot
  SELECT i, date '2020-01-01' + ((i * 7919) % 300)::int, 0, repeat('y', 40)
    FROM generate_series(1::int8, 20000) i;
CREATE INDEX ib_hot_d ON ib_hot (d);
UPDATE ib_hot SET v = v + 1 WHERE id % 3 = 0;
UPDATE ib_hot SET v = v + 1 WHERE id % 3 = 0;
VACUUM (FREEZE, ANALYZE) ib_hot;
CHECKPOINT;
CREATE EXTENSION pageinspect;
SELECT count(*) > 0 AS redirects FROM heap_page_items(get_raw_page('ib_hot', 0)) WHERE lp_flags = 2;
DROP EXTENSION pageinspect;
SET ossd.force_offload = on;
SELECT * FROM offload_check($$SELECT id, v FROM ib_hot WHERE d >= date '2020-02-01' AND d < date '2020-02-04'$$);
SELECT sum(v), count(*) FROM ib_hot WHERE d >= date '2020-02-01' AND d < date '2020-02-04';
SELECT named, seen, named = seen AS only_named
  FROM ib_tuples($$SELECT id, v FROM ib_hot WHERE d >= date '2020-02-01' AND d < date '2020-02-04'$$);
RESET ossd.force_offload;
DROP TABLE ib_hot;
DROP FUNCTION ib_tuples(text);

-- ===================================================================
-- Rescans: a correlated subquery's scan runs once per outer row, the
-- index scan into a new bitmap each time
-- ===================================================================
EXPLAIN (COSTS OFF)
SELECT v.x, (SELECT count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04' AND q = v.x)
  FROM (VALUES (1), (2), (3)) v(x);
SELECT * FROM offload_check($$SELECT v.x, (SELECT count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04' AND q = v.x)
  FROM (VALUES (1), (2), (3)) v(x)$$);
SELECT * FROM ib_counters($$SELECT v.x, (SELECT count(*) FROM ib_li WHERE d >= date '2020-03-01' AND d < date '2020-03-04' AND q = v.x)
  FROM (VALUES (1), (2), (3)) v(x)$$);

DROP TABLE ib_li;
DROP FUNCTION ib_counters(text);
