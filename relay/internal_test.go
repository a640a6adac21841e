package relay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

func TestTableOf(t *testing.T) {
	for _, tc := range []struct {
		list, schema, name string
		err                bool
	}{
		{list: `public\.outbox`, schema: "public", name: "outbox"},
		{list: `public.outbox`, schema: "public", name: "outbox"},
		{list: `app_db\.outbox\_x`, schema: "app_db", name: "outbox_x"},
		{list: `public\.out.*`, err: true},
		{list: `public\.a,public\.b`, err: true},
		{list: `outbox`, err: true},
		{list: ``, err: true},
	} {
		s, n, err := tableOf(map[string]string{"table.include.list": tc.list})
		if tc.err {
			if !errors.Is(err, ErrConfig) {
				t.Errorf("%q: err %v, want ErrConfig", tc.list, err)
			}
			continue
		}
		if err != nil || s != tc.schema || n != tc.name {
			t.Errorf("%q: %q %q %v, want %q %q", tc.list, s, n, err, tc.schema, tc.name)
		}
	}
}

func TestZoned(t *testing.T) {
	for _, tc := range []struct {
		pg       bool
		in, want string
	}{
		{true, "2024-01-01T00:00:00.000000", "2024-01-01T00:00:00Z"},
		{true, "2024-01-01T10:20:30.123400", "2024-01-01T10:20:30.1234Z"},
		{false, "1704067200.000000", "2024-01-01T00:00:00Z"},
		{false, "1704067200.5", "2024-01-01T00:00:00.5Z"},
	} {
		got, err := zoned(tc.pg, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("zoned(%v, %q) = %q, %v; want %q", tc.pg, tc.in, got, err, tc.want)
		}
	}
}

func TestUUIDV7Time(t *testing.T) {
	ts, ok := uuidV7Time("01a23377-5022-7175-9e6c-ef37efa09f0c")
	if !ok || ts.UnixMilli() != 0x01a233775022 {
		t.Errorf("got %v %v", ts.UnixMilli(), ok)
	}
	for _, bad := range []any{"4d47e190-0402-4048-bc2c-89dd90a3d1b8", "x", 42, nil} {
		if _, ok := uuidV7Time(bad); ok {
			t.Errorf("%v: want not a UUIDv7", bad)
		}
	}
}

// The keyset condition of a pass: placeholders in text order (MySQL's are
// positional), after the filter's.
func TestPollQueryKeyset(t *testing.T) {
	for _, tc := range []struct {
		kind  eventrouter.ConnectorKind
		order []string
		after []any
		where string
		args  []any
	}{
		{eventrouter.Postgres, []string{"id"}, nil, ` WHERE "aggregatetype" = $1`, []any{"f"}},
		{eventrouter.Postgres, []string{"id"}, []any{"a"}, ` WHERE "aggregatetype" = $1 AND "id" > $2`, []any{"f", "a"}},
		{eventrouter.Postgres, []string{"seq", "id", "created_at"}, []any{1, "a", "t"},
			` WHERE "aggregatetype" = $1 AND ("seq" > $2 OR ("seq" = $3 AND ("id" > $4 OR ("id" = $5 AND "created_at" > $6))))`, []any{"f", 1, 1, "a", "a", "t"}},
		{eventrouter.MariaDB, []string{"id", "created_at"}, []any{"a", "t"},
			" WHERE `aggregatetype` = ? AND (`id` > ? OR (`id` = ? AND `created_at` > ?))", []any{"f", "a", "a", "t"}},
	} {
		r := &Relay{t: &table{kind: tc.kind}, orderBy: tc.order, query: "SELECT x FROM t%s ORDER BY y"}
		r.args = []any{"f"}
		r.where = []string{r.t.quote("aggregatetype") + " = " + r.t.placeholder(1)}
		q, args := r.pollQuery(tc.after)
		if want := "SELECT x FROM t" + tc.where + " ORDER BY y"; q != want || fmt.Sprint(args) != fmt.Sprint(tc.args) {
			t.Errorf("%s %v after %v:\n got %s %v\nwant %s %v", tc.kind, tc.order, tc.after, q, args, want, tc.args)
		}
		if len(r.args) != 1 {
			t.Errorf("pollQuery changed the filter's args: %v", r.args)
		}
	}
}

// A column of a type the emulator does not model stops the relay at start
// (ErrConfig naming the column and its type), as route preview refuses it,
// instead of publishing a guessed value.
func TestSetColumnsRefusesUnmodelledTypes(t *testing.T) {
	base := func(kind eventrouter.ConnectorKind) []rawColumn {
		id, txt := "uuid", "varchar(255)"
		if kind != eventrouter.Postgres {
			id = "varchar(36)"
		}
		return []rawColumn{{name: "id", typ: id}, {name: "aggregatetype", typ: txt}, {name: "payload", typ: "text", nullable: true}}
	}
	for _, tc := range []struct {
		kind eventrouter.ConnectorKind
		typ  string
	}{
		{eventrouter.Postgres, "money"},
		{eventrouter.Postgres, "interval"},
		{eventrouter.Postgres, "xml"},
		{eventrouter.Postgres, "_int4"},
		{eventrouter.MariaDB, "set('a','b')"},
		{eventrouter.MariaDB, "enum('a','b')"},
		{eventrouter.MariaDB, "bit(3)"},
		{eventrouter.MariaDB, "int(10) unsigned"},
		{eventrouter.MySQL, "smallint unsigned"},
	} {
		tb := &table{kind: tc.kind, schema: "s", name: "outbox"}
		err := tb.setColumns(append(base(tc.kind), rawColumn{name: "amount", typ: tc.typ, nullable: true}))
		var cte *eventrouter.ColumnTypeError
		if !errors.Is(err, ErrConfig) || !errors.As(err, &cte) || cte.Type != tc.typ {
			t.Errorf("%s %s: %v, want ErrConfig with an eventrouter.ColumnTypeError", tc.kind, tc.typ, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "column amount: ") || !strings.Contains(msg, fmt.Sprintf("%q", tc.typ)) {
			t.Errorf("%s %s: %q does not name the column and its type", tc.kind, tc.typ, msg)
		}
	}
	// the modelled ones load
	for _, kind := range []eventrouter.ConnectorKind{eventrouter.Postgres, eventrouter.MariaDB} {
		tb := &table{kind: kind, schema: "s", name: "outbox"}
		if err := tb.setColumns(append(base(kind), rawColumn{name: "amount", typ: "bigint"})); err != nil || len(tb.cols) != 4 {
			t.Errorf("%s: %v, %d columns", kind, err, len(tb.cols))
		}
	}
}
