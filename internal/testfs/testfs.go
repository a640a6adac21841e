// Package testfs writes the file trees of tests: one helper where several
// test packages each wrote their own loop.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (a slash-separated path below the folder: the
// content) into a new temporary folder of t, creating their folders, and
// returns the folder. A write error fails the test.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
