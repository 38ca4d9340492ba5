--
-- ossd_rls_views: offload never lets a user see, or make a function see,
-- a row that row-level security or a security_barrier view hides.
--
-- PostgreSQL orders a scan's quals by security_level: the policies' quals
-- (level 0) run first, the user's quals after them, and a user qual may
-- run earlier only if it is leakproof (restriction_is_securely_promotable,
-- order_qual_clauses).  The drive's filter runs ahead of every host qual
-- (on the drive, and on the host for the blocks and rows the drive does
-- not decide), so a qual that is not leakproof goes to the drive only
-- when no qual of a lower level stays on the host.  Each block shows the
-- plan (EXPLAIN (VERBOSE, COSTS OFF): what is in the Device Filter, what
-- in the host's Filter) before the query whose answer depends on it, and
-- offload_check()/offload_same() compare the answer with ossd.enabled =
-- off.  Leaky functions record what they see in rls_seen: a hidden row
-- recorded there is a leak, whatever the query returned.
--
-- Roles: a table owner who is not a superuser, two plain roles; the
-- superuser (the file's user) bypasses policies.
--
SET extra_float_digits = 0;
SET datestyle = 'ISO, YMD';
SET default_tablespace = ossd;
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = notice;

-- offload_check(q), offload_same(q): tests/pg/regress-helpers.sql

-- ===================================================================
-- Roles, the documents table (frozen and checkpointed: every block on
-- the drive), a few changed rows afterwards (host blocks), and the
-- record of what leaky functions saw
-- ===================================================================
CREATE ROLE regress_ossd_rls_owner;
CREATE ROLE regress_ossd_rls_alice;
CREATE ROLE regress_ossd_rls_bob;
GRANT CREATE ON TABLESPACE ossd TO regress_ossd_rls_owner;
CREATE TABLE rls_doc (id int4, owner name, grp int4, lvl int4, title text,
                      amount numeric(10,2), d date, pad text);
INSERT INTO rls_doc
  SELECT g,
         (ARRAY['regress_ossd_rls_alice', 'regress_ossd_rls_bob', 'nobody'])[g % 3 + 1],
         g % 10, g % 5,
         CASE WHEN g % 3 = 2 THEN 'hidden ' ELSE 'doc ' END || g,
         (g % 1000) / 4.0, date '2020-01-01' + g % 700, repeat('r', 120)
  FROM generate_series(1, 12000) g;
VACUUM (FREEZE, ANALYZE) rls_doc;
CHECKPOINT;
-- two changed blocks: the host scans them with the same quals
UPDATE rls_doc SET pad = 'changed' WHERE id IN (5, 6000);
ALTER TABLE rls_doc OWNER TO regress_ossd_rls_owner;
GRANT SELECT ON rls_doc TO regress_ossd_rls_alice, regress_ossd_rls_bob;
CREATE TABLE rls_seen (who name, title text);
GRANT INSERT, SELECT, DELETE ON rls_seen TO PUBLIC;
-- a leaky function: records every title it is shown
CREATE FUNCTION rls_leak(text) RETURNS bool LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
  INSERT INTO rls_seen VALUES (current_user, $1);
  RETURN true;
END
$$;
-- the same body declared LEAKPROOF (a superuser's promise): it may run
-- before the policies, and does
CREATE FUNCTION rls_leak_lp(text) RETURNS bool LANGUAGE plpgsql LEAKPROOF COST 0.0000001 AS $$
BEGIN
  INSERT INTO rls_seen VALUES (current_user, $1);
  RETURN true;
END
$$;
-- how many titles the leaky functions saw, and how many of those the
-- caller may not see through src (the table under its policies, or a
-- view); then forget them.  Titles are unique.
CREATE FUNCTION rls_leaked(src text DEFAULT 'rls_doc', OUT seen bigint, OUT hidden_seen bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT count(*), count(*) FILTER (WHERE s.title NOT IN (SELECT title FROM %s WHERE title IS NOT NULL))
                    FROM rls_seen s', src) INTO seen, hidden_seen;
  DELETE FROM rls_seen;
END
$$;
-- the drive's counters (offload_check) for the plain roles
GRANT EXECUTE ON FUNCTION ossd_device_stats(text) TO regress_ossd_rls_owner,
  regress_ossd_rls_alice, regress_ossd_rls_bob;
SELECT relpages >= 100 AS pages, relallvisible > 0 AS all_visible FROM pg_class WHERE relname = 'rls_doc';

-- ===================================================================
-- A permissive policy the drive can evaluate (a constant comparison):
-- the drive filters by the policy and by the user's leakproof quals
-- ===================================================================
ALTER TABLE rls_doc ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_grp ON rls_doc FOR SELECT USING (grp < 3);
SET ossd.force_offload = on;
SET ROLE regress_ossd_rls_alice;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_doc WHERE id < 40;
SELECT id, title FROM rls_doc WHERE id < 40 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, title FROM rls_doc WHERE id < 40$$);
SELECT * FROM offload_check($$SELECT id, title FROM rls_doc WHERE id > 11000$$);
-- the user's qual is not leakproof (numeric_lt), the policy's qual is on
-- the drive too: both there, the policy's first on the host's blocks
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, amount FROM rls_doc WHERE amount < 2.5;
SELECT id, amount FROM rls_doc WHERE amount < 2.5 ORDER BY id LIMIT 12;
SELECT * FROM offload_check($$SELECT id, amount FROM rls_doc WHERE amount < 2.5$$);
-- an aggregate over what the policy lets through: on the drive
EXPLAIN (VERBOSE, COSTS OFF) SELECT grp, count(*), sum(amount) FROM rls_doc GROUP BY grp;
SELECT grp, count(*), sum(amount) FROM rls_doc GROUP BY grp ORDER BY grp;
SELECT * FROM offload_check($$SELECT grp, count(*), sum(amount) FROM rls_doc GROUP BY grp$$);
SELECT * FROM offload_check($$SELECT count(*), min(d), max(d) FROM rls_doc WHERE lvl = 2$$);
-- a leaky function in the user's WHERE: on the host, after the policy
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM rls_doc WHERE rls_leak(title) AND id < 30;
SELECT id FROM rls_doc WHERE rls_leak(title) AND id < 30 ORDER BY id;
SELECT * FROM rls_leaked();
RESET ROLE;

-- ===================================================================
-- A policy only the host can evaluate (current_user is stable, name is
-- not a type of the drive's): the user's quals that are not leakproof
-- stay on the host behind it; leakproof ones still go to the drive
-- ===================================================================
DROP POLICY rls_grp ON rls_doc;
CREATE POLICY rls_mine ON rls_doc FOR SELECT USING (owner = current_user);
SET ROLE regress_ossd_rls_alice;
-- int4 < is leakproof: on the drive, ahead of the policy
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_doc WHERE id < 40;
SELECT id, title FROM rls_doc WHERE id < 40 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, title FROM rls_doc WHERE id < 40$$);
-- LIKE is not leakproof: the host evaluates it after the policy
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_doc WHERE title LIKE 'hidden 1%';
SELECT count(*) FROM rls_doc WHERE title LIKE 'hidden 1%';
SELECT * FROM offload_check($$SELECT id, title FROM rls_doc WHERE title LIKE 'hidden 1%'$$);
-- numeric and date-against-timestamp comparisons are not leakproof
-- either; text equality and date < date are
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM rls_doc WHERE amount > 120 AND d < timestamp '2020-09-01' AND title <> 'doc 4' AND d >= date '2020-01-15';
SELECT * FROM offload_check($$SELECT id FROM rls_doc WHERE amount > 120 AND d < timestamp '2020-09-01' AND title <> 'doc 4' AND d >= date '2020-01-15'$$);
-- the leaky function sees alice's rows only, with offload and without
SELECT count(*) FROM rls_doc WHERE rls_leak(title) AND id < 3000;
SELECT * FROM rls_leaked();
SET ossd.enabled = off;
SELECT count(*) FROM rls_doc WHERE rls_leak(title) AND id < 3000;
SELECT * FROM rls_leaked();
RESET ossd.enabled;
-- a LEAKPROOF function may run before the policy, and sees every row
-- the drive's leakproof filter passes (PostgreSQL's choice, not a leak)
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM rls_doc WHERE rls_leak_lp(title) AND id < 30;
SELECT count(*) FROM rls_doc WHERE rls_leak_lp(title) AND id < 30;
SELECT * FROM rls_leaked();
-- an aggregate: the policy stays on the host, so does the aggregate
EXPLAIN (VERBOSE, COSTS OFF) SELECT lvl, count(*) FROM rls_doc WHERE id < 6000 GROUP BY lvl;
SELECT lvl, count(*) FROM rls_doc WHERE id < 6000 GROUP BY lvl ORDER BY lvl;
SELECT * FROM offload_check($$SELECT lvl, count(*) FROM rls_doc WHERE id < 6000 GROUP BY lvl$$);
-- bob sees his own rows, none of alice's
SET ROLE regress_ossd_rls_bob;
SELECT owner, count(*) FROM rls_doc GROUP BY owner;
SELECT * FROM offload_check($$SELECT id, owner FROM rls_doc WHERE id < 100$$);
SELECT count(*) FROM rls_doc WHERE rls_leak(title) AND title LIKE '%1%';
SELECT * FROM rls_leaked();
RESET ROLE;

-- ===================================================================
-- A deployed kernel (ossd_filter) is not leakproof: a kernel that
-- faults on some values would tell the user about rows the policy
-- hides (the drive ran it on them).  It runs on the host, behind the
-- policy; as the owner's (no policy) it goes to the drive
-- ===================================================================
SELECT length(ossd_deploy_kernel('rls_faulty', image)) AS hash_len FROM test_kernels WHERE name = 'faulty';
-- alice's titles long enough for the kernel, the others short
UPDATE rls_doc SET title = repeat('a', 300) WHERE owner = 'regress_ossd_rls_alice';
VACUUM (FREEZE, ANALYZE) rls_doc;
CHECKPOINT;
SET ROLE regress_ossd_rls_alice;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM rls_doc WHERE ossd_filter('rls_faulty', title);
SELECT count(*) FROM rls_doc WHERE ossd_filter('rls_faulty', title);
SELECT * FROM offload_check($$SELECT id FROM rls_doc WHERE ossd_filter('rls_faulty', title) OR id < 3$$);
RESET ROLE;
-- no policy applies to the superuser: the kernel runs on the drive
-- (where it faults on a short title)
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM rls_doc WHERE ossd_filter('rls_faulty', title);
SELECT ossd_drop_kernel('rls_faulty');
UPDATE rls_doc SET title = CASE WHEN id % 3 = 2 THEN 'hidden ' ELSE 'doc ' END || id
 WHERE owner = 'regress_ossd_rls_alice';
VACUUM (FREEZE, ANALYZE) rls_doc;
CHECKPOINT;

-- ===================================================================
-- Permissive policies OR together, restrictive ones AND with them
-- ===================================================================
DROP POLICY rls_mine ON rls_doc;
CREATE POLICY rls_low ON rls_doc FOR SELECT USING (lvl <= 1);
CREATE POLICY rls_grp9 ON rls_doc FOR SELECT USING (grp = 9);
CREATE POLICY rls_recent ON rls_doc AS RESTRICTIVE FOR SELECT USING (d >= date '2020-06-01');
SET ROLE regress_ossd_rls_alice;
-- all three on the drive: (lvl <= 1 OR grp = 9) AND d >= ...
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, lvl, grp, d FROM rls_doc WHERE id < 400;
SELECT id, lvl, grp, d FROM rls_doc WHERE id < 400 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, lvl, grp, d FROM rls_doc WHERE id < 400$$);
SELECT * FROM offload_check($$SELECT lvl, grp, count(*) FROM rls_doc GROUP BY lvl, grp$$);
SELECT lvl, grp, count(*) FROM rls_doc GROUP BY lvl, grp ORDER BY lvl, grp;
SELECT count(*) FROM rls_doc WHERE rls_leak(title);
SELECT * FROM rls_leaked();
RESET ROLE;
-- a restrictive policy only the host evaluates: the user's non-leakproof
-- quals wait for it, the permissive ones still on the drive
CREATE POLICY rls_not_nobody ON rls_doc AS RESTRICTIVE FOR SELECT USING (owner <> 'nobody'::name);
SET ROLE regress_ossd_rls_bob;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM rls_doc WHERE amount = 100.25 OR id = 4001;
SELECT id, owner, amount FROM rls_doc WHERE amount = 100.25 OR id = 4001 ORDER BY id;
SELECT * FROM offload_check($$SELECT id FROM rls_doc WHERE amount = 100.25 OR id = 4001$$);
SELECT * FROM offload_check($$SELECT owner, count(*) FROM rls_doc GROUP BY owner$$);
SELECT count(*) FROM rls_doc WHERE rls_leak(title) AND owner <> 'x';
SELECT * FROM rls_leaked();
RESET ROLE;
DROP POLICY rls_low ON rls_doc;
DROP POLICY rls_grp9 ON rls_doc;
DROP POLICY rls_recent ON rls_doc;
DROP POLICY rls_not_nobody ON rls_doc;

-- ===================================================================
-- A policy with a subquery (a grants table): a semi join on the host,
-- the documents' scan offloaded underneath
-- ===================================================================
CREATE TABLE rls_grant (who name, grp int4);
INSERT INTO rls_grant VALUES ('regress_ossd_rls_alice', 1), ('regress_ossd_rls_alice', 4),
  ('regress_ossd_rls_bob', 4), ('regress_ossd_rls_bob', 7);
GRANT SELECT ON rls_grant TO PUBLIC;
CREATE POLICY rls_granted ON rls_doc FOR SELECT
  USING (grp IN (SELECT g.grp FROM rls_grant g WHERE g.who = current_user));
SET ROLE regress_ossd_rls_alice;
EXPLAIN (VERBOSE, COSTS OFF) SELECT grp, count(*) FROM rls_doc WHERE lvl IN (1, 3) GROUP BY grp;
SELECT grp, count(*) FROM rls_doc WHERE lvl IN (1, 3) GROUP BY grp ORDER BY grp;
SELECT * FROM offload_check($$SELECT grp, count(*) FROM rls_doc WHERE lvl IN (1, 3) GROUP BY grp$$);
SELECT * FROM offload_check($$SELECT id, title FROM rls_doc WHERE title LIKE 'doc 1%' AND lvl = 4$$);
SELECT count(*) FROM rls_doc WHERE rls_leak(title) AND lvl = 4;
SELECT * FROM rls_leaked();
SET ROLE regress_ossd_rls_bob;
SELECT grp, count(*) FROM rls_doc GROUP BY grp ORDER BY grp;
SELECT * FROM offload_check($$SELECT grp, count(*) FROM rls_doc GROUP BY grp$$);
RESET ROLE;
DROP POLICY rls_granted ON rls_doc;

-- ===================================================================
-- The owner: not subject to the policies unless FORCE ROW LEVEL
-- SECURITY; then as any user.  row_security = off refuses instead of
-- filtering
-- ===================================================================
CREATE POLICY rls_grp ON rls_doc FOR SELECT USING (grp < 3);
SET ROLE regress_ossd_rls_owner;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM rls_doc WHERE lvl = 1;
SELECT count(*) FROM rls_doc WHERE lvl = 1;
SELECT * FROM offload_check($$SELECT count(*) FROM rls_doc WHERE lvl = 1$$);
RESET ROLE;
ALTER TABLE rls_doc FORCE ROW LEVEL SECURITY;
SET ROLE regress_ossd_rls_owner;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM rls_doc WHERE lvl = 1;
SELECT count(*) FROM rls_doc WHERE lvl = 1;
SELECT * FROM offload_check($$SELECT count(*) FROM rls_doc WHERE lvl = 1$$);
SELECT * FROM offload_check($$SELECT grp, lvl, count(*) FROM rls_doc WHERE lvl = 1 GROUP BY grp, lvl$$);
RESET ROLE;
ALTER TABLE rls_doc NO FORCE ROW LEVEL SECURITY;
SET ROLE regress_ossd_rls_alice;
SET row_security = off;
SELECT count(*) FROM rls_doc WHERE lvl = 1;
RESET row_security;
SELECT count(*) FROM rls_doc WHERE lvl = 1;
RESET ROLE;
-- the superuser bypasses them: every row, on the drive
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM rls_doc WHERE lvl = 1;
SELECT count(*) FROM rls_doc WHERE lvl = 1;

-- ===================================================================
-- Policies per command: a FOR UPDATE/DELETE policy does not filter a
-- SELECT; UPDATE and DELETE targets are never offloaded, the answers
-- after them are checked on the drive
-- ===================================================================
CREATE TABLE rls_w AS SELECT * FROM rls_doc ORDER BY id;
VACUUM (FREEZE, ANALYZE) rls_w;
CHECKPOINT;
ALTER TABLE rls_w OWNER TO regress_ossd_rls_owner;
GRANT SELECT, UPDATE, DELETE ON rls_w TO regress_ossd_rls_alice;
ALTER TABLE rls_w ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_w_sel ON rls_w FOR SELECT USING (true);
CREATE POLICY rls_w_upd ON rls_w FOR UPDATE USING (owner = current_user)
  WITH CHECK (lvl < 5);
CREATE POLICY rls_w_del ON rls_w FOR DELETE USING (owner = current_user AND grp = 0);
SET ROLE regress_ossd_rls_alice;
SELECT * FROM offload_check($$SELECT count(*) FROM rls_w WHERE lvl = 2$$);
EXPLAIN (COSTS OFF) UPDATE rls_w SET lvl = 4 WHERE lvl = 2 AND id < 3000;
UPDATE rls_w SET lvl = 4 WHERE lvl = 2 AND id < 3000;
-- alice's row moved out of what WITH CHECK allows: refused
UPDATE rls_w SET lvl = 9 WHERE id = 3;
EXPLAIN (COSTS OFF) DELETE FROM rls_w WHERE id < 2000;
DELETE FROM rls_w WHERE id < 2000;
SELECT owner, lvl, count(*) FROM rls_w WHERE id < 3000 GROUP BY owner, lvl ORDER BY owner, lvl;
SELECT * FROM offload_check($$SELECT owner, lvl, count(*) FROM rls_w WHERE id < 3000 GROUP BY owner, lvl$$);
SELECT * FROM offload_check($$SELECT id, lvl FROM rls_w WHERE lvl = 4$$);
RESET ROLE;
DROP TABLE rls_w;

-- ===================================================================
-- security_barrier views: the view's quals first; the caller's quals
-- enter the view only if leakproof, and only those reach the drive
-- ===================================================================
ALTER TABLE rls_doc DISABLE ROW LEVEL SECURITY;
CREATE VIEW rls_sbv WITH (security_barrier) AS
  SELECT id, grp, lvl, title, amount FROM rls_doc WHERE lvl = 2 AND title NOT LIKE 'hidden%';
CREATE VIEW rls_plainv AS
  SELECT id, grp, lvl, title, amount FROM rls_doc WHERE lvl = 2 AND title NOT LIKE 'hidden%';
ALTER VIEW rls_sbv OWNER TO regress_ossd_rls_owner;
ALTER VIEW rls_plainv OWNER TO regress_ossd_rls_owner;
GRANT SELECT ON rls_sbv, rls_plainv TO regress_ossd_rls_alice;
REVOKE SELECT ON rls_doc FROM regress_ossd_rls_alice;
SET ROLE regress_ossd_rls_alice;
-- the view's quals on the drive, and the caller's leakproof qual
-- pushed into the view with them
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_sbv WHERE id < 200;
SELECT id, title FROM rls_sbv WHERE id < 200 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, title FROM rls_sbv WHERE id < 200$$);
-- a leaky function stays above the barrier: it sees the view's rows only
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM rls_sbv WHERE rls_leak(title) AND id < 500;
SELECT count(*) FROM rls_sbv WHERE rls_leak(title) AND id < 500;
SELECT * FROM rls_leaked('rls_sbv');
-- a qual that is not leakproof (numeric) stays above the barrier too
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM rls_sbv WHERE amount > 100;
SELECT * FROM offload_check($$SELECT id FROM rls_sbv WHERE amount > 100$$);
-- the plain view is flattened: its quals and the leaky function are
-- ordered by cost alone, the function first.  Offloaded, the view's
-- quals run on the drive before it and it sees none of the rows the
-- view hides; on the host it sees them (a plain view promises nothing)
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM rls_plainv WHERE rls_leak(title) AND id < 500;
SELECT count(*) FROM rls_plainv WHERE rls_leak(title) AND id < 500;
SELECT * FROM rls_leaked('rls_plainv');
SET ossd.enabled = off;
SELECT count(*) FROM rls_plainv WHERE rls_leak(title) AND id < 500;
SELECT * FROM rls_leaked('rls_plainv');
RESET ossd.enabled;
-- aggregates over the barrier view
EXPLAIN (VERBOSE, COSTS OFF) SELECT grp, count(*), sum(amount) FROM rls_sbv GROUP BY grp;
SELECT grp, count(*), sum(amount) FROM rls_sbv GROUP BY grp ORDER BY grp;
SELECT * FROM offload_check($$SELECT grp, count(*), sum(amount) FROM rls_sbv GROUP BY grp$$);
-- a barrier view joined to itself, and in a subquery
SELECT * FROM offload_check($$SELECT a.id, b.id FROM rls_sbv a JOIN rls_sbv b ON a.id = b.id + 5 WHERE a.id < 1000$$);
SELECT * FROM offload_check($$SELECT id FROM rls_sbv WHERE grp IN (SELECT grp FROM rls_sbv WHERE id < 100)$$);
RESET ROLE;
-- a barrier view over a barrier view: two levels of quals
CREATE VIEW rls_sbv2 WITH (security_barrier) AS SELECT id, title, amount FROM rls_sbv WHERE grp < 5;
ALTER VIEW rls_sbv2 OWNER TO regress_ossd_rls_owner;
GRANT SELECT ON rls_sbv2 TO regress_ossd_rls_alice;
SET ROLE regress_ossd_rls_alice;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_sbv2 WHERE rls_leak(title) AND id < 1000;
SELECT count(*) FROM rls_sbv2 WHERE rls_leak(title) AND id < 1000;
SELECT * FROM rls_leaked('rls_sbv2');
SELECT * FROM offload_check($$SELECT id, title FROM rls_sbv2 WHERE amount < 50$$);
RESET ROLE;
DROP VIEW rls_sbv2;

