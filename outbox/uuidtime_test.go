package outbox_test

import (
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/outbox"
)

func TestUUIDv7Time(t *testing.T) {
	t.Parallel()
	got, ok := outbox.UUIDv7Time("018f3c2a-1b2c-7d3e-8f40-0123456789ab")
	if !ok || got.UnixMilli() != 0x018f3c2a1b2c {
		t.Errorf("v7: %v %v", got, ok)
	}
	id, err := outbox.NewUUIDv7()
	if err != nil {
		t.Fatal(err)
	}
	if ts, ok := outbox.UUIDv7Time(id); !ok || time.Since(ts) > time.Minute || time.Since(ts) < -time.Second {
		t.Errorf("NewUUIDv7 %s: time %v %v", id, ts, ok)
	}
	for _, s := range []string{"018f3c2a-1b2c-4d3e-8f40-0123456789ab", "not-a-uuid", "018f3c2g-1b2c-7d3e-8f40-0123456789ab", "+18f3c2a-1b2c-7d3e-8f40-0123456789ab"} {
		if _, ok := outbox.UUIDv7Time(s); ok {
			t.Errorf("%s: read as a UUIDv7", s)
		}
	}
}
