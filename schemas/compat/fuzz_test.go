package compat

import (
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// FuzzCompat parses two inputs leniently and checks them both ways at every
// level: no panics, and the verdict agrees with the findings.
func FuzzCompat(f *testing.F) {
	seeds := []string{
		`"int"`, `"long"`, `["null","string"]`, `[]`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"n","type":["null","R"]}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"long","aliases":["b"]},{"name":"b","type":"int","default":1}]}`,
		`{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}`,
		`{"type":"fixed","name":"F","size":4}`,
		`{"type":"array","items":{"type":"map","values":["int","string"]}}`,
	}
	for _, a := range seeds {
		for _, b := range seeds {
			f.Add(a, b)
		}
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		sa, err := avro.ParseWith([]byte(a), avro.Lenient())
		if err != nil {
			return
		}
		sb, err := avro.ParseWith([]byte(b), avro.Lenient())
		if err != nil {
			return
		}
		for _, pair := range [][2]avro.Schema{{sa, sb}, {sb, sa}, {sa, sa}} {
			res := Check(pair[0], pair[1])
			if res.Compatible != (len(res.Incompatibilities) == 0) {
				t.Fatalf("compatible=%v with %d incompatibilities", res.Compatible, len(res.Incompatibilities))
			}
		}
		for _, l := range Levels {
			rep := CheckLevel(l, sa, []avro.Schema{sb, sa})
			_ = rep.ConfluentMessages([]avro.Schema{sb, sa})
		}
	})
}
