-- ossd_vacuum: a table just loaded and vacuumed is offloaded at once.
-- VACUUM sets the all-visible bits of pages that stay dirty in shared
-- buffers until the next checkpoint; the scan writes such blocks out
-- itself (WAL first) and then lets the drive scan them.
SET ossd.force_offload = on;
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION vac_blocks(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF r ~ 'Blocks (on|Written)' THEN
      RETURN NEXT regexp_replace(r, '^ +', '');
    END IF;
  END LOOP;
END $$;
CREATE TABLE vac_t (id int4, v int4, pad text) TABLESPACE ossd;
INSERT INTO vac_t SELECT g, g % 100, repeat('v', 100) FROM generate_series(1, 30000) g;
VACUUM (FREEZE, ANALYZE) vac_t;
SELECT pg_relation_size('vac_t') / 8192 AS blocks;

-- no CHECKPOINT: every block still goes to the drive, dirty ones written first
CREATE TEMP TABLE first_scan AS
  SELECT * FROM vac_blocks($$SELECT count(*) FROM vac_t WHERE v < 10$$) l;
SELECT * FROM first_scan WHERE l LIKE 'Blocks on%';
SELECT bool_or(l LIKE 'Blocks Written Out%') AS wrote_some FROM first_scan;
-- the first scan wrote them out: the second finds them clean
SELECT coalesce(bool_or(l LIKE 'Blocks Written Out%'), false) AS wrote_again
  FROM vac_blocks($$SELECT count(*) FROM vac_t WHERE v < 10$$) l;
SELECT count(*) FROM vac_t WHERE v < 10;

-- blocks that are not all-visible stay on the host, written out or not
UPDATE vac_t SET v = v WHERE id % 1000 = 0;
SELECT * FROM vac_blocks($$SELECT count(*) FROM vac_t WHERE v < 10$$) l
  WHERE l NOT LIKE 'Blocks Written Out%';
SET ossd.enabled = off;
SELECT count(*) FROM vac_t WHERE v < 10;
RESET ossd.enabled;
DROP TABLE vac_t;
DROP FUNCTION vac_blocks(text);
