--
-- ossd_rescans: the planner's decisions on scans run more than once.  A
-- scan below a correlated subquery, the inner side of a nested loop or a
-- LATERAL reference is rescanned once per outer row; pg_ossd offloads it
-- only if a drive scan per outer row pays (ossd_rel_rescanned and the
-- cost of each rescan), and force_offload does not force it, so that
-- such queries finish in the time of the plain plan.  Shapes of TPC-H
-- Q2, Q4, Q17, Q20, Q21 and Q22 on small tables, nested loops with an
-- offloaded inner side, LATERAL with outer references in the target list
-- and the quals (PlaceHolderVars, issue 12 D2), semi and anti joins, IN
-- and NOT IN with NULLs.  Each plan is shown before the query it
-- explains, each answer checked against offload off.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql
-- The plan's node lines with their loops (row counts masked), and the
-- OssdScans' block counters: loops and blocks add up over rescans
CREATE FUNCTION rs_loops(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN ln !~ '(->|^[A-Z]|Blocks on|SubPlan|InitPlan)';
    ln := regexp_replace(ln, 'actual rows=\d+ ', 'actual ');
    ln := regexp_replace(ln, 'Memory Usage: \d+kB', 'Memory Usage: NkB');
    RETURN NEXT ln;
  END LOOP;
END
$$;

-- ===================================================================
-- Test data: a TPC-H-like part / supplier / partsupp / orders /
-- lineitem, small, frozen and checkpointed
-- ===================================================================
CREATE TABLE rs_part (p_partkey int4, p_size int4, p_type text, p_brand text, pad text);
CREATE TABLE rs_supp (s_suppkey int4, s_nation int4, s_name text, s_acctbal numeric(12,2));
CREATE TABLE rs_ps (ps_partkey int4, ps_suppkey int4, ps_availqty int4, ps_supplycost numeric(12,2), pad text);
CREATE TABLE rs_ord (o_orderkey int4, o_custkey int4, o_status char(1), o_date date, pad text);
CREATE TABLE rs_li (l_orderkey int4, l_partkey int4, l_suppkey int4, l_qty numeric(12,2),
                    l_price numeric(12,2), l_commit date, l_receipt date, pad text);
CREATE TABLE rs_cust (c_custkey int4, c_phone text, c_acctbal numeric(12,2));
INSERT INTO rs_part SELECT g, g % 50 + 1, (ARRAY['STEEL', 'BRASS', 'COPPER', 'TIN'])[g % 4 + 1],
  'Brand#' || (g % 5 + 1), repeat('p', 100) FROM generate_series(1, 2000) g;
INSERT INTO rs_supp SELECT g, g % 5, 'Supplier#' || g, (g * 37 % 10000) / 3.0 - 500 FROM generate_series(1, 100) g;
INSERT INTO rs_ps SELECT p, (p + s * 25) % 100 + 1, (p * s * 7) % 9999 + 1, ((p * 13 + s * 7) % 1000) / 10.0 + 1, repeat('s', 80)
  FROM generate_series(1, 2000) p, generate_series(0, 3) s;
INSERT INTO rs_ord SELECT g, g % 300 + 1, (ARRAY['O', 'F', 'P'])[g % 3 + 1], date '1995-01-01' + g % 700, repeat('o', 80)
  FROM generate_series(1, 4000) g;
INSERT INTO rs_li SELECT g / 4 + 1, g % 2000 + 1, (g * 7) % 100 + 1, g % 50 + 1, (g % 997) * 1.5 + 10,
  date '1995-01-01' + g % 700, date '1995-01-01' + g % 700 + (g % 11) - 5, repeat('l', 60)
  FROM generate_series(0, 15999) g;
INSERT INTO rs_cust SELECT g, (ARRAY['13', '31', '23', '29', '30', '18', '17'])[g % 7 + 1] || '-' || g,
  CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 71 % 10000) / 2.0 - 1000 END FROM generate_series(1, 400) g;
