--
-- ossd_prepared: offloaded scans under the plan cache and in cursors.
-- PREPARE/EXECUTE with custom plans (parameters folded into constants:
-- pushed to the drive) and generic plans (Params: the host evaluates
-- them), plan_cache_mode auto switching after five executions, a plan
-- invalidated by DDL and by a tablespace move, PL/pgSQL loops running
-- offloaded queries, and cursors over offloaded scans: FETCH forward,
-- backward (SCROLL: a Material above the scan), ABSOLUTE/RELATIVE,
-- WITH HOLD across commits, MOVE, and cursors closed before their end.
-- Every answer is given again with ossd.enabled = off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql

-- ===================================================================
-- Test data (frozen and checkpointed)
-- ===================================================================
CREATE TABLE pr (id int4, k int4, n numeric(10,2), t text, d date, pad text);
INSERT INTO pr SELECT g, g % 40, (g % 500) / 4.0, 'p' || (g % 97), date '2021-01-01' + g % 365, repeat('q', 140)
  FROM generate_series(1, 10000) g;
VACUUM (FREEZE, ANALYZE) pr;
CHECKPOINT;
SET ossd.min_relation_pages = 0;

-- ===================================================================
-- Custom plans: the parameters are constants, pushed to the drive
-- ===================================================================
SET plan_cache_mode = force_custom_plan;
PREPARE pr_f(int4, numeric, text) AS
  SELECT id, k, n, t FROM pr WHERE k = $1 AND n < $2 AND t <> $3 ORDER BY id;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(8, 5, 'p1');
SET ossd.enabled = off;
EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(8, 5, 'p1');
RESET ossd.enabled;
-- a date parameter, an IN list of parameters, a LIKE pattern parameter
PREPARE pr_g(date, int4, int4, text) AS
  SELECT count(*), min(id), max(id) FROM pr WHERE d >= $1 AND k IN ($2, $3) AND t LIKE $4;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_g('2021-06-01', 3, 5, 'p1%');
EXECUTE pr_g('2021-06-01', 3, 5, 'p1%');
SET ossd.enabled = off;
EXECUTE pr_g('2021-06-01', 3, 5, 'p1%');
RESET ossd.enabled;
-- an aggregate with parameters: aggregated on the drive
PREPARE pr_a(int4) AS SELECT k, count(*), sum(n), avg(n) FROM pr WHERE id > $1 GROUP BY k ORDER BY k LIMIT 4;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_a(9000);
EXECUTE pr_a(9000);
SET ossd.enabled = off;
EXECUTE pr_a(9000);
RESET ossd.enabled;
-- NULL parameters: a comparison with NULL is never true, on the drive too
EXECUTE pr_f(NULL, 20, 'p7');
EXECUTE pr_f(7, NULL, 'p7');
EXECUTE pr_a(NULL);
SELECT * FROM offload_check($$SELECT id FROM pr WHERE k = NULL::int4$$);

-- ===================================================================
-- Generic plans: Params stay on the host, constants beside them still
-- go to the drive
-- ===================================================================
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(8, 5, 'p1');
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_a(9000);
EXECUTE pr_a(9000);
PREPARE pr_c(int4) AS SELECT id, t FROM pr WHERE k = 9 AND id < $1 ORDER BY id;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_c(400);
EXECUTE pr_c(400);
EXECUTE pr_c(0);
SET ossd.enabled = off;
EXECUTE pr_c(400);
RESET ossd.enabled;
-- the generic plan, forced onto the drive: every Param a host qual
SET ossd.force_offload = on;
DEALLOCATE pr_f;
PREPARE pr_f(int4, numeric, text) AS
  SELECT id, k, n, t FROM pr WHERE k = $1 AND n < $2 AND t <> $3 ORDER BY id;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(7, 20, 'p7');
EXECUTE pr_f(39, 3, 'x');
RESET ossd.force_offload;

-- ===================================================================
-- plan_cache_mode = auto: five custom plans, then the generic one if it
-- is not dearer; the answers stay the same across the switch
-- ===================================================================
SET plan_cache_mode = auto;
DEALLOCATE pr_c;
PREPARE pr_c(int4) AS SELECT count(*), sum(id) FROM pr WHERE k = $1 AND id > 100;
SELECT x.k, c.* FROM generate_series(1, 8) x(k),
  LATERAL (SELECT * FROM offload_check(format('EXECUTE pr_c(%s)', x.k))) c;
