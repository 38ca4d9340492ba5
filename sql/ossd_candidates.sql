--
-- ossd_candidates: which scans are candidates for offload (ossd_rel_candidate
-- and the checks of the executor) and which are not: tablespace, size
-- against ossd.min_relation_pages, relkinds, persistence, TABLESAMPLE,
-- system columns and whole rows, TOAST, types the drive does not know,
-- collations, volatile and stable functions, row-level security,
-- inheritance parents (issue 12, D1), row marks, isolation levels,
-- cursors and prepared statements.
--
-- Each decision is shown by EXPLAIN (VERBOSE, COSTS OFF) before the query
-- whose answer depends on it; offload_check() then runs the query with
-- offload as set and with ossd.enabled = off and says whether the two
-- answers are the same multiset, and how many scans the drive ran.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- The query's rows with offload as set now and with ossd.enabled = off:
-- their count, the scans the drive ran for the first (from the drive's
-- own counters) and whether both are the same multiset.
-- offload_check(q): tests/pg/regress-helpers.sql

-- How EXPLAIN ANALYZE says the scan's blocks were split (deterministic
-- here: autovacuum is off, the tables frozen and checkpointed)
CREATE FUNCTION block_split(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF ln ~ 'Blocks (on|Written|Handed)' THEN
      RETURN NEXT regexp_replace(ln, '^ +', '');
    END IF;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data: one table on the drive, frozen and checkpointed so that
-- every block is all-visible and clean (the drive scans them all)
-- ===================================================================
CREATE TABLE cand (id int4, k int4, t text, pad text);
INSERT INTO cand
  SELECT g, g % 100, 'text ' || (g % 37), repeat('c', 100)
  FROM generate_series(1, 20000) g;
CREATE TABLE cand_small (id int4, k int4);
INSERT INTO cand_small SELECT g, g % 10 FROM generate_series(1, 500) g;
CREATE TABLE cand_default (id int4, k int4, pad text) TABLESPACE pg_default;
INSERT INTO cand_default SELECT g, g % 100, repeat('d', 100) FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) cand;
VACUUM (FREEZE, ANALYZE) cand_small;
VACUUM (FREEZE, ANALYZE) cand_default;
CHECKPOINT;
SELECT relname, relpages > 128 AS above_min_relation_pages,
       relallvisible = relpages AS all_visible
  FROM pg_class WHERE relname IN ('cand', 'cand_small', 'cand_default') ORDER BY 1;

