--
-- ossd_types_more: the types and row layouts sql/ossd_types.sql does not
-- cover.  Types the drive does not evaluate (arrays, ranges, jsonb, uuid,
-- inet/cidr, bytea, money, bit/varbit, enums, domains, composites) are
-- projected by the drive and filtered on the host, beside quals on the
-- same rows that do go to the drive.  Row layouts the drive must deform
-- as the heap does: columns added with a default and not yet stored in
-- old tuples (attmissing), dropped columns still present in the tuples,
-- TOASTed values (external and compressed inline), NULL-heavy rows and
-- rows of many columns (a long null bitmap), char(n) padding.  Last, the
-- special values of numeric and float in filters and aggregates: -0,
-- NaN, numeric and float +-Infinity.
--
-- tm_check(q): whether the drive filtered (the plan has a Device
-- Filter), how many rows q returns and whether they are those of
-- ossd.enabled = off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql
CREATE FUNCTION tm_check(q text, OUT drive_filter boolean, OUT n_rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  drive_filter := false;
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ 'Device Filter' THEN
      drive_filter := true;
    END IF;
  END LOOP;
  SELECT c.n_rows, c.same INTO n_rows, same FROM offload_check(q) c;
END
$$;

-- ===================================================================
-- Types the drive does not evaluate: each filtered on the host, the
-- row's other quals on the drive; NULLs of each
-- ===================================================================
CREATE TYPE tm_mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN tm_pos AS int4 CHECK (VALUE > 0);
CREATE DOMAIN tm_code AS text CHECK (VALUE ~ '^[A-Z]{2}[0-9]+$');
CREATE TYPE tm_pair AS (a int4, b text);
CREATE TABLE tm_types (
  id    int4,
  arr   int4[],
  tarr  text[],
  r     int4range,
  dr    daterange,
  j     jsonb,
  u     uuid,
  ip    inet,
  net   cidr,
  b     bytea,
  m     money,
  bits  bit(8),
  vb    varbit,
  mood  tm_mood,
  pos   tm_pos,
  code  tm_code,
  pair  tm_pair,
  pad   text
);
INSERT INTO tm_types
SELECT g,
       CASE WHEN g % 17 = 0 THEN NULL WHEN g % 19 = 0 THEN '{}' ELSE (ARRAY[g % 10, g % 7, NULL::int4])[1:2 + g % 2] END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE ARRAY['t' || g % 5, 'u' || g % 3] END,
       CASE WHEN g % 29 = 0 THEN NULL WHEN g % 31 = 0 THEN 'empty'::int4range ELSE int4range(g % 100, g % 100 + g % 9) END,
       daterange(date '2023-01-01' + g % 300, date '2023-01-01' + g % 300 + 10),
       CASE WHEN g % 37 = 0 THEN NULL ELSE jsonb_build_object('g', g, 'k', g % 4, 'tags', jsonb_build_array(g % 3, 'x'),
                                                              'n', CASE WHEN g % 5 = 0 THEN NULL ELSE g % 5 END) END,
       md5('u' || g)::uuid,
       ('10.' || g % 4 || '.' || (g / 250) % 256 || '.' || g % 250)::inet,
       ('10.' || g % 4 || '.0.0/16')::cidr,
       CASE WHEN g % 41 = 0 THEN NULL ELSE decode(lpad(to_hex(g * 2654435761 % 4294967296), 8, '0'), 'hex') END,
       (g % 1000 - 500) / 4.0,
       (g % 256)::bit(8),
       CASE WHEN g % 43 = 0 THEN NULL ELSE (g % 64)::bit(6)::varbit END,
       CASE WHEN g % 47 = 0 THEN NULL ELSE (ARRAY['sad', 'ok', 'happy'])[g % 3 + 1]::tm_mood END,
       g % 50 + 1,
       'AB' || g % 100,
       CASE WHEN g % 53 = 0 THEN NULL ELSE ROW(g % 6, 'p' || g % 4)::tm_pair END,
       repeat('t', 40)
  FROM generate_series(1, 8000) g;
VACUUM (FREEZE, ANALYZE) tm_types;
CHECKPOINT;
SET ossd.force_offload = on;
-- projection of every type, the int4 filter on the drive
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM tm_types WHERE id < 3;
SELECT id, arr, tarr, r, dr, j, u, ip, net, b, m, bits, vb, mood, pos, code, pair FROM tm_types WHERE id < 3 ORDER BY id;
SELECT * FROM offload_check($$SELECT * FROM tm_types WHERE id % 10 = 3$$);
-- a filter on each type: host Filter, the id qual as Device Filter
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_types WHERE arr @> ARRAY[3] AND id > 100;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_types WHERE mood = 'happy' AND pos > 40;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM tm_types WHERE arr @> ARRAY[3] AND id > 100'),
  ('SELECT id FROM tm_types WHERE arr = ''{}'''),
  ('SELECT id FROM tm_types WHERE arr IS NULL'),
  ('SELECT id FROM tm_types WHERE arr[2] = 4 AND id < 5000'),
  ('SELECT id FROM tm_types WHERE cardinality(arr) = 3'),
  ('SELECT id FROM tm_types WHERE 7 = ANY (arr)'),
  ('SELECT id FROM tm_types WHERE tarr && ARRAY[''t1'', ''u2'']'),
  ('SELECT id FROM tm_types WHERE r @> 50'),
  ('SELECT id FROM tm_types WHERE isempty(r)'),
  ('SELECT id FROM tm_types WHERE r && int4range(10, 12) AND id % 2 = 0'),
  ('SELECT id FROM tm_types WHERE dr @> date ''2023-05-01'''),
  ('SELECT id FROM tm_types WHERE upper(dr) - lower(dr) = 10 AND id < 30'),
  ('SELECT id FROM tm_types WHERE j @> ''{"k": 2}'''),
  ('SELECT id FROM tm_types WHERE j ? ''n'' AND j ->> ''n'' IS NULL'),
  ('SELECT id FROM tm_types WHERE (j -> ''n'') = ''null''::jsonb'),
  ('SELECT id FROM tm_types WHERE (j ->> ''g'')::int4 BETWEEN 100 AND 120'),
  ('SELECT id FROM tm_types WHERE j @? ''$.tags[*] ? (@ == 2)'''),
  ('SELECT id FROM tm_types WHERE u < ''10000000-0000-0000-0000-000000000000'''),
  ('SELECT id FROM tm_types WHERE u = md5(''u77'')::uuid'),
  ('SELECT id FROM tm_types WHERE ip << ''10.2.3.0/24'''),
  ('SELECT id FROM tm_types WHERE net = ''10.1.0.0/16'' AND id < 100'),
  ('SELECT id FROM tm_types WHERE host(ip) LIKE ''10.3.1.%'''),
  ('SELECT id FROM tm_types WHERE b < ''\x10'''),
  ('SELECT id FROM tm_types WHERE get_byte(b, 3) = 0'),
  ('SELECT id FROM tm_types WHERE m > 120::money'),
  ('SELECT id FROM tm_types WHERE m = 0::money'),
  ('SELECT id FROM tm_types WHERE bits & B''00000011'' = B''00000011'''),
  ('SELECT id FROM tm_types WHERE vb = B''101010'''),
  ('SELECT id FROM tm_types WHERE length(vb) = 6 AND vb > B''11'''),
  ('SELECT id FROM tm_types WHERE mood = ''happy'' AND pos > 40'),
  ('SELECT id FROM tm_types WHERE mood > ''sad'''),
  ('SELECT id FROM tm_types WHERE mood IS NULL'),
  ('SELECT id FROM tm_types WHERE pos = 7'),
  ('SELECT id FROM tm_types WHERE pos::int4 = 7'),
  ('SELECT id FROM tm_types WHERE code = ''AB42'''),
  ('SELECT id FROM tm_types WHERE code LIKE ''AB9%'''),
  ('SELECT id FROM tm_types WHERE pair = ROW(3, ''p1'')::tm_pair'),
  ('SELECT id FROM tm_types WHERE (pair).a = 5 AND (pair).b = ''p3'''),
  ('SELECT id FROM tm_types WHERE pair IS NULL'),
  ('SELECT id FROM tm_types WHERE pair IS NOT NULL AND (pair).a IS NULL')
) v(q), LATERAL tm_check(v.q) c;
-- a qual on a domain column stays on the host: the drive is told the
-- column's own type, the domain, which it does not know (a domain over
-- text was compiled for the drive and refused by it: "binding 0: attnum
-- 16 has unsupported type")
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_types WHERE code = 'AB42';
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_types WHERE pos = 7;
-- aggregates over these types are host aggregates, grouped by them too
SELECT v.q, c.* FROM (VALUES
  ('SELECT mood, count(*) FROM tm_types GROUP BY mood'),
  ('SELECT net, count(*), min(ip), max(ip) FROM tm_types GROUP BY net'),
  ('SELECT (j ->> ''k''), count(*) FROM tm_types GROUP BY 1'),
  ('SELECT pos, sum(m) FROM tm_types WHERE pos < 5 GROUP BY pos'),
  ('SELECT array_agg(id ORDER BY id) FROM tm_types WHERE arr = ''{}'''),
  ('SELECT bit_or(bits), bit_and(bits) FROM tm_types WHERE id < 100'),
  ('SELECT range_agg(r) FROM tm_types WHERE id < 50'),
  ('SELECT jsonb_agg(j ORDER BY id) FROM tm_types WHERE id < 10'),
  ('SELECT pair, count(*) FROM tm_types GROUP BY pair')
) v(q), LATERAL offload_check(v.q) c;
SELECT mood, count(*) FROM tm_types GROUP BY mood ORDER BY mood NULLS FIRST;
-- a domain's CHECK is enforced on insert, whatever the tablespace
INSERT INTO tm_types (id, pos) VALUES (-1, 0);
INSERT INTO tm_types (id, code) VALUES (-1, 'bad');
DROP TABLE tm_types;

