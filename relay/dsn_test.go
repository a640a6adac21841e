package relay_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/spec"
)

func TestDSN(t *testing.T) {
	t.Parallel()
	pg := map[string]string{
		"connector.class":   "io.debezium.connector.postgresql.PostgresConnector",
		"database.hostname": "db.example",
		"database.user":     "u",
		"database.password": "p@ss",
		"database.dbname":   "shop",
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	my := with(pg, "connector.class", "io.debezium.connector.mysql.MySqlConnector", "database.port", "13306")
	tests := []struct {
		name       string
		conf       map[string]string
		dsn        string
		wantDriver string
		wantDSN    string
		wantErr    bool
	}{
		{name: "postgres", conf: pg, wantDriver: "pgx", wantDSN: "postgres://u:p%40ss@db.example:5432/shop?sslmode=disable"},
		{name: "postgres sslmode, no password", conf: with(pg, "database.password", "", "database.sslmode", "require", "database.port", "6543"), wantDriver: "pgx", wantDSN: "postgres://u@db.example:6543/shop?sslmode=require"},
		{name: "mysql", conf: my, wantDriver: "mysql", wantDSN: "u:p@ss@tcp(db.example:13306)/"},
		{name: "mariadb default port", conf: with(pg, "connector.class", "io.debezium.connector.mariadb.MariaDbConnector"), wantDriver: "mysql", wantDSN: "u:p@ss@tcp(db.example:3306)/"},
		{name: "explicit dsn wins", conf: pg, dsn: "postgres://x", wantDriver: "pgx", wantDSN: "postgres://x"},
		{name: "other class", conf: with(pg, "connector.class", "io.debezium.connector.sqlserver.SqlServerConnector"), wantErr: true},
		{name: "no host", conf: with(pg, "database.hostname", ""), wantErr: true},
		{name: "config provider password", conf: with(pg, "database.password", "${file:/s:pw}"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			driver, dsn, err := relay.DSN(tt.conf, tt.dsn)
			if tt.wantErr {
				if !errors.Is(err, relay.ErrConfig) {
					t.Fatalf("err = %v, want one that unwraps to ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if driver != tt.wantDriver || dsn != tt.wantDSN {
				t.Errorf("DSN = %q, %q; want %q, %q", driver, dsn, tt.wantDriver, tt.wantDSN)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	t.Parallel()
	got, err := relay.ParseSpec(&spec.RelaySpec{OrderColumn: "id", Batch: 7, Notify: "ch", PollInterval: "250ms", BooleanColumns: []string{"flag"}, JSONColumns: []string{"payload"}})
	if err != nil {
		t.Fatal(err)
	}
	want := relay.SpecSettings{OrderColumn: "id", Batch: 7, Notify: "ch", PollInterval: 250 * time.Millisecond, BooleanColumns: []string{"flag"}, JSONColumns: []string{"payload"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseSpec = %+v, want %+v", got, want)
	}
	if got, err := relay.ParseSpec(nil); err != nil || !reflect.DeepEqual(got, relay.SpecSettings{}) {
		t.Errorf("ParseSpec(nil) = %+v, %v", got, err)
	}
	if _, err := relay.ParseSpec(&spec.RelaySpec{PollInterval: "soon"}); !errors.Is(err, relay.ErrConfig) {
		t.Errorf("ParseSpec(pollInterval: soon) = %v, want ErrConfig", err)
	}
}
