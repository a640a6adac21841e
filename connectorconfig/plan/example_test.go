package plan_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
)

// Diff a desired connector against what Connect has and render the plan.
func ExampleDiff() {
	desired := []connectorconfig.Connector{{
		Name: "orders-outbox",
		Config: map[string]string{
			"connector.class":   "io.debezium.connector.postgresql.PostgresConnector",
			"topic.prefix":      "orders",
			"snapshot.mode":     "no_data",
			"poll.interval.ms":  "100",
			"database.password": "s3cret",
		},
	}}
	actual := map[string]plan.ActualConnector{"orders-outbox": {
		Name: "orders-outbox",
		Config: map[string]string{
			"name":              "orders-outbox", // added by Connect: not drift
			plan.OwnerKey:       plan.DefaultOwner,
			"connector.class":   "io.debezium.connector.postgresql.PostgresConnector",
			"topic.prefix":      "orders",
			"snapshot.mode":     "no_data",
			"poll.interval.ms":  "500",
			"database.password": "[hidden]", // masked by Connect: assumed unchanged
		},
	}}
	p := plan.Diff(desired, actual)
	_ = plan.RenderText(os.Stdout, p)
	// Output:
	// Resource actions are indicated with the following symbols:
	//   ~ update in-place
	//
	// outboxctl will perform the following actions:
	//
	//   # connector "orders-outbox" will be updated in-place
	//   ~ connector "orders-outbox" {
	//       ~ poll.interval.ms = "500" -> "100"
	//         # (5 unchanged keys hidden)
	//         # (database.password masked by Connect, assumed unchanged)
	//     }
	//
	// Plan: 0 to create, 1 to update, 0 to delete.
}

// Apply a plan: write only what changed, then wait until RUNNING.
func ExampleApply() {
	fake := connectfake.New(connectfake.Options{})
	defer fake.Close()
	client, _ := connect.NewClient(fake.URL)
	ctx := context.Background()

	desired := []connectorconfig.Connector{{Name: "orders-outbox", Config: map[string]string{
		"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
		"topic.prefix":    "orders",
	}}}
	for i := 0; i < 2; i++ {
		actual, err := plan.Fetch(ctx, client)
		if err != nil {
			fmt.Println(err)
			return
		}
		rep, err := plan.Apply(ctx, client, plan.Diff(desired, actual), plan.ApplyOptions{PollInterval: 10 * time.Millisecond})
		if err != nil {
			fmt.Println(err)
			return
		}
		r := rep.Results[0]
		fmt.Println(r.Name, r.Written, r.Converged, r.State)
	}
	fmt.Println("config writes:", fake.Puts("orders-outbox"))
	// Output:
	// orders-outbox [created (PUT)] true RUNNING
	// orders-outbox [] true RUNNING
	// config writes: 1
}
