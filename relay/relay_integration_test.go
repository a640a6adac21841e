//go:build integration

package relay_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/spec"
)

// side is one database of the stack.
type side struct {
	name string
	kind eventrouter.ConnectorKind
}

var sides = []side{{"postgres", eventrouter.Postgres}, {"mariadb", eventrouter.MariaDB}}

// fixture is an outbox table in a fresh database, its connector config and
// the topic its rows are routed to.
type fixture struct {
	t      *testing.T
	db     *sql.DB
	side   side
	dbName string
	schema string
	table  string
	topic  string
	conf   map[string]string
	boot   string
}

// newFixture creates the database and an outbox table with the default
// EventRouter columns (aggregatetype nullable, so that a NULL routing column
// can be written) routed to one topic per test.
func newFixture(t *testing.T, sd side, extra map[string]string) *fixture {
	s := itest.Require(t, itest.Kafka, itest.Postgres, itest.MariaDB)
	sfx := strings.ToLower(itest.Suffix())
	f := &fixture{t: t, side: sd, table: "outbox", boot: s.BootstrapServers}
	name := "relay_" + sfx
	f.dbName = name
	var ddl string
	if sd.kind == eventrouter.Postgres {
		f.db = itest.PostgresDatabase(t, s.PostgresDSN, name)
		f.schema = "public"
		ddl = `CREATE TABLE outbox (id uuid PRIMARY KEY, aggregatetype varchar(255), aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload jsonb, created_at timestamp(3), ` + strings.Join(outboxddl.OrderColumns(spec.Postgres), ", ") + `)`
	} else {
		f.db = itest.MariaDBDatabase(t, s.MariaDBDSN, name)
		f.schema = name
		ddl = "CREATE TABLE outbox (id varchar(36) PRIMARY KEY, aggregatetype varchar(255), aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload json, created_at datetime(3), " + outboxddl.OrderColumns(spec.MariaDB)[0] + ", KEY (relay_seq))"
	}
	if _, err := f.db.Exec(ddl); err != nil {
		t.Fatal(err)
	}
	f.topic = "relay." + sfx + ".events"
	itest.CreateTopic(t, s.BootstrapServers, f.topic)
	class := "io.debezium.connector.postgresql.PostgresConnector"
	if sd.kind == eventrouter.MariaDB {
		class = "io.debezium.connector.mariadb.MariaDbConnector"
	}
	f.conf = map[string]string{
		"connector.class":        class,
		"topic.prefix":           "relay" + sfx,
		"table.include.list":     f.schema + `\.outbox`,
		"transforms":             "outbox",
		"transforms.outbox.type": eventrouter.EventRouterClass,
		"transforms.outbox.route.topic.replacement":           f.topic,
		"transforms.outbox.table.fields.additional.placement": "type:header:eventType",
		"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
		"value.converter": "org.apache.kafka.connect.storage.StringConverter",
	}
	for k, v := range extra {
		f.conf[k] = v
	}
	return f
}

func (f *fixture) insert(q execer, id, aggType, aggID, payload string) {
	f.t.Helper()
	ph := "$1, $2, $3, $4, $5"
	if f.side.kind != eventrouter.Postgres {
		ph = "?, ?, ?, ?, ?"
	}
	var at any = aggType
	if aggType == "" {
		at = nil
	}
	if _, err := q.Exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES ("+ph+")", id, at, aggID, "T", payload); err != nil {
		f.t.Fatal(err)
	}
}

type execer interface {
	Exec(string, ...any) (sql.Result, error)
}

func (f *fixture) relay(opts relay.Options) *relay.Relay {
	f.t.Helper()
	if opts.BootstrapServers == "" {
		opts.BootstrapServers = f.boot
	}
	opts.Logf = f.t.Logf
	if f.side.kind == eventrouter.MariaDB {
		opts.EventRouterVersion = eventrouter.Version35
	}
	r, err := relay.New(context.Background(), f.db, f.conf, opts)
	if err != nil {
		f.t.Fatalf("relay.New: %v", err)
	}
	f.t.Cleanup(r.Close)
	return r
}