-- ===================================================================
-- security_invoker views (PostgreSQL 15): the caller's privileges and
-- the table's policies, as if the caller had written the query
-- ===================================================================
CREATE VIEW rls_inv WITH (security_invoker) AS SELECT id, owner, grp, title FROM rls_doc WHERE lvl < 3;
ALTER VIEW rls_inv OWNER TO regress_ossd_rls_owner;
GRANT SELECT ON rls_inv TO regress_ossd_rls_alice, regress_ossd_rls_bob;
ALTER TABLE rls_doc ENABLE ROW LEVEL SECURITY;
DROP POLICY rls_grp ON rls_doc;
CREATE POLICY rls_mine ON rls_doc FOR SELECT USING (owner = current_user);
-- alice cannot read the table any more: neither through the view
SET ROLE regress_ossd_rls_alice;
SELECT count(*) FROM rls_inv;
RESET ROLE;
-- bob can, and the policy filters for him
SET ROLE regress_ossd_rls_bob;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_inv WHERE title LIKE 'doc 2%' AND id < 3000;
SELECT count(*) FROM rls_inv WHERE title LIKE 'doc 2%' AND id < 3000;
SELECT * FROM offload_check($$SELECT id, title FROM rls_inv WHERE title LIKE 'doc 2%' AND id < 3000$$);
SELECT count(*) FROM rls_inv WHERE rls_leak(title) AND id < 3000;
SELECT * FROM rls_leaked('rls_inv');
RESET ROLE;
DROP VIEW rls_inv;
DROP POLICY rls_mine ON rls_doc;
ALTER TABLE rls_doc DISABLE ROW LEVEL SECURITY;
GRANT SELECT ON rls_doc TO regress_ossd_rls_alice;

