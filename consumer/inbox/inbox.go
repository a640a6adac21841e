// Package inbox is the consumer's durable inbox: a table in the consumer's own
// database that records, per consumer group, the ids of the events already
// processed. The consumer Router marks an event in the same transaction in
// which the handler writes its business effect, so both commit together or
// not at all, and a redelivered event (at-least-once delivery, connector
// snapshot replays) is skipped.
//
// Store is the interface the Router uses; SQLStore implements it for
// PostgreSQL (INSERT … ON CONFLICT DO NOTHING) and MariaDB/MySQL (INSERT
// IGNORE). Both mark before the handler runs, so a concurrent duplicate
// delivery blocks on the row lock until the first transaction ends, and
// then sees the event as processed (or takes over if the first rolled back):
// a duplicate never runs its handler twice concurrently.
//
// Rows are never deleted by the Router; call DeleteOlderThan from a periodic
// job to keep the table small, with a window longer than any redelivery you
// expect (snapshots can replay old events).
package inbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/outboxctl/outboxctl/outbox/dialect"
)

// Store is a durable inbox.
//
// Begin starts the transaction in which the handler runs. MarkProcessed
// records (consumerGroup, eventID) in tx and reports whether it was already
// there (a committed earlier delivery); it must block, not fail, while
// another open transaction holds the same mark. Implementations must be safe
// for concurrent use.
type Store interface {
	Begin(ctx context.Context) (*sql.Tx, error)
	MarkProcessed(ctx context.Context, tx *sql.Tx, consumerGroup, eventID string) (alreadyProcessed bool, err error)
}

// Dialect is an SQL dialect of SQLStore: the SDK's one type,
// dialect.Dialect, shared with outbox.Table.
type Dialect = dialect.Dialect

// The dialects of SQLStore (those of package dialect). MariaDB runs the
// same statements as MySQL.
const (
	Postgres = dialect.Postgres
	MySQL    = dialect.MySQL
	MariaDB  = dialect.MariaDB
)

// MaxKeyLength is the longest consumer group and event id accepted (the
// columns are VARCHAR(255)). Longer keys are rejected rather than
// truncated, because MySQL's INSERT IGNORE would silently truncate them and
// make different ids collide.
const MaxKeyLength = 255

// ErrInvalidKey: an empty or too long consumer group or event id.
var ErrInvalidKey = errors.New("invalid inbox key")

// SQLStore is the Store for PostgreSQL and MariaDB/MySQL over database/sql.
type SQLStore struct {
	db      *sql.DB
	dialect Dialect
	table   string
	opts    *sql.TxOptions
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// DefaultTable is the inbox table name when none is given.
const DefaultTable = "outbox_inbox"

// NewSQLStore returns a store over db in dialect d, in table (DefaultTable when
// empty; "schema.table" allowed; letters, digits and underscores only).
// opts are the options of the handler transactions (nil: the driver's default
// isolation, which is enough: the mark is a unique-key insert).
//
// Each of the consumer's lanes (one per partition it is assigned) holds a
// connection of db for its transaction: give db at least as many open and
// idle connections (SetMaxOpenConns, SetMaxIdleConns). database/sql keeps 2
// idle connections by default, so with more lanes a finished transaction's
// connection is closed and the next transaction opens a new session
// (outboxctl bench at 1,000 events/s on 4 partitions: about 125 sessions
// in 5 s, 20 with the idle connections raised).
func NewSQLStore(db *sql.DB, d Dialect, table string, opts *sql.TxOptions) (*SQLStore, error) {
	if db == nil {
		return nil, errors.New("inbox: nil *sql.DB")
	}
	if !d.Valid() {
		return nil, fmt.Errorf("inbox: unknown dialect %q (want %q, %q or %q)", d, Postgres, MySQL, MariaDB)
	}
	if table == "" {
		table = DefaultTable
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("inbox: invalid table name %q", table)
	}
	return &SQLStore{db: db, dialect: d, table: table, opts: opts}, nil
}

// NewPostgres is NewSQLStore(db, Postgres, table, nil).
func NewPostgres(db *sql.DB, table string) (*SQLStore, error) {
	return NewSQLStore(db, Postgres, table, nil)
}

// NewMySQL is NewSQLStore(db, MySQL, table, nil), for MySQL and MariaDB
// (the statements are the same; NewSQLStore takes MariaDB too).
func NewMySQL(db *sql.DB, table string) (*SQLStore, error) {
	return NewSQLStore(db, MySQL, table, nil)
}

// Table returns the table name.
func (s *SQLStore) Table() string { return s.table }

// CreateTableSQL returns the DDL of the inbox table (CREATE TABLE IF NOT
// EXISTS), for a migration tool. On MySQL and MariaDB the keys are
// VARBINARY (UTF-8 bytes, up to MaxKeyLength characters) so that they compare
// exactly: the default case- and accent-insensitive, space-padding collations
// would make distinct event ids collide.
func (s *SQLStore) CreateTableSQL() string { return createTableSQL(s.dialect, s.table) }

// The statements of both stores (SQLStore, PgxStore), in one place.

func createTableSQL(d Dialect, table string) string {
	switch d {
	case Postgres:
		return `CREATE TABLE IF NOT EXISTS ` + table + ` (
  consumer_group VARCHAR(255) NOT NULL,
  event_id VARCHAR(255) NOT NULL,
  processed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_group, event_id)
)`
	default:
		return `CREATE TABLE IF NOT EXISTS ` + table + ` (
  consumer_group VARBINARY(1020) NOT NULL,
  event_id VARBINARY(1020) NOT NULL,
  processed_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (consumer_group, event_id)
)`
	}
}

// CreateTable runs CreateTableSQL (outside any handler transaction: DDL
// commits implicitly on MySQL).
func (s *SQLStore) CreateTable(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, s.CreateTableSQL()); err != nil {
		return fmt.Errorf("inbox: create table %s: %w", s.table, err)
	}
	return nil
}

