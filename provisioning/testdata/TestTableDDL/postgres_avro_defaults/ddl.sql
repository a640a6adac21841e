CREATE TABLE IF NOT EXISTS "public"."outbox" (
  "id" uuid NOT NULL,
  "aggregatetype" varchar(255) NOT NULL,
  "aggregateid" varchar(255) NOT NULL,
  "type" varchar(255) NOT NULL,
  "payload" bytea,
  "schemaversion" integer NOT NULL,
  PRIMARY KEY ("id")
);
