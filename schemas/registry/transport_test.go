package registry_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/internal/httpclient/httpclienttest"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// TestTransportOptions: WithHTTPClient, WithTransport, WithTLS and
// WithTransportWrapper mean what they mean in the Connect client (one
// table, internal/httpclient/httpclienttest).
func TestTransportOptions(t *testing.T) {
	t.Parallel()
	httpclienttest.TransportOptions(t, httpclienttest.Options[registry.Opt]{
		HTTPClient: registry.WithHTTPClient, Transport: registry.WithTransport, TLS: registry.WithTLS, Wrapper: registry.WithTransportWrapper,
	}, func(opts ...registry.Opt) error {
		c, err := registry.NewClient(httpclienttest.Unreachable, opts...)
		if err != nil {
			return err
		}
		_, err = c.Subjects(context.Background(), false)
		return err
	})
}
