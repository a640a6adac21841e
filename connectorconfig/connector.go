package connectorconfig

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
}
