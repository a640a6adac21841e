package cmd

import (
	"fmt"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

// preflightSpec runs validate's blocking rules before a command's first
// change (provision, schema register, deploy from a spec): the same call
// as `outboxctl validate` (connectorconfig.Validate over the spec's
// generated connectors, references unresolved). The error findings are
// printed on stderr and the command stops with exit 3, nothing changed;
// warnings do not block (validate --fail-on warning reports them).
func preflightSpec(env *Env, s *spec.Spec, command string) error {
	cs, err := generateConnectors(env, s, nil, nil)
	if err != nil {
		return err
	}
	return preflightFindings(env, connectorconfig.Validate(s, cs), command)
}

// preflightFindings stops command (exit 3) when fs holds an error finding.
func preflightFindings(env *Env, fs []connectorconfig.Finding, command string) error {
	var blocking []connectorconfig.Finding
	for _, f := range fs {
		if f.Severity == connectorconfig.SeverityError {
			blocking = append(blocking, f)
		}
	}
	if len(blocking) == 0 {
		return nil
	}
	if err := renderFindings(env.IO.ErrOut, formatText, blocking); err != nil {
		return err
	}
	return WithExitCode(ExitCheckFailed, fmt.Errorf("%s: the spec has %d blocking validation finding(s) (outboxctl validate lists them): nothing was changed", command, len(blocking)))
}