-- ===================================================================
-- The tablespace: only a tablespace on ossdfs (user.ossd.device)
-- ===================================================================
-- on the drive, a pushable qual: an OssdScan
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, t FROM cand WHERE k = 7 AND id < 1000;
SELECT id, t FROM cand WHERE k = 7 AND id < 1000 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, t FROM cand WHERE k = 7 AND id < 1000$$);
-- pg_default: never, even forced
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_default WHERE k = 7 AND id < 1000;
SELECT id FROM cand_default WHERE k = 7 AND id < 1000 ORDER BY id;
SELECT * FROM offload_check($$SELECT id FROM cand_default WHERE k = 7 AND id < 1000$$);
RESET ossd.force_offload;
-- a join of both: only the side on the drive
EXPLAIN (VERBOSE, COSTS OFF)
SELECT c.id, d.id FROM cand c JOIN cand_default d ON c.id = d.id WHERE c.k = 3 AND d.k = 3 AND c.id < 500;
SELECT c.id, d.id FROM cand c JOIN cand_default d ON c.id = d.id WHERE c.k = 3 AND d.k = 3 AND c.id < 500 ORDER BY 1;
SELECT * FROM offload_check($$SELECT c.id, d.id FROM cand c JOIN cand_default d ON c.id = d.id WHERE c.k = 3 AND d.k = 3 AND c.id < 500$$);
-- a table moved off the drive is no longer a candidate (the tablespace
-- answer is cached per tablespace, the table's tablespace is not)
CREATE TABLE cand_moved AS SELECT * FROM cand WHERE id <= 10000 ORDER BY id;
VACUUM (FREEZE, ANALYZE) cand_moved;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cand_moved WHERE k = 1;
ALTER TABLE cand_moved SET TABLESPACE pg_default;
VACUUM (FREEZE, ANALYZE) cand_moved;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cand_moved WHERE k = 1;
SELECT count(*) FROM cand_moved WHERE k = 1;
ALTER TABLE cand_moved SET TABLESPACE ossd;
VACUUM (FREEZE, ANALYZE) cand_moved;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cand_moved WHERE k = 1;
SELECT count(*) FROM cand_moved WHERE k = 1;
SELECT * FROM offload_check($$SELECT count(*) FROM cand_moved WHERE k = 1$$);
DROP TABLE cand_moved;

-- ===================================================================
-- Size: at least ossd.min_relation_pages pages, unless forced
-- ===================================================================
SHOW ossd.min_relation_pages;
-- cand_small has fewer pages: a seq scan
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_small WHERE k = 3 AND id < 50;
SELECT id FROM cand_small WHERE k = 3 AND id < 50 ORDER BY id;
SELECT * FROM offload_check($$SELECT id FROM cand_small WHERE k = 3 AND id < 50$$);
-- the threshold lowered: a candidate, but the channel's fixed startup
-- costs more than a seq scan of its few pages; forced, offloaded
SET ossd.min_relation_pages = 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_small WHERE k = 3 AND id < 50;
SELECT * FROM offload_check($$SELECT id FROM cand_small WHERE k = 3 AND id < 50$$);
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_small WHERE k = 3 AND id < 50;
SELECT * FROM offload_check($$SELECT id FROM cand_small WHERE k = 3 AND id < 50$$);
RESET ossd.force_offload;
-- the threshold raised: cand is no candidate either
SET ossd.min_relation_pages = 100000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand WHERE k = 7 AND id < 1000;
SELECT * FROM offload_check($$SELECT id FROM cand WHERE k = 7 AND id < 1000$$);
-- ... unless forced: force_offload ignores the size
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand WHERE k = 7 AND id < 1000;
SELECT * FROM offload_check($$SELECT id FROM cand WHERE k = 7 AND id < 1000$$);
RESET ossd.force_offload;
RESET ossd.min_relation_pages;
-- an empty table on the drive, forced: no block to send, no drive scan
CREATE TABLE cand_empty (id int4, k int4);
VACUUM (FREEZE, ANALYZE) cand_empty;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_empty WHERE k = 3;
SELECT id FROM cand_empty WHERE k = 3;
SELECT * FROM offload_check($$SELECT id FROM cand_empty WHERE k = 3$$);
SELECT * FROM offload_check($$SELECT count(*), sum(k) FROM cand_empty WHERE k = 3$$);
RESET ossd.force_offload;
DROP TABLE cand_empty;

-- ===================================================================
-- The cost decides between the OssdScan and the seq scan
-- ===================================================================
-- no pushable qual: projection alone is left to the seq scan
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cand WHERE id % 1000 = 1;
SELECT * FROM offload_check($$SELECT id, k FROM cand WHERE id % 1000 = 1$$);
-- forced, the scan is offloaded and every qual is kept on the host
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cand WHERE id % 1000 = 1;
SELECT id, k FROM cand WHERE id % 1000 = 1 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, k FROM cand WHERE id % 1000 = 1$$);
-- and without any qual
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(id) FROM cand;
SELECT count(id) FROM cand;
SELECT * FROM offload_check($$SELECT id, k FROM cand$$);
RESET ossd.force_offload;
-- ossd.drive_page_cost at four host pages a drive page (over the drive's
-- two threads): the seq scan wins again (sql/ossd_cost_model.sql has each
-- term of the model)
SET ossd.drive_page_cost = 4;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 7 AND id < 1000;
RESET ossd.drive_page_cost;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 7 AND id < 1000;
-- a table never vacuumed has no all-visible page: the drive has nothing
-- to scan, the seq scan wins; forced, every block is a host block
CREATE TABLE cand_fresh AS SELECT * FROM cand ORDER BY id;
ANALYZE cand_fresh;
SELECT relallvisible FROM pg_class WHERE relname = 'cand_fresh';
EXPLAIN (COSTS OFF) SELECT id FROM cand_fresh WHERE k = 7 AND id < 1000;
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT id FROM cand_fresh WHERE k = 7 AND id < 1000;
SELECT * FROM offload_check($$SELECT id FROM cand_fresh WHERE k = 7 AND id < 1000$$);
SELECT * FROM block_split($$SELECT id FROM cand_fresh WHERE k = 7 AND id < 1000$$);
RESET ossd.force_offload;
-- after VACUUM (no CHECKPOINT) the blocks are all-visible but dirty: the
-- scan writes them out and the drive scans them (sql/ossd_vacuum.sql)
VACUUM (FREEZE, ANALYZE) cand_fresh;
EXPLAIN (COSTS OFF) SELECT id FROM cand_fresh WHERE k = 7 AND id < 1000;
SELECT * FROM offload_check($$SELECT id FROM cand_fresh WHERE k = 7 AND id < 1000$$);
DROP TABLE cand_fresh;

-- ===================================================================
-- ossd.enabled and ossd.aggregate_pushdown
-- ===================================================================
SET ossd.enabled = off;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 7 AND id < 1000;
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 7 AND id < 1000;
RESET ossd.force_offload;
RESET ossd.enabled;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*) FROM cand WHERE id < 10000 GROUP BY k;
-- without aggregate pushdown the host aggregates the scan's rows; half
-- the table comes back, which at ossd.transfer_tuple_cost costs more
-- than a seq scan: forced, to show the scan still offloaded under the
-- host's HashAggregate
SET ossd.aggregate_pushdown = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*) FROM cand WHERE id < 10000 GROUP BY k;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*) FROM cand WHERE id < 10000 GROUP BY k;
SELECT * FROM offload_check($$SELECT k, count(*) FROM cand WHERE id < 10000 GROUP BY k$$);
RESET ossd.force_offload;
RESET ossd.aggregate_pushdown;
SELECT * FROM offload_check($$SELECT k, count(*) FROM cand WHERE id < 10000 GROUP BY k$$);

