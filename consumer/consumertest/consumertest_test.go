package consumertest_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/consumer/inbox/inboxtest"
)

// The pipeline builds records as the EventRouter with the generated config
// routes them: topic outbox.event.<aggregate type>, key = aggregate id,
// headers: Debezium context headers, id, then the placements in order.
func TestPipelineRecordShape(t *testing.T) {
	for _, kind := range []string{"postgres", "mysql", "mariadb"} {
		for _, format := range []string{consumertest.FormatJSON, consumertest.FormatAvro} {
			t.Run(kind+"/"+format, func(t *testing.T) {
				p, err := consumertest.NewPipeline(consumertest.ConnectorConfig(kind, format))
				if err != nil {
					t.Fatal(err)
				}
				if p.Format() != format {
					t.Fatalf("Format = %s, want %s", p.Format(), format)
				}
				payload := []byte(`{"a": 1}`)
				if format == consumertest.FormatAvro {
					payload = []byte{0, 0, 0, 0, 7, 2, 'x'}
				}
				row := consumertest.Row{ID: "4d47e190-0402-4048-bc2c-89dd80ab9b0a", AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 2, Payload: payload}
				m1 := p.MustRecord(row)
				m2 := p.MustRecord(row)
				if m1.Topic != "outbox.event.Order" || string(m1.Key) != "o-1" {
					t.Errorf("topic/key = %s/%s", m1.Topic, m1.Key)
				}
				if m1.Offset != 0 || m2.Offset != 1 {
					t.Errorf("offsets = %d, %d, want 0, 1", m1.Offset, m2.Offset)
				}
				var keys []string
				for _, h := range m1.Headers {
					keys = append(keys, h.Key)
				}
				n := len(keys)
				if n < 3 || keys[n-3] != "id" || keys[n-2] != "eventType" || keys[n-1] != "schemaVersion" {
					t.Fatalf("headers = %v, want ... id eventType schemaVersion", keys)
				}
				if v, _ := m1.Header("schemaVersion"); string(v) != "2" {
					t.Errorf("schemaVersion = %q", v)
				}
				if v, _ := m1.Header("id"); string(v) != row.ID {
					t.Errorf("id = %q", v)
				}
				if format == consumertest.FormatAvro && string(m1.Value) != string(payload) {
					t.Errorf("avro value changed: %q", m1.Value)
				}
				if format == consumertest.FormatJSON && len(m1.Value) == 0 {
					t.Error("empty json value")
				}
			})
		}
	}
}

func TestRegistry(t *testing.T) {
	var r consumertest.Registry
	s := `{"type":"record","name":"A","fields":[{"name":"x","type":"long"}]}`
	id, err := r.Register(s)
	if err != nil || id != 1 {
		t.Fatalf("Register = %d, %v", id, err)
	}
	if id2, _ := r.Register(s); id2 != id {
		t.Errorf("re-register gave id %d", id2)
	}
	b, err := r.Encode(id, map[string]any{"x": int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != 0 || binary.BigEndian.Uint32(b[1:5]) != 1 || len(b) != 6 || b[5] != 6 {
		t.Errorf("wire bytes = %v", b)
	}
	if got, err := r.SchemaByID(context.Background(), 1); err != nil || got != s {
		t.Errorf("SchemaByID = %q, %v", got, err)
	}
	if _, err := r.SchemaByID(context.Background(), 2); err == nil {
		t.Error("SchemaByID(2) did not fail")
	}
}

// The in-memory inbox passes the conformance suite (without the blocking
// behaviour, which needs a real database).
func TestInboxConformance(t *testing.T) {
	in := consumertest.NewInbox()
	defer in.Close()
	inboxtest.Run(t, in, inboxtest.Features{RejectsInvalidKeys: true})
}

// A handler that reads through Event.Tx gets a clear error from the
// in-memory inbox, not an empty result it would mistake for "no rows".
func TestInboxRefusesQueries(t *testing.T) {
	in := consumertest.NewInbox()
	defer in.Close()
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g"})
	if err != nil {
		t.Fatal(err)
	}
	var scanErr error
	if err := consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		if _, err := ev.Tx.ExecContext(ctx, "INSERT INTO invoices (order_id) VALUES ($1)", ev.Payload["orderId"]); err != nil {
			return err
		}
		var n int
		scanErr = ev.Tx.QueryRowContext(ctx, "SELECT count(*) FROM invoices").Scan(&n)
		_, err := ev.Tx.QueryContext(ctx, "SELECT order_id FROM invoices")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	p, err := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	if err != nil {
		t.Fatal(err)
	}
	m := p.MustRecord(consumertest.Row{ID: "4d47e190-0402-4048-bc2c-89dd80ab9b0a", AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{"orderId":"o-1"}`)})
	err = r.Process(context.Background(), m)
	if !errors.Is(err, consumertest.ErrNoDatabase) || !errors.Is(scanErr, consumertest.ErrNoDatabase) {
		t.Fatalf("Process = %v, QueryRow.Scan = %v; want ErrNoDatabase for both", err, scanErr)
	}
	if !strings.Contains(err.Error(), "SELECT order_id FROM invoices") {
		t.Errorf("error %q does not name the query", err)
	}
	if in.Processed("g", "4d47e190-0402-4048-bc2c-89dd80ab9b0a") || len(in.Committed()) != 0 {
		t.Error("the failed handler's transaction committed")
	}
}
