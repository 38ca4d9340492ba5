-- indexes.sql - after the load: the primary keys, the foreign keys and the
-- foreign-key indexes as the usual PostgreSQL TPC-H setups create them,
-- all on the tablespace named by the psql variable "tablespace".
\set ON_ERROR_STOP 1
SET default_tablespace = :tablespace;
SET maintenance_work_mem = '256MB';

ALTER TABLE region   ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD PRIMARY KEY (n_nationkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE part     ADD PRIMARY KEY (p_partkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE orders   ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);

ALTER TABLE nation   ADD FOREIGN KEY (n_regionkey) REFERENCES region;
ALTER TABLE supplier ADD FOREIGN KEY (s_nationkey) REFERENCES nation;
ALTER TABLE customer ADD FOREIGN KEY (c_nationkey) REFERENCES nation;
ALTER TABLE partsupp ADD FOREIGN KEY (ps_partkey) REFERENCES part;
ALTER TABLE partsupp ADD FOREIGN KEY (ps_suppkey) REFERENCES supplier;
ALTER TABLE orders   ADD FOREIGN KEY (o_custkey) REFERENCES customer;
ALTER TABLE lineitem ADD FOREIGN KEY (l_orderkey) REFERENCES orders;
ALTER TABLE lineitem ADD FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp;

CREATE INDEX nation_regionkey_idx   ON nation (n_regionkey);
CREATE INDEX supplier_nationkey_idx ON supplier (s_nationkey);
CREATE INDEX customer_nationkey_idx ON customer (c_nationkey);
CREATE INDEX partsupp_suppkey_idx   ON partsupp (ps_suppkey);
CREATE INDEX orders_custkey_idx     ON orders (o_custkey);
CREATE INDEX orders_orderdate_idx   ON orders (o_orderdate);
CREATE INDEX lineitem_part_supp_idx ON lineitem (l_partkey, l_suppkey);
CREATE INDEX lineitem_shipdate_idx  ON lineitem (l_shipdate);
