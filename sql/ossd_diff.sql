-- ossd_diff: differential suite.  The TAP wrapper (tests/pg/run-regress.sh)
-- runs this file twice against the same expected output: once with
-- ossd.force_offload = on (every scan that can be offloaded is) and once
-- with ossd.enabled = off (plain PostgreSQL).  Both must match.
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
-- 1-10: integers
SELECT count(*) FROM lineitem WHERE l_partkey < 100;
SELECT l_orderkey, l_linenumber, l_partkey FROM lineitem WHERE l_partkey = 4231 ORDER BY 1, 2;
SELECT count(*) FROM lineitem WHERE l_partkey <> 17 AND l_suppkey >= 990;
SELECT count(*) FROM lineitem WHERE l_linenumber = 3;
SELECT count(*) FROM lineitem WHERE l_linenumber > 2::int8 AND l_orderkey <= 5000;
SELECT l_orderkey, l_partkey FROM lineitem WHERE l_orderkey BETWEEN 10 AND 12 ORDER BY 1, 2;
SELECT count(*) FROM lineitem WHERE l_partkey IN (1, 2, 3, 5, 8, 13, 21, 34, 55, 89);
SELECT count(*) FROM lineitem WHERE l_partkey NOT IN (1, 2, 3);
SELECT count(*) FROM lineitem WHERE l_partkey IS NULL;
SELECT count(*) FROM lineitem WHERE l_partkey IS NOT NULL AND l_suppkey < 10;
-- 11-25: numeric
SELECT count(*) FROM lineitem WHERE l_quantity < 24;
SELECT count(*) FROM lineitem WHERE l_quantity >= 49.5;
SELECT count(*) FROM lineitem WHERE l_discount BETWEEN 0.05 AND 0.07;
SELECT count(*) FROM lineitem WHERE l_discount = 0.10;
SELECT count(*) FROM lineitem WHERE l_tax <> 0.08;
SELECT count(*) FROM lineitem WHERE l_tax IS NULL;
SELECT l_orderkey, l_extendedprice FROM lineitem WHERE l_extendedprice > 90890 ORDER BY 1, 2;
SELECT count(*) FROM lineitem WHERE l_extendedprice < 901.5;
SELECT count(*) FROM lineitem WHERE l_quantity = 24.00;
SELECT count(*) FROM lineitem WHERE l_quantity IN (1, 2.5, 7);
SELECT count(*) FROM lineitem WHERE l_quantity > 1e30;
SELECT count(*) FROM lineitem WHERE l_extendedprice >= 'NaN'::numeric;
SELECT count(*) FROM lineitem WHERE l_quantity < 10 OR l_discount > 0.09;
SELECT count(*) FROM lineitem WHERE NOT (l_quantity < 10);
SELECT count(*) FROM lineitem WHERE l_quantity < 10 AND l_tax > 0.05;
-- 26-35: dates and timestamps
SELECT count(*) FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01';
SELECT count(*) FROM lineitem WHERE l_shipdate < date '1994-01-01' + interval '1 year';
SELECT count(*) FROM lineitem WHERE l_receiptdate IS NULL;
SELECT count(*) FROM lineitem WHERE l_receiptdate > l_commitdate;
SELECT count(*) FROM lineitem WHERE l_commitdate = date '1995-03-15';
SELECT count(*) FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days';
SELECT count(*) FROM lineitem WHERE l_shipts >= timestamp '1995-01-01 12:00:00';
SELECT count(*) FROM lineitem WHERE l_shipts < timestamp '1993-01-01' OR l_shipts > timestamp '1998-06-01 06:30';
SELECT count(*) FROM lineitem WHERE l_shipts > date '1996-02-29';
SELECT count(*) FROM lineitem WHERE l_shipdate > timestamp '1996-02-28 23:59:59';
-- 36-50: text, varchar, bpchar
SELECT count(*) FROM lineitem WHERE l_returnflag = 'R';
SELECT count(*) FROM lineitem WHERE l_returnflag <> 'A' AND l_linestatus = 'F';
SELECT count(*) FROM lineitem WHERE l_linestatus IS NULL;
SELECT count(*) FROM lineitem WHERE l_shipinstruct = 'NONE';
SELECT count(*) FROM lineitem WHERE l_shipinstruct = 'NONE                     ';
SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR';
SELECT count(*) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP');
SELECT count(*) FROM lineitem WHERE l_shipmode < 'MAIL';
SELECT count(*) FROM lineitem WHERE l_shipmode >= 'RAIL' COLLATE "C";
SELECT count(*) FROM lineitem WHERE l_comment LIKE 'comment a%';
SELECT count(*) FROM lineitem WHERE l_comment LIKE '%ff%';
SELECT count(*) FROM lineitem WHERE l_comment NOT LIKE '%e%';
SELECT count(*) FROM lineitem WHERE l_comment LIKE 'comment _0%';
SELECT l_orderkey, l_comment FROM lineitem WHERE l_comment = 'updated' ORDER BY 1 LIMIT 5;
SELECT count(*) FROM lineitem WHERE l_shipinstruct < 'DELIVER';
-- 51-58: float4 / float8
SELECT count(*) FROM lineitem WHERE l_weight < 10;
SELECT count(*) FROM lineitem WHERE l_weight > 124.5::float8;
SELECT count(*) FROM lineitem WHERE l_weight = 'NaN';
SELECT count(*) FROM lineitem WHERE l_weight >= 100 AND l_weight IS NOT NULL;
SELECT count(*) FROM lineitem WHERE l_volume = 0;
SELECT count(*) FROM lineitem WHERE l_volume > 33333.0;
SELECT count(*) FROM lineitem WHERE l_volume BETWEEN 100 AND 200.5;
SELECT l_orderkey, l_volume FROM lineitem WHERE l_volume > 33332 ORDER BY 1, 2;
-- 59-64: bool and three-valued logic
SELECT count(*) FROM lineitem WHERE l_urgent;
SELECT count(*) FROM lineitem WHERE NOT l_urgent;
SELECT count(*) FROM lineitem WHERE l_urgent IS NOT TRUE;
SELECT count(*) FROM lineitem WHERE l_urgent IS UNKNOWN;
SELECT count(*) FROM lineitem WHERE NOT (l_tax > 0.04 AND l_quantity < 30);
SELECT count(*) FROM lineitem WHERE (l_tax > 0.04 OR l_quantity < 30) IS NOT FALSE;
-- 65-72: projection, host quals mixed with device quals, TOAST
SELECT l_orderkey, l_linenumber, length(l_note) FROM lineitem WHERE l_orderkey < 300 AND length(l_note) > 100 ORDER BY 1, 2;
SELECT count(*) FROM lineitem WHERE l_note LIKE 'toast%';
SELECT sum(length(l_note)) FROM lineitem WHERE l_partkey > 10000;
SELECT l_orderkey, md5(l_note) FROM lineitem WHERE l_orderkey IN (195, 389, 583) AND l_note IS NOT NULL ORDER BY 1, 2;
SELECT count(*) FROM lineitem WHERE l_quantity < 5 AND upper(l_shipmode) = 'AIR';
SELECT count(*) FROM lineitem WHERE l_quantity * 2 < 10;
SELECT l_orderkey, l_quantity FROM lineitem WHERE l_orderkey > 100000 ORDER BY 1;
SELECT count(*) FROM lineitem WHERE l_comment = 'late insert' AND l_shipdate = date '1994-06-01';
-- 73-80: aggregates over offloaded scans (TPC-H Q1, Q6 shapes)
SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
 WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1 year'
   AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24;
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc,
       count(*) AS count_order
  FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
 GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus;