-- the indexes of TPC-H's correlated lookups: an index scan per outer row
CREATE INDEX rs_li_part ON rs_li (l_partkey, l_suppkey);
CREATE INDEX rs_ps_part ON rs_ps (ps_partkey);
VACUUM (FREEZE, ANALYZE) rs_part, rs_supp, rs_ps, rs_ord, rs_li, rs_cust;
CHECKPOINT;
SELECT relname, relpages FROM pg_class WHERE relname LIKE 'rs\_%' AND relkind = 'r' ORDER BY 1;

-- ===================================================================
-- TPC-H Q17's shape: a correlated average per part.  The planner runs
-- the subquery once per outer row; forced, the outer scans go to the
-- drive, the rescanned one does not (a drive scan per part)
-- ===================================================================
SET ossd.min_relation_pages = 0;
SET ossd.force_offload = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(l.l_price) / 7.0 AS avg_yearly FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 5
   AND l.l_qty < (SELECT 0.2 * avg(l2.l_qty) FROM rs_li l2 WHERE l2.l_partkey = p.p_partkey);
SELECT sum(l.l_price) / 7.0 AS avg_yearly FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 5
   AND l.l_qty < (SELECT 0.2 * avg(l2.l_qty) FROM rs_li l2 WHERE l2.l_partkey = p.p_partkey);
SELECT * FROM offload_check($$SELECT sum(l.l_price) / 7.0 AS avg_yearly FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 5
   AND l.l_qty < (SELECT 0.2 * avg(l2.l_qty) FROM rs_li l2 WHERE l2.l_partkey = p.p_partkey)$$);
-- the loops of each scan: the subquery's scan is an index scan per loop
SELECT * FROM rs_loops($$SELECT sum(l.l_price) / 7.0 AS avg_yearly FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 2
   AND l.l_qty < (SELECT 0.2 * avg(l2.l_qty) FROM rs_li l2 WHERE l2.l_partkey = p.p_partkey)$$);
-- the planner's decorrelated form (a grouped derived table): each scan
-- once, all on the drive
EXPLAIN (COSTS OFF)
SELECT sum(l.l_price) / 7.0 FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
  JOIN (SELECT l_partkey, 0.2 * avg(l_qty) AS lim FROM rs_li GROUP BY l_partkey) a ON a.l_partkey = p.p_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 5 AND l.l_qty < a.lim;
SELECT * FROM offload_check($$SELECT sum(l.l_price) / 7.0 FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
  JOIN (SELECT l_partkey, 0.2 * avg(l_qty) AS lim FROM rs_li GROUP BY l_partkey) a ON a.l_partkey = p.p_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 5 AND l.l_qty < a.lim$$);

-- ===================================================================
-- TPC-H Q2's shape: the minimum cost per part among some suppliers
-- ===================================================================
EXPLAIN (COSTS OFF)
SELECT s.s_acctbal, s.s_name, p.p_partkey FROM rs_part p, rs_supp s, rs_ps ps
 WHERE p.p_partkey = ps.ps_partkey AND s.s_suppkey = ps.ps_suppkey AND p.p_size = 15 AND p.p_type = 'BRASS'
   AND s.s_nation = 2
   AND ps.ps_supplycost = (SELECT min(ps2.ps_supplycost) FROM rs_ps ps2, rs_supp s2
                            WHERE ps2.ps_partkey = p.p_partkey AND s2.s_suppkey = ps2.ps_suppkey AND s2.s_nation = 2)
 ORDER BY s.s_acctbal DESC, s.s_name, p.p_partkey LIMIT 10;
