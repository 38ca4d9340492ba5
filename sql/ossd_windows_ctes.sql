--
-- ossd_windows_ctes: offloaded scans below the query shapes that work on
-- their rows after the scan: window functions (frames, ties, partitions),
-- grouping sets / ROLLUP / CUBE, DISTINCT and DISTINCT ON, recursive CTEs
-- (a drive join filter under a recursive union must be rebuilt per
-- iteration, never replay the last one's rows), MATERIALIZED and NOT
-- MATERIALIZED CTEs, LIMIT / OFFSET / FETCH WITH TIES, ORDER BY NULLS
-- FIRST / LAST, TABLESAMPLE (never offloaded) and set operations.  The
-- scan below them is what the drive runs (Device Filter, Device
-- Projection, Device Partial Aggregates); everything above it is the
-- host's, so each answer must be that of offload off.  Each plan is
-- shown before the query it explains.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET ossd.min_relation_pages = 0;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql

-- ===================================================================
-- Test data: sales-like rows with ties, NULLs in keys and values, and a
-- tree (parent links) for the recursive queries
-- ===================================================================
CREATE TABLE wc (id int4, region text, shop int4, day date, amount numeric(10,2),
                 qty int4, tag text, pad text);
INSERT INTO wc SELECT g,
       CASE WHEN g % 53 = 0 THEN NULL ELSE (ARRAY['north', 'south', 'east', 'west'])[g % 4 + 1] END,
       g % 7,
       date '2024-01-01' + g % 60,
       CASE WHEN g % 41 = 0 THEN NULL ELSE ((g * 37) % 500) / 4.0 END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE g % 10 END,
       CASE WHEN g % 3 = 0 THEN 'a' WHEN g % 3 = 1 THEN 'b' ELSE NULL END,
       repeat('w', 80)
  FROM generate_series(1, 6000) g;
CREATE TABLE wc_tree (id int4, parent int4, name text, weight int4, pad text);
INSERT INTO wc_tree SELECT g, CASE WHEN g <= 3 THEN NULL ELSE g / 3 END, 'n' || g, g % 11, repeat('t', 60)
  FROM generate_series(1, 4000) g;
-- a graph with a cycle (1 -> 2 -> 3 -> 1) and a chain beside it
CREATE TABLE wc_edge (src int4, dst int4, cost int4, pad text);
INSERT INTO wc_edge VALUES (1, 2, 5, 'e'), (2, 3, 2, 'e'), (3, 1, 7, 'e'), (3, 4, 1, 'e'), (4, 5, 1, 'e');
INSERT INTO wc_edge SELECT g, g + 1, g % 5 + 1, repeat('e', 40) FROM generate_series(10, 3000) g;
VACUUM (FREEZE, ANALYZE) wc, wc_tree, wc_edge;
CHECKPOINT;
SET ossd.force_offload = on;

-- ===================================================================
-- Window functions: the scan filters and projects on the drive, the
-- WindowAgg sorts and computes on the host.  Ranking with ties (rank,
-- dense_rank, row_number with a total order), running sums with ROWS,
-- RANGE and GROUPS frames, EXCLUDE, lag/lead/first_value/nth_value,
-- ntile, percent_rank, cume_dist, and several windows in one query
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id, region, amount, rank() OVER (PARTITION BY region ORDER BY amount DESC NULLS LAST)
  FROM wc WHERE shop = 3 AND id < 400;
SELECT id, region, amount, rank() OVER (PARTITION BY region ORDER BY amount DESC NULLS LAST)
  FROM wc WHERE shop = 3 AND id < 200 ORDER BY region NULLS FIRST, 4, id;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id, rank() OVER (PARTITION BY region ORDER BY amount DESC NULLS LAST) FROM wc WHERE shop = 3'),
  ('SELECT id, dense_rank() OVER (PARTITION BY shop ORDER BY qty) FROM wc WHERE id < 3000'),
  ('SELECT id, row_number() OVER (PARTITION BY tag ORDER BY day, id) FROM wc WHERE amount > 50'),
  ('SELECT id, percent_rank() OVER (ORDER BY amount), cume_dist() OVER (ORDER BY amount) FROM wc WHERE shop = 1'),
  ('SELECT id, ntile(7) OVER (ORDER BY id) FROM wc WHERE region = ''east'''),
  ('SELECT id, sum(amount) OVER (PARTITION BY region ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) FROM wc WHERE shop = 2'),
  ('SELECT id, sum(amount) OVER (ORDER BY day RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM wc WHERE shop = 4'),
  ('SELECT id, sum(qty) OVER (ORDER BY day RANGE BETWEEN interval ''3 days'' PRECEDING AND CURRENT ROW) FROM wc WHERE shop = 5'),
  ('SELECT id, count(*) OVER (ORDER BY qty GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM wc WHERE shop = 6'),
  ('SELECT id, sum(qty) OVER (ORDER BY qty ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES) FROM wc WHERE id < 500'),
  ('SELECT id, sum(qty) OVER (ORDER BY qty RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) FROM wc WHERE id < 500'),
  ('SELECT id, lag(amount, 2) OVER w, lead(amount) OVER w FROM wc WHERE shop = 0 WINDOW w AS (PARTITION BY region ORDER BY id)'),
  ('SELECT id, first_value(amount) OVER w, last_value(amount) OVER w, nth_value(amount, 3) OVER w FROM wc WHERE shop = 0
     WINDOW w AS (PARTITION BY region ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)'),
  ('SELECT id, avg(amount) OVER (PARTITION BY region), max(qty) OVER (PARTITION BY shop), min(day) OVER () FROM wc WHERE id % 5 = 0'),
  ('SELECT region, shop, sum(amount), rank() OVER (PARTITION BY region ORDER BY sum(amount) DESC) FROM wc GROUP BY region, shop'),
  ('SELECT id, count(*) FILTER (WHERE tag = ''a'') OVER (ORDER BY id ROWS 10 PRECEDING) FROM wc WHERE shop = 1')
) v(q), LATERAL offload_same(v.q) c;
-- a window over grouped rows: with a window function above it the
-- grouping stays a host Agg (ossd_aggregates.sql), over the drive's
-- projected rows
EXPLAIN (VERBOSE, COSTS OFF)
SELECT shop, sum(amount) AS total, rank() OVER (ORDER BY sum(amount) DESC), sum(sum(amount)) OVER ()
  FROM wc GROUP BY shop;
SELECT shop, sum(amount) AS total, rank() OVER (ORDER BY sum(amount) DESC), sum(sum(amount)) OVER ()
  FROM wc GROUP BY shop ORDER BY shop;
-- the top rows per partition (a window in a subquery, filtered above)
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT id, region, amount, row_number() OVER (PARTITION BY region ORDER BY amount DESC NULLS LAST, id) AS rn
                 FROM wc WHERE qty > 5) s WHERE rn <= 2;
