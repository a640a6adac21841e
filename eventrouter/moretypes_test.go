package eventrouter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestPgOidValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"4294967295", 4294967295, true}, {" -1 ", 4294967295, true},
		{"-2147483648", 2147483648, true}, {"00042", 42, true},
		{"4294967296", 0, false}, {"-2147483649", 0, false}, {"x", 0, false}, {"", 0, false},
	} {
		got, err := pgOidValue(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("pgOidValue(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestMariaDBUUIDValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"6CCD780C-BABA-4026-9564-5B8C656024DB", "6ccd780c-baba-4026-9564-5b8c656024db"},
		{"123e4567-e89b-12d3-a456-426614174000", "00123e45-67e8-9b12-d3a4-564266141740"},
		{"0102030405060708090a0b0c0d000000", "00000001-0203-0405-0607-08090a0b0c0d"},
		{"00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"},
	} {
		got, err := mariaDBUUIDValue(c.in)
		if err != nil || got != c.want {
			t.Errorf("mariaDBUUIDValue(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// MariaDB's input forms, each checked by INSERT into a uuid column on
	// the stack's MariaDB: hyphens anywhere inside, several in a row
	for _, in := range []string{"a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a-0eebc999c0b4ef8bb6d6bb9bd380a11", "a0eebc999c0b4ef8bb6d6bb9bd380a1-1", "a0eebc99---9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"} {
		if got, err := mariaDBUUIDValue(in); err != nil || got != "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" {
			t.Errorf("mariaDBUUIDValue(%q) = %q, %v", in, got, err)
		}
	}
	// and what it refuses ("Incorrect uuid value")
	for _, in := range []string{"123", "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "a0eebc999c0b4ef8bb6d6bb9bd380a11--", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"} {
		if got, err := mariaDBUUIDValue(in); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("mariaDBUUIDValue(%q) = %q, %v; want ErrInvalidEvent", in, got, err)
		}
	}
}

func TestMoreTypesSchemas(t *testing.T) {
	for _, c := range []struct {
		kind     ConnectorKind
		typ      string
		want     Type
		name     string
		itemName string
	}{
		{Postgres, "oid", Int64, "", ""},
		{Postgres, "ltree", String, NameLtree, ""},
		{Postgres, "oid[]", Array, "", ""},
		{Postgres, "ltree[]", Array, "", NameLtree},
		{MariaDB, "uuid", String, NameUUID, ""},
	} {
		s, err := ColumnSchema(c.kind, c.typ, true)
		if err != nil || s.Type != c.want || s.Name != c.name || c.itemName != "" && (s.Items == nil || s.Items.Name != c.itemName || !s.Items.Optional) {
			t.Errorf("%s %s: %+v, %v", c.kind, c.typ, s, err)
		}
	}
	for _, typ := range []string{"tsquery", "pg_lsn", "regclass", "regtype", "txid_snapshot", "xid", "int4multirange", "nummultirange", "datemultirange", "tstzmultirange"} {
		if _, err := ColumnSchema(Postgres, typ, true); !errors.Is(err, ErrColumnDropped) {
			t.Errorf("%s: want ErrColumnDropped, got %v", typ, err)
		}
		if _, err := ColumnSchemaWith(Postgres, typ, true, ColumnSettings{IncludeUnknownDatatypes: "true"}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s under include.unknown.datatypes=true: want ErrUnsupported, got %v", typ, err)
		}
	}
	for _, typ := range []string{"inet4", "inet6", "tsquery[]"} {
		kind := MariaDB
		if typ == "tsvector" {
			kind = Postgres
		}
		if _, err := ColumnSchema(kind, typ, true); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s %s: want ErrUnsupported, got %v", kind, typ, err)
		}
	}
}

func TestLtreeArrayNullElement(t *testing.T) {
	s, err := ColumnSchema(Postgres, "ltree[]", true)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ColumnValue(Postgres, "ltree[]", s, json.RawMessage(`"{a.b,c}"`))
	if err != nil || len(v.([]any)) != 2 {
		t.Fatalf("ltree[]: %v, %v", v, err)
	}
	_, err = ColumnValue(Postgres, "ltree[]", s, json.RawMessage(`"{a.b,NULL}"`))
	var ce *ConvertError
	if !errors.As(err, &ce) {
		t.Fatalf("ltree[] with a NULL element: want a *ConvertError, got %v", err)
	}
	if v, err := (ColumnSettings{}).ConvertFailure("public.outbox", "t_lta", "ltree[]", s, err); v != nil || err != nil {
		t.Errorf("warn: want NULL, got %v, %v", v, err)
	}
	var te *TaskError
	if _, err := (ColumnSettings{ConvertingFailureMode: "fail"}).ConvertFailure("public.outbox", "t_lta", "ltree[]", s, err); !errors.As(err, &te) || te.Message != "Failed to properly convert data value for 'public.outbox.t_lta' of type _ltree" {
		t.Errorf("fail: %v", err)
	}
	es, _ := ColumnSchema(Postgres, "enum('a','b')[]", true)
	_, eerr := ColumnValue(Postgres, "enum('a','b')[]", es, json.RawMessage(`"{a,NULL}"`))
	var se *SettingError
	if _, err := (ColumnSettings{ConvertingFailureMode: "fail"}).ConvertFailure("public.outbox", "t_ea", "enum('a','b')[]", es, eerr); !errors.As(err, &se) {
		t.Errorf("enum array under fail: want a *SettingError, got %v", err)
	}
}

// The expected texts are PostgreSQL 15's ('…'::tsvector::text on the
// stack).
func TestPgTsvector(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"the quick  brown:3A fox the", "'brown':3A 'fox' 'quick' 'the'"},
		{"a:1 a:2 b:3", "'a':1,2 'b':3"},
		{"b:2,1,1A a:5C,5B", "'a':5B 'b':1A,2"},
		{`'it''s' a\'b 'back\\slash' 'x y'`, `'a''b' 'back\\slash' 'it''s' 'x y'`},
		{"  ", ""},
		{"Zeta zeta ZETA z zz za", "'ZETA' 'Zeta' 'z' 'za' 'zeta' 'zz'"},
		{"café:1 cafe:2 éa ea", "'cafe':2 'café':1 'ea' 'éa'"},
		{"a:20000 b:0001", "'a':16383 'b':1"},
		{"x:3D,3,2c", "'x':2C,3"},
		{"ab abc a", "'a' 'ab' 'abc'"},
		{"a:1A,1B,1C", "'a':1A"},
		{"a:1a,2b,3c,4d", "'a':1A,2B,3C,4"},
		{"'a:1' b", "'a:1' 'b'"},
		{"w:1,2,3 w", "'w':1,2,3"},
	} {
		got, err := pgTsvector(c.in)
		if err != nil || got != c.want {
			t.Errorf("pgTsvector(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := pgTsvector("'' "); err == nil {
		t.Errorf("an empty lexeme: want an error")
	}
}

func TestMariaDBUUIDSnapshotRead(t *testing.T) {
	doc := `{"op":"r","table":"db.outbox","columns":{"id":"varchar(36)","u":"uuid"},"row":{"id":"1","u":"123E4567-e89b-12d3-a456-426614174000"},"primaryKey":["id"]}`
	sr, err := ParseSampleRow(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	for op, want := range map[string]string{OpRead: "123e4567-e89b-12d3-a456-426614174000", OpCreate: "00123e45-67e8-9b12-d3a4-564266141740"} {
		sr.Op = op
		ev, err := sr.ChangeEvent(MariaDB)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ev.After {
			if c.Name == "u" && c.Value != want {
				t.Errorf("op %s: %v, want %s", op, c.Value, want)
			}
		}
	}
}

func TestMoreTypesDefaultsRefused(t *testing.T) {
	for _, c := range []struct {
		kind      ConnectorKind
		typ, expr string
	}{
		{Postgres, "oid", "42"}, {Postgres, "ltree", "'a.b'::ltree"}, {Postgres, "tsvector", "'b a'::tsvector"}, {MariaDB, "uuid", "'123e4567-e89b-12d3-a456-426614174000'"},
	} {
		s, err := ColumnSchema(c.kind, c.typ, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ColumnDefault(c.kind, c.typ, s, c.expr); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s %s DEFAULT %s: %v, want ErrUnsupported", c.kind, c.typ, c.expr, err)
		}
		if d, err := ColumnDefault(c.kind, c.typ, s, "NULL"); d != nil || err != nil {
			t.Errorf("%s %s DEFAULT NULL: %v, %v", c.kind, c.typ, d, err)
		}
	}
}

// PostgreSQL's uuid_in forms (each checked with SELECT '…'::uuid on the
// stack's PostgreSQL 15): upper case, braces, no hyphens, a hyphen
// after any group of four digits; never two hyphens in a row, nor first or
// last.
func TestPgUUID(t *testing.T) {
	const want = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	for _, in := range []string{
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11",
		"a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
	} {
		got, err := pgUUID(in)
		if err != nil || got != want {
			t.Errorf("pgUUID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{
		"-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
		"a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11a",
		"g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		" a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"{ a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
	} {
		if got, err := pgUUID(in); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("pgUUID(%q) = %q, %v; want ErrInvalidEvent", in, got, err)
		}
	}
}
