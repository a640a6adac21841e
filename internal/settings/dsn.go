package settings

import (
	"fmt"
	"net/url"

	"github.com/go-sql-driver/mysql"
)

// PostgresDSNWithDatabase points a PostgreSQL DSN, in URL form
// (postgres://…/db) or key=value form, at database db.
func PostgresDSNWithDatabase(dsn, db string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}

// MySQLDSNWithDatabase points a go-sql-driver DSN (user@tcp(host:port)/db?…),
// as used for MariaDB and MySQL, at database db.
func MySQLDSNWithDatabase(dsn, db string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql dsn: %w", err)
	}
	cfg.DBName = db
	return cfg.FormatDSN(), nil
}
