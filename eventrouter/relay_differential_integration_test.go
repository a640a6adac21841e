//go:build integration

package eventrouter_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/relay"
)

// TestDifferentialRelay runs every case of the differential test (the
// variants above, on PostgreSQL and MariaDB) through the real connector and,
// once its records are in, through the polling relay with the same
// connector config: the connector is deleted, the table emptied and the
// rows the connector saw are inserted again in the same order, the relay
// draining after each insert (so that it sees them in the connector's
// order, which the EventRouter's schema caches depend on). Every record the
// relay publishes must be byte-identical to the connector's record of the
// same event: topic, partition, key, headers in order (the runId header's
// value excepted), value, and the timestamp when it comes from a column
// (otherwise it is the publisher's processing time). A row the task failed
// on must stop the relay with the task's exception and message.
//
// Updates and deletes are not replayed: a polling relay never sees them
// (docs/relay.md); the connector drops them, or fails on an update with
// table.op.invalid.behavior=fatal, which has no relay counterpart.
func TestDifferentialRelay(t *testing.T) {
	var mu sync.Mutex
	sum := map[string][2]int{}
	t.Cleanup(func() {
		for k, c := range sum {
			t.Logf("RELAY SUMMARY %s: %d/%d records (and task failures) identical to the real connector's", k, c[0], c[1])
		}
	})
	runDifferential(t, func(ctx context.Context, h *harness, cons *kafka.Consumer, got []*kafka.Message) {
		pass, total := relayReplay(ctx, h, cons, got)
		mu.Lock()
		c := sum[h.side.name]
		c[0] += pass
		c[1] += total
		sum[h.side.name] = c
		mu.Unlock()
	})
}

