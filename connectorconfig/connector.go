package connectorconfig

import "github.com/outboxctl/outboxctl/spec"

// Connector is one generated Kafka Connect connector: its name and its
// complete configuration as Kafka Connect takes it (PUT /connectors/{name}/config).
//
// It is the hand-off between generation (this package) and deployment
// (plan, deploy): everything downstream works on Connectors.
type Connector struct {
	// Name is the Kafka Connect connector name. Offsets are keyed by it.
	Name string `json:"name"`
	// Config is the connector configuration, every value a string, as the
	// Connect REST API takes it. Secrets appear only as references
	// (${env:…}, ${file:…} resolved by the caller, or Connect config-provider
	// placeholders such as ${file:/path:key}, passed through untouched).
	Config map[string]string `json:"config"`
	// State is the desired state: "running" (default), "paused" or "stopped".
	State string `json:"state,omitempty"`
	// Sensitive lists the config keys whose values must be masked in output.
	Sensitive []string `json:"-"`
	// Source says where the connector was declared (spec file and line), for
	// error messages and annotations. Empty when not from a spec.
	Source string `json:"-"`
	// Provenance is set by Generate (added fields; the ones above are the
	// stable hand-off contract).
	Provenance
}

// Provenance of a generated connector: where each config key came from and
// why it has its value. Filled by Generate; empty for connectors built by
// hand.
type Provenance struct {
	// Outbox is the name of the spec outbox the connector captures.
	Outbox string `json:"-"`
	// Kind is the database kind (postgres, mysql, mariadb).
	Kind string `json:"-"`
	// Positions maps a config key to the spec position that produced it
	// (the override, the spec field, or the outbox when defaulted).
	Positions map[string]spec.Pos `json:"-"`
	// Reasons explains chosen values for the keys that matter (snapshot
	// mode, converters, skipped operations, …), keyed by config key.
	Reasons map[string]string `json:"-"`
	// Relay: the polling relay publishes the outbox (spec relay:), with this
	// config; plan and deploy leave no connector for it.
	Relay bool `json:"-"`
}
