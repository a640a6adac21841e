package connect_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/httpclient/httpclienttest"
)

// TestTransportOptions: WithHTTPClient, WithTransport, WithTLS and
// WithTransportWrapper mean what they mean in the registry client (one
// table, internal/httpclient/httpclienttest).
func TestTransportOptions(t *testing.T) {
	t.Parallel()
	httpclienttest.TransportOptions(t, httpclienttest.Options[connect.Opt]{
		HTTPClient: connect.WithHTTPClient, Transport: connect.WithTransport, TLS: connect.WithTLS, Wrapper: connect.WithTransportWrapper,
	}, func(opts ...connect.Opt) error {
		c, err := connect.NewClient(httpclienttest.Unreachable, append(opts, connect.WithRetry(connect.Retry{MaxAttempts: 1}))...)
		if err != nil {
			return err
		}
		_, err = c.ListConnectors(context.Background())
		return err
	})
}