SELECT count(*), count(l_tax), min(l_tax), max(l_tax), sum(l_linenumber), avg(l_partkey) FROM lineitem WHERE l_suppkey < 500;
SELECT l_shipmode, count(*), min(l_shipdate), max(l_shipdate) FROM lineitem WHERE l_quantity > 40 GROUP BY l_shipmode ORDER BY 1;
SELECT l_linenumber, sum(l_orderkey), min(l_comment), max(l_shipts) FROM lineitem WHERE l_discount > 0.02 GROUP BY 1 ORDER BY 1;
SELECT l_urgent, count(*), sum(l_quantity) FROM lineitem WHERE l_tax < 0.05 GROUP BY l_urgent ORDER BY 1;
SELECT min(l_weight), max(l_weight), min(l_volume), max(l_volume) FROM lineitem WHERE l_partkey < 5000;
SELECT count(DISTINCT l_suppkey) FROM lineitem WHERE l_shipdate > date '1997-01-01';
-- 81-88: orders, joins
SELECT count(*) FROM orders WHERE o_orderstatus = 'F' AND o_totalprice > 250000;
SELECT o_orderpriority, count(*) FROM orders WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01' GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM orders WHERE o_comment IS NULL OR o_comment = 'changed';
SELECT count(*) FROM orders WHERE o_clerk = 'Clerk#000000007';
SELECT o.o_orderpriority, count(*) FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey
 WHERE l.l_commitdate < l.l_receiptdate AND o.o_orderdate >= date '1994-01-01' AND o.o_orderdate < date '1994-04-01'
 GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM orders o WHERE o_custkey < 10 AND EXISTS (SELECT 1 FROM lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_quantity > 45);
