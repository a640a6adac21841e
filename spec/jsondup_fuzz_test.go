package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzCheckJSONDuplicateKeys: CheckJSONDuplicateKeys never panics, every
// error is a *DuplicateKeyError inside the text, and for valid JSON without
// duplicates, wrapping it as the value of a key given twice is found (at
// the second key's line), while wrapping it in an array is not.
func FuzzCheckJSONDuplicateKeys(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":1,"a":2}`, `[{"a":{"b":[1,{"c":2}]},"d":null}]`,
		"{\"a\":\n1,\n\"\\u0061\":2}", `{"a":{"a":{"a":1}}}`, `"x"`, `[1,2,3]`, `{"a":[{"a":1},{"a":1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := CheckJSONDuplicateKeys("f.json", data)
		if err != nil {
			var de *DuplicateKeyError
			if !errors.As(err, &de) || !errors.Is(err, ErrDuplicateKey) {
				t.Fatalf("%q: %v is not a DuplicateKeyError", data, err)
			}
			if de.Line < 1 || de.Line > bytes.Count(data, []byte("\n"))+1 || de.First > de.Line {
				t.Fatalf("%q: position %d:%d (first %d) outside the text", data, de.Line, de.Col, de.First)
			}
			return
		}
		if !json.Valid(data) {
			return
		}
		if err := CheckJSONDuplicateKeys("f.json", append(append([]byte("["), data...), ']')); err != nil {
			t.Fatalf("[%s]: %v", data, err)
		}
		wrapped := append(append([]byte("{\"zz\":"), data...), []byte("\n,\"zz\":0}")...)
		err = CheckJSONDuplicateKeys("f.json", wrapped)
		var de *DuplicateKeyError
		if !errors.As(err, &de) || de.Key != "zz" || de.First != 1 || de.Line != bytes.Count(data, []byte("\n"))+2 {
			t.Fatalf("%s: err = %v, want the duplicate zz at line %d", wrapped, err, bytes.Count(data, []byte("\n"))+2)
		}
	})
}
