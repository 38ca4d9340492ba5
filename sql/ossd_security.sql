-- ossd_security: who may name a drive and change its kernels.
-- The wrapper (tests/pg/run-regress.sh) runs this after ossd_api, as the
-- superuser postgres, with test_kernels(name, image) loaded and a second
-- drive registered in ossd.devices (PGOPTIONS).  Device URIs are never
-- printed: they hold temporary paths.
SET client_min_messages = notice;
-- Tablespace ossd is one drive, or an array of N drives (the wrapper's
-- OSSD_ARRAY_DRIVES, passed as regress.ossd_drives): the counts of drives
-- below count such an array once, its N - 1 more members subtracted.
SELECT coalesce(current_setting('regress.ossd_drives', true), '1')::int - 1 AS more_members \gset

--
-- setup: roles, a victim table, the drives' kernel list
--
CREATE ROLE regress_ossd_plain;
CREATE ROLE regress_ossd_exec;		-- EXECUTE granted, no write on kernel_images
CREATE ROLE regress_ossd_admin IN ROLE ossd_kernel_admin;
GRANT EXECUTE ON FUNCTION ossd_deploy_kernel(text, bytea, text, bool),
	ossd_drop_kernel(text, text, bool) TO regress_ossd_exec;
GRANT SELECT ON test_kernels TO regress_ossd_plain, regress_ossd_exec, regress_ossd_admin;
CREATE TABLE victim AS SELECT i FROM generate_series(1, 1000) i;
GRANT SELECT ON victim TO regress_ossd_plain;
CREATE TABLE victim_size AS SELECT size FROM pg_stat_file(pg_relation_filepath('victim'));

-- two drives, each backing a tablespace (ossd, ossd2), both reachable
SELECT count(*) - :more_members AS drives, count(*) FILTER (WHERE connected) - :more_members AS connected,
       count(tablespace) - :more_members AS of_tablespaces
  FROM ossd_devices();

-- a kernel "sec_owned" deployed by the administrator on every drive
SELECT length(ossd_deploy_kernel('sec_owned', image)) AS hash_len FROM test_kernels WHERE name = 'q6_filter';
CREATE TABLE kernels_before AS SELECT device, name, hash FROM ossd_kernels();
CREATE FUNCTION kernels_changed() RETURNS bool LANGUAGE sql AS $$
  SELECT EXISTS (SELECT device, name, hash FROM ossd_kernels() EXCEPT SELECT * FROM kernels_before)
      OR EXISTS (SELECT * FROM kernels_before EXCEPT SELECT device, name, hash FROM ossd_kernels())
$$;
SELECT count(DISTINCT device) - :more_members AS drives_with_sec_owned FROM kernels_before WHERE name = 'sec_owned';

--
-- device URIs from SQL: a plain role
--
SET ROLE regress_ossd_plain;
-- the table's data file as a drive image, a new file, a drive anywhere
SELECT count(*) FROM ossd_kernels('inproc:' || pg_relation_filepath('victim') || '?format=1&size=64M');
SELECT count(*) FROM ossd_device_stats('inproc:sec_attack.img?create=1&size=64M');
SELECT count(*) FROM ossd_device_stats('nbd://192.0.2.1:10809');
SELECT count(*) FROM ossd_deployed_kernels;
SELECT count(*) FROM ossd_device_statistics;
-- the settings that register drives are superuser-only
SET ossd.default_device = 'inproc:sec_attack.img?create=1&size=64M';
SET ossd.devices = 'nbd://192.0.2.1:10809';
-- ossd_devices() names no device: open to everyone, registered drives only
SELECT count(*) - :more_members AS drives FROM ossd_devices();
RESET ROLE;

