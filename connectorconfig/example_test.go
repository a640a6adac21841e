package connectorconfig_test

import (
	"fmt"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

func Example() {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: pg, user: dbz, password: "${env:PG_PASSWORD}", dbname: orders}
    routing:
      topicRegex: (?<routed_by>.*)
`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cs[0].Name, cs[0].Config["slot.name"], cs[0].Config["snapshot.mode"])
	for _, f := range connectorconfig.Validate(s, cs) {
		fmt.Printf("%s: %s\n", f.Pos(), f.Rule)
	}
	// Output:
	// orders-outbox orders_outbox no_data
	// outbox.yaml:8:19: ROUTE_REGEX_INVALID
}
