package outbox_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/outbox/dialect"
	"github.com/outboxctl/outboxctl/schemas/wire"
	"github.com/outboxctl/outboxctl/spec"
)

type call struct {
	query string
	args  []any
}

type fakeTx struct {
	calls []call
	err   error
}

func (f *fakeTx) ExecContext(_ context.Context, q string, args ...any) (sql.Result, error) {
	f.calls = append(f.calls, call{q, args})
	return nil, f.err
}

func table(t *testing.T, kind, format string, extra string) outbox.Table {
	t.Helper()
	doc := `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: o
    database:
      kind: ` + kind + `
      connection: {host: h, user: u, dbname: d}
    payloadFormat: ` + format + "\n" + extra
	s, err := spec.Parse(spec.Source{Name: "o.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	return outbox.TableFor(&s.Outboxes[0])
}

const events = `    events:
      - name: OrderCreated
        aggregate: Order
        versions: [{major: 1, schema: a.avsc}, {major: 2, schema: b.avsc}]
`

func TestWriteValidation(t *testing.T) {
	avro := wire.Frame(1, []byte{2})
	ok := outbox.Event{AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Payload: avro}
	with := func(f func(*outbox.Event)) outbox.Event { e := ok; f(&e); return e }
	cases := []struct {
		name   string
		format string
		extra  string
		opts   []outbox.Option
		ev     outbox.Event
		want   string // substring of the error; "" = ok
	}{
		{"ok", spec.FormatAvro, events, nil, ok, ""},
		{"missing aggregate type", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.AggregateType = "" }), "aggregate type is required"},
		{"missing aggregate id", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.AggregateID = "" }), "aggregate id is required"},
		{"missing type", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.Type = "" }), "type is required"},
		{"bad id", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.ID = "123" }), "not a canonical UUID"},
		{"long aggregate id", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.AggregateID = strings.Repeat("x", 256) }), "holds 255"},
		{"avro payload without magic byte", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.Payload = []byte{1, 0, 0, 0, 1, 2} }), "magic byte is 1"},
		{"avro payload too short", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.Payload = []byte{0, 0} }), "want at least 5"},
		{"json payload not json", spec.FormatJSON, "", nil, with(func(e *outbox.Event) { e.Payload = []byte("{") }), "not valid JSON"},
		{"json payload ok", spec.FormatJSON, "", nil, with(func(e *outbox.Event) { e.Payload = []byte(`{"a":1}`) }), ""},
		{"nil payload ok", spec.FormatJSON, "", nil, with(func(e *outbox.Event) { e.Payload = nil }), ""},
		{"missing schema version", spec.FormatAvro, "", nil, with(func(e *outbox.Event) { e.SchemaVersion = 0 }), "schema version (major, >= 1) is required"},
		{"no version column: version not needed", spec.FormatAvro, "    columns: {schemaVersion: \"\"}\n", nil, with(func(e *outbox.Event) { e.SchemaVersion = 0 }), ""},
		{"undeclared type", spec.FormatAvro, events, nil, with(func(e *outbox.Event) { e.Type = "OrderShipped" }), `type "OrderShipped" is not declared`},
		{"undeclared type allowed", spec.FormatAvro, events, []outbox.Option{outbox.AllowUndeclaredEvents()}, with(func(e *outbox.Event) { e.Type = "OrderShipped" }), ""},
		{"wrong aggregate", spec.FormatAvro, events, nil, with(func(e *outbox.Event) { e.AggregateType = "Payment" }), `belongs to aggregate "Order"`},
		{"undeclared major", spec.FormatAvro, events, nil, with(func(e *outbox.Event) { e.SchemaVersion = 3 }), "no major version 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := outbox.NewWriter(table(t, spec.Postgres, tc.format, tc.extra), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			tx := &fakeTx{}
			_, err = w.Write(context.Background(), tx, tc.ev)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Write: %v", err)
				}
				if len(tx.calls) != 1 {
					t.Fatalf("%d ExecContext calls, want 1", len(tx.calls))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, outbox.ErrInvalidEvent) {
				t.Fatalf("err = %v, want ErrInvalidEvent containing %q", err, tc.want)
			}
			if len(tx.calls) != 0 {
				t.Errorf("an invalid event reached the database: %v", tx.calls)
			}
		})
	}
}

