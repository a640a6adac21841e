package itest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
)

// Suffix returns a short random lowercase hex string for unique resource
// names (connectors, databases, slots, topics, subjects).
func Suffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ConnectorStatus is GET /connectors/{name}/status.
type ConnectorStatus = connect.Status

// connectClient is the project's Connect client for the tests: rebalance
// answers (409, and 500 "rebalance is expected") are retried every 500 ms
// for up to a minute.
func connectClient(t testing.TB, connectURL string) *connect.Client {
	t.Helper()
	c, err := connect.NewClient(connectURL, connect.WithRetry(connect.Retry{MaxAttempts: 120, Initial: 500 * time.Millisecond, Max: 500 * time.Millisecond}))
	if err != nil {
		t.Fatalf("connect client: %v", err)
	}
	return c
}

// MergeConfigs merges connector configs into a new map; a later map's
// value wins.
func MergeConfigs(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// PutConnector creates or updates a connector through the Connect REST API
// (PUT /connectors/{name}/config), retrying during a rebalance, and
// registers its deletion with t.Cleanup.
func PutConnector(t testing.TB, connectURL, name string, config map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, _, err := connectClient(t, connectURL).PutConfig(ctx, name, config); err != nil {
		t.Fatalf("put connector %s: %v", name, err)
	}
	t.Cleanup(func() { DeleteConnector(t, connectURL, name) })
}

// DeleteConnector deletes a connector; a missing connector is not an error.
func DeleteConnector(t testing.TB, connectURL, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := connectClient(t, connectURL).Delete(ctx, name); err != nil && !errors.Is(err, connect.ErrNotFound) {
		t.Errorf("delete connector %s: %v", name, err)
	}
}

// Status returns the connector's status, or ok=false when it has none yet.
func Status(ctx context.Context, connectURL, name string) (st ConnectorStatus, ok bool, err error) {
	c, err := connect.NewClient(connectURL, connect.WithRetry(connect.Retry{MaxAttempts: 1}))
	if err != nil {
		return st, false, err
	}
	st, err = c.Status(ctx, name)
	if errors.Is(err, connect.ErrNotFound) {
		return st, false, nil
	}
	return st, err == nil, err
}

// WaitRunning waits until the connector and all its tasks (at least one) are
// RUNNING, failing the test on FAILED (with the trace) or after timeout.
func WaitRunning(t testing.TB, connectURL, name string, timeout time.Duration) {
	t.Helper()
	waitRunning(t, connectURL, name, timeout, false)
}

// WaitRunningOrTaskFailed is WaitRunning for a test that expects a task may
// fail at start: it returns "" once everything is RUNNING, or the trace of
// the first task seen FAILED. A FAILED connector still fails the test.
func WaitRunningOrTaskFailed(t testing.TB, connectURL, name string, timeout time.Duration) (trace string) {
	t.Helper()
	return waitRunning(t, connectURL, name, timeout, true)
}

func waitRunning(t testing.TB, connectURL, name string, timeout time.Duration, taskMayFail bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last ConnectorStatus
	for {
		st, ok, err := Status(ctx, connectURL, name)
		if err == nil && ok {
			last = st
			if st.Connector.State == "FAILED" {
				t.Fatalf("connector %s FAILED: %s", name, firstLines(st.Connector.Trace, 15))
			}
			running := st.Connector.State == "RUNNING" && len(st.Tasks) > 0
			for _, tk := range st.Tasks {
				if tk.State == "FAILED" {
					if taskMayFail {
						return tk.Trace
					}
					t.Fatalf("connector %s task %d FAILED: %s", name, tk.ID, firstLines(tk.Trace, 15))
				}
				running = running && tk.State == "RUNNING"
			}
			if running {
				return ""
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("connector %s not RUNNING after %s: last status %+v", name, timeout, last)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// CleanupRun registers a cleanup that removes what a test run left on the
// stack under its suffix: every connector whose name contains sfx (tasks
// then get a few seconds to release their replication slots and binlog
// clients), then every topic whose name contains sfx. Use it when the code
// under test creates connectors and topics whose names the test does not
// track one by one.
func CleanupRun(t testing.TB, connectURL, bootstrap, sfx string) {
	t.Helper()
	if sfx == "" {
		t.Fatal("itest.CleanupRun: empty suffix would match everything")
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		names, err := connectClient(t, connectURL).ListConnectors(ctx)
		if err != nil {
			t.Errorf("cleanup: list connectors: %v", err)
		}
		deleted := 0
		for _, n := range names {
			if strings.Contains(n, sfx) {
				DeleteConnector(t, connectURL, n)
				deleted++
			}
		}
		if deleted > 0 {
			time.Sleep(3 * time.Second)
		}
		DeleteTopicsContaining(t, bootstrap, sfx)
	})
}

// StopConnector stops a connector (PUT …/stop: tasks shut down, the
// connector stays deployed as STOPPED) and waits until Connect reports it
// STOPPED, failing the test otherwise.
func StopConnector(t testing.TB, connectURL, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connectClient(t, connectURL)
	if err := c.Stop(ctx, name); err != nil {
		t.Fatalf("stop connector %s: %v", name, err)
	}
	for {
		st, err := c.Status(ctx, name)
		if err == nil && st.Connector.State == connect.StateStopped {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("connector %s not STOPPED: %v %v", name, st.Connector.State, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// ResumeConnector resumes a stopped or paused connector and waits until it
// and its tasks are RUNNING.
func ResumeConnector(t testing.TB, connectURL, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := connectClient(t, connectURL).Resume(ctx, name); err != nil {
		t.Fatalf("resume connector %s: %v", name, err)
	}
	WaitRunning(t, connectURL, name, time.Minute)
}