-- ===================================================================
-- Added columns: ADD COLUMN with a constant default stores nothing in
-- the existing tuples (pg_attribute.attmissingval); the drive must give
-- those rows the default, as heap_getattr does.  Later rows, updates
-- (new tuples with the column) and a second ADD COLUMN mix tuples of
-- three widths in one table.  A volatile default rewrites the table.
-- ===================================================================
CREATE TABLE tm_add (id int4, a int4, pad text);
INSERT INTO tm_add SELECT g, g % 10, repeat('a', 60) FROM generate_series(1, 6000) g;
ALTER TABLE tm_add ADD COLUMN c1 int4 DEFAULT 42;
ALTER TABLE tm_add ADD COLUMN t1 text DEFAULT 'dflt';
ALTER TABLE tm_add ADD COLUMN n1 numeric(8,2) DEFAULT 1.5;
ALTER TABLE tm_add ADD COLUMN d1 date DEFAULT date '2024-02-29';
ALTER TABLE tm_add ADD COLUMN z1 int4;
SELECT attname, atthasmissing, attmissingval FROM pg_attribute
 WHERE attrelid = 'tm_add'::regclass AND attnum > 0 ORDER BY attnum;
INSERT INTO tm_add SELECT g, g % 10, repeat('b', 60), g % 5, 'new', g / 100.0, date '2024-01-01' + g % 30, g
  FROM generate_series(6001, 9000) g;
