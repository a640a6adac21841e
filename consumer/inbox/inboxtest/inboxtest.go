// Package inboxtest is the conformance suite of inbox.Store implementations
// (in the style of Watermill's universal Pub/Sub tests): each dialect's test
// calls Run with a store on a real database.
//
//	func TestPostgresInbox(t *testing.T) {
//		store, _ := inbox.NewPostgres(db, "")
//		_ = store.CreateTable(ctx)
//		inboxtest.Run(t, store, inboxtest.Features{BlocksConcurrentDuplicates: true, RejectsInvalidKeys: true})
//	}
//
// Every test uses fresh random ids, so the suite can run repeatedly against
// one table.
package inboxtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// Features switches the expectations of the suite.
type Features struct {
	// BlocksConcurrentDuplicates: MarkProcessed of a mark that another
	// open transaction holds blocks until that transaction ends, then
	// reports alreadyProcessed when it committed and false when it rolled
	// back (the SQL stores do, through the primary key lock).
	BlocksConcurrentDuplicates bool
	// RejectsInvalidKeys: empty and over-long (> inbox.MaxKeyLength) keys
	// are errors that unwrap to inbox.ErrInvalidKey.
	RejectsInvalidKeys bool
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, store inbox.Store, f Features) { run(t, sqlStore{store}, f) }

// RunPgx runs the suite on a PgxStore, with pgx.Tx transactions.
func RunPgx(t *testing.T, store *inbox.PgxStore, f Features) { run(t, pgxStore{store}, f) }

// txn is a transaction of either kind; *sql.Tx is one.
type txn interface {
	Commit() error
	Rollback() error
}

// store is what the suite tests: inbox.Store, or PgxStore, behind txn.
type store interface {
	begin(ctx context.Context) (txn, error)
	mark(ctx context.Context, tx txn, group, id string) (bool, error)
}

type sqlStore struct{ s inbox.Store }

func (a sqlStore) begin(ctx context.Context) (txn, error) {
	tx, err := a.s.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx, nil
}

func (a sqlStore) mark(ctx context.Context, tx txn, group, id string) (bool, error) {
	return a.s.MarkProcessed(ctx, tx.(*sql.Tx), group, id)
}

type pgxStore struct{ s *inbox.PgxStore }

type pgxTxn struct{ tx pgx.Tx }

func (t pgxTxn) Commit() error   { return t.tx.Commit(context.Background()) }
func (t pgxTxn) Rollback() error { return t.tx.Rollback(context.Background()) }

func (a pgxStore) begin(ctx context.Context) (txn, error) {
	tx, err := a.s.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return pgxTxn{tx}, nil
}

func (a pgxStore) mark(ctx context.Context, tx txn, group, id string) (bool, error) {
	return a.s.MarkProcessed(ctx, tx.(pgxTxn).tx, group, id)
}

func run(t *testing.T, store store, f Features) {
	t.Run("FirstDeliveryThenDuplicate", func(t *testing.T) { testFirstThenDuplicate(t, store) })
	t.Run("RollbackForgetsMark", func(t *testing.T) { testRollback(t, store) })
	t.Run("ConsumerGroupsAreIndependent", func(t *testing.T) { testGroups(t, store) })
	t.Run("SameTransactionTwice", func(t *testing.T) { testSameTx(t, store) })
	t.Run("KeysAreExact", func(t *testing.T) { testExactKeys(t, store) })
	if f.BlocksConcurrentDuplicates {
		t.Run("ConcurrentDuplicateWaitsForCommit", func(t *testing.T) { testConcurrent(t, store, true) })
		t.Run("ConcurrentDuplicateTakesOverAfterRollback", func(t *testing.T) { testConcurrent(t, store, false) })
	}
	if f.RejectsInvalidKeys {
		t.Run("InvalidKeys", func(t *testing.T) { testInvalidKeys(t, store) })
	}
}

func rnd() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// mark runs MarkProcessed in a new transaction and commits (or rolls back).
func mark(t *testing.T, s store, group, id string, commit bool) bool {
	t.Helper()
	ctx := ctxT(t)
	tx, err := s.begin(ctx)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	dup, err := s.mark(ctx, tx, group, id)
	if err != nil {
		_ = tx.Rollback()
		t.Fatalf("mark %s/%s: %v", group, id, err)
	}
	if commit {
		if err := tx.Commit(); err != nil {
			t.Fatalf("commit: %v", err)
		}
	} else if err := tx.Rollback(); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	return dup
}

func testFirstThenDuplicate(t *testing.T, s store) {
	g, id := "g-"+rnd(), "e-"+rnd()
	if dup := mark(t, s, g, id, true); dup {
		t.Fatal("first delivery reported as already processed")
	}
	for i := 0; i < 2; i++ {
		if dup := mark(t, s, g, id, true); !dup {
			t.Fatalf("redelivery %d not reported as already processed", i+1)
		}
	}
}