SELECT s.s_acctbal, s.s_name, p.p_partkey FROM rs_part p, rs_supp s, rs_ps ps
 WHERE p.p_partkey = ps.ps_partkey AND s.s_suppkey = ps.ps_suppkey AND p.p_size = 15 AND p.p_type = 'BRASS'
   AND s.s_nation = 2
   AND ps.ps_supplycost = (SELECT min(ps2.ps_supplycost) FROM rs_ps ps2, rs_supp s2
                            WHERE ps2.ps_partkey = p.p_partkey AND s2.s_suppkey = ps2.ps_suppkey AND s2.s_nation = 2)
 ORDER BY s.s_acctbal DESC, s.s_name, p.p_partkey LIMIT 10;
SELECT * FROM offload_check($$SELECT s.s_acctbal, s.s_name, p.p_partkey FROM rs_part p, rs_supp s, rs_ps ps
 WHERE p.p_partkey = ps.ps_partkey AND s.s_suppkey = ps.ps_suppkey AND p.p_size = 15 AND p.p_type = 'BRASS'
   AND s.s_nation = 2
   AND ps.ps_supplycost = (SELECT min(ps2.ps_supplycost) FROM rs_ps ps2, rs_supp s2
                            WHERE ps2.ps_partkey = p.p_partkey AND s2.s_suppkey = ps2.ps_suppkey AND s2.s_nation = 2)$$);

-- ===================================================================
-- TPC-H Q20's shape: suppliers with excess stock of some parts (IN of
-- a correlated subquery inside IN)
-- ===================================================================
EXPLAIN (COSTS OFF)
SELECT s.s_name FROM rs_supp s
 WHERE s.s_suppkey IN (SELECT ps.ps_suppkey FROM rs_ps ps
                        WHERE ps.ps_partkey IN (SELECT p_partkey FROM rs_part WHERE p_type = 'TIN' AND p_size < 10)
                          AND ps.ps_availqty > (SELECT 0.5 * sum(l.l_qty) FROM rs_li l
                                                 WHERE l.l_partkey = ps.ps_partkey AND l.l_suppkey = ps.ps_suppkey
                                                   AND l.l_commit >= date '1995-06-01'))
   AND s.s_nation = 1 ORDER BY s.s_name;
SELECT s.s_name FROM rs_supp s
 WHERE s.s_suppkey IN (SELECT ps.ps_suppkey FROM rs_ps ps
                        WHERE ps.ps_partkey IN (SELECT p_partkey FROM rs_part WHERE p_type = 'TIN' AND p_size < 10)
                          AND ps.ps_availqty > (SELECT 0.5 * sum(l.l_qty) FROM rs_li l
                                                 WHERE l.l_partkey = ps.ps_partkey AND l.l_suppkey = ps.ps_suppkey
                                                   AND l.l_commit >= date '1995-06-01'))
   AND s.s_nation = 1 ORDER BY s.s_name;
SELECT * FROM offload_check($$SELECT s.s_name FROM rs_supp s
 WHERE s.s_suppkey IN (SELECT ps.ps_suppkey FROM rs_ps ps
                        WHERE ps.ps_partkey IN (SELECT p_partkey FROM rs_part WHERE p_type = 'TIN' AND p_size < 10)
                          AND ps.ps_availqty > (SELECT 0.5 * sum(l.l_qty) FROM rs_li l
                                                 WHERE l.l_partkey = ps.ps_partkey AND l.l_suppkey = ps.ps_suppkey
                                                   AND l.l_commit >= date '1995-06-01'))
   AND s.s_nation = 1$$);

-- ===================================================================
-- TPC-H Q21's shape: EXISTS and NOT EXISTS on the same table with a
-- correlated inequality (semi and anti joins)
-- ===================================================================
EXPLAIN (COSTS OFF)
SELECT s.s_name, count(*) AS numwait FROM rs_supp s, rs_li l1, rs_ord o
 WHERE s.s_suppkey = l1.l_suppkey AND o.o_orderkey = l1.l_orderkey AND o.o_status = 'F'
   AND l1.l_receipt > l1.l_commit
   AND EXISTS (SELECT 1 FROM rs_li l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT 1 FROM rs_li l3 WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receipt > l3.l_commit)
   AND s.s_nation = 3
 GROUP BY s.s_name ORDER BY numwait DESC, s.s_name LIMIT 8;