SELECT * FROM (SELECT id, region, amount, row_number() OVER (PARTITION BY region ORDER BY amount DESC NULLS LAST, id) AS rn
                 FROM wc WHERE qty > 5) s WHERE rn <= 2 ORDER BY region NULLS FIRST, rn;
SELECT * FROM offload_check($$SELECT * FROM (SELECT id, region, amount, row_number() OVER (PARTITION BY region ORDER BY amount DESC NULLS LAST, id) AS rn
                 FROM wc WHERE qty > 5) s WHERE rn <= 2$$);
-- ties: rank() and dense_rank() of equal amounts in the drive's and the
-- host's row orders are the same (the order of rows within a tie is not
-- part of the answer)
SELECT amount, rank() OVER (ORDER BY amount), dense_rank() OVER (ORDER BY amount), count(*) OVER (PARTITION BY amount)
  FROM wc WHERE shop = 3 AND amount < 3 ORDER BY amount, 2;
SELECT * FROM offload_check($$SELECT amount, rank() OVER (ORDER BY amount), dense_rank() OVER (ORDER BY amount) FROM wc WHERE shop = 3$$);

-- ===================================================================
-- Grouping sets, ROLLUP and CUBE: host aggregation (the drive computes
-- only plain GROUP BY), over an offloaded scan with its filter
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT region, shop, count(*), sum(amount) FROM wc WHERE qty < 3 GROUP BY ROLLUP (region, shop);
SELECT region, shop, grouping(region, shop), count(*), sum(amount) FROM wc WHERE qty < 3 AND shop < 2
 GROUP BY ROLLUP (region, shop) ORDER BY 3, region NULLS FIRST, shop NULLS FIRST;
