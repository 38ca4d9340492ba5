--
-- ossd_random_cases: defects found by the random differential test
-- (tests/pg/run-random-diff.sh, ossd-randq), one case each.  Every query
-- is shown with EXPLAIN (VERBOSE, COSTS OFF) -- the decision it depends
-- on -- then answered with offload forced and with offload off: the two
-- answers must be the same.
--
SET extra_float_digits = 0;
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

CREATE TABLE rc_nulls (id int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  n numeric, n2 numeric(12,2), d date, t text, c5 char(5), b bool);
INSERT INTO rc_nulls
SELECT g,
       CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 11)::int2 END,
       CASE WHEN g % 5 = 0 THEN NULL ELSE g % 13 END,
       CASE WHEN g % 3 = 0 THEN NULL ELSE g % 17 END,
       CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 19) / 4.0 END,
       CASE WHEN g % 13 = 0 THEN NULL WHEN g % 101 = 0 THEN 'NaN' ELSE (g % 23) / 8.0 END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE (g % 29)::numeric END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE (g % 31) / 100.0 END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE date '2000-01-01' + g % 37 END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE 'v' || g % 41 END,
       CASE WHEN g % 31 = 0 THEN NULL ELSE (g % 43)::text END,
       CASE WHEN g % 37 = 0 THEN NULL ELSE g % 2 = 0 END
FROM generate_series(1, 20000) g;
VACUUM (FREEZE, ANALYZE) rc_nulls;
CHECKPOINT;

-- ===================================================================
-- R1 (seed 5, query 205): a WHERE clause of many nullable IN lists.
-- Each AND/OR kept a "saw NULL" flag on the kernel's stack, and the
-- drive's verifier, which explores every path, saw the states double with
-- each flag: it rejected the kernel as "too complex" and the query failed.
-- In a WHERE clause NULL goes where FALSE goes, so no flag is needed: the
-- whole clause runs on the drive.
-- ===================================================================
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(i4) FROM rc_nulls
 WHERE i2 NOT IN (1, 2, 3) AND i4 NOT IN (1, 2, 3) AND i8 NOT IN (1, 2, 3)
   AND f4 NOT IN (1, 2, 3) AND f8 NOT IN (1, 2, 3) AND n NOT IN (1, 2, 3)
   AND n2 NOT IN (0.01, 0.02, 0.03) AND d NOT IN ('2000-01-02', '2000-01-03')
   AND t NOT IN ('v1', 'v2', 'v3') AND c5 NOT IN ('1', '2', '3')
   AND (b OR i4 IN (4, 5, 6)) AND id NOT IN (1, 2, 3);
SELECT count(*), sum(i4) FROM rc_nulls
 WHERE i2 NOT IN (1, 2, 3) AND i4 NOT IN (1, 2, 3) AND i8 NOT IN (1, 2, 3)
   AND f4 NOT IN (1, 2, 3) AND f8 NOT IN (1, 2, 3) AND n NOT IN (1, 2, 3)
   AND n2 NOT IN (0.01, 0.02, 0.03) AND d NOT IN ('2000-01-02', '2000-01-03')
   AND t NOT IN ('v1', 'v2', 'v3') AND c5 NOT IN ('1', '2', '3')
   AND (b OR i4 IN (4, 5, 6)) AND id NOT IN (1, 2, 3);
-- under NOT, NULL goes where TRUE goes: no flag either
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM rc_nulls
 WHERE NOT (i2 IN (1, 2, 3) OR i4 IN (1, 2, 3) OR i8 IN (1, 2, 3) OR f4 IN (1, 2, 3)
            OR f8 IN (1, 2, 3) OR n IN (1, 2, 3) OR n2 IN (0.01, 0.02) OR t IN ('v1', 'v2'));
SELECT count(*) FROM rc_nulls
 WHERE NOT (i2 IN (1, 2, 3) OR i4 IN (1, 2, 3) OR i8 IN (1, 2, 3) OR f4 IN (1, 2, 3)
            OR f8 IN (1, 2, 3) OR n IN (1, 2, 3) OR n2 IN (0.01, 0.02) OR t IN ('v1', 'v2'));
-- IS UNKNOWN gives NULL a label of its own: the flags stay, but every way
-- out of an AND/OR resets its flag, so that the verifier's states do not
-- multiply and the whole clause runs on the drive (it took 56 s to plan
-- while the verifier, now also run at plan time, explored the doubled
-- states until it gave up, and then the qual ran on the host)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM rc_nulls
 WHERE (i2 NOT IN (1, 2, 3) AND i4 NOT IN (1, 2, 3) AND i8 NOT IN (1, 2, 3)
        AND f4 NOT IN (1, 2, 3) AND f8 NOT IN (1, 2, 3) AND n NOT IN (1, 2, 3)
        AND n2 NOT IN (0.01, 0.02, 0.03) AND d NOT IN ('2000-01-02', '2000-01-03')
        AND t NOT IN ('v1', 'v2', 'v3') AND c5 NOT IN ('1', '2', '3')) IS UNKNOWN;
