// Package golden is the project's golden-file check for tests: compare the
// output with a file under testdata, or rewrite the file when the test binary
// runs with -update (go test ./pkg -update).
//
// Importing the package registers the -update flag, so a test package must
// not define its own flag of that name.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Assert compares got with the file at path. With -update it writes got to
// path (creating its folder) instead. A missing file or a difference fails
// the test with both contents.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
