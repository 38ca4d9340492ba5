/* pg_ossd--0.1.sql */
\echo Use "CREATE EXTENSION pg_ossd" to load this file. \quit

-- Images of deployed kernels: ossd_filter() runs them on the host for rows
-- the drive does not evaluate.
CREATE TABLE kernel_images (
    name        text PRIMARY KEY,
    device      text NOT NULL,
    image       bytea NOT NULL,
    deployed_at timestamptz NOT NULL DEFAULT now()
);
SELECT pg_catalog.pg_extension_config_dump('kernel_images', '');

CREATE FUNCTION ossd_devices(
    OUT device text, OUT tablespace text, OUT connected bool,
    OUT capacity_bytes int8, OUT used_bytes int8, OUT free_bytes int8,
    OUT objects int8, OUT scan_workers int4, OUT firmware text, OUT profile text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ossd_devices'
LANGUAGE C VOLATILE;

CREATE FUNCTION ossd_device_stats(device text DEFAULT NULL,
    OUT device text, OUT name text, OUT value float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ossd_device_stats'
LANGUAGE C VOLATILE;

CREATE VIEW ossd_device_statistics AS SELECT * FROM ossd_device_stats();

CREATE FUNCTION ossd_deploy_kernel(name text, image bytea,
                                   device text DEFAULT NULL, replace bool DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'ossd_deploy_kernel'
LANGUAGE C VOLATILE;

CREATE FUNCTION ossd_kernels(device text DEFAULT NULL,
    OUT device text, OUT name text, OUT hash text, OUT insns int4, OUT format text,
    OUT deployed_at timestamptz, OUT verifier_log text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ossd_kernels'
LANGUAGE C VOLATILE;

CREATE VIEW ossd_deployed_kernels AS SELECT * FROM ossd_kernels();

CREATE FUNCTION ossd_drop_kernel(name text, device text DEFAULT NULL)
RETURNS bool
AS 'MODULE_PATHNAME', 'ossd_drop_kernel'
LANGUAGE C VOLATILE;

-- A deployed kernel as a predicate: ossd_filter('name', col1, col2, ...).
-- Offloaded with the scan when every argument is a column of the scanned
-- table; otherwise (and for host-side blocks) run here by the same runtime.
CREATE FUNCTION ossd_filter(name text, VARIADIC args "any")
RETURNS bool
AS 'MODULE_PATHNAME', 'ossd_filter'
LANGUAGE C STABLE PARALLEL SAFE;