-- ===================================================================
-- Relation kinds and persistence
-- ===================================================================
-- a materialized view on the drive is scanned like a table
CREATE MATERIALIZED VIEW cand_mv AS SELECT id, k, t, pad FROM cand WHERE id % 2 = 0 ORDER BY id;
VACUUM (FREEZE, ANALYZE) cand_mv;
CHECKPOINT;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, t FROM cand_mv WHERE k = 8 AND id < 2000;
SELECT id, t FROM cand_mv WHERE k = 8 AND id < 2000 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, t FROM cand_mv WHERE k = 8 AND id < 2000$$);
-- REFRESH gives it a new relfilenode: the scan finds the new objects
REFRESH MATERIALIZED VIEW cand_mv;
VACUUM (FREEZE, ANALYZE) cand_mv;
CHECKPOINT;
SELECT * FROM offload_check($$SELECT id, t FROM cand_mv WHERE k = 8 AND id < 2000$$);
-- a view is expanded: its table is the candidate
CREATE VIEW cand_v AS SELECT id, k * 2 AS k2, t FROM cand WHERE id > 100;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k2 FROM cand_v WHERE t = 'text 5' AND id < 1500;
SELECT id, k2 FROM cand_v WHERE t = 'text 5' AND id < 1500 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, k2 FROM cand_v WHERE t = 'text 5' AND id < 1500$$);
-- a security_barrier view: the view's qual first, then the caller's
CREATE VIEW cand_sbv WITH (security_barrier) AS SELECT id, k, t FROM cand WHERE k < 5;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, t FROM cand_sbv WHERE id < 300;
SELECT id, t FROM cand_sbv WHERE id < 300 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, t FROM cand_sbv WHERE id < 300$$);
RESET ossd.force_offload;
DROP VIEW cand_sbv;
DROP VIEW cand_v;
DROP MATERIALIZED VIEW cand_mv;
-- an unlogged table on the drive: its pages are written out by the scan
-- (a checkpoint does not write unlogged buffers)
CREATE UNLOGGED TABLE cand_unlogged AS SELECT * FROM cand ORDER BY id;
VACUUM (FREEZE, ANALYZE) cand_unlogged;
CHECKPOINT;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, t FROM cand_unlogged WHERE k = 9 AND id < 1000;
SELECT * FROM block_split($$SELECT id, t FROM cand_unlogged WHERE k = 9 AND id < 1000$$);
SELECT id, t FROM cand_unlogged WHERE k = 9 AND id < 1000 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, t FROM cand_unlogged WHERE k = 9 AND id < 1000$$);
RESET ossd.force_offload;
DROP TABLE cand_unlogged;
-- a temporary table, even in the ossd tablespace: never
CREATE TEMP TABLE cand_temp TABLESPACE ossd AS SELECT * FROM cand ORDER BY id;
VACUUM (FREEZE, ANALYZE) cand_temp;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_temp WHERE k = 9 AND id < 1000;
SELECT * FROM offload_check($$SELECT id FROM cand_temp WHERE k = 9 AND id < 1000$$);
RESET ossd.force_offload;
DROP TABLE cand_temp;
-- TABLESAMPLE: never
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cand TABLESAMPLE SYSTEM (100) WHERE k = 1;
SELECT count(*) FROM cand TABLESAMPLE SYSTEM (100) WHERE k = 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cand TABLESAMPLE BERNOULLI (100) REPEATABLE (1) WHERE k = 1;
SELECT count(*) FROM cand TABLESAMPLE BERNOULLI (100) REPEATABLE (1) WHERE k = 1;
-- a function's rows, a VALUES list: not relations
EXPLAIN (COSTS OFF) SELECT count(*) FROM generate_series(1, 10) g WHERE g < 5;
EXPLAIN (COSTS OFF) SELECT count(*) FROM (VALUES (1), (2)) v(x) WHERE x < 2;
RESET ossd.force_offload;

-- ===================================================================
-- System columns and whole-row references need a real heap tuple
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT ctid, id FROM cand WHERE id = 77;
SELECT ctid, id FROM cand WHERE id = 77;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand WHERE id < 20 AND ctid > '(0,5)';
SELECT id FROM cand WHERE id < 20 AND ctid > '(0,5)' ORDER BY id;
SELECT * FROM offload_check($$SELECT id FROM cand WHERE id < 20 AND ctid > '(0,5)'$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand WHERE id = 78 AND xmin <> '0'::xid;
SELECT id FROM cand WHERE id = 78 AND xmin <> '0'::xid;
EXPLAIN (VERBOSE, COSTS OFF) SELECT tableoid::regclass, id FROM cand WHERE id = 79;
SELECT tableoid::regclass, id FROM cand WHERE id = 79;
-- whole rows (attno 0)
EXPLAIN (VERBOSE, COSTS OFF) SELECT c FROM cand c WHERE id = 80;
SELECT c.id, length(c::text) FROM cand c WHERE id = 80;
SELECT * FROM offload_check($$SELECT c FROM cand c WHERE id < 80$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT row_to_json(c) FROM cand c WHERE id = 81;
-- a whole row in a qual
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand c WHERE c IS NOT NULL AND id < 5;
SELECT * FROM offload_check($$SELECT id FROM cand c WHERE c IS NOT NULL AND id < 5$$);
-- ordinary columns of the same table next to it: offloaded again
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k, t, pad FROM cand WHERE id = 82;
SELECT * FROM offload_check($$SELECT id, k, t, pad FROM cand WHERE id < 82$$);
RESET ossd.force_offload;

-- ===================================================================
-- TOAST: values stored compressed inline or out of line come back
-- from the host (the drive hands such rows back), filters included
-- ===================================================================
CREATE TABLE cand_toast (id int4, big text, big_plain text);
ALTER TABLE cand_toast ALTER COLUMN big_plain SET STORAGE EXTERNAL;
INSERT INTO cand_toast
  SELECT g,
         CASE WHEN g % 10 = 0 THEN repeat('compressible ' || g, 500)
              WHEN g % 10 = 1 THEN (SELECT string_agg(md5((g * j)::text), '') FROM generate_series(1, 100) j)
              ELSE 'short ' || g END,
         CASE WHEN g % 7 = 0 THEN repeat('e', 3000) ELSE 'p' || g END
  FROM generate_series(1, 6000) g;
VACUUM (FREEZE, ANALYZE) cand_toast;
CHECKPOINT;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id, length(big), md5(big), length(big_plain) FROM cand_toast WHERE id % 10 IN (0, 1) AND id < 100;
SELECT id, length(big), md5(big), length(big_plain) FROM cand_toast WHERE id < 45 AND id > 28 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, md5(big), md5(big_plain) FROM cand_toast WHERE id < 3000$$);
-- a filter on the TOASTed column itself: decided on the host for those rows
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_toast WHERE big LIKE 'compressible 1%';
SELECT count(*) FROM cand_toast WHERE big LIKE 'compressible 1%';
SELECT * FROM offload_check($$SELECT id FROM cand_toast WHERE big LIKE 'compressible 1%'$$);
SELECT * FROM offload_check($$SELECT id FROM cand_toast WHERE big = 'short 5' OR big_plain = repeat('e', 3000)$$);
SELECT * FROM offload_check($$SELECT id FROM cand_toast WHERE big > 'e' AND big < 'f'$$);
SELECT * FROM offload_check($$SELECT id FROM cand_toast WHERE big_plain IS NULL OR big_plain <> 'p11'$$);
RESET ossd.force_offload;
DROP TABLE cand_toast;

-- ===================================================================
-- Types the drive does not know: projected fine, filtered on the host
-- ===================================================================
CREATE TABLE cand_types (id int4, iv interval, u uuid, j jsonb, arr int4[],
                         by bytea, tsr tsrange, inet_a inet, money_a money, pt point);
INSERT INTO cand_types
  SELECT g, g * interval '1 minute', md5(g::text)::uuid,
         jsonb_build_object('g', g, 'even', g % 2 = 0), ARRAY[g, g + 1, g % 7],
         decode(lpad(to_hex(g), 8, '0'), 'hex'),
         tsrange(timestamp '2020-01-01' + g * interval '1 hour', timestamp '2020-01-01' + (g + 2) * interval '1 hour'),
         ('10.0.' || (g / 256) % 256 || '.' || g % 256)::inet, (g / 100.0)::money,
         point(g, -g)
  FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) cand_types;
