package consumer

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Types named by avro tags, and their twins named by json tags with the same
// names: renaming then encoding/json into the first must give what
// encoding/json alone gives into the twin.
type fzOrder struct {
	ID    string            `avro:"orderId"`
	N     int               `avro:"n"`
	Lines []fzLine          `avro:"lines"`
	ByKey map[string]fzLine `avro:"byKey"`
	Ship  *fzLine           `avro:"ship"`
	Any   any               `avro:"any"`
	Keep  string            `json:"keep" avro:"ignored"`
}

type fzLine struct {
	SKU string  `avro:"sku"`
	Qty float64 `avro:"qty"`
}

type fzOrderJ struct {
	ID    string             `json:"orderId"`
	N     int                `json:"n"`
	Lines []fzLineJ          `json:"lines"`
	ByKey map[string]fzLineJ `json:"byKey"`
	Ship  *fzLineJ           `json:"ship"`
	Any   any                `json:"any"`
	Keep  string             `json:"keep"`
}

type fzLineJ struct {
	SKU string  `json:"sku"`
	Qty float64 `json:"qty"`
}

func FuzzRenameJSON(f *testing.F) {
	for _, s := range []string{
		`{"orderId":"o-1","n":2,"lines":[{"sku":"A","qty":1.5}],"byKey":{"a":{"SKU":"x"}},"ship":{"sku":"s"},"any":{"k":[1,"2",null]},"keep":"k"}`,
		`{"ORDERID":"a","orderId":"b","ignored":"x","Keep":"y"}`,
		`{"order\u0049d":"e","lines":null,"ship":null}`,
		` { "n" : 1 , "lines" : [ ] , "byKey" : { } } `,
		`{"lines":{"sku":"A"}}`, `[1,2]`, `"str"`, `null`, `{"n":"x"}`, `{"n":1,}`, `{"a":"\"}"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a fzOrder
		var b fzOrderJ
		errA := json.Unmarshal(renameJSON(data, reflect.TypeFor[fzOrder]()), &a)
		errB := json.Unmarshal(data, &b)
		if errB != nil {
			return // invalid input: any error (or none, for keys renaming dropped) is fine
		}
		if errA != nil {
			t.Fatalf("renamed input failed: %v (plain: ok)\ninput %q\nrenamed %q", errA, data, renameJSON(data, reflect.TypeFor[fzOrder]()))
		}
		if !sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) {
			t.Fatalf("input %q\nrenamed %q\ngot  %+v\nwant %+v", data, renameJSON(data, reflect.TypeFor[fzOrder]()), a, b)
		}
	})
}

// sameValue compares two values of twin types field by field.
func sameValue(x, y reflect.Value) bool {
	if x.Kind() != y.Kind() {
		return false
	}
	switch x.Kind() {
	case reflect.Struct:
		for i := 0; i < x.NumField(); i++ {
			if !sameValue(x.Field(i), y.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if x.IsNil() || y.IsNil() {
			return x.IsNil() == y.IsNil()
		}
		return sameValue(x.Elem(), y.Elem())
	case reflect.Slice:
		if x.IsNil() != y.IsNil() || x.Len() != y.Len() {
			return false
		}
		for i := 0; i < x.Len(); i++ {
			if !sameValue(x.Index(i), y.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if x.IsNil() != y.IsNil() || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.MapKeys() {
			yv := y.MapIndex(k)
			if !yv.IsValid() || !sameValue(x.MapIndex(k), yv) {
				return false
			}
		}
		return true
	case reflect.Interface:
		return reflect.DeepEqual(x.Interface(), y.Interface())
	}
	return x.Interface() == y.Interface()
}
