--
-- ossd_dml: offloaded scans inside data-modifying statements.  The target
-- of UPDATE, DELETE and MERGE is never offloaded, nor a table that carries
-- a row mark (the other tables of UPDATE ... FROM and DELETE ... USING,
-- SELECT ... FOR UPDATE/SHARE): their rows must be locked or re-checked
-- (EvalPlanQual) on the heap.  Sources that carry no row mark -- INSERT
-- ... SELECT, a subquery in FROM, a CTE's SELECT, a trigger's query --
-- are ordinary candidates.  After each statement the table's contents
-- are compared with the same statement run with ossd.enabled = off.
--
-- dml_same(dml, digest) runs dml with offload as set, takes the digest
-- query's answer (a hash of the changed table, itself an offloaded scan),
-- rolls both back, and does the same with ossd.enabled = off: the rows
-- each changed and whether the two digests agree.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql
CREATE FUNCTION dml_same(dml text, digest text, OUT n_on bigint, OUT n_off bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
  saved text := current_setting('ossd.enabled');
BEGIN
  BEGIN
    EXECUTE dml;
    GET DIAGNOSTICS n_on = ROW_COUNT;
    EXECUTE digest INTO a;
    RAISE SQLSTATE 'OSSD0';
  EXCEPTION WHEN SQLSTATE 'OSSD0' THEN
    NULL;  -- rolled back to the block's start
  END;
  PERFORM set_config('ossd.enabled', 'off', true);
  BEGIN
    EXECUTE dml;
    GET DIAGNOSTICS n_off = ROW_COUNT;
    EXECUTE digest INTO b;
    RAISE SQLSTATE 'OSSD0';
  EXCEPTION WHEN SQLSTATE 'OSSD0' THEN
    NULL;
  END;
  PERFORM set_config('ossd.enabled', saved, true);
  same := a IS NOT DISTINCT FROM b;
END
$$;
-- a table's contents as one hash (row order does not matter)
CREATE FUNCTION digest_of(tab text) RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT count(*) || '':'' || md5(string_agg(t::text, '','' ORDER BY t::text)) FROM %s t', tab)
$$;

-- ===================================================================
-- Test data: a source on the drive (frozen, checkpointed), a target
-- copied from it, a small table of keys
-- ===================================================================
CREATE TABLE dm_src (id int4, k int4, v numeric(10,2), t text, pad text);
INSERT INTO dm_src SELECT g, g % 25, (g % 400) / 8.0, 'src ' || g, repeat('s', 150)
  FROM generate_series(1, 8000) g;
CREATE TABLE dm_dst (id int4 PRIMARY KEY, k int4, v numeric(10,2), t text);
INSERT INTO dm_dst SELECT id, k, v, t FROM dm_src WHERE id % 2 = 0;
CREATE TABLE dm_keys (k int4, label text);
INSERT INTO dm_keys SELECT g, 'key ' || g FROM generate_series(0, 24, 3) g;
VACUUM (FREEZE, ANALYZE) dm_src;
VACUUM (FREEZE, ANALYZE) dm_dst;
VACUUM (FREEZE, ANALYZE) dm_keys;
CHECKPOINT;
SET ossd.min_relation_pages = 0;
SET ossd.force_offload = on;

-- ===================================================================
-- INSERT ... SELECT: the source is an ordinary candidate
-- ===================================================================
CREATE TABLE dm_ins (id int4, k int4, v numeric(10,2), t text);
EXPLAIN (VERBOSE, COSTS OFF) INSERT INTO dm_ins SELECT id, k, v, t FROM dm_src WHERE k = 3 AND id < 4000;
INSERT INTO dm_ins SELECT id, k, v, t FROM dm_src WHERE k = 3 AND id < 4000;
SELECT count(*), sum(id), sum(v), min(t), max(t) FROM dm_ins;
SELECT * FROM dml_same($$INSERT INTO dm_ins SELECT id, k, v, t FROM dm_src WHERE k = 4 AND id < 4000$$,
                       digest_of('dm_ins'));
-- an aggregate of the drive's into a summary table
CREATE TABLE dm_sum (k int4, n bigint, s numeric, lo numeric, hi numeric);
EXPLAIN (VERBOSE, COSTS OFF)
INSERT INTO dm_sum SELECT k, count(*), sum(v), min(v), max(v) FROM dm_src WHERE id > 100 GROUP BY k;
INSERT INTO dm_sum SELECT k, count(*), sum(v), min(v), max(v) FROM dm_src WHERE id > 100 GROUP BY k;
SELECT * FROM dm_sum ORDER BY k LIMIT 6;
SELECT * FROM dml_same($$INSERT INTO dm_sum SELECT k, count(*), sum(v), min(v), max(v) FROM dm_src WHERE id > 100 GROUP BY k$$,
                       digest_of('dm_sum'));
-- a join of two offloaded scans as the source
SELECT * FROM dml_same($$INSERT INTO dm_ins SELECT s.id, s.k, s.v, k.label FROM dm_src s JOIN dm_keys k USING (k) WHERE s.id < 500$$,
                       digest_of('dm_ins'));
-- INSERT ... SELECT into the table it reads: the scan's snapshot does not
-- see the rows the statement inserts
EXPLAIN (COSTS OFF) INSERT INTO dm_ins SELECT id + 10000, k, v, t FROM dm_ins WHERE k = 3;
INSERT INTO dm_ins SELECT id + 10000, k, v, t FROM dm_ins WHERE k = 3;
SELECT count(*) FILTER (WHERE id > 10000) AS copies, count(*) FILTER (WHERE id < 10000 AND k = 3) AS originals
  FROM dm_ins;
-- ON CONFLICT: the source offloaded, the arbiter index probed on the host
EXPLAIN (COSTS OFF)
INSERT INTO dm_dst SELECT id, k, v, 'new ' || id FROM dm_src WHERE id % 100 IN (0, 1)
  ON CONFLICT (id) DO UPDATE SET t = excluded.t || ' (was ' || dm_dst.t || ')';
SELECT * FROM dml_same($$INSERT INTO dm_dst SELECT id, k, v, 'new ' || id FROM dm_src WHERE id % 100 IN (0, 1)
  ON CONFLICT (id) DO UPDATE SET t = excluded.t || ' (was ' || dm_dst.t || ')'$$, digest_of('dm_dst'));
SELECT * FROM dml_same($$INSERT INTO dm_dst SELECT id, k, v, t FROM dm_src WHERE id % 100 IN (0, 1)
  ON CONFLICT DO NOTHING$$, digest_of('dm_dst'));
INSERT INTO dm_dst SELECT id, k, v, 'new ' || id FROM dm_src WHERE id % 1000 IN (0, 1)
  ON CONFLICT (id) DO UPDATE SET t = excluded.t || ' (was ' || dm_dst.t || ')';
SELECT id, t FROM dm_dst WHERE id % 1000 IN (0, 1) ORDER BY id;
-- CREATE TABLE AS and SELECT INTO from an offloaded scan
CREATE TABLE dm_ctas AS SELECT k, count(*) AS n, sum(v) AS s FROM dm_src WHERE id <= 5000 GROUP BY k;
SELECT * FROM dm_ctas ORDER BY k LIMIT 5;
SELECT * INTO dm_into FROM dm_src WHERE k = 7 AND id < 1000;
SELECT count(*), sum(id) FROM dm_into;
SET ossd.enabled = off;
SELECT (SELECT count(*) FROM dm_ctas) AS ctas_groups,
       (SELECT sum(n) FROM dm_ctas) = (SELECT count(*) FROM dm_src WHERE id <= 5000) AS ctas_complete,
       (SELECT count(*) FROM dm_into) = (SELECT count(*) FROM dm_src WHERE k = 7 AND id < 1000) AS into_complete;
RESET ossd.enabled;
DROP TABLE dm_ctas, dm_into;

-- ===================================================================
-- UPDATE ... FROM and DELETE ... USING: the target and the other
-- tables carry row marks (EvalPlanQual): none of them is offloaded.
-- A subquery in FROM is marked as a whole: its scans are candidates
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE dm_dst d SET v = s.v * 2 FROM dm_src s WHERE d.id = s.id AND s.k = 5 AND s.id < 3000;
SELECT * FROM dml_same($$UPDATE dm_dst d SET v = s.v * 2 FROM dm_src s WHERE d.id = s.id AND s.k = 5 AND s.id < 3000$$,
                       digest_of('dm_dst'));
-- the source aggregated in a subquery: offloaded under the join
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE dm_dst d SET v = a.avg_v FROM (SELECT k, avg(v) AS avg_v FROM dm_src WHERE id > 10 GROUP BY k) a
 WHERE d.k = a.k AND d.id < 200;
SELECT * FROM dml_same($$UPDATE dm_dst d SET v = a.avg_v FROM (SELECT k, avg(v) AS avg_v FROM dm_src WHERE id > 10 GROUP BY k) a
 WHERE d.k = a.k AND d.id < 200$$, digest_of('dm_dst'));
UPDATE dm_dst d SET v = a.avg_v FROM (SELECT k, avg(v) AS avg_v FROM dm_src WHERE id > 10 GROUP BY k) a
 WHERE d.k = a.k AND d.id < 200;
SELECT id, k, v FROM dm_dst WHERE id < 20 ORDER BY id;
-- a correlated subquery in SET (a SubPlan per target row)
EXPLAIN (COSTS OFF)
UPDATE dm_dst d SET t = (SELECT max(s.t) FROM dm_src s WHERE s.k = d.k AND s.id < 100) WHERE d.id < 60;
SELECT * FROM dml_same($$UPDATE dm_dst d SET t = (SELECT max(s.t) FROM dm_src s WHERE s.k = d.k AND s.id < 100) WHERE d.id < 60$$,
                       digest_of('dm_dst'));
-- an uncorrelated subquery in WHERE: an InitPlan, offloaded once
EXPLAIN (COSTS OFF)
UPDATE dm_dst SET k = -1 WHERE v > (SELECT avg(v) * 1.9 FROM dm_src WHERE k = 11);
SELECT * FROM dml_same($$UPDATE dm_dst SET k = -1 WHERE v > (SELECT avg(v) * 1.9 FROM dm_src WHERE k = 11)$$,
                       digest_of('dm_dst'));
-- DELETE ... USING, and DELETE with IN / EXISTS
EXPLAIN (COSTS OFF)
DELETE FROM dm_dst d USING dm_keys k WHERE d.k = k.k AND d.id < 1000;
SELECT * FROM dml_same($$DELETE FROM dm_dst d USING dm_keys k WHERE d.k = k.k AND d.id < 1000$$, digest_of('dm_dst'));
EXPLAIN (COSTS OFF)
DELETE FROM dm_dst WHERE id IN (SELECT id FROM dm_src WHERE k = 9 AND v < 20);
SELECT * FROM dml_same($$DELETE FROM dm_dst WHERE id IN (SELECT id FROM dm_src WHERE k = 9 AND v < 20)$$, digest_of('dm_dst'));
SELECT * FROM dml_same($$DELETE FROM dm_dst d WHERE NOT EXISTS (SELECT 1 FROM dm_src s WHERE s.id = d.id AND s.k < 20)$$,
                       digest_of('dm_dst'));
-- DELETE with a subquery in USING that aggregates on the drive
SELECT * FROM dml_same($$DELETE FROM dm_dst d USING (SELECT k, max(id) AS m FROM dm_src GROUP BY k) a
  WHERE d.k = a.k AND d.id > a.m - 200$$, digest_of('dm_dst'));

-- ===================================================================
-- RETURNING: the changed rows come back from the heap, not the drive
-- (the INSERT's in the order of its scan of dm_src, which SQL leaves open
-- and an array of drives changes: sorted)
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE dm_dst SET v = v + 1 WHERE k = 13 AND id < 600 RETURNING id, v;
UPDATE dm_dst SET v = v + 1 WHERE k = 13 AND id < 600 RETURNING id, v;
DELETE FROM dm_dst WHERE k = 14 AND id < 600 RETURNING id, k, t;
WITH c AS (INSERT INTO dm_ins SELECT id, k, v, t FROM dm_src WHERE k = 15 AND id < 300 RETURNING id, t) SELECT * FROM c ORDER BY id;
-- after the changes: the changed blocks are the host's, the rest the
-- drive's, one answer
SELECT * FROM offload_check($$SELECT id, k, v, t FROM dm_dst WHERE id < 1000$$);
SELECT * FROM offload_check($$SELECT k, count(*), sum(v) FROM dm_dst GROUP BY k$$);

-- ===================================================================
-- MERGE (PostgreSQL 15): the target is not offloaded; the source is a
-- joined relation with a row mark, not offloaded either; a subquery
-- source aggregated on the drive is
-- ===================================================================
CREATE TABLE dm_merge (id int4, k int4, v numeric(10,2), t text);
INSERT INTO dm_merge SELECT id, k, v, t FROM dm_src WHERE id % 3 = 0 AND id < 3000;
VACUUM (FREEZE, ANALYZE) dm_merge;
CHECKPOINT;
EXPLAIN (COSTS OFF)
MERGE INTO dm_merge m USING dm_src s ON m.id = s.id AND s.id < 3000
  WHEN MATCHED AND s.k = 0 THEN DELETE
  WHEN MATCHED THEN UPDATE SET v = s.v + m.v
  WHEN NOT MATCHED AND s.id < 3000 AND s.k < 3 THEN INSERT VALUES (s.id, s.k, s.v, 'merged');
SELECT * FROM dml_same($$MERGE INTO dm_merge m USING dm_src s ON m.id = s.id AND s.id < 3000
  WHEN MATCHED AND s.k = 0 THEN DELETE
  WHEN MATCHED THEN UPDATE SET v = s.v + m.v
  WHEN NOT MATCHED AND s.id < 3000 AND s.k < 3 THEN INSERT VALUES (s.id, s.k, s.v, 'merged')$$, digest_of('dm_merge'));
EXPLAIN (COSTS OFF)
MERGE INTO dm_merge m USING (SELECT k, count(*) AS n, sum(v) AS s FROM dm_src WHERE id > 50 GROUP BY k) a ON m.id = a.k
  WHEN MATCHED THEN UPDATE SET v = a.s
  WHEN NOT MATCHED THEN INSERT VALUES (a.k, a.k, a.n, 'group');
SELECT * FROM dml_same($$MERGE INTO dm_merge m USING (SELECT k, count(*) AS n, sum(v) AS s FROM dm_src WHERE id > 50 GROUP BY k) a ON m.id = a.k
  WHEN MATCHED THEN UPDATE SET v = a.s
  WHEN NOT MATCHED THEN INSERT VALUES (a.k, a.k, a.n, 'group')$$, digest_of('dm_merge'));
MERGE INTO dm_merge m USING (SELECT k, count(*) AS n, sum(v) AS s FROM dm_src WHERE id > 50 GROUP BY k) a ON m.id = a.k
  WHEN MATCHED THEN UPDATE SET v = a.s
  WHEN NOT MATCHED THEN INSERT VALUES (a.k, a.k, a.n, 'group');
SELECT id, k, v, t FROM dm_merge WHERE id < 25 ORDER BY id;
SELECT * FROM offload_check($$SELECT t, count(*), sum(v) FROM dm_merge GROUP BY t$$);
-- DO NOTHING and a source that matches nothing
SELECT * FROM dml_same($$MERGE INTO dm_merge m USING (SELECT id FROM dm_src WHERE k = 99) s ON m.id = s.id
  WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN DO NOTHING$$, digest_of('dm_merge'));

-- ===================================================================
-- Data-modifying CTEs: the DML's target never offloaded; the outer
-- query and the CTEs' SELECTs may be
-- ===================================================================
EXPLAIN (COSTS OFF)
WITH moved AS (DELETE FROM dm_dst WHERE k = 16 AND id < 2000 RETURNING *)
INSERT INTO dm_ins SELECT id, k, v, 'moved' FROM moved;
SELECT * FROM dml_same($$WITH moved AS (DELETE FROM dm_dst WHERE k = 16 AND id < 2000 RETURNING *)
INSERT INTO dm_ins SELECT id, k, v, 'moved' FROM moved$$, digest_of('dm_ins'));
-- an UPDATE fed by an offloaded aggregate, and its RETURNING joined back
-- to an offloaded scan
EXPLAIN (COSTS OFF)
WITH a AS (SELECT k, sum(v) AS s FROM dm_src WHERE id < 4000 GROUP BY k),
     u AS (UPDATE dm_dst d SET v = a.s FROM a WHERE d.k = a.k AND d.id < 100 RETURNING d.id, d.k, d.v)
SELECT u.id, u.v, s.t FROM u JOIN dm_src s ON s.id = u.id + 1 ORDER BY u.id;
WITH a AS (SELECT k, sum(v) AS s FROM dm_src WHERE id < 4000 GROUP BY k),
     u AS (UPDATE dm_dst d SET v = a.s FROM a WHERE d.k = a.k AND d.id < 100 RETURNING d.id, d.k, d.v)
SELECT u.id, u.v, s.t FROM u JOIN dm_src s ON s.id = u.id + 1 ORDER BY u.id;
SET ossd.enabled = off;
SELECT id, v FROM dm_dst WHERE id < 100 AND v <> (SELECT sum(v) FROM dm_src s WHERE s.id < 4000 AND s.k = dm_dst.k);
RESET ossd.enabled;
-- the outer query does not see the CTE's changes (one snapshot)
WITH d AS (DELETE FROM dm_ins WHERE t = 'moved' RETURNING id)
SELECT (SELECT count(*) FROM d) AS deleted, (SELECT count(*) FROM dm_ins WHERE t = 'moved') AS still_seen;
SELECT count(*) AS left_after FROM dm_ins WHERE t = 'moved';

-- ===================================================================
-- SELECT FOR UPDATE / SHARE: never offloaded, and the rows are locked
-- (their xmax is the locking transaction)
-- ===================================================================
CREATE TABLE dm_lock AS SELECT * FROM dm_src ORDER BY id;
VACUUM (FREEZE, ANALYZE) dm_lock;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM dm_lock WHERE k = 2 AND id < 400 FOR UPDATE;
EXPLAIN (COSTS OFF) SELECT id FROM dm_lock WHERE k = 2 AND id < 400 FOR NO KEY UPDATE NOWAIT;
EXPLAIN (COSTS OFF) SELECT id FROM dm_lock WHERE k = 2 AND id < 400 FOR KEY SHARE;
BEGIN;
SELECT id FROM dm_lock WHERE k = 2 AND id < 400 ORDER BY id FOR UPDATE;
SELECT count(*) AS locked_by_me FROM dm_lock WHERE xmax = pg_current_xact_id()::xid;
-- the locked rows' pages are dirty now: host blocks, the same answer
SELECT * FROM offload_check($$SELECT id, k FROM dm_lock WHERE k = 2 AND id < 2000$$);
COMMIT;
-- a locking clause in a subquery: the subquery's table is not offloaded,
-- the outer query's other table is
EXPLAIN (COSTS OFF)
SELECT s.id, l.id FROM dm_src s JOIN (SELECT id, k FROM dm_lock WHERE k = 4 FOR SHARE) l ON l.id = s.id
 WHERE s.id < 500;
SELECT * FROM offload_check($$SELECT s.id, l.id FROM dm_src s JOIN (SELECT id, k FROM dm_lock WHERE k = 4 FOR SHARE) l ON l.id = s.id
 WHERE s.id < 500$$);
-- FOR UPDATE OF one table of a join: the other is marked for reference
EXPLAIN (COSTS OFF)
SELECT l.id FROM dm_lock l JOIN dm_keys k ON k.k = l.k WHERE l.id < 100 FOR UPDATE OF k;
SELECT l.id FROM dm_lock l JOIN dm_keys k ON k.k = l.k WHERE l.id < 100 ORDER BY 1 FOR UPDATE OF k;
-- SKIP LOCKED in a queue-like pattern
BEGIN;
SELECT id FROM dm_lock WHERE k = 6 ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED;
UPDATE dm_lock SET t = 'taken' WHERE id IN (SELECT id FROM dm_lock WHERE k = 6 ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED);
SELECT id, t FROM dm_lock WHERE t = 'taken' ORDER BY id;
COMMIT;
SELECT * FROM offload_check($$SELECT id, t FROM dm_lock WHERE k = 6$$);

-- ===================================================================
-- Triggers that read the table: their queries are ordinary candidates,
-- and see the statement's changes as PostgreSQL shows them (a row
-- trigger's query sees the rows changed before it, an AFTER statement
-- trigger all of them)
-- ===================================================================
CREATE TABLE dm_trig (id int4, k int4, v int4, pad text);
INSERT INTO dm_trig SELECT g, g % 10, g, repeat('t', 150) FROM generate_series(1, 6000) g;
VACUUM (FREEZE, ANALYZE) dm_trig;
CHECKPOINT;
CREATE FUNCTION dm_trig_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT k, count(*) AS n, sum(v) AS s FROM dm_trig WHERE k IN (1, 2) GROUP BY k ORDER BY k LOOP
    RAISE NOTICE '% %: k % has % rows, sum %', TG_WHEN, TG_OP, r.k, r.n, r.s;
  END LOOP;
  RETURN NULL;