CHECKPOINT;
SET ossd.force_offload = on;
-- projection of every type
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM cand_types WHERE id < 4;
SELECT * FROM cand_types WHERE id < 4 ORDER BY id;
SELECT * FROM offload_check($$SELECT * FROM cand_types WHERE id < 2000$$);
-- filters on them stay on the host, next to a pushed one
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_types WHERE iv < interval '10 minutes' AND id > 2;
SELECT id FROM cand_types WHERE iv < interval '10 minutes' AND id > 2 ORDER BY id;
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE iv < interval '10 minutes' AND id > 2$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_types WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b';
SELECT id FROM cand_types WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b';
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b'$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_types WHERE j @> '{"even": true}' AND id < 10;
SELECT id FROM cand_types WHERE j @> '{"even": true}' AND id < 10 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, j FROM cand_types WHERE j @> '{"even": true}' AND id < 1000$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE (j ->> 'g')::int % 1000 = 0$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE 5 = ANY (arr) AND id < 1000$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE arr[3] = 0$$);
SELECT * FROM offload_check($$SELECT id, by FROM cand_types WHERE by < '\x00000100'::bytea$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE tsr @> timestamp '2020-01-02 00:30'$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE inet_a << '10.0.3.0/24'::inet$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE money_a > 199.5::money$$);
SELECT * FROM offload_check($$SELECT id FROM cand_types WHERE pt <@ box(point(0, 0), point(100, -100))$$);
-- an IS NULL test on an unknown type: the column's null bit alone, but
-- the type is not on the whitelist
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_types WHERE iv IS NULL;
SELECT * FROM offload_check($$SELECT count(*) FROM cand_types WHERE iv IS NULL$$);
RESET ossd.force_offload;
DROP TABLE cand_types;

-- ===================================================================
-- Collations: equality under deterministic collations, ordering and
-- LIKE only under byte order; nondeterministic ones stay on the host
-- ===================================================================
CREATE COLLATION cand_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE cand_coll (id int4, s text, s_ci text COLLATE cand_ci);
INSERT INTO cand_coll
  SELECT g, (ARRAY['abc', 'ABC', 'Abc', 'abd', 'b'])[g % 5 + 1], (ARRAY['abc', 'ABC', 'Abc', 'abd', 'b'])[g % 5 + 1]
  FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) cand_coll;
