package spec

import (
	"errors"
	"testing"
)

func TestCheckJSONDuplicateKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     string // "" = no error
	}{
		{"none", `{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`, ""},
		{"top", "{\"a\":1,\n \"a\":2}", `f.json:2:2: duplicate key "a" (first at line 1)`},
		{"nested", "[{\"name\":\"x\",\"config\":{\n\"database.password\":\"${env:P}\",\n\"database.password\":\"hunter2XYZ\"}}]", `f.json:3:1: duplicate key "database.password" (first at line 2)`},
		{"after nested value", `{"a":{"x":1},"b":[1,2],"a":3}`, `f.json:1:24: duplicate key "a" (first at line 1)`},
		{"escaped key", `{"a":1,"\u0061":2}`, `f.json:1:8: duplicate key "a" (first at line 1)`},
		{"same key in siblings", `[{"a":1},{"a":1}]`, ""},
		{"value equal to key", `{"a":"a","b":"a"}`, ""},
		{"invalid json", `{"a":1,"b"`, ""},
	} {
		err := CheckJSONDuplicateKeys("f.json", []byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrDuplicateKey) {
				t.Errorf("%s: %v does not wrap ErrDuplicateKey", tc.name, err)
			}
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