func (f *fixture) count() int {
	var n int
	if err := f.db.QueryRow("SELECT count(*) FROM outbox").Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// read returns the n records of the fixture's topic.
func (f *fixture) read(n int) []*kafka.Message {
	f.t.Helper()
	rd := itest.NewReader(f.t, f.boot, f.topic)
	var out []*kafka.Message
	for len(out) < n {
		m := rd.Next(30 * time.Second)
		if m == nil {
			f.t.Fatalf("got %d of %d records on %s", len(out), n, f.topic)
		}
		out = append(out, m)
	}
	return out
}

func header(m *kafka.Message, k string) string {
	v, _ := itest.Header(m, k)
	return v
}

func TestRelayPublishesInOrderAndDeletes(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			var ids []string
			for i := 0; i < 5; i++ {
				id := itest.UUID(t)
				ids = append(ids, id)
				f.insert(f.db, id, "Order", fmt.Sprint("o-", i%2), fmt.Sprintf(`{"n": %d}`, i))
			}
			r := f.relay(relay.Options{Batch: 2})
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := f.count(); n != 0 {
				t.Errorf("%d rows left after Drain, want 0", n)
			}
			if st := r.Stats(); st.Published != 5 || st.Batches != 3 || st.OldestPending <= 0 || st.OldestPending > time.Minute {
				t.Errorf("stats %+v: want 5 published in 3 batches, the last row's age from its UUIDv7", st)
			}
			ms := f.read(5)
			for i, m := range ms {
				if got := header(m, "id"); got != ids[i] {
					t.Errorf("record %d: id %q, want %q (publish order)", i, got, ids[i])
				}
				if string(m.Key) != fmt.Sprint("o-", i%2) {
					t.Errorf("record %d: key %q", i, m.Key)
				}
				if got, want := string(m.Value), fmt.Sprintf(`{"n": %d}`, i); sd.kind == eventrouter.Postgres && got != want {
					t.Errorf("record %d: value %q, want %q", i, got, want)
				}
				if header(m, "eventType") != "T" || header(m, "__debezium.context.runId") != r.RunID() {
					t.Errorf("record %d: headers %v", i, m.Headers)
				}
			}
		})
	}
}

// A transaction that began writing before a committed one and is still
// open is not overtaken on PostgreSQL: its rows come first, in transaction
// order, once it commits (the horizon of the database-assigned order). On
// MariaDB (AUTO_INCREMENT, no horizon) the committed row goes first and the
// late one is found by the next poll: nothing is skipped either way.
func TestRelayOpenTransactionIsNotOvertaken(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			early := itest.UUID(t)
			tx, err := f.db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = tx.Rollback() })
			f.insert(tx, early, "Order", "late", `{"late": true}`)
			later := itest.UUID(t)
			f.insert(f.db, later, "Order", "x", `{"late": false}`)
			r := f.relay(relay.Options{PollInterval: 50 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err = r.Drain(ctx)
			cancel()
			pg := sd.kind == eventrouter.Postgres
			if pg {
				if !errors.Is(err, relay.ErrHeldBack) {
					t.Fatalf("Drain with a transaction open that wrote first: %v, want ErrHeldBack", err)
				}
				if st := r.Stats(); st.Published != 0 || st.HeldBack != 1 {
					t.Fatalf("published %d, held back %d before the commit; want 0 and 1 (the committed row waits)", st.Published, st.HeldBack)
				}
			} else if err != nil || r.Stats().Published != 1 {
				t.Fatalf("Drain: %v, published %d; want nil, 1", err, r.Stats().Published)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			ms := f.read(2)
			want := []string{later, early}
			if pg {
				want = []string{early, later}
			}
			if header(ms[0], "id") != want[0] || header(ms[1], "id") != want[1] {
				t.Errorf("records %s, %s; want %s, %s", header(ms[0], "id"), header(ms[1], "id"), want[0], want[1])
			}
			if n := f.count(); n != 0 {
				t.Errorf("%d rows left", n)
			}
		})
	}
}

// Kafka unreachable: the rows stay and a later attempt publishes them.
func TestRelayKafkaDownKeepsRows(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			f.insert(f.db, itest.UUID(t), "Order", "1", `{}`)
			f.insert(f.db, itest.UUID(t), "Order", "2", `{}`)
			down := f.relay(relay.Options{BootstrapServers: "127.0.0.1:1", MessageTimeout: 2 * time.Second})
			err := down.Drain(context.Background())
			if !errors.Is(err, relay.ErrKafka) {
				t.Fatalf("Drain with Kafka down: %v, want ErrKafka", err)
			}
			if n := f.count(); n != 2 {
				t.Fatalf("%d rows left after the failed publish, want 2", n)
			}
			down.Close()
			up := f.relay(relay.Options{})
			if err := up.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			f.read(2)
			if n := f.count(); n != 0 {
				t.Errorf("%d rows left", n)
			}
		})
	}
}