CHECKPOINT;
SET ossd.force_offload = on;
-- the database's collation (C): pushed
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_coll WHERE s = 'abc';
SELECT count(*) FROM cand_coll WHERE s = 'abc';
SELECT * FROM offload_check($$SELECT count(*) FROM cand_coll WHERE s = 'abc'$$);
-- a nondeterministic collation: 'abc' = 'ABC', not bytes: on the host
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_coll WHERE s_ci = 'abc';
SELECT count(*) FROM cand_coll WHERE s_ci = 'abc';
SELECT * FROM offload_check($$SELECT count(*) FROM cand_coll WHERE s_ci = 'abc'$$);
SELECT * FROM offload_check($$SELECT id FROM cand_coll WHERE s_ci <> 'abc' AND id < 100$$);
SELECT * FROM offload_check($$SELECT count(*) FROM cand_coll WHERE s = 'abc' COLLATE cand_ci$$);
-- ICU's root collation is deterministic: equality pushed, ordering not
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_coll WHERE s = 'abc' COLLATE "und-x-icu";
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_coll WHERE s < 'abc' COLLATE "und-x-icu";
SELECT count(*) FROM cand_coll WHERE s < 'abc' COLLATE "und-x-icu";
SELECT * FROM offload_check($$SELECT count(*) FROM cand_coll WHERE s < 'abc' COLLATE "und-x-icu"$$);
SELECT * FROM offload_check($$SELECT count(*) FROM cand_coll WHERE s = 'abc' COLLATE "und-x-icu"$$);
-- aggregates: min/max of text under a nondeterministic collation stay
-- on the host; a group key of it is pushed: the drive groups by bytes
-- (a finer partition) and the host merges the groups with the
-- collation's own hash and equality
EXPLAIN (VERBOSE, COSTS OFF) SELECT min(s_ci), max(s_ci) FROM cand_coll WHERE id > 0;
-- (which of the equal 'abc', 'ABC', 'Abc' is the minimum depends on the
-- order of the rows: lower() makes the answer unique)
SELECT lower(min(s_ci)), max(s_ci) FROM cand_coll WHERE id > 0;
SELECT * FROM offload_check($$SELECT lower(min(s_ci)), max(s_ci) FROM cand_coll WHERE id > 0$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT s_ci, count(*) FROM cand_coll WHERE id > 0 GROUP BY s_ci;
SELECT lower(s_ci), count(*) FROM cand_coll WHERE id > 0 GROUP BY s_ci ORDER BY 2, 1;
SELECT * FROM offload_check($$SELECT lower(s_ci), count(*) FROM cand_coll WHERE id > 0 GROUP BY s_ci$$);
RESET ossd.force_offload;
DROP TABLE cand_coll;
DROP COLLATION cand_ci;

-- ===================================================================
-- Functions: only immutable ones are evaluated on the drive
-- ===================================================================
SET ossd.force_offload = on;
-- a volatile function: the qual stays on the host
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE k < (random() * 0)::int + 10;
SELECT count(*) FROM cand WHERE k < (random() * 0)::int + 10;
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE k < (random() * 0)::int + 10$$);
-- a stable function: evaluated once per scan on the host, not folded
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE id < length(current_user) * 100;
SELECT count(*) FROM cand WHERE id < length(current_user) * 100;
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE id < length(current_user) * 100$$);
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE t < to_char(1, '9');
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE t < to_char(1, '9')$$);
-- an immutable expression of constants is folded at plan time: pushed
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE id < abs(-50) * 2 + length('abc');
SELECT count(*) FROM cand WHERE id < abs(-50) * 2 + length('abc');
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE id < abs(-50) * 2 + length('abc')$$);
-- a SQL function is inlined: its body is what is pushed or not
CREATE FUNCTION cand_small_k(int4) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT $1 < 3 $$;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE cand_small_k(k);
SELECT count(*) FROM cand WHERE cand_small_k(k);
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE cand_small_k(k)$$);
-- a PL/pgSQL function is a black box: on the host
CREATE FUNCTION cand_plpgsql_k(int4) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN $1 < 3; END $$;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE cand_plpgsql_k(k);
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE cand_plpgsql_k(k)$$);
-- an operator of our own over int4 (not in a whitelisted operator family)
CREATE FUNCTION cand_lt(int4, int4) RETURNS bool LANGUAGE internal IMMUTABLE STRICT AS 'int4lt';
CREATE OPERATOR <<< (LEFTARG = int4, RIGHTARG = int4, FUNCTION = cand_lt);
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand WHERE k <<< 3;
SELECT * FROM offload_check($$SELECT count(*) FROM cand WHERE k <<< 3$$);
DROP OPERATOR <<< (int4, int4);
DROP FUNCTION cand_lt(int4, int4);
DROP FUNCTION cand_plpgsql_k(int4);
DROP FUNCTION cand_small_k(int4);
RESET ossd.force_offload;

-- ===================================================================
-- Row-level security: the policy's quals are quals of the scan, pushed
-- when on the whitelist; the drive never returns a row the policy hides
-- ===================================================================
CREATE ROLE regress_ossd_cand_user;
GRANT ossd_kernel_admin TO regress_ossd_cand_user;
CREATE TABLE cand_rls (id int4, owner_k int4, secret text);
INSERT INTO cand_rls SELECT g, g % 4, 'secret ' || g FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) cand_rls;
CHECKPOINT;
ALTER TABLE cand_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY cand_rls_k ON cand_rls FOR SELECT USING (owner_k = 1);
CREATE POLICY cand_rls_name ON cand_rls AS RESTRICTIVE FOR SELECT
  USING (secret <> 'secret ' || length(current_user));
GRANT SELECT ON cand_rls TO regress_ossd_cand_user;
GRANT EXECUTE ON FUNCTION offload_check(text) TO regress_ossd_cand_user;
CREATE FUNCTION cand_leak(text) RETURNS bool LANGUAGE plpgsql COST 0.0001 AS
  $$ BEGIN IF $1 = 'secret 2' THEN RAISE NOTICE 'leaked %', $1; END IF; RETURN true; END $$;
SET ossd.force_offload = on;
SET ROLE regress_ossd_cand_user;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, secret FROM cand_rls WHERE id < 30;
SELECT id, secret FROM cand_rls WHERE id < 30 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, secret FROM cand_rls WHERE id < 30$$);
SELECT * FROM offload_check($$SELECT count(*) FROM cand_rls$$);
-- an aggregate over the table: RLS quals are not all pushable (the
-- stable current_user): the aggregate stays on the host
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_rls WHERE id < 30;
-- a leaky function runs after the policy's quals
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand_rls WHERE cand_leak(secret) AND id < 10;
SELECT id FROM cand_rls WHERE cand_leak(secret) AND id < 10 ORDER BY id;
RESET ROLE;
DROP FUNCTION cand_leak(text);
-- the owner (a superuser here) bypasses the policies
SELECT * FROM offload_check($$SELECT count(*) FROM cand_rls WHERE id < 30$$);
RESET ossd.force_offload;
DROP TABLE cand_rls;
REVOKE EXECUTE ON FUNCTION offload_check(text) FROM regress_ossd_cand_user;
DROP ROLE regress_ossd_cand_user;

