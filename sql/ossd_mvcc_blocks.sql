--
-- ossd_mvcc_blocks: the MVCC rule of an offloaded scan (pg_ossd/README.md
-- "MVCC rule"): a block goes to the drive only when it is all-visible in
-- the visibility map and clean in shared buffers; every other block is
-- scanned on the host with the snapshot.  Shown through EXPLAIN ANALYZE's
-- block counters (exact here: autovacuum is off, the tables are frozen
-- and checkpointed where a section says so) after UPDATE, DELETE, INSERT,
-- aborted transactions, VACUUM without and with CHECKPOINT, and within a
-- transaction whose cursor's snapshot predates its own changes.  Every
-- answer is compared with ossd.enabled = off.
--
SET extra_float_digits = 0;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
-- every scan below offloaded, whatever the split costs
SET ossd.force_offload = on;

-- The query's rows with offload as set and with ossd.enabled = off: their
-- count and whether both are the same multiset.
-- offload_same(q): tests/pg/regress-helpers.sql

-- How EXPLAIN ANALYZE says the scan's blocks were split
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

-- The table's pages, and how many of them are all-visible
CREATE FUNCTION vm_pages(rel regclass, OUT pages bigint, OUT all_visible bigint)
LANGUAGE sql AS $$
  SELECT pg_relation_size(rel) / current_setting('block_size')::int,
         (SELECT relallvisible FROM pg_class WHERE oid = rel)::bigint
$$;

-- ===================================================================
-- 6,000 rows of ~230 bytes (about 30 a page: 200 pages), frozen and
-- checkpointed: every block on the drive
-- ===================================================================
CREATE TABLE mv (id int4, k int4, pad text);
INSERT INTO mv SELECT g, g % 10, repeat('v', 200) FROM generate_series(1, 6000) g;
VACUUM (FREEZE, ANALYZE) mv;
CHECKPOINT;
SELECT * FROM vm_pages('mv');
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM mv WHERE k = 3;
SELECT * FROM block_split('SELECT id, k FROM mv WHERE k = 3');
SELECT count(*), sum(id) FROM mv WHERE k = 3;
SELECT * FROM offload_same('SELECT id, k FROM mv WHERE k = 3');

-- ===================================================================
-- UPDATE: the pages of the old versions lose their all-visible bit and
-- the new versions go to new pages at the end; all of them host blocks
-- ===================================================================
UPDATE mv SET k = k + 100 WHERE id <= 300;
SELECT * FROM block_split('SELECT id, k FROM mv WHERE k = 3');
SELECT count(*), sum(id) FROM mv WHERE k = 3;
SELECT count(*), sum(id) FROM mv WHERE k = 103;
SELECT * FROM offload_same('SELECT id, k FROM mv WHERE k = 3');
SELECT * FROM offload_same('SELECT id, k FROM mv WHERE k >= 100');
-- VACUUM sets the bits again, but the pages it changed are dirty in
-- shared buffers until a checkpoint: the scan writes them out first and
-- the drive scans them (how many the scan wrote itself depends on the
-- background writer, so it is not printed)
VACUUM mv;
SELECT ln FROM block_split('SELECT id, k FROM mv WHERE k = 3') ln WHERE ln !~ 'Written';
SELECT * FROM offload_same('SELECT id, k FROM mv WHERE k >= 100');
CHECKPOINT;
SELECT * FROM vm_pages('mv');
SELECT * FROM block_split('SELECT id, k FROM mv WHERE k = 3');

-- ===================================================================
-- DELETE: the rows are gone for the snapshot although the drive would
-- still see their tuples in those blocks; the blocks are the host's
-- until VACUUM removes the tuples
-- ===================================================================
DELETE FROM mv WHERE id % 100 = 1;
SELECT * FROM block_split('SELECT id FROM mv WHERE id % 100 = 1');
SELECT count(*) FROM mv WHERE id % 100 = 1;
SELECT * FROM offload_same('SELECT id FROM mv WHERE id % 100 < 3');
VACUUM mv;
CHECKPOINT;
SELECT * FROM block_split('SELECT id FROM mv WHERE id % 100 = 1');
SELECT count(*) FROM mv WHERE id % 100 = 1;
SELECT * FROM offload_same('SELECT id FROM mv WHERE id % 100 < 3');

-- ===================================================================
-- an aborted transaction: its inserted rows are invisible; before VACUUM
-- their pages are not all-visible (host blocks), after VACUUM the drive
-- scans pages whose dead tuples were removed
-- ===================================================================
BEGIN;
INSERT INTO mv SELECT g, 7, repeat('a', 200) FROM generate_series(100001, 101500) g;
ROLLBACK;
SELECT * FROM block_split('SELECT id FROM mv WHERE id > 100000');
SELECT count(*) FROM mv WHERE id > 100000;
VACUUM mv;
CHECKPOINT;
SELECT * FROM block_split('SELECT id FROM mv WHERE id > 100000');
SELECT count(*) FROM mv WHERE id > 100000;
SELECT * FROM offload_same('SELECT id, k FROM mv WHERE k = 7');

-- ===================================================================
-- one transaction: a cursor's snapshot predates the rows its
-- transaction inserts and deletes afterwards; a new statement sees them
-- ===================================================================
BEGIN;
DECLARE c CURSOR FOR SELECT count(*), sum(id) FROM mv WHERE k = 5;
INSERT INTO mv SELECT g, 5, 'new' FROM generate_series(200001, 200100) g;
DELETE FROM mv WHERE k = 5 AND id < 1000;
FETCH c;
CLOSE c;
SELECT count(*), sum(id) FROM mv WHERE k = 5;
SELECT * FROM block_split('SELECT id FROM mv WHERE k = 5');
SELECT * FROM offload_same('SELECT id FROM mv WHERE k = 5');
COMMIT;
-- the host alone, after the commit
SET ossd.enabled = off;
SELECT count(*), sum(id) FROM mv WHERE k = 5;
RESET ossd.enabled;
SELECT count(*), sum(id) FROM mv WHERE k = 5;

-- ===================================================================
-- a REPEATABLE READ transaction keeps its snapshot across statements:
-- rows it changes are the host's, the frozen rest the drive's
-- ===================================================================
VACUUM (FREEZE) mv;
CHECKPOINT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*), sum(id) FROM mv WHERE k = 2;
UPDATE mv SET pad = 'rr' WHERE k = 2 AND id < 600;
SELECT count(*), sum(id), count(*) FILTER (WHERE pad = 'rr') AS changed FROM mv WHERE k = 2;
SELECT * FROM offload_same('SELECT id, pad FROM mv WHERE k = 2');
COMMIT;

-- ===================================================================
-- aggregate pushdown under the same rule: partial aggregates from the
-- drive's blocks, the host's blocks aggregated on the host
-- ===================================================================
UPDATE mv SET k = k WHERE id BETWEEN 3000 AND 3300;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*), sum(id) FROM mv GROUP BY k;
SELECT * FROM block_split('SELECT k, count(*), sum(id) FROM mv GROUP BY k');
SELECT k, count(*), sum(id) FROM mv GROUP BY k ORDER BY k;
SET ossd.enabled = off;
SELECT k, count(*), sum(id) FROM mv GROUP BY k ORDER BY k;
RESET ossd.enabled;

RESET ossd.force_offload;
DROP TABLE mv;
DROP FUNCTION block_split(text);
DROP FUNCTION vm_pages(regclass);
