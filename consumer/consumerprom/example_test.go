package consumerprom_test

import (
	"fmt"
	"net/http"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// Example wires the metrics into a Router and a Consumer and serves them.
func Example() {
	reg := prometheus.NewRegistry()
	m, err := consumerprom.New(consumerprom.Config{Registerer: reg, ConstLabels: prometheus.Labels{"group": "billing"}})
	if err != nil {
		panic(err)
	}
	r, _ := consumer.NewRouter(consumer.RouterConfig{Observer: m})
	cfg := consumer.ConsumerConfig{
		Client:  kafkaclient.Config{BootstrapServers: "localhost:9092"},
		GroupID: "billing", Topics: []string{"outbox.event.Order"},
		Kafka:        kafka.ConfigMap{"statistics.interval.ms": 5000},
		OnStatistics: m.ObserveStatistics,
	}
	_, _ = r, cfg // consumer.NewConsumer(cfg, r), then Run
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler()) // http.ListenAndServe(":9464", mux)
	fmt.Println("ok")
	// Output: ok
}

func ExampleParseLag() {
	lags, _ := consumerprom.ParseLag(`{"topics":{"orders":{"partitions":{"0":{"partition":0,"consumer_lag":12},"-1":{"partition":-1,"consumer_lag":-1}}}}}`)
	fmt.Println(lags)
	// Output: [{orders 0 12}]
}
