package resolve_test

import (
	"reflect"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// ReaderBranch and UnionBranches are the branch choice the decoder uses
// (and that TestJavaOracle checks through it against Avro Java).
func TestReaderBranch(t *testing.T) {
	rec := func(name, fields string) string {
		return `{"type":"record","name":"` + name + `","fields":[` + fields + `]}`
	}
	for _, tc := range []struct {
		name, writer, reader string
		want                 int
	}{
		{"enum by full name", `{"type":"enum","name":"p.E","symbols":["A"]}`, `["null",{"type":"enum","name":"q.E","symbols":["A"]},{"type":"enum","name":"p.E","symbols":["B"]}]`, 2},
		{"enum other namespace", `{"type":"enum","name":"p.E","symbols":["A"]}`, `["null",{"type":"enum","name":"q.E","symbols":["A"]}]`, -1},
		{"fixed other namespace", `{"type":"fixed","name":"p.F","size":1}`, `["bytes",{"type":"fixed","name":"q.F","size":1}]`, -1},
		{"enum alias", `{"type":"enum","name":"p.E","symbols":["A"]}`, `["null",{"type":"enum","name":"q.X","aliases":["p.E"],"symbols":["A"]}]`, 1},
		{"record alias beats namesake", rec("a.W", `{"name":"x","type":"int"}`), `[` + rec("a.W", `{"name":"x","type":"int"}`) + `,{"type":"record","name":"b.N","aliases":["a.W"],"fields":[{"name":"x","type":"int"}]}]`, 1},
		{"record same short name", rec("a.R", `{"name":"x","type":"int"}`), `[` + rec("b.S", `{"name":"x","type":"int"}`) + `,` + rec("b.R", `{"name":"x","type":"int"}`) + `]`, 1},
		{"record first structural", rec("a.W", `{"name":"x","type":"int"}`), `["null",` + rec("b.S", `{"name":"y","type":"int"}`) + `,` + rec("b.T", `{"name":"x","type":"long"}`) + `,` + rec("b.U", `{"name":"x","type":"int"}`) + `]`, 2},
		{"int exact before promotion", `"int"`, `["null","long","int"]`, 2},
		{"int first promotion", `"int"`, `["null","float","long"]`, 1},
		{"string to bytes", `"string"`, `[{"type":"fixed","name":"F","size":1},"bytes"]`, 1},
		{"no branch", `"boolean"`, `["null","int"]`, -1},
		{"mutually recursive records terminate", rec("x.W", `{"name":"a","type":`+rec("x.W2", `{"name":"b","type":"x.W"}`)+`}`),
			`["null",` + rec("y.R", `{"name":"a","type":["null",`+rec("y.R2", `{"name":"b","type":["null","y.R"]}`)+`]}`) + `]`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, r := mustParse(t, tc.writer), mustParse(t, tc.reader)
			if got := resolve.ReaderBranch(w, r.(*avro.Union), resolve.NewAliases(w, r)); got != tc.want {
				t.Errorf("ReaderBranch = %d, want %d", got, tc.want)
			}
		})
	}

	// equivalent unions go by position, others branch by branch
	w := mustParse(t, `[{"type":"enum","name":"p.E","symbols":["A"]},"int"]`)
	r := mustParse(t, `[{"type":"enum","name":"q.E","symbols":["A"]},"int"]`)
	if got := resolve.UnionBranches(w.(*avro.Union), r.(*avro.Union), resolve.NewAliases(w, r)); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("UnionBranches equivalent = %v, want [0 1]", got)
	}
	r = mustParse(t, `["int",{"type":"enum","name":"q.E","symbols":["A"]}]`)
	if got := resolve.UnionBranches(w.(*avro.Union), r.(*avro.Union), resolve.NewAliases(w, r)); !reflect.DeepEqual(got, []int{-1, 0}) {
		t.Errorf("UnionBranches = %v, want [-1 0]", got)
	}
}
