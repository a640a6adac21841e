package cmd

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

// TestConnectRemoverResetsOffsetsFirst: the connector is stopped, its
// offsets deleted while STOPPED, and only then the connector (after a
// delete Connect has nothing left to reset them on).
func TestConnectRemoverResetsOffsetsFirst(t *testing.T) {
	srv := connectfake.New()
	defer srv.Close()
	srv.Seed("orders-outbox", map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "orders"}, "")
	cl, err := connect.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	r := connectRemover{env: &Env{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}}, cl: cl}
	ctx := context.Background()
	if ok, err := r.ConnectorExists(ctx, "orders-outbox"); !ok || err != nil {
		t.Fatalf("exists = %v, %v", ok, err)
	}
	if err := r.RemoveConnector(ctx, "orders-outbox"); err != nil {
		t.Fatal(err)
	}
	want := []string{"PUT /connectors/orders-outbox/stop", "DELETE /connectors/orders-outbox/offsets", "DELETE /connectors/orders-outbox"}
	if got := srv.Writes(); !slices.Equal(got, want) {
		t.Errorf("writes = %v, want %v", got, want)
	}
	if ok, err := r.ConnectorExists(ctx, "orders-outbox"); ok || err != nil {
		t.Errorf("after removal: exists = %v, %v; want absent, no error", ok, err)
	}
}
