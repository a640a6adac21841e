package connectorconfig

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
)

// ServerRuleID is the rule ID of findings reported by Kafka Connect's own
// validation (PUT /connector-plugins/{class}/config/validate).
const ServerRuleID = "CONNECT_VALIDATE"

// ExactlyOnceWorkerHint is added to Connect's answer on exactly.once.support
// (a worker without exactly-once source support answers "This worker does
// not have exactly-once source support enabled."): it names the worker
// setting.
const ExactlyOnceWorkerHint = "(exactly-once delivery needs exactly.once.source.support=enabled in the config of every Connect worker of the group, in distributed mode; or set delivery: at-least-once)"

// Validator is the part of the Connect client ValidateServer uses.
type Validator interface {
	ValidateConfig(ctx context.Context, class string, config map[string]string) (connect.ConfigInfos, error)
}

// ValidateServer sends each connector's config to Kafka Connect's validate
// endpoint and maps its per-key errors back to the spec positions the keys
// came from. Connect checks types, required keys, converters and, for
// Debezium connectors, that it can reach the database; it does not check
// EventRouter options (Validate does).
//
// The configs must hold resolved secrets (Generate with a Lookup) for the
// database checks to pass; finding messages never contain config values.
// An error is returned when Connect cannot be asked (unreachable, timed out,
// 4xx/5xx) or answers with a body of the wrong shape (connect.ErrBadAnswer:
// never "no findings"); the findings gathered so far are returned with it.
func ValidateServer(ctx context.Context, v Validator, cs []Connector) ([]Finding, error) {
	var out []Finding
	for i := range cs {
		c := &cs[i]
		class := c.Config["connector.class"]
		cfg := make(map[string]string, len(c.Config)+1)
		for k, val := range c.Config {
			cfg[k] = val
		}
		cfg["name"] = c.Name // the validate endpoint requires it
		infos, err := v.ValidateConfig(ctx, class, cfg)
		if err == nil {
			// The Connect client checks its answers; other Validators may not.
			if cerr := infos.Check(); cerr != nil {
				err = fmt.Errorf("%w: %v", connect.ErrBadAnswer, cerr)
			}
		}
		if err != nil {
			return out, fmt.Errorf("validate connector %s with Connect: %w", c.Name, err)
		}
		errs := infos.Errors()
		keys := make([]string, 0, len(errs))
		for k := range errs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		r := &Rule{ID: ServerRuleID, Severity: SeverityError, Hint: "Kafka Connect rejected this value; see the message"}
		vv := &validation{}
		for _, k := range keys {
			for _, msg := range errs[k] {
				text := fmt.Sprintf("Connect: %s: %s", k, maskSecrets(msg, c))
				if k == "exactly.once.support" {
					text += " " + ExactlyOnceWorkerHint
				}
				vv.report(r, c, k, text)
			}
		}
		out = append(out, vv.findings...)
	}
	return out, nil
}

// maskSecrets removes the values of c's sensitive keys from msg.
func maskSecrets(msg string, c *Connector) string {
	for _, k := range c.Sensitive {
		if v := c.Config[k]; len(v) >= 3 {
			msg = strings.ReplaceAll(msg, v, Masked)
		}
	}
	return msg
}
