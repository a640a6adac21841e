package spec_test

import (
	"fmt"

	"github.com/outboxctl/outboxctl/spec"
)

func ExampleLoad() {
	s, err := spec.Load("../examples/outbox.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range s.Outboxes {
		fmt.Printf("%s (%s) at %s: connector %s\n", o.Name, o.Database.Kind, o.PosOf("name"), o.Connector.Name)
		for _, c := range o.ColumnContract() {
			if c.Role == spec.RolePayload {
				fmt.Printf("  payload column %s %s\n", c.Name, c.SQLType)
			}
		}
	}
	// Output:
	// orders (postgres) at ../examples/outbox.yaml:14:11: connector orders-outbox
	//   payload column payload bytea
	// payments (mariadb) at ../examples/outbox.yaml:50:11: connector payments-outbox
	//   payload column payload longtext
}

func ExampleParse_errors() {
	_, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: pg, user: dbz, password: hunter2, dbname: orders}
    payloadFromat: json
`)})
	fmt.Println(err)
	// Output:
	// outbox.yaml:6:51: password must be a reference (${env:NAME}, ${file:PATH} or a Kafka Connect config-provider placeholder such as ${file:/path:key}), not a literal
	// outbox.yaml:7:5: unknown key "outboxes[0].payloadFromat" (did you mean "payloadFormat"?)
}
