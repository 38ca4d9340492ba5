-- setup-sqlsmith.sql: tables of varied types for sqlsmith (bench/soak/sqlsmith,
-- tests/pg/run-sqlsmith.sh), on top of setup-tpch.sql, all on the ossd
-- tablespace: NULLs in every column, TOASTed and compressed text, numeric of
-- several scales with NaN and extreme values, floats with NaN, +-Infinity and
-- -0, char(n), LIKE metacharacters, infinite dates.  Deterministic: values
-- come from arithmetic on the row number.  The runner freezes and
-- checkpoints everything afterwards so that the drive scans it.
SET default_tablespace = ossd;

CREATE TABLE typed (
  id    int4 NOT NULL,
  i2    int2,
  i8    int8,
  n52   numeric(5,2),
  n3810 numeric(38,10),
  nfree numeric,
  f4    float4,
  f8    float8,
  t     text,
  c8    char(8),
  vc    varchar(20),
  b     bool,
  d     date,
  ts    timestamp,
  tstz  timestamptz,
  iv    interval,
  by    bytea
);
INSERT INTO typed
SELECT i,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 97 = 0 THEN 32767 WHEN i % 89 = 0 THEN -32768
            ELSE (i * 37 % 2000 - 1000) END,
       CASE WHEN i % 13 = 0 THEN NULL WHEN i % 101 = 0 THEN 9223372036854775807
            WHEN i % 103 = 0 THEN -9223372036854775808 ELSE i::int8 * 1000003 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ((i * 7919) % 199999 - 99999) / 100.0 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 104729) % 1000000007)::numeric / 1000003 END,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 211 = 0 THEN 'NaN'::numeric
            WHEN i % 223 = 0 THEN 1e100 WHEN i % 227 = 0 THEN -1e-100
            WHEN i % 229 = 0 THEN 0.000000000000000000001
            ELSE round((i * 31 % 5000)::numeric / 7, i % 9) END,
       CASE WHEN i % 23 = 0 THEN NULL WHEN i % 307 = 0 THEN 'NaN'::float4
            WHEN i % 311 = 0 THEN 'Infinity'::float4 WHEN i % 313 = 0 THEN '-Infinity'::float4
            WHEN i % 317 = 0 THEN '-0'::float4 ELSE (i % 1000) / 16.0 - 30 END,
       CASE WHEN i % 29 = 0 THEN NULL WHEN i % 331 = 0 THEN 'NaN'::float8
            WHEN i % 337 = 0 THEN 'Infinity'::float8 WHEN i % 347 = 0 THEN '-Infinity'::float8
            WHEN i % 349 = 0 THEN '-0'::float8 WHEN i % 353 = 0 THEN 1e308
            ELSE (i * 0.37) - 1000 END,
       CASE WHEN i % 31 = 0 THEN NULL WHEN i % 401 = 0 THEN ''
            WHEN i % 409 = 0 THEN repeat('toast' || i, 3000)
            WHEN i % 419 = 0 THEN (SELECT string_agg(md5((i * j)::text), '') FROM generate_series(1, 150) j)
            WHEN i % 5 = 0 THEN 'pct%_under' || i || E'\\back'
            ELSE 'txt ' || (i % 500) END,
       CASE WHEN i % 37 = 0 THEN NULL WHEN i % 3 = 0 THEN 'ab' ELSE 'c' || (i % 100) END,
       CASE WHEN i % 41 = 0 THEN NULL ELSE 'vc_' || (i % 250) END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE i % 3 = 0 END,
       CASE WHEN i % 47 = 0 THEN NULL WHEN i % 499 = 0 THEN 'infinity'::date
            WHEN i % 503 = 0 THEN '-infinity'::date ELSE date '1990-01-01' + i % 12000 END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE timestamp '2000-01-01' + i * interval '37 minutes' END,
       CASE WHEN i % 59 = 0 THEN NULL ELSE timestamptz '2000-01-01 00:00+00' + i * interval '1 hour' END,
       CASE WHEN i % 61 = 0 THEN NULL ELSE (i % 400) * interval '1 day' + (i % 60) * interval '1 second' END,
       CASE WHEN i % 67 = 0 THEN NULL ELSE decode(md5(i::text), 'hex') END
FROM generate_series(1, 20000) i;

-- a small table for joins, with the keys of typed's columns and NULLs
CREATE TABLE small (
  k   int4,
  k8  int8,
  n   numeric(10,2),
  f   float8,
  s   text,
  c   char(3),
  d   date
);
INSERT INTO small
SELECT CASE WHEN i % 9 = 0 THEN NULL ELSE i END, i::int8 * 1000003,
       CASE WHEN i % 8 = 0 THEN NULL ELSE i / 4.0 END,
       CASE WHEN i = 13 THEN 'NaN' WHEN i = 14 THEN '-Infinity' ELSE i * 1.5 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE 'txt ' || i END,
       (ARRAY['A','N','R','ab'])[i % 4 + 1],
       date '1992-01-01' + i * 100
FROM generate_series(1, 60) i;

-- mostly NULL, many columns (attribute offsets past a NULL bitmap)
CREATE TABLE sparse (
  id int4, a int2, b int4, c int8, d numeric, e float4, f float8, g text,
  h varchar(5), i char(2), j date, k timestamp, l bool
);
INSERT INTO sparse
SELECT g,
       CASE WHEN g % 10 = 1 THEN g % 100 END, CASE WHEN g % 10 = 2 THEN g END,
       CASE WHEN g % 10 = 3 THEN g * 7 END, CASE WHEN g % 10 = 4 THEN g / 3.0 END,
       CASE WHEN g % 10 = 5 THEN g / 2.0 END, CASE WHEN g % 10 = 6 THEN g * 0.1 END,
       CASE WHEN g % 10 = 7 THEN 'g' || g END, CASE WHEN g % 10 = 8 THEN 'h' || g % 99 END,
       CASE WHEN g % 10 = 9 THEN 'i' END, CASE WHEN g % 10 = 0 THEN date '2000-01-01' + g END,
       CASE WHEN g % 20 = 0 THEN timestamp '2001-01-01' + g * interval '1 minute' END,
       CASE WHEN g % 30 = 0 THEN g % 60 = 0 END
FROM generate_series(1, 15000) g;
