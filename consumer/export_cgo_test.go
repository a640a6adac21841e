//go:build cgo

package consumer

import "github.com/confluentinc/confluent-kafka-go/v2/kafka"

// RenderClient is c's librdkafka configuration before NewConsumer adds
// group.id and enable.auto.commit.
func RenderClient(c ConsumerConfig) (kafka.ConfigMap, error) { return c.client() }
