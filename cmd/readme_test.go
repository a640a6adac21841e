package cmd_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/cmd"
	"github.com/outboxctl/outboxctl/internal/settings"
)

// TestReadmeSpecCommands runs the README's first outboxctl commands (the
// block after the spec example) in a bare environment, as a new user would:
// without ORDERS_DB_PASSWORD or any OUTBOX_* variable, each must exit 0.
// Commands that need a server (--server) are left out.
func TestReadmeSpecCommands(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "```sh\noutboxctl generate")
	if start < 0 {
		t.Fatal("README: no ```sh block starting with outboxctl generate")
	}
	block := readme[start+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	t.Chdir("..")
	n := 0
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "outboxctl ") || strings.Contains(line, "--server") {
			continue
		}
		if i := strings.Index(line, "  #"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, " > "); i >= 0 {
			line = line[:i] // the redirect: stdout is captured below
		}
		args := strings.Fields(line)[1:]
		var out, errOut bytes.Buffer
		env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Settings: settings.Defaults(), Getenv: func(string) string { return "" }}
		if code := cmd.Run(context.Background(), env, args); code != 0 {
			t.Errorf("README: `%s` exits %d in a bare environment:\n%s", line, code, errOut.String())
		}
		n++
	}
	if n < 3 {
		t.Fatalf("ran %d README commands, want at least 3", n)
	}
}
