//go:build integration

package outbox_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/outbox/outboxtest"
	"github.com/outboxctl/outboxctl/spec"
)

// BenchmarkWriteAll compares, against the real PostgreSQL and in one run,
// the two ways to write N events in one transaction: "single", N Write
// calls (one INSERT statement and round trip per event), and "multi", one
// WriteAll (one multi-row INSERT). Each op is one committed transaction of
// rows events, through database/sql (pgx stdlib) and through pgx (pgx.Tx
// via outbox.Pgx), on an outbox with all eight contract columns.
//
//	go test -tags integration -run '^$' -bench BenchmarkWriteAll -benchtime 2s ./outbox/
func BenchmarkWriteAll(b *testing.B) {
	s := itest.Require(b, itest.Postgres)
	name := "outboxbench_" + itest.Suffix()
	db := itest.PostgresDatabase(b, s.PostgresDSN, name)
	pool := itest.PostgresPool(b, s.PostgresDSN, name)
	v := outboxtest.Variants[0] // avro, all columns
	o := outboxtest.OutboxFor(b, db, spec.Postgres, v, "outbox_bench_"+itest.Suffix())
	for _, stmt := range outboxddl.Table(o) {
		if _, err := db.Exec(stmt); err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
	}
	w, err := outbox.NewWriter(outbox.TableFor(o))
	if err != nil {
		b.Fatal(err)
	}
	conns := []struct {
		name string
		conn outboxtest.Conn
	}{
		{"sql", outboxtest.SQLConn(db)},
		{"pgx", outboxtest.PgxConn(pool)},
	}
	ctx := context.Background()
	for _, rows := range []int{10, 100, 1000} {
		evs := make([]outbox.Event, rows)
		for i := range evs {
			evs[i] = outbox.Event{
				AggregateType: "Order",
				AggregateID:   fmt.Sprintf("order-%d", i),
				Type:          "OrderCreated",
				Payload:       outbox.WireFormat(42, make([]byte, 200)),
				SchemaVersion: 1,
				TraceContext:  "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
			}
		}
		for _, c := range conns {
			for _, mode := range []string{"single", "multi"} {
				b.Run(fmt.Sprintf("rows=%d/%s/%s", rows, c.name, mode), func(b *testing.B) {
					ops := 0
					for b.Loop() {
						ops++
						tx, err := c.conn.Begin(ctx)
						if err != nil {
							b.Fatal(err)
						}
						if mode == "single" {
							for _, e := range evs {
								if _, err := w.Write(ctx, tx, e); err != nil {
									b.Fatal(err)
								}
							}
						} else if _, err := w.WriteAll(ctx, tx, evs); err != nil {
							b.Fatal(err)
						}
						if err := tx.Commit(ctx); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(ops*rows), "µs/event")
				})
			}
		}
		// Keep the table small between sizes (the bench owns it).
		if _, err := db.Exec("TRUNCATE " + outboxddl.QualifiedTable(o)); err != nil {
			b.Fatal(err)
		}
	}
}
