package eventrouter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// An enum array with a NULL element under
// event.converting.failure.handling.mode=fail: the task fails with the
// DebeziumException naming the array type as the catalog does, given as
// the column's databaseType; without it, or with a name that needs
// quotes (not run through the connector), the case is refused. The
// differential variant pg_enum_array_null_fail checks the message against
// the real connector.
func TestEnumArrayConvertFailure(t *testing.T) {
	typ := PgEnumType([]string{"sad", "ok"}) + "[]"
	s, _ := ColumnSchema(Postgres, typ, true)
	_, cerr := ColumnValue(Postgres, typ, s, json.RawMessage(`"{ok,NULL}"`))
	fail := ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": "fail"})
	for _, tc := range []struct {
		typeName string
		want     string // the task's message; "" for a refusal
	}{
		{"_mood", "Failed to properly convert data value for 'public.outbox.t_ea' of type _mood"},
		{"_outboxctl_pgt_mood", "Failed to properly convert data value for 'public.outbox.t_ea' of type _outboxctl_pgt_mood"},
		{"", ""},
		{"_Mood", ""},
		{"mood", ""},
		{`"_mood"`, ""},
		{"other._mood", ""},
	} {
		v, err := fail.ConvertFailureAs("public.outbox", "t_ea", typ, tc.typeName, s, cerr)
		var te *TaskError
		var se *SettingError
		switch {
		case tc.want == "" && !errors.As(err, &se):
			t.Errorf("%q: %v, %v; want a *SettingError", tc.typeName, v, err)
		case tc.want != "" && (!errors.As(err, &te) || te.Message != tc.want || te.Exception != excDebezium || te.Stage != StageConnector):
			t.Errorf("%q: %v, %v; want the task to fail with %q", tc.typeName, v, err, tc.want)
		}
	}
	// warn and skip leave the column NULL whatever the name
	for _, mode := range []string{"", "warn", "skip"} {
		cs := ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": mode})
		if v, err := cs.ConvertFailureAs("public.outbox", "t_ea", typ, "_mood", s, cerr); v != nil || err != nil {
			t.Errorf("%q: %v, %v; want NULL", mode, v, err)
		}
	}
	// another array type keeps its own name (_numeric), whatever is given
	ns, _ := ColumnSchema(Postgres, "numeric(10,2)[]", true)
	if _, err := fail.ConvertFailureAs("public.outbox", "n", "numeric(10,2)[]", "_ignored", ns, &ConvertError{Type: "numeric(10,2)[]", Value: "NaN"}); err == nil || !strings.HasSuffix(err.Error(), "of type _numeric") {
		t.Errorf("numeric[]: %v", err)
	}
}

// A sample row's column spec carries databaseType to the connector's
// failure: the event fails the task (ConnectorError) with the message.
func TestSampleDatabaseType(t *testing.T) {
	doc := `{"op":"c","table":"public.outbox","columns":{"id":"uuid","t_ea":{"type":"enum('sad','ok')[]","databaseType":"_mood"}},
	"row":{"id":"00000000-0000-0000-0000-000000000001","t_ea":"{ok,NULL}"},"primaryKey":["id"]}`
	sr, err := ParseSampleRow(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := sr.Columns["t_ea"].DatabaseType; got != "_mood" {
		t.Fatalf("databaseType %q", got)
	}
	ev, err := sr.changeEvent(Postgres, ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": "fail"}))
	if err != nil || ev.ConnectorError == nil || ev.ConnectorError.Message != "Failed to properly convert data value for 'public.outbox.t_ea' of type _mood" {
		t.Fatalf("%+v, %v", ev.ConnectorError, err)
	}
	// without it, refused naming the column
	doc = strings.Replace(doc, `,"databaseType":"_mood"`, "", 1)
	if sr, err = ParseSampleRow(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	var se *SettingError
	if _, err := sr.changeEvent(Postgres, ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": "fail"})); !errors.As(err, &se) || se.Column != "t_ea" {
		t.Fatalf("%v; want a *SettingError naming t_ea", err)
	}
}
