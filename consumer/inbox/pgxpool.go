package inbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// ErrTxOwned: a handler called Commit or Rollback on the pgx.Tx of an inbox
// transaction (PgxTxOf), which the consumer Router commits or rolls back
// itself, together with the inbox mark.
var ErrTxOwned = errors.New("inbox: the transaction belongs to the inbox: the Router commits or rolls it back")

// PgxPoolStore is the Store (a consumer RouterConfig.Inbox) of a pgx
// service: the inbox on a *pgxpool.Pool, whose handler transactions are
// pgx transactions too. Begin returns the *sql.Tx the Router needs (on the
// pool's database/sql view, stdlib.OpenDBFromPool: the connections are the
// pool's), and PgxTxOf (Event.PgxTx in package consumer) returns the same
// transaction as a pgx.Tx, so a handler writes its effect with pgx:
//
//	store, _ := inbox.NewPgxPool(pool, "")
//	app, _ := consumer.FromSpec(sp, "orders", consumer.Options{GroupID: "billing", Inbox: store})
//	consumer.Handle(app.Router, "OrderPlaced", 2, func(ctx context.Context, ev consumer.Event[OrderPlaced]) error {
//		_, err := ev.PgxTx().Exec(ctx, "INSERT INTO invoices ...")
//		return err
//	})
//
// Writes through ev.Tx and ev.PgxTx() run on one connection, in one
// transaction, and commit together with the inbox mark. The pgx.Tx's
// Commit and Rollback return ErrTxOwned (the Router ends the transaction);
// its Begin makes a savepoint (a pseudo nested transaction, as pgx's own).
// LargeObjects is not supported (its zero value panics when used).
// It is safe for concurrent use; it also implements BatchStore.
type PgxPoolStore struct {
	*SQLStore
	db *sql.DB
}

// NewPgxPool returns the inbox on pool in table (DefaultTable when empty;
// the name rules of NewSQLStore). Close it (or the pool) when done.
func NewPgxPool(pool *pgxpool.Pool, table string) (*PgxPoolStore, error) {
	if pool == nil {
		return nil, errors.New("inbox: nil *pgxpool.Pool")
	}
	db := stdlib.OpenDBFromPool(pool)
	s, err := NewSQLStore(db, Postgres, table, nil)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &PgxPoolStore{SQLStore: s, db: db}, nil
}

// DB returns the database/sql view of the pool the store runs on.
func (s *PgxPoolStore) DB() *sql.DB { return s.db }

// Close closes the database/sql view (not the pool).
func (s *PgxPoolStore) Close() error { return s.db.Close() }

// pgxTxs maps the *sql.Tx of PgxPoolStore.Begin to its pgx connection
// while the transaction is open.
var pgxTxs sync.Map // *sql.Tx -> *pgx.Conn

// Begin starts a handler transaction on one connection of the pool and
// keeps that connection's pgx view for PgxTxOf until the transaction ends.
func (s *PgxPoolStore) Begin(ctx context.Context) (*sql.Tx, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var pc *pgx.Conn
	err = c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("inbox: the pool's driver connection is a %T, not pgx's", dc)
		}
		pc = sc.Conn()
		return nil
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	tx, err := c.BeginTx(ctx, s.opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	pgxTxs.Store(tx, pc)
	// Close marks c done at once and returns the connection to the pool
	// when tx has ended (it waits for the transaction's hold on c).
	go func() {
		_ = c.Close()
		pgxTxs.Delete(tx)
	}()
	return tx, nil
}

// PgxTxOf returns tx, a transaction of a PgxPoolStore's Begin that is still
// open, as a pgx.Tx on the same connection (ok false otherwise: another
// Store's transaction, or nil).
func PgxTxOf(tx *sql.Tx) (t pgx.Tx, ok bool) {
	if tx == nil {
		return nil, false
	}
	v, ok := pgxTxs.Load(tx)
	if !ok {
		return nil, false
	}
	return &connTx{conn: v.(*pgx.Conn)}, true
}

// connTx is the pgx.Tx view of an inbox transaction: statements run on its
// connection (inside the transaction database/sql began); the outermost
// Commit and Rollback are refused, nested ones are savepoints.
type connTx struct {
	conn      *pgx.Conn
	savepoint string // "" for the inbox transaction itself
	closed    atomic.Bool
}

var savepoints atomic.Uint64

func (t *connTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if t.closed.Load() {
		return nil, pgx.ErrTxClosed
	}
	name := "outboxctl_inbox_sp_" + strconv.FormatUint(savepoints.Add(1), 10)
	if _, err := t.conn.Exec(ctx, "SAVEPOINT "+name); err != nil {
		return nil, err
	}
	return &connTx{conn: t.conn, savepoint: name}, nil
}

func (t *connTx) Commit(ctx context.Context) error {
	if t.savepoint == "" {
		return ErrTxOwned
	}
	if t.closed.Swap(true) {
		return pgx.ErrTxClosed
	}
	_, err := t.conn.Exec(ctx, "RELEASE SAVEPOINT "+t.savepoint)
	return err
}

func (t *connTx) Rollback(ctx context.Context) error {
	if t.savepoint == "" {
		return ErrTxOwned
	}
	if t.closed.Swap(true) {
		return pgx.ErrTxClosed
	}
	_, err := t.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT "+t.savepoint)
	return err
}

func (t *connTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t *connTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, b)
}

func (t *connTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (t *connTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *connTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.conn.Exec(ctx, sql, args...)
}

func (t *connTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.conn.Query(ctx, sql, args...)
}

func (t *connTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *connTx) Conn() *pgx.Conn { return t.conn }
