//go:build integration

package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// benchJSON is the contract of `outboxctl bench -o json`.
type benchJSON struct {
	Sent         *int     `json:"sent"`
	Handled      *int     `json:"handled"`
	Lost         *int     `json:"lost"`
	Duplicates   *int     `json:"duplicates"`
	Reordered    *int     `json:"reordered"`
	RateTarget   *float64 `json:"rate_target"`
	RateAchieved *float64 `json:"rate_achieved"`
	Latency      *struct {
		P50, P90, P99, P999, Max *float64
	} `json:"latency_ms"`
	Baseline *struct {
		Received int `json:"received"`
	} `json:"baseline"`
	SDKOverheadP50 *float64 `json:"sdk_overhead_p50_ms"`
	MaxSendDelay   *float64 `json:"max_send_delay_ms"`
	CPUPercent     *float64 `json:"cpu_percent"`
	Load1          *float64 `json:"load1"`
}

// TestCLIBenchRealStack provisions and deploys a JSON and an Avro outbox
// with the CLI, then runs `outboxctl bench` against them at a small rate,
// with and without the inbox: every committed event handled once and in
// order, percentiles ordered, a plot written, exit 0.
func TestCLIBenchRealStack(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka, itest.Registry)
	sfx := itest.Suffix()
	dbName := "outbox_bench_" + sfx
	itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	vars := map[string]string{"IT_PG_PASSWORD": "unused", "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: bench-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, password: "${env:IT_PG_PASSWORD}", dbname: %[5]s}
    payloadFormat: json
    connector:
      profile: latency
  - name: bench-avro-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, password: "${env:IT_PG_PASSWORD}", dbname: %[5]s}
    table: outbox_avro
    payloadFormat: avro
    connector:
      profile: latency