UPDATE tm_add SET c1 = 7, t1 = 'upd' WHERE id % 100 = 0 AND id <= 6000;
VACUUM (FREEZE, ANALYZE) tm_add;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, c1, t1 FROM tm_add WHERE c1 = 42 AND id > 5990;
SELECT id, c1, t1, n1, d1, z1 FROM tm_add WHERE c1 = 42 AND id > 5990 ORDER BY id;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM tm_add WHERE c1 = 42'),
  ('SELECT id FROM tm_add WHERE c1 <> 42'),
  ('SELECT id FROM tm_add WHERE c1 < 5'),
  ('SELECT id FROM tm_add WHERE t1 = ''dflt'''),
  ('SELECT id FROM tm_add WHERE t1 > ''n'''),
  ('SELECT id FROM tm_add WHERE n1 = 1.5'),
  ('SELECT id FROM tm_add WHERE n1 > 80'),
  ('SELECT id FROM tm_add WHERE d1 = date ''2024-02-29'''),
  ('SELECT id FROM tm_add WHERE d1 < date ''2024-01-05'''),
  ('SELECT id FROM tm_add WHERE z1 IS NULL'),
  ('SELECT id FROM tm_add WHERE z1 IS NOT NULL AND z1 < 6100'),
  ('SELECT id, c1, t1, n1, d1, z1 FROM tm_add WHERE a = 3'),
  ('SELECT id FROM tm_add WHERE c1 = 42 AND t1 = ''dflt'' AND a = 1')
) v(q), LATERAL tm_check(v.q) c;
-- aggregates over the missing values on the drive
SELECT * FROM offload_check($$SELECT c1, count(*), sum(n1), min(d1), max(t1) FROM tm_add GROUP BY c1$$);
SELECT c1, count(*), sum(n1), min(d1), max(t1) FROM tm_add GROUP BY c1 ORDER BY c1;
-- the default changed afterwards: old tuples keep the first default
-- (attmissingval), new rows get the new one
ALTER TABLE tm_add ALTER COLUMN c1 SET DEFAULT 99;
INSERT INTO tm_add (id, a) VALUES (9001, 1), (9002, 2);
SELECT c1, count(*) FROM tm_add GROUP BY c1 ORDER BY c1;
SELECT * FROM offload_check($$SELECT id, c1 FROM tm_add WHERE c1 IN (42, 99)$$);
-- a volatile default: the table is rewritten (no attmissing)
ALTER TABLE tm_add ADD COLUMN v1 int4 DEFAULT (random() * 0)::int4;
SELECT atthasmissing FROM pg_attribute WHERE attrelid = 'tm_add'::regclass AND attname = 'v1';
VACUUM (FREEZE, ANALYZE) tm_add;
CHECKPOINT;
SELECT * FROM offload_check($$SELECT id FROM tm_add WHERE v1 = 0 AND c1 = 42$$);
DROP TABLE tm_add;