-- ===================================================================
-- Column privileges: the scan reads only the columns the query names;
-- a column not granted is refused the same with offload and without
-- ===================================================================
CREATE TABLE rls_col (id int4, public_k int4, secret_k int4, note text, pad text);
INSERT INTO rls_col SELECT g, g % 7, (g * 31) % 1000, 'n' || g, repeat('k', 150) FROM generate_series(1, 8000) g;
VACUUM (FREEZE, ANALYZE) rls_col;
CHECKPOINT;
GRANT SELECT (id, public_k, note) ON rls_col TO regress_ossd_rls_bob;
SET ROLE regress_ossd_rls_bob;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, note FROM rls_col WHERE public_k = 3 AND id < 100;
SELECT id, note FROM rls_col WHERE public_k = 3 AND id < 100 ORDER BY id;
SELECT * FROM offload_check($$SELECT id, note FROM rls_col WHERE public_k = 3 AND id < 100$$);
SELECT * FROM offload_check($$SELECT public_k, count(*), max(id) FROM rls_col GROUP BY public_k$$);
-- a qual, a projection, a whole row, an aggregate of a column not
-- granted: refused at parse time, offload or not
SELECT id FROM rls_col WHERE secret_k = 3;
SELECT secret_k FROM rls_col WHERE id = 3;
SELECT c FROM rls_col c WHERE id = 3;
SELECT sum(secret_k) FROM rls_col;
SELECT count(*) FROM rls_col;
SET ossd.enabled = off;
SELECT id FROM rls_col WHERE secret_k = 3;
SELECT count(*) FROM rls_col;
RESET ossd.enabled;
RESET ROLE;
-- the column granted later: the same query runs, offloaded
GRANT SELECT (secret_k) ON rls_col TO regress_ossd_rls_bob;
SET ROLE regress_ossd_rls_bob;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM rls_col WHERE secret_k = 3;
SELECT id FROM rls_col WHERE secret_k = 3 ORDER BY id;
SELECT * FROM offload_check($$SELECT id FROM rls_col WHERE secret_k = 3$$);
RESET ROLE;
DROP TABLE rls_col;

