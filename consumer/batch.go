package consumer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// ErrBatchFailed: a record of a batch failed, so the batch was rolled back
// (see Router.ProcessBatch). It wraps the record's error.
var ErrBatchFailed = errors.New("batch rolled back")

// ProcessBatch runs records of one partition, in order, in ONE inbox
// transaction: each record's inbox mark and its handler's writes through
// Event.Tx, then a single commit. nil means every record is done (handled,
// skipped as unknown, or skipped as a duplicate) and committed. An error
// (wrapping ErrBatchFailed and the first record's error) means none is: the
// transaction was rolled back; run the records again one at a time with
// Process, which retries and dead-letters them one by one, so that one
// poison record costs one batch. The Consumer does this with
// ConsumerConfig.Batch.
//
// The middleware chain runs for every record of the batch, but Retry makes
// one attempt and DLQ dead-letters nothing inside a batch: both act in the
// one-at-a-time replay. Counters (Stats) and OnDuplicate/OnUnknown see a
// record once its batch committed.
//
// ProcessBatch needs an Inbox (ErrInvalidConfig otherwise); one record is
// Process.
func (r *Router) ProcessBatch(ctx context.Context, ms []*Message) (err error) {
	if len(ms) == 0 {
		return nil
	}
	if r.cfg.Inbox == nil {
		return fmt.Errorf("%w: router: ProcessBatch needs an Inbox", ErrInvalidConfig)
	}
	if r.cfg.ConsumerGroup == "" {
		return errNoGroup()
	}
	if err := r.Err(); err != nil {
		return err
	}
	w := r.watchInbox(ctx, ms...)
	defer w.end()
	ctx = w.ctx
	defer func() {
		if err != nil {
			err = w.timedOut(err)
		}
	}()
	tx, err := r.cfg.Inbox.Begin(ctx)
	if err != nil {
		return Transient(fmt.Errorf("%w: inbox: begin: %w", ErrBatchFailed, err))
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	w.at(stepMark)
	premarked, err := r.premark(ctx, tx, ms)
	if err != nil {
		return err
	}
	w.at(stepHandler)
	sink := &batchSink{}
	for i, m := range ms {
		m.Attempt = 0
		if err := r.processIn(ctx, m, tx, premarked[i], sink); err != nil {
			return fmt.Errorf("%w at %s/%d@%d: %w", ErrBatchFailed, m.Topic, m.Partition, m.Offset, err)
		}
	}
	if err := sink.flush(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrBatchFailed, handlerTxError(ctx, err))
	}
	committed = true
	w.at(stepCommit)
	if err := tx.Commit(); err != nil {
		return Transient(fmt.Errorf("%w: inbox: commit: %w", ErrBatchFailed, err))
	}
	for _, m := range ms {
		switch m.chain.outcome {
		case outcomeHandled:
			r.handled(ctx, m)
		case outcomeDuplicate:
			r.duplicate(ctx, m)
		case outcomeSkipped:
			r.skipped(ctx, m)
		case outcomeCanary:
			r.stats.canaries.Add(1)
		}
		m.chain = chainInfo{}
	}
	return nil
}

// mark is what premark found for one record of a batch.
type mark uint8

const (
	markNone mark = iota // not marked yet: inBatchTx marks it
	markNew              // marked now
	markDup              // processed before (or earlier in the batch)
)

// premark marks every record of the batch that has an event id with one
// statement when the Store is an inbox.BatchStore (one round trip instead of
// one per record). A record marked here that turns out to have no handler
// and is skipped (UnknownSkip) keeps its mark: it is done for this group.
func (r *Router) premark(ctx context.Context, tx *sql.Tx, ms []*Message) ([]mark, error) {
	marks := make([]mark, len(ms))
	bs, ok := r.cfg.Inbox.(inbox.BatchStore)
	if !ok {
		return marks, nil
	}
	var ids []string
	var at []int
	for i, m := range ms {
		if id, ok := m.Header(r.cfg.IDHeader); ok && len(id) > 0 {
			ids = append(ids, string(id))
			at = append(at, i)
		}
	}
	if len(ids) == 0 {
		return marks, nil
	}
	dups, err := bs.MarkProcessedBatch(ctx, tx, r.cfg.ConsumerGroup, ids)
	if err != nil {
		if errors.Is(err, inbox.ErrInvalidKey) {
			// A bad id: the records run one at a time, where it is
			// dead-lettered alone.
			return nil, fmt.Errorf("%w: inbox: %w", ErrBatchFailed, err)
		}
		return nil, Transient(fmt.Errorf("%w: inbox: mark: %w", ErrBatchFailed, err))
	}
	for j, i := range at {
		marks[i] = markNew
		if dups[j] {
			marks[i] = markDup
		}
	}
	return marks, nil
}

// processIn is Process for a record of a batch running in tx.
func (r *Router) processIn(ctx context.Context, m *Message, tx *sql.Tx, pm mark, sink *batchSink) error {
	if m.Attempt == 0 {
		m.Attempt = 1
	}
	r.mu.RLock()
	mws := r.middleware
	m.metaErr = r.parseMeta(m) // under the same read lock
	r.mu.RUnlock()
	return r.run(ctx, m, mws, chainInfo{router: r, batch: true, tx: tx, mark: pm, sink: sink})
}

// inBatchTx marks m and runs its handler in the batch's transaction.
func (r *Router) inBatchTx(ctx context.Context, m *Message, call boundCall) error {
	tx := m.chain.tx
	dup := m.chain.mark == markDup
	if m.chain.mark == markNone {
		var err error
		dup, err = r.cfg.Inbox.MarkProcessed(ctx, tx, r.cfg.ConsumerGroup, m.Meta.EventID)
		if err != nil {
			return Transient(fmt.Errorf("inbox: mark %s: %w", m.Meta.EventID, err))
		}
	}
	if dup {
		m.chain.outcome = outcomeDuplicate
		return nil
	}
	if !call.isBatched() {
		// the records collected before m write their effects first
		if err := m.chain.sink.flush(ctx); err != nil {
			return handlerTxError(ctx, err)
		}
	}
	if err := r.callHandler(ctx, m, call, tx); err != nil {
		return handlerTxError(ctx, err)
	}
	m.chain.outcome = outcomeHandled
	return nil
}