-- ===================================================================
-- Dropped columns: still in every tuple (attisdropped), skipped when
-- deformed; the drive's column offsets after them must be the heap's.
-- Dropped columns of fixed and variable width, before, between and
-- after the queried ones, and a column added after a drop
-- ===================================================================
CREATE TABLE tm_drop (x1 int8, id int4, x2 text, a numeric(10,2), x3 int2, t text, x4 timestamp, b int4);
INSERT INTO tm_drop SELECT g * 3, g, repeat('x', g % 50), g * 0.5, (g % 300)::int2, 'v' || g % 13,
       timestamp '2020-01-01' + g * interval '1 minute', g % 17
  FROM generate_series(1, 7000) g;
ALTER TABLE tm_drop DROP COLUMN x1;
ALTER TABLE tm_drop DROP COLUMN x2;
ALTER TABLE tm_drop DROP COLUMN x3;
ALTER TABLE tm_drop ADD COLUMN late int4 DEFAULT 5;
ALTER TABLE tm_drop DROP COLUMN x4;
INSERT INTO tm_drop (id, a, t, b, late) SELECT g, g * 0.5, 'w' || g % 13, g % 17, g % 3 FROM generate_series(7001, 8000) g;
VACUUM (FREEZE, ANALYZE) tm_drop;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, a, t FROM tm_drop WHERE b = 3 AND t = 'v3';
SELECT id, a, t, b, late FROM tm_drop WHERE b = 3 AND t = 'v3' AND id < 400 ORDER BY id;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id, a, t FROM tm_drop WHERE b = 3 AND t = ''v3'''),
  ('SELECT id FROM tm_drop WHERE a > 3000'),
  ('SELECT * FROM tm_drop WHERE t LIKE ''w1%'''),
  ('SELECT id FROM tm_drop WHERE late = 5'),
  ('SELECT id FROM tm_drop WHERE late < 2 AND b > 10'),
  ('SELECT b, count(*), sum(a), min(t), max(late) FROM tm_drop GROUP BY b')
) v(q), LATERAL tm_check(v.q) c;
SELECT * FROM tm_drop WHERE id IN (1, 6999, 7001, 8000) ORDER BY id;
DROP TABLE tm_drop;

