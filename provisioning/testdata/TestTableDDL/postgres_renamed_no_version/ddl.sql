CREATE TABLE IF NOT EXISTS "sales"."outbox_events" (
  "event_id" uuid NOT NULL,
  "AggType" varchar(255) NOT NULL,
  "aggregateid" varchar(255) NOT NULL,
  "type" varchar(255) NOT NULL,
  "payload" bytea,
  PRIMARY KEY ("event_id")
);
