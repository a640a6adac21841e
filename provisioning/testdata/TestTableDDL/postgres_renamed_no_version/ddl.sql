CREATE TABLE IF NOT EXISTS "sales"."outbox_events" (
  "event_id" uuid NOT NULL,
  "AggType" varchar(255) NOT NULL,
  "aggregateid" varchar(255) NOT NULL,
  "type" varchar(255) NOT NULL,
  "payload" bytea,
  "relay_tx" bigint NOT NULL DEFAULT txid_current(),
  "relay_seq" bigserial NOT NULL,
  PRIMARY KEY ("event_id")
);
CREATE INDEX IF NOT EXISTS "outbox_events_relay_order_idx" ON "sales"."outbox_events" ("relay_tx", "relay_seq");
