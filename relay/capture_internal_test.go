package relay

import (
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// TestSetColumnsRefusesUncapturable: a MariaDB inet4 / inet6 column makes
// the 3.5 connector's DDL parser fail on the table; the relay refuses to
// start (ErrConfig), naming the column and saying the connector cannot
// capture the table.
func TestSetColumnsRefusesUncapturable(t *testing.T) {
	for _, typ := range []string{"inet6", "INET4"} {
		tb := &table{kind: eventrouter.MariaDB, schema: "s", name: "outbox"}
		err := tb.setColumns([]rawColumn{{name: "id", typ: "varchar(36)"}, {name: "addr", typ: typ, nullable: true}}, eventrouter.ColumnSettings{})
		var nc *eventrouter.NotCapturableError
		if !errors.Is(err, ErrConfig) || !errors.Is(err, eventrouter.ErrNotCapturable) || !errors.As(err, &nc) || nc.Column != "addr" {
			t.Errorf("%s: %v, want ErrConfig with an eventrouter.NotCapturableError for column addr", typ, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "column addr") || !strings.Contains(msg, "cannot capture the table") || !strings.Contains(msg, "DDL statement couldn't be parsed") {
			t.Errorf("%s: %q", typ, msg)
		}
	}
	// on PostgreSQL the name is no type the check knows
	if eventrouter.NotCapturable(eventrouter.Postgres, "inet6") {
		t.Error("PostgreSQL inet6 reported not capturable")
	}
}