-- ===================================================================
-- Inheritance parents (issue 12, D1): the parent stands for its
-- children too, so its rel is an Append of every member's scan
-- ===================================================================
CREATE TABLE cand_par (a int4, b text);
CREATE TABLE cand_chi1 () INHERITS (cand_par);
CREATE TABLE cand_chi2 (extra int4) INHERITS (cand_par);
CREATE TABLE cand_grandchi () INHERITS (cand_chi1);
CREATE TABLE cand_chi_default () INHERITS (cand_par) TABLESPACE pg_default;
INSERT INTO cand_par SELECT g, repeat('p', 100) FROM generate_series(1, 20000) g;
INSERT INTO cand_chi1 SELECT g, 'chi1' FROM generate_series(1, 3000) g;
INSERT INTO cand_chi2 SELECT g, 'chi2', g * 2 FROM generate_series(1, 2000) g;
INSERT INTO cand_grandchi SELECT g, 'grand' FROM generate_series(1, 1000) g;
INSERT INTO cand_chi_default SELECT g, 'default' FROM generate_series(1, 500) g;
VACUUM (FREEZE, ANALYZE) cand_par, cand_chi1, cand_chi2, cand_grandchi, cand_chi_default;
CHECKPOINT;
-- default settings: the parent's own heap is large enough, its children
-- are not: each member decides on its own
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_par WHERE a < 100;
SELECT count(*) FROM cand_par WHERE a < 100;
SELECT * FROM offload_check($$SELECT count(*) FROM cand_par WHERE a < 100$$);
-- every member a candidate, each still chosen by its cost: the
-- grandchild's 99 rows of its few pages are cheaper read on the host
-- (forced, below, the whole tree is offloaded)
SET ossd.min_relation_pages = 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT b, count(*) FROM cand_par WHERE a < 100 GROUP BY b;
SELECT b, count(*) FROM cand_par WHERE a < 100 GROUP BY b ORDER BY b;
SELECT * FROM offload_check($$SELECT b, count(*) FROM cand_par WHERE a < 100 GROUP BY b$$);
SELECT * FROM offload_check($$SELECT a, b FROM cand_par WHERE a = 42$$);
-- a middle level: itself and its own child
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM cand_chi1 WHERE a < 100;
SELECT count(*) FROM cand_chi1 WHERE a < 100;
SELECT * FROM offload_check($$SELECT count(*), sum(a) FROM cand_chi1 WHERE a < 100$$);
-- ONLY: the parent's heap alone, an ordinary candidate (aggregated on
-- the drive)
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM ONLY cand_par WHERE a < 100;
SELECT count(*) FROM ONLY cand_par WHERE a < 100;
SELECT * FROM offload_check($$SELECT count(*) FROM ONLY cand_par WHERE a < 100$$);
SELECT * FROM offload_check($$SELECT count(*) FROM ONLY cand_chi1 WHERE a < 100$$);
-- forced: still the whole tree
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cand_par WHERE a < 100;
SELECT * FROM offload_check($$SELECT count(*) FROM cand_par WHERE a < 100$$);
SELECT * FROM offload_check($$SELECT tableoid::regclass, count(*) FROM cand_par WHERE a < 100 GROUP BY 1$$);
SELECT tableoid::regclass, count(*) FROM cand_par WHERE a < 100 GROUP BY 1 ORDER BY 1;
-- the child with an extra column, through the parent and alone
SELECT * FROM offload_check($$SELECT a, extra FROM cand_chi2 WHERE a < 10$$);
-- UPDATE through the parent: targets are never offloaded, the rows
-- changed are then host blocks of the children
EXPLAIN (COSTS OFF) UPDATE cand_par SET b = b || '!' WHERE a = 5;
UPDATE cand_par SET b = b || '!' WHERE a = 5;
SELECT * FROM offload_check($$SELECT a, b FROM cand_par WHERE a = 5$$);
SELECT a, b FROM cand_par WHERE a = 5 ORDER BY b;
RESET ossd.force_offload;
RESET ossd.min_relation_pages;
DROP TABLE cand_par, cand_chi1, cand_chi2, cand_grandchi, cand_chi_default;

