package avrobind_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// FuzzDecode: no input makes a plan panic, every failure unwraps to a
// resolve sentinel, and whatever the plan reads resolve reads too (and the
// other way round), with the same values for a few scalar fields.
func FuzzDecode(f *testing.F) {
	w, r := parse(f, writerV1), parse(f, readerV1)
	p, err := avrobind.Compile(w, r, reflect.TypeFor[order]())
	if err != nil {
		f.Fatal(err)
	}
	res, err := resolve.Compile(w, r)
	if err != nil {
		f.Fatal(err)
	}
	wcodec, err := goavro.NewCodec(writerV1)
	if err != nil {
		f.Fatal(err)
	}
	pa, err := avrobind.Compile(w, r, reflect.TypeFor[any]())
	if err != nil {
		f.Fatal(err)
	}
	// goavro preallocates what a block claims; keep the oracle fast.
	goavro.MaxBlockCount = 1 << 12
	f.Add(encode(f, writerV1, datum("PAID", goavro.Union("string", "x"))))
	f.Add(encode(f, writerV1, datum("LOST", nil)))
	f.Add([]byte{0x02, 'a', 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var o order
		err := p.Decode(data, &o)
		var plain any
		if perr := pa.Decode(data, &plain); (perr == nil) != (err == nil) {
			t.Fatalf("struct target: %v, any target: %v", err, perr)
		}
		v, rerr := res.Decode(data)
		if err != nil {
			if !errors.Is(err, resolve.ErrDecode) && !errors.Is(err, resolve.ErrEnumSymbol) && !errors.Is(err, resolve.ErrUnionBranch) {
				t.Fatalf("error %v unwraps to no resolve sentinel", err)
			}
			return
		}
		if rerr != nil || !canonical(wcodec, data) {
			// goavro differs from Java on non-canonical input
			// (booleans other than 0 and 1, a 5-byte int whose last
			// byte has bits beyond 32, which Java drops); the plan
			// follows Java (TestVarintsLikeJava), so only canonical
			// data is compared.
			return
		}
		m := v.(map[string]any)
		if m["id"] != o.ID || m["amount"] != o.Amount || m["currency"] != o.Currency || m["status"] != o.Status {
			t.Fatalf("resolve %v, avrobind %+v", m, o)
		}
	})
}

// canonical reports whether data is exactly how goavro encodes the datum it
// reads from it.
func canonical(codec *goavro.Codec, data []byte) bool {
	v, rest, err := codec.NativeFromBinary(data)
	if err != nil || len(rest) != 0 {
		return false
	}
	again, err := codec.BinaryFromNative(nil, v)
	return err == nil && bytes.Equal(again, data)
}