END
$$;
CREATE FUNCTION dm_trig_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- the new row's v: the number of rows of its k already there
  NEW.v := (SELECT count(*) FROM dm_trig WHERE k = NEW.k);
  RETURN NEW;
END
$$;
CREATE TRIGGER dm_trig_before BEFORE INSERT OR UPDATE OR DELETE ON dm_trig
  FOR EACH STATEMENT EXECUTE FUNCTION dm_trig_stmt();
CREATE TRIGGER dm_trig_after AFTER INSERT OR UPDATE OR DELETE ON dm_trig
  FOR EACH STATEMENT EXECUTE FUNCTION dm_trig_stmt();
CREATE TRIGGER dm_trig_row BEFORE INSERT ON dm_trig
  FOR EACH ROW EXECUTE FUNCTION dm_trig_row();
-- the trigger's query, planned as the trigger plans it
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*), sum(v) FROM dm_trig WHERE k IN (1, 2) GROUP BY k;
-- offloaded, then the same statements again with offload off: the same
-- notices, the same rows
BEGIN;
INSERT INTO dm_trig SELECT 10000 + g, 1 + g % 2, 0, 'new' FROM generate_series(1, 4) g;
UPDATE dm_trig SET v = v + 1 WHERE id % 1000 = 1;
DELETE FROM dm_trig WHERE id % 1000 = 2;
SELECT id, k, v FROM dm_trig WHERE id > 10000 ORDER BY id;
SELECT * FROM offload_check($$SELECT k, count(*), sum(v) FROM dm_trig GROUP BY k$$);
ROLLBACK;
BEGIN;
SET LOCAL ossd.enabled = off;
INSERT INTO dm_trig SELECT 10000 + g, 1 + g % 2, 0, 'new' FROM generate_series(1, 4) g;
UPDATE dm_trig SET v = v + 1 WHERE id % 1000 = 1;
DELETE FROM dm_trig WHERE id % 1000 = 2;
SELECT id, k, v FROM dm_trig WHERE id > 10000 ORDER BY id;
ROLLBACK;
DROP TABLE dm_trig;
DROP FUNCTION dm_trig_stmt();
DROP FUNCTION dm_trig_row();

