package cmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/cmd"
)

// TestInjectedStreams: a schema file named "-" is read from the Env's input
// stream, and a bad command line is exit 2 whatever cobra's message says.
func TestInjectedStreams(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		args     []string
		code     int
		out      string
	}{
		{"valid stdin", `{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]}`, []string{"schema", "validate", "-"}, 0, ""},
		{"invalid stdin", `{"type":"record","name":"A"}`, []string{"schema", "validate", "-"}, 3, "record has no fields"},
		{"unknown command", "", []string{"no-such-command"}, 2, ""},
		{"extra argument", "", []string{"version", "extra"}, 2, ""},
		{"required flag", "", []string{"schema", "decode", "--writer", "w.avsc"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(tc.in), Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
			if code := cmd.Run(context.Background(), env, tc.args); code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q does not contain %q", out.String(), tc.out)
			}
		})
	}
}