SELECT o_orderkey, o_totalprice FROM orders WHERE o_custkey = 77 ORDER BY 1;
SELECT count(*) FROM orders WHERE o_custkey IS NULL AND o_shippriority = 0;
-- 89-94: dropped column, columns added with defaults
SELECT count(*), sum(d_int), min(d_text), max(d_text), sum(d_num), count(d_null) FROM evolve WHERE id > 100;
SELECT * FROM evolve WHERE id IN (1, 2, 20000, 20001, 20999) ORDER BY id;
SELECT count(*) FROM evolve WHERE d_int = 42;
SELECT count(*) FROM evolve WHERE d_text = 'dflt' AND v > 100;
SELECT count(*) FROM evolve WHERE d_num > 3 AND d_null IS NULL;
SELECT id, s FROM evolve WHERE s = 'dirty' ORDER BY id;
-- 95-100: partitioned table
SELECT count(*), sum(amount) FROM part_li WHERE amount > 100;
SELECT tag, count(*) FROM part_li WHERE d >= date '1993-06-01' AND d < date '1996-06-01' GROUP BY tag ORDER BY tag;
SELECT k, d, amount FROM part_li WHERE k < 5 ORDER BY k;
SELECT count(*) FROM part_li WHERE tag = 't3' AND amount < 50;
SELECT min(d), max(d) FROM part_li WHERE amount = 249.75;
SELECT count(*) FROM part_li WHERE tag LIKE 't1%';
-- 101-104: offloaded aggregation and scans inside subqueries, CTEs, joins
SELECT (SELECT count(*) FROM lineitem WHERE l_quantity < 10) AS a, (SELECT sum(l_quantity) FROM lineitem WHERE l_tax > 0.05) AS b;
WITH r AS (SELECT l_linenumber, count(*) AS n, sum(l_extendedprice * l_discount) AS rev FROM lineitem WHERE l_shipdate < date '1993-01-01' GROUP BY l_linenumber)
SELECT * FROM r ORDER BY 1;
SELECT o_orderstatus, count(*) FROM orders WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem WHERE l_quantity > 49) GROUP BY 1 ORDER BY 1;
SELECT x.k, x.n FROM (SELECT d_int AS k, count(*) AS n FROM evolve WHERE v > 10 GROUP BY d_int) x ORDER BY 1;
