package connect_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

func ExampleClient() {
	fake := connectfake.New(connectfake.WithVersion("4.3.1"))
	defer fake.Close()
	c, err := connect.NewClient(fake.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	info, _ := c.ServerInfo(ctx)
	fmt.Println("connect", info.Version, "initial_state:", info.Capabilities().InitialState)

	_, err = c.CreateConnector(ctx, "orders-outbox", map[string]string{
		"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
		"topic.prefix":    "orders",
	}, connect.StatePaused)
	fmt.Println("create:", err)
	st, _ := c.Status(ctx, "orders-outbox")
	fmt.Println("state:", st.Connector.State)

	_, err = c.Status(ctx, "nope")
	fmt.Println("not found:", errors.Is(err, connect.ErrNotFound))
	// Output:
	// connect 4.3.1 initial_state: true
	// create: <nil>
	// state: PAUSED
	// not found: true
}