func TestWriteArgsFollowContract(t *testing.T) {
	tb := table(t, spec.Postgres, spec.FormatJSON, "    columns: {timestamp: ts, tracing: trace}\n")
	w, err := outbox.NewWriter(tb)
	if err != nil {
		t.Fatal(err)
	}
	tx := &fakeTx{}
	id, err := w.Write(context.Background(), tx, outbox.Event{
		ID: "0190A0B1-C2D3-7E4F-8A5B-6C7D8E9FA0B1", AggregateType: "A", AggregateID: "1", Type: "T", SchemaVersion: 3,
		Payload: []byte(`{"x":1}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if id != "0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1" {
		t.Errorf("id = %q, want the lower-case form", id)
	}
	c := tx.calls[0]
	if want := `INSERT INTO "public"."outbox" ("id", "aggregatetype", "aggregateid", "type", "payload", "ts", "trace", "schemaversion") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`; c.query != want {
		t.Errorf("query\n got %s\nwant %s", c.query, want)
	}
	if len(c.args) != len(tb.Columns) {
		t.Fatalf("%d args for %d columns", len(c.args), len(tb.Columns))
	}
	if s, ok := c.args[4].(string); !ok || s != `{"x":1}` {
		t.Errorf("json payload arg = %#v, want the JSON text as a string", c.args[4])
	}
	if c.args[6] != nil {
		t.Errorf("empty trace context = %#v, want NULL", c.args[6])
	}
	if c.args[7] != 3 {
		t.Errorf("schema version arg = %#v", c.args[7])
	}
}

func TestWriteAllBatchesAndInsertError(t *testing.T) {
	w, err := outbox.NewWriter(table(t, spec.MySQL, spec.FormatJSON, ""), outbox.WithBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]outbox.Event, 5)
	for i := range evs {
		evs[i] = outbox.Event{AggregateType: "A", AggregateID: "1", Type: "T", SchemaVersion: 1}
	}
	tx := &fakeTx{}
	ids, err := w.WriteAll(context.Background(), tx, evs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 5 || len(tx.calls) != 3 {
		t.Fatalf("%d ids, %d INSERTs; want 5 ids in 3 INSERTs (2+2+1)", len(ids), len(tx.calls))
	}
	for i, n := range []int{12, 12, 6} {
		if len(tx.calls[i].args) != n || strings.Count(tx.calls[i].query, "?") != n {
			t.Errorf("INSERT %d: %d args, %d placeholders, want %d", i, len(tx.calls[i].args), strings.Count(tx.calls[i].query, "?"), n)
		}
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Errorf("generated ids not increasing: %s then %s", ids[i-1], ids[i])
		}
	}
	tx = &fakeTx{err: errors.New("duplicate key")}
	if _, err := w.Write(context.Background(), tx, evs[0]); !errors.Is(err, outbox.ErrInsert) || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("err = %v, want ErrInsert wrapping the driver error", err)
	}
}

func TestNewWriterRejectsBadTables(t *testing.T) {
	good := table(t, spec.MariaDB, spec.FormatAvro, "")
	cases := map[string]func(*outbox.Table){
		"dialect": func(tb *outbox.Table) { tb.Dialect = "oracle" },
		"name":    func(tb *outbox.Table) { tb.Name = "" },
		"format":  func(tb *outbox.Table) { tb.PayloadFormat = "protobuf" },
		"payload": func(tb *outbox.Table) { tb.Columns = tb.Columns[:4] },
	}
	for name, f := range cases {
		tb := good
		tb.Columns = append([]spec.Column(nil), good.Columns...)
		f(&tb)
		if _, err := outbox.NewWriter(tb); !errors.Is(err, outbox.ErrInvalidTable) {
			t.Errorf("%s: err = %v, want ErrInvalidTable", name, err)
		}
	}
}

func TestUUIDv7(t *testing.T) {
	prev := ""
	for i := 0; i < 10000; i++ {
		id, err := outbox.NewUUIDv7()
		if err != nil {
			t.Fatal(err)
		}
		if !outbox.IsUUID(id) || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("%q is not a version 7, variant 10 UUID", id)
		}
		if id <= prev {
			t.Fatalf("ids not strictly increasing: %s then %s", prev, id)
		}
		prev = id
	}
	for _, s := range []string{"", "0190a0b1c2d37e4f8a5b6c7d8e9fa0b1", "0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0bz", "0190a0b1-c2d3-7e4f-8a5b_6c7d8e9fa0b1"} {
		if outbox.IsUUID(s) {
			t.Errorf("IsUUID(%q) = true", s)
		}
	}
}

// TestWireFormatRoundTrip: the deprecated aliases still frame and parse as
// schemas/wire does.
func TestWireFormatRoundTrip(t *testing.T) {
	if got, want := outbox.WireFormat(7, []byte("x")), wire.Frame(7, []byte("x")); string(got) != string(want) {
		t.Errorf("WireFormat = % x, wire.Frame = % x", got, want)
	}
	if !errors.Is(outbox.ErrWireFormat, wire.ErrFormat) {
		t.Error("ErrWireFormat is not wire.ErrFormat")
	}
	b := outbox.WireFormat(0x01020304, []byte("datum"))
	if string(b[:5]) != "\x00\x01\x02\x03\x04" {
		t.Fatalf("header = % x", b[:5])
	}
	id, d, err := outbox.ParseWireFormat(b)
	if err != nil || id != 0x01020304 || string(d) != "datum" {
		t.Fatalf("ParseWireFormat = %d, %q, %v", id, d, err)
	}
	if _, _, err := outbox.ParseWireFormat([]byte{0, 1}); !errors.Is(err, outbox.ErrWireFormat) {
		t.Errorf("short: err = %v", err)
	}
}

func TestDeleteAfterInsert(t *testing.T) {
	for _, c := range []struct {
		dialect, del string
	}{
		{spec.Postgres, `DELETE FROM "outbox" WHERE "id" IN ($1, $2)`},
		{spec.MariaDB, "DELETE FROM `outbox` WHERE `id` IN (?, ?)"},
	} {
		t.Run(c.dialect, func(t *testing.T) {
			tab := table(t, c.dialect, spec.FormatJSON, "    writer: {deleteAfterInsert: true}\n")
			tab.Schema = ""
			if !tab.DeleteAfterInsert {
				t.Fatal("TableFor ignored writer.deleteAfterInsert")
			}
			w, err := outbox.NewWriter(tab, outbox.WithBatchSize(2))
			if err != nil {
				t.Fatal(err)
			}
			ev := outbox.Event{AggregateType: "A", AggregateID: "1", Type: "T", SchemaVersion: 1}
			tx := &fakeTx{}
			id, err := w.Write(context.Background(), tx, ev)
			if err != nil {
				t.Fatal(err)
			}
			if len(tx.calls) != 2 || !strings.HasPrefix(tx.calls[1].query, "DELETE FROM") || tx.calls[1].args[0] != id {
				t.Fatalf("calls = %+v; want INSERT then DELETE of %s", tx.calls, id)
			}
			tx = &fakeTx{}
			ids, err := w.WriteAll(context.Background(), tx, []outbox.Event{ev, ev, ev})
			if err != nil {
				t.Fatal(err)
			}
			if len(tx.calls) != 4 || tx.calls[1].query != c.del || tx.calls[1].args[0] != ids[0] || tx.calls[1].args[1] != ids[1] || tx.calls[3].args[0] != ids[2] {
				t.Fatalf("calls = %+v; want INSERT, DELETE of the batch's ids, twice", tx.calls)
			}
		})
	}
	plain, _ := outbox.NewWriter(table(t, spec.Postgres, spec.FormatJSON, ""))
	if plain.DeleteSQL() != "" {
		t.Error("DeleteSQL set without deleteAfterInsert")
	}
	on, _ := outbox.NewWriter(table(t, spec.Postgres, spec.FormatJSON, ""), outbox.WithDeleteAfterInsert())
	if !strings.HasPrefix(on.DeleteSQL(), "DELETE FROM") {
		t.Errorf("WithDeleteAfterInsert: DeleteSQL = %q", on.DeleteSQL())
	}
}

// Table.Dialect is the typed dialect.Dialect; the spec's string kinds and
// untyped strings still work, and MariaDB writes what MySQL writes.
func TestTableDialect(t *testing.T) {
	tb := table(t, spec.MySQL, spec.FormatJSON, "")
	if tb.Dialect != dialect.MySQL {
		t.Fatalf("TableFor: Dialect = %q, want dialect.MySQL", tb.Dialect)
	}
	insert := func(d dialect.Dialect) string {
		t.Helper()
		tb := tb
		tb.Dialect = d
		w, err := outbox.NewWriter(tb)
		if err != nil {
			t.Fatalf("NewWriter(%s): %v", d, err)
		}
		tx := &fakeTx{}
		if _, err := w.Write(context.Background(), tx, outbox.Event{AggregateType: "Order", AggregateID: "1", Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{}`)}); err != nil {
			t.Fatalf("Write(%s): %v", d, err)
		}
		return tx.calls[0].query
	}
	my := insert(dialect.MySQL)
	if got := insert(dialect.MariaDB); got != my {
		t.Errorf("MariaDB insert = %s, want MySQL's %s", got, my)
	}
	if got := insert(spec.MariaDB); got != my { // the spec's untyped constant
		t.Errorf("spec.MariaDB insert = %s, want %s", got, my)
	}
	if pg := insert("postgres"); pg == my || !strings.Contains(pg, "$1") {
		t.Errorf("postgres insert = %s", pg)
	}
}

