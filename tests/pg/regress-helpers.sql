-- regress-helpers.sql - functions the pg_regress files of sql/ share,
-- loaded by tests/pg/run-regress.sh after setup-tpch.sql (one definition
-- instead of a copy in each file).
--
-- offload_check(q): the query's rows with offload as set now and with
-- ossd.enabled = off: their count, the scans the drive ran for the first
-- (from the drive's own counters) and whether both are the same multiset.
-- offload_same(q): the same without the drive's scan count.
CREATE FUNCTION offload_check(q text, OUT n_rows bigint, OUT drive_scans bigint,
                              OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  a text[] := '{}';
  b text[] := '{}';
  s0 bigint;
  saved text := current_setting('ossd.enabled');
BEGIN
  SELECT coalesce(sum(value), 0) INTO s0 FROM ossd_device_stats() WHERE name = 'scans';
  FOR r IN EXECUTE q LOOP
    a := a || r::text;
  END LOOP;
  SELECT coalesce(sum(value), 0) - s0 INTO drive_scans
    FROM ossd_device_stats() WHERE name = 'scans';
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
