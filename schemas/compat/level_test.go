package compat

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

func findings(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("v%d %s/%s %s %s %s", f.Version, f.ReaderLabel, f.WriterLabel, f.Type, f.Location, f.Message))
	}
	return out
}

func TestParseLevel(t *testing.T) {
	for _, s := range []string{"backward", "BACKWARD", "Backward", " full_transitive ", "forward-transitive", "none"} {
		if _, err := ParseLevel(s); err != nil {
			t.Errorf("ParseLevel(%q): %v", s, err)
		}
	}
	if l, _ := ParseLevel("full_transitive"); l != FullTransitive {
		t.Errorf("got %s", l)
	}
	if _, err := ParseLevel("sideways"); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("ParseLevel(sideways) = %v, want ErrUnknownLevel", err)
	}
}

func TestCheckLevel(t *testing.T) {
	const (
		v1 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`
		v2 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]}`
		// b loses its default: reads v2, not v1
		c1 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`
		// both directions break against v1
		w1 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"c","type":"int"}]}`
		c2 = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"int"}]}`
		// a is a string: breaks against every version
		c3 = `{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}`
	)
	cases := []struct {
		name    string
		level   Level
		history []string
		cand    string
		want    []string
	}{
		{"empty history", Backward, nil, c3, nil},
		{"none", None, []string{v1}, c3, nil},
		{"backward checks latest only", Backward, []string{v1, v2}, c1, nil},
		{"backward transitive finds v1", BackwardTransitive, []string{v1, v2}, c1,
			[]string{"v1 new/old READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 b"}},
		{"forward", Forward, []string{v1, v2}, c1, nil},
		{"forward breaks", Forward, []string{v1}, c3,
			[]string{"v1 old/new TYPE_MISMATCH /fields/0/type reader type: INT not compatible with writer type: STRING"}},
		{"full latest", Full, []string{v1, v2}, c1, nil},
		{"full transitive", FullTransitive, []string{v1, v2}, c1,
			[]string{"v1 new/old READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 b"}},
		{"full: forward findings first", Full, []string{w1}, c2, []string{
			"v1 old/new TYPE_MISMATCH /fields/0/type reader type: INT not compatible with writer type: LONG",
			"v1 old/new READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 c",
			"v1 new/old READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 b"}},
		{"transitive stops at the newest failing version", BackwardTransitive, []string{v1, v2}, c3,
			[]string{"v2 new/old TYPE_MISMATCH /fields/0/type reader type: STRING not compatible with writer type: INT"}},
		{"non-transitive ignores older breaks", Backward, []string{c3, v1}, v2, nil},
		{"transitive sees older breaks", BackwardTransitive, []string{c3, v1}, v2,
			[]string{"v1 new/old TYPE_MISMATCH /fields/0/type reader type: INT not compatible with writer type: STRING"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hist []avro.Schema
			for _, h := range tc.history {
				hist = append(hist, mustParse(t, h))
			}
			rep := CheckLevel(tc.level, mustParse(t, tc.cand), hist)
			if got := findings(rep); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if rep.Compatible != (len(tc.want) == 0) || rep.Findings == nil {
				t.Errorf("compatible=%v findings=%v", rep.Compatible, rep.Findings)
			}
		})
	}
}

func TestConfluentMessages(t *testing.T) {
	old := mustParse(t, `{"type":"record","name":"R","namespace":"x","fields":[{"name":"a","type":"int"}]}`)
	cand := mustParse(t, `{"type":"record","name":"R","namespace":"x","fields":[{"name":"a","type":"int"},{"name":"note","type":"string"}]}`)
	hist := []avro.Schema{old}
	got := CheckLevel(Backward, cand, hist).ConfluentMessages(hist)
	want := []string{
		`{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'note' at path '/fields/1' in the new schema has no default value and is missing in the old schema', additionalInfo:'note'}`,
		`{oldSchemaVersion: 1}`,
		`{oldSchema: '{"type":"record","name":"R","namespace":"x","fields":[{"name":"a","type":"int"}]}'}`,
		`{validateFields: 'false', compatibility: 'BACKWARD'}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// FULL with forward findings only: no old schema appended.
	got = CheckLevel(Full, old, []avro.Schema{cand}).ConfluentMessages([]avro.Schema{cand})
	want = []string{
		`{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'note' at path '/fields/1' in the old schema has no default value and is missing in the new schema', additionalInfo:'note'}`,
		`{validateFields: 'false', compatibility: 'FULL'}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
