package resolve_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/internal/javaoracle"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// The compiled typed decoder (schemas/avrobind) must read what Avro Java's
// resolving reader reads. These tests run the resolve oracle cases through
// it, into Go types built from the reader schema with reflect.StructOf
// (records as structs, ["null", X] as *X, arrays as slices, maps as
// map[string]X, enums as strings, logical types as time.Time,
// time.Duration and *big.Rat; a union of two non-null types and a
// recursive record as any, which gets plain values). The decoded Go value
// is turned back into a reader datum (goavro encodes it with the reader
// schema) and printed as Avro JSON by resolve, the form the Java oracle
// prints. A value that cannot be turned back unambiguously (a plain value
// that fits two union branches, a name goavro spells otherwise) is counted
// as not representable.

// goTypeFor builds the Go type for reader schema s, or false.
func goTypeFor(s avro.Schema, open map[avro.Schema]bool) (reflect.Type, bool) {
	switch t := s.(type) {
	case *avro.Primitive:
		lt := ""
		if t.Logical != nil {
			lt = t.Logical.Name
		}
		switch t.Kind {
		case avro.TypeNull:
			return reflect.TypeFor[struct{}](), true
		case avro.TypeBoolean:
			return reflect.TypeFor[bool](), true
		case avro.TypeInt:
			switch lt {
			case "date":
				return reflect.TypeFor[time.Time](), true
			case "time-millis":
				return reflect.TypeFor[time.Duration](), true
			}
			return reflect.TypeFor[int32](), true
		case avro.TypeLong:
			switch lt {
			case "timestamp-millis", "timestamp-micros":
				return reflect.TypeFor[time.Time](), true
			case "time-micros":
				return reflect.TypeFor[time.Duration](), true
			}
			return reflect.TypeFor[int64](), true
		case avro.TypeFloat:
			return reflect.TypeFor[float32](), true
		case avro.TypeDouble:
			return reflect.TypeFor[float64](), true
		case avro.TypeString:
			return reflect.TypeFor[string](), true
		case avro.TypeBytes:
			if lt == "decimal" {
				return reflect.TypeFor[*big.Rat](), true
			}
			return reflect.TypeFor[[]byte](), true
		}
	case *avro.Enum:
		return reflect.TypeFor[string](), true
	case *avro.Fixed:
		if t.Logical != nil && t.Logical.Name == "decimal" {
			return reflect.TypeFor[*big.Rat](), true
		}
		return reflect.TypeFor[[]byte](), true
	case *avro.Array:
		et, ok := goTypeFor(t.Items, open)
		if !ok {
			return nil, false
		}
		return reflect.SliceOf(et), true
	case *avro.Map:
		et, ok := goTypeFor(t.Values, open)
		if !ok {
			return nil, false
		}
		return reflect.MapOf(reflect.TypeFor[string](), et), true
	case *avro.Union:
		var nonNull []avro.Schema
		hasNull := false
		for _, b := range t.Branches {
			if b.Type() == avro.TypeNull {
				hasNull = true
			} else {
				nonNull = append(nonNull, b)
			}
		}
		switch len(nonNull) {
		case 0:
			return reflect.TypeFor[struct{}](), true
		case 1:
			et, ok := goTypeFor(nonNull[0], open)
			if hasNull && ok {
				if et.Kind() == reflect.Pointer {
					return nil, false // *big.Rat is nil-able already, but ambiguous
				}
				return reflect.PointerTo(et), true
			}
			return et, ok
		}
		return reflect.TypeFor[any](), true // plain values
	case *avro.Record:
		if open[t] {
			return reflect.TypeFor[any](), true // recursive: plain values
		}
		open[t] = true
		defer delete(open, t)
		fields := make([]reflect.StructField, 0, len(t.Fields))
		for i, f := range t.Fields {
			ft, ok := goTypeFor(f.Type, open)
			if !ok {
				return nil, false
			}
			fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(i), Type: ft, Tag: reflect.StructTag(`avro:"` + f.Name + `"`)})
		}
		return reflect.StructOf(fields), true
	}
	return nil, false
}

