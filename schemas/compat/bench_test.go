package compat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// pairSources builds n (reader, writer) schema texts: records of 8 to 23
// fields with a nested record, an enum, a union, an array and a map, where
// the reader evolves the writer (added defaulted fields, promotions, new
// enum symbols, new union branches), and every tenth pair is incompatible.
func pairSources(n int) [][2]string {
	out := make([][2]string, n)
	for i := range out {
		nf := 8 + i%16
		var w, r []string
		for f := 0; f < nf; f++ {
			switch f % 6 {
			case 0:
				w = append(w, fmt.Sprintf(`{"name":"f%d","type":"int"}`, f))
				r = append(r, fmt.Sprintf(`{"name":"f%d","type":"long"}`, f))
			case 1:
				w = append(w, fmt.Sprintf(`{"name":"f%d","type":"string"}`, f))
				r = append(r, fmt.Sprintf(`{"name":"f%d","type":"string","doc":"x"}`, f))
			case 2:
				w = append(w, fmt.Sprintf(`{"name":"f%d","type":["null","string"],"default":null}`, f))
				r = append(r, fmt.Sprintf(`{"name":"f%d","type":["null","string","long"],"default":null}`, f))
			case 3:
				w = append(w, fmt.Sprintf(`{"name":"f%d","type":{"type":"enum","name":"E%d","symbols":["A","B"]}}`, f, f))
				r = append(r, fmt.Sprintf(`{"name":"f%d","type":{"type":"enum","name":"E%d","symbols":["A","B","C"]}}`, f, f))
			case 4:
				w = append(w, fmt.Sprintf(`{"name":"f%d","type":{"type":"array","items":{"type":"record","name":"N%d","fields":[{"name":"x","type":"float"}]}}}`, f, f))
				r = append(r, fmt.Sprintf(`{"name":"f%d","type":{"type":"array","items":{"type":"record","name":"N%d","fields":[{"name":"x","type":"double"},{"name":"y","type":"int","default":0}]}}}`, f, f))
			case 5:
				w = append(w, fmt.Sprintf(`{"name":"f%d","type":{"type":"map","values":"bytes"}}`, f))
				r = append(r, fmt.Sprintf(`{"name":"f%d","type":{"type":"map","values":"string"}}`, f))
			}
		}
		if i%10 == 9 {
			r = append(r, `{"name":"required","type":"string"}`)
		}
		rec := func(fields []string) string {
			return fmt.Sprintf(`{"type":"record","name":"Event%d","namespace":"com.acme","fields":[%s]}`, i, strings.Join(fields, ","))
		}
		out[i] = [2]string{rec(r), rec(w)}
	}
	return out
}

// BenchmarkCheck1000Pairs checks 1,000 parsed (reader, writer) pairs per op.
func BenchmarkCheck1000Pairs(b *testing.B) {
	srcs := pairSources(1000)
	pairs := make([][2]avro.Schema, len(srcs))
	for i, s := range srcs {
		pairs[i] = [2]avro.Schema{mustParse(b, s[0]), mustParse(b, s[1])}
	}
	b.ReportAllocs()
	b.ResetTimer()
	incompatible := 0
	for b.Loop() {
		incompatible = 0
		for _, p := range pairs {
			if !Check(p[0], p[1]).Compatible {
				incompatible++
			}
		}
	}
	if incompatible != 100 {
		b.Fatalf("%d incompatible pairs, want 100", incompatible)
	}
}

// BenchmarkParseAndCheck1000Pairs parses both schemas of 1,000 pairs and
// checks them per op, as a CI run over files does.
func BenchmarkParseAndCheck1000Pairs(b *testing.B) {
	srcs := pairSources(1000)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range srcs {
			r, err := avro.Parse([]byte(s[0]))
			if err != nil {
				b.Fatal(err)
			}
			w, err := avro.Parse([]byte(s[1]))
			if err != nil {
				b.Fatal(err)
			}
			Check(r, w)
		}
	}
}
