package eventrouter_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/eventrouter"
)

func TestCheckTimestamp(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	ts := func(d time.Duration) *int64 { v := now.Add(d).UnixMilli(); return &v }
	for _, tc := range []struct {
		name      string
		tolerance string
		ts        *int64
		failed    bool
		dropped   bool
	}{
		{name: "now", tolerance: "none", ts: ts(0)},
		{name: "an hour ahead", tolerance: "none", ts: ts(time.Hour)},
		{name: "in the past", tolerance: "none", ts: ts(-48 * time.Hour)},
		{name: "no timestamp", tolerance: "none"},
		{name: "2h ahead fails the task", tolerance: "none", ts: ts(2 * time.Hour), failed: true},
		{name: "2h ahead, tolerance all: skipped", tolerance: "all", ts: ts(2 * time.Hour), dropped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := eventrouter.Result{Record: &eventrouter.Record{Topic: "t", Timestamp: tc.ts}, Logs: []string{"WARN x"}}
			res, err := eventrouter.CheckTimestamp(eventrouter.Config{ErrorsTolerance: tc.tolerance}, in, now, eventrouter.DefaultTimestampAfterMax)
			var te *eventrouter.TaskError
			switch {
			case tc.failed:
				if !errors.Is(err, eventrouter.ErrTaskFailed) || !errors.As(err, &te) || te.Stage != eventrouter.StageProducer ||
					!strings.Contains(te.Message, "InvalidTimestampException") || !strings.Contains(te.Message, "2h0m0s ahead") {
					t.Errorf("err %v, want the producer-stage task failure", err)
				}
			case tc.dropped:
				if err != nil || !res.Dropped || res.Record != nil || !strings.Contains(res.Reason, "errors.tolerance=all") || len(res.Logs) != 1 {
					t.Errorf("%+v, %v: want dropped, logs kept", res, err)
				}
			default:
				if err != nil || res.Record != in.Record || res.Dropped {
					t.Errorf("%+v, %v: want the record unchanged", res, err)
				}
			}
		})
	}
}
