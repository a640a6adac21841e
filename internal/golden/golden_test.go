package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestAssert(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.golden")

	r := &recorder{TB: t}
	Assert(r, path, []byte("x"))
	if !r.failed {
		t.Error("a missing golden file must fail")
	}

	*update = true
	r = &recorder{TB: t}
	Assert(r, path, []byte("hello\n"))
	*update = false
	if r.failed {
		t.Fatal("-update must write, not fail")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello\n" {
		t.Fatalf("written %q, %v", b, err)
	}

	r = &recorder{TB: t}
	Assert(r, path, []byte("hello\n"))
	if r.failed {
		t.Error("equal content must pass")
	}
	r = &recorder{TB: t}
	Assert(r, path, []byte("bye\n"))
	if !r.failed {
		t.Error("different content must fail")
	}
}
