package connectfake_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

// TestNewOptions: New takes options like srfake.New; an Options value is
// one (its set fields), and later options override earlier ones.
func TestNewOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []connectfake.Option
		version string
		plugins int
	}{
		{"defaults", nil, "4.3.1", 3},
		{"With functions", []connectfake.Option{connectfake.WithVersion("3.6.0"), connectfake.WithPlugins("a.B")}, "3.6.0", 1},
		{"Options value", []connectfake.Option{connectfake.Options{Version: "3.7.0"}}, "3.7.0", 3},
		{"later wins", []connectfake.Option{connectfake.Options{Version: "3.7.0", Plugins: []string{"a.B", "c.D"}}, connectfake.WithVersion("4.0.0")}, "4.0.0", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := connectfake.New(tc.opts...)
			defer f.Close()
			c, err := connect.NewClient(f.URL)
			if err != nil {
				t.Fatal(err)
			}
			info, err := c.ServerInfo(context.Background())
			if err != nil || info.Version != tc.version {
				t.Fatalf("version = %+v, %v; want %s", info, err, tc.version)
			}
			plugins, err := c.ConnectorPlugins(context.Background())
			if err != nil || len(plugins) != tc.plugins {
				t.Fatalf("plugins = %v, %v; want %d", plugins, err, tc.plugins)
			}
		})
	}
}