EXECUTE pr_c(1);
EXECUTE pr_c(2);
EXECUTE pr_c(3);
EXECUTE pr_c(4);
EXECUTE pr_c(5);
EXECUTE pr_c(6);
EXPLAIN (COSTS OFF) EXECUTE pr_c(7);
EXECUTE pr_c(7);
SET ossd.enabled = off;
EXECUTE pr_c(7);
RESET ossd.enabled;
SELECT generic_plans + custom_plans >= 7 AS counted FROM pg_prepared_statements WHERE name = 'pr_c';

-- ===================================================================
-- Invalidation: DDL, ANALYZE and a move off the drive replan
-- ===================================================================
CREATE TABLE pr_inv AS SELECT * FROM pr ORDER BY id;
VACUUM (FREEZE, ANALYZE) pr_inv;
CHECKPOINT;
SET plan_cache_mode = force_generic_plan;
PREPARE pr_i(int4) AS SELECT count(*) FROM pr_inv WHERE k = 3 AND id > $1;
EXPLAIN (COSTS OFF) EXECUTE pr_i(10);
EXECUTE pr_i(10);
-- a new column: the cached plan is rebuilt with the new descriptor
ALTER TABLE pr_inv ADD COLUMN extra int4 DEFAULT 5;
EXECUTE pr_i(10);
PREPARE pr_i2 AS SELECT extra, count(*) FROM pr_inv WHERE k = 3 GROUP BY extra;
EXECUTE pr_i2;
UPDATE pr_inv SET extra = 6 WHERE id % 100 = 3;
EXECUTE pr_i2;
SET ossd.enabled = off;
EXECUTE pr_i2;
RESET ossd.enabled;
-- a dropped column
ALTER TABLE pr_inv DROP COLUMN t;
EXECUTE pr_i(10);
EXECUTE pr_i2;
-- an index: the plan may change, the answer does not
CREATE INDEX pr_inv_k ON pr_inv (k);
EXPLAIN (COSTS OFF) EXECUTE pr_i(10);
EXECUTE pr_i(10);
DROP INDEX pr_inv_k;
-- off the drive and back
ALTER TABLE pr_inv SET TABLESPACE pg_default;
EXPLAIN (COSTS OFF) EXECUTE pr_i(10);
EXECUTE pr_i(10);
ALTER TABLE pr_inv SET TABLESPACE ossd;
VACUUM (FREEZE, ANALYZE) pr_inv;
CHECKPOINT;
EXPLAIN (COSTS OFF) EXECUTE pr_i(10);
EXECUTE pr_i(10);
DEALLOCATE pr_i;
DEALLOCATE pr_i2;
DROP TABLE pr_inv;
RESET plan_cache_mode;

-- ===================================================================
-- PL/pgSQL: queries with variables (cached plans, custom then generic),
-- dynamic SQL, a loop over an offloaded query feeding another one
-- ===================================================================
CREATE FUNCTION pr_count(kk int4, lim numeric) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM pr WHERE k = kk AND n < lim);
END
$$;
CREATE FUNCTION pr_loop() RETURNS TABLE (k int4, n_rows bigint, s numeric) LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT p.k FROM pr p WHERE p.id < 200 ORDER BY 1 LOOP
    k := r.k;
    SELECT count(*), sum(p.n) INTO n_rows, s FROM pr p WHERE p.k = r.k AND p.id > 5000;
    RETURN NEXT;
  END LOOP;
END
$$;
CREATE FUNCTION pr_dynamic(col text, v int4) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  c bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM pr WHERE %I = $1', col) INTO c USING v;
  RETURN c;
END
$$;
SELECT kk, pr_count(kk, 50) FROM generate_series(0, 11) kk;
SELECT * FROM offload_check($$SELECT kk, pr_count(kk, 50) FROM generate_series(0, 11) kk$$);
SELECT * FROM pr_loop() LIMIT 5;
SELECT * FROM offload_check($$SELECT * FROM pr_loop()$$);
SELECT pr_dynamic('k', 5), pr_dynamic('id', 5), pr_dynamic('k', 77);
SELECT * FROM offload_check($$SELECT pr_dynamic('k', g) FROM generate_series(1, 6) g$$);
-- forced: the same answers
SET ossd.force_offload = on;
SELECT * FROM offload_check($$SELECT kk, pr_count(kk, 50) FROM generate_series(0, 11) kk$$);
SELECT * FROM offload_check($$SELECT * FROM pr_loop()$$);
SELECT * FROM offload_check($$SELECT pr_dynamic('k', g) FROM generate_series(1, 6) g$$);
RESET ossd.force_offload;
-- a SQL function inlined into the caller: its qual reaches the drive
CREATE FUNCTION pr_rows(kk int4) RETURNS SETOF pr LANGUAGE sql STABLE AS $$
  SELECT * FROM pr WHERE k = kk
