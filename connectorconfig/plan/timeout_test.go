package plan

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

// The deploy timeout bounds the status requests of the wait even when the
// request timeout is longer: a worker that stops answering after the write
// ends the deploy at --timeout, reported as a timed-out wait.
func TestApplyTimeoutBoundsHangingStatusRequests(t *testing.T) {
	f := connectfake.New(connectfake.Options{})
	t.Cleanup(f.Close)
	c, err := connect.NewClient(f.URL, connect.WithRequestTimeout(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	f.Hang("GET /connectors", true) // the wait's expanded listing
	var progress bytes.Buffer
	p := Diff([]connectorconfig.Connector{{Name: "orders", Config: pgConfig()}}, nil)
	o := fastOpts(&progress)
	o.Timeout = 200 * time.Millisecond
	rep, err := Apply(context.Background(), c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Converged || !strings.Contains(rep.Results[0].Reason, "timed out after 200ms") {
		t.Fatalf("results = %+v", rep.Results)
	}
}

// Status requests that time out inside the wait are retried until the
// deploy timeout, which then names them.
func TestApplyWaitRetriesTimedOutStatusRequests(t *testing.T) {
	f := connectfake.New(connectfake.Options{})
	t.Cleanup(f.Close)
	c, err := connect.NewClient(f.URL, connect.WithRequestTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	f.Hang("GET /connectors", true)
	var progress bytes.Buffer
	p := Diff([]connectorconfig.Connector{{Name: "orders", Config: pgConfig()}}, nil)
	o := fastOpts(&progress)
	o.Timeout = 400 * time.Millisecond
	rep, err := Apply(context.Background(), c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	for _, r := range f.Requests() {
		if r == "GET /connectors" {
			polls++
		}
	}
	r := rep.Results[0]
	if r.Converged || !strings.Contains(r.Reason, "timed out after 400ms") || !strings.Contains(r.Reason, "status request: kafka connect request GET") || polls < 2 {
		t.Fatalf("polls %d, result %+v", polls, r)
	}
}

// A hanging write fails with the request timeout, not "unreachable", and
// stops the deploy: the next connectors are not tried.
func TestApplyHangingWriteIsTimeout(t *testing.T) {
	f := connectfake.New(connectfake.Options{Version: "3.6.0"}) // no initial_state: create is PUT …/config
	t.Cleanup(f.Close)
	c, err := connect.NewClient(f.URL, connect.WithRequestTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	f.Hang("PUT /connectors/a/config", true)
	var progress bytes.Buffer
	p := Diff([]connectorconfig.Connector{{Name: "a", Config: pgConfig()}, {Name: "b", Config: pgConfig()}}, nil)
	rep, err := Apply(context.Background(), c, p, fastOpts(&progress))
	if !errors.Is(err, connect.ErrTimeout) || !strings.Contains(err.Error(), "timed out after 100ms") || strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if len(rep.Results) != 1 || !rep.Results[0].WriteFailed {
		t.Fatalf("results = %+v, want only the hanging write", rep.Results)
	}
	for _, r := range f.Requests() {
		if strings.Contains(r, "/connectors/b") {
			t.Errorf("connector b was tried after Connect hung: %s", r)
		}
	}
}