SELECT region, tag, grouping(region, tag), count(*) FROM wc WHERE shop = 1 GROUP BY CUBE (region, tag)
 ORDER BY 3, region NULLS FIRST, tag NULLS FIRST;
SELECT v.q, c.* FROM (VALUES
  ('SELECT region, shop, count(*), sum(amount) FROM wc WHERE qty < 3 GROUP BY ROLLUP (region, shop)'),
  ('SELECT region, tag, grouping(region, tag), count(*) FROM wc GROUP BY CUBE (region, tag)'),
  ('SELECT shop, qty, count(*) FROM wc GROUP BY GROUPING SETS ((shop), (qty), ())'),
  ('SELECT region, day, max(amount) FROM wc WHERE day < date ''2024-01-05'' GROUP BY GROUPING SETS ((region, day), (day))'),
  ('SELECT shop, tag, avg(qty) FROM wc GROUP BY shop, ROLLUP (tag)'),
  ('SELECT region, count(DISTINCT shop) FROM wc GROUP BY ROLLUP (region)'),
  ('SELECT region, shop, sum(qty) FROM wc GROUP BY ROLLUP (region, shop) HAVING sum(qty) > 1500'),
  ('SELECT region, tag, count(*) FROM wc GROUP BY DISTINCT ROLLUP (region, tag), ROLLUP (region)')
) v(q), LATERAL offload_same(v.q) c;

-- ===================================================================
-- DISTINCT and DISTINCT ON: a plain DISTINCT of columns is grouped on
-- the drive (a grouping with no aggregate, duplicates dropped there and
-- between its shares on the host); DISTINCT ON, or over expressions, is
-- a host Unique or HashAggregate over the drive's rows
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF) SELECT DISTINCT shop FROM wc WHERE qty > 2;
SELECT DISTINCT shop FROM wc WHERE qty > 2 ORDER BY shop;
EXPLAIN (VERBOSE, COSTS OFF) SELECT DISTINCT ON (region) region, id, amount FROM wc ORDER BY region, amount DESC, id;
SELECT DISTINCT ON (region) region, id, amount FROM wc ORDER BY region, amount DESC NULLS LAST, id;
SELECT v.q, c.* FROM (VALUES
  ('SELECT DISTINCT shop FROM wc WHERE qty > 2'),
  ('SELECT DISTINCT region, tag FROM wc'),
  ('SELECT DISTINCT qty FROM wc WHERE amount IS NULL'),
  ('SELECT DISTINCT amount FROM wc WHERE shop = 2'),
  ('SELECT DISTINCT day, shop FROM wc WHERE region = ''north'''),
  ('SELECT DISTINCT ON (region) region, id, amount FROM wc ORDER BY region, amount DESC NULLS LAST, id'),
  ('SELECT DISTINCT ON (shop, tag) shop, tag, day FROM wc ORDER BY shop, tag, day DESC, id'),
  ('SELECT DISTINCT ON (qty) qty, id FROM wc WHERE region IS NULL ORDER BY qty NULLS FIRST, id'),
  ('SELECT count(DISTINCT region), count(DISTINCT (region, tag)) FROM wc'),
  ('SELECT DISTINCT lower(tag) FROM wc')
) v(q), LATERAL offload_same(v.q) c;

-- ===================================================================
-- Recursive CTEs.  The seed and the recursive term scan drive tables;
-- in the recursive term the scan is rescanned once per iteration, with
-- the work table (a new set of rows each time) on the other side.  A
-- hash join there puts a drive join filter on the scan, built from the
-- work table: it must be rebuilt on every iteration (ossd_joinfilter.c),
-- and the scan must not read the last iteration's stored rows
-- (ossd_rescan: never with a join filter).  ossd_joins_params.sql has a
-- first case; here: trees, depth and breadth, cycles (CYCLE and UNION),
-- SEARCH, and several shapes of the recursive term.
-- ===================================================================
EXPLAIN (COSTS OFF)
WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM wc_tree WHERE id = 2
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT depth, count(*), min(id), max(id) FROM sub GROUP BY depth ORDER BY depth;
WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM wc_tree WHERE id = 2
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT depth, count(*), min(id), max(id) FROM sub GROUP BY depth ORDER BY depth;
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM wc_tree WHERE id = 2
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT * FROM sub$$);
-- the recursive term with a filter of its own on the drive (weight), and
-- the path built as an array
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, path) AS (
  SELECT id, ARRAY[id] FROM wc_tree WHERE parent IS NULL
  UNION ALL
  SELECT t.id, s.path || t.id FROM sub s JOIN wc_tree t ON t.parent = s.id WHERE t.weight > 2)
