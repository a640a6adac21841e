package eventrouter

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// TestDomainsBaseType: a "domain <base>" column has its base type's schema,
// value and default; only on PostgreSQL.
func TestDomainsBaseType(t *testing.T) {
	for _, tt := range []struct{ dom, base, raw string }{
		{"domain numeric(10,2)", "numeric(10,2)", `"12.345"`},
		{"DOMAIN  varchar(20)", "varchar(20)", `" pad "`},
		{"domain integer", "integer", `"42"`},
		{"domain timestamp(3)", "timestamp(3)", `"2024-01-02 03:04:05.123456"`},
		{"domain int4[]", "int4[]", `"{1,NULL}"`},
	} {
		ds, err := ColumnSchema(Postgres, tt.dom, false)
		if err != nil {
			t.Fatalf("%s: %v", tt.dom, err)
		}
		bs, err := ColumnSchema(Postgres, tt.base, false)
		if err != nil {
			t.Fatalf("%s: %v", tt.base, err)
		}
		if !reflect.DeepEqual(ds, bs) {
			t.Errorf("%s: schema %+v, want %+v", tt.dom, ds, bs)
		}
		dv, err1 := ColumnValue(Postgres, tt.dom, ds, json.RawMessage(tt.raw))
		bv, err2 := ColumnValue(Postgres, tt.base, bs, json.RawMessage(tt.raw))
		if err1 != nil || err2 != nil || !reflect.DeepEqual(dv, bv) {
			t.Errorf("%s: value %v (%v), want %v (%v)", tt.dom, dv, err1, bv, err2)
		}
	}
	if b, ok := PgDomainBase(MariaDB, "domain int"); ok || b != "domain int" {
		t.Errorf("MariaDB: %q %v, want no domain", b, ok)
	}
	if _, err := ColumnSchema(MariaDB, "domain int", true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("MariaDB domain int: %v, want ErrUnsupported", err)
	}
	if _, err := ColumnSchema(Postgres, "domain", true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("domain without a base type: %v, want ErrUnsupported", err)
	}
	// a domain declared NOT NULL: a required field, even for a nullable
	// column
	for _, typ := range []string{"domain text not null", "domain text  NOT NULL"} {
		s, err := ColumnSchema(Postgres, typ, true)
		if err != nil || s.Optional || s.Type != String {
			t.Errorf("%s: %+v, %v; want a required string", typ, s, err)
		}
	}
	if _, err := ColumnSchema(Postgres, "domain tsquery", true); !errors.Is(err, ErrColumnDropped) {
		t.Errorf("domain tsquery: %v, want ErrColumnDropped", err)
	}
	// a domain column's DEFAULT (the column's or the domain's) is not in
	// the connector's schema
	for _, tt := range []struct{ typ, expr string }{{"domain varchar(20)", "'dflt'::dom_vc"}, {"domain numeric(10,2)", "5.5"}} {
		s, _ := ColumnSchema(Postgres, tt.typ, true)
		if d, err := ColumnDefault(Postgres, tt.typ, s, tt.expr); d != nil || err != nil {
			t.Errorf("%s DEFAULT %s: %v, %v; want no default", tt.typ, tt.expr, d, err)
		}
	}
	if !ColumnDropped(Postgres, "domain xml[]") {
		t.Errorf("domain xml[]: want dropped")
	}
}

// TestDomainsVectors: int2vector and oidvector are arrays of int16 /
// int64 (elements not optional) whose non-empty values are empty arrays
// and whose empty value is NULL.
func TestDomainsVectors(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		elem Type
		raw  string
		want any
	}{
		{"int2vector", Int16, `"1 2 3"`, []any{}},
		{"int2vector", Int16, `""`, nil},
		{"int2vector", Int16, `null`, nil},
		{"oidvector", Int64, `"4294967295"`, []any{}},
		{"oidvector", Int64, `"  "`, nil},
	} {
		s, err := ColumnSchema(Postgres, tt.typ, true)
		if err != nil {
			t.Fatalf("%s: %v", tt.typ, err)
		}
		if s.Type != Array || !s.Optional || s.Items == nil || s.Items.Type != tt.elem || s.Items.Optional {
			t.Errorf("%s: schema %+v", tt.typ, s)
		}
		v, err := ColumnValue(Postgres, tt.typ, s, json.RawMessage(tt.raw))
		if err != nil || !reflect.DeepEqual(v, tt.want) {
			t.Errorf("%s %s: %#v (%v), want %#v", tt.typ, tt.raw, v, err, tt.want)
		}
		if _, err := ColumnDefault(Postgres, tt.typ, s, "'1 2'::"+tt.typ); err == nil {
			t.Errorf("%s: a DEFAULT is not modelled, want an error", tt.typ)
		}
	}
	if _, err := ColumnSchema(MariaDB, "int2vector", true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("MariaDB int2vector: %v, want ErrUnsupported", err)
	}
}

// TestDomainsDropped: the types and arrays the connector leaves out.
func TestDomainsDropped(t *testing.T) {
	for _, typ := range []string{"jsonpath", "aclitem", "refcursor", "composite"} {
		if _, err := ColumnSchema(Postgres, typ, true); !errors.Is(err, ErrColumnDropped) {
			t.Errorf("%s: %v, want ErrColumnDropped", typ, err)
		}
		_, err := ColumnSchemaWith(Postgres, typ, true, ColumnSettings{IncludeUnknownDatatypes: "true"})
		var se *SettingError
		if !errors.As(err, &se) {
			t.Errorf("%s under include.unknown.datatypes=true: %v, want a *SettingError", typ, err)
		}
	}
	for _, typ := range []string{"tsquery[]", "pg_lsn[]", "jsonpath[]", "int4multirange[]", "tstzmultirange[]", "box[]", "circle[]"} {
		if !ColumnDropped(Postgres, typ) {
			t.Errorf("%s: want dropped", typ)
		}
	}
	for _, typ := range []string{"int2vector[]", "int4[]"} {
		if ColumnDropped(Postgres, typ) {
			t.Errorf("%s: delivered, want not dropped", typ)
		}
	}
}
