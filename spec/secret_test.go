package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/outboxctl/outboxctl/spec"
)

func TestResolveFileSecretIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := filepath.Join(dir, "pw")
	if err := os.WriteFile(ok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, spec.MaxSecretFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	l := spec.Lookup{ReadFile: spec.ReadSecretFile}
	if v, err := l.Resolve("${file:" + ok + "}"); err != nil || v != "s3cret" {
		t.Fatalf("regular file: %q %v", v, err)
	}
	for _, tt := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file but a device"},
		{dir, "not a regular file but a directory"},
		{fifo, "not a regular file but a named pipe"}, // refused without blocking in open
		{big, "more than 1048576 bytes"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		ref := "${file:" + tt.path + "}"
		_, err := l.Resolve(ref)
		if !errors.Is(err, spec.ErrSecretUnresolved) || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), ref) {
			t.Errorf("%s: err = %v, want ErrSecretUnresolved naming the reference and %q", tt.path, err, tt.want)
		}
	}
	// A ReadFile that ignores the bound is still refused by Resolve.
	huge := spec.Lookup{ReadFile: func(string) ([]byte, error) { return make([]byte, spec.MaxSecretFileSize+1), nil }}
	if _, err := huge.Resolve("${file:/x}"); !errors.Is(err, spec.ErrSecretUnresolved) {
		t.Errorf("oversized ReadFile result: %v", err)
	}
}
