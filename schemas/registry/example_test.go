package registry_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
)

// Register sets the level of a new subject first, then registers; an
// identical schema registers nothing new; a refusal unwraps to a sentinel.
func ExampleClient_Register() {
	fake := srfake.New() // a Confluent registry in memory; use the real URL instead
	defer fake.Close()
	c, err := registry.NewClient(fake.URL())
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	subject := "orders-com.acme.order.v1.OrderCreated"

	_ = c.SetLevel(ctx, subject, "BACKWARD_TRANSITIVE") // before the first version
	v1 := `{"type":"record","name":"OrderCreated","namespace":"com.acme.order.v1","fields":[{"name":"id","type":"string"}]}`
	r, _ := c.Register(ctx, subject, v1)
	fmt.Println("created:", r.Created, "version:", r.Version)

	r, _ = c.Register(ctx, subject, v1)
	fmt.Println("created:", r.Created, "version:", r.Version)

	breaking := `{"type":"record","name":"OrderCreated","namespace":"com.acme.order.v1","fields":[{"name":"id","type":"long"}]}`
	_, err = c.Register(ctx, subject, breaking)
	var apiErr *registry.APIError
	if errors.Is(err, registry.ErrIncompatible) && errors.As(err, &apiErr) {
		fmt.Println("refused with HTTP", apiErr.Status)
	}

	_, err = c.Latest(ctx, "no-such-subject")
	fmt.Println(errors.Is(err, registry.ErrSubjectNotFound))
	// Output:
	// created: true version: 1
	// created: false version: 1
	// refused with HTTP 409
	// true
}