// Begin starts a handler transaction.
func (s *SQLStore) Begin(ctx context.Context) (*sql.Tx, error) {
	return s.db.BeginTx(ctx, s.opts)
}

// MarkProcessed inserts (consumerGroup, eventID) in tx; alreadyProcessed is
// true when the row existed (no row inserted). Errors: ErrInvalidKey (wrapped)
// for an empty or too long key, else the driver's error.
func (s *SQLStore) MarkProcessed(ctx context.Context, tx *sql.Tx, consumerGroup, eventID string) (bool, error) {
	if err := checkKey("consumer group", consumerGroup); err != nil {
		return false, err
	}
	if err := checkKey("event id", eventID); err != nil {
		return false, err
	}
	res, err := tx.ExecContext(ctx, markSQL(s.dialect, s.table), consumerGroup, eventID)
	if err != nil {
		return false, fmt.Errorf("inbox: mark %s/%s: %w", consumerGroup, eventID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("inbox: mark %s/%s: %w", consumerGroup, eventID, err)
	}
	return n == 0, nil
}

// IsProcessed reports whether (consumerGroup, eventID) is marked (committed).
func (s *SQLStore) IsProcessed(ctx context.Context, consumerGroup, eventID string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, isProcessedSQL(s.dialect, s.table), consumerGroup, eventID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inbox: lookup %s/%s: %w", consumerGroup, eventID, err)
	}
	return true, nil
}

// DeleteOlderThan deletes the marks processed more than age ago (by the
// database's clock, so time zones do not matter) and returns how many.
func (s *SQLStore) DeleteOlderThan(ctx context.Context, age time.Duration) (int64, error) {
	res, err := s.db.ExecContext(ctx, deleteOlderSQL(s.dialect, s.table), age.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("inbox: delete older than %s: %w", age, err)
	}
	return res.RowsAffected()
}

func checkKey(what, v string) error {
	if v == "" {
		return fmt.Errorf("%w: empty %s", ErrInvalidKey, what)
	}
	if len([]rune(v)) > MaxKeyLength {
		return fmt.Errorf("%w: %s of %d characters, at most %d", ErrInvalidKey, what, len([]rune(v)), MaxKeyLength)
	}
	return nil
}

func markSQL(d Dialect, table string) string {
	if d == Postgres {
		return `INSERT INTO ` + table + ` (consumer_group, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`
	}
	return `INSERT IGNORE INTO ` + table + ` (consumer_group, event_id) VALUES (?, ?)`
}

func isProcessedSQL(d Dialect, table string) string {
	if d == Postgres {
		return `SELECT 1 FROM ` + table + ` WHERE consumer_group = $1 AND event_id = $2`
	}
	return `SELECT 1 FROM ` + table + ` WHERE consumer_group = ? AND event_id = ?`
}

func deleteOlderSQL(d Dialect, table string) string {
	if d == Postgres {
		return `DELETE FROM ` + table + ` WHERE processed_at < now() - $1 * interval '1 microsecond'`
	}
	return `DELETE FROM ` + table + ` WHERE processed_at < NOW(6) - INTERVAL ? MICROSECOND`
}
