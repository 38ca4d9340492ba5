--
-- ossd_pg_regress_cases: the defects PostgreSQL's own regression SQL found
-- (tests/pg/run-pg-regress.sh), each reduced to a case.  EXPLAIN (VERBOSE,
-- COSTS OFF) shows the plan the next answer depends on; every answer is
-- given again with ossd.enabled = off, and must be the same.
--
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

-- ===================================================================
-- A cursor declared without SCROLL may fetch backward when its plan can
-- run backward (PostgreSQL decides from the plan, limit.sql relies on it).
-- The drive streams forward only, so an OssdScan run with
-- EXEC_FLAG_BACKWARD keeps the rows it returned and reads them again.
-- Before: "ERROR: cursor can only scan forward".
-- ===================================================================
CREATE TABLE prc_cur (q1 int8, q2 int8);
INSERT INTO prc_cur VALUES (123, 456), (123, 4567890123456789),
  (4567890123456789, 123), (4567890123456789, 4567890123456789),
  (4567890123456789, -4567890123456789);
VACUUM (FREEZE) prc_cur;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM prc_cur LIMIT 10;
BEGIN;
DECLARE c1 CURSOR FOR SELECT * FROM prc_cur LIMIT 10;
FETCH 1 IN c1;
FETCH BACKWARD 1 IN c1;
FETCH BACKWARD ALL IN c1;
FETCH 2 IN c1;
FETCH BACKWARD 1 IN c1;
FETCH ALL IN c1;
FETCH BACKWARD ALL IN c1;
FETCH 1 IN c1;
-- a pushed-down filter, then an aggregate on the drive, scrolled
DECLARE c2 SCROLL CURSOR FOR SELECT q2 FROM prc_cur WHERE q1 = 123;
FETCH ALL IN c2;
FETCH BACKWARD ALL IN c2;
FETCH ABSOLUTE 2 IN c2;
DECLARE c3 SCROLL CURSOR FOR SELECT count(*), sum(q2) FROM prc_cur WHERE q1 > 200;
MOVE FORWARD ALL IN c3;
FETCH BACKWARD ALL IN c3;
COMMIT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(q2) FROM prc_cur WHERE q1 > 200;
-- the same with offload off
SET ossd.enabled = off;
BEGIN;
DECLARE c1 CURSOR FOR SELECT * FROM prc_cur LIMIT 10;
FETCH 1 IN c1;
FETCH BACKWARD 1 IN c1;
FETCH BACKWARD ALL IN c1;
FETCH 2 IN c1;
FETCH BACKWARD 1 IN c1;
FETCH ALL IN c1;
FETCH BACKWARD ALL IN c1;
FETCH 1 IN c1;
DECLARE c2 SCROLL CURSOR FOR SELECT q2 FROM prc_cur WHERE q1 = 123;
FETCH ALL IN c2;
FETCH BACKWARD ALL IN c2;
FETCH ABSOLUTE 2 IN c2;
DECLARE c3 SCROLL CURSOR FOR SELECT count(*), sum(q2) FROM prc_cur WHERE q1 > 200;
MOVE FORWARD ALL IN c3;
FETCH BACKWARD ALL IN c3;
COMMIT;
RESET ossd.enabled;
RESET ossd.force_offload;

-- WHERE CURRENT OF a row fetched again from those kept rows: the scan is
-- positioned on that row's heap tuple (the kept rows carry their TIDs).
-- Before: the DELETE removed the last row the drive had returned instead
-- (portals.sql).
CREATE TABLE prc_curof (currentid int, payload text);
INSERT INTO prc_curof SELECT i, 'p' || i FROM generate_series(1, 19) i;
VACUUM (FREEZE) prc_curof;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM prc_curof;
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT * FROM prc_curof;
FETCH ABSOLUTE 12 FROM c1 \gset f12_
FETCH ABSOLUTE 8 FROM c1 \gset f8_
DELETE FROM prc_curof WHERE CURRENT OF c1
  RETURNING currentid = :f8_currentid AS deleted_the_fetched_row;
