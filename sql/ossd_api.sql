-- ossd_api: pgTAP tests of pg_ossd's SQL API, GUCs and custom kernels.
-- The wrapper (tests/pg/run-regress.sh) creates test_kernels(name, image)
-- from build/examples/*.o and a malicious kernel before running this.
\set ECHO none
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

CREATE FUNCTION explain_text(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    RETURN NEXT r;
  END LOOP;
END $$;
CREATE FUNCTION error_detail(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN d;
END $$;

SET default_tablespace = ossd;
CREATE TABLE part (p_partkey int4, p_name text, p_size int4);
INSERT INTO part SELECT i, (ARRAY['forest green','lavender','green almond','navy','dark olive'])[i % 5 + 1] || ' ' || i, i % 50
  FROM generate_series(1, 20000) i;
VACUUM ANALYZE part;
CHECKPOINT;
RESET default_tablespace;

SELECT plan(52);

-- functions, views, GUCs
SELECT has_function('ossd_devices', 'ossd_devices()');
SELECT has_function('ossd_device_stats', ARRAY['text'], 'ossd_device_stats(text)');
SELECT has_function('ossd_deploy_kernel', ARRAY['text', 'bytea', 'text', 'boolean'], 'ossd_deploy_kernel(name, image, device, replace)');
SELECT has_function('ossd_drop_kernel', ARRAY['text', 'text', 'boolean'], 'ossd_drop_kernel(name, device, if_exists)');
SELECT has_function('ossd_filter', 'ossd_filter(name, VARIADIC "any")');
SELECT has_view('ossd_device_statistics', 'view ossd_device_statistics');
SELECT has_view('ossd_deployed_kernels', 'view ossd_deployed_kernels');
SELECT is(current_setting('ossd.enabled'), 'on', 'ossd.enabled defaults to on');
SELECT is(current_setting('ossd.aggregate_pushdown'), 'on', 'ossd.aggregate_pushdown defaults to on');
SELECT is(current_setting('ossd.kernel_mode'), 'jit', 'ossd.kernel_mode defaults to jit');
SELECT ok(current_setting('ossd.min_relation_pages')::int >= 0, 'ossd.min_relation_pages');
SELECT ok(current_setting('ossd.drive_page_cost')::float8 > 0, 'ossd.drive_page_cost');
SELECT is(current_setting('ossd.force_offload'), 'off', 'ossd.force_offload defaults to off');
SELECT throws_ok($$SET ossd.kernel_mode = 'gpu'$$, '22023', NULL, 'ossd.kernel_mode rejects unknown modes');

-- drives
-- (every drive of tablespace ossd: one, or the array's N, which the
-- wrapper passes as regress.ossd_drives)
SELECT is((SELECT count(*)::int FROM ossd_devices() WHERE connected AND tablespace = 'ossd'),
          coalesce(current_setting('regress.ossd_drives', true), '1')::int,
          'ossd_devices() lists the drive of tablespace ossd, connected');
SELECT ok((SELECT capacity_bytes > 0 AND objects > 0 FROM ossd_devices() LIMIT 1), 'ossd_devices() reports capacity and objects');
SELECT ok((SELECT value FROM ossd_device_statistics WHERE name = 'host_writes' LIMIT 1) > 0,
          'device statistics view shows the drive counters');
SET ossd.devices = 'nbd+unix:///?socket=/nonexistent/ossd.sock';
SELECT throws_ok($$SELECT * FROM ossd_device_stats('nbd+unix:///?socket=/nonexistent/ossd.sock')$$,
                 '08006', NULL, 'an unreachable drive is an ERROR');
SELECT matches(error_detail($$SELECT * FROM ossd_device_stats('nbd+unix:///?socket=/nonexistent/ossd.sock')$$),
               'nonexistent', 'the error detail carries the transport''s reason');
RESET ossd.devices;

-- a custom kernel compiled with clang from offload_runtime/examples
SELECT lives_ok($$SELECT ossd_deploy_kernel('q6', image) FROM test_kernels WHERE name = 'q6_filter'$$,
                'deploy the q6_filter example kernel');
SELECT lives_ok($$SELECT ossd_deploy_kernel('green', image) FROM test_kernels WHERE name = 'like_filter'$$,
                'deploy the like_filter example kernel');
-- (a row per drive: on an array, each of its drives)
SELECT is((SELECT string_agg(DISTINCT format, ',') FROM ossd_deployed_kernels WHERE name = 'q6'), 'elf', 'deployed kernels view lists q6 (ELF)');
SELECT ok((SELECT bool_and(insns > 0) FROM ossd_deployed_kernels WHERE name = 'green'), 'deployed kernels view lists green');
SELECT throws_ok($$SELECT ossd_deploy_kernel('q6', image) FROM test_kernels WHERE name = 'q6_filter'$$,
                 NULL, NULL, 'deploying an existing name without replace fails');
SELECT lives_ok($$SELECT ossd_deploy_kernel('q6', image, NULL, true) FROM test_kernels WHERE name = 'q6_filter'$$,
                'replace = true redeploys');

SET ossd.force_offload = on;
SELECT results_eq(
  $$SELECT count(*), sum(l_extendedprice * l_discount) FROM lineitem WHERE ossd_filter('q6', l_shipdate, l_discount, l_quantity)$$,
  $$SELECT count(*), sum(l_extendedprice * l_discount) FROM lineitem
     WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
       AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24$$,
  'q6 kernel on the drive = its SQL equivalent');
SELECT ok(EXISTS (SELECT 1 FROM explain_text($$SELECT count(*) FROM lineitem WHERE ossd_filter('q6', l_shipdate, l_discount, l_quantity)$$) l
                  WHERE l LIKE '%Device Kernel: q6%'), 'the q6 kernel runs on the drive');
SELECT ok(EXISTS (SELECT 1 FROM explain_text($$SELECT count(*) FROM lineitem WHERE ossd_filter('q6', l_shipdate, l_discount, l_quantity)$$) l
                  WHERE l ~ 'Blocks on Host: [1-9]'), 'and on the host for host-side blocks');
SELECT results_eq(
  $$SELECT p_partkey FROM part WHERE ossd_filter('green', p_name) ORDER BY 1$$,
  $$SELECT p_partkey FROM part WHERE p_name LIKE '%green%' ORDER BY 1$$,
  'like_filter kernel = LIKE ''%green%''');

-- kernels with constant arguments: bound on the drive once per scan
SELECT lives_ok($$SELECT ossd_deploy_kernel('between', image) FROM test_kernels WHERE name = 'numeric_between'$$,
                'deploy the numeric_between example kernel');
SELECT lives_ok($$SELECT ossd_deploy_kernel('like', image) FROM test_kernels WHERE name = 'like_pattern'$$,
                'deploy the like_pattern example kernel');
SELECT results_eq(
  $$SELECT count(*), sum(l_extendedprice) FROM lineitem WHERE ossd_filter('between', l_discount, 0.02, 0.04::numeric(15,2))$$,
  $$SELECT count(*), sum(l_extendedprice) FROM lineitem WHERE l_discount BETWEEN 0.02 AND 0.04$$,
  'numeric_between with numeric constants = BETWEEN');
SELECT ok(EXISTS (SELECT 1 FROM explain_text($$SELECT count(*) FROM lineitem WHERE ossd_filter('between', l_discount, 0.02, 0.04)$$) l
                  WHERE l LIKE '%Device Kernel: between%'), 'a kernel with constant arguments runs on the drive');
SELECT results_eq(
  $$SELECT p_partkey FROM part WHERE ossd_filter('like', p_name, 'dark%' || '1_') ORDER BY 1$$,
  $$SELECT p_partkey FROM part WHERE p_name LIKE 'dark%1_' ORDER BY 1$$,
  'like_pattern with a text constant = LIKE');
SELECT results_eq(
  $$SELECT count(*) FROM lineitem WHERE ossd_filter('between', l_discount, NULL::numeric, 0.04)$$,
  $$SELECT 0::bigint$$,
  'a NULL constant reaches the kernel as NULL');
SET ossd.enabled = off;
SELECT results_eq(
  $$SELECT count(*) FROM lineitem WHERE ossd_filter('q6', l_shipdate, l_discount, l_quantity)$$,
  $$SELECT count(*) FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
       AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24$$,
  'q6 kernel run by the host runtime = its SQL equivalent');
SELECT ok(NOT EXISTS (SELECT 1 FROM explain_text($$SELECT count(*) FROM lineitem WHERE l_quantity < 3$$) l
                      WHERE l LIKE '%OssdScan%'), 'ossd.enabled = off: no offload');
RESET ossd.enabled;

-- statement_timeout stops the drive's stream; the next scan works
SET ossd.force_offload = on;
-- (PL/pgSQL cannot trap a cancel: the ERROR line is part of the expected output)
SET statement_timeout = '5ms';
SELECT count(*) FROM lineitem a WHERE l_quantity < 100 AND l_comment NOT LIKE '%zz%' AND (SELECT count(*) FROM lineitem b WHERE b.l_tax < 1) > 0;
RESET statement_timeout;
SELECT is((SELECT count(*)::int FROM lineitem WHERE l_quantity >= 0), (SELECT count(*)::int FROM lineitem WHERE l_quantity IS NOT NULL),
          'the next offloaded scan runs normally');
SELECT ok((SELECT count(*) FROM lineitem WHERE l_quantity < 24) > 0, 'and again');
RESET ossd.force_offload;

-- a kernel that passes the verifier but faults at run time on the drive:
-- the scan fails with the drive's reason in the error detail
SELECT lives_ok($$SELECT ossd_deploy_kernel('faulty', image) FROM test_kernels WHERE name = 'faulty'$$,
                'deploy a kernel that faults at run time');
SET ossd.force_offload = on;
SELECT throws_like($$SELECT count(*) FROM part WHERE ossd_filter('faulty', p_name)$$,
                   'offloaded scan of "part" failed on drive%', 'a drive-side kernel fault is an ERROR');
SELECT matches(error_detail($$SELECT count(*) FROM part WHERE ossd_filter('faulty', p_name)$$),
               'SCAN failed', 'whose detail is the drive''s reason');
RESET ossd.force_offload;

-- a kernel that hands some rows to the host (TO_HOST): ossd_filter is NULL
-- (unknown) for them, on the drive and on the host alike; no ERROR
SELECT lives_ok($$SELECT ossd_deploy_kernel('tohost', image) FROM test_kernels WHERE name = 'tohost'$$,
                'deploy a kernel that returns TO_HOST for some rows');
SET ossd.force_offload = on;
SELECT is((SELECT count(*)::int FROM part WHERE ossd_filter('tohost', p_partkey)), 13334,
          'offloaded: the rows it hands back are dropped by WHERE, the query completes');
RESET ossd.force_offload;
SET ossd.enabled = off;
SELECT is((SELECT count(*)::int FROM part WHERE ossd_filter('tohost', p_partkey) IS NULL), 6666,
          'on the host: ossd_filter is NULL for those rows');
RESET ossd.enabled;

-- a malicious kernel is refused, quoting the verifier
SELECT throws_like($$SELECT ossd_deploy_kernel('evil', image) FROM test_kernels WHERE name = 'evil'$$,
                   '%rejected by the verifier%', 'a kernel reading outside its context is refused');
SELECT matches(error_detail($$SELECT ossd_deploy_kernel('evil', image) FROM test_kernels WHERE name = 'evil'$$),
               '^verifier: insn [0-9]+: ', 'the refusal quotes the verifier (instruction and reason)');
SELECT is((SELECT count(*)::int FROM ossd_deployed_kernels WHERE name = 'evil'), 0, 'the malicious kernel is not deployed');
SELECT throws_ok($$SELECT ossd_filter('nope', 1)$$, '42704', 'kernel "nope" is not deployed', 'unknown kernel');

-- planning rules
SELECT ok(EXISTS (SELECT 1 FROM explain_text($$SELECT count(*) FROM lineitem WHERE l_quantity < 3 AND upper(l_shipmode) = 'AIR'$$) l
                  WHERE l ~ '^ +Filter: \(upper'), 'a non-whitelisted qual stays a host filter');
SET ossd.min_relation_pages = 1000000;
SET ossd.force_offload = off;
SELECT ok(NOT EXISTS (SELECT 1 FROM explain_text($$SELECT count(*) FROM lineitem WHERE l_quantity < 3$$) l
                      WHERE l LIKE '%OssdScan%'), 'relations below ossd.min_relation_pages are not offloaded');
RESET ossd.min_relation_pages;

SELECT ok(ossd_drop_kernel('q6') AND ossd_drop_kernel('green') AND ossd_drop_kernel('faulty')
          AND ossd_drop_kernel('between') AND ossd_drop_kernel('like') AND ossd_drop_kernel('tohost'), 'ossd_drop_kernel');
SELECT * FROM finish();