-- ===================================================================
-- Row marks and write targets: FOR UPDATE/SHARE, UPDATE/DELETE
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cand WHERE k = 5 AND id < 300 FOR UPDATE;
SELECT id FROM cand WHERE k = 5 AND id < 300 ORDER BY id FOR UPDATE;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 5 AND id < 300 FOR SHARE;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 5 AND id < 300 FOR KEY SHARE SKIP LOCKED;
-- FOR UPDATE OF one side: the other side carries a row mark too
-- (ROW_MARK_REFERENCE, for EvalPlanQual): neither is offloaded
EXPLAIN (COSTS OFF)
SELECT c.id FROM cand c JOIN cand_small s ON c.id = s.id WHERE c.k = 5 AND s.k = 5 FOR UPDATE OF s;
SELECT c.id FROM cand c JOIN cand_small s ON c.id = s.id WHERE c.k = 5 AND s.k = 5 ORDER BY 1 FOR UPDATE OF s;
-- UPDATE/DELETE targets, and the other tables of the statement (they
-- carry row marks for EvalPlanQual): none is offloaded
CREATE TABLE cand_w AS SELECT * FROM cand ORDER BY id;  -- (ORDER BY: the same layout whatever scans it)
VACUUM (FREEZE, ANALYZE) cand_w;
CHECKPOINT;
EXPLAIN (COSTS OFF) UPDATE cand_w SET t = 'changed' WHERE k = 6 AND id < 1000;
UPDATE cand_w SET t = 'changed' WHERE k = 6 AND id < 1000;
EXPLAIN (COSTS OFF) DELETE FROM cand_w WHERE k = 7 AND id < 1000;
DELETE FROM cand_w WHERE k = 7 AND id < 1000;
EXPLAIN (COSTS OFF) UPDATE cand_w w SET t = 'joined' FROM cand c WHERE w.id = c.id AND c.k = 8 AND c.id < 1000;
UPDATE cand_w w SET t = 'joined' FROM cand c WHERE w.id = c.id AND c.k = 8 AND c.id < 1000;
EXPLAIN (COSTS OFF) DELETE FROM cand_w w USING cand c WHERE w.id = c.id AND c.k = 9 AND c.id < 1000;
DELETE FROM cand_w w USING cand c WHERE w.id = c.id AND c.k = 9 AND c.id < 1000;
-- the source of INSERT ... SELECT is an ordinary candidate
EXPLAIN (COSTS OFF) INSERT INTO cand_w SELECT * FROM cand WHERE k = 10 AND id < 1000;
INSERT INTO cand_w SELECT * FROM cand WHERE k = 10 AND id < 1000;
-- the changed table: its changed blocks are host blocks, the others on
-- the drive, same answer
SELECT * FROM offload_check($$SELECT t, count(*) FROM cand_w WHERE id < 1000 GROUP BY t$$);
SELECT * FROM block_split($$SELECT t, count(*) FROM cand_w WHERE id < 1000 GROUP BY t$$);
SELECT t, count(*) FROM cand_w WHERE id < 1000 GROUP BY t ORDER BY t;
SELECT * FROM offload_check($$SELECT id, k, t FROM cand_w WHERE k BETWEEN 5 AND 11 AND id < 2000$$);
-- inside the transaction that changed it, its own changes are seen
BEGIN;
UPDATE cand_w SET k = -1 WHERE id % 97 = 0;
SELECT * FROM offload_check($$SELECT count(*) FROM cand_w WHERE k = -1$$);
SELECT count(*) FROM cand_w WHERE k = -1;
DELETE FROM cand_w WHERE id % 89 = 0;
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM cand_w WHERE k >= 0$$);
ROLLBACK;
SELECT * FROM offload_check($$SELECT count(*) FROM cand_w WHERE k = -1$$);
-- a data-modifying CTE's target is not offloaded; the outer query,
-- without row marks of its own, is
EXPLAIN (COSTS OFF)
WITH d AS (DELETE FROM cand_w WHERE k = 11 AND id < 1000 RETURNING id)
SELECT count(*) FROM d, cand c WHERE c.id = d.id AND c.k = 11;
WITH d AS (DELETE FROM cand_w WHERE k = 11 AND id < 1000 RETURNING id)
SELECT count(*) FROM d, cand c WHERE c.id = d.id AND c.k = 11;
DROP TABLE cand_w;
RESET ossd.force_offload;

-- ===================================================================
-- Isolation levels: SERIALIZABLE never (its predicate locks need heap
-- scans), REPEATABLE READ and READ COMMITTED always
-- ===================================================================
SET ossd.force_offload = on;
BEGIN ISOLATION LEVEL SERIALIZABLE;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 5 AND id < 300;
SELECT * FROM offload_check($$SELECT id FROM cand WHERE k = 5 AND id < 300$$);
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
EXPLAIN (COSTS OFF) SELECT id FROM cand WHERE k = 5 AND id < 300;
SELECT * FROM offload_check($$SELECT id FROM cand WHERE k = 5 AND id < 300$$);
COMMIT;
BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY;
SELECT * FROM offload_check($$SELECT id FROM cand WHERE k = 5 AND id < 300$$);
COMMIT;
-- a plan made outside SERIALIZABLE and run inside it (a prepared
-- statement): the executor scans on the host
PREPARE cand_iso AS SELECT count(*) FROM cand WHERE k = 5;
EXPLAIN (COSTS OFF) EXECUTE cand_iso;
BEGIN ISOLATION LEVEL SERIALIZABLE;
CREATE TEMP TABLE cand_scans0 AS SELECT drive_scan_counts() AS s;
EXECUTE cand_iso;
SELECT drive_scan_delta((SELECT s FROM cand_scans0)) AS drive_scans;
COMMIT;
DROP TABLE cand_scans0;
DEALLOCATE cand_iso;
RESET ossd.force_offload;

