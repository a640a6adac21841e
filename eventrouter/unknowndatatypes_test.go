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

// ResolveColumn, the one resolution route preview and the relay share:
// left out (an array without a schema, a scalar type without one), a
// setting not modelled (naming the column), a type not modelled, a schema.
func TestResolveColumn(t *testing.T) {
	on := ParseColumnSettings(map[string]string{"include.unknown.datatypes": "true"})
	for _, tc := range []struct {
		typ     string
		cs      ColumnSettings
		dropped bool
		setting string // the *SettingError's Setting, "" for none
		refused bool   // another error
	}{
		{typ: "int4"},
		{typ: "name[]", dropped: true},
		{typ: "box", dropped: true},
		{typ: "name[]", cs: on, setting: "include.unknown.datatypes"},
		{typ: "box", cs: on, setting: "include.unknown.datatypes"},
		{typ: "time(3)", cs: ParseColumnSettings(map[string]string{"time.precision.mode": "millis"}), setting: "time.precision.mode"},
		{typ: "floatrange[]", refused: true},
	} {
		s, dropped, err := ResolveColumn(Postgres, "c", tc.typ, true, tc.cs)
		var se *SettingError
		switch {
		case tc.setting != "":
			if !errors.As(err, &se) || se.Setting != tc.setting || se.Column != "c" || s != nil || dropped {
				t.Errorf("%s: %v, %v, %v; want a *SettingError of %s naming column c", tc.typ, s, dropped, err, tc.setting)
			}
		case tc.refused:
			if err == nil || errors.As(err, &se) || s != nil || dropped {
				t.Errorf("%s: %v, %v, %v; want it refused", tc.typ, s, dropped, err)
			}
		default:
			if err != nil || dropped != tc.dropped || (s == nil) != tc.dropped {
				t.Errorf("%s: %v, %v, %v; want dropped %v", tc.typ, s, dropped, err, tc.dropped)
			}
		}
	}
}