$$;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, n FROM pr_rows(4) WHERE id < 300;
SELECT id, n FROM pr_rows(4) WHERE id < 300 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, n FROM pr_rows(4) WHERE id < 300$$);
-- a function returning a refcursor over an offloaded query
CREATE FUNCTION pr_open(kk int4) RETURNS refcursor LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'pr_ref';
BEGIN
  OPEN c FOR SELECT id, t FROM pr WHERE k = kk AND id < 500 ORDER BY id;
  RETURN c;
END
$$;
BEGIN;
SELECT pr_open(6);
FETCH 4 FROM pr_ref;
FETCH 2 FROM pr_ref;
CLOSE pr_ref;
COMMIT;
DROP FUNCTION pr_count(int4, numeric);
DROP FUNCTION pr_loop();
DROP FUNCTION pr_dynamic(text, int4);
DROP FUNCTION pr_rows(int4);
DROP FUNCTION pr_open(int4);

-- ===================================================================
-- Cursors over offloaded scans, forced onto the drive
-- ===================================================================
SET ossd.force_offload = on;
-- an ordered cursor: forward fetches in order, across the sort
EXPLAIN (COSTS OFF) DECLARE c1 CURSOR FOR SELECT id, k FROM pr WHERE k = 11 ORDER BY id;
BEGIN;
DECLARE c1 CURSOR FOR SELECT id, k FROM pr WHERE k = 11 ORDER BY id;
FETCH 3 FROM c1;
FETCH FORWARD 2 FROM c1;
MOVE FORWARD 100 IN c1;
FETCH 3 FROM c1;
FETCH ALL FROM c1;
FETCH 1 FROM c1;
CLOSE c1;
COMMIT;
-- SCROLL over a plain offloaded scan: a Material above it (the scan does
-- not run backwards); backward, absolute and relative fetches
EXPLAIN (COSTS OFF) DECLARE c2 SCROLL CURSOR FOR SELECT id FROM pr WHERE k = 12 AND id < 2000;
BEGIN;
DECLARE c2 SCROLL CURSOR FOR SELECT id FROM pr WHERE k = 12 AND id < 2000 ORDER BY id;
FETCH LAST FROM c2;
FETCH BACKWARD 3 FROM c2;
FETCH ABSOLUTE 2 FROM c2;
FETCH RELATIVE 5 FROM c2;
FETCH RELATIVE -2 FROM c2;
FETCH PRIOR FROM c2;
FETCH FIRST FROM c2;
MOVE ABSOLUTE 0 IN c2;
FETCH NEXT FROM c2;
CLOSE c2;
COMMIT;
-- an unordered SCROLL cursor: the rows backwards are the forward rows
-- reversed (the drive's order varies, the Material keeps it)
DO $$
DECLARE
  c SCROLL CURSOR FOR SELECT id, n FROM pr WHERE k = 13 AND id < 3000;
  fwd text[] := '{}';
  bwd text[] := '{}';
  r record;
BEGIN
  OPEN c;
  LOOP
    FETCH NEXT FROM c INTO r;
    EXIT WHEN NOT FOUND;
    fwd := fwd || r::text;
  END LOOP;
  LOOP
    FETCH PRIOR FROM c INTO r;
    EXIT WHEN NOT FOUND;
    bwd := r::text || bwd;
  END LOOP;
  MOVE ABSOLUTE 10 FROM c;
  FETCH RELATIVE 0 FROM c INTO r;
  RAISE NOTICE 'rows %, backward the same: %, absolute 10 is the tenth: %', cardinality(fwd), fwd = bwd, r::text = fwd[10];
  CLOSE c;
END
$$;
-- an aggregate cursor, scrolled
BEGIN;
DECLARE c3 SCROLL CURSOR FOR SELECT k, count(*), sum(n) FROM pr WHERE id > 500 GROUP BY k ORDER BY k;
FETCH 3 FROM c3;
FETCH LAST FROM c3;
FETCH BACKWARD 2 FROM c3;
CLOSE c3;
COMMIT;
-- WITH HOLD: materialized at commit; fetched afterwards, and across a
-- change to the table (the cursor keeps its snapshot's rows)
BEGIN;
DECLARE c4 CURSOR WITH HOLD FOR SELECT id, t FROM pr WHERE k = 14 AND id < 1000 ORDER BY id;
FETCH 2 FROM c4;
COMMIT;
UPDATE pr SET t = 'changed' WHERE k = 14 AND id < 1000;
FETCH 3 FROM c4;
FETCH ALL FROM c4;
CLOSE c4;
SELECT * FROM offload_check($$SELECT id, t FROM pr WHERE k = 14 AND id < 1000$$);
-- a cursor's snapshot predates its transaction's later changes; a new
-- cursor sees them (the changed blocks are host blocks)
BEGIN;
DECLARE c5 CURSOR FOR SELECT count(*), sum(id) FROM pr WHERE k = 15;
UPDATE pr SET k = 15 WHERE k = 16 AND id < 2000;
DECLARE c6 CURSOR FOR SELECT count(*), sum(id) FROM pr WHERE k = 15;
FETCH c5;
FETCH c6;
ROLLBACK;
SELECT count(*), sum(id) FROM pr WHERE k = 15;
-- many cursors open at once, each holding a drive scan, then closed in
-- another order
BEGIN;
DECLARE m1 CURSOR FOR SELECT id FROM pr WHERE k = 21 ORDER BY id;
DECLARE m2 CURSOR FOR SELECT id FROM pr WHERE k = 22 ORDER BY id;
DECLARE m3 CURSOR FOR SELECT id FROM pr WHERE k = 23 ORDER BY id;
DECLARE m4 CURSOR FOR SELECT id FROM pr WHERE k = 24;
FETCH 1 FROM m1;
FETCH 1 FROM m2;
FETCH 1 FROM m3;
MOVE 5 IN m4;
FETCH 1 FROM m1;
CLOSE m2;
FETCH 2 FROM m3;
CLOSE m1;
CLOSE m4;
FETCH 1 FROM m3;
COMMIT;
-- a cursor closed before its end, by a LIMIT, and by ROLLBACK
BEGIN;
DECLARE c7 NO SCROLL CURSOR FOR SELECT id FROM pr WHERE k = 25;
MOVE 2 IN c7;
ROLLBACK;
SELECT count(*) FROM (SELECT id FROM pr WHERE k = 25 LIMIT 3) s;
SELECT * FROM offload_check($$SELECT id FROM pr WHERE k = 25 ORDER BY id LIMIT 3$$);
-- FOR loops over a query in PL/pgSQL (a cursor of 10 rows a fetch),
-- exiting early
DO $$
DECLARE
  r record;
  n int := 0;
  s bigint := 0;
BEGIN
  FOR r IN SELECT id FROM pr WHERE k = 26 ORDER BY id LOOP
    n := n + 1;
    s := s + r.id;
    EXIT WHEN n = 37;
  END LOOP;
  RAISE NOTICE 'first % rows, sum %', n, s;
END
$$;
SELECT count(*), sum(id) FROM (SELECT id FROM pr WHERE k = 26 ORDER BY id LIMIT 37) s;
RESET ossd.force_offload;

-- ===================================================================
-- Prepared statements in a transaction with a changing snapshot:
-- READ COMMITTED sees each statement's snapshot, REPEATABLE READ one
-- ===================================================================
SET ossd.force_offload = on;
PREPARE pr_s AS SELECT count(*), sum(id) FROM pr WHERE k = 30;
BEGIN ISOLATION LEVEL REPEATABLE READ;
EXECUTE pr_s;
UPDATE pr SET k = 30 WHERE k = 31 AND id < 500;
EXECUTE pr_s;
ROLLBACK;
EXECUTE pr_s;
BEGIN;
UPDATE pr SET k = 30 WHERE k = 31 AND id < 500;
EXECUTE pr_s;
SELECT * FROM offload_check('EXECUTE pr_s');
ROLLBACK;
EXECUTE pr_s;
DEALLOCATE pr_s;
RESET ossd.force_offload;

DEALLOCATE ALL;
RESET ossd.min_relation_pages;
DROP TABLE pr;
