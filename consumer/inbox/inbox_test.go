package inbox_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/outbox/dialect"
)

func TestNewSQLStore(t *testing.T) {
	db := &sql.DB{} // never used: construction only
	cases := []struct {
		dialect inbox.Dialect
		table   string
		ok      bool
	}{
		{inbox.Postgres, "", true},
		{inbox.MySQL, "app.inbox_2", true},
		{inbox.MariaDB, "", true},
		{dialect.MariaDB, "", true}, // inbox.Dialect is dialect.Dialect
		{"oracle", "", false},
		{inbox.Postgres, "inbox; DROP TABLE x", false},
		{inbox.Postgres, "1inbox", false},
	}
	for _, c := range cases {
		s, err := inbox.NewSQLStore(db, c.dialect, c.table, nil)
		if (err == nil) != c.ok {
			t.Errorf("%s %q: err = %v, want ok=%v", c.dialect, c.table, err, c.ok)
		}
		if err == nil && c.table == "" && s.Table() != inbox.DefaultTable {
			t.Errorf("default table = %q", s.Table())
		}
	}
	if _, err := inbox.NewSQLStore(nil, inbox.Postgres, "", nil); err == nil {
		t.Error("nil db accepted")
	}
}

func TestCreateTableSQL(t *testing.T) {
	pg, _ := inbox.NewPostgres(&sql.DB{}, "x")
	my, _ := inbox.NewMySQL(&sql.DB{}, "x")
	for _, want := range []string{"CREATE TABLE IF NOT EXISTS x", "PRIMARY KEY (consumer_group, event_id)"} {
		if !strings.Contains(pg.CreateTableSQL(), want) || !strings.Contains(my.CreateTableSQL(), want) {
			t.Errorf("DDL lacks %q", want)
		}
	}
	// MySQL keys compare byte-exact.
	if !strings.Contains(my.CreateTableSQL(), "event_id VARBINARY") {
		t.Errorf("mysql DDL: %s", my.CreateTableSQL())
	}
	// MariaDB runs MySQL's statements.
	maria, err := inbox.NewSQLStore(&sql.DB{}, inbox.MariaDB, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if maria.CreateTableSQL() != my.CreateTableSQL() {
		t.Errorf("mariadb DDL = %s, want MySQL's %s", maria.CreateTableSQL(), my.CreateTableSQL())
	}
}
