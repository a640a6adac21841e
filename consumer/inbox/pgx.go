package inbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PgxDB is what PgxStore needs from pgx: *pgxpool.Pool satisfies it (and so
// does *pgx.Conn, for a single connection).
type PgxDB interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// PgxStore is the inbox on PostgreSQL through native pgx: the same table
// and statements as SQLStore's Postgres dialect, with pgx.Tx transactions.
// Use it when the handler's business writes go through a pgx pool: begin
// with Begin (or your own pool.Begin), MarkProcessed in that pgx.Tx, write
// the effect, commit. It is safe for concurrent use.
//
// PgxStore is not a Store: the consumer Router's RouterConfig.Inbox takes
// a Store, whose transactions are *sql.Tx. For the Router over a pgx pool
// use NewPgxPool (a PgxPoolStore), whose handlers get the same transaction
// as a pgx.Tx with consumer.Event.PgxTx.
type PgxStore struct {
	db    PgxDB
	table string
	opts  pgx.TxOptions
}

// NewPgx returns a PgxStore over db in table (DefaultTable when empty; the
// same name rules as NewSQLStore). opts are the options of Begin's
// transactions (the zero value: the server's default isolation).
func NewPgx(db PgxDB, table string, opts pgx.TxOptions) (*PgxStore, error) {
	if db == nil {
		return nil, errors.New("inbox: nil pgx database")
	}
	if table == "" {
		table = DefaultTable
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("inbox: invalid table name %q", table)
	}
	return &PgxStore{db: db, table: table, opts: opts}, nil
}

// Table returns the table name.
func (s *PgxStore) Table() string { return s.table }

// CreateTableSQL returns the DDL of the inbox table, SQLStore's for Postgres.
func (s *PgxStore) CreateTableSQL() string { return createTableSQL(Postgres, s.table) }

// CreateTable runs CreateTableSQL.
func (s *PgxStore) CreateTable(ctx context.Context) error {
	if _, err := s.db.Exec(ctx, s.CreateTableSQL()); err != nil {
		return fmt.Errorf("inbox: create table %s: %w", s.table, err)
	}
	return nil
}

// Begin starts a handler transaction.
func (s *PgxStore) Begin(ctx context.Context) (pgx.Tx, error) {
	return s.db.BeginTx(ctx, s.opts)
}

// MarkProcessed inserts (consumerGroup, eventID) in tx; alreadyProcessed is
// true when the row existed. Like SQLStore's, it blocks while another open
// transaction holds the same mark. Errors: ErrInvalidKey (wrapped) for an
// empty or too long key, else pgx's error.
func (s *PgxStore) MarkProcessed(ctx context.Context, tx pgx.Tx, consumerGroup, eventID string) (bool, error) {
	if err := checkKey("consumer group", consumerGroup); err != nil {
		return false, err
	}
	if err := checkKey("event id", eventID); err != nil {
		return false, err
	}
	tag, err := tx.Exec(ctx, markSQL(Postgres, s.table), consumerGroup, eventID)
	if err != nil {
		return false, fmt.Errorf("inbox: mark %s/%s: %w", consumerGroup, eventID, err)
	}
	return tag.RowsAffected() == 0, nil
}

// MarkProcessedBatch is MarkProcessed for many events in one statement, as
// SQLStore.MarkProcessedBatch on PostgreSQL.
func (s *PgxStore) MarkProcessedBatch(ctx context.Context, tx pgx.Tx, consumerGroup string, eventIDs []string) ([]bool, error) {
	if err := checkKey("consumer group", consumerGroup); err != nil {
		return nil, err
	}
	q, args, first, err := markBatchSQL(s.table, consumerGroup, eventIDs)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("inbox: mark %d events of %s: %w", len(first), consumerGroup, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("inbox: mark %d events of %s: %w", len(first), consumerGroup, err)
	}
	inserted := make(map[string]bool, len(ids))
	for _, id := range ids {
		inserted[id] = true
	}
	return batchResult(eventIDs, first, inserted), nil
}

// IsProcessed reports whether (consumerGroup, eventID) is marked (committed).
func (s *PgxStore) IsProcessed(ctx context.Context, consumerGroup, eventID string) (bool, error) {
	var one int
	err := s.db.QueryRow(ctx, isProcessedSQL(Postgres, s.table), consumerGroup, eventID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inbox: lookup %s/%s: %w", consumerGroup, eventID, err)
	}
	return true, nil
}

// DeleteOlderThan deletes the marks processed more than age ago (by the
// database's clock) and returns how many.
func (s *PgxStore) DeleteOlderThan(ctx context.Context, age time.Duration) (int64, error) {
	tag, err := s.db.Exec(ctx, deleteOlderSQL(Postgres, s.table), age.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("inbox: delete older than %s: %w", age, err)
	}
	return tag.RowsAffected(), nil
}
