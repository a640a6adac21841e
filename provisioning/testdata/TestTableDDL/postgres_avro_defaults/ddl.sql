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
CREATE INDEX IF NOT EXISTS "outbox_relay_order_idx" ON "public"."outbox" ("relay_tx", "relay_seq");
