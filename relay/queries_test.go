package relay

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/golden"
)

// queryTable is an outbox table as the catalog of kind describes it: the
// column contract, the database-assigned order, a mark and a filter
// column; pk is its primary key.
func queryTable(t *testing.T, kind eventrouter.ConnectorKind, pk ...string) *table {
	t.Helper()
	var raws []rawColumn
	if kind == eventrouter.Postgres {
		raws = []rawColumn{
			{name: "id", typ: "uuid"},
			{name: "aggregatetype", typ: "varchar(255)"},
			{name: "aggregateid", typ: "varchar(255)"},
			{name: "type", typ: "varchar(255)"},
			{name: "payload", typ: "jsonb", nullable: true},
			{name: "timestamp", typ: "timestamp(6)", def: "(now() AT TIME ZONE 'UTC'::text)", hasDef: true},
			{name: "relay_tx", typ: "int8", def: "txid_current()", hasDef: true},
			{name: "relay_seq", typ: "int8", def: "nextval('outbox_relay_seq_seq'::regclass)", hasDef: true},
			{name: "published_at", typ: "timestamptz(6)", nullable: true},
			{name: "tenant", typ: "varchar(64)"},
		}
	} else {
		raws = []rawColumn{
			{name: "id", typ: "char(36)"},
			{name: "aggregatetype", typ: "varchar(255)"},
			{name: "aggregateid", typ: "varchar(255)"},
			{name: "type", typ: "varchar(255)"},
			{name: "payload", typ: "longtext", nullable: true},
			{name: "timestamp", typ: "datetime(6)", def: "current_timestamp(6)", hasDef: true},
			{name: "relay_seq", typ: "bigint(20)", autoInc: true},
			{name: "published_at", typ: "datetime(6)", nullable: true},
			{name: "tenant", typ: "varchar(64)"},
		}
	}
	tb := &table{kind: kind, schema: "app", name: "outbox", pk: pk}
	if err := tb.setColumns(raws, eventrouter.ColumnSettings{}); err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestBuildQueries pins the SQL the relay runs, per dialect: the poll
// query (its columns, conditions, keyset order and batch, from the start
// and from a keyset position), the held-back query (PostgreSQL with the
// database-assigned order), the oldest-age query, and where the keys
// stand in a row.
func TestBuildQueries(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind eventrouter.ConnectorKind
		pk   []string
		conf map[string]string
		opts Options
		err  string
	}{
		{name: "postgres", kind: eventrouter.Postgres, pk: []string{"id"}},
		{name: "postgres_mark_filter_timestamp", kind: eventrouter.Postgres, pk: []string{"id"},
			conf: map[string]string{"transforms.outbox.table.field.event.timestamp": "timestamp"},
			opts: Options{MarkColumn: "published_at", Filter: Filter{Column: "tenant", Value: "acme"}, Batch: 50}},
		{name: "postgres_order_column_composite_key", kind: eventrouter.Postgres, pk: []string{"tenant", "id"},
			opts: Options{OrderColumn: "timestamp"}},
		{name: "mariadb", kind: eventrouter.MariaDB, pk: []string{"id"}},
		{name: "mariadb_mark_filter_timestamp", kind: eventrouter.MariaDB, pk: []string{"id"},
			conf: map[string]string{"transforms.outbox.table.field.event.timestamp": "timestamp"},
			opts: Options{MarkColumn: "published_at", Filter: Filter{Column: "tenant", Value: "acme"}, Batch: 50}},
		{name: "mysql_order_column_composite_key", kind: eventrouter.MySQL, pk: []string{"tenant", "id"},
			opts: Options{OrderColumn: "timestamp", Filter: Filter{Column: "tenant", Value: "acme"}}},
		{name: "unknown_filter_column", kind: eventrouter.Postgres, pk: []string{"id"},
			opts: Options{Filter: Filter{Column: "nope", Value: "x"}}, err: "filter column nope is not a column of app.outbox"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := map[eventrouter.ConnectorKind]string{
				eventrouter.Postgres: "io.debezium.connector.postgresql.PostgresConnector",
				eventrouter.MariaDB:  "io.debezium.connector.mariadb.MariaDbConnector",
				eventrouter.MySQL:    "io.debezium.connector.mysql.MySqlConnector",
			}[tc.kind]
			conf := map[string]string{
				"connector.class": class, "topic.prefix": "app", "table.include.list": `app\.outbox`,
				"transforms": "outbox", "transforms.outbox.type": eventrouter.EventRouterClass,
			}
			for k, v := range tc.conf {
				conf[k] = v
			}
			cfg, err := parseConfig(conf, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			r := &Relay{cfg: cfg, t: queryTable(t, tc.kind, tc.pk...), opts: tc.opts.withDefaults()}
			orderCols, horizon, err := r.publishOrder()
			if err != nil {
				t.Fatal(err)
			}
			err = r.buildQueries(orderCols, horizon)
			if tc.err != "" {
				if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrConfig %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			q, args := r.pollQuery(nil)
			fmt.Fprintf(&b, "poll:\n%s\nargs: %v\n\n", q, args)
			after := make([]any, len(r.orderBy))
			for i, c := range r.orderBy {
				after[i] = "<" + c + ">"
			}
			q, args = r.pollQuery(after)
			fmt.Fprintf(&b, "poll after a position:\n%s\nargs: %v\n\n", q, args)
			fmt.Fprintf(&b, "held back:\n%s\n\noldest age:\n%s\n\n", r.heldQuery, r.ageQuery)
			fmt.Fprintf(&b, "order: %v\nkey positions in the order: %v\nkey columns in the row (table order): %v\n", r.orderBy, r.keyPos, r.pkIdx)
			golden.Assert(t, filepath.Join("testdata", "TestBuildQueries", tc.name+".golden"), []byte(b.String()))
		})
	}
}
