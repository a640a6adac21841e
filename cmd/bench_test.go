package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/bench"
	"github.com/outboxctl/outboxctl/bench/benchtest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// TestBenchExitCodes runs `outboxctl bench` against in-memory pipelines: a
// clean run exits 0, a lost or duplicated event exits 3 (a check failed),
// bad flags exit 2, and the JSON report has the contract's counts.
func TestBenchExitCodes(t *testing.T) {
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	if err := os.WriteFile(specFile, []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 15432, user: postgres, dbname: orders}
    payloadFormat: json
`), 0o644); err != nil {
		t.Fatal(err)
	}
	lose := func(_, n int) bool { return n == 4 }
	for _, tc := range []struct {
		name string
		fake *benchtest.Fake
		args []string
		want int
		lost int
		// publisher is the JSON's publisher (default cdc).
		publisher string
		// baseline: the JSON has the baseline consumer's account
		baseline bool
	}{
		{name: "clean", fake: &benchtest.Fake{}, want: ExitOK},
		{name: "loss", fake: &benchtest.Fake{Drop: lose}, want: ExitCheckFailed, lost: 1},
		{name: "duplicate", fake: &benchtest.Fake{Duplicate: lose}, want: ExitCheckFailed},
		{name: "bad rate", fake: &benchtest.Fake{}, args: []string{"--rate", "fast"}, want: ExitUsage},
		{name: "unknown outbox", fake: &benchtest.Fake{}, args: []string{"--outbox", "billing"}, want: ExitUsage},
		{name: "batch without inbox", fake: &benchtest.Fake{}, args: []string{"--batch", "50"}, want: ExitUsage},
		{name: "batch zero", fake: &benchtest.Fake{}, args: []string{"--inbox", "--batch", "0"}, want: ExitUsage},
		{name: "relay", fake: &benchtest.Fake{}, args: []string{"--publisher", "relay", "--relay-poll-interval", "10ms"}, want: ExitOK, publisher: "relay"},
		{name: "relay flag with cdc", fake: &benchtest.Fake{}, args: []string{"--relay-batch", "5"}, want: ExitUsage},
		{name: "baseline", fake: &benchtest.Fake{}, args: []string{"--baseline"}, want: ExitOK, baseline: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := openBenchTarget
			t.Cleanup(func() { openBenchTarget = saved })
			openBenchTarget = func(ctx context.Context, env *Env, _ *spec.Spec, o *spec.Outbox, opts *benchOptions) (*benchTarget, error) {
				return &benchTarget{Pipeline: tc.fake, Setup: bench.Setup{Outbox: o.Name}, Close: func() {}, Drain: 300 * time.Millisecond}, nil
			}
			var out, errOut bytes.Buffer
			env := &Env{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }, Settings: settings.Defaults()}
			args := append([]string{"bench", "-f", specFile, "--rate", "200", "--duration", "100ms", "-o", "json"}, tc.args...)
			code := Run(context.Background(), env, args)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out.String(), errOut.String())
			}
			if tc.want == ExitUsage {
				return
			}
			var r struct {
				Sent, Handled, Lost, Duplicates int
				Publisher                       string
				Baseline                        *struct{ Received int }
				Overhead                        *float64 `json:"sdk_overhead_p50_ms"`
			}
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("json: %v\n%s", err, out.String())
			}
			if r.Sent != 20 || r.Lost != tc.lost || r.Handled != 20-tc.lost {
				t.Errorf("sent %d handled %d lost %d, want 20 sent and %d lost", r.Sent, r.Handled, r.Lost, tc.lost)
			}
			if tc.baseline != (r.Baseline != nil && r.Baseline.Received == 20 && r.Overhead != nil) {
				t.Errorf("baseline %+v, overhead %v; want one: %v", r.Baseline, r.Overhead, tc.baseline)
			}
			if want := cmp.Or(tc.publisher, "cdc"); r.Publisher != want {
				t.Errorf("publisher %q, want %q", r.Publisher, want)
			}
		})
	}
}

// TestBenchCompare: --compare measures both outboxes at each rate of the
// list, in order, and reports them side by side; a duplicate in either run
// exits 3; bad combinations are usage errors.
func TestBenchCompare(t *testing.T) {
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	if err := os.WriteFile(specFile, []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: alo
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 15432, user: postgres, dbname: orders}
    payloadFormat: json
  - name: eos
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 15432, user: postgres, dbname: orders}
    payloadFormat: json
    table: outbox_eos
    delivery: exactly-once
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dupEOS := func(_, n int) bool { return n == 2 }
	for _, tc := range []struct {
		name   string
		args   []string
		dupIn  string
		want   int
		output string
	}{
		{name: "clean", args: []string{"--rate", "100,200"}, want: ExitOK},
		{name: "text", args: []string{"--rate", "100", "-o", "text"}, want: ExitOK, output: "eos     exactly-once"},
		{name: "duplicate", args: []string{"--rate", "100"}, dupIn: "eos", want: ExitCheckFailed},
		{name: "max", args: []string{"--rate", "max"}, want: ExitUsage},
		{name: "same outbox", args: []string{"--rate", "100", "--compare", "alo"}, want: ExitUsage},
		{name: "plot", args: []string{"--rate", "100", "--plot", "x.png"}, want: ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := openBenchTarget
			t.Cleanup(func() { openBenchTarget = saved })
			var order []string
			openBenchTarget = func(ctx context.Context, env *Env, _ *spec.Spec, o *spec.Outbox, opts *benchOptions) (*benchTarget, error) {
				order = append(order, o.Name)
				fake := &benchtest.Fake{}
				if o.Name == tc.dupIn {
					fake.Duplicate = dupEOS
				}
				return &benchTarget{Pipeline: fake, Setup: bench.Setup{Outbox: o.Name}, Close: func() {}, Drain: 300 * time.Millisecond}, nil
			}
			var out, errOut bytes.Buffer
			env := &Env{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }, Settings: settings.Defaults()}
			args := append([]string{"bench", "-f", specFile, "--outbox", "alo", "--compare", "eos", "--duration", "100ms", "-o", "json"}, tc.args...)
			code := Run(context.Background(), env, args)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out.String(), errOut.String())
			}
			if tc.want == ExitUsage {
				return
			}
			if tc.output != "" {
				if !strings.Contains(out.String(), tc.output) {
					t.Errorf("output lacks %q:\n%s", tc.output, out.String())
				}
				return
			}
			var c bench.Comparison
			if err := json.Unmarshal(out.Bytes(), &c); err != nil {
				t.Fatalf("json: %v\n%s", err, out.String())
			}
			var got []string
			for _, r := range c.Runs {
				got = append(got, fmt.Sprintf("%s/%s/%.0f/sent %d", r.Outbox, r.Delivery, r.Rate, r.Report.Sent))
			}
			want := []string{"alo/at-least-once/100/sent 10", "eos/exactly-once/100/sent 10", "alo/at-least-once/200/sent 20", "eos/exactly-once/200/sent 20"}
			if tc.name != "clean" {
				want = want[:2]
			}
			if strings.Join(got, ",") != strings.Join(want, ",") || strings.Join(order, ",") != strings.Join([]string{"alo", "eos", "alo", "eos"}[:len(want)], ",") {
				t.Errorf("runs = %v (opened %v), want %v", got, order, want)
			}
		})
	}
}

// TestStartCPUProfile: --cpuprofile writes a profile until stop; none
// without a path; a path that cannot be created is an error.
func TestStartCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("profile: %v, %v", st, err)
	}
	stop, err = startCPUProfile("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := startCPUProfile(filepath.Join(t.TempDir(), "none", "cpu.pprof")); err == nil {
		t.Error("a profile in a missing folder: no error")
	}
}