-- Forced, the relation's unparameterised scan is the drive's, but the
-- parameterised index scans stay beside it (ossd_add_offload_path): the
-- nested loops probe rs_ord and rs_li by index per outer row instead of
-- a whole drive scan per outer row (which took minutes before).
SELECT * FROM offload_check($$SELECT s.s_name, count(*) AS numwait FROM rs_supp s, rs_li l1, rs_ord o
 WHERE s.s_suppkey = l1.l_suppkey AND o.o_orderkey = l1.l_orderkey AND o.o_status = 'F'
   AND l1.l_receipt > l1.l_commit
   AND EXISTS (SELECT 1 FROM rs_li l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT 1 FROM rs_li l3 WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receipt > l3.l_commit)
   AND s.s_nation = 3
 GROUP BY s.s_name$$);
-- at the default settings the same query, against offload off: one drive
-- scan (l1's).  The anti join's l3 would ship the rows of l_receipt >
-- l_commit, priced from the two columns' statistics (ossd_selectivity.c)
-- rather than at PostgreSQL's flat third, and its index stays cheaper.
RESET ossd.force_offload;
RESET ossd.min_relation_pages;
SELECT * FROM offload_check($$SELECT s.s_name, count(*) AS numwait FROM rs_supp s, rs_li l1, rs_ord o
 WHERE s.s_suppkey = l1.l_suppkey AND o.o_orderkey = l1.l_orderkey AND o.o_status = 'F'
   AND l1.l_receipt > l1.l_commit
   AND EXISTS (SELECT 1 FROM rs_li l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT 1 FROM rs_li l3 WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receipt > l3.l_commit)
   AND s.s_nation = 3
 GROUP BY s.s_name$$);
SET ossd.min_relation_pages = 0;
SET ossd.force_offload = on;
-- ===================================================================
-- TPC-H Q4's shape (EXISTS: a semi join) and Q22's (an uncorrelated
-- average in an InitPlan, a NOT EXISTS anti join, substring keys)
-- ===================================================================
EXPLAIN (COSTS OFF)
SELECT o.o_status, count(*) FROM rs_ord o
 WHERE o.o_date >= date '1995-03-01' AND o.o_date < date '1995-06-01'
   AND EXISTS (SELECT 1 FROM rs_li l WHERE l.l_orderkey = o.o_orderkey AND l.l_commit < l.l_receipt)
 GROUP BY o.o_status ORDER BY 1;
SELECT o.o_status, count(*) FROM rs_ord o
 WHERE o.o_date >= date '1995-03-01' AND o.o_date < date '1995-06-01'
   AND EXISTS (SELECT 1 FROM rs_li l WHERE l.l_orderkey = o.o_orderkey AND l.l_commit < l.l_receipt)
 GROUP BY o.o_status ORDER BY 1;
SELECT * FROM offload_check($$SELECT o.o_status, count(*) FROM rs_ord o
 WHERE o.o_date >= date '1995-03-01' AND o.o_date < date '1995-06-01'
   AND EXISTS (SELECT 1 FROM rs_li l WHERE l.l_orderkey = o.o_orderkey AND l.l_commit < l.l_receipt)
 GROUP BY o.o_status$$);
EXPLAIN (COSTS OFF)
SELECT substring(c.c_phone FROM 1 FOR 2) AS code, count(*), sum(c.c_acctbal) FROM rs_cust c
 WHERE substring(c.c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29')
   AND c.c_acctbal > (SELECT avg(c2.c_acctbal) FROM rs_cust c2 WHERE c2.c_acctbal > 0.00)
   AND NOT EXISTS (SELECT 1 FROM rs_ord o WHERE o.o_custkey = c.c_custkey AND o.o_status = 'P')
 GROUP BY 1 ORDER BY 1;
SELECT substring(c.c_phone FROM 1 FOR 2) AS code, count(*), sum(c.c_acctbal) FROM rs_cust c
 WHERE substring(c.c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29')
   AND c.c_acctbal > (SELECT avg(c2.c_acctbal) FROM rs_cust c2 WHERE c2.c_acctbal > 0.00)
   AND NOT EXISTS (SELECT 1 FROM rs_ord o WHERE o.o_custkey = c.c_custkey AND o.o_status = 'P')
 GROUP BY 1 ORDER BY 1;
SELECT * FROM offload_check($$SELECT substring(c.c_phone FROM 1 FOR 2) AS code, count(*), sum(c.c_acctbal) FROM rs_cust c
 WHERE substring(c.c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29')
   AND c.c_acctbal > (SELECT avg(c2.c_acctbal) FROM rs_cust c2 WHERE c2.c_acctbal > 0.00)
   AND NOT EXISTS (SELECT 1 FROM rs_ord o WHERE o.o_custkey = c.c_custkey AND o.o_status = 'P')
 GROUP BY 1$$);

-- ===================================================================
-- Nested loops: an offloaded inner side without a Material is a drive
-- scan per outer row (counted in its loops); with a Material it is one
-- scan; a parameterised index scan is never offloaded
-- ===================================================================
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1 ORDER BY 1;
SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1 ORDER BY 1;
SELECT * FROM rs_loops($$SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1$$);
SELECT * FROM offload_check($$SELECT s.s_suppkey, ps.ps_partkey FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4$$);
RESET enable_material;
EXPLAIN (COSTS OFF)
SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1 ORDER BY 1;
SELECT * FROM rs_loops($$SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1$$);
-- a left join, a non-equality join clause
SELECT * FROM offload_check($$SELECT s.s_suppkey, ps.ps_partkey FROM rs_supp s LEFT JOIN rs_ps ps
  ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 50 WHERE s.s_suppkey < 10$$);
SELECT * FROM offload_check($$SELECT s.s_suppkey, count(ps.ps_partkey) FROM rs_supp s JOIN rs_ps ps
  ON ps.ps_supplycost < s.s_acctbal / 100 AND ps.ps_partkey < 40 WHERE s.s_suppkey < 6 GROUP BY 1$$);
CREATE INDEX rs_ps_supp ON rs_ps (ps_suppkey);
ANALYZE rs_ps;
EXPLAIN (COSTS OFF)
SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1 ORDER BY 1;
SELECT * FROM offload_check($$SELECT s.s_suppkey, count(*) FROM rs_supp s JOIN rs_ps ps ON ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty < 500
 WHERE s.s_suppkey < 4 GROUP BY 1$$);
DROP INDEX rs_ps_supp;
RESET enable_mergejoin;
RESET enable_hashjoin;

-- ===================================================================
-- LATERAL (issue 12, D2 and variations): outer references in the
-- subquery's target list (Vars and PlaceHolderVars under an outer join)
-- and quals; each a nestloop Param of the rescanned scan
-- ===================================================================
-- an outer Var in the target list, under LEFT JOIN LATERAL
EXPLAIN (VERBOSE, COSTS OFF)
SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, ps.ps_availqty, s.s_nation AS nat FROM rs_ps ps WHERE ps.ps_partkey < 3) x
  ON x.ps_partkey = s.s_suppkey WHERE s.s_suppkey < 5 ORDER BY 1, 2, 3;
SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, ps.ps_availqty, s.s_nation AS nat FROM rs_ps ps WHERE ps.ps_partkey < 3) x
  ON x.ps_partkey = s.s_suppkey WHERE s.s_suppkey < 5 ORDER BY 1, 2, 3;
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, ps.ps_availqty, s.s_nation AS nat FROM rs_ps ps WHERE ps.ps_partkey < 3) x
  ON x.ps_partkey = s.s_suppkey WHERE s.s_suppkey < 5$$);