-- ===================================================================
-- TOAST: values stored out of line (external, incompressible), values
-- compressed inline, and short ones in one column; the drive cannot
-- read the TOAST table, so rows it cannot decide go to the host
-- (Host Rows from Drive), and the answers are the heap's
-- ===================================================================
CREATE TABLE tm_toast (id int4, k int4, big text, cmp text, small text);
ALTER TABLE tm_toast ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO tm_toast SELECT g, g % 5,
       CASE WHEN g % 4 = 0 THEN (SELECT string_agg(md5(g::text || x::text), '') FROM generate_series(1, 80) x)
            ELSE 'short' || g END,
       CASE WHEN g % 3 = 0 THEN repeat('abc' || g % 7, 2000) ELSE 'c' || g END,
       'S' || g % 9
  FROM generate_series(1, 1200) g;
VACUUM (FREEZE, ANALYZE) tm_toast;
CHECKPOINT;
SELECT count(*) FILTER (WHERE pg_column_size(big) < length(big)) AS big_compressed,
       count(*) FILTER (WHERE length(big) > 2000) AS big_long,
       count(*) FILTER (WHERE pg_column_size(cmp) < length(cmp)) AS cmp_compressed
  FROM tm_toast;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_toast WHERE big LIKE 'short1%' AND k = 1;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM tm_toast WHERE big LIKE ''short1%'' AND k = 1'),
  ('SELECT id FROM tm_toast WHERE big > ''e'''),
  ('SELECT id FROM tm_toast WHERE big = ''short7'''),
  ('SELECT id, length(big) FROM tm_toast WHERE length(big) > 2000 AND k = 2'),
  ('SELECT id FROM tm_toast WHERE cmp LIKE ''abc3%'''),
  ('SELECT id FROM tm_toast WHERE cmp = repeat(''abc5'', 2000)'),
  ('SELECT id FROM tm_toast WHERE cmp < ''c2'''),
  ('SELECT id, md5(big), md5(cmp) FROM tm_toast WHERE small = ''S4'''),
  ('SELECT k, count(*), max(length(big)), min(cmp) FROM tm_toast GROUP BY k'),
  ('SELECT k, min(big), max(small) FROM tm_toast GROUP BY k')
) v(q), LATERAL tm_check(v.q) c;
SELECT * FROM offload_check($$SELECT * FROM tm_toast WHERE k = 3$$);
DROP TABLE tm_toast;

