package provisioning

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestFindingJSONShape pins doctor's and provision's finding shape: the keys
// of the one finding model (rule, hint), with the keys it had before (id,
// fix) kept for one release as aliases of the same values, and both
// accepted when read back.
func TestFindingJSONShape(t *testing.T) {
	f := Finding{Rule: IDPGWalLevel, Severity: SeverityError, Outbox: "orders", Subject: "wal_level", Message: "wal_level is replica", Hint: "ALTER SYSTEM SET wal_level = logical"}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"rule": IDPGWalLevel, "severity": "error", "outbox": "orders", "subject": "wal_level",
		"message": "wal_level is replica", "hint": "ALTER SYSTEM SET wal_level = logical",
		"id": IDPGWalLevel, "fix": "ALTER SYSTEM SET wal_level = logical",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON = %s\nwant the keys %v", b, want)
	}

	// Without a hint neither hint nor fix is written.
	b, err = json.Marshal(Finding{Rule: IDTopicMissing, Severity: SeverityWarning})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["hint"]; ok {
		t.Errorf("hint written without one: %s", b)
	}
	if _, ok := got["fix"]; ok {
		t.Errorf("fix written without a hint: %s", b)
	}

	// Reading back: the new keys and the old ones give the same finding.
	for _, in := range []string{
		`{"rule":"PG_WAL_LEVEL","severity":"error","hint":"h"}`,
		`{"id":"PG_WAL_LEVEL","severity":"error","fix":"h"}`,
		string(mustJSON(t, Finding{Rule: IDPGWalLevel, Severity: SeverityError, Hint: "h"})),
	} {
		var back Finding
		if err := json.Unmarshal([]byte(in), &back); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if want := (Finding{Rule: IDPGWalLevel, Severity: SeverityError, Hint: "h"}); back != want {
			t.Errorf("%s read back as %+v, want %+v", in, back, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
