package cmd

import (
	"errors"
	"fmt"
	"slices"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// The one way the commands pick outboxes of a spec: pickOutbox for one,
// outboxTargets for the provisioning targets of some, outboxConnectorConfig
// for one outbox's connector config. All three report a name the spec does
// not have with spec.(*Spec).Outbox's error, which names the outboxes.

// pickOutbox is spec.(*Spec).Outbox with the errors as usage errors.
func pickOutbox(s *spec.Spec, name string) (*spec.Outbox, error) {
	o, err := s.Outbox(name)
	if err != nil {
		return nil, outboxError(err)
	}
	return o, nil
}

// outboxError makes a *spec.OutboxNotFoundError a usage error; when no
// outbox was named, it tells which flag names one.
func outboxError(err error) error {
	var nf *spec.OutboxNotFoundError
	if !errors.As(err, &nf) {
		return err
	}
	if nf.Name == "" && len(nf.Available) > 1 {
		return UsageError(fmt.Errorf("%w: pass --outbox", err))
	}
	return UsageError(err)
}

// outboxTargets loads the spec and returns the provisioning targets of the
// outboxes named, in the order named (every outbox's when names is empty),
// and those of the other outboxes of the spec.
func outboxTargets(env *Env, files []string, names ...string) (picked, others []provisioning.Target, err error) {
	s, err := loadSpec(env, files)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		if _, err := pickOutbox(s, name); err != nil {
			return nil, nil, err
		}
	}
	all, _, err := specTargetsOf(env, s)
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return all, nil, nil
	}
	for _, name := range names {
		for _, t := range all {
			if t.Outbox.Name == name {
				picked = append(picked, t)
			}
		}
	}
	for _, t := range all {
		if !slices.Contains(names, t.Outbox.Name) {
			others = append(others, t)
		}
	}
	return picked, others, nil
}

// outboxConnectorConfig generates the connector config of the spec's outbox
// named name (the only one when name is empty). With resolve, ${env:…} and
// ${file:…} secrets are resolved (the relay connects with them); without,
// they are left as written (routing does not read them).
func outboxConnectorConfig(env *Env, s *spec.Spec, name string, resolve bool) (map[string]string, *spec.Outbox, error) {
	var lookup *spec.Lookup
	if resolve {
		lookup = envLookup(env)
	}
	c, o, err := connectorconfig.GenerateOutbox(s, name, genOptions(env, lookup, nil))
	switch {
	case errors.Is(err, spec.ErrNoSuchOutbox):
		return nil, nil, outboxError(err)
	case errors.Is(err, spec.ErrSecretUnresolved):
		return nil, nil, UsageError(err)
	case err != nil:
		return nil, nil, err
	}
	return c.Config, o, nil
}

// specOutboxConnectorConfig is outboxConnectorConfig of the spec files.
func specOutboxConnectorConfig(env *Env, files []string, name string, resolve bool) (map[string]string, *spec.Outbox, error) {
	s, err := loadSpec(env, files)
	if err != nil {
		return nil, nil, err
	}
	return outboxConnectorConfig(env, s, name, resolve)
}