--
-- device URIs from SQL: not even a superuser reaches inproc:, file: or an
-- unregistered drive
--
DO $$
BEGIN
  PERFORM ossd_kernels('inproc:' || pg_relation_filepath('victim') || '?format=1&size=64M');
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'refused: %', replace(SQLERRM, pg_relation_filepath('victim'), '<victim file>');
END $$;
SELECT count(*) FROM ossd_kernels('inproc:sec_attack.img?create=1&size=64M');
SELECT count(*) FROM ossd_device_stats('file:sec_attack.img');
SELECT ossd_deploy_kernel('sec_x', image, 'inproc:sec_attack.img?create=1') FROM test_kernels WHERE name = 'q6_filter';
SELECT ossd_drop_kernel('sec_owned', 'file:sec_attack.img');
SELECT count(*) FROM ossd_kernels('nbd://192.0.2.1:10809');
SELECT count(*) FROM ossd_kernels('bogus:whatever');
-- the registry refuses them too
SET ossd.devices = 'nbd://192.0.2.1:10809, inproc:sec_attack.img?create=1';
SET ossd.default_device = 'file:sec_attack.img';
SET ossd.devices = 'ftp://example.com/drive';
-- a drive a superuser registers can be named
SET ossd.devices = 'nbd+unix:///?socket=/nonexistent/sec.sock';
DO $$
BEGIN
  PERFORM ossd_device_stats('nbd+unix:///?socket=/nonexistent/sec.sock');
EXCEPTION WHEN others THEN
  RAISE NOTICE '% %', SQLSTATE, SQLERRM;
END $$;
RESET ossd.devices;
-- no file was created or changed, the cluster is healthy
SELECT pg_stat_file('sec_attack.img', true) IS NULL AS no_attack_file;
SELECT size = (SELECT size FROM victim_size) AS victim_unchanged
  FROM pg_stat_file(pg_relation_filepath('victim'));
SELECT count(*), sum(i) FROM victim;
SELECT kernels_changed();

--
-- kernels changed by a role without the right
--
SET ROLE regress_ossd_plain;
SELECT ossd_deploy_kernel('sec_owned', image, NULL, true) FROM test_kernels WHERE name = 'like_filter';
SELECT ossd_drop_kernel('sec_owned');
INSERT INTO kernel_images (name, image) VALUES ('sec_plain', '\x00');
DELETE FROM kernel_images WHERE name = 'sec_owned';
-- a table of the same name earlier in search_path is not the catalog
CREATE TEMP TABLE kernel_images (name text, device text, image bytea);
INSERT INTO kernel_images SELECT 'sec_temp', NULL, image FROM test_kernels WHERE name = 'like_filter';
SELECT ossd_filter('sec_temp', 'green');
DROP TABLE pg_temp.kernel_images;
RESET ROLE;
-- EXECUTE alone is not enough: refused before the drive is touched
SET ROLE regress_ossd_exec;
SELECT ossd_deploy_kernel('sec_owned', image, NULL, true) FROM test_kernels WHERE name = 'like_filter';
SELECT ossd_deploy_kernel('sec_new', image) FROM test_kernels WHERE name = 'like_filter';
SELECT ossd_drop_kernel('sec_owned');
RESET ROLE;
SELECT kernels_changed();
SELECT name, device IS NULL AS every_drive FROM kernel_images WHERE name LIKE 'sec%' ORDER BY name;