-- ===================================================================
-- TRUNCATE and a new relfilenode: the scan finds the new (empty, then
-- reloaded) objects; in the truncating transaction, then after it
-- ===================================================================
CREATE TABLE dm_tr AS SELECT * FROM dm_src ORDER BY id;
VACUUM (FREEZE, ANALYZE) dm_tr;
CHECKPOINT;
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM dm_tr WHERE k = 1$$);
BEGIN;
TRUNCATE dm_tr;
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM dm_tr WHERE k = 1$$);
INSERT INTO dm_tr SELECT * FROM dm_src WHERE id <= 100;
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM dm_tr WHERE k = 1$$);
ROLLBACK;
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM dm_tr WHERE k = 1$$);
TRUNCATE dm_tr;
INSERT INTO dm_tr SELECT * FROM dm_src WHERE id % 2 = 1;
VACUUM (FREEZE, ANALYZE) dm_tr;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(id) FROM dm_tr WHERE k = 1;
SELECT count(*), sum(id) FROM dm_tr WHERE k = 1;
SELECT * FROM offload_check($$SELECT count(*), sum(id) FROM dm_tr WHERE k = 1$$);
DROP TABLE dm_tr;

-- ===================================================================
-- Savepoints: a rolled-back subtransaction's rows are invisible to
-- offloaded scans, a released one's visible
-- ===================================================================
BEGIN;
UPDATE dm_lock SET k = 100 WHERE id <= 50;
SAVEPOINT a;
UPDATE dm_lock SET k = 200 WHERE id <= 20;
SELECT * FROM offload_check($$SELECT k, count(*) FROM dm_lock WHERE k >= 100 GROUP BY k$$);
ROLLBACK TO SAVEPOINT a;
SELECT k, count(*) FROM dm_lock WHERE k >= 100 GROUP BY k ORDER BY k;
SELECT * FROM offload_check($$SELECT k, count(*) FROM dm_lock WHERE k >= 100 GROUP BY k$$);
SAVEPOINT b;
DELETE FROM dm_lock WHERE id <= 10;
RELEASE SAVEPOINT b;
SELECT k, count(*) FROM dm_lock WHERE k >= 100 GROUP BY k ORDER BY k;
SELECT * FROM offload_check($$SELECT k, count(*) FROM dm_lock WHERE k >= 100 GROUP BY k$$);
COMMIT;
SELECT * FROM offload_check($$SELECT id, k FROM dm_lock WHERE id <= 60$$);

-- ===================================================================
-- COPY (query) TO: an offloaded scan's rows written out
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, k, v FROM dm_src WHERE k = 8 AND id < 300 ORDER BY id;
COPY (SELECT id, k, v FROM dm_src WHERE k = 8 AND id < 300 ORDER BY id) TO STDOUT;
COPY (SELECT k, count(*), sum(v) FROM dm_src WHERE id < 1000 GROUP BY k ORDER BY k) TO STDOUT WITH (FORMAT csv, HEADER);
RESET ossd.force_offload;
RESET ossd.min_relation_pages;

DROP TABLE dm_src, dm_dst, dm_keys, dm_ins, dm_sum, dm_merge, dm_lock;
DROP FUNCTION dml_same(text, text);
DROP FUNCTION digest_of(text);
