package inbox

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// BatchStore is a Store that marks the events of a batch with one
// statement. The consumer Router uses it, when the Store has it, for
// batches (Router.ProcessBatch): one round trip for every mark of the
// batch instead of one per event.
type BatchStore interface {
	Store
	// MarkProcessedBatch records (consumerGroup, id) in tx for each of
	// eventIDs and reports, per position, whether it was already there; an
	// id that occurs twice is new at its first position only.
	MarkProcessedBatch(ctx context.Context, tx *sql.Tx, consumerGroup string, eventIDs []string) (alreadyProcessed []bool, err error)
}

var _ BatchStore = (*SQLStore)(nil)

// MarkProcessedBatch is MarkProcessed for many events: on PostgreSQL one
// INSERT … ON CONFLICT DO NOTHING RETURNING; on MySQL and MariaDB (whose
// INSERT IGNORE does not say which rows it skipped) one MarkProcessed per
// event. Errors as MarkProcessed.
func (s *SQLStore) MarkProcessedBatch(ctx context.Context, tx *sql.Tx, consumerGroup string, eventIDs []string) ([]bool, error) {
	if err := checkKey("consumer group", consumerGroup); err != nil {
		return nil, err
	}
	out := make([]bool, len(eventIDs))
	if s.dialect != Postgres {
		for i, id := range eventIDs {
			dup, err := s.MarkProcessed(ctx, tx, consumerGroup, id)
			if err != nil {
				return nil, err
			}
			out[i] = dup
		}
		return out, nil
	}
	q, args, first, err := markBatchSQL(s.table, consumerGroup, eventIDs)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("inbox: mark %d events of %s: %w", len(first), consumerGroup, err)
	}
	defer rows.Close()
	inserted := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("inbox: mark %d events of %s: %w", len(first), consumerGroup, err)
		}
		inserted[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("inbox: mark %d events of %s: %w", len(first), consumerGroup, err)
	}
	return batchResult(eventIDs, first, inserted), nil
}

// markBatchSQL is PostgreSQL's one-statement mark of a batch: the query,
// its arguments and the first position of each distinct id.
func markBatchSQL(table, consumerGroup string, eventIDs []string) (string, []any, map[string]int, error) {
	var q strings.Builder
	q.WriteString(`INSERT INTO ` + table + ` (consumer_group, event_id) VALUES `)
	args := []any{consumerGroup}
	first := map[string]int{} // id -> first position
	for i, id := range eventIDs {
		if err := checkKey("event id", id); err != nil {
			return "", nil, nil, err
		}
		if _, seen := first[id]; seen {
			continue
		}
		first[id] = i
		if len(args) > 1 {
			q.WriteString(", ")
		}
		args = append(args, id)
		q.WriteString("($1, $" + strconv.Itoa(len(args)) + ")")
	}
	q.WriteString(` ON CONFLICT DO NOTHING RETURNING event_id`)
	return q.String(), args, first, nil
}

// batchResult is, per position, whether the id was already processed: not
// inserted, or inserted at an earlier position of the batch.
func batchResult(eventIDs []string, first map[string]int, inserted map[string]bool) []bool {
	out := make([]bool, len(eventIDs))
	for i, id := range eventIDs {
		out[i] = !inserted[id] || first[id] != i
	}
	return out
}