// nativeOf turns a value decoded into goTypeFor(s) back into a goavro
// native datum of s.
func nativeOf(s avro.Schema, v reflect.Value) any {
	if v.Kind() == reflect.Interface {
		n, ok := plainToNative(s, v.Interface())
		if !ok {
			return fmt.Sprintf("test: plain value %#v does not fit %s", v.Interface(), avro.TypeName(s))
		}
		return n
	}
	switch t := s.(type) {
	case *avro.Union:
		var branch avro.Schema
		for _, b := range t.Branches {
			if b.Type() != avro.TypeNull {
				branch = b
			}
		}
		if branch == nil {
			return nil
		}
		hasNull := len(t.Branches) == 2
		if hasNull {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		return goavro.Union(unionKey(branch), nativeOf(branch, v))
	case *avro.Record:
		m := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			m[f.Name] = nativeOf(f.Type, v.Field(i))
		}
		return m
	case *avro.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = nativeOf(t.Items, v.Index(i))
		}
		return out
	case *avro.Map:
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			out[it.Key().String()] = nativeOf(t.Values, it.Value())
		}
		return out
	case *avro.Primitive:
		if t.Kind == avro.TypeNull {
			return nil
		}
	}
	return v.Interface()
}

// errAmbiguous marks a plain value that fits two union branches.
var errAmbiguous = errors.New("test: the plain value fits several union branches")

// plainToNative turns a plain value (what avrobind stores in an any) back
// into a goavro native datum of s, picking a union's branch by the value's
// shape; false when x does not fit s.
func plainToNative(s avro.Schema, x any) (any, bool) {
	switch t := s.(type) {
	case *avro.Union:
		var out any
		fits := 0
		for _, b := range t.Branches {
			if b.Type() == avro.TypeNull {
				if x == nil {
					return nil, true
				}
				continue
			}
			if n, ok := plainToNative(b, x); ok {
				if fits == 0 {
					out = goavro.Union(unionKey(b), n)
				}
				fits++
			}
		}
		if fits > 1 {
			// Two branches of the same shape (records with the same
			// fields): the plain value does not say which one was read.
			return errAmbiguous, true
		}
		return out, fits == 1
	case *avro.Record:
		m, ok := x.(map[string]any)
		if !ok || len(m) != len(t.Fields) {
			return nil, false
		}
		out := make(map[string]any, len(m))
		for _, f := range t.Fields {
			v, present := m[f.Name]
			if !present {
				return nil, false
			}
			if out[f.Name], ok = plainToNative(f.Type, v); !ok {
				return nil, false
			}
		}
		return out, true
	case *avro.Array:
		items, ok := x.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, len(items))
		for i, v := range items {
			if out[i], ok = plainToNative(t.Items, v); !ok {
				return nil, false
			}
		}
		return out, true
	case *avro.Map:
		m, ok := x.(map[string]any)
		if !ok {
			return nil, false
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			if out[k], ok = plainToNative(t.Values, v); !ok {
				return nil, false
			}
		}
		return out, true
	case *avro.Enum:
		sym, ok := x.(string)
		return sym, ok && t.HasSymbol(sym)
	case *avro.Fixed:
		if t.Logical != nil && t.Logical.Name == "decimal" {
			_, ok := x.(*big.Rat)
			return x, ok
		}
		b, ok := x.([]byte)
		return b, ok && len(b) == t.Size
	case *avro.Primitive:
		want, ok := goTypeFor(t, nil)
		if !ok || x == nil {
			return nil, t.Kind == avro.TypeNull && x == nil
		}
		if t.Kind == avro.TypeNull {
			return nil, false
		}
		return x, reflect.TypeOf(x) == want
	}
	return nil, false
}

func unionKey(b avro.Schema) string {
	if p, ok := b.(*avro.Primitive); ok && p.Logical != nil {
		switch string(p.Kind) + "." + p.Logical.Name {
		case "int.date", "int.time-millis", "long.time-micros", "long.timestamp-millis", "long.timestamp-micros", "bytes.decimal":
			return string(p.Kind) + "." + p.Logical.Name
		}
	}
	return avro.TypeName(b)
}

