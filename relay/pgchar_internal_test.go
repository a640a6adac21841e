package relay

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// The one-byte "char" (the catalog's char, OID 18) is read as its text
// (::text prints what charout prints) and published as eventrouter.PgChar
// gives it, not blank-padded as character(1); its array (format_type's
// "char"[]) is read as text and published as the connector's array of
// strings (#31; values as Debezium 3.6.1 delivered them on the stack,
// pgchar_* differential variants).
func TestPgCharColumnsRead(t *testing.T) {
	tb := &table{kind: eventrouter.Postgres, schema: "s", name: "outbox"}
	raws := []rawColumn{{name: "c", typ: eventrouter.PgCharType, nullable: true}, {name: "ca", typ: `"char"[]`, nullable: true}}
	if err := tb.setColumns(raws, eventrouter.ColumnSettings{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ col, in, want string }{
		{"c", "", ""},
		{"c", "a", "a"},
		{"c", `\303`, `\303`},
		{"ca", `{a,"",NULL,"\\303"}`, `[a  <nil> \303]`},
	} {
		c := *tb.col(tc.col)
		if got := tb.selectExpr(c); got != fmt.Sprintf("%q::text", tc.col) {
			t.Errorf("%s: select %s", tc.col, got)
		}
		got, err := tb.connectValue(c, &sql.NullString{String: tc.in, Valid: true})
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("%s %q = %v, %v; want %s", tc.col, tc.in, got, err, tc.want)
		}
	}
}