FETCH ABSOLUTE 13 FROM c1 \gset f13_
FETCH ABSOLUTE 1 FROM c1 \gset f1_
DELETE FROM prc_curof WHERE CURRENT OF c1
  RETURNING currentid = :f1_currentid AS deleted_the_fetched_row;
SELECT count(*), bool_and(currentid NOT IN (:f8_currentid, :f1_currentid)) AS others_kept
  FROM prc_curof;
ROLLBACK;
SET ossd.enabled = off;
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT * FROM prc_curof;
FETCH ABSOLUTE 12 FROM c1 \gset f12_
FETCH ABSOLUTE 8 FROM c1 \gset f8_
DELETE FROM prc_curof WHERE CURRENT OF c1
  RETURNING currentid = :f8_currentid AS deleted_the_fetched_row;
FETCH ABSOLUTE 13 FROM c1 \gset f13_
FETCH ABSOLUTE 1 FROM c1 \gset f1_
DELETE FROM prc_curof WHERE CURRENT OF c1
  RETURNING currentid = :f1_currentid AS deleted_the_fetched_row;
SELECT count(*), bool_and(currentid NOT IN (:f8_currentid, :f1_currentid)) AS others_kept
  FROM prc_curof;
ROLLBACK;
RESET ossd.enabled;
RESET ossd.force_offload;

-- ===================================================================
-- Scans left open (cursors; portals.sql opens two dozen) each hold one of
-- the backend's channel slots.  When all of them are held, the next scan
-- runs on the host, as when the drive has no slot free.  Before: it
-- waited ossd.timeout_ms for a slot of its own backend, failed, and the
-- error's cleanup crashed the backend (the connection it forgot was still
-- in use by the open cursors' streams).  Big enough that a cursor's
-- stream still holds its slot after the first rows on an array of three
-- drives too: each drive's stream fills a queue of its own (32 chunks of
-- 64 KiB), so the cursors fetch the 300-byte column too (60,000 rows were
-- once too few there, and 150,000 of one int column are, since the queue
-- holds 32 chunks rather than 8).
-- ===================================================================
CREATE TABLE prc_slots (a int, b text);
INSERT INTO prc_slots SELECT g, repeat('x', 300) FROM generate_series(1, 150000) g;
VACUUM (FREEZE) prc_slots;
-- EXPLAIN ANALYZE's line that says where the scan ran
CREATE FUNCTION prc_slot_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
  LOOP
    CONTINUE WHEN ln !~ 'Want of a Slot';
    RETURN NEXT ln;
  END LOOP;
END
$$;
SET ossd.force_offload = on;
SET ossd.timeout_ms = 5000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT a, b FROM prc_slots WHERE a > 0;
BEGIN;
DECLARE s1 CURSOR FOR SELECT a, b FROM prc_slots WHERE a > 0;
DECLARE s2 CURSOR FOR SELECT a, b FROM prc_slots WHERE a > 0;
DECLARE s3 CURSOR FOR SELECT a, b FROM prc_slots WHERE a > 0;
DECLARE s4 CURSOR FOR SELECT a, b FROM prc_slots WHERE a > 0;
DECLARE s5 CURSOR FOR SELECT a, b FROM prc_slots WHERE a > 0;
DECLARE s6 CURSOR FOR SELECT a, b FROM prc_slots WHERE a > 0;
MOVE 1 IN s1;
MOVE 1 IN s2;
MOVE 1 IN s3;
MOVE 1 IN s4;
MOVE 1 IN s5;
MOVE 1 IN s6;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(a) FROM prc_slots WHERE a > 5;
SELECT count(*), sum(a) FROM prc_slots WHERE a > 5;
SELECT * FROM prc_slot_lines('SELECT count(*), sum(a) FROM prc_slots WHERE a > 5');
MOVE FORWARD ALL IN s6;
COMMIT;
-- all slots free again: the drive scans
SELECT * FROM prc_slot_lines('SELECT count(*), sum(a) FROM prc_slots WHERE a > 5');
SET ossd.enabled = off;
SELECT count(*), sum(a) FROM prc_slots WHERE a > 5;
RESET ossd.enabled;
RESET ossd.timeout_ms;
RESET ossd.force_offload;
