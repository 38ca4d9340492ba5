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
