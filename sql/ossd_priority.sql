--
-- ossd_priority: a relation's I/O priority on the drive (docs/qos.md,
-- pg_ossd/ossd_priority.c).  ossd_set_priority(rel, level) sets every
-- segment of the main fork's file (ossdfs: user.ossd.priority, kept by the
-- drive with each object); ossd_get_priority reads it back.  Who may set
-- what, what has no priority, and offloaded scans of a low-priority table
-- answering as always.
--
SET default_tablespace = ossd;
SET ossd.min_relation_pages = 0;
CREATE TABLE prio_t AS SELECT i, repeat('p', 100) AS pad FROM generate_series(1, 5000) i;
CREATE INDEX prio_t_i ON prio_t (i);
CREATE VIEW prio_v AS SELECT * FROM prio_t;
CREATE TABLE prio_local (i int) TABLESPACE pg_default;
CREATE ROLE regress_ossd_prio_owner;
CREATE ROLE regress_ossd_prio_other;
VACUUM (FREEZE, ANALYZE) prio_t;

-- ===================================================================
-- Setting and reading: never set is the default, 4; a superuser may set
-- any level 0..7; the result is the number of segments set
-- ===================================================================
SELECT ossd_get_priority('prio_t');
SELECT ossd_set_priority('prio_t', 6);
SELECT ossd_get_priority('prio_t');
SELECT ossd_set_priority('prio_t_i', 7), ossd_get_priority('prio_t_i');
SELECT ossd_set_priority('prio_t', 0), ossd_get_priority('prio_t');
-- the drive counts what its scans (qos_yield*, qos_bound_hits) and its NAND
-- die and channel queues (qos_nand_*) do about priorities
SELECT DISTINCT name AS qos_counter FROM ossd_device_stats()
 WHERE name LIKE 'qos_%' ORDER BY 1;

-- ===================================================================
-- Bad input: out of range, NULL (STRICT), no storage, not on the drive
-- ===================================================================
SELECT ossd_set_priority('prio_t', 8);
SELECT ossd_set_priority('prio_t', -1);
SELECT ossd_set_priority('prio_t', NULL) IS NULL AS strict;
SELECT ossd_set_priority('prio_v', 2);
SELECT ossd_get_priority('prio_v');
SELECT ossd_set_priority('prio_local', 2);
SELECT ossd_get_priority('prio_local');

-- ===================================================================
-- Who may: the owner sets 0 to 4, above 4 takes a superuser (everyone
-- else's scans would yield); another role may not set it, may read it
-- ===================================================================
ALTER TABLE prio_t OWNER TO regress_ossd_prio_owner;
SET ROLE regress_ossd_prio_owner;
SELECT ossd_set_priority('prio_t', 1), ossd_get_priority('prio_t');
SELECT ossd_set_priority('prio_t', 4), ossd_get_priority('prio_t');
SELECT ossd_set_priority('prio_t', 5);
RESET ROLE;
SET ROLE regress_ossd_prio_other;
SELECT ossd_set_priority('prio_t', 0);
SELECT ossd_get_priority('prio_t');
RESET ROLE;
SELECT ossd_get_priority('prio_t');

-- ===================================================================
-- A low-priority table's offloaded scan answers as the host's
-- ===================================================================
SELECT ossd_set_priority('prio_t', 0);
SET ossd.force_offload = on;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), sum(i) FROM prio_t WHERE i < 1000;
SELECT count(*), sum(i) FROM prio_t WHERE i < 1000;
SET ossd.enabled = off;
SELECT count(*), sum(i) FROM prio_t WHERE i < 1000;
RESET ossd.enabled;
RESET ossd.force_offload;
RESET max_parallel_workers_per_gather;

DROP VIEW prio_v;
DROP TABLE prio_t, prio_local;
DROP ROLE regress_ossd_prio_owner, regress_ossd_prio_other;
RESET ossd.min_relation_pages;
RESET default_tablespace;
