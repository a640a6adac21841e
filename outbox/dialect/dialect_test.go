package dialect_test

import (
	"testing"

	"github.com/outboxctl/outboxctl/outbox/dialect"
	"github.com/outboxctl/outboxctl/spec"
)

func TestDialect(t *testing.T) {
	tests := []struct {
		d           dialect.Dialect
		kind        string // the spec's database kind with the same value
		valid, myql bool
	}{
		{dialect.Postgres, spec.Postgres, true, false},
		{dialect.MySQL, spec.MySQL, true, true},
		{dialect.MariaDB, spec.MariaDB, true, true},
		{"oracle", "", false, false},
		{"", "", false, false},
		{"Postgres", "", false, false}, // values are lower case, as in the spec
	}
	for _, tt := range tests {
		if got := tt.d.Valid(); got != tt.valid {
			t.Errorf("%q.Valid() = %v, want %v", tt.d, got, tt.valid)
		}
		if got := tt.d.MySQLFamily(); got != tt.myql {
			t.Errorf("%q.MySQLFamily() = %v, want %v", tt.d, got, tt.myql)
		}
		if tt.kind != "" && dialect.Dialect(tt.kind) != tt.d {
			t.Errorf("spec kind %q is not dialect %q", tt.kind, tt.d)
		}
	}
}