-- ===================================================================
-- SECURITY DEFINER functions: the definer's rights and policies run the
-- offloaded scan inside
-- ===================================================================
ALTER TABLE rls_doc ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_mine ON rls_doc FOR SELECT USING (owner = current_user);
CREATE FUNCTION rls_count_as_owner(l int4) RETURNS bigint LANGUAGE sql SECURITY DEFINER
  AS $$ SELECT count(*) FROM rls_doc WHERE lvl = l $$;
ALTER FUNCTION rls_count_as_owner(int4) OWNER TO regress_ossd_rls_owner;
CREATE FUNCTION rls_count_as_me(l int4) RETURNS bigint LANGUAGE sql
  AS $$ SELECT count(*) FROM rls_doc WHERE lvl = l $$;
SET ROLE regress_ossd_rls_alice;
SELECT l, rls_count_as_owner(l) AS owner_sees, rls_count_as_me(l) AS alice_sees
  FROM generate_series(0, 4) l;
SET ossd.enabled = off;
SELECT l, rls_count_as_owner(l) AS owner_sees, rls_count_as_me(l) AS alice_sees
  FROM generate_series(0, 4) l;
RESET ossd.enabled;
RESET ROLE;
DROP FUNCTION rls_count_as_owner(int4);
DROP FUNCTION rls_count_as_me(int4);
DROP POLICY rls_mine ON rls_doc;
ALTER TABLE rls_doc DISABLE ROW LEVEL SECURITY;
RESET ossd.force_offload;