func relayReplay(ctx context.Context, h *harness, cons *kafka.Consumer, got []*kafka.Message) (pass, total int) {
	t := h.t
	trace := h.taskTrace(ctx)
	if err := h.connect.Delete(ctx, h.connector); err != nil {
		t.Fatalf("relay: delete connector: %v", err)
	}
	for i := 0; i < 60; i++ {
		if _, err := h.connect.GetConnector(ctx, h.connector); err != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	// late connector records would be taken for the relay's
	got = append(got, h.collectUntil(cons, func(*kafka.Message) bool { return false }, time.Second)...)

	db := relayDB(t, h)
	if err := h.db.exec(ctx, "DELETE FROM "+h.table); err != nil {
		t.Fatal(err)
	}
	opts := relay.Options{BootstrapServers: h.s.BootstrapServers, Worker: h.worker, Transform: "outbox", Logf: t.Logf}
	// The cases' tables are the connector's, without the relay's
	// database-assigned order columns; one row is drained at a time, so
	// the event id column orders them.
	opts.OrderColumn = h.conf["transforms.outbox.table.field.event.id"]
	if opts.OrderColumn == "" {
		opts.OrderColumn = "id"
	}
	if h.side.kind == eventrouter.MariaDB {
		opts.EventRouterVersion = eventrouter.Version35
		if h.v.lateDDL {
			// the connector's schema came from the binlog's CREATE
			// TABLE: its BOOLEAN columns are booleans, which the
			// catalog's tinyint(1) does not say
			for _, c := range h.v.cols {
				if strings.EqualFold(c.maria, "boolean") {
					opts.BooleanColumns = append(opts.BooleanColumns, c.name)
				}
				if c.mariaModel == eventrouter.MariaDBBinlogJSON {
					opts.JSONColumns = append(opts.JSONColumns, c.name)
				}
			}
		}
	}
	r, err := relay.New(ctx, db, h.conf, opts)
	if err != nil {
		t.Fatalf("relay: %v", err)
	}
	defer r.Close()

	rows := append([]string{}, h.inserted...)
	var relayErr error
	for _, row := range rows {
		h.insertRow(ctx, row, "relay replay")
		if relayErr = r.Drain(ctx); relayErr != nil {
			break
		}
	}
	if relayErr != nil {
		total++
		var te *eventrouter.TaskError
		switch {
		case !errors.As(relayErr, &te):
			t.Errorf("relay: %v", relayErr)
		case !strings.Contains(trace, te.Exception) || (te.Exception != "java.lang.NullPointerException" && !strings.Contains(trace, te.Message)):
			t.Errorf("relay stops with %s: %s; the real task's trace: %.400s", te.Exception, te.Message, trace)
		default:
			pass++
			t.Logf("relay: ok (stops as the task does: %s)", relayErr)
		}
	}

	want := int(r.Stats().Published)
	var mine []*kafka.Message
	if want > 0 {
		n := 0
		mine = h.collectUntil(cons, func(*kafka.Message) bool { n++; return n >= want }, 60*time.Second)
	}
	if len(mine) != want {
		t.Errorf("relay: published %d records, %d arrived", want, len(mine))
	}

	real := map[string][]*kafka.Message{}
	for _, m := range got {
		real[hdr(m, "id")] = append(real[hdr(m, "id")], m)
	}
	seen := map[string]bool{}
	for _, m := range mine {
		key := hdr(m, "id")
		rs := real[key]
		if len(rs) == 0 {
			if h.caseOf[key] != "" {
				t.Errorf("relay: record of case %s that the connector did not publish: topic %s key %q", h.caseOf[key], *m.TopicPartition.Topic, m.Key)
			}
			continue // a warm-up row: the connector's record is not kept
		}
		seen[key] = true
		if why := h.v.relaySkip[h.caseOf[key]]; why != "" {
			t.Logf("relay: case %s: not compared (%s)", h.caseOf[key], why)
			continue
		}
		total++
		var exp *eventrouter.Record
		if e := h.expected[key]; len(e) > 0 {
			exp = e[0].rec
		}
		if d := diffRelay(h, r.RunID(), exp, rs[0], m); len(d) > 0 {
			t.Errorf("relay: case %s: relay and real connector differ:\n  %s", h.caseOf[key], strings.Join(d, "\n  "))
			continue
		}
		pass++
		t.Logf("relay: case %s: ok", h.caseOf[key])
	}
	for key := range real {
		if !seen[key] && h.caseOf[key] != "" { // not a warm-up record
			total++
			t.Errorf("relay: no record for the connector's record of case %s (id %q)", h.caseOf[key], key)
		}
	}
	return pass, total
}

// diffRelay compares a relay record with the connector's.
func diffRelay(h *harness, runID string, exp *eventrouter.Record, real, m *kafka.Message) []string {
	var d []string
	if *real.TopicPartition.Topic != *m.TopicPartition.Topic {
		d = append(d, fmt.Sprintf("topic: real %q, relay %q", *real.TopicPartition.Topic, *m.TopicPartition.Topic))
	}
	// A null key goes to any partition (Java's sticky partitioner); a key
	// or a partition placement decides it.
	if (real.Key != nil || h.v.parts <= 1 || (exp != nil && exp.Partition != nil)) && real.TopicPartition.Partition != m.TopicPartition.Partition {
		d = append(d, fmt.Sprintf("partition: real %d, relay %d", real.TopicPartition.Partition, m.TopicPartition.Partition))
	}
	// a Java identity hash (per JVM) in the text: both must be the
	// emulator's text with some digits there
	var keyHashes, valueHashes []int
	if exp != nil {
		keyHashes, valueHashes = exp.KeyHashes, exp.ValueHashes
	}
	if len(keyHashes) > 0 {
		if !eventrouter.MatchIdentityHashes(exp.Key, keyHashes, real.Key) || !eventrouter.MatchIdentityHashes(exp.Key, keyHashes, m.Key) {
			d = append(d, fmt.Sprintf("key: emulator %s, real %s, relay %s", showBytes(exp.Key), showBytes(real.Key), showBytes(m.Key)))
		}
	} else if !bytesEq(real.Key, m.Key) {
		d = append(d, fmt.Sprintf("key: real %s, relay %s", showBytes(real.Key), showBytes(m.Key)))
	}
	if len(valueHashes) > 0 {
		if !eventrouter.MatchIdentityHashes(exp.Value, valueHashes, real.Value) || !eventrouter.MatchIdentityHashes(exp.Value, valueHashes, m.Value) {
			d = append(d, fmt.Sprintf("value: emulator %s, real %s, relay %s", showBytes(exp.Value), showBytes(real.Value), showBytes(m.Value)))
		}
	} else if !bytesEq(real.Value, m.Value) {
		d = append(d, fmt.Sprintf("value: real %s, relay %s", showBytes(real.Value), showBytes(m.Value)))
	}
	if len(real.Headers) != len(m.Headers) {
		d = append(d, fmt.Sprintf("headers: real %s, relay %s", fmtHeaders(real.Headers), fmtHeaders(m.Headers)))
	} else {
		for i := range real.Headers {
			a, b := real.Headers[i], m.Headers[i]
			switch {
			case a.Key != b.Key:
				d = append(d, fmt.Sprintf("header %d: real %q, relay %q", i, a.Key, b.Key))
			case a.Key == "__debezium.context.runId":
				if len(a.Value) == 0 || !strings.Contains(string(b.Value), runID) { // a JSON header converter wraps it
					d = append(d, fmt.Sprintf("runId: real %q, relay %q (want the relay's %s)", a.Value, b.Value, runID))
				}
			case exp != nil && i < len(exp.Headers) && len(exp.Headers[i].Hashes) > 0:
				e := exp.Headers[i]
				if !eventrouter.MatchIdentityHashes(e.Value, e.Hashes, a.Value) || !eventrouter.MatchIdentityHashes(e.Value, e.Hashes, b.Value) {
					d = append(d, fmt.Sprintf("header %s: emulator %s, real %s, relay %s", a.Key, showBytes(e.Value), showBytes(a.Value), showBytes(b.Value)))
				}
			case !bytesEq(a.Value, b.Value):
				d = append(d, fmt.Sprintf("header %s: real %s, relay %s", a.Key, showBytes(a.Value), showBytes(b.Value)))
			}
		}
	}
	if exp != nil && strings.HasPrefix(exp.TimestampSource, "column") {
		if !real.Timestamp.Equal(m.Timestamp) {
			d = append(d, fmt.Sprintf("timestamp (%s): real %d, relay %d", exp.TimestampSource, real.Timestamp.UnixMilli(), m.Timestamp.UnixMilli()))
		}
	} else if age := time.Since(m.Timestamp); age < 0 || age > 10*time.Minute {
		d = append(d, fmt.Sprintf("timestamp (envelope ts_ms): relay %s, want the relay's processing time", m.Timestamp))
	}
	return d
}

// relayDB opens a database/sql handle on the harness's scratch database.
func relayDB(t *testing.T, h *harness) *sql.DB {
	var db *sql.DB
	var err error
	if h.side.kind == eventrouter.Postgres {
		db, err = sql.Open("pgx", settings.PostgresDSNWithDatabase(h.s.PostgresDSN, h.db.name))
	} else {
		var dsn string
		if dsn, err = settings.MySQLDSNWithDatabase(h.s.MariaDBDSN, h.db.name); err == nil {
			db, err = sql.Open("mysql", dsn)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