-- expressions of outer columns (PlaceHolderVars), a constant, a
-- coalesce that must stay NULL for unmatched outer rows
SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, s.s_acctbal * 2 AS dbl, 'c' AS c, coalesce(s.s_nation, -1) AS nat
     FROM rs_ps ps WHERE ps.ps_partkey < 3) x ON x.ps_partkey = s.s_suppkey
 WHERE s.s_suppkey < 5 ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, s.s_acctbal * 2 AS dbl, 'c' AS c, coalesce(s.s_nation, -1) AS nat
     FROM rs_ps ps WHERE ps.ps_partkey < 3) x ON x.ps_partkey = s.s_suppkey
 WHERE s.s_suppkey < 5$$);
-- outer references in the quals, with pushable quals beside them
EXPLAIN (VERBOSE, COSTS OFF)
SELECT s.s_suppkey, x.* FROM rs_supp s CROSS JOIN LATERAL
  (SELECT ps.ps_partkey FROM rs_ps ps WHERE ps.ps_partkey < 20 AND ps.ps_suppkey = s.s_suppkey) x
 WHERE s.s_nation = 0 ORDER BY 1, 2;
SELECT s.s_suppkey, x.* FROM rs_supp s CROSS JOIN LATERAL
  (SELECT ps.ps_partkey FROM rs_ps ps WHERE ps.ps_partkey < 20 AND ps.ps_suppkey = s.s_suppkey) x
 WHERE s.s_nation = 0 ORDER BY 1, 2;
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.* FROM rs_supp s CROSS JOIN LATERAL
  (SELECT ps.ps_partkey FROM rs_ps ps WHERE ps.ps_partkey < 20 AND ps.ps_suppkey = s.s_suppkey) x
 WHERE s.s_nation = 0$$);