-- ===================================================================
-- Default settings (no force_offload): the same plans' choices at the
-- default costs give the same answers, and no hidden row reaches a
-- leaky function
-- ===================================================================
ALTER TABLE rls_doc ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_mine ON rls_doc FOR SELECT USING (owner = current_user AND lvl < 4);
SET ROLE regress_ossd_rls_alice;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, title FROM rls_doc WHERE id < 600 AND title LIKE 'doc%';
SELECT * FROM offload_check($$SELECT id, title FROM rls_doc WHERE id < 600 AND title LIKE 'doc%'$$);
SELECT count(*) FROM rls_doc WHERE rls_leak(title) AND id < 600;
SELECT * FROM rls_leaked();
RESET ROLE;
DROP POLICY rls_mine ON rls_doc;

DROP VIEW rls_sbv, rls_plainv;
DROP TABLE rls_doc, rls_grant, rls_seen;
DROP FUNCTION rls_leak(text);
DROP FUNCTION rls_leak_lp(text);
DROP FUNCTION rls_leaked(text);
REVOKE CREATE ON TABLESPACE ossd FROM regress_ossd_rls_owner;
REVOKE EXECUTE ON FUNCTION ossd_device_stats(text) FROM regress_ossd_rls_owner,
  regress_ossd_rls_alice, regress_ossd_rls_bob;
DROP ROLE regress_ossd_rls_owner, regress_ossd_rls_alice, regress_ossd_rls_bob;