// A NULL routing column fails the Debezium task; the relay stops with the
// task's error and leaves the row (and those after it).
func TestRelayStopsOnRowTheTaskFailsOn(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			ok := itest.UUID(t)
			f.insert(f.db, ok, "Order", "1", `{}`)
			bad := itest.UUID(t)
			f.insert(f.db, bad, "", "2", `{}`)
			f.insert(f.db, itest.UUID(t), "Order", "3", `{}`)
			r := f.relay(relay.Options{})
			err := r.Drain(context.Background())
			var te *eventrouter.TaskError
			if !errors.Is(err, relay.ErrRowFailed) || !errors.As(err, &te) {
				t.Fatalf("Drain: %v, want a task failure", err)
			}
			if te.Exception != "java.lang.NullPointerException" || !strings.Contains(err.Error(), bad) {
				t.Errorf("error %q: want the NullPointerException of route.by.field on row %s", err, bad)
			}
			if n := f.count(); n != 2 {
				t.Errorf("%d rows left, want 2 (the failing row and the one after it)", n)
			}
			if ms := f.read(1); header(ms[0], "id") != ok {
				t.Errorf("published %s, want %s", header(ms[0], "id"), ok)
			}
		})
	}
}

// With errors.tolerance=all the connector skips the failing row: so does
// the relay (it leaves it in the table unpublished, as Debezium does).
func TestRelayToleratedFailureIsDropped(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, map[string]string{"errors.tolerance": "all"})
			f.insert(f.db, itest.UUID(t), "", "1", `{}`)
			ok := itest.UUID(t)
			f.insert(f.db, ok, "Order", "2", `{}`)
			r := f.relay(relay.Options{})
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			if st := r.Stats(); st.Dropped != 1 || st.Published != 1 {
				t.Errorf("stats %+v, want 1 dropped, 1 published", st)
			}
			if ms := f.read(1); header(ms[0], "id") != ok {
				t.Errorf("published %s, want %s", header(ms[0], "id"), ok)
			}
			if n := f.count(); n != 1 {
				t.Errorf("%d rows left, want the dropped one", n)
			}
		})
	}
}

// One relay holds the lock; a second one is a standby until the first
// releases it.
func TestRelayLockOneActive(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			f.insert(f.db, itest.UUID(t), "Order", "1", `{}`)
			a := f.relay(relay.Options{})
			if err := a.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			b := f.relay(relay.Options{})
			if err := b.Drain(context.Background()); !errors.Is(err, relay.ErrLocked) {
				t.Fatalf("second relay: %v, want ErrLocked", err)
			}
			f.insert(f.db, itest.UUID(t), "Order", "2", `{}`)
			a.Close()
			if err := b.Drain(context.Background()); err != nil {
				t.Fatalf("standby after the leader closed: %v", err)
			}
			f.read(2)
		})
	}
}

