package schemas

import (
	"errors"
	"testing"
)

func TestSubjectName(t *testing.T) {
	cases := []struct {
		s    Strategy
		want string
	}{
		{TopicNameStrategy, "orders-value"},
		{RecordNameStrategy, "com.acme.order.v2.OrderCreated"},
		{TopicRecordNameStrategy, "orders-com.acme.order.v2.OrderCreated"},
	}
	for _, tc := range cases {
		if got := SubjectName(tc.s, "orders", "com.acme.order.v2.OrderCreated"); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestParseStrategy(t *testing.T) {
	for in, want := range map[string]Strategy{
		"":                  TopicRecordNameStrategy,
		"topic":             TopicNameStrategy,
		"TopicNameStrategy": TopicNameStrategy,
		"record-name":       RecordNameStrategy,
		"topic_record":      TopicRecordNameStrategy,
		"io.confluent.kafka.serializers.subject.TopicRecordNameStrategy": TopicRecordNameStrategy,
	} {
		got, err := ParseStrategy(in)
		if err != nil || got != want {
			t.Errorf("ParseStrategy(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseStrategy("random"); !errors.Is(err, ErrUnknownStrategy) {
		t.Errorf("got %v, want ErrUnknownStrategy", err)
	}
}

func TestEvent(t *testing.T) {
	n, err := Event(DefaultStrategy, "orders", "com.acme.order", "OrderCreated", 2)
	if err != nil {
		t.Fatal(err)
	}
	want := EventNaming{
		RecordNamespace: "com.acme.order.v2",
		RecordName:      "OrderCreated",
		RecordFullName:  "com.acme.order.v2.OrderCreated",
		Subject:         "orders-com.acme.order.v2.OrderCreated",
		File:            "OrderCreated.v2.avsc",
	}
	if n != want {
		t.Errorf("got %+v\nwant %+v", n, want)
	}
	// A new major version is a new subject, except under TopicNameStrategy.
	v1, _ := Event(DefaultStrategy, "orders", "com.acme.order", "OrderCreated", 1)
	if v1.Subject == n.Subject || v1.RecordFullName != "com.acme.order.v1.OrderCreated" {
		t.Errorf("v1 %+v", v1)
	}
	t1, _ := Event(TopicNameStrategy, "orders", "com.acme.order", "OrderCreated", 1)
	t2, _ := Event(TopicNameStrategy, "orders", "com.acme.order", "OrderCreated", 2)
	if t1.Subject != "orders-value" || t2.Subject != "orders-value" {
		t.Errorf("topic strategy %q %q", t1.Subject, t2.Subject)
	}
	if r, _ := Event(RecordNameStrategy, "orders", "", "OrderCreated", 3); r.Subject != "v3.OrderCreated" {
		t.Errorf("empty namespace: %+v", r)
	}
	for _, bad := range []struct {
		s                Strategy
		topic, ns, event string
		major            int
	}{
		{DefaultStrategy, "", "a", "E", 1},
		{DefaultStrategy, "t", "a", "1E", 1},
		{DefaultStrategy, "t", "a..b", "E", 1},
		{DefaultStrategy, "t", "a", "E", 0},
		{"Other", "t", "a", "E", 1},
	} {
		if _, err := Event(bad.s, bad.topic, bad.ns, bad.event, bad.major); err == nil {
			t.Errorf("Event(%+v) accepted", bad)
		}
	}
}

func TestSchemaFileName(t *testing.T) {
	if got := SchemaFileName("OrderCreated", 2); got != "OrderCreated.v2.avsc" {
		t.Errorf("got %q", got)
	}
	if e, m, ok := ParseSchemaFileName("OrderCreated.v12.avsc"); !ok || e != "OrderCreated" || m != 12 {
		t.Errorf("got %q %d %v", e, m, ok)
	}
	for _, bad := range []string{"OrderCreated.avsc", "OrderCreated.v0.avsc", "x/OrderCreated.v1.avsc", "OrderCreated.v1.json"} {
		if _, _, ok := ParseSchemaFileName(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
