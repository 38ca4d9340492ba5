--
-- ossd_sqlsmith_cases: what bench/soak/sqlsmith found, one case per
-- defect.  Each query's plan is shown (EXPLAIN (VERBOSE, COSTS OFF)) and
-- its answer is checked against offload off in the same file.
--
SET extra_float_digits = 0;
SET ossd.force_offload = on;
SET ossd.min_relation_pages = 0;

-- ===================================================================
-- S1: a drive scan ended early -- LIMIT satisfied, statement_timeout --
-- hung up on the drive while its commands were in flight, and nbdkit
-- <= 1.33.9 aborts when a client hangs up with replies queued on two of
-- its threads: the drive died for every user (sqlsmith's LIMITs and 1 s
-- statement_timeout, a few hundred queries in).  The transport now lets
-- the commands in flight finish before it drops the connection.  Many
-- early ends in a row, then the drive must still answer, right.
-- ===================================================================
SET max_parallel_workers_per_gather = 0;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT l_orderkey FROM lineitem WHERE l_note LIKE 'note%' LIMIT 1;
DO $$
BEGIN
  FOR i IN 1..30 LOOP
    PERFORM * FROM (SELECT l_orderkey FROM lineitem WHERE l_note LIKE 'note%' LIMIT 1) s;
    PERFORM * FROM (SELECT o_orderkey FROM orders WHERE o_comment LIKE 'order%' LIMIT 2) s;
  END LOOP;
END
$$;
-- statement_timeout in the middle of drive scans (pg_sleep on the host
-- makes sure the scans are still running)
SET max_parallel_workers_per_gather = 0;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM lineitem WHERE l_note LIKE 'note%' AND pg_sleep(0.0005) IS NOT NULL;
SET statement_timeout = '200ms';
SELECT count(*) FROM lineitem WHERE l_note LIKE 'note%' AND pg_sleep(0.0005) IS NOT NULL;
SELECT count(*) FROM lineitem a JOIN orders o ON o.o_orderkey = a.l_orderkey
  WHERE a.l_note LIKE 'note%' AND o.o_comment LIKE 'order%' AND pg_sleep(0.0005) IS NOT NULL;
SET statement_timeout = '350ms';
SELECT count(*) FROM lineitem WHERE l_note LIKE 'note%' AND pg_sleep(0.0005) IS NOT NULL;
SELECT count(*) FROM lineitem a JOIN orders o ON o.o_orderkey = a.l_orderkey
  WHERE a.l_note LIKE 'note%' AND o.o_comment LIKE 'order%' AND pg_sleep(0.0005) IS NOT NULL;
RESET statement_timeout;
-- the drive is still there and right
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_note LIKE 'note%';
SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_note LIKE 'note%';
SET ossd.enabled = off;
SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_note LIKE 'note%';
RESET ossd.enabled;
RESET max_parallel_workers_per_gather;