-- ===================================================================
-- Wide and NULL-heavy rows: 120 columns (a null bitmap of 15 bytes),
-- most of them NULL in most rows; filters and aggregates on columns at
-- the start, in the middle and at the end of the row.  The drive returns
-- at most 32 columns of a row: a scan that needs more (SELECT *) stays a
-- Seq Scan (it was offloaded, and the drive refused it: "121 projected
-- columns (max 32)")
-- ===================================================================
DO $$
DECLARE
  cols text := '';
  vals text := '';
BEGIN
  FOR i IN 1 .. 120 LOOP
    cols := cols || format(', c%s %s', i, CASE i % 4 WHEN 0 THEN 'text' WHEN 1 THEN 'int4'
                                                    WHEN 2 THEN 'numeric(8,2)' ELSE 'int8' END);
    vals := vals || format(', CASE WHEN g %% %s = 0 THEN %s END', i % 7 + 2,
                           CASE i % 4 WHEN 0 THEN format('''t%s_'' || g %% 10', i) WHEN 1 THEN format('g %% %s', i + 3)
                                      WHEN 2 THEN format('(g %% 100) / 4.0 + %s', i) ELSE format('g::int8 * %s', i) END);
  END LOOP;
  EXECUTE 'CREATE TABLE tm_wide (id int4' || cols || ')';
  EXECUTE 'INSERT INTO tm_wide SELECT g' || vals || ' FROM generate_series(1, 3000) g';
END
$$;
VACUUM (FREEZE, ANALYZE) tm_wide;
CHECKPOINT;
SELECT count(*) AS columns FROM pg_attribute WHERE attrelid = 'tm_wide'::regclass AND attnum > 0;
SELECT count(*) AS rows, count(c1) AS c1, count(c60) AS c60, count(c117) AS c117, count(c120) AS c120 FROM tm_wide;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, c117, c120 FROM tm_wide WHERE c117 > 100 AND c120 IS NOT NULL;
EXPLAIN (COSTS OFF) SELECT * FROM tm_wide WHERE id % 97 = 0;
-- 32 columns fit, 33 do not; columns only in the Device Filter do not count
EXPLAIN (COSTS OFF) SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20,
  c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, id FROM tm_wide WHERE c117 > 100 AND c120 IS NOT NULL;
EXPLAIN (COSTS OFF) SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20,
  c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, id FROM tm_wide WHERE c117 > 100;
EXPLAIN (COSTS OFF) SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20,
  c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, id FROM tm_wide WHERE c117 % 7 = 0;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id, c117, c120 FROM tm_wide WHERE c117 > 100 AND c120 IS NOT NULL'),
  ('SELECT id FROM tm_wide WHERE c1 = 0'),
  ('SELECT id FROM tm_wide WHERE c1 IS NULL AND c2 IS NULL AND c3 IS NULL'),
  ('SELECT id, c60 FROM tm_wide WHERE c60 LIKE ''t60_4'''),
  ('SELECT id FROM tm_wide WHERE c58 > 40 OR c119 < 500'),
  ('SELECT id FROM tm_wide WHERE c97 = 0 AND c98 > 30'),
  ('SELECT id FROM tm_wide WHERE c120 IS NULL AND c119 IS NOT NULL'),
  ('SELECT * FROM tm_wide WHERE id % 97 = 0'),
  ('SELECT count(*), count(c99), sum(c99), sum(c102), min(c120), max(c117) FROM tm_wide'),
  ('SELECT c113, count(*), sum(c114), avg(c115) FROM tm_wide GROUP BY c113'),
  ('SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20,
     c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, id FROM tm_wide WHERE c117 > 100 AND c120 IS NOT NULL'),
  ('SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20,
     c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, id FROM tm_wide WHERE c117 > 100')
) v(q), LATERAL tm_check(v.q) c;
-- aggregates over more than 32 columns of the row
SELECT * FROM offload_check($$SELECT c5, count(c1), count(c2), count(c3), count(c4), count(c6), count(c7), count(c8),
  count(c9), count(c10), count(c11), count(c12), count(c13), count(c14), count(c15), count(c16), count(c17),
  count(c18), count(c19), count(c20), count(c21), count(c22), count(c23), count(c24), count(c25), count(c26),
  count(c27), count(c28), count(c29), count(c30), count(c31), count(c32), count(c33), count(c34) FROM tm_wide GROUP BY c5$$);
SELECT * FROM offload_check($$SELECT sum(c1), sum(c3), sum(c5), sum(c7), sum(c9), sum(c11), sum(c13), sum(c15), sum(c17),
  sum(c19), sum(c21), sum(c23), sum(c25), sum(c27), sum(c29), sum(c31), sum(c33), sum(c35), sum(c37), sum(c39),
  sum(c41), sum(c43), sum(c45), sum(c47), sum(c49), sum(c51), sum(c53), sum(c55), sum(c57), sum(c59), sum(c61),
  sum(c63), sum(c65), min(c1), max(c1), avg(c3), min(c5), max(c7), avg(c9), min(c11), max(c13), avg(c15), min(c17),
  max(c19), avg(c21), min(c23), max(c25), avg(c27), min(c29), max(c31), avg(c33), min(c35), max(c37), avg(c39),
  min(c41), max(c43), avg(c45), min(c47), max(c49), avg(c51), min(c53), max(c55), avg(c57), min(c59), max(c61),
  avg(c63), count(*) FROM tm_wide$$);
SELECT id, c1, c2, c3, c4, c117, c118, c119, c120 FROM tm_wide WHERE id IN (1, 2, 420, 2520) ORDER BY id;
-- a row with every column NULL but id
INSERT INTO tm_wide (id) VALUES (0);
SELECT * FROM offload_check($$SELECT id FROM tm_wide WHERE c1 IS NULL AND c60 IS NULL AND c120 IS NULL$$);
DROP TABLE tm_wide;

-- ===================================================================
-- Domains without a CHECK over varchar and text, in quals the drive
-- evaluates for varchar and text (=, LIKE, IN, <) and as group keys and
-- aggregate inputs: the domain quals on the host (the id quals beside
-- them on the drive), the answers the heap's (before the
-- fix, the equality and LIKE went to the drive and it refused the scan)
-- ===================================================================
CREATE DOMAIN tm_vc AS varchar(10);
CREATE DOMAIN tm_txt AS text;
CREATE TABLE tm_dom (id int4, v tm_vc, t tm_txt);
INSERT INTO tm_dom SELECT g, 'v' || g % 10, 't' || g % 7 FROM generate_series(1, 2000) g;
VACUUM (FREEZE, ANALYZE) tm_dom;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_dom WHERE v = 'v3' AND id > 10;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM tm_dom WHERE v = ''v3'' AND id > 10'),
  ('SELECT id FROM tm_dom WHERE t LIKE ''t1%'''),
  ('SELECT id FROM tm_dom WHERE t::text < ''t3'''),
  ('SELECT id FROM tm_dom WHERE v IN (''v1'', ''v2'')'),
  ('SELECT v, count(*), min(t), max(t) FROM tm_dom GROUP BY v'),
  ('SELECT t, count(*) FROM tm_dom WHERE id < 1000 GROUP BY t')
) v(q), LATERAL tm_check(v.q) c;
DROP TABLE tm_dom;
DROP DOMAIN tm_vc, tm_txt;

-- ===================================================================
-- char(n): stored padded, compared without the trailing spaces; as a
-- group key, in a join and against text (which does compare spaces
-- after a cast)
-- ===================================================================
CREATE TABLE tm_char (id int4, c3 char(3), c8 char(8), v varchar(8));
INSERT INTO tm_char SELECT g, (ARRAY['a', 'ab', 'abc', '', NULL])[g % 5 + 1],
       (ARRAY['x', 'x y', 'xy  ', 'xyz12345'])[g % 4 + 1], (ARRAY['x', 'x ', 'xy  ', 'x y'])[g % 4 + 1]
  FROM generate_series(1, 5000) g;
VACUUM (FREEZE, ANALYZE) tm_char;
CHECKPOINT;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM tm_char WHERE c3 = ''a'''),
  ('SELECT id FROM tm_char WHERE c3 = ''a  '''),
  ('SELECT id FROM tm_char WHERE c3 = '''''),
  ('SELECT id FROM tm_char WHERE c3 < ''ab'''),
  ('SELECT id FROM tm_char WHERE c8 = ''xy'''),
  ('SELECT id FROM tm_char WHERE c8 = ''x y'''),
  ('SELECT id FROM tm_char WHERE c8::text = ''xy'''),
  ('SELECT id FROM tm_char WHERE c8 = v'),
  ('SELECT id FROM tm_char WHERE v = ''xy'''),
  ('SELECT id FROM tm_char WHERE length(c8) = 2'),
  ('SELECT id FROM tm_char WHERE octet_length(c8) = 8 AND c3 = ''abc'''),
  ('SELECT c3, count(*) FROM tm_char GROUP BY c3'),
  ('SELECT c8, count(*), min(v), max(v) FROM tm_char GROUP BY c8'),
  ('SELECT a.id, b.id FROM tm_char a JOIN tm_char b ON a.c3 = b.c8 WHERE a.id < 40 AND b.id < 40')
) v(q), LATERAL tm_check(v.q) c;
SELECT c3, count(*), min(length(c3)), min(octet_length(c3)) FROM tm_char GROUP BY c3 ORDER BY c3 NULLS FIRST;
DROP TABLE tm_char;

