package consumerotel_test

import (
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerotel"
)

// Example adds the tracing middleware after Retry: one span per attempt.
func Example() {
	tp := sdktrace.NewTracerProvider() // with your exporter
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	err := r.Use(consumer.Retry{MaxAttempts: 3}.Middleware, consumerotel.Middleware(consumerotel.Config{TracerProvider: tp, ConsumerGroup: "billing"}))
	fmt.Println(err)
	// Output: <nil>
}

// ExampleParseProperties reads the tracing column's text.
func ExampleParseProperties() {
	p := consumerotel.ParseProperties("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	fmt.Println(p["traceparent"])
	// Output: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01
}