SELECT * FROM sub$$);
WITH RECURSIVE sub(id, path) AS (
  SELECT id, ARRAY[id] FROM wc_tree WHERE parent IS NULL
  UNION ALL
  SELECT t.id, s.path || t.id FROM sub s JOIN wc_tree t ON t.parent = s.id WHERE t.weight > 2)
SELECT cardinality(path) AS depth, count(*), max(path) FROM sub GROUP BY 1 ORDER BY 1;
-- upwards: from leaves to the root, one row per step
SELECT * FROM offload_check($$WITH RECURSIVE up(id, parent, steps) AS (
  SELECT id, parent, 0 FROM wc_tree WHERE id IN (3999, 2500, 7)
  UNION ALL
  SELECT t.id, t.parent, u.steps + 1 FROM up u JOIN wc_tree t ON t.id = u.parent)
SELECT * FROM up$$);
WITH RECURSIVE up(id, parent, steps) AS (
  SELECT id, parent, 0 FROM wc_tree WHERE id = 3999
  UNION ALL
  SELECT t.id, t.parent, u.steps + 1 FROM up u JOIN wc_tree t ON t.id = u.parent)
SELECT * FROM up ORDER BY steps;
-- the same with hash and nested-loop joins forced in turn: the join
-- filter (hash: a drive scan per iteration) and a plain rescan (nested
-- loop, the drive table on its outer side: read again from the rows it
-- stored, fewer drive scans) give the same rows
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
WITH RECURSIVE up(id, parent, steps) AS (
  SELECT id, parent, 0 FROM wc_tree WHERE id IN (3999, 2500, 7)
  UNION ALL
  SELECT t.id, t.parent, u.steps + 1 FROM up u JOIN wc_tree t ON t.id = u.parent)
SELECT * FROM up;
SELECT * FROM offload_check($$WITH RECURSIVE up(id, parent, steps) AS (
  SELECT id, parent, 0 FROM wc_tree WHERE id IN (3999, 2500, 7)
  UNION ALL
  SELECT t.id, t.parent, u.steps + 1 FROM up u JOIN wc_tree t ON t.id = u.parent)
SELECT * FROM up$$);
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM wc_tree WHERE id = 5
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT * FROM sub$$);
RESET enable_nestloop;
SET enable_hashjoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
WITH RECURSIVE up(id, parent, steps) AS (
  SELECT id, parent, 0 FROM wc_tree WHERE id IN (3999, 2500, 7)
  UNION ALL
  SELECT t.id, t.parent, u.steps + 1 FROM up u JOIN wc_tree t ON t.id = u.parent)
SELECT * FROM up;
SELECT * FROM offload_check($$WITH RECURSIVE up(id, parent, steps) AS (
  SELECT id, parent, 0 FROM wc_tree WHERE id IN (3999, 2500, 7)
  UNION ALL
  SELECT t.id, t.parent, u.steps + 1 FROM up u JOIN wc_tree t ON t.id = u.parent)
SELECT * FROM up$$);
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM wc_tree WHERE id = 5
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT * FROM sub$$);
RESET enable_hashjoin;
RESET enable_material;
RESET enable_mergejoin;
-- a graph with a cycle: UNION (not ALL) stops when no new row appears;
-- CYCLE marks the cycle; SEARCH BREADTH FIRST orders the rows
SELECT * FROM offload_check($$WITH RECURSIVE reach(node) AS (
  SELECT 1
  UNION
  SELECT e.dst FROM reach r JOIN wc_edge e ON e.src = r.node)
SELECT * FROM reach$$);
WITH RECURSIVE reach(node) AS (
  SELECT 1
  UNION
  SELECT e.dst FROM reach r JOIN wc_edge e ON e.src = r.node)
