-- create-table: create outbox table public.outbox
CREATE TABLE IF NOT EXISTS "public"."outbox" (
  "id" uuid NOT NULL,
  "aggregatetype" varchar(255) NOT NULL,
  "aggregateid" varchar(255) NOT NULL,
  "type" varchar(255) NOT NULL,
  "payload" bytea,
  "schemaversion" integer NOT NULL,
  "relay_tx" bigint NOT NULL DEFAULT txid_current(),
  "relay_seq" bigserial NOT NULL,
  PRIMARY KEY ("id")
);
-- create-table: create outbox table public.outbox
CREATE INDEX IF NOT EXISTS "outbox_relay_order_idx" ON "public"."outbox" ("relay_tx", "relay_seq");
-- create-publication: create publication orders_outbox_pub for the outbox table (inserts only)
CREATE PUBLICATION "orders_outbox_pub" FOR TABLE "public"."outbox" WITH (publish = 'insert');
-- create-user: create replication role dbz (LOGIN REPLICATION)
CREATE ROLE "dbz" WITH LOGIN REPLICATION PASSWORD '********';
-- grant: let dbz read the outbox table
GRANT USAGE ON SCHEMA "public" TO "dbz";
-- grant: let dbz read the outbox table
GRANT SELECT ON "public"."outbox" TO "dbz";
-- owner-group: create owner group orders_outbox_pub_owner
DO $outboxctl$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'orders_outbox_pub_owner') THEN CREATE ROLE "orders_outbox_pub_owner" NOLOGIN; END IF; END$outboxctl$;
-- owner-group: make dbz a member of orders_outbox_pub_owner
GRANT "orders_outbox_pub_owner" TO "dbz";
-- owner-group: keep the table's current owner a member of orders_outbox_pub_owner
GRANT "orders_outbox_pub_owner" TO CURRENT_USER;
-- owner-group: hand the outbox table to orders_outbox_pub_owner
ALTER TABLE "public"."outbox" OWNER TO "orders_outbox_pub_owner";
-- owner-group: hand publication orders_outbox_pub to orders_outbox_pub_owner
ALTER PUBLICATION "orders_outbox_pub" OWNER TO "orders_outbox_pub_owner";
