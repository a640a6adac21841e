package eventrouter_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/spec"
)

func TestParseConnectorConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]string
		wantErr  string
	}{
		{name: "connect document", in: `{"name":"c","config":{"a":"x","tasks.max":1,"b":true}}`, want: map[string]string{"a": "x", "tasks.max": "1", "b": "true"}},
		{name: "flat", in: `{"a":"x"}`, want: map[string]string{"a": "x"}},
		{name: "nested value", in: `{"a":{"b":"c"}}`, wantErr: "config key a: want a string"},
		{name: "duplicate key", in: `{"a":"x","a":"y"}`, wantErr: `"a"`},
		{name: "syntax", in: `{"a":`, wantErr: "c.json:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := eventrouter.ParseConnectorConfig("c.json", []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseProperties(t *testing.T) {
	t.Parallel()
	in := "# comment\n! also\n\nkey.converter = org.apache.kafka.connect.json.JsonConverter\nschemas: false\n  alone  \nurl=http://x:1/a=b\r\n"
	want := map[string]string{
		"key.converter": "org.apache.kafka.connect.json.JsonConverter",
		"schemas":       "false",
		"alone":         "",
		"url":           "http://x:1/a=b",
	}
	if got := eventrouter.ParseProperties([]byte(in)); !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParseSampleRowFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, wantErr string
	}{
		{name: "ok", in: `{"op":"c","row":{"id":"1"}}`},
		{name: "array", in: `[1]`, wantErr: "row.json: a sample row is a JSON object such as"},
		{name: "row not an object", in: `{"op":"c","row":[1]}`, wantErr: `row.json: "row": want an object, got an array`},
		{name: "tsMs a string", in: `{"op":"c","row":{},"tsMs":"1"}`, wantErr: `"tsMs": want a number, got a string`},
		{name: "op", in: `{"op":"x","row":{}}`, wantErr: `op "x": want c, r, u, d or t`},
		{name: "duplicate", in: `{"op":"c","op":"d","row":{}}`, wantErr: `"op"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := eventrouter.ParseSampleRowFile("row.json", []byte(tt.in))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSampleRowApplyContract(t *testing.T) {
	t.Parallel()
	s, err := spec.Load("../examples/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := &s.Outboxes[0]
	sr, err := eventrouter.ParseSampleRowFile("row.json", []byte(`{"op":"c","row":{"id":"1","payload":"{}"},"columns":{"payload":{"type":"jsonb"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sr.ApplyContract(o)
	if sr.Table != o.QualifiedTable() {
		t.Errorf("Table = %q, want %q", sr.Table, o.QualifiedTable())
	}
	if sr.Columns["payload"].Type != "jsonb" {
		t.Errorf("payload type = %q: the sample's own type must win", sr.Columns["payload"].Type)
	}
	if _, ok := sr.Columns["id"]; !ok {
		t.Errorf("id not typed from the contract: %v", sr.Columns)
	}
	if _, ok := sr.Columns["aggregatetype"]; ok {
		t.Errorf("aggregatetype typed though the row lacks it")
	}
}