func testRollback(t *testing.T, s store) {
	g, id := "g-"+rnd(), "e-"+rnd()
	if dup := mark(t, s, g, id, false); dup {
		t.Fatal("first delivery reported as already processed")
	}
	if dup := mark(t, s, g, id, true); dup {
		t.Fatal("after a rollback the event is reported as already processed: the mark must roll back with the handler")
	}
	if dup := mark(t, s, g, id, true); !dup {
		t.Fatal("committed mark not seen")
	}
}

func testGroups(t *testing.T, s store) {
	id := "e-" + rnd()
	g1, g2 := "g1-"+rnd(), "g2-"+rnd()
	if mark(t, s, g1, id, true) {
		t.Fatal("g1: first delivery reported as already processed")
	}
	if mark(t, s, g2, id, true) {
		t.Fatal("g2: an event processed by another consumer group is reported as already processed")
	}
	if !mark(t, s, g2, id, true) {
		t.Fatal("g2: redelivery not reported as already processed")
	}
}

func testSameTx(t *testing.T, s store) {
	ctx := ctxT(t)
	g, id := "g-"+rnd(), "e-"+rnd()
	tx, err := s.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if dup, err := s.mark(ctx, tx, g, id); err != nil || dup {
		t.Fatalf("first mark: dup=%v err=%v", dup, err)
	}
	if dup, err := s.mark(ctx, tx, g, id); err != nil || !dup {
		t.Fatalf("second mark in the same transaction: dup=%v err=%v, want true, nil", dup, err)
	}
}

func testExactKeys(t *testing.T, s store) {
	g := "g-" + rnd()
	base := rnd()
	// Ids that differ only in case, trailing space, or a non-ASCII
	// character must not collide (a case-insensitive collation or a
	// PAD SPACE comparison would make them).
	ids := []string{"evt-" + base + "-a", "evt-" + base + "-A", "evt-" + base + "-ä", "evt-" + base + "-a "}
	for _, id := range ids {
		if mark(t, s, g, id, true) {
			t.Errorf("id %q collides with an earlier id of %q", id, ids)
		}
	}
	long := "e" + strings.Repeat("x", inbox.MaxKeyLength-len(base)-1) + base
	if len(long) != inbox.MaxKeyLength {
		t.Fatalf("test bug: len %d", len(long))
	}
	if mark(t, s, g, long, true) || !mark(t, s, g, long, true) {
		t.Error("an id of exactly MaxKeyLength characters is not stored exactly")
	}
}

func testConcurrent(t *testing.T, s store, commitFirst bool) {
	ctx := ctxT(t)
	g, id := "g-"+rnd(), "e-"+rnd()
	tx1, err := s.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dup, err := s.mark(ctx, tx1, g, id); err != nil || dup {
		_ = tx1.Rollback()
		t.Fatalf("first mark: dup=%v err=%v", dup, err)
	}
	type result struct {
		dup bool
		err error
		tx  txn
	}
	done := make(chan result, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tx2, err := s.begin(ctx)
		if err != nil {
			done <- result{err: err}
			return
		}
		dup, err := s.mark(ctx, tx2, g, id)
		done <- result{dup, err, tx2}
	}()
	select {
	case r := <-done:
		_ = tx1.Rollback()
		if r.tx != nil {
			_ = r.tx.Rollback()
		}
		t.Fatalf("a concurrent duplicate did not wait for the first transaction: dup=%v err=%v", r.dup, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	if commitFirst {
		err = tx1.Commit()
	} else {
		err = tx1.Rollback()
	}
	if err != nil {
		t.Fatalf("end first transaction: %v", err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the concurrent duplicate is still blocked after the first transaction ended")
	}
	wg.Wait()
	if r.tx != nil {
		defer r.tx.Rollback()
	}
	if r.err != nil {
		t.Fatalf("concurrent duplicate: %v", r.err)
	}
	if r.dup != commitFirst {
		t.Fatalf("concurrent duplicate: alreadyProcessed = %v, want %v (first transaction committed: %v)", r.dup, commitFirst, commitFirst)
	}
}

func testInvalidKeys(t *testing.T, s store) {
	ctx := ctxT(t)
	tx, err := s.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	cases := []struct{ name, group, id string }{
		{"empty id", "g", ""},
		{"empty group", "", "e-" + rnd()},
		{"long id", "g", strings.Repeat("x", inbox.MaxKeyLength+1)},
		{"long group", strings.Repeat("g", inbox.MaxKeyLength+1), "e-" + rnd()},
	}
	for _, c := range cases {
		if _, err := s.mark(ctx, tx, c.group, c.id); !errors.Is(err, inbox.ErrInvalidKey) {
			t.Errorf("%s: err = %v, want inbox.ErrInvalidKey", c.name, err)
		}
	}
}