SELECT * FROM reach ORDER BY node;
WITH RECURSIVE walk(node, total) AS (
  SELECT 1, 0
  UNION ALL
  SELECT e.dst, w.total + e.cost FROM walk w JOIN wc_edge e ON e.src = w.node)
  CYCLE node SET is_cycle USING path
SELECT node, total, is_cycle, path FROM walk ORDER BY path;
SELECT * FROM offload_check($$WITH RECURSIVE walk(node, total) AS (
  SELECT 1, 0
  UNION ALL
  SELECT e.dst, w.total + e.cost FROM walk w JOIN wc_edge e ON e.src = w.node)
  CYCLE node SET is_cycle USING path
SELECT node, total, is_cycle, path FROM walk$$);
WITH RECURSIVE sub(id, parent) AS (
  SELECT id, parent FROM wc_tree WHERE id = 1
  UNION ALL
  SELECT t.id, t.parent FROM sub s JOIN wc_tree t ON t.parent = s.id WHERE t.id < 40)
  SEARCH BREADTH FIRST BY id SET ord
SELECT id, parent FROM sub ORDER BY ord;
WITH RECURSIVE sub(id, parent) AS (
  SELECT id, parent FROM wc_tree WHERE id = 1
  UNION ALL
  SELECT t.id, t.parent FROM sub s JOIN wc_tree t ON t.parent = s.id WHERE t.id < 40)
  SEARCH DEPTH FIRST BY id SET ord
SELECT id, parent FROM sub ORDER BY ord;
-- a long chain (150 iterations), each joining the work table's single
-- row to the drive table: each iteration's join filter holds one key
SELECT * FROM offload_check($$WITH RECURSIVE chain(node, n) AS (
  SELECT 10, 0
  UNION ALL
  SELECT e.dst, c.n + 1 FROM chain c JOIN wc_edge e ON e.src = c.node WHERE c.n < 150)
SELECT * FROM chain$$);
WITH RECURSIVE chain(node, n) AS (
  SELECT 10, 0
  UNION ALL
  SELECT e.dst, c.n + 1 FROM chain c JOIN wc_edge e ON e.src = c.node WHERE c.n < 150)
SELECT count(*), max(node), sum(node) FROM chain;
-- the recursive term joins two drive tables
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, w) AS (
  SELECT id, weight FROM wc_tree WHERE id = 4
  UNION ALL
  SELECT t.id, s.w + e.cost FROM sub s JOIN wc_tree t ON t.parent = s.id JOIN wc_edge e ON e.src = t.id)
SELECT * FROM sub$$);
-- a recursive CTE used twice, and a drive scan correlated with it
SELECT * FROM offload_check($$WITH RECURSIVE sub(id) AS (
  SELECT 2 UNION ALL SELECT t.id FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT a.id, (SELECT count(*) FROM sub b WHERE b.id < a.id) FROM sub a WHERE a.id < 60$$);
-- an aggregate over a drive table in the seed
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, depth) AS (
  SELECT max(id) / 100, 0 FROM wc_tree
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT * FROM sub$$);

