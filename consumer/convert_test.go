package consumer

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

type status string

func TestAssignAvro(t *testing.T) {
	parse := func(s string) avro.Schema {
		t.Helper()
		sc, err := avro.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	type inner struct {
		N int16 `avro:"n"`
	}
	cases := []struct {
		name    string
		schema  string
		value   any
		dst     any // pointer to the target type
		want    any
		wantErr string
	}{
		{"int into int16", `"int"`, int32(7), new(int16), int16(7), ""},
		{"int overflow", `"int"`, int32(70000), new(int16), nil, "overflows int16"},
		{"negative into uint", `"long"`, int64(-1), new(uint32), nil, "overflows uint32"},
		{"long into float64", `"long"`, int64(3), new(float64), float64(3), ""},
		{"float into float64", `"float"`, float32(1.5), new(float64), 1.5, ""},
		{"enum into named string", `{"type":"enum","name":"S","symbols":["A","B"]}`, "B", new(status), status("B"), ""},
		{"bytes into string", `"bytes"`, []byte("hi"), new(string), "hi", ""},
		{"fixed into array", `{"type":"fixed","name":"F","size":2}`, []byte{1, 2}, new([2]byte), [2]byte{1, 2}, ""},
		{"fixed into wrong array", `{"type":"fixed","name":"F","size":2}`, []byte{1, 2}, new([3]byte), nil, "cannot store"},
		{"null union into pointer", `["null","int"]`, nil, new(*int), (*int)(nil), ""},
		{"union branch into pointer", `["null","int"]`, map[string]any{"int": int32(4)}, new(*int), ptrTo(4), ""},
		{"union with unknown branch", `["null","int"]`, map[string]any{"long": int64(4)}, new(*int), nil, "unknown branch"},
		{"map into map[string]int", `{"type":"map","values":"long"}`, map[string]any{"a": int64(1)}, new(map[string]int), map[string]int{"a": 1}, ""},
		{"array into slice of records", `{"type":"array","items":{"type":"record","name":"I","fields":[{"name":"n","type":"int"}]}}`,
			[]any{map[string]any{"n": int32(1)}, map[string]any{"n": int32(2)}}, new([]inner), []inner{{1}, {2}}, ""},
		{"decimal into big.Rat", `{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}`, big.NewRat(314, 100), new(big.Rat), *big.NewRat(314, 100), ""},
		{"decimal into float64", `{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}`, big.NewRat(314, 100), new(float64), 3.14, ""},
		{"timestamp into time", `{"type":"long","logicalType":"timestamp-micros"}`, time.Unix(5, 0).UTC(), new(time.Time), time.Unix(5, 0).UTC(), ""},
		{"timestamp into string", `{"type":"long","logicalType":"timestamp-micros"}`, time.Unix(5, 0).UTC(), new(string), nil, "cannot store"},
		{"record into any, unions unwrapped", `{"type":"record","name":"R","fields":[{"name":"u","type":["null","string"]},{"name":"m","type":{"type":"map","values":["null","long"]}}]}`,
			map[string]any{"u": map[string]any{"string": "x"}, "m": map[string]any{"k": map[string]any{"long": int64(1)}, "z": nil}}, new(any),
			map[string]any{"u": "x", "m": map[string]any{"k": int64(1), "z": nil}}, ""},
		{"a map with a key named like a branch stays a map", `{"type":"map","values":"string"}`, map[string]any{"string": "v"}, new(any), map[string]any{"string": "v"}, ""},
		{"record field path in errors", `{"type":"record","name":"R","fields":[{"name":"in","type":{"type":"record","name":"I","fields":[{"name":"n","type":"int"}]}}]}`,
			map[string]any{"in": map[string]any{"n": int32(1 << 20)}}, new(struct{ In inner }), nil, "in.n: 1048576 overflows int16"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := reflect.ValueOf(c.dst)
			err := assignAvro(parse(c.schema), c.value, dst.Elem(), "")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := dst.Elem().Interface()
			if r, ok := got.(big.Rat); ok {
				w := c.want.(big.Rat)
				if r.Cmp(&w) != 0 {
					t.Errorf("got %s, want %s", r.String(), w.String())
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestConsumerConfigValidate(t *testing.T) {
	ok := ConsumerConfig{BootstrapServers: "b", GroupID: "g", Topics: []string{"t"}}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	bad := ConsumerConfig{Kafka: kafka.ConfigMap{"enable.auto.commit": true}}
	err := bad.Validate()
	for _, want := range []string{"BootstrapServers", "GroupID", "Topics", "enable.auto.commit"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want a mention of %s (every problem reported)", err, want)
		}
	}
	if _, err := NewConsumer(ok, nil); err == nil {
		t.Error("NewConsumer with a nil Router succeeded")
	}
}
