package wire_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/wire"
)

func TestFrameParse(t *testing.T) {
	t.Parallel()
	b := wire.Frame(0x01020304, []byte("datum"))
	if !bytes.Equal(b, []byte{0, 1, 2, 3, 4, 'd', 'a', 't', 'u', 'm'}) {
		t.Fatalf("Frame = %x", b)
	}
	if h := wire.AppendHeader([]byte("x"), 7); !bytes.Equal(h, []byte{'x', 0, 0, 0, 0, 7}) {
		t.Fatalf("AppendHeader = %x", h)
	}
	id, d, err := wire.Parse(b)
	if err != nil || id != 0x01020304 || string(d) != "datum" {
		t.Fatalf("Parse = %d %q %v", id, d, err)
	}
	if id, d, err := wire.Parse([]byte{0, 0, 0, 0, 9}); err != nil || id != 9 || len(d) != 0 {
		t.Fatalf("header only: %d %q %v", id, d, err)
	}
	for in, want := range map[string]string{"\x00\x01": "2 bytes, want at least 5", "\x01\x00\x00\x00\x01": "magic byte is 1", "": "0 bytes"} {
		if _, _, err := wire.Parse([]byte(in)); !errors.Is(err, wire.ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want ErrFormat %q", in, err, want)
		}
	}
}