SELECT count(*) FROM rc_nulls
 WHERE (i2 NOT IN (1, 2, 3) AND i4 NOT IN (1, 2, 3) AND i8 NOT IN (1, 2, 3)
        AND f4 NOT IN (1, 2, 3) AND f8 NOT IN (1, 2, 3) AND n NOT IN (1, 2, 3)
        AND n2 NOT IN (0.01, 0.02, 0.03) AND d NOT IN ('2000-01-02', '2000-01-03')
        AND t NOT IN ('v1', 'v2', 'v3') AND c5 NOT IN ('1', '2', '3')) IS UNKNOWN;
-- nested IS UNKNOWN / IS NOT FALSE, each level with a flag of its own
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM rc_nulls
 WHERE (((((i2 IN (1, 2) AND i4 IS NOT NULL) IS UNKNOWN OR i8 IS NULL) IS NOT FALSE
        AND f4 IN (1, 2)) IS UNKNOWN OR f8 IS NULL) IS NOT FALSE AND n IN (1, 2)) IS UNKNOWN;
SELECT count(*) FROM rc_nulls
 WHERE (((((i2 IN (1, 2) AND i4 IS NOT NULL) IS UNKNOWN OR i8 IS NULL) IS NOT FALSE
        AND f4 IN (1, 2)) IS UNKNOWN OR f8 IS NULL) IS NOT FALSE AND n IN (1, 2)) IS UNKNOWN;
-- small three-valued cases keep their flags and stay on the drive
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM rc_nulls WHERE (i2 IN (1, 2) AND b) IS UNKNOWN;
SELECT count(*) FROM rc_nulls WHERE (i2 IN (1, 2) AND b) IS UNKNOWN;
SELECT count(*) FROM rc_nulls WHERE (i2 IN (1, NULL) OR NOT b) IS NOT UNKNOWN;
SET ossd.enabled = off;
SELECT count(*), sum(i4) FROM rc_nulls
 WHERE i2 NOT IN (1, 2, 3) AND i4 NOT IN (1, 2, 3) AND i8 NOT IN (1, 2, 3)
   AND f4 NOT IN (1, 2, 3) AND f8 NOT IN (1, 2, 3) AND n NOT IN (1, 2, 3)
   AND n2 NOT IN (0.01, 0.02, 0.03) AND d NOT IN ('2000-01-02', '2000-01-03')
   AND t NOT IN ('v1', 'v2', 'v3') AND c5 NOT IN ('1', '2', '3')
   AND (b OR i4 IN (4, 5, 6)) AND id NOT IN (1, 2, 3);
SELECT count(*) FROM rc_nulls
 WHERE NOT (i2 IN (1, 2, 3) OR i4 IN (1, 2, 3) OR i8 IN (1, 2, 3) OR f4 IN (1, 2, 3)
            OR f8 IN (1, 2, 3) OR n IN (1, 2, 3) OR n2 IN (0.01, 0.02) OR t IN ('v1', 'v2'));
SELECT count(*) FROM rc_nulls
 WHERE (i2 NOT IN (1, 2, 3) AND i4 NOT IN (1, 2, 3) AND i8 NOT IN (1, 2, 3)
        AND f4 NOT IN (1, 2, 3) AND f8 NOT IN (1, 2, 3) AND n NOT IN (1, 2, 3)
        AND n2 NOT IN (0.01, 0.02, 0.03) AND d NOT IN ('2000-01-02', '2000-01-03')
        AND t NOT IN ('v1', 'v2', 'v3') AND c5 NOT IN ('1', '2', '3')) IS UNKNOWN;
SELECT count(*) FROM rc_nulls
 WHERE (((((i2 IN (1, 2) AND i4 IS NOT NULL) IS UNKNOWN OR i8 IS NULL) IS NOT FALSE
        AND f4 IN (1, 2)) IS UNKNOWN OR f8 IS NULL) IS NOT FALSE AND n IN (1, 2)) IS UNKNOWN;
SELECT count(*) FROM rc_nulls WHERE (i2 IN (1, 2) AND b) IS UNKNOWN;
SELECT count(*) FROM rc_nulls WHERE (i2 IN (1, NULL) OR NOT b) IS NOT UNKNOWN;
RESET ossd.enabled;
RESET ossd.force_offload;

DROP TABLE rc_nulls;