// bindJSON decodes data (written with w) into the Go type for reader r
// with avrobind and prints the result as Avro JSON. bound is false when r
// has no Go type (or goavro cannot encode r).
func bindJSON(w, r avro.Schema, readerText string, data []byte) (out []byte, bound bool, err error) {
	typ, ok := goTypeFor(r, map[avro.Schema]bool{})
	if !ok {
		return nil, false, nil
	}
	codec, cerr := goavro.NewCodec(readerText)
	if cerr != nil {
		return nil, false, nil
	}
	plan, err := avrobind.Compile(w, r, typ)
	if err != nil {
		return nil, true, err
	}
	dst := reflect.New(typ)
	if err := plan.Decode(data, dst.Interface()); err != nil {
		return nil, true, err
	}
	native := nativeOf(r, dst.Elem())
	if containsAmbiguous(native) {
		return nil, false, nil
	}
	bin, err := codec.BinaryFromNative(nil, native)
	if err != nil {
		// goavro names a null-namespace type inside a namespace after the
		// enclosing namespace; such a reader cannot be printed this way.
		if strings.Contains(err.Error(), "no member schema types support datum") {
			return nil, false, nil
		}
		return nil, true, fmt.Errorf("test: goavro cannot re-encode the decoded value: %w", err)
	}
	// The printer reads r as itself; aliases would rename fields onto
	// each other there, so it gets r without them.
	plain, err := avro.Parse(withoutAliases([]byte(readerText)))
	if err != nil {
		return nil, true, fmt.Errorf("test: %w", err)
	}
	id, err := resolve.Compile(plain, plain)
	if err != nil {
		return nil, true, fmt.Errorf("test: %w", err)
	}
	out, err = id.DecodeJSON(bin)
	return out, true, err
}

func withoutAliases(js []byte) []byte {
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return js
	}
	var strip func(any)
	strip = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			delete(t, "aliases")
			for _, x := range t {
				strip(x)
			}
		case []any:
			for _, x := range t {
				strip(x)
			}
		}
	}
	strip(v)
	out, _ := json.Marshal(v)
	return out
}

func containsAmbiguous(v any) bool {
	switch t := v.(type) {
	case error:
		return t == errAmbiguous
	case map[string]any:
		for _, x := range t {
			if containsAmbiguous(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if containsAmbiguous(x) {
				return true
			}
		}
	}
	return false
}

// TestBindMatchesResolve runs every table case through avrobind and
// compares with resolve (checked against Java by TestJavaOracle), without
// Java: same values, same failures, same compile errors.
func TestBindMatchesResolve(t *testing.T) {
	bound, unbound := 0, 0
	for _, tc := range allCases() {
		w, r := mustParse(t, tc.writer), mustParse(t, tc.reader)
		if tc.compileErr {
			typ, ok := goTypeFor(r, map[avro.Schema]bool{})
			if !ok {
				unbound++
				continue
			}
			bound++
			if _, err := avrobind.Compile(w, r, typ); !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: avrobind.Compile = %v, want %v", tc.name, err, tc.wantErr)
			}
			continue
		}
		data := encode(t, tc.writer, tc.datum)
		got, ok, err := bindJSON(w, r, tc.reader, data)
		if !ok {
			unbound++
			continue
		}
		bound++
		res, rerr := resolve.Compile(w, r)
		var want []byte
		if rerr == nil {
			want, rerr = res.DecodeJSON(data)
		}
		switch {
		case rerr != nil && err == nil:
			t.Errorf("%s: resolve fails (%v), avrobind reads %s", tc.name, rerr, got)
		case rerr == nil && err != nil:
			t.Errorf("%s: resolve reads %s, avrobind fails: %v", tc.name, want, err)
		case rerr != nil:
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: avrobind error %v, want %v", tc.name, err, tc.wantErr)
			}
		case string(got) != string(want):
			t.Errorf("%s:\nresolve  %s\navrobind %s", tc.name, want, got)
		}
	}
	t.Logf("%d cases bound to Go types, %d not representable", bound, unbound)
	if bound == 0 {
		t.Fatal("no case was bound")
	}
}

