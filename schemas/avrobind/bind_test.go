package avrobind_test

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

func parse(t testing.TB, s string) avro.Schema {
	t.Helper()
	sc, err := avro.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return sc
}

func encode(t testing.TB, schema string, datum any) []byte {
	t.Helper()
	c, err := goavro.NewCodec(schema)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.BinaryFromNative(nil, datum)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const writerV1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[
 {"name":"orderId","type":"string"},
 {"name":"amount","type":"int"},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","LOST"]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"dropped","type":{"type":"map","values":{"type":"array","items":"string"}}},
 {"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}}
]}`

const readerV1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[
 {"name":"id","type":"string","aliases":["orderId"]},
 {"name":"amount","type":"long"},
 {"name":"currency","type":"string","default":"EUR"},
 {"name":"tags","type":{"type":"array","items":"string"},"default":["a","b"]},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"],"default":"NEW"}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"double"}]}}}
]}`

type line struct {
	SKU string  `avro:"sku"`
	Qty float64 `avro:"qty"`
}

type order struct {
	ID        string    `avro:"id"`
	Amount    int64     `avro:"amount"`
	Currency  string    `avro:"currency"`
	Tags      []string  `avro:"tags"`
	Status    string    `avro:"status"`
	Note      *string   `avro:"note"`
	CreatedAt time.Time `avro:"createdAt"`
	Lines     []line    `avro:"lines"`
	Local     string    `avro:"-"`
}

func datum(status string, note any) map[string]any {
	return map[string]any{
		"orderId": "o-1", "amount": int32(1250), "status": status, "note": note,
		"dropped":   map[string]any{"k": []any{"x", "y"}},
		"createdAt": time.UnixMilli(1700000000123).UTC(),
		"lines":     []any{map[string]any{"sku": "A", "qty": int32(2)}, map[string]any{"sku": "B", "qty": int32(-1)}},
	}
}

func TestDecodeEvolved(t *testing.T) {
	w, r := parse(t, writerV1), parse(t, readerV1)
	p, err := avrobind.Compile(w, r, reflect.TypeFor[order]())
	if err != nil {
		t.Fatal(err)
	}
	gift := "gift"
	want := order{ID: "o-1", Amount: 1250, Currency: "EUR", Tags: []string{"a", "b"}, Status: "NEW", Note: &gift,
		CreatedAt: time.UnixMilli(1700000000123).UTC(), Lines: []line{{"A", 2}, {"B", -1}}, Local: "kept"}
	got := order{Local: "kept"}
	if err := p.Decode(encode(t, writerV1, datum("LOST", goavro.Union("string", "gift"))), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// The default is fresh for every datum.
	got.Tags[0] = "changed"
	var again order
	if err := p.Decode(encode(t, writerV1, datum("PAID", nil)), &again); err != nil {
		t.Fatal(err)
	}
	if again.Tags[0] != "a" || again.Note != nil || again.Status != "PAID" {
		t.Errorf("second decode: %+v", again)
	}
	// The same datum through resolve agrees.
	res, err := resolve.Compile(w, r)
	if err != nil {
		t.Fatal(err)
	}
	v, err := res.Decode(encode(t, writerV1, datum("PAID", nil)))
	if err != nil {
		t.Fatal(err)
	}
	if m := v.(map[string]any); m["id"] != again.ID || m["amount"] != again.Amount || m["currency"] != again.Currency {
		t.Errorf("resolve %v, avrobind %+v", m, again)
	}
}

func TestDecodeErrors(t *testing.T) {
	w, r := parse(t, writerV1), parse(t, readerV1)
	p, err := avrobind.Compile(w, r, reflect.TypeFor[order]())
	if err != nil {
		t.Fatal(err)
	}
	good := encode(t, writerV1, datum("PAID", nil))
	for n := 0; n < len(good); n++ {
		var o order
		if err := p.Decode(good[:n], &o); !errors.Is(err, resolve.ErrDecode) {
			t.Fatalf("truncated at %d: err = %v, want ErrDecode", n, err)
		}
	}
	var o order
	if err := p.Decode(append(good, 0), &o); !errors.Is(err, resolve.ErrDecode) || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("trailing byte: %v", err)
	}
	// An enum symbol the reader lacks, with no reader default.
	strict := strings.Replace(readerV1, `,"default":"NEW"`, ``, 1)
	ps, err := avrobind.Compile(w, parse(t, strict), reflect.TypeFor[order]())
	if err != nil {
		t.Fatal(err)
	}
	err = ps.Decode(encode(t, writerV1, datum("LOST", nil)), &o)
	var de *avrobind.Error
	if !errors.Is(err, resolve.ErrEnumSymbol) || !errors.As(err, &de) || de.Path != "status" {
		t.Errorf("lost symbol: %v", err)
	}
	// A bad item deep inside names its place.
	bad := encode(t, writerV1, datum("PAID", nil))
	if err := p.Decode(bad[:len(bad)-3], &o); !errors.As(err, &de) || de.Path != "lines[1].sku" {
		t.Errorf("path of a truncated item: %v", err)
	}
	if err := p.Decode(good, o); err == nil {
		t.Error("decode into a non-pointer succeeded")
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name, writer, reader string
		typ                  reflect.Type
		want                 error
	}{
		{"missing default", `{"type":"record","name":"R","fields":[]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
			reflect.TypeFor[struct{ A int32 }](), resolve.ErrMissingDefault},
		{"type mismatch", `"string"`, `"int"`, reflect.TypeFor[int32](), resolve.ErrIncompatible},
		{"string field for an int", `"int"`, `"int"`, reflect.TypeFor[string](), avrobind.ErrType},
		{"int32 for a long", `"long"`, `"long"`, reflect.TypeFor[int32](), avrobind.ErrType},
		{"struct for an array", `{"type":"array","items":"int"}`, `{"type":"array","items":"int"}`, reflect.TypeFor[struct{}](), avrobind.ErrType},
		{"channel", `"int"`, `"int"`, reflect.TypeFor[chan int](), avrobind.ErrUnsupported},
		{"record into another map type", `{"type":"record","name":"R","fields":[]}`, `{"type":"record","name":"R","fields":[]}`, reflect.TypeFor[map[string]string](), avrobind.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := avrobind.Compile(parse(t, c.writer), parse(t, c.reader), c.typ)
			if !errors.Is(err, c.want) {
				t.Errorf("Compile = %v, want %v", err, c.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	r := parse(t, readerV1)
	if err := avrobind.Check(r, reflect.TypeFor[order](), false); err != nil {
		t.Errorf("Check(order) = %v", err)
	}
	type typo struct {
		ID       string `avro:"id"`
		Curreny  string `avro:"curreny"`
		Internal int    `avro:"-"`
		Amount   int64
	}
	err := avrobind.Check(r, reflect.TypeFor[typo](), false)
	var ue *avrobind.UnmappedError
	if !errors.Is(err, avrobind.ErrUnmappedField) || !errors.As(err, &ue) || ue.Field != "typo.Curreny" || ue.Record != "com.acme.order.OrderCreated" {
		t.Errorf("Check(typo) = %v", err)
	}
	if err := avrobind.Check(r, reflect.TypeFor[typo](), true); err != nil {
		t.Errorf("Check(typo, allowUnmapped) = %v", err)
	}
	type wrong struct {
		Amount int32 `avro:"amount"`
	}
	if err := avrobind.Check(r, reflect.TypeFor[wrong](), true); !errors.Is(err, avrobind.ErrType) || !strings.Contains(err.Error(), "wrong.Amount") {
		t.Errorf("Check(wrong) = %v", err)
	}
	type wrongUnion struct {
		U *string `avro:"u"`
	}
	if err := avrobind.Check(parse(t, `{"type":"record","name":"U","fields":[{"name":"u","type":["null","int","string"]}]}`), reflect.TypeFor[wrongUnion](), false); !errors.Is(err, avrobind.ErrType) {
		t.Errorf("Check(union with an int branch into *string) = %v", err)
	}
}

func TestLogicalAndFixed(t *testing.T) {
	schema := `{"type":"record","name":"L","fields":[
	 {"name":"d","type":{"type":"int","logicalType":"date"}},
	 {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
	 {"name":"tu","type":{"type":"long","logicalType":"time-micros"}},
	 {"name":"us","type":{"type":"long","logicalType":"timestamp-micros"}},
	 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
	 {"name":"fd","type":{"type":"fixed","name":"FD","size":4,"logicalType":"decimal","precision":6,"scale":1}},
	 {"name":"f","type":{"type":"fixed","name":"F","size":3}},
	 {"name":"fs","type":"F"},
	 {"name":"id","type":{"type":"string","logicalType":"uuid"}},
	 {"name":"m","type":{"type":"map","values":["null","long"]}},
	 {"name":"fl","type":"float"}]}`
	type L struct {
		D   time.Time         `avro:"d"`
		TM  time.Duration     `avro:"tm"`
		TU  time.Duration     `avro:"tu"`
		US  time.Time         `avro:"us"`
		Dec *big.Rat          `avro:"dec"`
		FD  big.Rat           `avro:"fd"`
		F   [3]byte           `avro:"f"`
		FS  []byte            `avro:"fs"`
		ID  string            `avro:"id"`
		M   map[string]*int64 `avro:"m"`
		FL  float64           `avro:"fl"`
	}
	in := map[string]any{"d": time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "tm": 90 * time.Second, "tu": 3 * time.Microsecond,
		"us": time.UnixMicro(-1700000000123456).UTC(), "dec": big.NewRat(-12345, 100), "fd": big.NewRat(15, 10),
		"f": []byte{1, 2, 3}, "fs": []byte{4, 5, 6}, "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
		"m": map[string]any{"a": goavro.Union("long", int64(-7)), "n": nil}, "fl": float32(0.1)}
	s := parse(t, schema)
	p, err := avrobind.Compile(s, s, reflect.TypeFor[L]())
	if err != nil {
		t.Fatal(err)
	}
	var got L
	if err := p.Decode(encode(t, schema, in), &got); err != nil {
		t.Fatal(err)
	}
	seven := int64(-7)
	want := L{D: in["d"].(time.Time), TM: 90 * time.Second, TU: 3 * time.Microsecond, US: in["us"].(time.Time),
		Dec: big.NewRat(-12345, 100), F: [3]byte{1, 2, 3}, FS: []byte{4, 5, 6}, ID: in["id"].(string),
		M: map[string]*int64{"a": &seven, "n": nil}, FL: float64(float32(0.1))}
	want.FD.SetFrac64(15, 10)
	if got.Dec.Cmp(want.Dec) != 0 || got.FD.Cmp(&want.FD) != 0 {
		t.Errorf("decimals %s %s", got.Dec, got.FD.String())
	}
	got.Dec, want.Dec = nil, nil
	got.FD, want.FD = big.Rat{}, big.Rat{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestCheckAroundInterfaces(t *testing.T) {
	r := parse(t, readerV1)
	type withAny struct {
		ID    string           `avro:"id"`
		Lines []map[string]any `avro:"lines"`
		Note  any              `avro:"note"`
		Typo  int              `avro:"amout"`
	}
	err := avrobind.Check(r, reflect.TypeFor[withAny](), false)
	var ue *avrobind.UnmappedError
	if !errors.As(err, &ue) || ue.Name != "amout" {
		t.Errorf("Check = %v, want the unmapped amout", err)
	}
	if _, err := avrobind.Compile(r, r, reflect.TypeFor[withAny]()); err != nil {
		t.Errorf("Compile = %v", err)
	}
}

type node struct {
	V    int32 `avro:"v"`
	Next *node `avro:"next"`
}

func TestRecursiveAndContainers(t *testing.T) {
	schema := `{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}`
	s := parse(t, schema)
	p, err := avrobind.Compile(s, s, reflect.TypeFor[node]())
	if err != nil {
		t.Fatal(err)
	}
	var n node
	in := map[string]any{"v": int32(1), "next": goavro.Union("Node", map[string]any{"v": int32(2), "next": nil})}
	if err := p.Decode(encode(t, schema, in), &n); err != nil {
		t.Fatal(err)
	}
	if n.V != 1 || n.Next == nil || n.Next.V != 2 || n.Next.Next != nil {
		t.Errorf("got %+v %+v", n, n.Next)
	}

	// A writer union read as a plain reader type, a map of records, and
	// arrays in several blocks.
	w := `{"type":"record","name":"C","fields":[
	 {"name":"u","type":["int","long"]},
	 {"name":"m","type":{"type":"map","values":{"type":"record","name":"I","fields":[{"name":"s","type":"string"}]}}},
	 {"name":"a","type":{"type":"array","items":"long"}}]}`
	r := `{"type":"record","name":"C","fields":[
	 {"name":"u","type":"double"},
	 {"name":"m","type":{"type":"map","values":{"type":"record","name":"I","fields":[{"name":"s","type":"bytes"}]}}},
	 {"name":"a","type":{"type":"array","items":"double"}}]}`
	type item struct {
		S []byte `avro:"s"`
	}
	type c struct {
		U float64         `avro:"u"`
		M map[string]item `avro:"m"`
		A []float64       `avro:"a"`
	}
	pc, err := avrobind.Compile(parse(t, w), parse(t, r), reflect.TypeFor[c]())
	if err != nil {
		t.Fatal(err)
	}
	// u: branch 1 (long) 3; m: one block of 2; a: two blocks, the second
	// with a byte size (negative count), then the end.
	data := []byte{0x02, 0x06,
		0x04, 0x02, 'x', 0x02, 'a', 0x02, 'y', 0x02, 'b', 0x00,
		0x02, 0x02, 0x03, 0x04, 0x06, 0x08, 0x00}
	var got c
	if err := pc.Decode(data, &got); err != nil {
		t.Fatal(err)
	}
	want := c{U: 3, M: map[string]item{"x": {[]byte("a")}, "y": {[]byte("b")}}, A: []float64{1, 3, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestCacheConcurrent(t *testing.T) {
	w, r := parse(t, writerV1), parse(t, readerV1)
	data := encode(t, writerV1, datum("PAID", nil))
	var cache avrobind.Cache
	loads := make(chan struct{}, 100)
	done := make(chan error)
	for range 8 {
		go func() {
			for range 50 {
				p, err := cache.Plan(7, r, reflect.TypeFor[order](), func(int) (avro.Schema, error) {
					loads <- struct{}{}
					return w, nil
				})
				if err != nil {
					done <- err
					return
				}
				var o order
				if err := p.Decode(data, &o); err != nil || o.ID != "o-1" {
					done <- fmt.Errorf("decode: %v %+v", err, o)
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if len(loads) != 1 || cache.Len() != 1 {
		t.Errorf("%d loads, %d plans, want 1 and 1", len(loads), cache.Len())
	}
	if _, err := cache.Plan(8, r, reflect.TypeFor[order](), func(int) (avro.Schema, error) { return nil, errors.New("registry down") }); err == nil || cache.Len() != 1 {
		t.Errorf("a failed load: %v, %d plans (the failure is not cached)", err, cache.Len())
	}
}

type envelope struct {
	ID string `avro:"id"`
}

type withEmbedded struct {
	envelope
	Amount int64 `avro:"amount"`
	Audit  `avro:"-"`
}

type Audit struct{ By string }

func TestEmbeddedStructs(t *testing.T) {
	s := parse(t, `{"type":"record","name":"E","fields":[{"name":"id","type":"string"},{"name":"amount","type":"long"}]}`)
	if err := avrobind.Check(s, reflect.TypeFor[withEmbedded](), false); err != nil {
		t.Fatalf("Check = %v", err)
	}
	p, err := avrobind.Compile(s, s, reflect.TypeFor[withEmbedded]())
	if err != nil {
		t.Fatal(err)
	}
	var got withEmbedded
	if err := p.Decode(encode(t, `{"type":"record","name":"E","fields":[{"name":"id","type":"string"},{"name":"amount","type":"long"}]}`, map[string]any{"id": "x", "amount": int64(3)}), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "x" || got.Amount != 3 {
		t.Errorf("got %+v", got)
	}
	type extra struct {
		envelope
		Zip string
	}
	var ue *avrobind.UnmappedError
	if err := avrobind.Check(s, reflect.TypeFor[struct {
		extra
	}](), false); !errors.As(err, &ue) || !strings.HasSuffix(ue.Field, ".extra.Zip") {
		t.Errorf("unmapped promoted field: %v", err)
	}
}