`, s.BootstrapServers, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, want int, args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out
	}
	run(t, 0, "provision", "-f", specFile, "--database")
	run(t, 0, "deploy", "-f", specFile, "--timeout", "2m")
	for _, tc := range []struct {
		name, outbox string
		extra        []string
	}{
		// with the bare confluent-kafka-go consumer next to the SDK's
		{"no-inbox-baseline", "bench-" + sfx, []string{"--baseline"}},
		{"inbox", "bench-" + sfx, []string{"--inbox"}},
		// the batched inbox: a HandleBatch handler, one INSERT per batch
		{"inbox-batch", "bench-" + sfx, []string{"--inbox", "--batch", "20"}},
		// Avro: the bench registers its schema in the stack's registry,
		// the consumer resolves it from there.
		{"avro-inbox", "bench-avro-" + sfx, []string{"--inbox"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plot := filepath.Join(t.TempDir(), "latency.png")
			args := append([]string{"bench", "-f", specFile, "--outbox", tc.outbox, "--rate", "50", "--duration", "3s",
				"--partitions", "2", "-o", "json", "--plot", plot}, tc.extra...)
			out := run(t, 0, args...)
			var r benchJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("bench -o json: %v\n%s", err, out)
			}
			if r.Sent == nil || r.Handled == nil || r.Lost == nil || r.Duplicates == nil || r.Reordered == nil ||
				r.RateTarget == nil || r.RateAchieved == nil || r.Latency == nil || r.Latency.P50 == nil || r.Latency.P90 == nil ||
				r.Latency.P99 == nil || r.Latency.P999 == nil || r.Latency.Max == nil {
				t.Fatalf("bench -o json lacks a field of the contract:\n%s", out)
			}
			if base := slices.Contains(tc.extra, "--baseline"); base != (r.Baseline != nil && r.Baseline.Received == 150 && r.SDKOverheadP50 != nil) {
				t.Errorf("baseline: %s, want the bare consumer's 150 events and the overhead: %v", out, base)
			}
			if r.MaxSendDelay == nil || r.CPUPercent == nil || *r.CPUPercent <= 0 || r.Load1 == nil || *r.Load1 < 0 {
				t.Errorf("bench -o json: max_send_delay_ms, cpu_percent (> 0) and load1 wanted:\n%s", out)
			}
			if *r.Sent != 150 || *r.Handled != *r.Sent || *r.Lost != 0 || *r.Duplicates != 0 || *r.Reordered != 0 {
				t.Errorf("counts: sent %d handled %d lost %d duplicates %d reordered %d, want 150 sent, all handled once in order",
					*r.Sent, *r.Handled, *r.Lost, *r.Duplicates, *r.Reordered)
			}
			if *r.RateTarget != 50 || *r.RateAchieved < 40 || *r.RateAchieved > 60 {
				t.Errorf("rate: target %v, achieved %v", *r.RateTarget, *r.RateAchieved)
			}
			l := r.Latency
			if !(0 < *l.P50 && *l.P50 <= *l.P90 && *l.P90 <= *l.P99 && *l.P99 <= *l.P999 && *l.P999 <= *l.Max) {
				t.Errorf("percentiles not ordered: %+v", out)
			}
			if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
				t.Errorf("plot %s: %v", plot, err)
			}
			t.Logf("bench %s: %s", tc.name, strings.Join(strings.Fields(out), " "))
		})
	}
}

// TestCLIBenchRelay runs `outboxctl bench --publisher relay` against the
// real stack: an outbox published by the in-process relay (no connector),
// polling every 100 ms and woken by LISTEN/NOTIFY, 100 events/s for 5 s
// through the inbox, every event handled once and in order. An outbox whose
// connector runs is refused: both would publish the bench's rows.
func TestCLIBenchRelay(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_benchrelay_" + sfx
	itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	vars := map[string]string{"IT_PG_PASSWORD": "unused", "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: relay-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, password: "${env:IT_PG_PASSWORD}", dbname: %[5]s}
    payloadFormat: json
    relay:
      notify: bench_%[2]s
  - name: cdc-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, password: "${env:IT_PG_PASSWORD}", dbname: %[5]s}
    table: outbox_cdc
    payloadFormat: json
    connector:
      profile: latency
`, s.BootstrapServers, strings.ToLower(sfx), s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, want int, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out, errOut
	}
	run(t, 0, "provision", "-f", specFile, "--database")
	run(t, 0, "deploy", "-f", specFile, "--timeout", "2m") // the cdc outbox only: the relay outbox gets no connector
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"poll-100ms", nil},
		{"listen", []string{"--relay-notify"}},
		// the relay as a separate `outboxctl relay` process (the test
		// binary runs as outboxctl from $PATH, see TestMain)
		{"listen-process", []string{"--relay-notify", "--relay-process", "--relay-command", "outboxctl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"bench", "-f", specFile, "--outbox", "relay-" + strings.ToLower(sfx), "--publisher", "relay",
				"--rate", "100", "--duration", "5s", "--inbox", "-o", "json"}, tc.extra...)
			out, errOut := run(t, 0, args...)
			var r struct {
				benchJSON
				Publisher string `json:"publisher"`
				Setup     *struct {
					Relay string `json:"relay"`
				} `json:"setup"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("bench -o json: %v\n%s", err, out)
			}
			if r.Sent == nil || r.Handled == nil || r.Lost == nil || r.Duplicates == nil || r.Reordered == nil || r.Latency == nil || r.Latency.P99 == nil {
				t.Fatalf("bench -o json lacks a field of the contract:\n%s", out)
			}
			if base := slices.Contains(tc.extra, "--baseline"); base != (r.Baseline != nil && r.Baseline.Received == 150 && r.SDKOverheadP50 != nil) {
				t.Errorf("baseline: %s, want the bare consumer's 150 events and the overhead: %v", out, base)
			}
			if r.MaxSendDelay == nil || r.CPUPercent == nil || *r.CPUPercent <= 0 || r.Load1 == nil || *r.Load1 < 0 {
				t.Errorf("bench -o json: max_send_delay_ms, cpu_percent (> 0) and load1 wanted:\n%s", out)
			}
			if r.Publisher != "relay" {
				t.Errorf("publisher %q, want relay", r.Publisher)
			}
			if slices.Contains(tc.extra, "--relay-process") {
				if r.Setup == nil || !strings.Contains(r.Setup.Relay, "separate process") {
					t.Errorf("setup.relay %+v, want the separate process named", r.Setup)
				}
				if !strings.Contains(errOut, "relay process: relay ") || !strings.Contains(errOut, "published ") {
					t.Errorf("want the relay process's final line (relay TABLE: published N ...) on stderr, got:\n%s", errOut)
				}
			}
			if *r.Sent != 500 || *r.Handled != *r.Sent || *r.Lost != 0 || *r.Duplicates != 0 || *r.Reordered != 0 {
				t.Errorf("counts: sent %d handled %d lost %d duplicates %d reordered %d, want 500 sent, all handled once in order",
					*r.Sent, *r.Handled, *r.Lost, *r.Duplicates, *r.Reordered)
			}
			t.Logf("bench %s: %s", tc.name, strings.Join(strings.Fields(out), " "))
		})
	}
	t.Run("relay-process-fails", func(t *testing.T) {
		// a relay process that exits at once (false(1) as the executable):
		// the bench stops with its exit status instead of waiting.
		_, errOut := run(t, 1, "bench", "-f", specFile, "--outbox", "relay-"+strings.ToLower(sfx), "--publisher", "relay",
			"--relay-process", "--relay-command", "false", "--rate", "10", "--duration", "1s")
		if !strings.Contains(errOut, "relay process") || !strings.Contains(errOut, "exit status 1") {
			t.Errorf("want the relay process's exit status, got:\n%s", errOut)
		}
	})
	t.Run("connector-running", func(t *testing.T) {
		_, errOut := run(t, 1, "bench", "-f", specFile, "--outbox", "cdc-"+strings.ToLower(sfx), "--publisher", "relay", "--rate", "10", "--duration", "1s")
		if !strings.Contains(errOut, "another publisher is active") || !strings.Contains(errOut, "connectors pause") {
			t.Errorf("want the other-publisher error, got:\n%s", errOut)
		}
	})
}