-- LATERAL with an aggregate, ORDER BY and LIMIT per outer row
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.* FROM rs_supp s CROSS JOIN LATERAL
  (SELECT count(*) AS n, max(ps.ps_availqty) AS m FROM rs_ps ps WHERE ps.ps_suppkey = s.s_suppkey AND ps.ps_partkey < 500) x
 WHERE s.s_suppkey < 8$$);
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.* FROM rs_supp s CROSS JOIN LATERAL
  (SELECT ps.ps_partkey, ps.ps_supplycost FROM rs_ps ps WHERE ps.ps_suppkey = s.s_suppkey
    ORDER BY ps.ps_supplycost DESC, ps.ps_partkey LIMIT 2) x WHERE s.s_suppkey < 8$$);
-- two LATERAL levels, the inner one referring to both outer relations
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.ps_partkey, y.l_orderkey FROM rs_supp s
  CROSS JOIN LATERAL (SELECT ps.ps_partkey FROM rs_ps ps WHERE ps.ps_suppkey = s.s_suppkey AND ps.ps_partkey < 60) x
  CROSS JOIN LATERAL (SELECT l.l_orderkey FROM rs_li l WHERE l.l_partkey = x.ps_partkey AND l.l_suppkey <> s.s_suppkey
                       ORDER BY l.l_orderkey LIMIT 1) y
 WHERE s.s_suppkey < 4$$);
-- a LATERAL set-returning function over an offloaded scan's columns
SELECT * FROM offload_check($$SELECT p.p_partkey, g FROM rs_part p, LATERAL generate_series(1, p.p_size % 3) g WHERE p.p_partkey < 30$$);
SELECT * FROM offload_check($$SELECT p.p_partkey, u FROM rs_part p, LATERAL unnest(ARRAY[p.p_size, p.p_partkey]) u WHERE p.p_type = 'TIN' AND p.p_partkey < 100$$);
-- LATERAL VALUES referring to the scan's columns
SELECT * FROM offload_check($$SELECT p.p_partkey, v.x FROM rs_part p, LATERAL (VALUES (p.p_size), (p.p_size * 2)) v(x)
 WHERE p.p_partkey < 20$$);
