--
-- ossd_cost_model: each term of the offload cost model (docs/cost-model.md,
-- ossd_cost in pg_ossd/ossd_planner.c) seen in the planner's estimates and
-- in the plan choices it makes: the selectivity of the device quals, the
-- all-visible fraction (host blocks), ossd.device_workers, the drive's
-- page and tuple costs, the transfer cost of each row sent back, the
-- parallel divisor of a partial path, ossd.min_relation_pages, and index
-- paths winning over offload when they should.
--
-- model_check(q) plans q (no execution) and compares the OssdScan's
-- estimated cost with the model's formula computed here from pg_class and
-- the GUCs:
--   startup = drive_startup_cost + cpu_operator_cost * pages
--   drive   = (f * (pages * drive_page_cost + tuples * drive_tuple_cost)
--              + rows_from_drive * drive_transfer_tuple_cost) / threads
--   host    = ((1 - f) * (pages + (cpu_tuple_cost + quals) * tuples)
--              + rows_from_drive * transfer_tuple_cost) / divisor
--   total   = startup + max(drive, host)
-- for quals that all run on the drive and one operator each; calls is
-- the helper calls the drive's filter makes a tuple, in units of
-- ossd.drive_call_cost, added to the drive's part (ossd_drive_qual_cost).
--
SET extra_float_digits = 0;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
-- the test tables stay under the 128-page default only where a section
-- says so
SET ossd.min_relation_pages = 0;

CREATE FUNCTION model_check(q text, nquals int DEFAULT 1, calls float8 DEFAULT 0,
  OUT scan text, OUT est_rows numeric, OUT bound text, OUT total numeric, OUT model numeric,
  OUT matches boolean)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
  p json;
  rel text;
  pages float8;
  tuples float8;
  f float8;
  threads float8;
  divisor float8 := 1;
  workers int;
  drive float8;
  host float8;
  rows_drive float8;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  p := j -> 0 -> 'Plan';
  -- down to the OssdScan
  WHILE p ->> 'Node Type' <> 'Custom Scan' LOOP
    IF p ->> 'Node Type' IN ('Gather', 'Gather Merge') THEN
      workers := (p ->> 'Workers Planned')::int;
    END IF;
    p := p -> 'Plans' -> 0;
  END LOOP;
  rel := p ->> 'Relation Name';
  scan := CASE WHEN (p ->> 'Parallel Aware')::boolean THEN 'Parallel ' ELSE '' END
          || 'OssdScan on ' || rel;
  SELECT relpages, reltuples, CASE WHEN relpages = 0 THEN 0 ELSE relallvisible::float8 / relpages END
    INTO pages, tuples, f FROM pg_class WHERE relname = rel;
  threads := CASE WHEN current_setting('ossd.device_workers')::int > 0
                  THEN current_setting('ossd.device_workers')::int ELSE 2 END;
  IF (p ->> 'Parallel Aware')::boolean THEN
    divisor := workers + greatest(0, 1 - 0.3 * workers);
  END IF;
  est_rows := (p ->> 'Plan Rows')::numeric;
  -- the rows the drive sends: the estimate's selectivity over the
  -- all-visible tuples
  rows_drive := greatest(1, round((est_rows * divisor)::numeric * f::numeric));
  drive := (f * (pages * current_setting('ossd.drive_page_cost')::float8
                 + tuples * current_setting('ossd.drive_tuple_cost')::float8
                 + tuples * calls * current_setting('ossd.drive_call_cost')::float8)
            + rows_drive * current_setting('ossd.drive_transfer_tuple_cost')::float8) / threads;
  host := ((1 - f) * (pages * current_setting('seq_page_cost')::float8
                      + (current_setting('cpu_tuple_cost')::float8
                         + nquals * current_setting('cpu_operator_cost')::float8) * tuples)
           + rows_drive * current_setting('ossd.transfer_tuple_cost')::float8) / divisor;
  bound := CASE WHEN drive >= host THEN 'drive' ELSE 'host' END;
  total := round((p ->> 'Total Cost')::numeric, 2);
  model := round((current_setting('ossd.drive_startup_cost')::float8
                  + current_setting('cpu_operator_cost')::float8 * pages
                  + greatest(drive, host))::numeric, 2);
  matches := abs(total - model) < 0.1;
