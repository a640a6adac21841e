package consumertest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// Inbox is an in-memory inbox.Store for unit tests, over a tiny database/sql
// driver: Begin returns a real *sql.Tx whose marks, and the statements the
// handler executes through it (recorded, not run), become visible only on
// commit. It does not block concurrent duplicates (use the SQL stores and
// inboxtest for that). Safe for concurrent use.
//
// It has no database behind it, so it cannot serve what a handler reads:
// a query through Event.Tx (QueryContext, QueryRowContext) fails with an
// error wrapping ErrNoDatabase rather than returning no rows, and Exec
// always reports one row affected. A handler that reads what it wrote, or
// relies on affected rows, is tested with NewDBInbox over a real database.
type Inbox struct {
	db *sql.DB

	mu        sync.Mutex
	marks     map[[2]string]bool
	committed []Statement
	// BeginErr, when set, makes Begin fail.
	BeginErr error
}

// Statement is a statement a handler executed through Event.Tx.
type Statement struct {
	Query string
	Args  []any
}

// NewInbox returns an empty in-memory inbox. Close it when done.
func NewInbox() *Inbox {
	in := &Inbox{marks: map[[2]string]bool{}}
	in.db = sql.OpenDB(memConnector{in})
	return in
}

// Close closes the underlying *sql.DB.
func (in *Inbox) Close() error { return in.db.Close() }

// Begin implements inbox.Store.
func (in *Inbox) Begin(ctx context.Context) (*sql.Tx, error) {
	in.mu.Lock()
	err := in.BeginErr
	in.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return in.db.BeginTx(ctx, nil)
}

const markQuery = "INBOX MARK"

// MarkProcessed implements inbox.Store.
func (in *Inbox) MarkProcessed(ctx context.Context, tx *sql.Tx, consumerGroup, eventID string) (bool, error) {
	for _, k := range []string{consumerGroup, eventID} {
		if k == "" || len([]rune(k)) > inbox.MaxKeyLength {
			return false, fmt.Errorf("%w: %q", inbox.ErrInvalidKey, k)
		}
	}
	res, err := tx.ExecContext(ctx, markQuery, consumerGroup, eventID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 0, err
}

// Processed reports whether the mark is committed.
func (in *Inbox) Processed(consumerGroup, eventID string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.marks[[2]string{consumerGroup, eventID}]
}

// Committed returns the statements of committed transactions, in commit
// order (the handlers' business effects).
func (in *Inbox) Committed() []Statement {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Statement(nil), in.committed...)
}

// ErrNoDatabase: a handler queried through the transaction of the in-memory
// Inbox, which records statements but has no rows to return. Use NewDBInbox.
var ErrNoDatabase = errors.New("consumertest: the in-memory inbox has no database to query (use NewDBInbox with a real database)")

type memConnector struct{ in *Inbox }

func (c memConnector) Connect(context.Context) (driver.Conn, error) { return &memConn{in: c.in}, nil }
func (c memConnector) Driver() driver.Driver                        { return memDriver{} }

type memDriver struct{}

func (memDriver) Open(string) (driver.Conn, error) {
	return nil, errors.New("consumertest: use NewInbox")
}

type memConn struct {
	in *Inbox
	tx *memTx
}

func (c *memConn) Prepare(query string) (driver.Stmt, error) { return &memStmt{c: c, q: query}, nil }
func (c *memConn) Close() error                              { return nil }
func (c *memConn) Begin() (driver.Tx, error) {
	c.tx = &memTx{c: c, marks: map[[2]string]bool{}}
	return c.tx, nil
}

type memTx struct {
	c     *memConn
	marks map[[2]string]bool
	stmts []Statement
}

func (t *memTx) Commit() error {
	in := t.c.in
	in.mu.Lock()
	for k := range t.marks {
		in.marks[k] = true
	}
	in.committed = append(in.committed, t.stmts...)
	in.mu.Unlock()
	t.c.tx = nil
	return nil
}

func (t *memTx) Rollback() error {
	t.c.tx = nil
	return nil
}

type memStmt struct {
	c *memConn
	q string
}

func (s *memStmt) Close() error  { return nil }
func (s *memStmt) NumInput() int { return -1 }
func (s *memStmt) Exec(args []driver.Value) (driver.Result, error) {
	tx := s.c.tx
	if tx == nil {
		return nil, errors.New("consumertest: the in-memory inbox only executes inside a transaction")
	}
	if s.q == markQuery {
		k := [2]string{args[0].(string), args[1].(string)}
		s.c.in.mu.Lock()
		done := s.c.in.marks[k]
		s.c.in.mu.Unlock()
		if done || tx.marks[k] {
			return driver.RowsAffected(0), nil
		}
		tx.marks[k] = true
		return driver.RowsAffected(1), nil
	}
	st := Statement{Query: s.q}
	for _, a := range args {
		st.Args = append(st.Args, a)
	}
	tx.stmts = append(tx.stmts, st)
	return driver.RowsAffected(1), nil
}

func (s *memStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, fmt.Errorf("%w: query %q", ErrNoDatabase, s.q)
}
