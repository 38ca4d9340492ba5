-- regress-helpers.sql - functions the pg_regress files of sql/ share,
-- loaded by tests/pg/run-regress.sh after setup-tpch.sql (one definition
-- instead of a copy in each file).
--
-- offload_check(q): the query's rows with offload as set now and with
-- ossd.enabled = off: their count, the scans the drive ran for the first
-- (from the drive's own counters) and whether both are the same multiset.
-- offload_same(q): the same without the drive's scan count.
--
-- drive_scans counts the scans of each tablespace's storage once: a drive
-- of its own, or an array of drives (docs/arrays.md), where one scan of
-- the host is sent to every member holding some of its blocks (each
-- counting it).  So per tablespace it is the most any one of its drives
-- ran (drive_scan_delta), the same figure on one drive and on an array.
--
-- drive_scan_counts(): each drive's 'scans' counter as {uri: n} (jsonb).
CREATE FUNCTION drive_scan_counts() RETURNS jsonb
LANGUAGE sql AS $$
  SELECT coalesce(jsonb_object_agg(device, value), '{}')
    FROM ossd_device_stats() WHERE name = 'scans'
$$;
-- drive_scan_delta(before): the scans since drive_scan_counts() gave
-- before, each tablespace's drives counted once (their maximum); a drive
-- of no tablespace (ossd.devices) counts by itself.
CREATE FUNCTION drive_scan_delta(before jsonb) RETURNS bigint
LANGUAGE sql AS $$
  SELECT coalesce(sum(m), 0)::bigint FROM (
    SELECT max(n.value::float8 - coalesce((before ->> n.key)::float8, 0)) AS m
      FROM jsonb_each_text(drive_scan_counts()) n
      LEFT JOIN (SELECT DISTINCT ON (device) device, tablespace FROM ossd_devices()
                  ORDER BY device, tablespace) d ON d.device = n.key
     GROUP BY coalesce(d.tablespace, n.key)) per_tablespace
$$;
CREATE FUNCTION offload_check(q text, OUT n_rows bigint, OUT drive_scans bigint,
                              OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  a text[] := '{}';
  b text[] := '{}';
  s0 jsonb;
  saved text := current_setting('ossd.enabled');
BEGIN
  s0 := drive_scan_counts();
  FOR r IN EXECUTE q LOOP
    a := a || r::text;
  END LOOP;
  drive_scans := drive_scan_delta(s0);
  PERFORM set_config('ossd.enabled', 'off', false);
  FOR r IN EXECUTE q LOOP
    b := b || r::text;
  END LOOP;
  PERFORM set_config('ossd.enabled', saved, false);
  n_rows := cardinality(a);
  same := (SELECT array_agg(x ORDER BY x) FROM unnest(a) x) IS NOT DISTINCT FROM
          (SELECT array_agg(x ORDER BY x) FROM unnest(b) x);
END
$$;

CREATE FUNCTION offload_same(q text, OUT n_rows bigint, OUT same boolean)
LANGUAGE sql AS $$
  SELECT c.n_rows, c.same FROM offload_check(q) c
$$;
