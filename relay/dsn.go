package relay

import (
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/spec"
)

// DSN returns the database/sql driver name ("pgx" for PostgreSQL, "mysql"
// for MySQL and MariaDB) and the DSN of the outbox database behind a
// Debezium connector config: dsn when it is not empty, else one built from
// the config's database.* settings (the database as Kafka Connect reaches
// it). The driver itself is the caller's to register (pgx/v5/stdlib,
// go-sql-driver/mysql). Errors unwrap to ErrConfig: a connector class the
// relay does not read, no database.hostname, or a password that is a
// Kafka Connect config provider reference; the last two also unwrap to
// ErrNoDSN.
func DSN(conf map[string]string, dsn string) (driver, dataSource string, err error) {
	class := conf["connector.class"]
	kind := eventrouter.ConnectorKindOf(class)
	if kind == "" {
		return "", "", configErr(nil, "connector.class=%q: the relay reads PostgreSQL, MySQL and MariaDB outboxes", class)
	}
	pg := kind == eventrouter.Postgres
	driver = "mysql"
	if pg {
		driver = "pgx"
	}
	if dsn != "" {
		return driver, dsn, nil
	}
	host, port, user, pass := conf["database.hostname"], conf["database.port"], conf["database.user"], conf["database.password"]
	if host == "" {
		return "", "", configErr(ErrNoDSN, "database.hostname is not set: pass --dsn")
	}
	if strings.Contains(pass, "${") {
		return "", "", configErr(ErrNoDSN, "database.password is a Kafka Connect config provider reference the relay cannot resolve: pass --dsn")
	}
	if pg {
		if port == "" {
			port = "5432"
		}
		u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(host, port), Path: "/" + conf["database.dbname"]}
		if pass != "" {
			u.User = url.UserPassword(user, pass)
		} else {
			u.User = url.User(user)
		}
		mode := conf["database.sslmode"]
		if mode == "" {
			mode = "disable"
		}
		u.RawQuery = "sslmode=" + url.QueryEscape(mode)
		return driver, u.String(), nil
	}
	if port == "" {
		port = "3306"
	}
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr = user, pass, "tcp", net.JoinHostPort(host, port)
	return driver, mc.FormatDSN(), nil
}

// SpecSettings are an outbox spec's relay: settings, parsed: the values a
// caller (outboxctl relay) takes for the options it was not given.
// Zero fields are unset.
type SpecSettings struct {
	OrderColumn  string
	Batch        int
	Notify       string
	PollInterval time.Duration
	// BooleanColumns: Options.BooleanColumns.
	BooleanColumns []string
	// JSONColumns: Options.JSONColumns.
	JSONColumns []string
}

// ParseSpec parses r (nil is no settings). An unparsable pollInterval is an
// error that unwraps to ErrConfig.
func ParseSpec(r *spec.RelaySpec) (SpecSettings, error) {
	if r == nil {
		return SpecSettings{}, nil
	}
	s := SpecSettings{OrderColumn: r.OrderColumn, Notify: r.Notify, BooleanColumns: r.BooleanColumns, JSONColumns: r.JSONColumns}
	if r.Batch > 0 {
		s.Batch = r.Batch
	}
	if r.PollInterval != "" {
		d, err := time.ParseDuration(r.PollInterval)
		if err != nil {
			return SpecSettings{}, configErr(err, "relay.pollInterval")
		}
		s.PollInterval = d
	}
	return s, nil
}
