package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// PostgreSQL enums (checked by the differential variant pg_enum): the
// schema io.debezium.data.Enum with the labels joined by commas, the label
// exactly as declared, DEFAULT 'label'::type as the text between the
// quotes (a doubled quote kept).
func TestPgEnum(t *testing.T) {
	typ := PgEnumType([]string{"sad", "Happy Day", "it's", "a,b"})
	if typ != `enum('sad','Happy Day','it''s','a,b')` {
		t.Fatalf("PgEnumType: %s", typ)
	}
	s, err := ColumnSchema(Postgres, typ, true)
	if err != nil || s.Type != String || s.Name != NameEnum || len(s.Parameters) != 1 || s.Parameters[0] != (Param{"allowed", "sad,Happy Day,it's,a,b"}) {
		t.Fatalf("schema %+v, %v", s, err)
	}
	for _, in := range []string{"Happy Day", "it's", "a,b"} {
		raw, _ := json.Marshal(in)
		if v, err := ColumnValue(Postgres, typ, s, raw); err != nil || v != in {
			t.Errorf("%s: %v, %v", in, v, err)
		}
	}
	for _, in := range []string{`"happy day"`, `"sad "`, `"x"`, `2`} {
		if v, err := ColumnValue(Postgres, typ, s, json.RawMessage(in)); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s: %v, %v; want ErrInvalidEvent", in, v, err)
		}
	}
	for _, tc := range []struct {
		expr string
		want any
	}{
		{"'sad'::mood", "sad"},
		{"'it''s'::public.mood", "it''s"},
		{"NULL::mood", nil},
	} {
		if d, err := ColumnDefault(Postgres, typ, s, tc.expr); err != nil || d != tc.want {
			t.Errorf("DEFAULT %s: %v, %v; want %v", tc.expr, d, err, tc.want)
		}
	}
	if _, err := ColumnDefault(Postgres, typ, s, "'sad'"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DEFAULT without a cast: %v, want ErrUnsupported", err)
	}
}

// Enum arrays (pg_enum_array): an array of io.debezium.data.Enum whose
// elements are not optional, so a NULL element makes the Struct refuse the
// list and the connector leaves the column NULL (warn, skip) or refuses it
// (NOT NULL).
func TestPgEnumArray(t *testing.T) {
	typ := PgEnumType([]string{"sad", "a,b"}) + "[]"
	s, err := ColumnSchema(Postgres, typ, true)
	if err != nil || s.Type != Array || s.Items.Name != NameEnum || s.Items.Optional || s.Items.Parameters[0].Value != "sad,a,b" {
		t.Fatalf("schema %+v, %v", s, err)
	}
	v, err := ColumnValue(Postgres, typ, s, json.RawMessage(`"{\"a,b\",sad}"`))
	if err != nil || javaToString(v) != "[a,b, sad]" {
		t.Errorf("value %v, %v", v, err)
	}
	_, err = ColumnValue(Postgres, typ, s, json.RawMessage(`"{sad,NULL}"`))
	if v, err := (ColumnSettings{}).ConvertFailure("public.t", "c", typ, s, err); err != nil || v != nil {
		t.Errorf("a NULL element: %v, %v; want the column NULL", v, err)
	}
	notNull, _ := ColumnSchema(Postgres, typ, false)
	_, err = ColumnValue(Postgres, typ, notNull, json.RawMessage(`"{sad,NULL}"`))
	var se *SettingError
	if _, err := (ColumnSettings{}).ConvertFailure("public.t", "c", typ, notNull, err); !errors.As(err, &se) {
		t.Errorf("a NULL element, NOT NULL column: %v, want a *SettingError", err)
	}
	if _, err := ColumnValue(Postgres, typ, s, json.RawMessage(`"{happy}"`)); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("not a label: %v", err)
	}
}