-- ===================================================================
-- MATERIALIZED and NOT MATERIALIZED CTEs: a materialized CTE is one
-- drive scan read by every reference; not materialized, each reference
-- is inlined and its filter goes to the drive with the outer query's
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
WITH s AS MATERIALIZED (SELECT id, shop, amount FROM wc WHERE qty = 4)
SELECT a.shop, count(*), sum(b.amount) FROM s a JOIN s b ON a.id = b.id + 10 GROUP BY a.shop;
SELECT * FROM offload_check($$WITH s AS MATERIALIZED (SELECT id, shop, amount FROM wc WHERE qty = 4)
SELECT a.shop, count(*), sum(b.amount) FROM s a JOIN s b ON a.id = b.id + 10 GROUP BY a.shop$$);
EXPLAIN (VERBOSE, COSTS OFF)
WITH s AS NOT MATERIALIZED (SELECT id, shop, amount FROM wc WHERE qty = 4)
SELECT count(*) FROM s WHERE shop = 2 AND amount > 60;
SELECT * FROM offload_check($$WITH s AS NOT MATERIALIZED (SELECT id, shop, amount FROM wc WHERE qty = 4)
SELECT id FROM s WHERE shop = 2 AND amount > 60$$);
-- a CTE referenced once is inlined by default; with a volatile function
-- it is not
EXPLAIN (COSTS OFF) WITH s AS (SELECT id, qty FROM wc WHERE shop = 6) SELECT count(*) FROM s WHERE qty > 7;
EXPLAIN (COSTS OFF) WITH s AS (SELECT id, qty, random() AS r FROM wc WHERE shop = 6) SELECT count(*) FROM s WHERE qty > 7;
SELECT * FROM offload_check($$WITH s AS (SELECT id, qty, random() * 0 AS r FROM wc WHERE shop = 6) SELECT id, r FROM s WHERE qty > 7$$);
-- an aggregating CTE, materialized, joined to the table it aggregates
SELECT * FROM offload_check($$WITH t AS MATERIALIZED (SELECT shop, avg(amount) AS a FROM wc GROUP BY shop)
SELECT w.id FROM wc w JOIN t ON t.shop = w.shop WHERE w.amount > t.a * 1.9$$);
-- a data-modifying CTE beside a drive scan: the scan sees the snapshot
-- of the statement's start
CREATE TABLE wc_log (id int4, amount numeric(10,2)) TABLESPACE pg_default;
WITH ins AS (INSERT INTO wc_log SELECT id, amount FROM wc WHERE shop = 1 AND qty = 1 RETURNING id)
SELECT (SELECT count(*) FROM ins) AS inserted, (SELECT count(*) FROM wc_log) AS seen_in_statement;
SELECT count(*), sum(amount) FROM wc_log;
SELECT * FROM offload_check($$SELECT id, amount FROM wc WHERE shop = 1 AND qty = 1$$);
DROP TABLE wc_log;

-- ===================================================================
-- LIMIT, OFFSET and FETCH FIRST ... WITH TIES: a Limit above a Sort
-- of the drive's rows (a top-N heap sort); WITH TIES returns every row
-- equal to the last one.  The order within ties is not part of the
-- answer, so the checks compare multisets of tie-complete results.
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id, amount FROM wc WHERE shop = 4 ORDER BY amount DESC NULLS LAST FETCH FIRST 5 ROWS WITH TIES;
SELECT amount FROM wc WHERE shop = 4 ORDER BY amount DESC NULLS LAST FETCH FIRST 5 ROWS WITH TIES;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id, amount FROM wc WHERE shop = 4 ORDER BY amount DESC NULLS LAST FETCH FIRST 5 ROWS WITH TIES'),
  ('SELECT id, qty FROM wc ORDER BY qty FETCH FIRST 1 ROW WITH TIES'),
  ('SELECT id, qty FROM wc ORDER BY qty NULLS FIRST FETCH FIRST 3 ROWS WITH TIES'),
  ('SELECT id, day FROM wc WHERE region = ''west'' ORDER BY day FETCH NEXT 20 ROWS WITH TIES'),
  ('SELECT id FROM wc WHERE shop = 2 ORDER BY id LIMIT 10 OFFSET 100'),
  ('SELECT id FROM wc WHERE shop = 2 ORDER BY id DESC LIMIT 10'),
  ('SELECT id FROM wc ORDER BY id OFFSET 5990'),
  ('SELECT id FROM wc ORDER BY id OFFSET 6000'),
  ('SELECT id FROM wc WHERE shop = 2 ORDER BY id LIMIT 0'),
  ('SELECT id FROM wc WHERE shop = 2 ORDER BY id LIMIT ALL'),
  ('SELECT id FROM wc WHERE shop = 2 ORDER BY id LIMIT NULL OFFSET NULL'),
  ('SELECT shop, sum(qty) FROM wc GROUP BY shop ORDER BY sum(qty) DESC LIMIT 3'),
  ('SELECT shop, count(*) FROM wc GROUP BY shop ORDER BY count(*) FETCH FIRST 2 ROWS WITH TIES')
) v(q), LATERAL offload_same(v.q) c;
-- a LIMIT without ORDER BY stops the drive's stream early: only the
-- count is an answer
SELECT count(*) FROM (SELECT id FROM wc WHERE qty > 3 LIMIT 25) s;
SELECT count(*) FROM (SELECT id FROM wc WHERE qty > 3 OFFSET 3470 LIMIT 25) s;
-- LIMIT from a parameter, and from a subquery
PREPARE wc_lim (int, int) AS SELECT id FROM wc WHERE shop = $1 ORDER BY id LIMIT $2;
EXECUTE wc_lim(3, 4);
SELECT * FROM offload_check($$EXECUTE wc_lim(5, 300)$$);
DEALLOCATE wc_lim;
SELECT * FROM offload_check($$SELECT id FROM wc ORDER BY id LIMIT (SELECT count(*) FROM wc WHERE shop = 0)$$);

