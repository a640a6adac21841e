package spec_test

import (
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/spec"
)

func consumersDoc(consumers string) string {
	return `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: db, user: app, dbname: shop}
    payloadFormat: json
    consumers:
` + consumers
}

func TestConsumersSpec(t *testing.T) {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(consumersDoc("      - {group: billing, dlqTopic: billing.dlq, partitions: 3}\n      - {group: shipping, dlqTopic: shipping.dlq}\n"))})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Outboxes[0].Consumers; len(c) != 2 || c[0].Group != "billing" || c[0].DLQTopic != "billing.dlq" || c[0].Partitions != 3 || c[1].DLQTopic != "shipping.dlq" {
		t.Errorf("consumers = %+v", c)
	}
	for _, tc := range []struct{ consumers, want string }{
		{"      - {dlqTopic: billing.dlq}\n", `consumers[0].group is required`},
		{"      - {group: billing}\n", `consumers[0].dlqTopic is required`},
		{"      - {group: billing, dlqTopic: \"billing dlq\"}\n", `outbox.yaml:9:36: outbox "orders": consumers[0].dlqTopic "billing dlq" is not a Kafka topic name`},
		{"      - {group: billing, dlqTopic: a}\n      - {group: billing, dlqTopic: b}\n", `consumers[1].group "billing" is declared twice`},
		{"      - {group: billing, dlqTopic: a, partitions: -1}\n", `consumers[0].partitions -1`},
		{"      - {group: billing, dlqTopic: a, topic: b}\n", `topic`},
	} {
		_, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(consumersDoc(tc.consumers))})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("consumers %q: err = %v, want %q", tc.consumers, err, tc.want)
		}
	}
}
