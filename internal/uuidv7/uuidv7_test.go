package uuidv7

import (
	"testing"
	"time"
)

func TestTime(t *testing.T) {
	got, ok := Time("018f3c2a-1b2c-7d3e-8f40-0123456789ab")
	if want := time.UnixMilli(0x018f3c2a1b2c).UTC(); !ok || !got.Equal(want) {
		t.Errorf("Time = %v, %v; want %v", got, ok, want)
	}
	for _, s := range []string{"", "018f3c2a-1b2c-4d3e-8f40-0123456789ab", "018f3c2a1b2c7d3e8f400123456789ab0000", "zz8f3c2a-1b2c-7d3e-8f40-0123456789ab"} {
		if _, ok := Time(s); ok {
			t.Errorf("Time(%q) ok, want false", s)
		}
	}
}
