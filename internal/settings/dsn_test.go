package settings_test

import (
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxctl/outboxctl/internal/settings"
)

func TestPostgresDSNWithDatabase(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{settings.DefaultPostgresDSN, "postgres://postgres@127.0.0.1:15432/orders?sslmode=disable"},
		{"postgresql://u:p@db/other", "postgresql://u:p@db/orders"},
		{"host=db user=u", "host=db user=u dbname=orders"},
	} {
		if got := settings.PostgresDSNWithDatabase(tc.dsn, "orders"); got != tc.want {
			t.Errorf("PostgresDSNWithDatabase(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
	}
}

func TestMySQLDSNWithDatabase(t *testing.T) {
	for _, dsn := range []string{settings.DefaultMariaDBDSN, "u:p/w@tcp(db:3306)/other?parseTime=true"} {
		got, err := settings.MySQLDSNWithDatabase(dsn, "orders")
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		cfg, err := mysql.ParseDSN(got)
		if err != nil {
			t.Fatalf("%s -> %s: %v", dsn, got, err)
		}
		orig, _ := mysql.ParseDSN(dsn)
		if cfg.DBName != "orders" || cfg.Addr != orig.Addr || cfg.User != orig.User || cfg.Passwd != orig.Passwd || cfg.ParseTime != orig.ParseTime {
			t.Errorf("%s -> %s: %+v", dsn, got, cfg)
		}
	}
	if _, err := settings.MySQLDSNWithDatabase("not a dsn", "x"); err == nil {
		t.Error("a malformed DSN must be an error")
	}
}