-- ===================================================================
-- Special values: numeric NaN and +-Infinity (PostgreSQL 14 and later),
-- float -0, NaN and +-Infinity.  In a filter against them and against
-- ordinary constants (NaN sorts above every number and +Infinity,
-- -0 = 0), and through sum/min/max/avg on the drive or the host: sums
-- with an infinity are infinite, Infinity + -Infinity is NaN
-- ===================================================================
CREATE TABLE tm_special (id int4, n numeric, nf numeric(10,2), f8 float8, f4 float4, g int4);
INSERT INTO tm_special SELECT g,
       CASE g % 10 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN NULL
                   ELSE (g % 97) - 48.5 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE ((g * 7) % 2000) / 10.0 - 100 END,
       CASE g % 8 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN '-0' WHEN 4 THEN '0'
                  ELSE (g % 51) / 3.0 - 8 END,
       CASE g % 6 WHEN 0 THEN 'NaN'::float4 WHEN 1 THEN '-0'::float4 ELSE (g % 31) - 15 END,
       g % 4
  FROM generate_series(1, 4000) g;
VACUUM (FREEZE, ANALYZE) tm_special;
CHECKPOINT;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_special WHERE n > 1000000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM tm_special WHERE n = 'Infinity';
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM tm_special WHERE n > 1000000'),
  ('SELECT id FROM tm_special WHERE n < -1000000'),
  ('SELECT id FROM tm_special WHERE n = ''Infinity'''),
  ('SELECT id FROM tm_special WHERE n = ''-Infinity'''),
  ('SELECT id FROM tm_special WHERE n > ''Infinity'''),
  ('SELECT id FROM tm_special WHERE n >= ''NaN'''),
  ('SELECT id FROM tm_special WHERE n < ''NaN'''),
  ('SELECT id FROM tm_special WHERE n BETWEEN -48.5 AND 48.5'),
  ('SELECT id FROM tm_special WHERE n <> 0'),
  ('SELECT id FROM tm_special WHERE nf > 99.5 OR nf < -99.5'),
  ('SELECT id FROM tm_special WHERE f8 = 0'),
  ('SELECT id FROM tm_special WHERE f8 = ''-0'''),
  ('SELECT id FROM tm_special WHERE f8 < 0'),
  ('SELECT id FROM tm_special WHERE f8 > 1e308'),
  ('SELECT id FROM tm_special WHERE f8 = ''-Infinity'''),
  ('SELECT id FROM tm_special WHERE f8 = ''NaN'''),
  ('SELECT id FROM tm_special WHERE f8 > ''Infinity'''),
  ('SELECT id FROM tm_special WHERE f8 <> f8'),
  ('SELECT id FROM tm_special WHERE f4 = 0 AND f8 = 0'),
  ('SELECT id FROM tm_special WHERE f4 > 14.5::float8'),
  ('SELECT id FROM tm_special WHERE f4 = ''NaN''::float8'),
  ('SELECT id FROM tm_special WHERE n::float8 = f8')
) v(q), LATERAL tm_check(v.q) c;
-- aggregates: per group (g) and overall, offloaded where the drive can
SELECT v.q, c.* FROM (VALUES
  ('SELECT g, sum(n), min(n), max(n), avg(n), count(n) FROM tm_special GROUP BY g'),
  ('SELECT sum(n), min(n), max(n) FROM tm_special WHERE n IS DISTINCT FROM ''NaN'''),
  ('SELECT sum(n) FROM tm_special WHERE n > 0'),
  ('SELECT sum(n) FROM tm_special WHERE n < 0'),
  ('SELECT g, sum(nf), min(nf), max(nf), avg(nf) FROM tm_special GROUP BY g'),
  ('SELECT g, sum(f8), min(f8), max(f8), avg(f8) FROM tm_special GROUP BY g'),
  ('SELECT sum(f8), avg(f8) FROM tm_special WHERE f8 > -1e308 AND f8 < 1e308'),
  ('SELECT g, sum(f4), max(f4) FROM tm_special GROUP BY g'),
  ('SELECT f8, count(*) FROM tm_special WHERE f8 IN (0, ''NaN'', ''Infinity'') GROUP BY f8'),
  ('SELECT n, count(*) FROM tm_special WHERE n > 1e6 OR n < -1e6 OR n = ''NaN'' GROUP BY n')
) v(q), LATERAL offload_check(v.q) c;
SELECT g, sum(n), min(n), max(n), count(n) FROM tm_special GROUP BY g ORDER BY g;
SELECT sum(n) FILTER (WHERE n > 0) AS pos, sum(n) FILTER (WHERE n < 0) AS neg,
       sum(n) FILTER (WHERE n > 1e6 OR n < -1e6) AS infinities FROM tm_special;
SELECT f8, count(*) FROM tm_special WHERE f8 IN (0, 'NaN', 'Infinity', '-Infinity') GROUP BY f8 ORDER BY f8;
-- the drive's sort order of these values matches the host's
SELECT array_agg(n ORDER BY n) FILTER (WHERE id <= 14) FROM tm_special;
SELECT array_agg(f8 ORDER BY f8, id) FILTER (WHERE id <= 10) FROM tm_special;
DROP TABLE tm_special;

RESET ossd.force_offload;
DROP FUNCTION tm_check(text);
DROP TYPE tm_pair;
DROP DOMAIN tm_pos, tm_code;
DROP TYPE tm_mood;