func TestNewRejectsWhatItCannotHonour(t *testing.T) {
	f := newFixture(t, sides[0], nil)
	for name, change := range map[string]map[string]string{
		"avro converter": {"value.converter": "io.confluent.connect.avro.AvroConverter"},
		"missing table":  {"table.include.list": `public\.nosuch`},
		"pattern":        {"table.include.list": `public\.out.*`},
		"no table":       {"table.include.list": ""},
	} {
		conf := map[string]string{}
		for k, v := range f.conf {
			conf[k] = v
		}
		for k, v := range change {
			conf[k] = v
		}
		_, err := relay.New(context.Background(), f.db, conf, relay.Options{BootstrapServers: f.boot})
		if !errors.Is(err, relay.ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// With a mark column the published rows stay, marked, and are not
// published again; the order column decides the order.
func TestRelayMarkColumnAndOrderColumn(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			ddl := "ALTER TABLE outbox ADD COLUMN published_at timestamp NULL, ADD COLUMN seq int NOT NULL DEFAULT 0"
			if sd.kind != eventrouter.Postgres {
				ddl = "ALTER TABLE outbox ADD COLUMN published_at datetime(6) NULL, ADD COLUMN seq int NOT NULL DEFAULT 0"
			}
			if _, err := f.db.Exec(ddl); err != nil {
				t.Fatal(err)
			}
			// ids in one order, seq in the reverse one
			var ids []string
			for i := 0; i < 3; i++ {
				id := itest.UUID(t)
				ids = append(ids, id)
				f.insert(f.db, id, "Order", "1", `{}`)
				q := "UPDATE outbox SET seq = $1 WHERE id = $2"
				if sd.kind != eventrouter.Postgres {
					q = "UPDATE outbox SET seq = ? WHERE id = ?"
				}
				if _, err := f.db.Exec(q, 10-i, id); err != nil {
					t.Fatal(err)
				}
			}
			r := f.relay(relay.Options{MarkColumn: "published_at", OrderColumn: "seq"})
			for i := 0; i < 2; i++ { // the second Drain finds nothing unmarked
				if err := r.Drain(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if st := r.Stats(); st.Published != 3 {
				t.Errorf("published %d, want 3", st.Published)
			}
			var marked int
			if err := f.db.QueryRow("SELECT count(*) FROM outbox WHERE published_at IS NOT NULL").Scan(&marked); err != nil || marked != 3 {
				t.Errorf("%d rows marked (%v), want 3", marked, err)
			}
			ms := f.read(3)
			for i, m := range ms {
				if got := header(m, "id"); got != ids[2-i] {
					t.Errorf("record %d: %s, want %s (seq order)", i, got, ids[2-i])
				}
			}
			if _, err := relay.New(context.Background(), f.db, f.conf, relay.Options{BootstrapServers: f.boot, MarkColumn: "seq"}); !errors.Is(err, relay.ErrConfig) {
				t.Errorf("a NOT NULL mark column: %v, want ErrConfig", err)
			}
		})
	}
}

// A filtered relay publishes and deletes only its rows, and its lock is its
// own: an unfiltered relay of the same table is not its standby.
func TestRelayFilter(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			full := f.relay(relay.Options{})
			if err := full.Drain(context.Background()); err != nil { // takes and keeps the table's lock
				t.Fatalf("unfiltered relay: %v", err)
			}
			mine, other := itest.UUID(t), itest.UUID(t)
			f.insert(f.db, other, "Other", "o-1", `{"n": 1}`)
			f.insert(f.db, mine, "Mine", "m-1", `{"n": 2}`)
			r := f.relay(relay.Options{Filter: relay.Filter{Column: "aggregatetype", Value: "Mine"}})
			if err := r.Drain(context.Background()); err != nil {
				t.Fatalf("filtered Drain while the unfiltered relay holds its lock: %v", err)
			}
			if st := r.Stats(); st.Published != 1 {
				t.Errorf("published %d, want 1", st.Published)
			}
			var left string
			if err := f.db.QueryRow("SELECT aggregatetype FROM outbox").Scan(&left); err != nil || left != "Other" {
				t.Errorf("row left: %q, %v; want the Other row only", left, err)
			}
			if got := header(f.read(1)[0], "id"); got != mine {
				t.Errorf("published id %q, want %q", got, mine)
			}
			if _, err := relay.New(context.Background(), f.db, f.conf, relay.Options{BootstrapServers: f.boot, Filter: relay.Filter{Column: "nope", Value: "x"}}); !errors.Is(err, relay.ErrConfig) {
				t.Errorf("unknown filter column: %v, want ErrConfig", err)
			}
		})
	}
}

