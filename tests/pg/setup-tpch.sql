-- setup-tpch.sql: a TPC-H-like schema on the ossd tablespace, with NULLs and
-- every type pg_ossd pushes (int2/4/8, float4/8, numeric, text, varchar,
-- bpchar, date, timestamp, bool), TOASTed and compressed values, a dropped
-- column, columns added with defaults, and a partitioned table.
-- Deterministic: no random(); values come from arithmetic on the row number.
SET default_tablespace = ossd;

CREATE TABLE lineitem (
  l_orderkey      int8 NOT NULL,
  l_partkey       int4,
  l_suppkey       int4,
  l_linenumber    int2,
  l_quantity      numeric(15,2),
  l_extendedprice numeric(15,2),
  l_discount      numeric(15,2),
  l_tax           numeric(15,2),
  l_returnflag    char(1),
  l_linestatus    char(1),
  l_shipdate      date,
  l_commitdate    date,
  l_receiptdate   date,
  l_shipinstruct  char(25),
  l_shipmode      varchar(10),
  l_comment       varchar(44),
  l_weight        float4,
  l_volume        float8,
  l_shipts        timestamp,
  l_urgent        bool,
  l_note          text
);

INSERT INTO lineitem
SELECT i / 4 + 1,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 20000 + 1 END,
       ((i::int8 * 104729) % 1000 + 1)::int4,
       (i % 7 + 1)::int2,
       CASE WHEN i % 89 = 0 THEN NULL ELSE ((i * 31) % 50 + 1)::numeric(15,2) END,
       ((i * 7907) % 9000000 / 100.0 + 900)::numeric(15,2),
       ((i * 13) % 11 / 100.0)::numeric(15,2),
       CASE WHEN i % 101 = 0 THEN NULL ELSE ((i * 17) % 9 / 100.0)::numeric(15,2) END,
       (ARRAY['A','N','R'])[i % 3 + 1],
       CASE WHEN i % 83 = 0 THEN NULL ELSE (ARRAY['O','F'])[i % 2 + 1] END,
       date '1992-01-01' + (i * 37) % 2526,
       date '1992-01-01' + (i * 41) % 2526 + 30,
       CASE WHEN i % 79 = 0 THEN NULL ELSE date '1992-01-01' + (i * 37) % 2526 + (i % 30) + 1 END,
       (ARRAY['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'])[i % 4 + 1],
       CASE WHEN i % 73 = 0 THEN NULL ELSE (ARRAY['AIR','MAIL','SHIP','TRUCK','RAIL','FOB','REG AIR'])[i % 7 + 1] END,
       'comment ' || md5(i::text),
       CASE WHEN i % 71 = 0 THEN NULL WHEN i % 1000 = 1 THEN 'NaN'::float4 ELSE ((i * 3) % 1000) / 8.0 END,
       CASE WHEN i % 67 = 0 THEN NULL WHEN i % 997 = 0 THEN -0.0::float8 ELSE ((i * 11) % 100000) / 3.0 END,
       timestamp '1992-01-01 00:00' + ((i * 7) % 2526) * interval '1 day' + (i % 86400) * interval '1 second',
       CASE WHEN i % 61 = 0 THEN NULL ELSE i % 5 = 0 END,
       CASE WHEN i % 500 = 0 THEN repeat('toast' || i, 2000)          -- compressed inline
            WHEN i % 777 = 0 THEN (SELECT string_agg(md5((i*j)::text), '') FROM generate_series(1, 200) j)  -- external
            WHEN i % 53 = 0 THEN NULL
            ELSE 'note ' || (i % 1000) END
FROM generate_series(0, 59999) i;

CREATE TABLE orders (
  o_orderkey      int8 NOT NULL,
  o_custkey       int4,
  o_orderstatus   char(1),
  o_totalprice    numeric(15,2),
  o_orderdate     date,
  o_orderpriority char(15),
  o_clerk         char(15),
  o_shippriority  int4,
  o_comment       varchar(79)
);
INSERT INTO orders
SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE (i * 13) % 1500 + 1 END,
       (ARRAY['O','F','P'])[i % 3 + 1],
       ((i * 7919) % 50000000 / 100.0)::numeric(15,2),
       date '1992-01-01' + (i * 3) % 2400,
       (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[i % 5 + 1],
       'Clerk#' || lpad(((i * 7) % 1000)::text, 9, '0'),
       0,
       CASE WHEN i % 37 = 0 THEN NULL ELSE 'order comment ' || (i % 333) END
FROM generate_series(1, 15000) i;

-- dropped column and columns added with defaults (atthasmissing)
CREATE TABLE evolve (id int4, gone text, v numeric(10,2), s text);
INSERT INTO evolve SELECT i, 'x' || i, i / 10.0, 'row' || i FROM generate_series(1, 20000) i;
ALTER TABLE evolve DROP COLUMN gone;
ALTER TABLE evolve ADD COLUMN d_int int4 DEFAULT 42;
ALTER TABLE evolve ADD COLUMN d_text text DEFAULT 'dflt';
ALTER TABLE evolve ADD COLUMN d_num numeric DEFAULT 3.25;
ALTER TABLE evolve ADD COLUMN d_null int8;
INSERT INTO evolve (id, v, s, d_int, d_text, d_num, d_null)
  SELECT i, i / 10.0, 'new' || i, i % 3, 'set' || i, i, i FROM generate_series(20001, 21000) i;

-- partitioned table, partitions on the drive (one on the default tablespace)
CREATE TABLE part_li (k int4, d date, amount numeric(12,2), tag text)
  PARTITION BY RANGE (d);
CREATE TABLE part_li_92 PARTITION OF part_li FOR VALUES FROM ('1992-01-01') TO ('1994-01-01') TABLESPACE ossd;
CREATE TABLE part_li_94 PARTITION OF part_li FOR VALUES FROM ('1994-01-01') TO ('1996-01-01') TABLESPACE ossd;
CREATE TABLE part_li_96 PARTITION OF part_li FOR VALUES FROM ('1996-01-01') TO ('2000-01-01') TABLESPACE pg_default;
INSERT INTO part_li SELECT i, date '1992-01-01' + i % 2500, (i % 1000) / 4.0, 't' || (i % 17)
  FROM generate_series(1, 30000) i;

VACUUM (FREEZE, ANALYZE) lineitem;
VACUUM ANALYZE orders, evolve, part_li;
CHECKPOINT;

-- a few changes after VACUUM: these pages are not all-visible any more,
-- so the host scans them while the drive scans the rest
UPDATE lineitem SET l_comment = 'updated' WHERE l_orderkey % 1000 = 7;
DELETE FROM lineitem WHERE l_orderkey % 1000 = 11;
INSERT INTO lineitem (l_orderkey, l_quantity, l_shipdate, l_comment, l_note)
  SELECT 100000 + i, i, date '1994-06-01', 'late insert', 'n' || i FROM generate_series(1, 200) i;
UPDATE orders SET o_comment = 'changed' WHERE o_orderkey % 500 = 3;
CHECKPOINT;
UPDATE evolve SET s = 'dirty' WHERE id % 2000 = 5;   -- left dirty in shared buffers
