package outbox_test

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/spec"
)

// recorder is a fake transaction: it records the SQL and arguments it is
// given (examples cannot reach a database).
type recorder struct{}

func (recorder) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	fmt.Println(query)
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			fmt.Printf("  arg %d: % x\n", i+1, b)
			continue
		}
		fmt.Printf("  arg %d: %v\n", i+1, a)
	}
	return nil, nil
}

const exampleSpec = `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: pg, user: app, dbname: orders}
    payloadFormat: avro
    events:
      - name: OrderCreated
        aggregate: Order
        versions: [{major: 1, schema: OrderCreated.v1.avsc}]
`

func Example() {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(exampleSpec)})
	if err != nil {
		panic(err)
	}
	w, err := outbox.NewWriter(outbox.TableFor(&s.Outboxes[0]))
	if err != nil {
		panic(err)
	}
	// 7: the id the registry returned for this schema.
	enc, err := outbox.NewAvroEncoderFromSchema(7, `{"type":"record","name":"OrderCreated","fields":[{"name":"total","type":"long"}]}`)
	if err != nil {
		panic(err)
	}
	payload, _ := enc.Encode(map[string]any{"total": int64(1999)})

	var tx recorder // in an application: tx, _ := db.BeginTx(ctx, nil)
	id, err := w.Write(context.Background(), tx, outbox.Event{
		ID:            "0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1", // usually left empty: a UUIDv7 is generated
		AggregateType: "Order",
		AggregateID:   "order-42",
		Type:          "OrderCreated",
		SchemaVersion: 1,
		Payload:       payload,
	})
	fmt.Println(id, err)
	// Output:
	// INSERT INTO "public"."outbox" ("id", "aggregatetype", "aggregateid", "type", "payload", "schemaversion") VALUES ($1, $2, $3, $4, $5, $6)
	//   arg 1: 0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1
	//   arg 2: Order
	//   arg 3: order-42
	//   arg 4: OrderCreated
	//   arg 5: 00 00 00 00 07 9e 1f
	//   arg 6: 1
	// 0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1 <nil>
}

func ExampleWriter_WriteAll() {
	doc := `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: payments
    database:
      kind: mariadb
      connection: {host: maria, user: app, dbname: payments}
    payloadFormat: json
    columns: {timestamp: created_at}
`
	s, _ := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	ids := []string{"0190a0b1-0000-7000-8000-000000000001", "0190a0b1-0000-7000-8000-000000000002"}
	n := 0
	w, _ := outbox.NewWriter(outbox.TableFor(&s.Outboxes[0]),
		outbox.WithIDGenerator(func() (string, error) { n++; return ids[n-1], nil }),
		outbox.WithClock(func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }),
	)
	_, err := w.WriteAll(context.Background(), recorder{}, []outbox.Event{
		{AggregateType: "Payment", AggregateID: "p-1", Type: "PaymentCaptured", SchemaVersion: 1, Payload: []byte(`{"amount":10}`)},
		{AggregateType: "Payment", AggregateID: "p-2", Type: "PaymentCaptured", SchemaVersion: 1, Payload: []byte(`{"amount":20}`)},
	})
	fmt.Println(err)
	// Output:
	// INSERT INTO `payments`.`outbox` (`id`, `aggregatetype`, `aggregateid`, `type`, `payload`, `created_at`, `schemaversion`) VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?)
	//   arg 1: 0190a0b1-0000-7000-8000-000000000001
	//   arg 2: Payment
	//   arg 3: p-1
	//   arg 4: PaymentCaptured
	//   arg 5: {"amount":10}
	//   arg 6: 2026-11-30 10:00:00 +0000 UTC
	//   arg 7: 1
	//   arg 8: 0190a0b1-0000-7000-8000-000000000002
	//   arg 9: Payment
	//   arg 10: p-2
	//   arg 11: PaymentCaptured
	//   arg 12: {"amount":20}
	//   arg 13: 2026-11-30 10:00:00 +0000 UTC
	//   arg 14: 1
	// <nil>
}

// A typed write with delete-after-insert: the Go value is encoded with the
// pinned schema (in production WithSchemas(RegistryByEventType(...)) looks the
// id up), and the row is deleted in the same transaction.
func ExampleWriter_Write_typed() {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(exampleSpec + "    writer: {deleteAfterInsert: true}\n")})
	if err != nil {
		panic(err)
	}
	schema, err := avro.Parse([]byte(`{"type":"record","name":"OrderCreated","fields":[{"name":"total","type":"long"}]}`))
	if err != nil {
		panic(err)
	}
	type OrderCreated struct {
		Total int64 `avro:"total"`
	}
	w, err := outbox.NewWriter(outbox.TableFor(&s.Outboxes[0]),
		outbox.WithPinnedSchema("OrderCreated", 1, 7, schema),
		outbox.WithIDGenerator(func() (string, error) { return "0190f0a5-7c1e-7a3b-9c1d-2f4e5a6b7c8d", nil }))
	if err != nil {
		panic(err)
	}
	var tx recorder // in an application: pgx's pool.Begin(ctx), then outbox.Pgx(tx)
	_, err = w.Write(context.Background(), tx, outbox.Event{
		AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1,
		Value: OrderCreated{Total: 1999},
	})
	fmt.Println(err)
	// Output:
	// INSERT INTO "public"."outbox" ("id", "aggregatetype", "aggregateid", "type", "payload", "schemaversion") VALUES ($1, $2, $3, $4, $5, $6)
	//   arg 1: 0190f0a5-7c1e-7a3b-9c1d-2f4e5a6b7c8d
	//   arg 2: Order
	//   arg 3: o-1
	//   arg 4: OrderCreated
	//   arg 5: 00 00 00 00 07 9e 1f
	//   arg 6: 1
	// DELETE FROM "public"."outbox" WHERE "id" IN ($1)
	//   arg 1: 0190f0a5-7c1e-7a3b-9c1d-2f4e5a6b7c8d
	// <nil>
}
