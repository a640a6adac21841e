package consumertest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"

	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// DBInbox is the production inbox, inbox.SQLStore, over a database the test
// supplies (PostgreSQL, or MariaDB/MySQL), in an inbox table of its own. A
// handler's statements through Event.Tx run in that database's transaction,
// so a handler that reads what it wrote, checks affected rows, or trips a
// constraint behaves exactly as in production; the mark and the effect commit
// or roll back together. It embeds *inbox.SQLStore (Begin, MarkProcessed,
// IsProcessed, Table, ...). Safe for concurrent use.
type DBInbox struct {
	*inbox.SQLStore
	db *sql.DB
}

// NewDBInbox creates an inbox table named consumertest_inbox_<random hex> in
// db, of dialect inbox.Postgres, inbox.MySQL or inbox.MariaDB, and returns the store over
// it. Close drops the table; db stays open (it is the test's).
func NewDBInbox(ctx context.Context, db *sql.DB, dialect inbox.Dialect) (*DBInbox, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("consumertest: %w", err)
	}
	s, err := inbox.NewSQLStore(db, dialect, "consumertest_inbox_"+hex.EncodeToString(b[:]), nil)
	if err != nil {
		return nil, fmt.Errorf("consumertest: %w", err)
	}
	if err := s.CreateTable(ctx); err != nil {
		return nil, fmt.Errorf("consumertest: %w", err)
	}
	return &DBInbox{SQLStore: s, db: db}, nil
}

// Processed reports whether the mark is committed, as Inbox.Processed does;
// a database error counts as not processed (use IsProcessed to see it).
func (in *DBInbox) Processed(consumerGroup, eventID string) bool {
	ok, err := in.IsProcessed(context.Background(), consumerGroup, eventID)
	return err == nil && ok
}

// Close drops the inbox table.
func (in *DBInbox) Close() error {
	if _, err := in.db.Exec("DROP TABLE IF EXISTS " + in.Table()); err != nil {
		return fmt.Errorf("consumertest: drop %s: %w", in.Table(), err)
	}
	return nil
}