// WriteAll sends one INSERT for all its events, up to 65,535 parameters
// and 8 MiB of arguments per statement, and names the failing event.
func TestWriteAllOneStatement(t *testing.T) {
	for _, kind := range []string{spec.Postgres, spec.MariaDB} {
		tb := table(t, kind, spec.FormatJSON, "")
		cols := len(tb.Columns)
		per := 65535 / cols
		w, err := outbox.NewWriter(tb)
		if err != nil {
			t.Fatal(err)
		}
		ev := outbox.Event{AggregateType: "A", AggregateID: "1", Type: "T", SchemaVersion: 1, Payload: []byte(`{}`)}
		for _, c := range []struct {
			n       int
			payload int   // bytes of each payload
			rows    []int // rows per INSERT
		}{
			{1, 2, []int{1}},
			{1000, 2, []int{1000}},
			{per, 2, []int{per}},
			{2*per + 1, 2, []int{per, per, 1}},
			{3, 5 << 20, []int{1, 1, 1}}, // 8 MiB of arguments per statement
			{5, 3 << 20, []int{2, 2, 1}},
		} {
			evs := make([]outbox.Event, c.n)
			big := []byte(`"` + strings.Repeat("x", c.payload-2) + `"`)
			for i := range evs {
				evs[i] = ev
				evs[i].Payload = big
			}
			tx := &fakeTx{}
			ids, err := w.WriteAll(context.Background(), tx, evs)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != c.n || len(tx.calls) != len(c.rows) {
				t.Fatalf("%s: %d events: %d ids, %d INSERTs, want %d", kind, c.n, len(ids), len(tx.calls), len(c.rows))
			}
			for i, rows := range c.rows {
				if got := len(tx.calls[i].args); got != rows*cols {
					t.Errorf("%s: %d events: INSERT %d has %d args, want %d rows of %d", kind, c.n, i, got, rows, cols)
				}
			}
		}
		// The failing event is named by the id the database reports.
		evs := []outbox.Event{ev, ev, ev}
		evs[1].ID = "0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1"
		tx := &fakeTx{err: errors.New("Error 1062 (23000): Duplicate entry '0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1' for key 'PRIMARY'")}
		_, err = w.WriteAll(context.Background(), tx, evs)
		if !errors.Is(err, outbox.ErrInsert) || !strings.Contains(err.Error(), "event 1 (0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1) of events 0..2") {
			t.Errorf("%s: err = %v, want ErrInsert naming event 1", kind, err)
		}
		tx = &fakeTx{err: &pgconn.PgError{Code: "23505", Message: "duplicate key value", Detail: "Key (id)=(0190a0b1-c2d3-7e4f-8a5b-6c7d8e9fa0b1) already exists."}}
		if _, err = w.WriteAll(context.Background(), tx, evs); !strings.Contains(err.Error(), "event 1 (0190a0b1") {
			t.Errorf("%s: err = %v, want the PostgreSQL detail's id named", kind, err)
		}
		tx = &fakeTx{err: errors.New("connection reset")}
		if _, err = w.WriteAll(context.Background(), tx, evs); !strings.Contains(err.Error(), "events 0..2") {
			t.Errorf("%s: err = %v, want the range named", kind, err)
		}
	}
}
