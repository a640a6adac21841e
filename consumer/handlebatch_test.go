package consumer_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

type seqPayload struct {
	Seq int `json:"seq"`
}

// brec is a JSON record of type typ, major version v, with event id id.
func brec(typ string, v int, id string, seq int) *consumer.Message {
	return &consumer.Message{Topic: "t", Offset: int64(seq), Key: []byte("agg"), Value: []byte(fmt.Sprintf(`{"seq":%d}`, seq)), Headers: []consumer.Header{
		{Key: "eventType", Value: []byte(typ)}, {Key: "id", Value: []byte(id)}, {Key: "schemaVersion", Value: []byte(fmt.Sprint(v))},
	}}
}

// HandleBatch: in ProcessBatch, each run of consecutive records for the
// batch handler is one call (in the batch's transaction), a record for
// another handler ends the run (so effects keep record order), duplicates
// are left out, and an upcast chain ending in the batch handler joins the
// run; Process calls it with one event.
func TestHandleBatchRuns(t *testing.T) {
	tests := []struct {
		name  string
		batch []*consumer.Message
		want  []string // calls: "A:1,2" a batch call, "B:3" a Handle call
	}{
		{"one run", []*consumer.Message{brec("A", 2, "e1", 1), brec("A", 2, "e2", 2), brec("A", 2, "e3", 3)}, []string{"A:1,2,3"}},
		{"another handler ends the run", []*consumer.Message{brec("A", 2, "e1", 1), brec("A", 2, "e2", 2), brec("B", 1, "e3", 3), brec("A", 2, "e4", 4), brec("A", 2, "e5", 5)},
			[]string{"A:1,2", "B:3", "A:4,5"}},
		{"upcast joins the run", []*consumer.Message{brec("A", 1, "e1", 1), brec("A", 2, "e2", 2), brec("A", 1, "e3", 3)}, []string{"A:101,2,103"}},
		{"duplicates left out", []*consumer.Message{brec("A", 2, "e1", 1), brec("A", 2, "e1", 1), brec("A", 2, "e2", 2)}, []string{"A:1,2"}},
		{"unknown skipped inside a run", []*consumer.Message{brec("A", 2, "e1", 1), brec("C", 1, "e2", 2), brec("A", 2, "e3", 3)}, []string{"A:1,3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumertest.NewInbox()
			defer in.Close()
			r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g", Unknown: consumer.UnknownSkip})
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			must(t, consumer.HandleBatch(r, "A", 2, func(_ context.Context, tx *sql.Tx, evs []consumer.Event[seqPayload]) error {
				if tx == nil {
					t.Error("batch handler without the inbox transaction")
				}
				var seqs []string
				for _, ev := range evs {
					if ev.Tx != tx {
						t.Error("an event's Tx is not the batch's transaction")
					}
					seqs = append(seqs, fmt.Sprint(ev.Payload.Seq))
				}
				calls = append(calls, "A:"+strings.Join(seqs, ","))
				return nil
			}))
			must(t, consumer.Upcast(r, "A", 1, func(_ context.Context, ev consumer.Event[seqPayload]) (seqPayload, error) {
				return seqPayload{Seq: ev.Payload.Seq + 100}, nil
			}))
			must(t, consumer.Handle(r, "B", 1, func(_ context.Context, ev consumer.Event[seqPayload]) error {
				calls = append(calls, fmt.Sprintf("B:%d", ev.Payload.Seq))
				return nil
			}))
			if err := r.ProcessBatch(context.Background(), tt.batch); err != nil {
				t.Fatalf("ProcessBatch: %v", err)
			}
			if !slices.Equal(calls, tt.want) {
				t.Errorf("calls %q, want %q", calls, tt.want)
			}
			for _, m := range tt.batch {
				if typ, _ := m.Header("eventType"); string(typ) == "C" {
					continue // skipped, not marked
				}
				if id, _ := m.Header("id"); !in.Processed("g", string(id)) {
					t.Errorf("%s not marked", id)
				}
			}
			// one record alone: one call with one event
			calls = nil
			if err := r.Process(context.Background(), brec("A", 2, "single", 9)); err != nil {
				t.Fatalf("Process: %v", err)
			}
			if !slices.Equal(calls, []string{"A:9"}) {
				t.Errorf("Process: calls %q, want [A:9]", calls)
			}
		})
	}
}

// An error of the batch function, in the middle or at the end of a batch,
// rolls the whole batch back (ErrBatchFailed, nothing marked, no record
// counted), so that the Consumer replays it one record at a time.
func TestHandleBatchErrorRollsBack(t *testing.T) {
	boom := errors.New("boom")
	for _, batch := range [][]*consumer.Message{
		{brec("A", 2, "e1", 1), brec("A", 2, "e2", 2)},                        // fails at the end
		{brec("A", 2, "e1", 1), brec("B", 1, "e2", 2), brec("A", 2, "e3", 3)}, // fails before B
	} {
		in := consumertest.NewInbox()
		r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g"})
		if err != nil {
			t.Fatal(err)
		}
		bRan := false
		must(t, consumer.HandleBatch(r, "A", 2, func(context.Context, *sql.Tx, []consumer.Event[seqPayload]) error { return boom }))
		must(t, consumer.Handle(r, "B", 1, func(context.Context, consumer.Event[seqPayload]) error { bRan = true; return nil }))
		err = r.ProcessBatch(context.Background(), batch)
		if !errors.Is(err, consumer.ErrBatchFailed) || !errors.Is(err, boom) {
			t.Errorf("ProcessBatch = %v, want ErrBatchFailed wrapping the handler's error", err)
		}
		if bRan {
			t.Error("B ran after the batch function's run before it failed")
		}
		for _, m := range batch {
			if id, _ := m.Header("id"); in.Processed("g", string(id)) {
				t.Errorf("%s marked after a rollback", id)
			}
		}
		if st := r.Stats(); st.Handled != 0 {
			t.Errorf("Stats.Handled = %d after a rollback", st.Handled)
		}
		in.Close()
	}
}

func TestHandleBatchInvalid(t *testing.T) {
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.HandleBatch[seqPayload](r, "A", 1, nil); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("nil function: %v, want ErrInvalidConfig", err)
	}
	fn := func(context.Context, *sql.Tx, []consumer.Event[seqPayload]) error { return nil }
	must(t, consumer.HandleBatch(r, "A", 1, fn))
	if err := consumer.HandleBatch(r, "A", 1, fn); !errors.Is(err, consumer.ErrDuplicateHandler) {
		t.Errorf("second registration: %v, want ErrDuplicateHandler", err)
	}
}

// A panic of the batch function at the end of a batch is the batch's
// error (ErrBatchFailed wrapping ErrPanic), not a crash: the Consumer
// replays the records one at a time, where the chain's Recover applies.
func TestHandleBatchPanicIsError(t *testing.T) {
	in := consumertest.NewInbox()
	defer in.Close()
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, consumer.HandleBatch(r, "A", 2, func(context.Context, *sql.Tx, []consumer.Event[seqPayload]) error { panic("boom") }))
	err = r.ProcessBatch(context.Background(), []*consumer.Message{brec("A", 2, "e1", 1), brec("A", 2, "e2", 2)})
	if !errors.Is(err, consumer.ErrBatchFailed) || !errors.Is(err, consumer.ErrPanic) {
		t.Errorf("ProcessBatch = %v, want ErrBatchFailed wrapping ErrPanic", err)
	}
	if in.Processed("g", "e1") {
		t.Error("e1 marked after a rollback")
	}
}