// alterUnlogged runs ddl; on MariaDB with binary logging off for its
// session. A MariaDB connector parses every DDL statement in the binlog,
// whatever database it names, and its task fails on one its parser does not
// know ("ALTER TABLE outbox ADD COLUMN c inet6": "DDL statement couldn't be
// parsed"): logged, it killed the MariaDB connectors that other packages'
// tests were running on the same server at that moment (CI of stop 38,
// the eventrouter differential run). The relay reads the catalog, not the
// binlog, so it sees the column either way.
func alterUnlogged(t *testing.T, db *sql.DB, kind eventrouter.ConnectorKind, ddl string) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if kind == eventrouter.MariaDB {
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_log_bin = 0"); err != nil {
			t.Fatal(err)
		}
		// the pool may hand this connection to another statement later
		defer conn.ExecContext(ctx, "SET SESSION sql_log_bin = 1") //nolint:errcheck
	}
	var file string
	var pos int64
	if kind == eventrouter.MariaDB {
		file, pos = binlogPosition(t, conn)
	}
	if _, err := conn.ExecContext(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	if kind != eventrouter.MariaDB {
		return
	}
	// the statement must not be in the binlog (events since pos)
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("SHOW BINLOG EVENTS IN '%s' FROM %d", file, pos))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(vals[len(vals)-1]), ddl) {
			t.Fatalf("%q was written to the binlog (%s), where it fails every MariaDB connector of the server", ddl, file)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// binlogPosition is the server's current binlog file and position.
func binlogPosition(t *testing.T, conn *sql.Conn) (string, int64) {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), "SHOW MASTER STATUS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatal("SHOW MASTER STATUS: no binlog")
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	var pos int64
	fmt.Sscan(vals[1].String, &pos)
	return vals[0].String, pos
}

// The relay refuses, at start and naming the column, what eventrouter does
// not model, as the catalog of the real database describes it (#31):
// an array of an element type not modelled (of a user-defined range type,
// CREATE TYPE … AS RANGE, which the model does not know), an interval
// DEFAULT that is an arithmetic expression; a MariaDB inet6 (the connector
// cannot capture the table); a MariaDB connector config with
// time.precision.mode=adaptive and a config with a mode no connector
// knows, which the connectors' validation rejects; a PostgreSQL time
// DEFAULT 24:00:00 under connect, a MariaDB varbinary DEFAULT X'FF', which
// the catalog prints '?'.
func TestNewRefusesUnmodelledColumns(t *testing.T) {
	for _, tc := range []struct {
		sd          side
		ddl, column string
		conf        map[string]string
		want        string
	}{
		{sd: sides[0], ddl: `DO $$ BEGIN BEGIN CREATE TYPE relay_floatrange AS RANGE (subtype = float8); EXCEPTION WHEN duplicate_object THEN NULL; END; ALTER TABLE outbox ADD COLUMN c relay_floatrange[]; END $$`, column: "c", want: `"relay_floatrange[]" is not modelled`},
		{sd: sides[0], ddl: "ALTER TABLE outbox ADD COLUMN c interval DEFAULT '1 day'::interval * 2", column: "c", want: "of an interval column (modelled: a quoted interval)"},
		{sd: sides[1], ddl: "ALTER TABLE outbox ADD COLUMN c inet6", column: "c", want: "the MariaDB connector cannot capture the table"},
		{sd: sides[1], conf: map[string]string{"time.precision.mode": "adaptive"}, want: "The 'adaptive' time.precision.mode is no longer supported"},
		{sd: sides[0], conf: map[string]string{"time.precision.mode": "millis"}, want: "Value must be one of adaptive, adaptive_time_microseconds, isostring, microseconds, nanoseconds, connect"},
		{sd: sides[0], ddl: "ALTER TABLE outbox ADD COLUMN c time(3) DEFAULT '24:00:00'", column: "c", conf: map[string]string{"time.precision.mode": "connect"}, want: "the DEFAULT 24:00:00 of a time(3) column under time.precision.mode connect or isostring"},
		{sd: sides[1], ddl: "ALTER TABLE outbox ADD COLUMN c varbinary(4) DEFAULT X'FF'", column: "c", conf: map[string]string{"time.precision.mode": "nanoseconds"}, want: "may stand for a byte it could not print"},
	} {
		f := newFixture(t, tc.sd, tc.conf)
		if tc.ddl != "" {
			alterUnlogged(t, f.db, tc.sd.kind, tc.ddl)
		}
		opts := relay.Options{BootstrapServers: f.boot}
		if tc.sd.kind == eventrouter.MariaDB {
			opts.EventRouterVersion = eventrouter.Version35
		}
		_, err := relay.New(context.Background(), f.db, f.conf, opts)
		if !errors.Is(err, relay.ErrConfig) || !strings.Contains(err.Error(), tc.want) || (tc.column != "" && !strings.Contains(err.Error(), "column "+tc.column)) {
			t.Errorf("%s %s%v: %v, want ErrConfig naming column %q: %s", tc.sd.name, tc.ddl, tc.conf, err, tc.column, tc.want)
			continue
		}
		t.Logf("%s: %v", tc.sd.name, err)
	}
}