-- ===================================================================
-- Cursors: forward, scrollable (a Material above the OssdScan, which
-- cannot run backwards), WITH HOLD, and a cursor closed early
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) DECLARE c1 CURSOR FOR SELECT id FROM cand WHERE k = 4 AND id < 1000;
BEGIN;
DECLARE c1 CURSOR FOR SELECT id FROM cand WHERE k = 4 AND id < 1000 ORDER BY id;
FETCH 3 FROM c1;
FETCH 2 FROM c1;
CLOSE c1;
-- not run to the end: the drive's stream is closed with the portal
-- (which rows come first depends on the drive's workers: only counted)
DECLARE c2 NO SCROLL CURSOR FOR SELECT id FROM cand WHERE k = 4;
MOVE FORWARD 3 IN c2;
CLOSE c2;
EXPLAIN (COSTS OFF) DECLARE c3 SCROLL CURSOR FOR SELECT id FROM cand WHERE k = 4 AND id < 1000;
-- (the drive's row order varies: the rows read backwards must be the
-- forward ones reversed, and those the right set)
DO $$
DECLARE
  c SCROLL CURSOR FOR SELECT id FROM cand WHERE k = 4 AND id < 1000;
  fwd int[] := '{}';
  bwd int[] := '{}';
  x int;
BEGIN
  OPEN c;
  LOOP
    FETCH NEXT FROM c INTO x;
    EXIT WHEN NOT FOUND;
    fwd := fwd || x;
  END LOOP;
  LOOP
    FETCH PRIOR FROM c INTO x;
    EXIT WHEN NOT FOUND;
    bwd := x || bwd;
  END LOOP;
  FETCH ABSOLUTE 3 FROM c INTO x;
  RAISE NOTICE 'forward % rows, backward the same: %, absolute 3 is the third: %, rows %',
    cardinality(fwd), fwd = bwd, x = fwd[3], (SELECT array_agg(v ORDER BY v) FROM unnest(fwd) v);
  CLOSE c;
END
$$;
DECLARE c4 CURSOR WITH HOLD FOR SELECT id, t FROM cand WHERE k = 4 AND id < 1000 ORDER BY id;
COMMIT;
FETCH 2 FROM c4;
FETCH LAST FROM c4;
CLOSE c4;
-- a cursor in PL/pgSQL, rows taken one by one
DO $$
DECLARE
  c CURSOR FOR SELECT id FROM cand WHERE k = 4 AND id < 1000;
  n int := 0;
  s bigint := 0;
BEGIN
  FOR r IN c LOOP
    n := n + 1;
    s := s + r.id;
  END LOOP;
  RAISE NOTICE 'cursor loop: % rows, sum %', n, s;
END
$$;
SELECT count(*), sum(id) FROM cand WHERE k = 4 AND id < 1000;
RESET ossd.force_offload;

-- ===================================================================
-- Prepared statements: a custom plan folds the parameters into
-- constants (pushed); a generic plan keeps Params (host quals)
-- ===================================================================
PREPARE cand_p(int4, int4) AS SELECT id, t FROM cand WHERE k = $1 AND id < $2 ORDER BY id;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_p(3, 1000);
EXECUTE cand_p(3, 1000);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_p(3, 1000);
EXECUTE cand_p(3, 1000);
-- the generic plan is kept when settings change; one prepared under
-- force_offload is an OssdScan with every qual on the host
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_p(3, 1000);
DEALLOCATE cand_p;
PREPARE cand_p(int4, int4) AS SELECT id, t FROM cand WHERE k = $1 AND id < $2 ORDER BY id;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_p(3, 1000);
EXECUTE cand_p(3, 1000);
EXECUTE cand_p(4, 500);
-- a Param next to a constant: the constant's qual is pushed
PREPARE cand_p2(int4) AS SELECT id FROM cand WHERE k = 3 AND id < $1 ORDER BY id;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_p2(1000);
EXECUTE cand_p2(1000);
SET ossd.enabled = off;
EXECUTE cand_p2(1000);
RESET ossd.enabled;
-- a NULL parameter
EXECUTE cand_p(NULL, 1000);
EXECUTE cand_p2(NULL);
DEALLOCATE cand_p2;
RESET ossd.force_offload;
-- an aggregate with a parameter: not pushed in the generic plan (its qual
-- is not on the whitelist)
PREPARE cand_pa(int4) AS SELECT k, count(*) FROM cand WHERE id < $1 GROUP BY k ORDER BY k LIMIT 3;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_pa(5000);
EXECUTE cand_pa(5000);
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE cand_pa(5000);
EXECUTE cand_pa(5000);
DEALLOCATE cand_pa;
-- a plan cached before the relation changed tablespace is replanned
SET plan_cache_mode = auto;
CREATE TABLE cand_replan AS SELECT * FROM cand WHERE id <= 10000 ORDER BY id;
VACUUM (FREEZE, ANALYZE) cand_replan;
CHECKPOINT;
PREPARE cand_r AS SELECT count(*) FROM cand_replan WHERE k = 2;
EXPLAIN (COSTS OFF) EXECUTE cand_r;
EXECUTE cand_r;
ALTER TABLE cand_replan SET TABLESPACE pg_default;
EXPLAIN (COSTS OFF) EXECUTE cand_r;
EXECUTE cand_r;
DEALLOCATE cand_r;
DROP TABLE cand_replan;
RESET plan_cache_mode;
DEALLOCATE cand_p;
-- PL/pgSQL's cached plans of a query with a variable: generic after a
-- few calls, the same answers
CREATE FUNCTION cand_count(kk int4) RETURNS bigint LANGUAGE plpgsql AS
  $$ BEGIN RETURN (SELECT count(*) FROM cand WHERE k = kk AND id > 10); END $$;
SELECT kk, cand_count(kk) FROM generate_series(0, 9) kk;
SET ossd.force_offload = on;
SELECT kk, cand_count(kk) FROM generate_series(0, 9) kk;
RESET ossd.force_offload;
DROP FUNCTION cand_count(int4);

DROP TABLE cand, cand_small, cand_default;
DROP FUNCTION block_split(text);
