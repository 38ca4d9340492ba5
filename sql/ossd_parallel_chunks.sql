--
-- ossd_parallel_chunks: the partial OssdScan (pg_ossd/README.md "Parallel
-- query"): the processes under a Gather claim chunks of blocks from a
-- counter in the query's shared memory, each sending the drive its own
-- SCAN per chunk.  Chunk sizes (ossd.parallel_chunk_blocks, and 0 for
-- the default), the leader alone, a chunk split into drive and host
-- blocks, partial aggregates finalized above the Gather, Gather Merge,
-- parallel hash joins of two partial OssdScans, a Gather rescanned under
-- a nested loop.  EXPLAIN ANALYZE's counters are sums over all processes:
-- every block is counted once whichever process scanned it, and the
-- number of chunks is the relation's blocks over the chunk size.  Every
-- answer is compared with ossd.enabled = off.
--
SET extra_float_digits = 0;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = on;
-- a drive with four scan threads: a scan returning many rows is then
-- bound by the host, whose part the processes under a Gather divide
-- (the drive's they do not: ossd_cost_model.sql)
SET ossd.device_workers = 4;

-- EXPLAIN ANALYZE's lines matching pat, without the per-worker lines
-- (which process took how much varies from run to run)
CREATE FUNCTION counters(q text, pat text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN ln ~ 'Worker \d+:';
    IF ln ~ pat THEN
      RETURN NEXT regexp_replace(regexp_replace(ln, 'actual rows=\d+ loops=\d+', 'actual'), '^ +', '');
    END IF;
  END LOOP;
END
$$;

-- The query's rows with offload as set and with ossd.enabled = off: their
-- count and whether both are the same multiset.
-- offload_same(q): tests/pg/regress-helpers.sql

-- ===================================================================
-- Test data: 40,000 rows of ~180 bytes (931 blocks), frozen and
-- checkpointed; a second table to join (466 blocks)
-- ===================================================================
CREATE TABLE pc (id int8, g int4, v int4, pad text);
INSERT INTO pc SELECT i, i % 9, (i * 37) % 1000, repeat('c', 140) FROM generate_series(1, 40000) i;
CREATE TABLE pc2 (id int8, w int4, pad text);
INSERT INTO pc2 SELECT i, i % 5, repeat('d', 140) FROM generate_series(1, 40000, 2) i;
VACUUM (FREEZE, ANALYZE) pc;
VACUUM (FREEZE, ANALYZE) pc2;
CHECKPOINT;
SELECT relname, relpages FROM pg_class WHERE relname IN ('pc', 'pc2') ORDER BY 1;

-- ===================================================================
-- chunk sizes: 931 blocks in chunks of 100 (10, the last one short), 7
-- (133) and 5000 (one chunk: one process does all the work); 0 chooses
-- about four chunks a process, of at least 8 MB (1024 blocks) each: one
-- here
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, v FROM pc WHERE v < 300;
SELECT n, counters('SELECT id, v FROM pc WHERE v < 300',
                   '(Blocks on|Block Chunks|Rows from Drive)') AS line
  FROM (SELECT n, set_config('ossd.parallel_chunk_blocks', n::text, false)
          FROM unnest(ARRAY[100, 7, 5000, 0]) n) s ORDER BY n, line;
RESET ossd.parallel_chunk_blocks;
SELECT count(*), sum(id), sum(v) FROM pc WHERE v < 300;
SELECT * FROM offload_same('SELECT id, v FROM pc WHERE v < 300');

-- the leader alone (no workers to launch): the same chunks, the same rows
SET ossd.parallel_chunk_blocks = 100;
SET max_parallel_workers = 0;
SELECT * FROM counters('SELECT id, v FROM pc WHERE v < 300',
                       '(Blocks on|Block Chunks|Rows from Drive|Workers Launched)');
SELECT * FROM offload_same('SELECT id, v FROM pc WHERE v < 300');
RESET max_parallel_workers;
-- ... and without the leader's participation: the workers only
SET parallel_leader_participation = off;
SELECT * FROM counters('SELECT id, v FROM pc WHERE v < 300',
                       '(Blocks on|Block Chunks|Rows from Drive)');
SELECT * FROM offload_same('SELECT id, v FROM pc WHERE v < 300');
RESET parallel_leader_participation;

-- ===================================================================
-- chunks of drive and host blocks: after an UPDATE the changed blocks are
-- the host's, whichever process claims their chunk
-- ===================================================================
CREATE TABLE pcu AS SELECT * FROM pc ORDER BY id;
VACUUM (FREEZE, ANALYZE) pcu;
UPDATE pcu SET v = v + 1 WHERE id BETWEEN 10000 AND 10400;
CHECKPOINT;
SELECT * FROM counters('SELECT id, v FROM pcu WHERE v < 300',
                       '(Blocks on|Block Chunks|Rows from Drive)');
SELECT * FROM offload_same('SELECT id, v FROM pcu WHERE v < 300');
DROP TABLE pcu;

-- ===================================================================
-- partial aggregates above the shared scan (aggregate pushdown off: the
-- drive-side aggregation path is not parallel), finalized above the
-- Gather; Gather Merge under a sorted aggregate
-- ===================================================================
SET ossd.aggregate_pushdown = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count(*), sum(v), min(id), max(id) FROM pc WHERE v < 500 GROUP BY g;
SELECT g, count(*), sum(v), min(id), max(id) FROM pc WHERE v < 500 GROUP BY g ORDER BY g;
SELECT * FROM offload_same('SELECT g, count(*), sum(v), min(id), max(id) FROM pc WHERE v < 500 GROUP BY g');
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, count(*), avg(v) FROM pc WHERE v < 500 GROUP BY g ORDER BY g;
SELECT g, count(*), avg(v) FROM pc WHERE v < 500 GROUP BY g ORDER BY g;
SELECT * FROM offload_same('SELECT g, count(*), avg(v) FROM pc WHERE v < 500 GROUP BY g ORDER BY g');
RESET enable_hashagg;
-- sorted rows of a selective scan: bound by the drive, whose part the
-- processes do not divide, so the plain OssdScan and no Gather
EXPLAIN (COSTS OFF) SELECT id, v FROM pc WHERE v = 123 ORDER BY v, id;
SELECT id, v FROM pc WHERE v = 123 ORDER BY v, id LIMIT 10;
SELECT * FROM offload_same('SELECT id, v FROM pc WHERE v = 123 ORDER BY v, id');
RESET ossd.aggregate_pushdown;

-- ===================================================================
-- a parallel hash join of two partial OssdScans: both sides' blocks are
-- shared out by chunks, each counted once.  (With join filters, a hash
-- join over pc's filtered scan beats it: ossd_join_filter shows those.)
-- ===================================================================
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET ossd.join_filter = off;
EXPLAIN (COSTS OFF)
SELECT pc.g, count(*), sum(pc2.w) FROM pc JOIN pc2 ON pc.id = pc2.id
 WHERE pc.v < 400 AND pc2.w < 3 GROUP BY pc.g;
SELECT * FROM counters('SELECT pc.g, count(*), sum(pc2.w) FROM pc JOIN pc2 ON pc.id = pc2.id WHERE pc.v < 400 AND pc2.w < 3 GROUP BY pc.g',
                       '(OssdScan|Blocks on|Block Chunks|Hash Join)');
SELECT pc.g, count(*), sum(pc2.w) FROM pc JOIN pc2 ON pc.id = pc2.id
 WHERE pc.v < 400 AND pc2.w < 3 GROUP BY pc.g ORDER BY pc.g;
SELECT * FROM offload_same('SELECT pc.g, count(*), sum(pc2.w) FROM pc JOIN pc2 ON pc.id = pc2.id WHERE pc.v < 400 AND pc2.w < 3 GROUP BY pc.g');
RESET ossd.join_filter;
RESET enable_nestloop;
RESET enable_mergejoin;

-- ===================================================================
-- a nested loop inside the parallel plan: the outer side (pck, forced
-- onto the drive too: its one block on the host, not yet all-visible) is
-- the partial scan, one chunk; the inner OssdScan of pc runs whole once
-- for the first outer row; the rescans for the others change no
-- parameter and read the rows it stored (as a Material node would): 931
-- blocks on the drive, not 3 x 931
-- ===================================================================
CREATE TABLE pck (k int4);
INSERT INTO pck VALUES (1), (4), (7);
ANALYZE pck;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT pck.k, count(*) FROM pck JOIN pc ON pc.g = pck.k AND pc.v < 100 GROUP BY pck.k;
SELECT * FROM counters('SELECT pck.k, count(*) FROM pck JOIN pc ON pc.g = pck.k AND pc.v < 100 GROUP BY pck.k',
                       '(Blocks on|Block Chunks|Gather)');
SELECT pck.k, count(*) FROM pck JOIN pc ON pc.g = pck.k AND pc.v < 100 GROUP BY pck.k ORDER BY 1;
SELECT * FROM offload_same('SELECT pck.k, count(*) FROM pck JOIN pc ON pc.g = pck.k AND pc.v < 100 GROUP BY pck.k');
RESET enable_material;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET ossd.parallel_chunk_blocks;
RESET ossd.force_offload;

-- ===================================================================
-- unforced: at the default costs a scan returning most rows is bound by
-- the host, which the partial path divides among the processes
-- ===================================================================
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT id FROM pc WHERE v > 10 OFFSET 0) s;
SELECT count(*) FROM (SELECT id FROM pc WHERE v > 10 OFFSET 0) s;
SELECT * FROM offload_same('SELECT count(*) FROM (SELECT id FROM pc WHERE v > 10 OFFSET 0) s');

DROP TABLE pc, pc2, pck;
DROP FUNCTION counters(text, text);
RESET parallel_leader_participation;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET max_parallel_workers_per_gather;