END
$$;

-- The top plan node of q and its scans, COSTS OFF
CREATE FUNCTION plan_shape(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF ln ~ '(Scan|Gather|Aggregate|Join|Nested)' THEN
      RETURN NEXT regexp_replace(regexp_replace(ln, '^ +', ''), '^-> +', '');
    END IF;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data: 20,000 rows of ~230 bytes (about 30 a page), frozen and
-- checkpointed so every page is all-visible (f = 1)
-- ===================================================================
CREATE TABLE cm (id int4, k int4, pad text);
INSERT INTO cm SELECT g, g % 100, repeat('m', 200) FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) cm;
CHECKPOINT;
SELECT relpages, reltuples, relallvisible FROM pg_class WHERE relname = 'cm';

-- ===================================================================
-- selectivity: few rows back, the scan is bound by the drive (half a
-- page per page over two threads beats a host page); every row back,
-- the host's transfer cost exceeds a sequential scan's
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cm WHERE id < 200;
SELECT count(*), sum(id) FROM cm WHERE id < 200;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 200');
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cm WHERE id > 10;
SELECT count(*), sum(id) FROM cm WHERE id > 10;
-- forced, the same scan is bound by the host: 19,990 rows at 0.06
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id > 10');
-- where the two meet: the host's part grows with the rows, the drive's
-- does not; a sequential scan costs 607 + 20000 * 0.0125 = 857, so
-- offload wins up to about (857 - 11.5) / 0.06 = 14,000 rows
SELECT n, (model_check(format('SELECT id, k FROM cm WHERE id < %s', n))).*
  FROM unnest(ARRAY[100, 2000, 5000, 12000, 16000]) n ORDER BY n;
RESET ossd.force_offload;
SELECT n, plan_shape(format('SELECT id, k FROM cm WHERE id < %s', n)) AS plan
  FROM unnest(ARRAY[100, 2000, 5000, 12000, 16000]) n ORDER BY n;

-- ===================================================================
-- the transfer cost: dearer rows back make the seq scan win at a
-- selectivity where the drive won before
-- ===================================================================
SELECT plan_shape('SELECT id, k FROM cm WHERE id < 5000') AS plan;
SET ossd.transfer_tuple_cost = 0.2;
SET ossd.drive_transfer_tuple_cost = 0.2;
SELECT plan_shape('SELECT id, k FROM cm WHERE id < 5000') AS plan;
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 5000');
RESET ossd.force_offload;
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;
-- each side has its own: the drive's packing alone made dear, the drive
-- bounds the scan, and the formula follows it
SET ossd.drive_transfer_tuple_cost = 2;
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 5000');
RESET ossd.force_offload;
RESET ossd.drive_transfer_tuple_cost;

-- ===================================================================
-- the drive's part: ossd.device_workers divides it, ossd.drive_page_cost
-- and ossd.drive_tuple_cost scale it.  At a drive page cost of 2 one
-- drive thread loses to the host, two win.
-- ===================================================================
SET ossd.drive_page_cost = 2;
SET ossd.device_workers = 1;
SELECT plan_shape('SELECT id, k FROM cm WHERE id < 200') AS plan;
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 200');
RESET ossd.force_offload;
SET ossd.device_workers = 2;
SELECT plan_shape('SELECT id, k FROM cm WHERE id < 200') AS plan;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 200');
SET ossd.device_workers = 8;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 200');
RESET ossd.device_workers;
RESET ossd.drive_page_cost;
-- a dear tuple on the drive
SET ossd.drive_tuple_cost = 0.2;
SELECT plan_shape('SELECT id, k FROM cm WHERE id < 200') AS plan;
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id, k FROM cm WHERE id < 200');
RESET ossd.force_offload;
RESET ossd.drive_tuple_cost;