-- the loops of a LATERAL rescan
SELECT * FROM rs_loops($$SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, ps.ps_availqty, s.s_nation AS nat FROM rs_ps ps WHERE ps.ps_partkey < 3) x
  ON x.ps_partkey = s.s_suppkey WHERE s.s_suppkey < 5$$);

-- ===================================================================
-- Semi and anti joins; IN and NOT IN with NULLs on either side
-- ===================================================================
CREATE TABLE rs_nul (k int4, pad text);
INSERT INTO rs_nul SELECT CASE WHEN g % 10 = 0 THEN NULL ELSE g % 40 END, repeat('n', 100) FROM generate_series(1, 3000) g;
CREATE TABLE rs_probe (k int4);
INSERT INTO rs_probe VALUES (1), (5), (39), (40), (NULL), (77);
VACUUM (FREEZE, ANALYZE) rs_nul, rs_probe;
CHECKPOINT;
EXPLAIN (COSTS OFF) SELECT k FROM rs_probe WHERE k IN (SELECT k FROM rs_nul WHERE pad > 'a');
SELECT k FROM rs_probe WHERE k IN (SELECT k FROM rs_nul WHERE pad > 'a') ORDER BY 1;
SELECT * FROM offload_check($$SELECT k FROM rs_probe WHERE k IN (SELECT k FROM rs_nul WHERE pad > 'a')$$);
-- NOT IN over a set with a NULL: no row
EXPLAIN (COSTS OFF) SELECT k FROM rs_probe WHERE k NOT IN (SELECT k FROM rs_nul WHERE pad > 'a');
SELECT k FROM rs_probe WHERE k NOT IN (SELECT k FROM rs_nul WHERE pad > 'a') ORDER BY 1;
SELECT * FROM offload_check($$SELECT k FROM rs_probe WHERE k NOT IN (SELECT k FROM rs_nul WHERE pad > 'a')$$);
-- the NULLs filtered on the drive: the rows not in it, not the NULL one
SELECT k FROM rs_probe WHERE k NOT IN (SELECT k FROM rs_nul WHERE k IS NOT NULL) ORDER BY 1;
SELECT * FROM offload_check($$SELECT k FROM rs_probe WHERE k NOT IN (SELECT k FROM rs_nul WHERE k IS NOT NULL)$$);
-- NOT EXISTS is not NOT IN: the NULL probe row is kept
SELECT k FROM rs_probe p WHERE NOT EXISTS (SELECT 1 FROM rs_nul n WHERE n.k = p.k) ORDER BY 1;
SELECT * FROM offload_check($$SELECT k FROM rs_probe p WHERE NOT EXISTS (SELECT 1 FROM rs_nul n WHERE n.k = p.k)$$);
-- = ANY / <> ALL of a subquery, IS DISTINCT FROM
SELECT * FROM offload_check($$SELECT k FROM rs_probe WHERE k = ANY (SELECT k FROM rs_nul WHERE k < 10)$$);
SELECT * FROM offload_check($$SELECT k FROM rs_probe WHERE k <> ALL (SELECT k FROM rs_nul WHERE k < 10)$$);
SELECT * FROM offload_check($$SELECT p.k FROM rs_probe p WHERE EXISTS (SELECT 1 FROM rs_nul n WHERE n.k IS NOT DISTINCT FROM p.k)$$);
-- a semi join against a large drive scan, the anti join's other way
SELECT * FROM offload_check($$SELECT n.k, count(*) FROM rs_nul n WHERE n.k IN (SELECT k FROM rs_probe) GROUP BY n.k$$);
SELECT * FROM offload_check($$SELECT count(*) FROM rs_nul n WHERE NOT EXISTS (SELECT 1 FROM rs_probe p WHERE p.k = n.k)$$);
SELECT count(*) FROM rs_nul n WHERE NOT EXISTS (SELECT 1 FROM rs_probe p WHERE p.k = n.k);
-- a correlated subquery in the target list returning NULL when empty
SELECT * FROM offload_check($$SELECT p.k, (SELECT count(*) FROM rs_nul n WHERE n.k = p.k), (SELECT max(n.k) FROM rs_nul n WHERE n.k = p.k + 1) FROM rs_probe p$$);

