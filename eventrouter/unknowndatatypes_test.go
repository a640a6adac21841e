package eventrouter

import (
	"errors"
	"strings"
	"testing"
)

// An array the connector leaves out under include.unknown.datatypes=false
// (the default) may get a bytes schema under true, which is not modelled
// (not run): refused naming the column, like the scalar types left out
// (TestPgGeometric), in route preview and through ColumnDroppedWith for
// the relay.
func TestDroppedArraysUnderIncludeUnknownDatatypes(t *testing.T) {
	on := ParseColumnSettings(map[string]string{"include.unknown.datatypes": "true"})
	off := ParseColumnSettings(map[string]string{"include.unknown.datatypes": "false"})
	for _, tc := range []struct {
		typ  string
		drop bool
	}{
		{"name[]", true}, {"interval[]", true}, {"money[]", true}, {"xml[]", true}, {"point[]", true},
		{"regclass[]", true}, {"box[]", true}, {"composite[]", true},
		{"int4[]", false}, {"text[]", false}, {"box", false},
	} {
		for _, cs := range []ColumnSettings{{}, off} {
			if got, err := ColumnDroppedWith(Postgres, tc.typ, cs); got != tc.drop || err != nil {
				t.Errorf("%s (%q): %v, %v; want %v", tc.typ, cs.IncludeUnknownDatatypes, got, err, tc.drop)
			}
		}
		got, err := ColumnDroppedWith(Postgres, tc.typ, on)
		var se *SettingError
		if tc.drop && (got || !errors.As(err, &se) || se.Setting != "include.unknown.datatypes") {
			t.Errorf("%s under true: %v, %v; want a *SettingError", tc.typ, got, err)
		}
		if !tc.drop && (got || err != nil) {
			t.Errorf("%s under true: %v, %v; want not dropped", tc.typ, got, err)
		}
	}

	sr, err := ParseSampleRow(strings.NewReader(`{"columns":{"n":"name[]"},"row":{"id":"1","aggregatetype":"A","aggregateid":"1","payload":{},"n":"{a,b}"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.ChangeEventFor(Config{Connector: Postgres}); err != nil {
		t.Errorf("include.unknown.datatypes unset: %v", err)
	}
	_, err = sr.ChangeEventFor(Config{Connector: Postgres, ColumnSettings: on})
	var se *SettingError
	if !errors.As(err, &se) || se.Column != "n" || !strings.Contains(err.Error(), "include.unknown.datatypes") {
		t.Errorf("include.unknown.datatypes=true: %v, want a *SettingError naming column n", err)
	}
}
