/* pg_ossd--0.1.sql */
\echo Use "CREATE EXTENSION pg_ossd" to load this file. \quit

-- Privileges (see README.md, "Privileges").  Version 0.1 changed in place:
-- it has no released users.
--   PUBLIC                 ossd_devices(), ossd_filter(), SELECT on kernel_images
--                          (ossd_filter reads the image for the rows the host
--                          evaluates)
--   ossd_kernel_admin      and superusers: everything that names a device or
--                          changes a drive, the two views, writes to kernel_images
-- Device arguments must name a drive of an ossd tablespace or of the
-- superuser-only settings ossd.devices / ossd.default_device.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'ossd_kernel_admin') THEN
        CREATE ROLE ossd_kernel_admin NOLOGIN;
    END IF;
END
$$;

-- Images of deployed kernels: ossd_filter() runs them on the host for rows
-- the drive does not evaluate.  device: the drive named at deploy time, NULL
-- for every known drive.  nargs: the arguments ossd_filter must pass (the
-- columns the verifier saw the kernel read), NULL when it reads ctx->ncols.
CREATE TABLE kernel_images (
    name        text PRIMARY KEY,
    device      text,
    image       bytea NOT NULL,
    nargs       int4,
    deployed_at timestamptz NOT NULL DEFAULT now()
);
SELECT pg_catalog.pg_extension_config_dump('kernel_images', '');
GRANT SELECT ON kernel_images TO PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON kernel_images TO ossd_kernel_admin;

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

CREATE FUNCTION ossd_drop_kernel(name text, device text DEFAULT NULL,
                                 if_exists bool DEFAULT false)
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

-- A relation's I/O priority on the drive (docs/qos.md): 0 lowest .. 7,
-- default 4; its owner may set 0..4, a superuser any.  The functions check
-- both themselves; EXECUTE stays with PUBLIC.
CREATE FUNCTION ossd_set_priority(rel regclass, priority int4)
RETURNS int4
AS 'MODULE_PATHNAME', 'ossd_set_priority'
LANGUAGE C VOLATILE STRICT;

CREATE FUNCTION ossd_get_priority(rel regclass)
RETURNS int4
AS 'MODULE_PATHNAME', 'ossd_get_priority'
LANGUAGE C VOLATILE STRICT;

REVOKE ALL ON FUNCTION ossd_device_stats(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION ossd_deploy_kernel(text, bytea, text, bool) FROM PUBLIC;
REVOKE ALL ON FUNCTION ossd_kernels(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION ossd_drop_kernel(text, text, bool) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ossd_device_stats(text), ossd_deploy_kernel(text, bytea, text, bool),
    ossd_kernels(text), ossd_drop_kernel(text, text, bool) TO ossd_kernel_admin;
-- The views call the functions above with the caller's rights: the same
-- grants (PUBLIC has no SELECT on a new view).
GRANT SELECT ON ossd_device_statistics, ossd_deployed_kernels TO ossd_kernel_admin;
