-- ossd_collate: which collations let text ordering and LIKE run on the
-- drive.  The drive compares bytes, so only collations that order text
-- by its bytes qualify: "C", "POSIX", and C.UTF-8 in a UTF8 database
-- (glibc orders C.UTF-8 by code point, which is UTF-8's byte order).
SET extra_float_digits = 0;
-- what can be pushed, whatever the cost model says
SET ossd.force_offload = on;
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION coll_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    RETURN NEXT r;
  END LOOP;
END $$;
CREATE TABLE coll_t (id int4, s text) TABLESPACE ossd;
-- ASCII, Latin-1, CJK, emoji and mixed case: code point order is not
-- the order of most natural-language collations
INSERT INTO coll_t
  SELECT g, (ARRAY['apple', 'Apple', 'banana', 'Zebra', 'zebra', 'élan', 'Éclair',
                   '中文', '日本', '😀 smile', 'a_b', 'a%b', 'naïve', 'ß', 'ss'])[g % 15 + 1] || g % 7
  FROM generate_series(1, 30000) g;
VACUUM (FREEZE, ANALYZE) coll_t;
CHECKPOINT;

-- ===================================================================
-- The premise: C.UTF-8 sorts exactly as C here
-- ===================================================================
SELECT array_agg(s ORDER BY s COLLATE "C.utf8", id) = array_agg(s ORDER BY s COLLATE "C", id) AS same_order
  FROM (SELECT DISTINCT ON (s) id, s FROM coll_t ORDER BY s, id) d;

-- ===================================================================
-- Text ordering under C.UTF-8 is pushed down, as under C
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" < 'b';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" < 'b';
SELECT count(*) FROM coll_t WHERE s COLLATE "C" < 'b';
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" >= 'é' AND s COLLATE "C.utf8" < '日';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" >= 'é' AND s COLLATE "C.utf8" < '日';
SELECT count(*) FROM coll_t WHERE s COLLATE "C" >= 'é' AND s COLLATE "C" < '日';

-- ===================================================================
-- LIKE under C.UTF-8 is pushed down
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" LIKE 'a%b%';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" LIKE 'a%b%';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" LIKE '%ï%';

-- ===================================================================
-- A natural-language collation stays on the host (if the OS has one)
-- ===================================================================
SELECT count(*) > 0 AS has_en_us FROM pg_collation WHERE collname = 'en_US.utf8' \gset
\if :has_en_us
SELECT bool_or(l LIKE '%Device Filter%') AS pushed
  FROM coll_plan($$SELECT count(*) FROM coll_t WHERE s COLLATE "en_US.utf8" < 'b'$$) l;
\else
SELECT false AS pushed;
\endif

-- ===================================================================
-- The same answers with offload off
-- ===================================================================
RESET ossd.force_offload;
SET ossd.enabled = off;
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" < 'b';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" >= 'é' AND s COLLATE "C.utf8" < '日';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" LIKE 'a%b%';
SELECT count(*) FROM coll_t WHERE s COLLATE "C.utf8" LIKE '%ï%';
RESET ossd.enabled;
DROP TABLE coll_t;
DROP FUNCTION coll_plan(text);