// TestJavaOracleBind is TestJavaOracle for avrobind: every table case whose
// reader has a Go type, decoded into it, equals Avro Java's reading.
func TestJavaOracleBind(t *testing.T) {
	java := javaoracle.Compile(t, "testdata/oracle/Oracle.java", "Oracle")
	var cases []resolveCase
	for _, tc := range allCases() {
		if !tc.compileErr {
			cases = append(cases, tc)
		}
	}
	root := t.TempDir()
	for i, tc := range cases {
		writeCase(t, filepath.Join(root, strconv.Itoa(i)), tc.writer, tc.reader, encode(t, tc.writer, tc.datum))
	}
	lines := javaLines(t, java, root, len(cases))
	stats := map[string]int{}
	for i, tc := range cases {
		got, bound, err := bindJSON(mustParse(t, tc.writer), mustParse(t, tc.reader), tc.reader, encode(t, tc.writer, tc.datum))
		if !bound {
			stats["not representable"]++
			continue
		}
		if why, ok := javaDeviations[tc.name]; ok {
			stats["deviation"]++
			t.Logf("%s: deviation (%s): java %s, avrobind %s %v", tc.name, why, lines[i], got, err)
			continue
		}
		stats[compareJava(t, tc.name, lines[i], got, err)]++
	}
	t.Logf("%d cases: %v", len(cases), stats)
}

// TestJavaOracleRandomBind is TestJavaOracleRandom for avrobind: the same
// random pairs (same seed), each whose reader has a Go type.
func TestJavaOracleRandomBind(t *testing.T) { randomBindOracle(t, false) }

// TestJavaOracleRandomNamesBind is TestJavaOracleRandomBind with renamed
// named types and named decoys in reader unions (see
// TestJavaOracleRandomNames): avrobind's union branch choice against Java's.
func TestJavaOracleRandomNamesBind(t *testing.T) { randomBindOracle(t, true) }

func randomBindOracle(t *testing.T, names bool) {
	java := javaoracle.Compile(t, "testdata/oracle/Oracle.java", "Oracle")
	root := t.TempDir()
	pairs := randomPairs(t, names, root)
	lines := javaLines(t, java, root, len(pairs))
	stats := map[string]int{}
	for i, p := range pairs {
		got, bound, err := bindJSON(mustParse(t, p.w), mustParse(t, p.r), p.r, p.data)
		javaOK, javaOut, _ := strings.Cut(lines[i], " ")
		switch {
		case !bound:
			stats["not representable"]++
		case javaOK == "ERR" && strings.Contains(javaOut, "Collection claims"):
			stats["java collection-size bug"]++
		case javaOK == "OK" && javaOut == "" && err == nil && strings.Contains(p.r, `"fields":[]`):
			stats["java empty-record encoder quirk"]++
		default:
			stats[compareJava(t, fmt.Sprintf("pair %d (writer %s, reader %s)", i, p.w, p.r), lines[i], got, err)]++
		}
	}
	t.Logf("%d pairs: %v", len(pairs), stats)
	if stats["identical"]+stats["same value"] == 0 {
		t.Error("no random pair was bound and read")
	}
}

func writeCase(t *testing.T, dir, w, r string, data []byte) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "w.avsc"), []byte(w), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "r.avsc"), []byte(r), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "d.bin"), data, 0o644))
}

func javaLines(t *testing.T, java *javaoracle.Program, root string, n int) []string {
	t.Helper()
	out := java.Run(t, "", root, strconv.Itoa(n))
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("java printed %d lines for %d cases", len(lines), n)
	}
	return lines
}