-- ===================================================================
-- Rescans that pay: at a low transfer cost the drive scan per outer
-- row beats the seq scan per outer row; offloaded, each loop a scan
-- ===================================================================
SET ossd.transfer_tuple_cost = 0.001;
SET ossd.drive_transfer_tuple_cost = 0.001;
EXPLAIN (COSTS OFF)
SELECT p.k, (SELECT count(*) FROM rs_nul n WHERE n.k = p.k AND n.pad > 'a') FROM rs_probe p;
SELECT p.k, (SELECT count(*) FROM rs_nul n WHERE n.k = p.k AND n.pad > 'a') FROM rs_probe p ORDER BY 1;
SELECT * FROM offload_check($$SELECT p.k, (SELECT count(*) FROM rs_nul n WHERE n.k = p.k AND n.pad > 'a') FROM rs_probe p$$);
SELECT * FROM rs_loops($$SELECT p.k, (SELECT count(*) FROM rs_nul n WHERE n.k = p.k AND n.pad > 'a') FROM rs_probe p$$);
RESET ossd.transfer_tuple_cost;
RESET ossd.drive_transfer_tuple_cost;
-- at the default cost the same subquery is a seq scan per row, forced
-- or not
EXPLAIN (COSTS OFF)
SELECT p.k, (SELECT count(*) FROM rs_nul n WHERE n.k = p.k AND n.pad > 'a') FROM rs_probe p;
-- a correlated subquery two levels deep and one in HAVING
SELECT * FROM offload_check($$SELECT p.k FROM rs_probe p WHERE EXISTS (
  SELECT 1 FROM rs_nul n WHERE n.k = p.k AND n.k < (SELECT max(q.k) FROM rs_probe q WHERE q.k > n.k))$$);
SELECT * FROM offload_check($$SELECT n.k, count(*) FROM rs_nul n WHERE n.k < 20 GROUP BY n.k
  HAVING count(*) > (SELECT count(*) FROM rs_probe p WHERE p.k <= n.k) * 70$$);
RESET ossd.force_offload;

-- ===================================================================
-- Default settings: the same shapes without force_offload choose by
-- cost; the answers are the same
-- ===================================================================
SELECT * FROM offload_check($$SELECT sum(l.l_price) / 7.0 AS avg_yearly FROM rs_li l JOIN rs_part p ON p.p_partkey = l.l_partkey
 WHERE p.p_brand = 'Brand#3' AND p.p_size < 5
   AND l.l_qty < (SELECT 0.2 * avg(l2.l_qty) FROM rs_li l2 WHERE l2.l_partkey = p.p_partkey)$$);
SELECT * FROM offload_check($$SELECT s.s_suppkey, x.* FROM rs_supp s LEFT JOIN LATERAL
  (SELECT ps.ps_partkey, s.s_acctbal * 2 AS dbl FROM rs_ps ps WHERE ps.ps_partkey < 3) x ON x.ps_partkey = s.s_suppkey
 WHERE s.s_suppkey < 5$$);
SELECT * FROM offload_check($$SELECT k FROM rs_probe WHERE k NOT IN (SELECT k FROM rs_nul WHERE pad > 'a')$$);
RESET ossd.min_relation_pages;

DROP TABLE rs_part, rs_supp, rs_ps, rs_ord, rs_li, rs_cust, rs_nul, rs_probe;
DROP FUNCTION rs_loops(text);
