package itest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Suffix returns a short random lowercase hex string for unique resource
// names (connectors, databases, slots, topics, subjects).
func Suffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ConnectorStatus is GET /connectors/{name}/status.
type ConnectorStatus struct {
	Name      string `json:"name"`
	Connector struct {
		State string `json:"state"`
		Trace string `json:"trace"`
	} `json:"connector"`
	Tasks []struct {
		ID    int    `json:"id"`
		State string `json:"state"`
		Trace string `json:"trace"`
	} `json:"tasks"`
}

func connectDo(ctx context.Context, method, url string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// PutConnector creates or updates a connector through the Connect REST API
// (PUT /connectors/{name}/config), retrying 409s during a rebalance, and
// registers its deletion with t.Cleanup.
func PutConnector(t testing.TB, connectURL, name string, config map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u := strings.TrimRight(connectURL, "/") + "/connectors/" + name + "/config"
	for {
		code, body, err := connectDo(ctx, http.MethodPut, u, config)
		if err != nil {
			t.Fatalf("PUT %s: %v", u, err)
		}
		if code == http.StatusConflict && ctx.Err() == nil {
			time.Sleep(500 * time.Millisecond)
			continue
		}
		if code >= 300 {
			t.Fatalf("PUT %s: HTTP %d: %s", u, code, body)
		}
		break
	}
	t.Cleanup(func() { DeleteConnector(t, connectURL, name) })
}

// DeleteConnector deletes a connector; a missing connector is not an error.
func DeleteConnector(t testing.TB, connectURL, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u := strings.TrimRight(connectURL, "/") + "/connectors/" + name
	for {
		code, body, err := connectDo(ctx, http.MethodDelete, u, nil)
		if err != nil {
			t.Errorf("DELETE %s: %v", u, err)
			return
		}
		if code == http.StatusConflict && ctx.Err() == nil {
			time.Sleep(500 * time.Millisecond)
			continue
		}
		if code >= 300 && code != http.StatusNotFound {
			t.Errorf("DELETE %s: HTTP %d: %s", u, code, body)
		}
		return
	}
}

// Status returns the connector's status, or ok=false when it has none yet.
func Status(ctx context.Context, connectURL, name string) (st ConnectorStatus, ok bool, err error) {
	u := strings.TrimRight(connectURL, "/") + "/connectors/" + name + "/status"
	code, body, err := connectDo(ctx, http.MethodGet, u, nil)
	if err != nil {
		return st, false, err
	}
	if code == http.StatusNotFound {
		return st, false, nil
	}
	if code >= 300 {
		return st, false, fmt.Errorf("GET %s: HTTP %d: %s", u, code, body)
	}
	return st, true, json.Unmarshal(body, &st)
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
		code, body, err := connectDo(ctx, http.MethodGet, strings.TrimRight(connectURL, "/")+"/connectors", nil)
		var names []string
		if err == nil && code == http.StatusOK {
			err = json.Unmarshal(body, &names)
		}
		if err != nil || code != http.StatusOK {
			t.Errorf("cleanup: list connectors: HTTP %d: %v", code, err)
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
