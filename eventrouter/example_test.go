package eventrouter_test

import (
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// Route a sample outbox row through the EventRouter of a connector config
// and print the Kafka record it becomes.
func ExampleRoute() {
	cfg, err := eventrouter.ParseConfig(map[string]string{
		"connector.class":        "io.debezium.connector.postgresql.PostgresConnector",
		"topic.prefix":           "orders",
		"transforms":             "outbox",
		"transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
		"transforms.outbox.table.fields.additional.placement": "type:header:eventType",
		"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
		"value.converter": "org.apache.kafka.connect.storage.StringConverter",
	}, "outbox")
	if err != nil {
		panic(err)
	}
	row, err := eventrouter.ParseSampleRow(strings.NewReader(`{
	  "columns": {"id": "uuid not null", "payload": "jsonb"},
	  "row": {"id": "4d47e190-0402-4048-bc2c-89dd54343cb1", "aggregatetype": "Order",
	          "aggregateid": "1", "type": "OrderCreated", "payload": {"id": 1, "customerId": 123}}}`))
	if err != nil {
		panic(err)
	}
	ev, err := row.ChangeEvent(cfg.Connector)
	if err != nil {
		panic(err)
	}
	res, err := eventrouter.Route(cfg, ev)
	if err != nil {
		panic(err)
	}
	r := res.Record
	fmt.Println("topic:", r.Topic)
	fmt.Println("key:", string(r.Key))
	for _, h := range r.Headers {
		if !h.Volatile {
			fmt.Printf("header %s: %s\n", h.Key, h.Value)
		}
	}
	fmt.Println("value:", string(r.Value))
	// Output:
	// topic: outbox.event.Order
	// key: 1
	// header __debezium.context.connectorLogicalName: orders
	// header __debezium.context.taskId: 0
	// header __debezium.context.connectorName: postgresql
	// header id: 4d47e190-0402-4048-bc2c-89dd54343cb1
	// header eventType: OrderCreated
	// value: {"id": 1, "customerId": 123}
}

// A row update is dropped by default (table.op.invalid.behavior=warn).
func ExampleRouter_Route_update() {
	cfg, _ := eventrouter.ParseConfig(map[string]string{
		"transforms": "outbox", "transforms.outbox.type": eventrouter.EventRouterClass,
	}, "")
	res, _ := eventrouter.NewRouter(cfg).Route(eventrouter.ChangeEvent{Op: eventrouter.OpUpdate, Table: "public.outboxevent"})
	fmt.Println(res.Dropped, res.Reason)
	// Output: true update event ignored (table.op.invalid.behavior=warn)
}