// compareJava compares avrobind's result with one oracle line ("OK json"
// or "ERR message") and returns the outcome's name.
func compareJava(t *testing.T, name, line string, got []byte, err error) string {
	t.Helper()
	javaOK, javaOut, _ := strings.Cut(line, " ")
	switch {
	case javaOK == "ERR" && err == nil:
		t.Errorf("%s: java fails (%s), avrobind reads %s", name, javaOut, got)
		return "mismatch"
	case javaOK == "OK" && err != nil:
		t.Errorf("%s: java reads %s, avrobind fails: %v", name, javaOut, err)
		return "mismatch"
	case javaOK == "ERR":
		return "both fail"
	case string(got) == javaOut:
		return "identical"
	case sameJSON(got, []byte(javaOut)):
		return "same value"
	}
	t.Errorf("%s:\n    java %s\navrobind %s", name, javaOut, got)
	return "mismatch"
}

// plainOf is what the generic path hands an `any`: resolve's native value
// with unions unwrapped (consumer's plainAvro).
func plainOf(s avro.Schema, v any) any {
	switch t := s.(type) {
	case *avro.Union:
		if v == nil {
			return nil
		}
		for key, val := range v.(map[string]any) {
			var match avro.Schema
			for _, b := range t.Branches {
				if unionKey(b) == key || avro.TypeName(b) == key || strings.HasSuffix(key, "."+avro.TypeName(b)) {
					match = b
				}
			}
			if match == nil {
				return fmt.Sprintf("test: no branch for key %q", key)
			}
			return plainOf(match, val)
		}
	case *avro.Record:
		m := v.(map[string]any)
		out := make(map[string]any, len(m))
		for _, f := range t.Fields {
			out[f.Name] = plainOf(f.Type, m[f.Name])
		}
		return out
	case *avro.Array:
		items := v.([]any)
		out := make([]any, len(items))
		for i, x := range items {
			out[i] = plainOf(t.Items, x)
		}
		return out
	case *avro.Map:
		m := v.(map[string]any)
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = plainOf(t.Values, x)
		}
		return out
	}
	return v
}

// TestBindAnyMatchesResolve: decoding into `any` (avrobind's plain values)
// gives what the generic path gives (resolve, unions unwrapped) for every
// table case and the random pairs, failures included.
func TestBindAnyMatchesResolve(t *testing.T) {
	type pair struct {
		name, w, r string
		data       []byte
	}
	var pairs []pair
	for _, tc := range allCases() {
		if !tc.compileErr {
			pairs = append(pairs, pair{tc.name, tc.writer, tc.reader, encode(t, tc.writer, tc.datum)})
		}
	}
	g := &gen{rng: rand.New(rand.NewSource(7))}
	for len(pairs) < 400 {
		w := g.record(3)
		r := g.evolve(w, map[*gs]*gs{})
		codec, err := goavro.NewCodec(w.String())
		if err != nil {
			continue
		}
		data, err := codec.BinaryFromNative(nil, g.datum(w))
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{fmt.Sprintf("random %d", len(pairs)), w.String(), r.String(), data})
	}
	stats := map[string]int{}
	for _, p := range pairs {
		w, r := mustParse(t, p.w), mustParse(t, p.r)
		var want any
		res, rerr := resolve.Compile(w, r)
		if rerr == nil {
			var v any
			if v, rerr = res.Decode(p.data); rerr == nil {
				want = plainOf(r, v)
			}
		}
		var got any
		plan, err := avrobind.Compile(w, r, reflect.TypeFor[any]())
		if err == nil {
			err = plan.Decode(p.data, &got)
		}
		switch {
		case (rerr == nil) != (err == nil):
			t.Errorf("%s: resolve %v, avrobind %v\nwriter %s\nreader %s", p.name, rerr, err, p.w, p.r)
		case rerr != nil:
			stats["both fail"]++
		case !reflect.DeepEqual(normRat(got), normRat(want)):
			t.Errorf("%s:\n resolve  %#v\n avrobind %#v\nwriter %s\nreader %s", p.name, want, got, p.w, p.r)
		default:
			stats["same"]++
		}
	}
	t.Logf("%d pairs: %v", len(pairs), stats)
}

// normRat makes *big.Rat values comparable with reflect.DeepEqual.
func normRat(v any) any {
	switch t := v.(type) {
	case *big.Rat:
		return t.RatString()
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normRat(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normRat(x)
		}
		return out
	}
	return v
}
