package limitio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	big := filepath.Join(dir, "big")
	fifo := filepath.Join(dir, "fifo")
	if err := os.WriteFile(ok, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte("123456"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(ok, 5); err != nil || string(b) != "12345" {
		t.Fatalf("ok: %q %v", b, err)
	}
	for _, tt := range []struct {
		path string
		is   error
		msg  string
	}{
		{big, ErrTooLarge, "more than 5 bytes"},
		{"/dev/zero", ErrNotRegular, "/dev/zero is not a regular file but a device"},
		{dir, ErrNotRegular, "but a directory"},
		{fifo, ErrNotRegular, "but a named pipe"},
		{filepath.Join(dir, "missing"), fs.ErrNotExist, "no such file"},
	} {
		_, err := ReadFile(tt.path, 5)
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v, want %v with %q", tt.path, err, tt.is, tt.msg)
		}
	}
}

func TestReadAll(t *testing.T) {
	t.Parallel()
	if b, err := ReadAll(strings.NewReader("abc"), 3); err != nil || string(b) != "abc" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := ReadAll(strings.NewReader("abcd"), 3); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}