-- ===================================================================
-- the drive's helper calls (ossd.drive_call_cost): a LIKE counts four
-- calls, an equality the drive's JIT compiles inline
-- ossd.drive_inline_call_share of one, an IN list one per element; the
-- integer compares make none.  A qual after another is reached only by
-- the share of the rows the first lets through.
-- ===================================================================
CREATE FUNCTION est_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END
$$;
SET ossd.force_offload = on;
SELECT * FROM model_check($q$SELECT id FROM cm WHERE pad LIKE '%z'$q$, calls => 4);
SELECT * FROM model_check($q$SELECT id FROM cm WHERE pad = 'z'$q$, calls => 0.3);
SELECT * FROM model_check($q$SELECT id FROM cm WHERE pad IN ('x', 'y', 'z')$q$, calls => 0.9);
-- the LIKE after id < 200 runs for about 1% of the rows
SELECT * FROM model_check($q$SELECT id FROM cm WHERE id < 200 AND pad LIKE '%z'$q$, 2,
                          calls => 4 * est_rows('SELECT id FROM cm WHERE id < 200') / 20000);
RESET ossd.force_offload;
-- dear calls send a LIKE filter back to the sequential scan, not the
-- integer filter beside it
SELECT plan_shape($q$SELECT id FROM cm WHERE pad LIKE '%z'$q$) AS plan;
SET ossd.drive_call_cost = 0.05;
SELECT plan_shape($q$SELECT id FROM cm WHERE pad LIKE '%z'$q$) AS plan;
SELECT plan_shape('SELECT id, k FROM cm WHERE id < 200') AS plan;
RESET ossd.drive_call_cost;
SELECT count(*) FROM cm WHERE pad LIKE '%z' OR pad IN ('x', 'y', 'z') OR pad = repeat('m', 200);
SET ossd.enabled = off;
SELECT count(*) FROM cm WHERE pad LIKE '%z' OR pad IN ('x', 'y', 'z') OR pad = repeat('m', 200);
RESET ossd.enabled;

-- the offloaded answers, checked against the host
SELECT count(*), sum(id) FROM cm WHERE id < 5000;
SET ossd.enabled = off;
SELECT count(*), sum(id) FROM cm WHERE id < 200;
SELECT count(*), sum(id) FROM cm WHERE id < 5000;
SELECT count(*), sum(id) FROM cm WHERE id > 10;
RESET ossd.enabled;

-- ===================================================================
-- the all-visible fraction: a table never vacuumed has nothing for the
-- drive (f = 0) and the seq scan wins; half of it rewritten, half of its
-- pages are host pages, priced as a sequential scan of them
-- ===================================================================
CREATE TABLE cm_fresh AS SELECT * FROM cm ORDER BY id;
ANALYZE cm_fresh;
SELECT relpages, relallvisible FROM pg_class WHERE relname = 'cm_fresh';
SELECT plan_shape('SELECT id FROM cm_fresh WHERE id < 200') AS plan;
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id FROM cm_fresh WHERE id < 200');
RESET ossd.force_offload;
VACUUM (FREEZE, ANALYZE) cm_fresh;
UPDATE cm_fresh SET k = k + 1 WHERE id > 10000;
ANALYZE cm_fresh;
CHECKPOINT;
SELECT relpages, relallvisible, relallvisible::float8 / relpages < 0.7 AS under_70_percent
  FROM pg_class WHERE relname = 'cm_fresh';
SET ossd.force_offload = on;
SELECT * FROM model_check('SELECT id FROM cm_fresh WHERE id < 200');
RESET ossd.force_offload;
SELECT plan_shape('SELECT id FROM cm_fresh WHERE id < 200') AS plan;
-- the answers: host and drive blocks together, against the host alone
SET ossd.force_offload = on;
SELECT count(*), sum(id), sum(k) FROM cm_fresh WHERE id % 7 = 1;
SET ossd.force_offload = off;
SET ossd.enabled = off;
SELECT count(*), sum(id), sum(k) FROM cm_fresh WHERE id % 7 = 1;
RESET ossd.enabled;
RESET ossd.force_offload;

