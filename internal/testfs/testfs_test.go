package testfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/outboxctl/outboxctl/internal/testfs"
)

func TestWrite(t *testing.T) {
	dir := testfs.Write(t, map[string]string{"a.txt": "a", "sub/deeper/b.yaml": "b: 1\n"})
	for name, want := range map[string]string{"a.txt": "a", "sub/deeper/b.yaml": "b: 1\n"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
