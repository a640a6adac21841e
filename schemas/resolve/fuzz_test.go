package resolve_test

import (
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// fuzzPairs are (writer, reader) pairs covering every plan node kind.
var fuzzPairs = [][2]string{
	{
		rec(`{"name":"a","type":"int"},{"name":"s","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},{"name":"u","type":["null","string","long"]},{"name":"m","type":{"type":"map","values":"float"}},{"name":"gone","type":{"type":"array","items":"bytes"}}`),
		rec(`{"name":"b","aliases":["a"],"type":"double"},{"name":"s","type":{"type":"enum","name":"E","symbols":["A","B"]}},{"name":"u","type":["double","null","bytes"]},{"name":"m","type":{"type":"map","values":"double"}},{"name":"d","type":["null","int"],"default":null}`),
	},
	{
		`{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]},{"name":"kids","type":{"type":"array","items":"Node"}}]}`,
		`{"type":"record","name":"Node","fields":[{"name":"v","type":"long"},{"name":"next","type":["null","Node"]},{"name":"kids","type":{"type":"array","items":"Node"}},{"name":"t","type":"string","default":"x"}]}`,
	},
	{
		rec(`{"name":"ts","type":"long"},{"name":"f","type":{"type":"fixed","name":"F","size":3}},{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}},{"name":"d","type":"int"}`),
		rec(`{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"f","type":{"type":"fixed","name":"F","size":3}},{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":4}},{"name":"d","type":["null",{"type":"int","logicalType":"date"}]}`),
	},
	{`["null","string",{"type":"array","items":"int"}]`, `"string"`},
}

// FuzzResolve decodes random bytes through a few compiled resolvers: no
// input may panic, and whatever Decode accepts DecodeJSON accepts too.
func FuzzResolve(f *testing.F) {
	// Bound goavro's block allocation (it preallocates block counts up to
	// MaxBlockCount items).
	goavro.MaxBlockCount = 1 << 12
	goavro.MaxBlockSize = 1 << 16
	var resolvers []*resolve.Resolver
	for _, p := range fuzzPairs {
		r, err := resolve.Compile(mustParse(f, p[0]), mustParse(f, p[1]))
		if err != nil {
			f.Fatalf("compile %s: %v", p[1], err)
		}
		resolvers = append(resolvers, r)
	}
	f.Add([]byte{})
	f.Add([]byte{0x02, 0x04, 0x02, 0x06, 'a', 'b', 'c', 0x00, 0x00})
	f.Add([]byte{0x04, 0x02, 0x02, 0x00, 0x00, 0x00})
	f.Add(encode(f, fuzzPairs[0][0], map[string]any{"a": int32(1), "s": "C", "u": goavro.Union("long", int64(5)),
		"m": map[string]any{"k": float32(1)}, "gone": []any{[]byte("x")}}))
	f.Add(encode(f, fuzzPairs[3][0], goavro.Union("array", []any{int32(1)})))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range resolvers {
			_, errNative := r.Decode(b)
			_, errJSON := r.DecodeJSON(b)
			if (errNative == nil) != (errJSON == nil) {
				t.Errorf("Decode error %v but DecodeJSON error %v", errNative, errJSON)
			}
		}
	})
}
