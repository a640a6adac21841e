package resolve_test

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// TestSameSchemaMatchesGoavro is the differential check: with writer ==
// reader, Decode returns exactly what goavro's own codec returns.
func TestSameSchemaMatchesGoavro(t *testing.T) {
	cases := []struct {
		name, schema string
		datum        any
	}{
		{"primitives", rec(`{"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"},{"name":"y","type":"bytes"},{"name":"n","type":"null"}`),
			map[string]any{"b": true, "i": int32(-1), "l": int64(1 << 50), "f": float32(1.25), "d": 2.5, "s": "ü", "y": []byte{0, 255}, "n": nil}},
		{"complex", rec(`{"name":"a","type":{"type":"array","items":["null","string"]}},{"name":"m","type":{"type":"map","values":{"type":"enum","name":"E","symbols":["X","Y"]}}},{"name":"f","type":{"type":"fixed","name":"F","size":2}},{"name":"u","type":["null",{"type":"record","name":"In","fields":[{"name":"z","type":"long"}]}]}`),
			map[string]any{"a": []any{nil, goavro.Union("string", "s")}, "m": map[string]any{"k": "Y"}, "f": []byte{1, 2}, "u": goavro.Union("ns.In", map[string]any{"z": int64(3)})}},
		{"logical", rec(`{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"us","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"d","type":{"type":"int","logicalType":"date"}},{"name":"tm","type":{"type":"int","logicalType":"time-millis"}},{"name":"tu","type":{"type":"long","logicalType":"time-micros"}},{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},{"name":"fd","type":{"type":"fixed","name":"FD","size":4,"logicalType":"decimal","precision":6,"scale":1}},{"name":"ou","type":["null",{"type":"long","logicalType":"timestamp-millis"}]},{"name":"uuid","type":{"type":"string","logicalType":"uuid"}}`),
			map[string]any{"ts": time.UnixMilli(-1500).UTC(), "us": time.UnixMicro(1700000000123456).UTC(), "d": time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
				"tm": 90 * time.Second, "tu": 3 * time.Microsecond, "dec": big.NewRat(-12345, 100), "fd": big.NewRat(15, 10),
				"ou": goavro.Union("long.timestamp-millis", time.UnixMilli(42).UTC()), "uuid": "0f8fad5b-d9cb-469f-a165-70867728950e"}},
		{"null namespace inside a namespace", `{"type":"record","name":"a.R","fields":[{"name":"e","type":["null",{"type":"enum","name":"E","namespace":"","symbols":["X"]}]}]}`,
			map[string]any{"e": goavro.Union("a.E", "X")}},
		{"recursive", `{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}`,
			map[string]any{"v": int32(1), "next": goavro.Union("Node", map[string]any{"v": int32(2), "next": nil})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.schema)
			res, err := resolve.Compile(s, s)
			if err != nil {
				t.Fatal(err)
			}
			b := encode(t, tc.schema, tc.datum)
			got, err := res.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			codec, _ := goavro.NewCodec(tc.schema)
			want, _, err := codec.NativeFromBinary(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Decode\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestNativeLogical checks the reader's logical types in Decode's (goavro
// native) output.
func TestNativeLogical(t *testing.T) {
	w := mustParse(t, rec(`{"name":"t","type":"long"},{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}},{"name":"o","type":"long"}`))
	r := mustParse(t, rec(`{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":3}},{"name":"o","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},{"name":"def","type":{"type":"int","logicalType":"date"},"default":1}`))
	res, err := resolve.Compile(w, r)
	if err != nil {
		t.Fatal(err)
	}
	b := encode(t, rec(`{"name":"t","type":"long"},{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}},{"name":"o","type":"long"}`),
		map[string]any{"t": int64(1700000000123), "d": big.NewRat(1234, 100), "o": int64(7)})
	v, err := res.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if got, want := m["t"], time.UnixMilli(1700000000123).UTC(); got != want {
		t.Errorf("t = %#v, want %v", got, want)
	}
	// Java reinterprets the unscaled bytes with the reader's scale.
	if got := m["d"].(*big.Rat); got.Cmp(big.NewRat(1234, 1000)) != 0 {
		t.Errorf("d = %v, want 1.234", got)
	}
	if got, want := m["o"], goavro.Union("long.timestamp-micros", time.UnixMicro(7).UTC()); !reflect.DeepEqual(got, want) {
		t.Errorf("o = %#v, want %#v", got, want)
	}
	if got, want := m["def"], time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC); got != want {
		t.Errorf("def = %#v, want %v", got, want)
	}
}

// TestDefaultsNotShared: a caller that modifies a decoded default does not
// change the next datum's default.
func TestDefaultsNotShared(t *testing.T) {
	ws := rec(`{"name":"id","type":"int"}`)
	r := mustParse(t, rec(`{"name":"id","type":"int"},{"name":"tags","type":{"type":"array","items":"string"},"default":["a"]},{"name":"raw","type":"bytes","default":"x"}`))
	res, err := resolve.Compile(mustParse(t, ws), r)
	if err != nil {
		t.Fatal(err)
	}
	b := encode(t, ws, map[string]any{"id": int32(1)})
	v1, _ := res.Decode(b)
	m1 := v1.(map[string]any)
	m1["tags"].([]any)[0] = "changed"
	m1["raw"].([]byte)[0] = 'Z'
	v2, _ := res.Decode(b)
	m2 := v2.(map[string]any)
	if m2["tags"].([]any)[0] != "a" || string(m2["raw"].([]byte)) != "x" {
		t.Errorf("defaults shared between decodes: %v", m2)
	}
}

func TestErrorsAreTyped(t *testing.T) {
	w := mustParse(t, rec(`{"name":"id","type":"int"},{"name":"status","type":{"type":"enum","name":"S","symbols":["A","X"]}}`))
	r := mustParse(t, rec(`{"name":"id","type":"int"},{"name":"other","type":"int","default":0},{"name":"status","type":{"type":"enum","name":"S","symbols":["A"]}}`))
	res, err := resolve.Compile(w, r)
	if err != nil {
		t.Fatal(err)
	}
	_, err = res.Decode(encode(t, rec(`{"name":"id","type":"int"},{"name":"status","type":{"type":"enum","name":"S","symbols":["A","X"]}}`),
		map[string]any{"id": int32(1), "status": "X"}))
	const want = `/fields/2 "status": enum symbol "X" not in reader and no default`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %s", err, want)
	}
	var re *resolve.Error
	if !errors.As(err, &re) || re.Path != "/fields/2/type" || re.Field != "status" || re.Kind != resolve.ErrEnumSymbol {
		t.Errorf("error fields = %+v", re)
	}
}

// TestCacheConcurrent decodes through one Cache from many goroutines (run
// with -race): every goroutine gets correct data and each writer schema is
// loaded and compiled once.
func TestCacheConcurrent(t *testing.T) {
	writers := map[int]string{
		1: rec(`{"name":"id","type":"int"}`),
		2: rec(`{"name":"id","type":"int"},{"name":"name","type":"string"}`),
		3: rec(`{"name":"id","type":"long"},{"name":"name","type":["null","string"]}`),
	}
	data := map[int][]byte{
		1: encode(t, writers[1], map[string]any{"id": int32(1)}),
		2: encode(t, writers[2], map[string]any{"id": int32(2), "name": "two"}),
		3: encode(t, writers[3], map[string]any{"id": int64(3), "name": goavro.Union("string", "three")}),
	}
	want := map[int]string{1: `{"id":1,"name":null}`, 2: `{"id":2,"name":{"string":"two"}}`, 3: `{"id":3,"name":{"string":"three"}}`}
	reader := mustParse(t, rec(`{"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null}`))

	var loads [4]atomic.Int32
	load := func(id int) (avro.Schema, error) {
		loads[id].Add(1)
		return avro.Parse([]byte(writers[id]))
	}
	var cache resolve.Cache
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				id := 1 + (g+i)%3
				res, err := cache.Resolver(id, reader, load)
				if err != nil {
					errs <- err
					return
				}
				got, err := res.DecodeJSON(data[id])
				if err != nil {
					errs <- err
					return
				}
				if string(got) != want[id] {
					errs <- fmt.Errorf("writer %d: got %s, want %s", id, got, want[id])
					return
				}
				if _, err := cache.Decode(id, reader, load, data[id]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := cache.Len(); n != 3 {
		t.Errorf("cache holds %d pairs, want 3", n)
	}
	for id := 1; id <= 3; id++ {
		if n := loads[id].Load(); n != 1 {
			t.Errorf("writer %d loaded %d times, want 1", id, n)
		}
	}
}

func TestCacheLoadErrorNotCached(t *testing.T) {
	reader := mustParse(t, `"int"`)
	var cache resolve.Cache
	fail := errors.New("registry down")
	if _, err := cache.Resolver(7, reader, func(int) (avro.Schema, error) { return nil, fail }); !errors.Is(err, fail) {
		t.Fatalf("error = %v, want %v", err, fail)
	}
	if _, err := cache.Resolver(7, reader, func(int) (avro.Schema, error) { return avro.Parse([]byte(`"int"`)) }); err != nil {
		t.Fatalf("second load: %v", err)
	}
	// A Compile error is cached: the loader is not called again.
	calls := 0
	bad := func(int) (avro.Schema, error) { calls++; return avro.Parse([]byte(`"string"`)) }
	for i := 0; i < 2; i++ {
		if _, err := cache.Resolver(8, reader, bad); !errors.Is(err, resolve.ErrIncompatible) {
			t.Fatalf("error = %v, want ErrIncompatible", err)
		}
	}
	if calls != 1 {
		t.Errorf("loader called %d times, want 1", calls)
	}
}

func TestSchemaKey(t *testing.T) {
	a := mustParse(t, rec(`{"name":"x","type":"int","default":1}`))
	b := mustParse(t, rec(`{"name":"x","type":"int","default":1}`))
	c := mustParse(t, rec(`{"name":"x","type":"int","default":2}`))
	d := mustParse(t, rec(`{"name":"x","aliases":["y"],"type":"int","default":1}`))
	if resolve.SchemaKey(a) != resolve.SchemaKey(b) {
		t.Error("equal schemas have different keys")
	}
	if resolve.SchemaKey(a) == resolve.SchemaKey(c) || resolve.SchemaKey(a) == resolve.SchemaKey(d) {
		t.Error("a different default or alias does not change the key")
	}
	// Unlike the key, the Avro fingerprint (canonical form) ignores both.
	if avro.Fingerprint64(a) != avro.Fingerprint64(c) || avro.Fingerprint64(a) != avro.Fingerprint64(d) {
		t.Error("avro.Fingerprint64 differs for a default or an alias")
	}
	if resolve.Fingerprint(c) != resolve.SchemaKey(c) { //nolint:staticcheck // the deprecated alias
		t.Error("the deprecated Fingerprint is not SchemaKey")
	}
}
