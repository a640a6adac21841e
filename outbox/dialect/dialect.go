// Package dialect names the SQL databases the SDK writes to: the outbox
// table (outbox.Table.Dialect) and the consumer's inbox
// (inbox.NewSQLStore). It is a leaf: it imports nothing, so any package
// can use its type.
//
// The values are the spec's database kinds (spec.Postgres, spec.MySQL,
// spec.MariaDB), so a spec's Database.Kind converts with Dialect(kind).
// MariaDB speaks the SQL of MySQL wherever the SDK's statements are
// concerned; it has its own value so that code can tell them apart.
package dialect

// Dialect is an SQL dialect.
type Dialect string

// The dialects.
const (
	Postgres Dialect = "postgres"
	MySQL    Dialect = "mysql"
	MariaDB  Dialect = "mariadb"
)

// Valid reports whether d is Postgres, MySQL or MariaDB.
func (d Dialect) Valid() bool {
	return d == Postgres || d == MySQL || d == MariaDB
}

// MySQLFamily reports whether d is MySQL or MariaDB: backquoted
// identifiers, ? placeholders, INSERT IGNORE.
func (d Dialect) MySQLFamily() bool {
	return d == MySQL || d == MariaDB
}
