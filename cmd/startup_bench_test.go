package cmd_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkCLIStartup execs the built binary's `version` command: process
// start, Go runtime and cgo (librdkafka) initialisation, cobra tree.
func BenchmarkCLIStartup(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "outboxctl")
	if out, err := exec.Command("go", "build", "-o", bin, "./outboxctl").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	for b.Loop() {
		if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkCLIHelpDeploy execs `deploy --help` (no network).
func BenchmarkCLIHelpDeploy(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "outboxctl")
	if out, err := exec.Command("go", "build", "-o", bin, "./outboxctl").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	for b.Loop() {
		if out, err := exec.Command(bin, "deploy", "--help").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
