package provisioning_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/outboxctl/outboxctl/internal/golden"

	"github.com/outboxctl/outboxctl/provisioning"
)

// fakeRemovers are in-memory Connect, Kafka and registry sides of
// deprovision; fail names an object whose removal fails.
type fakeRemovers struct {
	connectors, topics, subjects map[string]bool
	fail                         string
	calls                        []string
}

func (f *fakeRemovers) ConnectorExists(_ context.Context, n string) (bool, error) {
	return f.connectors[n], nil
}

func (f *fakeRemovers) RemoveConnector(_ context.Context, n string) error {
	return f.remove(f.connectors, "connector "+n, n)
}

func (f *fakeRemovers) ExistingTopics(_ context.Context, names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = f.topics[n]
	}
	return out, nil
}

func (f *fakeRemovers) DeleteTopic(_ context.Context, n string) error {
	return f.remove(f.topics, "topic "+n, n)
}

func (f *fakeRemovers) Subjects(context.Context) ([]string, error) {
	var out []string
	for s := range f.subjects {
		out = append(out, s)
	}
	return out, nil
}

func (f *fakeRemovers) DeleteSubject(_ context.Context, n string) error {
	return f.remove(f.subjects, "subject "+n, n)
}

func (f *fakeRemovers) remove(m map[string]bool, call, n string) error {
	f.calls = append(f.calls, call)
	if n == f.fail {
		return errors.New("boom")
	}
	delete(m, n)
	return nil
}

func TestDeprovision(t *testing.T) {
	tg := target(t, "postgres", `    events:
      - {name: Created, aggregate: Order, versions: [{major: 1, schema: o.avsc}]}
      - {name: Billed, aggregate: Invoice, versions: [{major: 1, schema: o.avsc}]}
`)
	conn := tg.Connector.Name
	fresh := func(fail string) *fakeRemovers {
		return &fakeRemovers{
			connectors: map[string]bool{conn: true},
			// outbox.event.Invoice is absent: reported, not an error.
			topics:   map[string]bool{"outbox.event.Order": true},
			subjects: map[string]bool{"outbox.event.Order-value": true, "outbox.event.Orderly-value": true, "other-value": true},
			fail:     fail,
		}
	}
	req := func(f *fakeRemovers, dry bool) provisioning.DeprovisionRequest {
		return provisioning.DeprovisionRequest{Targets: []provisioning.Target{tg}, Connect: f, Topics: f, Subjects: f, DryRun: dry}
	}
	status := func(rem provisioning.Removal) map[string]string {
		m := map[string]string{}
		for _, it := range rem.Items {
			m[it.Kind+" "+it.Name] = it.Status
		}
		return m
	}

	t.Run("dry run lists and removes nothing", func(t *testing.T) {
		f := fresh("")
		rem, err := provisioning.Deprovision(context.Background(), req(f, true))
		if err != nil {
			t.Fatal(err)
		}
		got := status(rem)
		want := map[string]string{
			"connector " + conn:                provisioning.StatusPresent,
			"topic outbox.event.Order":         provisioning.StatusPresent,
			"topic outbox.event.Invoice":       provisioning.StatusAbsent,
			"subject outbox.event.Order-value": provisioning.StatusPresent,
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
			}
		}
		if _, ok := got["subject outbox.event.Orderly-value"]; ok {
			t.Errorf("subject of another topic listed: %v", got)
		}
		if len(f.calls) != 0 || !rem.DryRun || rem.Present() != 3 {
			t.Errorf("calls %v, dryRun %v, present %d", f.calls, rem.DryRun, rem.Present())
		}
		// The JSON of outboxctl deprovision is a contract.
		data, err := json.MarshalIndent(rem, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, filepath.Join("testdata", "TestDeprovision", "dry_run.json.golden"), append(data, '\n'))
	})
	t.Run("removes in order", func(t *testing.T) {
		f := fresh("")
		rem, err := provisioning.Deprovision(context.Background(), req(f, false))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"connector " + conn, "topic outbox.event.Order", "subject outbox.event.Order-value"}
		if !slices.Equal(f.calls, want) {
			t.Errorf("calls = %v, want %v", f.calls, want)
		}
		if s := status(rem)["topic outbox.event.Order"]; s != provisioning.StatusRemoved {
			t.Errorf("topic status %q", s)
		}
		again, err := provisioning.Deprovision(context.Background(), req(f, false))
		if err != nil || again.Present() != 0 {
			t.Errorf("second run: %v, %d present", err, again.Present())
		}
	})
	t.Run("a topic another outbox uses is kept", func(t *testing.T) {
		f := fresh("")
		r := req(f, false)
		r.Others = []provisioning.Target{target(t, "postgres", `    events:
      - {name: Created, aggregate: Order, versions: [{major: 1, schema: o.avsc}]}
`)}
		rem, err := provisioning.Deprovision(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		got := status(rem)
		if got["topic outbox.event.Order"] != provisioning.StatusKept || got["subject outbox.event.Order-value"] != "" || !f.topics["outbox.event.Order"] {
			t.Errorf("statuses = %v, topics left %v", got, f.topics)
		}
		if got["connector "+conn] != provisioning.StatusRemoved {
			t.Errorf("connector %s", got["connector "+conn])
		}
	})
	t.Run("a failing step stops the run", func(t *testing.T) {
		f := fresh("outbox.event.Order")
		rem, err := provisioning.Deprovision(context.Background(), req(f, false))
		if !errors.Is(err, provisioning.ErrDeprovision) {
			t.Fatalf("err = %v, want ErrDeprovision", err)
		}
		got := status(rem)
		if got["connector "+conn] != provisioning.StatusRemoved || got["topic outbox.event.Order"] != provisioning.StatusFailed ||
			got["subject outbox.event.Order-value"] != provisioning.StatusNotDone || got["topic outbox.event.Invoice"] != provisioning.StatusAbsent {
			t.Errorf("statuses = %v", got)
		}
		if !f.subjects["outbox.event.Order-value"] {
			t.Error("the subject was removed after the failure")
		}
	})
}