-- ===================================================================
-- the parallel divisor: a partial OssdScan divides the host's part (2
-- workers and the leader: 2.4), not the drive's
-- ===================================================================
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM (SELECT id FROM cm WHERE id > 10 OFFSET 0) s;
SELECT count(*) FROM (SELECT id FROM cm WHERE id > 10 OFFSET 0) s;
SELECT * FROM model_check('SELECT id FROM cm WHERE id > 10');
-- selective: bound by the drive, whose part no divisor lowers, so the
-- plain (not partial) OssdScan is as cheap and has no Gather above it
SELECT * FROM model_check('SELECT id FROM cm WHERE id < 200');
SELECT plan_shape('SELECT id FROM cm WHERE id < 200') AS plan;
RESET ossd.force_offload;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- ===================================================================
-- index paths: an index scan beats a whole-table drive scan for a few
-- rows; a range of most rows does not
-- ===================================================================
CREATE INDEX cm_id ON cm (id);
ANALYZE cm;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cm WHERE id = 777;
SELECT id, k FROM cm WHERE id = 777;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cm WHERE id BETWEEN 100 AND 130;
SELECT count(*), sum(k) FROM cm WHERE id BETWEEN 100 AND 130;
-- a qual the index cannot use: the drive's
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cm WHERE k = 7 AND id % 10 = 7;
SELECT count(*), sum(id) FROM cm WHERE k = 7 AND id % 10 = 7;
-- offload forced: the index scan is gone
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k FROM cm WHERE id = 777;
SELECT id, k FROM cm WHERE id = 777;
RESET ossd.force_offload;
SET ossd.enabled = off;
SELECT count(*), sum(id) FROM cm WHERE k = 7 AND id % 10 = 7;
RESET ossd.enabled;
DROP INDEX cm_id;

-- ===================================================================
-- ossd.min_relation_pages: below it no path is offered, unless offload
-- is forced (the debug switch ignores the threshold)
-- ===================================================================
SELECT relpages > 500 AS over_500 FROM pg_class WHERE relname = 'cm';
SET ossd.min_relation_pages = 100000;
SELECT plan_shape('SELECT id FROM cm WHERE id < 200') AS plan;
SET ossd.force_offload = on;
SELECT plan_shape('SELECT id FROM cm WHERE id < 200') AS plan;
RESET ossd.force_offload;
SET ossd.min_relation_pages = 0;
SELECT plan_shape('SELECT id FROM cm WHERE id < 200') AS plan;

-- ===================================================================
-- ossd.drive_startup_cost: what one drive scan costs before its first
-- row (request, stream, first answer; about 1 ms, docs/cost-model.md).
-- The suites pin it to 10 so that their small tables still go to the
-- drive; at the shipped value a scan of this table that sends most of
-- its rows back (the seq scan is about as fast) stays on the host, one
-- that sends few still goes to the drive
-- ===================================================================
SELECT boot_val FROM pg_settings WHERE name = 'ossd.drive_startup_cost';
SELECT plan_shape('SELECT id FROM cm WHERE id < 12000') AS plan;
SET ossd.drive_startup_cost = 150;
SELECT plan_shape('SELECT id FROM cm WHERE id < 12000') AS plan;
SELECT plan_shape('SELECT id FROM cm WHERE id < 200') AS plan;
SELECT * FROM model_check('SELECT id FROM cm WHERE id < 200');
RESET ossd.drive_startup_cost;

-- ===================================================================
-- ossd.jit_above_tuples: a scan of a relation with fewer tuples asks the
-- drive for the interpreter, which finishes before the JIT would have
-- compiled a kernel the drive has not seen (10-13 ms: the kernel's
-- constants are in its instructions).  The suites pin it to 0 (always
-- the JIT); cm has 20,000 tuples
-- ===================================================================
SELECT boot_val FROM pg_settings WHERE name = 'ossd.jit_above_tuples';
SET ossd.jit_above_tuples = 50000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cm WHERE k = 3;
SELECT count(*), sum(id) FROM cm WHERE k = 3;
SET ossd.jit_above_tuples = 20000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cm WHERE k = 3;
SELECT count(*), sum(id) FROM cm WHERE k = 3;
SET ossd.kernel_mode = interpreter;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cm WHERE k = 3;
RESET ossd.kernel_mode;
RESET ossd.jit_above_tuples;

DROP TABLE cm, cm_fresh;
DROP FUNCTION model_check(text, int, float8);
DROP FUNCTION est_rows(text);
DROP FUNCTION plan_shape(text);
RESET ossd.min_relation_pages;