--
-- a member of ossd_kernel_admin: deploy and drop commit or fail with the
-- catalog row
--
SET ROLE regress_ossd_admin;
-- the views and the functions behind them
SELECT count(*) - :more_members AS sec_owned_drives FROM ossd_deployed_kernels WHERE name = 'sec_owned';
SELECT count(DISTINCT device) - :more_members AS drives FROM ossd_device_statistics;
SELECT ossd_deploy_kernel('sec_owned', image) FROM test_kernels WHERE name = 'like_filter';
-- rolled back: no drive keeps the new kernel, nor the replaced image
BEGIN;
SELECT length(ossd_deploy_kernel('sec_new', image)) AS hash_len FROM test_kernels WHERE name = 'like_filter';
SELECT length(ossd_deploy_kernel('sec_owned', image, NULL, true)) AS hash_len FROM test_kernels WHERE name = 'like_filter';
SELECT ossd_drop_kernel('sec_owned');
SELECT length(ossd_deploy_kernel('sec_owned', image)) AS hash_len FROM test_kernels WHERE name = 'like_filter';
ROLLBACK;
RESET ROLE;
SELECT kernels_changed();
SET ROLE regress_ossd_admin;
-- an ERROR after the drive changed undoes it too
BEGIN;
SELECT length(ossd_deploy_kernel('sec_owned', image, NULL, true)) AS hash_len FROM test_kernels WHERE name = 'like_filter';
SELECT 1 / 0;
ROLLBACK;
RESET ROLE;
SELECT kernels_changed();
SET ROLE regress_ossd_admin;
-- a rolled-back savepoint undoes its own changes only
BEGIN;
SELECT ossd_drop_kernel('sec_owned');
SAVEPOINT s;
SELECT length(ossd_deploy_kernel('sec_new', image)) AS hash_len FROM test_kernels WHERE name = 'like_filter';
ROLLBACK TO SAVEPOINT s;
SELECT length(ossd_deploy_kernel('sec_owned', image)) AS hash_len FROM test_kernels WHERE name = 'q6_filter';
COMMIT;
RESET ROLE;
SELECT count(*) FILTER (WHERE name = 'sec_new') AS sec_new, count(*) FILTER (WHERE name = 'sec_owned') - :more_members AS sec_owned
  FROM ossd_kernels();
-- deployed again from the same image: the drives hold what they held
SELECT kernels_changed();
-- committed: the drive and the catalog change together
SET ROLE regress_ossd_admin;
SELECT length(ossd_deploy_kernel('sec_new', image)) AS hash_len FROM test_kernels WHERE name = 'like_filter';
RESET ROLE;
SELECT count(DISTINCT device) - :more_members AS drives, (SELECT count(*) FROM kernel_images WHERE name = 'sec_new') AS catalog_rows
  FROM ossd_kernels() WHERE name = 'sec_new';
-- (the check sees a change when there is one)
SELECT kernels_changed();
-- PREPARE TRANSACTION cannot carry a drive change
BEGIN;
SELECT ossd_drop_kernel('sec_new');
PREPARE TRANSACTION 'sec_prepared';
SELECT count(DISTINCT device) - :more_members AS drives FROM ossd_kernels() WHERE name = 'sec_new';

--
-- NULL arguments: errors, not crashes
--
SELECT ossd_deploy_kernel('sec_null', NULL);
SELECT ossd_deploy_kernel(NULL, image) FROM test_kernels WHERE name = 'q6_filter';
SELECT ossd_deploy_kernel('sec_null', image, NULL, NULL) FROM test_kernels WHERE name = 'q6_filter';
SELECT ossd_drop_kernel(NULL);
SELECT ossd_drop_kernel('sec_new', NULL, NULL);
SELECT ossd_filter(NULL, 1);
SET ROLE regress_ossd_plain;
SELECT ossd_filter(NULL, 'green');
SELECT count(*) FROM victim WHERE ossd_filter(NULL, i);
RESET ROLE;
SELECT 1 AS still_connected;

--
-- a kernel on a drive that kernel_images does not know (ossdctl, a crash):
-- deploying over it could not be undone, dropping it happens at commit
--
SELECT length(ossd_deploy_kernel('sec_orphan', image)) AS hash_len FROM test_kernels WHERE name = 'q6_filter';
DELETE FROM kernel_images WHERE name = 'sec_orphan';
DO $$
BEGIN
  PERFORM ossd_deploy_kernel('sec_orphan', image, NULL, true) FROM test_kernels WHERE name = 'q6_filter';
EXCEPTION WHEN duplicate_object THEN
  RAISE NOTICE 'refused: %', regexp_replace(SQLERRM, 'drive "[^"]*"', 'drive "<drive>"');
