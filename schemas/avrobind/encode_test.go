package avrobind_test

import (
	"bytes"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
)

const orderSchema = `{"type":"record","name":"Order","namespace":"shop","fields":[
 {"name":"id","type":"string"},
 {"name":"qty","type":"int"},
 {"name":"total","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"n","type":"long"}]}}},
 {"name":"tags","type":{"type":"map","values":"string"}},
 {"name":"currency","type":"string","default":"EUR"},
 {"name":"ratio","type":"double"}]}`

type encLine struct {
	SKU string `avro:"sku"`
	N   int64
}

type encBase struct {
	ID string `avro:"id"`
}

type encOrder struct {
	encBase
	Qty    int32
	Total  *big.Rat
	At     time.Time
	Status string
	Note   *string
	Lines  []encLine
	Tags   map[string]string
	Ratio  float64
	Skip   string `avro:"-"`
}

// TestEncodeRoundTrip: Encode writes the bytes goavro writes for the same
// datum, and Decode reads them back to the same Go value. The byte
// comparisons use a one-entry map: Avro writes map entries in iteration
// order, which Go randomises (in goavro too), so two entries may come out in
// either order; a map of several entries is checked by the round trip.
func TestEncodeRoundTrip(t *testing.T) {
	s, err := avro.Parse([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	note := "gift"
	at := time.Date(2026, 12, 1, 10, 0, 0, 123456000, time.UTC)
	in := encOrder{encBase: encBase{"o-1"}, Qty: 3, Total: big.NewRat(1999, 100), At: at, Status: "PAID", Note: &note,
		Lines: []encLine{{"a", 1}, {"b", -2}}, Tags: map[string]string{"a": "2"}, Ratio: 0.5, Skip: "x"}
	got, err := avrobind.Encode(nil, s, in)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(orderSchema)
	if err != nil {
		t.Fatal(err)
	}
	want, err := codec.BinaryFromNative(nil, map[string]any{
		"id": "o-1", "qty": 3, "total": big.NewRat(1999, 100), "at": at, "status": "PAID",
		"note": goavro.Union("string", "gift"), "lines": []any{map[string]any{"sku": "a", "n": 1}, map[string]any{"sku": "b", "n": -2}},
		"tags": map[string]any{"a": "2"}, "currency": "EUR", "ratio": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode = %x\ngoavro = %x", got, want)
	}
	p, err := avrobind.Compile(s, s, reflect.TypeFor[encOrder]())
	if err != nil {
		t.Fatal(err)
	}
	var back encOrder
	if err := p.Decode(got, &back); err != nil {
		t.Fatal(err)
	}
	in.Skip = ""
	if back.Total.Cmp(in.Total) != 0 {
		t.Fatalf("total = %v", back.Total)
	}
	back.Total, in.Total = nil, nil
	if !reflect.DeepEqual(back, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, in)
	}
	// A map[string]any is a record by field name; a nil pointer is null.
	m, err := avrobind.Encode(nil, s, map[string]any{"id": "o-1", "qty": 3, "total": "19.99", "at": at, "status": "PAID",
		"note": "gift", "lines": []encLine{{"a", 1}, {"b", -2}}, "tags": map[string]string{"a": "2"}, "ratio": 0.5})
	if err != nil || !bytes.Equal(m, want) {
		t.Fatalf("map record: %v\n got %x\nwant %x", err, m, want)
	}
	// Several map entries, in whatever order they are written, read back
	// as the same map.
	in.Total = big.NewRat(1999, 100)
	in.Tags = map[string]string{"z": "1", "a": "2", "m": "3", "b": "4"}
	many, err := avrobind.Encode(nil, s, in)
	if err != nil {
		t.Fatal(err)
	}
	var back2 encOrder
	if err := p.Decode(many, &back2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back2.Tags, in.Tags) {
		t.Fatalf("tags round trip: got %v, want %v", back2.Tags, in.Tags)
	}
}

func TestEncodeMisfits(t *testing.T) {
	s, err := avro.Parse([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	ok := encOrder{encBase: encBase{"o-1"}, Total: big.NewRat(1, 1), Status: "NEW"}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"unknown enum symbol", func() encOrder { o := ok; o.Status = "LOST"; return o }(), `status: "LOST" is not a symbol of enum shop.Status`},
		{"too many fractional digits", func() encOrder { o := ok; o.Total = big.NewRat(1, 1000); return o }(), "total: "},
		{"nil decimal", func() encOrder { o := ok; o.Total = nil; return o }(), "total: nil"},
		{"wrong kind", struct{ ID int }{1}, "id: go int cannot be written as avro string"},
		{"missing field without default", struct{ ID string }{"x"}, `no go field for avro field "qty"`},
		{"not a record", 42, "go int cannot be written as avro record"},
		{"int out of range", map[string]any{"id": "x", "qty": int64(1) << 40}, "qty: 1099511627776 is out of range"},
		{"bad encLine", func() encOrder { o := ok; o.Lines = []encLine{{"a", 1}}; return o }(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			buf := []byte("keep")
			out, err := avrobind.Encode(buf, s, c.v)
			if c.want == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, avrobind.ErrEncode) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrEncode containing %q", err, c.want)
			}
			if string(out) != "keep" {
				t.Fatalf("buf changed on error: %q", out)
			}
		})
	}
}
