package connectorconfig

import (
	"github.com/outboxctl/outboxctl/internal/redact"
	"github.com/outboxctl/outboxctl/spec"
)

// Masked replaces secret values in output: the module's one mask
// spelling (redact.Mask).
const Masked = redact.Mask

// MaskedConfig returns a copy of c.Config fit for output: the values of the
// Sensitive keys are replaced by Masked, except unresolved references
// (${env:NAME}, ${file:PATH} and Kafka Connect config-provider placeholders
// such as ${file:/path:key}), which are not secrets and are shown as written.
func (c *Connector) MaskedConfig() map[string]string {
	out := make(map[string]string, len(c.Config))
	for k, v := range c.Config {
		out[k] = v
	}
	for _, k := range c.Sensitive {
		v, ok := out[k]
		if !ok || v == "" {
			continue
		}
		if _, err := spec.ParseSecret(v); err == nil {
			continue
		}
		out[k] = Masked
	}
	return out
}

// MaskString replaces every secret value of the connectors in s by Masked
// (for error messages and server answers that may echo a value).
func MaskString(s string, cs ...Connector) string {
	for i := range cs {
		s = maskSecrets(s, &cs[i])
	}
	return s
}