END $$;
BEGIN;
SELECT ossd_drop_kernel('sec_orphan');
ROLLBACK;
SELECT count(*) - :more_members AS drives FROM ossd_kernels() WHERE name = 'sec_orphan';
SELECT ossd_drop_kernel('sec_orphan');
SELECT count(*) AS drives FROM ossd_kernels() WHERE name = 'sec_orphan';

--
-- ossd_filter passes as many arguments as the kernel reads columns
--
SELECT length(ossd_deploy_kernel('sec_q6', image)) AS hash_len FROM test_kernels WHERE name = 'q6_filter';
SELECT name, nargs FROM kernel_images WHERE name = 'sec_q6';
SELECT ossd_filter('sec_q6', date '1994-06-01', 0.06, 10.0) AS host_match,
       ossd_filter('sec_q6', date '1993-06-01', 0.06, 10.0) AS host_no_match;
SELECT ossd_filter('sec_q6', date '1994-06-01', 0.06);
SELECT ossd_filter('sec_q6', date '1994-06-01', 0.06, 10.0, 1);
-- offloaded: refused at plan time (EXPLAIN runs nothing), so a scan whose
-- blocks all go to the drive cannot run the kernel on missing columns either
SET ossd.force_offload = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM lineitem WHERE ossd_filter('sec_q6', l_shipdate, l_discount);
SELECT count(*) > 0 AS some_rows FROM lineitem WHERE ossd_filter('sec_q6', l_shipdate, l_discount, l_quantity);
RESET ossd.force_offload;
SELECT ossd_drop_kernel('sec_q6');

--
-- two drives: deploy and drop act on every known drive unless one is named
--
SELECT length(ossd_deploy_kernel('sec_one', image, (SELECT device FROM ossd_devices() WHERE tablespace = 'ossd2')))
       AS hash_len FROM test_kernels WHERE name = 'q6_filter';
SELECT count(*) FILTER (WHERE d.tablespace = 'ossd2') AS named_drive, count(*) FILTER (WHERE d.tablespace = 'ossd') AS other_drive
  FROM ossd_kernels() k JOIN ossd_devices() d USING (device) WHERE k.name = 'sec_one';
-- the one drive's kernel dropped from it: the catalog row goes with it
SELECT ossd_drop_kernel('sec_one', (SELECT device FROM ossd_devices() WHERE tablespace = 'ossd2'));
SELECT count(*) AS catalog_rows FROM kernel_images WHERE name = 'sec_one';
-- dropped from one of two drives: the catalog row stays for the other
SELECT ossd_drop_kernel('sec_new', (SELECT device FROM ossd_devices() WHERE tablespace = 'ossd2'));
SELECT count(DISTINCT device) - :more_members AS drives, (SELECT count(*) FROM kernel_images WHERE name = 'sec_new') AS catalog_rows
  FROM ossd_kernels() WHERE name = 'sec_new';
-- dropping twice
SELECT ossd_drop_kernel('sec_new');
SELECT ossd_drop_kernel('sec_new');
SELECT ossd_drop_kernel('sec_new', if_exists => true);
SELECT ossd_drop_kernel('sec_owned', if_exists => true);
SELECT count(*) AS sec_kernels_left FROM ossd_kernels() WHERE name LIKE 'sec%';
SELECT count(*) AS sec_rows_left FROM kernel_images WHERE name LIKE 'sec%';

--
-- cleanup
--
DROP FUNCTION kernels_changed();
DROP TABLE kernels_before, victim, victim_size;
REVOKE ALL ON test_kernels FROM regress_ossd_plain, regress_ossd_exec, regress_ossd_admin;
REVOKE ALL ON FUNCTION ossd_deploy_kernel(text, bytea, text, bool),
	ossd_drop_kernel(text, text, bool) FROM regress_ossd_exec;
DROP ROLE regress_ossd_plain, regress_ossd_exec, regress_ossd_admin;