-- ===================================================================
-- ORDER BY with NULLS FIRST / LAST, DESC, several keys and collations:
-- the sort is the host's over the drive's rows, in full order (ties
-- broken by id) so the rows and their order are the answer
-- ===================================================================
SELECT id, qty, amount FROM wc WHERE shop = 3 AND id < 300 ORDER BY qty NULLS FIRST, amount DESC NULLS LAST, id LIMIT 12;
SELECT id, region FROM wc WHERE shop = 2 AND (region IS NULL OR id < 40) ORDER BY region DESC NULLS FIRST, id;
SELECT id, tag, amount FROM wc WHERE id BETWEEN 40 AND 60 ORDER BY tag NULLS LAST, amount NULLS FIRST, id;
-- the full order compared as arrays: the same with offload off
CREATE FUNCTION wc_order_same(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
  saved text := current_setting('ossd.enabled');
BEGIN
  EXECUTE 'SELECT array_agg(s::text) FROM (' || q || ') s' INTO a;
  PERFORM set_config('ossd.enabled', 'off', false);
  EXECUTE 'SELECT array_agg(s::text) FROM (' || q || ') s' INTO b;
  PERFORM set_config('ossd.enabled', saved, false);
  RETURN a IS NOT DISTINCT FROM b;
END
$$;
SELECT v.q, wc_order_same(v.q) FROM (VALUES
  ('SELECT id, qty, amount FROM wc ORDER BY qty NULLS FIRST, amount DESC NULLS LAST, id'),
  ('SELECT id, qty FROM wc ORDER BY qty DESC NULLS LAST, id DESC'),
  ('SELECT id, region FROM wc ORDER BY region NULLS FIRST, id'),
  ('SELECT id, region FROM wc ORDER BY region COLLATE "C" DESC, id'),
  ('SELECT id, tag FROM wc ORDER BY tag USING >, id USING <'),
  ('SELECT shop, sum(amount) FROM wc GROUP BY shop ORDER BY 2 DESC NULLS LAST'),
  ('SELECT id, amount FROM wc WHERE shop = 1 ORDER BY amount IS NULL, amount, id')
) v(q);

-- ===================================================================
-- TABLESAMPLE: never offloaded (the sample's block choice is the
-- host's); REPEATABLE gives the same sample with offload on and off
-- ===================================================================
EXPLAIN (COSTS OFF) SELECT count(*) FROM wc TABLESAMPLE SYSTEM (50) REPEATABLE (7) WHERE shop = 1;
EXPLAIN (COSTS OFF) SELECT shop, count(*) FROM wc TABLESAMPLE BERNOULLI (30) REPEATABLE (3) GROUP BY shop;
SELECT v.q, c.* FROM (VALUES
  ('SELECT id FROM wc TABLESAMPLE SYSTEM (50) REPEATABLE (7) WHERE shop = 1'),
  ('SELECT shop, count(*) FROM wc TABLESAMPLE BERNOULLI (30) REPEATABLE (3) GROUP BY shop'),
  ('SELECT id FROM wc TABLESAMPLE BERNOULLI (0) WHERE qty = 1'),
  ('SELECT count(*) FROM wc TABLESAMPLE SYSTEM (100)')
) v(q), LATERAL offload_check(v.q) c;
-- a sampled table joined to an offloaded one: only the other is on the
-- drive
EXPLAIN (COSTS OFF)
SELECT count(*) FROM wc a TABLESAMPLE SYSTEM (100) REPEATABLE (1) JOIN wc b ON a.id = b.id + 1 WHERE b.qty = 2;
SELECT * FROM offload_check($$SELECT a.id FROM wc a TABLESAMPLE SYSTEM (100) REPEATABLE (1) JOIN wc b ON a.id = b.id + 1 WHERE b.qty = 2$$);

-- ===================================================================
-- Set operations: UNION / INTERSECT / EXCEPT (ALL or not) of drive
-- scans with different filters, with NULLs (equal in set operations),
-- nested, and with ORDER BY / LIMIT on the whole
-- ===================================================================
EXPLAIN (VERBOSE, COSTS OFF)
SELECT region, qty FROM wc WHERE shop = 1 INTERSECT SELECT region, qty FROM wc WHERE shop = 2;
SELECT region, qty FROM wc WHERE shop = 1 AND id < 400 INTERSECT SELECT region, qty FROM wc WHERE shop = 2 AND id < 400
 ORDER BY 1 NULLS FIRST, 2 NULLS FIRST;
SELECT v.q, c.* FROM (VALUES
  ('SELECT region, qty FROM wc WHERE shop = 1 INTERSECT SELECT region, qty FROM wc WHERE shop = 2'),
  ('SELECT region, qty FROM wc WHERE shop = 1 INTERSECT ALL SELECT region, qty FROM wc WHERE shop = 2'),
  ('SELECT qty FROM wc WHERE shop = 1 EXCEPT SELECT qty FROM wc WHERE tag = ''a'' AND qty > 4'),
  ('SELECT qty, tag FROM wc WHERE shop = 1 EXCEPT ALL SELECT qty, tag FROM wc WHERE amount > 30 AND shop = 2'),
  ('SELECT tag FROM wc WHERE shop = 3 UNION SELECT region FROM wc WHERE shop = 4'),
  ('SELECT amount FROM wc WHERE qty = 1 UNION ALL SELECT amount FROM wc WHERE qty = 2 UNION ALL SELECT NULL'),
  ('(SELECT id FROM wc WHERE shop = 1 UNION SELECT id FROM wc WHERE qty = 1) EXCEPT SELECT id FROM wc WHERE tag IS NULL'),
  ('SELECT shop, count(*) FROM wc GROUP BY shop UNION ALL SELECT qty, count(*) FROM wc GROUP BY qty'),
  ('SELECT day FROM wc WHERE shop = 0 INTERSECT SELECT day + 1 FROM wc WHERE shop = 6'),
  ('SELECT id FROM wc WHERE shop = 1 UNION SELECT id FROM wc_tree WHERE weight = 3')
) v(q), LATERAL offload_check(v.q) c;
(SELECT id, amount FROM wc WHERE shop = 1 UNION ALL SELECT id, amount FROM wc WHERE shop = 2)
 ORDER BY amount DESC NULLS LAST, id LIMIT 6;
SELECT wc_order_same($$(SELECT id, amount FROM wc WHERE shop = 1 UNION ALL SELECT id, amount FROM wc WHERE shop = 2)
 ORDER BY amount DESC NULLS LAST, id LIMIT 60$$);
-- a set operation in a subquery with a filter pushed into each branch
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT id, qty FROM wc WHERE shop = 1 UNION ALL SELECT id, weight FROM wc_tree) u WHERE qty = 9;
SELECT * FROM offload_check($$SELECT * FROM (SELECT id, qty FROM wc WHERE shop = 1 UNION ALL SELECT id, weight FROM wc_tree) u WHERE qty = 9$$);

-- ===================================================================
-- The shapes together: a window over a recursive CTE's rows joined to a
-- drive table, ranked per depth and limited with ties
-- ===================================================================
SELECT * FROM offload_check($$WITH RECURSIVE sub(id, depth) AS (
  SELECT id, 0 FROM wc_tree WHERE id = 3
  UNION ALL
  SELECT t.id, s.depth + 1 FROM sub s JOIN wc_tree t ON t.parent = s.id)
SELECT depth, id, w, rank() OVER (PARTITION BY depth ORDER BY w DESC) FROM
  (SELECT s.depth, s.id, t.weight AS w FROM sub s JOIN wc_tree t ON t.id = s.id) x
 ORDER BY depth, 4 FETCH FIRST 30 ROWS WITH TIES$$);

RESET ossd.force_offload;
DROP FUNCTION wc_order_same(text);
DROP TABLE wc, wc_tree, wc_edge;
