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
	pg := kind == eventrouter.Postgres
	// Each column's type and default on PostgreSQL and on MySQL/MariaDB
	// ("" type: not on that side).
	var raws []rawColumn
	for _, c := range []struct {
		name, pgType, pgDef, myType, myDef string
		nullable, autoInc                  bool
	}{
		{name: "id", pgType: "uuid", myType: "char(36)"},
		{name: "aggregatetype", pgType: "varchar(255)", myType: "varchar(255)"},
		{name: "aggregateid", pgType: "varchar(255)", myType: "varchar(255)"},
		{name: "type", pgType: "varchar(255)", myType: "varchar(255)"},
		{name: "payload", pgType: "jsonb", myType: "longtext", nullable: true},
		{name: "timestamp", pgType: "timestamp(6)", pgDef: "(now() AT TIME ZONE 'UTC'::text)", myType: "datetime(6)", myDef: "current_timestamp(6)"},
		{name: "relay_tx", pgType: "int8", pgDef: "txid_current()"},
		{name: "relay_seq", pgType: "int8", pgDef: "nextval('outbox_relay_seq_seq'::regclass)", myType: "bigint(20)", autoInc: true},
		{name: "published_at", pgType: "timestamptz(6)", myType: "datetime(6)", nullable: true},
		{name: "tenant", pgType: "varchar(64)", myType: "varchar(64)"},
	} {
		typ, def := c.myType, c.myDef
		if pg {
			typ, def = c.pgType, c.pgDef
		}
		if typ != "" {
			raws = append(raws, rawColumn{name: c.name, typ: typ, def: def, hasDef: def != "", nullable: c.nullable, autoInc: c.autoInc && !pg})
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
